"""The MLflow UI in a real browser (headless Chromium), on a store filled by a quick figure and served by `make ui`'s
command: a figure's experiment opens on its runs, listing its trial runs by name, not on MLflow 3's GenAI pages."""

import html
import re

import pytest
from mlflow import MlflowClient
from ui_server import serving

from experiments import evidence, evidence_store
from experiments.figure_catalog import evidence_experiment_ids
from experiments.run_view import CLAIMS_PAGE
from experiments.ui import browser, headless
from experiments.ui_addresses import figure_run_url, run_url, runs_url

UNITS = {"ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}

pytestmark = pytest.mark.skipif(
    browser() is None, reason="no Chromium here (Debian: apt-get install chromium; .ci/run installs it)"
)


@pytest.fixture(scope="module")
def pages(quick_figure):
    """The DOMs of the quick figure's experiment page and figure run page (as the report links to it), as the UI
    serves them to a browser, the run's claims page as the server gives it, and the runs."""
    client = MlflowClient(quick_figure.uri)
    experiment_id = client.get_experiment_by_name(quick_figure.figure).experiment_id
    runs = client.search_runs([experiment_id], max_results=1000)
    (figure_run,) = [r for r in runs if r.data.tags.get("kind") == "figure"]
    with serving(quick_figure.root / "mlflow.db", quick_figure.root / "artifacts", quick_figure.root) as server:
        tall = "--window-size=1400,2000"  # every run's row drawn (the table draws the rows in sight)
        experiment = headless(runs_url(server.base, experiment_id), "--dump-dom", tall)
        figure = headless(figure_run_url(server.base, experiment_id, figure_run.info.run_id), "--dump-dom", tall)
        claims = server.get("/get-artifact", run_id=figure_run.info.run_id, path=CLAIMS_PAGE).decode()
    return html.unescape(experiment), html.unescape(figure), claims, runs


@pytest.mark.slow
def test_a_figures_experiment_opens_on_its_runs_listed_by_name(pages, quick_figure):
    experiment, _, _, runs = pages
    trial_names = [r.info.run_name for r in runs if "trial_hash" in r.data.tags]
    assert len(set(trial_names)) == quick_figure.n_trials
    missing = [name for name in trial_names if f">{name}<" not in experiment]
    assert not missing, f"trial runs not in the runs table: {missing}"
    assert f"<strong>{len(runs)}</strong> matching runs" in experiment
    assert "Detect Issues" not in experiment and "No data available" not in experiment  # MLflow 3's GenAI pages


@pytest.mark.slow
def test_a_figure_runs_page_opens_on_its_claims_with_verdicts(pages):
    """The report's link opens the run on its claims page, shown (as MLflow shows an HTML artifact, in a frame of its
    own) without a click: the tally, the table with every verdict, and the drawing."""
    _, figure, claims, _ = pages
    assert 'class="mlflow-html-iframe"' in figure and f">{CLAIMS_PAGE}<" in figure
    assert "Claims reproduced:" in claims and "<th>verdict</th>" in claims and "reproduced</b>" in claims
    assert '<img src="data:image/png;base64,' in claims


@pytest.mark.slow
def test_a_report_link_opens_an_evidence_run_in_the_runs_view_with_its_trials_duration(exported, tmp_path):
    """A run of the evidence's store opened as the report's links open runs (its experiment in the evidence's store,
    the machine-learning view), served by `make ui`'s command: the run's page, not the GenAI pages, and its Duration
    is the trial's."""
    root, _, figure = exported
    store = evidence_store.build(root, tmp_path / "ui", "x", "fingerprint.sha256")
    recorded = evidence.read(root, "quick", figure.figure)
    run = max(recorded.runs, key=lambda r: r.metrics["duration_seconds"])
    experiment_id = str(evidence_experiment_ids(root)[figure.figure])
    with serving(store, tmp_path / "ui" / "artifacts", tmp_path) as server:
        page = html.unescape(headless(run_url(server.base, experiment_id, run.run_id), "--dump-dom"))
    assert "Evaluation runs" not in page and "Detect Issues" not in page  # MLflow 3's GenAI pages
    text = re.sub(r"<[^>]+>", " ", page)
    assert run.name in text
    value, unit = re.search(r"Duration\s+([0-9.]+)\s*(ms|s|min|h)\b", text).groups()
    shown, trial = float(value) * UNITS[unit], run.metrics["duration_seconds"]
    assert shown == pytest.approx(trial, rel=0.06, abs=0.06), (value, unit, trial)
