"""Each figure at profile=quick through the real command line, into a temporary MLflow store."""

import json
import re

import pytest
from mlflow import MlflowClient

from experiments.figure_catalog import figure_ids
from experiments.figures import CHECKED, Claim

FIGURES = {
    "mgs20-fig1": 1,
    "mgs20-fig2": 1,
    "theory-leaves": 9,
    "theory-cell": 6,
    "amf-fig1": 1,
    "amf-fig2": 1,
    "amf-fig3": 1,
    "amf-fig5": 1,
    "amf-fig7": 2,
    "amf-fig8": 2,
    "amf-fig9": 54,
    "amf-fig10": 10,
    "amf-fig11": 24,
    "amf-fig12": 48,
    "lrt14-fig1": 1,
    "lrt14-fig2": 1,
    "lrt14-fig3": 5,
    "mgs17-fig1": 6,
    "theory-rates-lipschitz": 12,
    "theory-fixed-lifetime": 4,
    "theory-adaptive": 2,
    "theory-rates-smooth": 12,
    "bsp-fig1": 1,
    "bsp-fig2": 2,
    "bsp-fig6": 1,
    "bsp-fig3": 28,
    "bsp-fig4": 36,
    "bsp-fig5": 28,
    "lrt14-fig1a": 1,
    "mgs20-fig3": 1,
    "amf-fig4": 1,
    "amf-fig6": 1,
    "amf-table2": 2,
    "bsp-fig7": 1,
    "cku23-coverage": 8,
    "lrt16-fig1": 15,
    "lrt16-table1": 12,
}
# Comparisons of methods on real data whose quick profile (two small streams) is too small for the paper's verdict,
# theory figures whose printed statements fail by design (theory-cell's Corollary 1) or whose quick seeds are too
# few for their bounds, and bsp-fig2, whose theorem check runs Algorithm 4 as printed beside the law's rule (the
# printed rule breaks the statement, at every size), and cku23-coverage, whose quick replications (20 per method) are
# too few for its binomial tests: their claims are evaluated and reported, not required to pass.
REPORTED_ONLY = {
    "amf-fig8", "amf-fig9", "amf-fig10", "amf-fig11", "amf-fig12", "lrt14-fig3", "mgs17-fig1", "theory-rates-lipschitz",
    "theory-rates-smooth", "bsp-fig3", "bsp-fig4", "bsp-fig5", "amf-table2", "theory-cell", "theory-adaptive",
    "theory-fixed-lifetime", "bsp-fig2", "cku23-coverage", "lrt16-table1",
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("figure_id, n_trials", FIGURES.items())
def test_figure_at_quick_profile_end_to_end(figure_id, n_trials, quick_figures, tmp_path):
    """`make figures PROFILE=quick` (quick_figures) ran the figure's trials, drew it and checked its claims."""
    printed = quick_figures.block(figure_id)
    assert f"{n_trials} trials: 0 already finished, {n_trials} run now, 0 failed" in printed
    for suffix in ("png", "pdf"):
        image = quick_figures.root / "figures" / "quick" / f"{figure_id}.{suffix}"
        assert image.stat().st_size > 10_000
    client = MlflowClient(quick_figures.uri)
    experiment = client.get_experiment_by_name(figure_id)
    runs = client.search_runs([experiment.experiment_id])
    trial_runs = [r for r in runs if "trial_hash" in r.data.tags]
    figure_runs = [r for r in runs if r.data.tags.get("kind") == "figure"]
    assert len(trial_runs) == n_trials and all(r.info.status == "FINISHED" for r in trial_runs)
    assert {r.data.tags["profile"] for r in trial_runs} == {"quick"}
    (figure_run,) = figure_runs
    assert {r.data.tags["mlflow.parentRunId"] for r in trial_runs} == {figure_run.info.run_id}
    artifacts = {a.path for a in client.list_artifacts(figure_run.info.run_id)}
    assert {f"{figure_id}.png", f"{figure_id}.pdf", "claims.json", "settings.json"} <= artifacts
    with open(client.download_artifacts(figure_run.info.run_id, "claims.json", str(tmp_path))) as f:
        claims = json.load(f)["claims"]
    assert claims and all(str(Claim(**c)) in printed for c in claims)
    assert all(isinstance(c["passed"], bool) == (c["status"] == CHECKED) for c in claims)
    keys = [c["key"] for c in claims]
    assert all(keys) and len(set(keys)) == len(keys) and {c["kind"] for c in claims} <= {"claim", "invariant"}
    # the figure's own claims hold at the quick profile's fixed seeds
    assert figure_id in REPORTED_ONLY or all(c["passed"] is not False for c in claims), claims
    with open(client.download_artifacts(figure_run.info.run_id, "settings.json", str(tmp_path))) as f:
        settings = json.load(f)
    assert settings["profile"] == "quick" and settings["trials"] == n_trials
    assert sorted(settings["runs"]) == sorted(r.info.run_id for r in trial_runs)


@pytest.mark.slow
def test_figures_run_again_run_nothing_again(quick_figures):
    """Regenerating figures whose trials are all in the store runs none of them, and draws each figure again."""
    assert "0 trials to run in 0 of 3 figures" in quick_figures.again
    for figure_id in quick_figures.resumed:
        n = FIGURES[figure_id]
        printed = quick_figures.block(figure_id, quick_figures.again)
        assert f"{n} trials: {n} already finished, 0 run now, 0 failed" in printed
        assert f"{figure_id}: drawn from {n} of {n} trials" in printed
    assert "3 figures drawn, 0 failed, 0 not run" in quick_figures.again
    assert re.search(r"total time \d+:\d\d:\d\d", quick_figures.again)


@pytest.mark.slow
def test_every_registered_figure_is_tested_end_to_end(quick_figures):
    assert set(FIGURES) | set(quick_figures.needs_files) == set(figure_ids())
    assert len(quick_figures.resumed) == 3


@pytest.mark.slow
def test_adhoc_trial_from_the_command_line(tmp_path, cli_store, run_cli):
    done = run_cli(
        "dataset=moons",
        "model=mondrian_classifier",
        "protocol=fractions",
        "dataset.load.n_samples=400",
        *cli_store,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "moons/MF/seed=0: run" in done.stdout and "accuracy =" in done.stdout
    client = MlflowClient(f"sqlite:///{tmp_path}/mlflow.db")
    (run,) = client.search_runs([client.get_experiment_by_name("adhoc").experiment_id])
    assert len(client.get_metric_history(run.info.run_id, "accuracy")) == 10


def test_unknown_profile_is_a_clear_error(tmp_path, cli_store, run_cli):
    done = run_cli("figure=mgs20-fig1", "profile=huge", *cli_store, cwd=tmp_path)
    assert done.returncode != 0
    assert "has no profile 'huge'" in done.stderr
