"""Where trials run: processes on this machine, a Dask cluster, submitit jobs; the curves never depend on it."""

import os
import socket
import sys
from pathlib import Path

import cloudpickle
import pytest
from mlflow import MlflowClient

from experiments import launchers
from experiments.config import compose
from experiments.environment import environment
from experiments.launchers import DaskLauncher, JoblibLauncher, on_this_machine, worker_notes
from experiments.reproduce import figure_trials
from experiments.sweep import run_sweep
from experiments.tracking import Tracker
from experiments.trial import TrialOutcome, trial_config


@pytest.fixture(scope="module")
def dask_address():
    """A Dask cluster of 2 worker processes on the loopback interface, for the module's tests."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        yield cluster.scheduler_address


@pytest.mark.slow
def test_a_figure_on_a_dask_cluster_gives_the_curves_of_a_local_sweep(dask_address, new_quick_figure, quick_figure):
    figure = new_quick_figure("dask")
    done = figure.run("launcher=dask", f"launcher.address={dask_address}")
    assert done.returncode == 0, done.stderr[-3000:]
    n = figure.n_trials
    assert f"{n} trials: 0 already finished, {n} run now, 0 failed" in done.stdout
    assert "warning:" not in done.stderr  # a cluster on this machine lacks nothing
    histories = figure.histories()
    assert len(histories) == n and histories == quick_figure.histories()


@pytest.mark.slow
def test_a_trial_run_on_a_dask_worker_records_the_worker_s_environment(tracker):
    """A worker started with numba's threads set to 1 (NUMBA_NUM_THREADS), which this process is not: the runs say the
    worker's environment, not the driver's."""
    from distributed import LocalCluster

    assert "NUMBA_NUM_THREADS" not in os.environ
    trials = [
        trial_config(compose(["~dataset", "~model", "protocol=leaf_count", "protocol.run.replicates=5", f"seed={s}"]))
        for s in (0, 1)
    ]
    with LocalCluster(
        n_workers=1, threads_per_worker=1, host="127.0.0.1", dashboard_address=None, env={"NUMBA_NUM_THREADS": "1"}
    ) as cluster:
        report = run_sweep(trials, tracker, "exp", DaskLauncher(cluster.scheduler_address, tracker.uri))
    assert report.finished == 2 and "NUMBA_NUM_THREADS" not in os.environ
    runs = tracker.client.search_runs([tracker.experiment_id("exp")], "attributes.status = 'FINISHED'")
    assert len(runs) == 2
    for run in runs:
        assert run.data.tags["env.numba_threads"] == "1"
        assert "NUMBA_NUM_THREADS=1" in run.data.tags["env.thread_variables"]
        assert "NUMBA_NUM_THREADS" not in environment()["env.thread_variables"]  # this process's


def exit_on_seed_one(trial: dict) -> TrialOutcome:
    """A trial that kills the worker running it when its seed is 1."""
    if trial["seed"] == 1:
        os._exit(1)
    return TrialOutcome(trial)


@pytest.mark.slow
def test_a_trial_that_keeps_killing_its_workers_comes_back_failed_and_the_others_finish(dask_address, monkeypatch):
    monkeypatch.setattr(launchers, "run_trial", exit_on_seed_one)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module
    try:
        outcomes = DaskLauncher(dask_address, "sqlite:///unused.db").outcomes([{"seed": s} for s in (0, 1, 2)])
        reasons = {outcome.trial["seed"]: outcome.reason for outcome in outcomes}
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert reasons[0] is None and reasons[2] is None and reasons[1].startswith("distributed.scheduler.KilledWorker")


@pytest.mark.slow
def test_a_figure_on_two_processes_gives_the_curves_of_one(new_quick_figure, quick_figure):
    figure = new_quick_figure("two-processes")
    trials = figure_trials(compose([f"figure={figure.figure}", "profile=quick"]))
    report = run_sweep(trials, Tracker(figure.uri, str(figure.root / "artifacts")), figure.figure, JoblibLauncher(2))
    assert (report.finished, report.failed) == (figure.n_trials, [])
    assert figure.histories() == quick_figure.histories()


@pytest.mark.slow
def test_a_submitit_multirun_of_adhoc_trials_logs_every_job(tmp_path, cli_store, run_cli):
    done = run_cli(
        "-m",
        "hydra/launcher=submitit_local",
        "~dataset",
        "~model",
        "protocol=leaf_count",
        "protocol.run.replicates=50",
        "seed=0,1",
        f"hydra.sweep.dir={tmp_path}/multirun",
        *cli_store,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    client = MlflowClient(f"sqlite:///{tmp_path}/mlflow.db")
    runs = client.search_runs([client.get_experiment_by_name("adhoc").experiment_id])
    assert sorted(r.info.run_name.rsplit("/", 1)[-1] for r in runs) == ["seed=0", "seed=1"]
    assert all(r.info.status == "FINISHED" and r.data.metrics["replicates"] == 50 for r in runs)
    assert len(list((tmp_path / "multirun" / ".submitit").glob("*/*_result.pkl"))) == 2  # one submitit job each


def test_hosts_of_this_machine_and_others():
    assert on_this_machine("127.0.0.1") and on_this_machine("localhost") and on_this_machine(socket.gethostname())
    assert not on_this_machine("192.0.2.1")  # TEST-NET-1: never this machine


def test_workers_elsewhere_are_told_what_they_lack():
    here, other = Path("/shared/data"), Path("/home/worker/datasets/cache")
    local = {"tcp://127.0.0.1:4001": here, "tcp://127.0.0.1:4002": here}
    assert worker_notes(local, here, "sqlite:///results/mlflow.db") == []

    (note,) = worker_notes({**local, "tcp://127.0.0.1:4003": other}, here, "http://127.0.0.1:5000")
    assert str(other) in note and f"MONDRIAN_DATA={here}" in note

    remote = {**local, "tcp://192.0.2.1:4004": here}
    datasets, store = worker_notes(remote, here, "sqlite:///results/mlflow.db")
    assert "192.0.2.1" in datasets and "shared" in datasets
    assert "results/mlflow.db" in store and "tracking server" in store
    assert len(worker_notes(remote, here, "http://mlflow.example:5000")) == 1  # a server is seen from everywhere
