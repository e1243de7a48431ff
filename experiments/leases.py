"""Leases: each trial runs once even when several sweeps of one figure share a store.

Before running its pending trials a sweep claims them: one RUNNING run per trial, tagged with the trial's hash and the
sweep's id (``lease_sweep``), which the trial's run replaces when it comes back (created with the trial's own start
time, taking the claim's name and tags; the claim is then deleted). The sweep holds a lease: a run of
its own (tag ``kind=sweep``, deleted when the sweep ends) whose ``lease_until`` it renews from a background thread,
beside its host and process id. A claim is live while its sweep's lease is: not deleted, not past ``lease_until``,
and its process alive when it runs on this host (a killed sweep's claims are taken over at once there, after at most
``LEASE`` seconds from another machine). Sweeps on one SQLite store claim under a file lock, each leaving out the
trials already held or finished. Sweeps on a tracking server claim without a lock: among the live claims of one trial
the earliest (start time, then run id) wins and the others are withdrawn, which holds while their machines agree on
the clock and a claim shows up in the store soon after its start time. A sweep waits for the trials another one
holds, and claims them again if that sweep dies first. Claims never filled in (withdrawn, interrupted, or of a dead
sweep) and dead sweeps' leases are deleted: the store keeps the runs of the trials that ran, as without leases.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Iterable
from contextlib import nullcontext, suppress

from experiments.locks import locked
from experiments.store import sqlite_file
from experiments.tracking import Tracker
from experiments.trial import trial_hash

LEASE = 120.0  # seconds a sweep's lease lasts without renewal
RENEW = 20.0  # seconds between renewals
POLL = 5.0  # seconds between looks at the trials another sweep runs


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SweepLease:
    """The lease of one sweep on one experiment: claims trials, tells which ones another live sweep runs, and
    withdraws its unfinished claims when the sweep stops (its run deleted)."""

    def __init__(self, tracker: Tracker, experiment: str):
        self.tracker = tracker
        self.experiment = experiment
        self.claims: dict[str, str] = {}  # trial hash -> this sweep's claim run, while the trial is unfinished
        self.run_id: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- the sweep's own lease ----------------------------------------------------------------------------------
    def __enter__(self) -> SweepLease:
        client = self.tracker.client
        run = client.create_run(
            self.tracker.experiment_id(self.experiment),
            run_name=f"sweep lease {uuid.uuid4().hex[:8]}",
            tags={"kind": "sweep", "host": socket.gethostname(), "pid": str(os.getpid()), **self._until()},
        )
        self.run_id = run.info.run_id
        self._thread = threading.Thread(target=self._renew, name="sweep-lease", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        client = self.tracker.client
        for run_id in self.claims.values():  # trials claimed but never logged (an interrupt, an error): withdrawn
            client.delete_run(run_id)
        client.delete_run(self.run_id)

    @staticmethod
    def _until() -> dict[str, str]:
        return {"lease_until": f"{time.time() + LEASE:.3f}"}

    def _renew(self) -> None:
        while not self._stop.wait(RENEW):
            with suppress(Exception):  # a store briefly unreachable: the next renewal tries again, the lease has margin
                self.tracker.client.set_tag(self.run_id, "lease_until", self._until()["lease_until"])

    # -- claims --------------------------------------------------------------------------------------------------
    def claim(self, trials: list[dict], names: dict[str, str], tags: dict[str, str]) -> tuple[list[dict], list[dict]]:
        """Claim the trials; (those this sweep won and must run, those another sweep finished or holds)."""
        client = self.tracker.client
        keyed = {trial_hash(t): t for t in trials}
        with self._exclusive():
            held = set(self._winners(set(keyed)))
            finished = set(self.tracker.finished_runs(self.experiment))  # after: a claim ended meanwhile is here
            for key in keyed:
                if key in held or key in finished:
                    continue
                run = client.create_run(
                    self.tracker.experiment_id(self.experiment),
                    run_name=names[key],
                    tags={**tags, "trial_hash": key, "git_commit": self.tracker.commit, "lease_sweep": self.run_id},
                )
                self.claims[key] = run.info.run_id
            winners = self._winners(set(keyed))  # sweeps on a tracking server claim without the lock: the earliest wins
        mine, elsewhere = [], []
        for key, trial in keyed.items():
            if key in self.claims and winners.get(key) == self.claims[key]:
                mine.append(trial)
            else:
                if key in self.claims:
                    self._withdraw(self.claims.pop(key))
                elsewhere.append(trial)
        return mine, elsewhere

    def _exclusive(self):
        """A lock beside a SQLite store (``<file>.claims.lock``) held while claiming, so that sweeps on this machine
        or on a shared file system see each other's claims; none for a tracking server."""
        path = sqlite_file(self.tracker.uri)
        return locked(path.with_name(path.name + ".claims.lock")) if path is not None else nullcontext()

    def claim_run(self, key: str) -> str:
        """This sweep's claim run of a trial it won, to log the trial's outcome into (the claim is then done)."""
        return self.claims.pop(key)

    def _live_claims(self, keys: set[str]) -> Iterable:
        """RUNNING claims of these trials whose sweep is alive; dead sweeps' claims are withdrawn on the way."""
        alive: dict[str, bool] = {self.run_id: True}
        for run in self.tracker.running_runs(self.experiment):
            key, sweep = run.data.tags.get("trial_hash"), run.data.tags.get("lease_sweep")
            if sweep is None or key not in keys:
                continue
            if sweep not in alive:
                alive[sweep] = self._sweep_alive(sweep)
                if not alive[sweep]:
                    self._withdraw(sweep)  # a dead sweep's lease
            if alive[sweep]:
                yield run
            else:
                self._withdraw(run.info.run_id)

    def _withdraw(self, run_id: str) -> None:
        with suppress(Exception):  # deleted meanwhile by another sweep cleaning up
            self.tracker.client.delete_run(run_id)

    def _winners(self, keys: set[str]) -> dict[str, str]:
        """The winning live claim (run id) of each trial: the earliest."""
        best: dict[str, tuple[int, str]] = {}
        for run in self._live_claims(keys):
            key = run.data.tags["trial_hash"]
            claim = (run.info.start_time, run.info.run_id)
            best[key] = min(best.get(key, claim), claim)
        return {key: run_id for key, (_, run_id) in best.items()}

    def _sweep_alive(self, sweep_run: str) -> bool:
        try:
            run = self.tracker.client.get_run(sweep_run)
        except Exception:
            return False
        tags = run.data.tags
        if run.info.lifecycle_stage == "deleted" or run.info.status != "RUNNING":
            return False
        if float(tags.get("lease_until", 0)) < time.time():
            return False
        return tags.get("host") != socket.gethostname() or _process_alive(int(tags.get("pid", 0)))

    def wait(self, trials: list[dict], on_finished=lambda n: None) -> list[dict]:
        """Wait until each trial has a finished run or no live claim; the latter are returned, to be claimed again.
        ``on_finished(n)`` is told of trials another sweep finished."""
        waiting = {trial_hash(t): t for t in trials}
        while waiting:
            held = {run.data.tags["trial_hash"] for run in self._live_claims(set(waiting))}
            finished = set(self.tracker.finished_runs(self.experiment)) & set(waiting)  # after: a claim ended meanwhile
            for key in finished:
                del waiting[key]
            if finished:
                on_finished(len(finished))
            orphans = [waiting.pop(key) for key in list(waiting) if key not in held]
            if orphans:
                return orphans
            if waiting:
                time.sleep(POLL)
        return []
