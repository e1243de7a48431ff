"""The MLflow UI as users meet it (`make ui`): the server on a store filled by a figure, read through its REST API."""

import pytest
from mlflow import MlflowClient
from ui_server import serving


@pytest.fixture
def server(quick_figure):
    """`make ui`'s command on the quick figure's store."""
    with serving(quick_figure.root / "mlflow.db", quick_figure.root / "artifacts", quick_figure.root) as server:
        yield server


@pytest.mark.slow
def test_the_ui_serves_a_figures_runs_curves_and_image(server, quick_figure):
    experiment = server.get_json("/api/2.0/mlflow/experiments/get-by-name", experiment_name=quick_figure.figure)
    experiment_id = experiment["experiment"]["experiment_id"]
    runs = server.post_json("/api/2.0/mlflow/runs/search", {"experiment_ids": [experiment_id], "max_results": 100})
    runs = runs["runs"]
    tags = [{t["key"]: t["value"] for t in run["data"].get("tags", [])} for run in runs]
    (figure_run,) = [run for run, t in zip(runs, tags, strict=True) if t.get("kind") == "figure"]
    figure_id = figure_run["info"]["run_id"]
    trials = [(run, t) for run, t in zip(runs, tags, strict=True) if "trial_hash" in t]
    assert len(trials) == quick_figure.n_trials
    # trial runs are the figure run's children, with names that tell them apart, their params and their curves
    assert all(t["mlflow.parentRunId"] == figure_id for _, t in trials)
    assert len({run["info"]["run_name"] for run, _ in trials}) == quick_figure.n_trials
    run, _ = trials[0]
    params = {p["key"]: p["value"] for p in run["data"]["params"]}
    assert params["model.estimator.n_estimators"] == "10"
    history = server.get_json("/api/2.0/mlflow/metrics/get-history", run_id=run["info"]["run_id"], metric_key="rmse")
    stored = MlflowClient(quick_figure.uri).get_metric_history(run["info"]["run_id"], "rmse")
    assert [(m["step"], m["value"]) for m in history["metrics"]] == [(m.step, m.value) for m in stored]
    assert stored

    listed = server.get_json("/api/2.0/mlflow/artifacts/list", run_id=figure_id)
    assert {f"{quick_figure.figure}.png", f"{quick_figure.figure}.pdf", "claims.json"} <= {
        f["path"] for f in listed["files"]
    }
    image = server.get("/get-artifact", run_id=figure_id, path=f"{quick_figure.figure}.png")
    assert image == (quick_figure.root / "figures" / "quick" / f"{quick_figure.figure}.png").read_bytes()
