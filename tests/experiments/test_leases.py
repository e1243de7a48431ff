"""Sweeps sharing one store run each trial once (``experiments.leases``): two concurrent sweeps of the same trials, a
sweep killed mid-run whose claims the next sweep takes over at once, and claims of another machine's sweep honoured
while its lease lasts and taken over when it has expired."""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
from mlflow.entities import ViewType

from experiments.config import compose, grid_overrides
from experiments.launchers import JoblibLauncher
from experiments.leases import SweepLease
from experiments.sweep import run_sweep
from experiments.tracking import Tracker
from experiments.trial import run_names, trial_config, trial_hash

LIFETIMES = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]

SWEEPER = """
import json, pathlib, sys, time
from experiments.config import compose, grid_overrides
from experiments.launchers import JoblibLauncher
from experiments.sweep import run_sweep
from experiments.tracking import Tracker
from experiments.trial import trial_config

uri, artifacts, flags, who, n_ready = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), sys.argv[4], int(sys.argv[5])
trials = [
    trial_config(compose(["~dataset", "~model", "protocol=leaf_count", "protocol.run.replicates=4000", *point]))
    for point in grid_overrides({"protocol.run.lifetime": LIFETIMES})
]
tracker = Tracker(uri, artifacts)
(flags / who).touch()
while len(list(flags.iterdir())) < n_ready:
    time.sleep(0.01)
report = run_sweep(trials, tracker, "exp", JoblibLauncher(1))
print(json.dumps({"total": report.total, "skipped": report.skipped, "finished": report.finished,
                  "elsewhere": report.elsewhere, "failed": len(report.failed)}))
""".replace("LIFETIMES", repr(LIFETIMES))


def sweeper(store, flags, who, n_ready):
    args = [sys.executable, "-c", SWEEPER, store["uri"], store["artifact_root"], str(flags), who, str(n_ready)]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def runs_by_status(tracker):
    runs = tracker.client.search_runs([tracker.experiment_id("exp")], run_view_type=ViewType.ACTIVE_ONLY)
    return {status: [r for r in runs if r.info.status == status] for status in {r.info.status for r in runs}}


def trials(lifetimes=LIFETIMES):
    return [
        trial_config(compose(["~dataset", "~model", "protocol=leaf_count", "protocol.run.replicates=4000", *point]))
        for point in grid_overrides({"protocol.run.lifetime": lifetimes})
    ]


@pytest.mark.slow
def test_two_concurrent_sweeps_run_each_trial_once(store, tmp_path):
    flags = tmp_path / "ready"
    flags.mkdir()
    sweeps = [sweeper(store, flags, who, 2) for who in ("a", "b")]
    reports = []
    for sweep in sweeps:
        out, err = sweep.communicate(timeout=600)
        assert sweep.returncode == 0, err[-3000:]
        reports.append(json.loads(out.strip().splitlines()[-1]))
    runs = runs_by_status(Tracker(store["uri"], store["artifact_root"]))
    assert set(runs) == {"FINISHED"}  # no claim or lease left behind
    assert sorted(r.data.tags["trial_hash"] for r in runs["FINISHED"]) == sorted(trial_hash(t) for t in trials())
    assert sum(r["finished"] for r in reports) == len(LIFETIMES)
    for report in reports:  # each sweep saw every trial finished: by itself, by the other, or before it began
        assert report["finished"] + report["elsewhere"] + report["skipped"] == len(LIFETIMES) and not report["failed"]


@pytest.mark.slow
def test_a_killed_sweeps_claims_are_taken_over_at_once(store, tmp_path):
    flags = tmp_path / "ready"
    flags.mkdir()
    killed = sweeper(store, flags, "killed", 1)
    tracker = Tracker(store["uri"], store["artifact_root"])
    deadline = time.monotonic() + 300
    while not runs_by_status(tracker).get("FINISHED"):  # killed after its first trial, its other claims RUNNING
        assert time.monotonic() < deadline and killed.poll() is None
        time.sleep(0.2)
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    assert runs_by_status(tracker).get("RUNNING")
    start = time.monotonic()
    report = run_sweep(trials(), tracker, "exp", JoblibLauncher(1))
    assert time.monotonic() - start < 60  # not the lease's 120 s: a dead process on this host holds nothing
    assert report.skipped >= 1 and report.skipped + report.finished == len(LIFETIMES) and not report.failed
    runs = runs_by_status(tracker)
    assert set(runs) == {"FINISHED"} and len(runs["FINISHED"]) == len(LIFETIMES)


def foreign_sweep(tracker, lease_until):
    """A sweep lease as another machine's sweep writes it, and its claim of the first trial."""
    experiment_id = tracker.experiment_id("exp")
    tags = {"kind": "sweep", "host": "another-" + socket.gethostname(), "pid": "1", "lease_until": str(lease_until)}
    sweep = tracker.client.create_run(experiment_id, run_name="sweep lease", tags=tags).info.run_id
    claim_tags = {"trial_hash": trial_hash(trials()[0]), "lease_sweep": sweep}
    return tracker.client.create_run(experiment_id, run_name="claim", tags=claim_tags).info.run_id


def test_another_machines_live_claim_is_honoured_and_an_expired_one_taken_over(tracker):
    two = trials(LIFETIMES[:2])
    claim = foreign_sweep(tracker, time.time() + 600)
    with SweepLease(tracker, "exp") as lease:
        mine, elsewhere = lease.claim(two, run_names(two), {})
        assert (mine, elsewhere) == ([two[1]], [two[0]])
    assert tracker.client.get_run(claim).info.status == "RUNNING"
    tracker.client.set_tag(tracker.client.get_run(claim).data.tags["lease_sweep"], "lease_until", "0")  # expired
    report = run_sweep(two, tracker, "exp")
    assert (report.finished, report.elsewhere) == (2, 0)
    assert tracker.client.get_run(claim).info.lifecycle_stage == "deleted"
    assert set(runs_by_status(tracker)) == {"FINISHED"}  # the dead sweep's lease deleted too
