"""The MLflow UI as users meet it (`make ui`): the server on a store filled by a figure, read through its REST API."""

import contextlib
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from mlflow import MlflowClient
from ui_server import Server, free_port, serving

from experiments.tracking import Tracker
from experiments.ui import ui_command


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
    assert {f"{quick_figure.figure}.png", f"{quick_figure.figure}.pdf", "claims.json", "claims.html"} <= {
        f["path"] for f in listed["files"]
    }
    image = server.get("/get-artifact", run_id=figure_id, path=f"{quick_figure.figure}.png")
    assert image == (quick_figure.root / "figures" / "quick" / f"{quick_figure.figure}.png").read_bytes()


def test_the_page_is_served_at_once_and_the_store_once_mlflow_is_ready_and_the_store_whole(tmp_path):
    """The server listens at once: the UI's page and script files come from MLflow's build while MLflow's app is
    imported; a request for the store waits for the app and for the file the build writes last (``--after``)."""
    after = tmp_path / "built"
    command, environment = ui_command(tmp_path / "mlflow.db", tmp_path / "artifacts", free_port(), after=after)
    port = command[command.index("--port") + 1]
    began = time.monotonic()
    process = subprocess.Popen(command, cwd=tmp_path, env={**os.environ, **environment}, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    server = Server(int(port))
    try:
        page = None
        while page is None:
            assert process.poll() is None and time.monotonic() - began < 60, process.stderr.read().decode()[-2000:]
            with contextlib.suppress(urllib.error.URLError, ConnectionError):
                page = server.get("/").decode()
            time.sleep(0.05)
        script = re.search(r'src="(static-files/[^"]+\.js)"', page).group(1)
        assert "<title>MLflow</title>" in page and server.get(f"/{script}")
        with pytest.raises(TimeoutError):  # the store is not whole yet: the request waits
            urllib.request.urlopen(f"{server.base}/ajax-api/2.0/mlflow/experiments/search?max_results=1", timeout=3)
        store = Tracker(f"sqlite:///{tmp_path / 'mlflow.db'}", str(tmp_path / "artifacts"))  # the build's store
        store.experiment_id("a figure")
        after.touch()
        found = server.post_json("/ajax-api/2.0/mlflow/experiments/search", {"max_results": 10})
        assert "a figure" in {e["name"] for e in found["experiments"]}
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
