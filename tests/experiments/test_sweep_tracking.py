"""Sweeps into a temporary MLflow store: what is logged, resume, interruption, failures."""

import json

import pandas as pd
import pytest
from mlflow.entities import ViewType

from experiments import launchers
from experiments.config import compose, grid_overrides
from experiments.environment import environment, identity
from experiments.environment import recorded as environment_tags
from experiments.launchers import JoblibLauncher
from experiments.sweep import run_sweep
from experiments.trial import run_trial, trial_config, trial_hash


def leaf_trials(lifetimes=(0.5, 1.0, 2.0, 4.0)):
    return [
        trial_config(compose(["~dataset", "~model", "protocol=leaf_count", "protocol.run.replicates=20", *point]))
        for point in grid_overrides({"protocol.run.lifetime": list(lifetimes)})
    ]


def all_runs(tracker, experiment):
    """Every run of the experiment but deleted ones (a sweep's lease and its claims withdrawn unrun are deleted)."""
    return tracker.client.search_runs([tracker.experiment_id(experiment)], run_view_type=ViewType.ACTIVE_ONLY)


def test_a_trial_run_holds_params_metrics_tags_and_artifacts(tracker):
    trial = trial_config(
        compose(
            [
                "dataset=moons",
                "model=mondrian_classifier",
                "protocol=online",
                "dataset.load.n_samples=300",
                "protocol.run.log_every=70",
            ]
        )
    )
    report = run_sweep([trial], tracker, "exp", tags={"figure": "exp"})
    assert (report.finished, report.failed) == (1, [])
    (run,) = all_runs(tracker, "exp")
    assert run.info.status == "FINISHED" and run.info.run_name == "moons/MF/seed=0"
    assert run.data.params["model.estimator.n_estimators"] == "10"
    assert run.data.tags["trial_hash"] == trial_hash(trial)
    assert {"figure", "git_commit", "dataset_hash"} <= set(run.data.tags)
    history = tracker.client.get_metric_history(run.info.run_id, "average_accuracy")
    assert [m.step for m in history] == [70, 140, 210]
    (record,) = tracker.load_runs("exp", [trial_hash(trial)])
    assert record.trial == json.loads(json.dumps(trial))
    assert list(record.curves["step"]) == [70, 140, 210]
    assert record.metrics["average_accuracy"] == pytest.approx(record.curves["average_accuracy"].iloc[-1])


def test_a_trial_run_records_the_environment_it_ran_in(tracker):
    """Run here, a trial's run holds this process's environment; read back, its record holds the same."""
    (trial,) = leaf_trials((1.0,))
    run_sweep([trial], tracker, "exp")
    (run,) = all_runs(tracker, "exp")
    here = environment()
    assert environment_tags(run.data.tags) == {**here, "env.date": run.data.tags["env.date"]}
    assert identity(run.data.tags) == identity(here) and run.data.tags["env.commit"] == tracker.commit
    (record,) = tracker.load_runs("exp", [trial_hash(trial)])
    assert record.environment == environment_tags(run.data.tags)


def test_a_worker_s_trial_records_the_worker_s_environment(tracker):
    """Trials sent to worker processes record the workers' environment, not the driver's: joblib's workers run with
    their thread pools limited (its thread variables set), which the driver does not."""
    trials = leaf_trials((0.5, 1.0))
    run_sweep(trials, tracker, "exp", JoblibLauncher(2))
    runs = all_runs(tracker, "exp")
    assert len(runs) == 2
    for run in runs:
        assert "NUMBA_NUM_THREADS=" in run.data.tags["env.thread_variables"]
        assert run.data.tags["env.thread_variables"] != environment()["env.thread_variables"]


def test_a_failed_trial_records_its_environment_too(tracker):
    bad = trial_config(compose(["~dataset", "~model", "protocol=leaf_count", "protocol.run.lifetime=-1"]))
    run_sweep([bad], tracker, "exp")
    (run,) = all_runs(tracker, "exp")
    assert run.info.status == "FAILED" and identity(run.data.tags) == identity(environment())


def test_a_figure_run_records_the_environment_that_drew_it(tracker):
    with tracker.figure_run("exp", "figure exp", {"trials_hash": "h"}) as opened:
        pass
    assert identity(tracker.client.get_run(opened.run_id).data.tags) == identity(environment())
    tracker.client.set_tag(opened.run_id, "env.cores", "999")  # drawn elsewhere before: taken up, it says here
    with tracker.figure_run("exp", "figure exp", {"trials_hash": "h"}) as again:
        assert again.run_id == opened.run_id
    assert tracker.client.get_run(opened.run_id).data.tags["env.cores"] == environment()["env.cores"]


def test_rerun_skips_finished_trials_and_runs_only_missing_ones(tracker):
    trials = leaf_trials()
    first = run_sweep(trials[:2], tracker, "exp")
    assert (first.total, first.skipped, first.finished) == (2, 0, 2)
    second = run_sweep(trials, tracker, "exp", JoblibLauncher(2))
    assert (second.total, second.skipped, second.finished) == (4, 2, 2)
    third = run_sweep(trials, tracker, "exp")
    assert (third.skipped, third.finished) == (4, 0)
    hashes = [r.data.tags["trial_hash"] for r in all_runs(tracker, "exp")]
    assert sorted(hashes) == sorted(trial_hash(t) for t in trials)


def test_interrupted_sweep_loses_nothing_and_repeats_nothing(tracker, monkeypatch):
    trials = leaf_trials()
    calls = []

    def interrupted_after_two(trial):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(trial)
        return run_trial(trial)

    monkeypatch.setattr(launchers, "run_trial", interrupted_after_two)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(trials, tracker, "exp")
    assert len(all_runs(tracker, "exp")) == 2
    monkeypatch.setattr(launchers, "run_trial", run_trial)
    report = run_sweep(trials, tracker, "exp")
    assert (report.skipped, report.finished) == (2, 2)
    runs = all_runs(tracker, "exp")
    assert all(r.info.status == "FINISHED" for r in runs)
    assert sorted(r.data.tags["trial_hash"] for r in runs) == sorted(trial_hash(t) for t in trials)


def test_failing_trial_is_recorded_and_retried_on_rerun(tracker):
    good = leaf_trials((1.0,))[0]
    bad = trial_config(compose(["~dataset", "~model", "protocol=leaf_count", "protocol.run.lifetime=-1"]))
    report = run_sweep([bad, good], tracker, "exp")
    assert report.finished == 1 and len(report.failed) == 1 and "lifetime" in report.failed[0]
    failed = [r for r in all_runs(tracker, "exp") if r.info.status == "FAILED"]
    assert len(failed) == 1
    path = tracker.client.download_artifacts(failed[0].info.run_id, "traceback.txt")
    with open(path) as f:
        assert "ValueError" in f.read()
    again = run_sweep([bad, good], tracker, "exp")
    assert (again.skipped, again.finished, len(again.failed)) == (1, 0, 1)


def test_parallel_and_serial_sweeps_give_identical_curves(tmp_path):
    from experiments.tracking import Tracker

    trials = [
        trial_config(compose(["dataset=moons", "model=mondrian_classifier", "dataset.load.n_samples=300", *p]))
        for p in grid_overrides({"seed": [0, 1, 2]})
    ]
    curves = []
    for n_jobs in (1, 2):
        tracker = Tracker(f"sqlite:///{tmp_path}/store{n_jobs}.db", str(tmp_path / f"art{n_jobs}"))
        run_sweep(trials, tracker, "exp", JoblibLauncher(n_jobs))
        curves.append(
            [r.curves.drop(columns="train_time") for r in tracker.load_runs("exp", [trial_hash(t) for t in trials])]
        )
    for serial, parallel in zip(*curves, strict=False):
        pd.testing.assert_frame_equal(serial, parallel)


def test_a_trial_beyond_one_batch_is_logged_whole_in_mlflows_limits(tracker):
    """150 params and 2500 curve points: more than one log_batch call may take (MLflow refuses more than 100 params
    or 1000 entries in one); every one is stored."""
    from experiments.protocols.result import TrialResult
    from experiments.trial import TrialOutcome

    trial = {"dataset": {"name": "toy"}, "model": {"name": "m"}, "grid": {f"p{k:03d}": k for k in range(148)}}
    curves = pd.DataFrame({"step": range(1, 1251), "loss": [1.0 / s for s in range(1, 1251)]})
    curves["accuracy"] = 1.0 - curves["loss"]
    outcome = TrialOutcome(trial, TrialResult(curves=curves, summary={"train_time": 2.0}), duration=3.0, start=1.0)
    run_id = tracker.log_outcome("batches", outcome, {})
    run = tracker.client.get_run(run_id)
    assert len(run.data.params) == 150 and run.data.params["grid.p147"] == "147"
    assert run.data.metrics == {
        "loss": 1.0 / 1250,
        "accuracy": 1.0 - 1.0 / 1250,
        "train_time": 2.0,
        "duration_seconds": 3.0,
    }
    history = tracker.client.get_metric_history(run_id, "accuracy")
    assert sorted(m.step for m in history) == list(range(1, 1251))
