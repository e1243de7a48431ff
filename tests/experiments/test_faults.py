"""Faults: failing trials, interrupted logging and a sweep killed mid-way; re-running completes exactly what is left."""

import os
import signal
import subprocess
import time

import pytest
from mlflow import MlflowClient

from experiments.config import compose
from experiments.sweep import run_sweep
from experiments.trial import trial_config, trial_hash

# bsp-fig5 on 1500 training points: the 10 trials of its curves over N (up to 2000 points) raise, the other 18 run.
TOO_SMALL = "dataset.load.n_samples=6500"


def trial_runs(client: MlflowClient, experiment: str) -> list:
    found = client.get_experiment_by_name(experiment)
    runs = [] if found is None else client.search_runs([found.experiment_id], max_results=1000)
    return [r for r in runs if "trial_hash" in r.data.tags]


@pytest.mark.slow
def test_failing_trials_are_recorded_the_sweep_goes_on_and_a_rerun_runs_only_them(new_quick_figure):
    figure = new_quick_figure("failing")
    done = figure.run(TOO_SMALL, "launcher.n_jobs=2")
    assert done.returncode != 0
    assert "28 trials: 0 already finished, 18 run now, 10 failed" in done.stdout
    failed_lines = [line for line in done.stdout.splitlines() if line.strip().startswith("failed: ")]
    assert len(failed_lines) == 10 and "sizes must increase" in done.stdout
    assert all("sizes=[300…2000]" in line for line in failed_lines)  # run names say what varies (a list by its ends)
    client = MlflowClient(figure.uri)
    runs = trial_runs(client, figure.figure)
    failed = [r for r in runs if r.info.status == "FAILED"]
    assert len(runs) == 28 and len(failed) == 10
    for run in failed:
        assert run.data.tags["error"].startswith("ValueError: sizes must increase")
        with open(client.download_artifacts(run.info.run_id, "traceback.txt", str(figure.root))) as f:
            assert "Traceback (most recent call last)" in f.read()

    again = figure.run(TOO_SMALL, "launcher.n_jobs=2")
    assert again.returncode != 0
    assert "28 trials: 18 already finished, 0 run now, 10 failed" in again.stdout
    runs = trial_runs(client, figure.figure)
    assert sum(r.info.status == "FINISHED" for r in runs) == 18 and sum(r.info.status == "FAILED" for r in runs) == 20


def test_a_run_interrupted_while_logged_is_killed_not_finished_and_runs_again(tracker, monkeypatch):
    trial = trial_config(compose(["~dataset", "~model", "protocol=leaf_count", "protocol.run.replicates=10"]))
    log_batch = tracker.client.log_batch

    def interrupted(run_id, metrics=(), **kwargs):
        if metrics:
            raise KeyboardInterrupt
        return log_batch(run_id, metrics=metrics, **kwargs)

    monkeypatch.setattr(tracker.client, "log_batch", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_sweep([trial], tracker, "exp")
    (run,) = trial_runs(tracker.client, "exp")
    assert run.info.status == "KILLED"
    monkeypatch.undo()
    report = run_sweep([trial], tracker, "exp")
    assert (report.skipped, report.finished) == (0, 1)
    statuses = sorted(r.info.status for r in trial_runs(tracker.client, "exp"))
    assert statuses == ["FINISHED", "KILLED"]
    assert list(tracker.finished_runs("exp")) == [trial_hash(trial)]


@pytest.mark.slow
def test_a_sweep_killed_midway_is_completed_by_the_same_command(new_quick_figure, quick_figure):
    figure = new_quick_figure("killed")
    client = MlflowClient(figure.uri)
    # one process, so that trials finish one after another; its own session, so that it is killed whole
    sweep = subprocess.Popen(
        figure.command("launcher.n_jobs=1"),
        cwd=figure.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300
        while sweep.poll() is None and time.monotonic() < deadline:
            if any(r.info.status == "FINISHED" for r in trial_runs(client, figure.figure)):
                break
            time.sleep(0.05)
    finally:
        os.killpg(sweep.pid, signal.SIGKILL)
        sweep.wait(timeout=60)
    finished = sum(r.info.status == "FINISHED" for r in trial_runs(client, figure.figure))
    assert 0 < finished < figure.n_trials, f"the sweep was not caught mid-way ({finished} trials finished)"

    again = figure.run("launcher.n_jobs=2")
    assert again.returncode == 0, again.stderr[-3000:]
    n = figure.n_trials
    assert f"{n} trials: {finished} already finished, {n - finished} run now, 0 failed" in again.stdout
    assert figure.histories() == quick_figure.histories()  # one finished run per trial, the curves of a clean sweep
    (parent,) = [r for r in client.search_runs([client.get_experiment_by_name(figure.figure).experiment_id])
                 if r.data.tags.get("kind") == "figure"]  # fmt: skip
    assert parent.info.status == "FINISHED"
