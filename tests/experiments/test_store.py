"""One SQLite store, several writers: a new store created once, locked calls retried, nothing corrupted, no call cut by
Ctrl-C."""

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading

import pytest
from mlflow import MlflowClient
from mlflow.exceptions import MlflowException
from mlflow.protos.databricks_pb2 import TEMPORARILY_UNAVAILABLE

from experiments import store
from experiments.store import RetryingClient, retry_when_locked, sqlite_file

RUNS_PER_WRITER, STEPS = 8, 200

# Waits until every writer is ready (flag files), then logs its runs with a 200-step curve each.
WRITER = f"""
import pathlib, sys, time
import pandas as pd
from experiments.protocols.result import TrialResult
from experiments.tracking import Tracker
from experiments.trial import TrialOutcome

uri, who, flags, artifacts = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), sys.argv[4]
(flags / who).touch()
while len(list(flags.iterdir())) < 2:
    time.sleep(0.01)
tracker = Tracker(uri, artifacts)
for i in range({RUNS_PER_WRITER}):
    curves = pd.DataFrame({{"step": range(1, {STEPS} + 1), "loss": [1.0 / s for s in range(1, {STEPS} + 1)]}})
    trial = {{"protocol": {{"name": who, "run": {{"i": i}}}}, "seed": i}}
    tracker.log_outcome("shared", TrialOutcome(trial, TrialResult(curves=curves)), {{"writer": who}})
"""


@pytest.mark.slow
def test_two_processes_writing_into_one_new_store_both_succeed(tmp_path):
    uri, flags = f"sqlite:///{tmp_path}/mlflow.db", tmp_path / "ready"
    flags.mkdir()
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, uri, who, str(flags), str(tmp_path / "artifacts")],
            cwd=tmp_path,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in ("a", "b")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=600)
        assert writer.returncode == 0, err[-3000:]

    with sqlite3.connect(tmp_path / "mlflow.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    client = MlflowClient(uri)
    (experiment,) = [e for e in client.search_experiments() if e.name == "shared"]
    runs = client.search_runs([experiment.experiment_id], max_results=100)
    assert sorted(r.data.tags["writer"] for r in runs) == ["a"] * RUNS_PER_WRITER + ["b"] * RUNS_PER_WRITER
    assert all(r.info.status == "FINISHED" for r in runs)
    for run in runs:
        assert [m.step for m in client.get_metric_history(run.info.run_id, "loss")] == list(range(1, STEPS + 1))


def locked_error() -> MlflowException:
    return MlflowException("(sqlite3.OperationalError) database is locked", TEMPORARILY_UNAVAILABLE)


class FlakyStore:
    """Raises ``errors`` one per call, then answers."""

    def __init__(self, *errors: Exception):
        self.errors = list(errors)
        self.calls = 0

    def create_run(self, experiment_id: str) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return f"run in {experiment_id}"


@pytest.fixture
def waits(monkeypatch):
    slept = []
    monkeypatch.setattr(store.time, "sleep", slept.append)
    return slept


def test_a_locked_store_is_tried_again_with_growing_waits(waits):
    flaky = FlakyStore(locked_error(), locked_error(), locked_error())
    assert RetryingClient(flaky).create_run("7") == "run in 7"
    assert flaky.calls == 4 and len(waits) == 3
    assert waits[0] < waits[2]  # doubled each time, times a factor in [1, 2): the third is at least twice the first


def test_other_errors_are_not_retried(waits):
    flaky = FlakyStore(MlflowException("no such experiment"))
    with pytest.raises(MlflowException, match="no such experiment"):
        retry_when_locked(flaky.create_run, "7")
    assert flaky.calls == 1 and waits == []


def test_a_store_that_stays_locked_fails_with_advice(waits):
    flaky = FlakyStore(*[locked_error() for _ in range(100)])
    with pytest.raises(MlflowException, match="database is locked") as failure:
        retry_when_locked(flaky.create_run, "7")
    assert flaky.calls == len(waits) + 1 and "tracking server" in " ".join(failure.value.__notes__)


def test_sqlite_file_of_a_uri():
    assert str(sqlite_file("sqlite:///results/mlflow.db")) == "results/mlflow.db"
    assert str(sqlite_file("sqlite:////tmp/x/mlflow.db")) == "/tmp/x/mlflow.db"
    assert sqlite_file("http://127.0.0.1:5000") is None and sqlite_file("file:///tmp/mlruns") is None
    # SQLite's in-memory database has no file: no lock file is made beside it (one was, in the working folder)
    assert sqlite_file("sqlite:///:memory:") is None


class InterruptedStore:
    """A store whose write receives Ctrl-C half-way (the process sends itself SIGINT), then goes on writing."""

    def __init__(self):
        self.written = []

    def log_batch(self, run_id: str) -> str:
        self.written.append("metrics")
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # Python runs a signal's handler between two bytecodes: here, unless held back
            pass
        self.written.append("status")
        return run_id


@pytest.fixture
def ctrl_c_raises():
    """SIGINT raising KeyboardInterrupt, as in a command (a test worker may have it ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_during_a_store_call_stops_the_command_after_the_call(ctrl_c_raises):
    interrupted = InterruptedStore()
    with pytest.raises(KeyboardInterrupt):
        RetryingClient(interrupted).log_batch("run")
    assert interrupted.written == ["metrics", "status"]  # the call ran whole: no connection left holding the lock
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.slow
def test_ctrl_c_during_writes_to_a_sqlite_store_leaves_it_unlocked(tmp_path, ctrl_c_raises):
    """Ctrl-C at a random moment of a loop of writes, 30 times: the process's next write finds the store unlocked.
    Without ``ctrl_c_after`` some interrupts left the interrupted call's connection holding SQLite's lock (the next
    write then waited MLflow's 20 s busy timeout and failed "database is locked"): this test failed 3 runs of 4."""
    client = store.open_client(f"sqlite:///{tmp_path}/mlflow.db")
    run_id = client.create_run(client.create_experiment("writes")).info.run_id
    rng = random.Random(0)
    locked = 0
    for _ in range(30):
        threading.Timer(rng.uniform(0.0, 0.05), os.kill, (os.getpid(), signal.SIGINT)).start()
        with pytest.raises(KeyboardInterrupt):
            while True:
                client.set_tag(run_id, "k", "v")
        try:
            MlflowClient(f"sqlite:///{tmp_path}/mlflow.db").set_tag(run_id, "after", "1")  # one attempt
        except MlflowException as error:
            locked += "database is locked" in str(error)
    assert locked == 0
