"""The committed evidence as the UI's store of its own (experiments.evidence_store, `make ui`): every run as the sweep
logged it (ids, names, start and end, tags, params, metric histories), built once per fingerprint, apart from the
local store, which `make reproduce-figure` fills whatever the UI served."""

import re
import shutil
from pathlib import Path

import pytest
from mlflow import MlflowClient
from mlflow.environment_variables import MLFLOW_SERVER_ENABLE_JOB_EXECUTION
from mlflow.server import constants
from mlflow.utils.mlflow_tags import MLFLOW_PARENT_RUN_ID, MLFLOW_RUN_NOTE
from ui_server import serving

from experiments import evidence, evidence_store, run_view, ui
from experiments.figure_catalog import evidence_experiment_ids
from experiments.run_view import CLAIMS_PAGE, KIND_TAG, MACHINE_LEARNING, claims_note

REPO = Path(__file__).resolve().parents[2]
FINGERPRINT = "fingerprint.sha256"


@pytest.fixture(scope="module")
def built(exported, tmp_path_factory):
    """The quick figure's evidence built into a store of its own: (client, the store's folder, exported)."""
    root, _, _ = exported
    target = tmp_path_factory.mktemp("evidence-ui")
    store = evidence_store.build(root, target, "built", FINGERPRINT)
    return MlflowClient(f"sqlite:///{store}"), target, exported


def test_every_run_is_in_the_store_as_the_sweep_logged_it(built):
    client, _, (root, tracker, figure) = built
    recorded = evidence.read(root, "quick", figure.figure)
    experiment = client.get_experiment_by_name(figure.figure)
    assert experiment.experiment_id == str(evidence_experiment_ids(root)[figure.figure])
    assert experiment.tags[KIND_TAG] == MACHINE_LEARNING and MLFLOW_RUN_NOTE in experiment.tags
    assert experiment.tags[evidence_store.EVIDENCE_TAG].startswith("the committed evidence")
    originals = tracker.finished_runs(figure.figure)
    assert len(originals) == figure.n_trials
    for original in originals.values():
        copy = client.get_run(original.info.run_id)
        assert copy.info.run_name == original.info.run_name and copy.info.status == "FINISHED"
        assert (copy.info.start_time, copy.info.end_time) == (original.info.start_time, original.info.end_time)
        # the UI's Duration is the trial's
        duration = (copy.info.end_time - copy.info.start_time) / 1000
        assert duration == pytest.approx(original.data.metrics["duration_seconds"], abs=1e-3)
        assert copy.data.params == original.data.params and copy.data.metrics == original.data.metrics
        for key in ("trial_hash", "trial_name", "git_commit", "figure", "profile"):
            assert copy.data.tags[key] == original.data.tags[key]
        assert copy.data.tags[MLFLOW_PARENT_RUN_ID] == recorded.run["run_id"]
        for key in original.data.metrics:
            history = [(m.step, m.value) for m in client.get_metric_history(copy.info.run_id, key)]
            assert history == [(m.step, m.value) for m in tracker.client.get_metric_history(original.info.run_id, key)]
    parent = client.get_run(recorded.run["run_id"])
    assert parent.data.tags[MLFLOW_RUN_NOTE] == claims_note(recorded.claims)
    artifacts = {a.path for a in client.list_artifacts(parent.info.run_id)}
    assert {"claims.json", "settings.json", "evidence", f"{figure.figure}.png"} <= artifacts
    assert {"evidence/runs.jsonl", "evidence/curves.csv"} <= {
        a.path for a in client.list_artifacts(parent.info.run_id, "evidence")
    }


def test_a_run_two_evidences_hold_is_in_the_store_once(exported, tmp_path):
    """A trial the harness reused belongs to the first figure in the report's order."""
    root, _, figure = exported
    twice = tmp_path / "evidence"
    shutil.copytree(root / "quick" / figure.figure, twice / "quick" / figure.figure)
    shutil.copytree(root / "quick" / figure.figure, twice / "paper" / figure.figure)
    client = MlflowClient(f"sqlite:///{evidence_store.build(twice, tmp_path / 'ui', 'x', FINGERPRINT)}")
    experiment_id = client.get_experiment_by_name(figure.figure).experiment_id
    assert len(client.search_runs([experiment_id], max_results=1000)) == figure.n_trials + 1


def test_the_store_is_built_once_for_the_same_evidence_code_and_place(exported, tmp_path, monkeypatch):
    root, _, figure = exported
    copy = tmp_path / "evidence"
    shutil.copytree(root, copy)
    built = []
    build = evidence_store.build
    monkeypatch.setattr(evidence_store, "build", lambda *args: built.append(args) or build(*args))
    store = ui.evidence_store(copy, tmp_path / "ui")
    assert ui.evidence_store(copy, tmp_path / "ui") == store and len(built) == 1
    (copy / "quick" / figure.figure / "figure.json").write_text(
        (copy / "quick" / figure.figure / "figure.json").read_text().replace("quick", "Quick", 1)
    )
    ui.evidence_store(copy, tmp_path / "ui")
    assert len(built) == 2 and not (tmp_path / "ui.building").exists()


def test_the_server_is_started_as_mlflow_ui_starts_it():
    """The environment `mlflow ui` gives its server, named here without importing MLflow, is MLflow's."""
    _, environment = ui.ui_command(Path("mlflow.db"), Path("artifacts"), 5000)
    names = {
        constants.BACKEND_STORE_URI_ENV_VAR,
        constants.ARTIFACT_ROOT_ENV_VAR,
        constants.SERVE_ARTIFACTS_ENV_VAR,
        constants.ARTIFACTS_DESTINATION_ENV_VAR,
        "_MLFLOW_SGI_NAME",
        MLFLOW_SERVER_ENABLE_JOB_EXECUTION.name,
    }
    assert set(environment) == names


def test_the_store_is_written_in_mlflows_tables_with_mlflows_tag_names():
    """The build names MLflow's tables and run tags without importing MLflow: the names are MLflow's."""
    from mlflow.store.tracking.dbmodels import models
    from mlflow.utils import mlflow_tags

    models_ = [models.SqlExperiment, models.SqlExperimentTag, models.SqlRun, models.SqlTag, models.SqlParam]
    models_ += [models.SqlMetric, models.SqlLatestMetric]
    named = evidence_store.EXPERIMENTS, evidence_store.EXPERIMENT_TAGS, evidence_store.RUNS, evidence_store.TAGS
    named += evidence_store.PARAMS, evidence_store.METRICS, evidence_store.LATEST_METRICS
    assert named == tuple(model.__tablename__ for model in models_)
    names = (mlflow_tags.MLFLOW_RUN_NAME, mlflow_tags.MLFLOW_RUN_NOTE, mlflow_tags.MLFLOW_PARENT_RUN_ID)
    assert names == (run_view.RUN_NAME, run_view.RUN_NOTE, run_view.PARENT_RUN)


@pytest.fixture(scope="module")
def committed(tmp_path_factory):
    """A folder holding a copy of the committed evidence at results/evidence and, beside it, `make ui`'s store built
    from it (results/evidence-ui), as `make ui` leaves a checkout."""
    folder = tmp_path_factory.mktemp("checkout")
    shutil.copytree(REPO / evidence.ROOT, folder / evidence.ROOT)
    ui.evidence_store(folder / evidence.ROOT, folder / ui.EVIDENCE_UI)
    return folder


@pytest.mark.slow
def test_after_make_ui_reproduce_figure_runs_every_trial(committed, run_cli):
    """`make ui`'s store step on the committed evidence, then `make reproduce-figure FIG=theory-leaves PROFILE=quick`
    at the same place: every trial runs (before, the evidence was imported into the local store and 0 ran)."""
    done = run_cli("figure=theory-leaves", "profile=quick", "launcher.n_jobs=2", cwd=committed)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "9 trials: 0 already finished, 9 run now" in done.stdout + done.stderr


@pytest.mark.slow
def test_the_ui_serves_the_runs_the_committed_report_links_to(committed):
    """`make ui` on the committed evidence: every run a link of the committed report names is served, in the
    experiment the link names, and a figure run's link opens its claims page."""
    linked = re.findall(r"http://127\.0\.0\.1:5000/#/experiments/(\d+)/runs/([0-9a-f]{32})(\S*)\)", (
        REPO / "results" / "REPORT.md").read_text())  # fmt: skip
    assert linked
    store = committed / ui.EVIDENCE_UI
    with serving(store / "mlflow.db", store / "artifacts", committed) as server:
        for experiment_id, run_id, rest in linked:
            run = server.get_json("/api/2.0/mlflow/runs/get", run_id=run_id)["run"]
            assert run["info"]["status"] == "FINISHED" and run["info"]["experiment_id"] == experiment_id
            assert rest.startswith(f"/artifacts/{CLAIMS_PAGE}?")
            assert b"<th>verdict</th>" in server.get("/get-artifact", run_id=run_id, path=CLAIMS_PAGE)
