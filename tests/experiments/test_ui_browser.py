"""The MLflow UI in a real browser (headless Chromium), on a store filled by a quick figure and served by `make ui`'s
command: a figure's experiment opens on its runs, listing its trial runs by name, not on MLflow 3's GenAI pages."""

import html
import re

import pytest
from mlflow import MlflowClient
from ui_server import serving

from experiments import evidence, evidence_store
from experiments.report import evidence_experiment_ids
from experiments.ui import browser, figure_run_url, headless, runs_url

UNITS = {"ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}

pytestmark = pytest.mark.skipif(
    browser() is None, reason="no Chromium here (Debian: apt-get install chromium; .ci/run installs it)"
)


@pytest.fixture(scope="module")
def pages(quick_figure):
    """The DOMs of the quick figure's experiment page and figure run page, as the UI serves them to a browser."""
    client = MlflowClient(quick_figure.uri)
    experiment_id = client.get_experiment_by_name(quick_figure.figure).experiment_id
    runs = client.search_runs([experiment_id], max_results=1000)
    (figure_run,) = [r for r in runs if r.data.tags.get("kind") == "figure"]
    with serving(quick_figure.root / "mlflow.db", quick_figure.root / "artifacts", quick_figure.root) as server:
        tall = "--window-size=1400,2000"  # every run's row drawn (the table draws the rows in sight)
        experiment = headless(runs_url(server.base, experiment_id), "--dump-dom", tall)
        figure = headless(figure_run_url(server.base, experiment_id, figure_run.info.run_id), "--dump-dom", tall)
    return html.unescape(experiment), html.unescape(figure), runs


@pytest.mark.slow
def test_a_figures_experiment_opens_on_its_runs_listed_by_name(pages, quick_figure):
    experiment, _, runs = pages
    trial_names = [r.info.run_name for r in runs if "trial_hash" in r.data.tags]
    assert len(set(trial_names)) == quick_figure.n_trials
    missing = [name for name in trial_names if f">{name}<" not in experiment]
    assert not missing, f"trial runs not in the runs table: {missing}"
    assert f"<strong>{len(runs)}</strong> matching runs" in experiment
    assert "Detect Issues" not in experiment and "No data available" not in experiment  # MLflow 3's GenAI pages


@pytest.mark.slow
def test_a_figure_runs_page_shows_its_claims_with_verdicts(pages):
    _, figure, _ = pages
    assert "Claims reproduced:" in figure and "<th>verdict</th>" in figure and "reproduced</strong>" in figure


@pytest.mark.slow
def test_a_report_link_opens_an_evidence_run_in_the_runs_view_with_its_trials_duration(exported, tmp_path):
    """The committed report's link to a run (as report.py writes it: its experiment in the evidence's store, the
    machine-learning view), served by `make ui`'s command on the evidence's store: the run's page, not the GenAI
    pages, and its Duration is the trial's."""
    root, _, figure = exported
    store = evidence_store.build(root, tmp_path / "ui", "x", "fingerprint.sha256")
    recorded = evidence.read(root, "quick", figure.figure)
    run = max(recorded.runs, key=lambda r: r.metrics["duration_seconds"])
    experiment_id = str(evidence_experiment_ids(root)[figure.figure])
    with serving(store, tmp_path / "ui" / "artifacts", tmp_path) as server:
        page = html.unescape(headless(figure_run_url(server.base, experiment_id, run.run_id), "--dump-dom"))
    assert "Evaluation runs" not in page and "Detect Issues" not in page  # MLflow 3's GenAI pages
    text = re.sub(r"<[^>]+>", " ", page)
    assert run.name in text
    value, unit = re.search(r"Duration\s+([0-9.]+)\s*(ms|s|min|h)\b", text).groups()
    shown, trial = float(value) * UNITS[unit], run.metrics["duration_seconds"]
    assert shown == pytest.approx(trial, rel=0.06, abs=0.06), (value, unit, trial)
