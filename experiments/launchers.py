"""Where a sweep's trials run: processes on this machine (joblib) or the workers of a running Dask cluster.

A launcher turns trials into their outcomes, yielded as they finish; the process that drives the sweep logs each one
to MLflow, so workers never touch the store. What workers need is to import this project and to read the trials'
datasets from the cache this process fetched them into (``MONDRIAN_DATA`` on a filesystem they share).
"""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from joblib import Parallel, delayed

from experiments.data.catalog import data_home
from experiments.progress import lines_beside_bars, say
from experiments.store import sqlite_file
from experiments.trial import TrialOutcome, run_trial


class Launcher(Protocol):
    def check(self) -> None:
        """Raise (one line) if the trials cannot be sent where they would run, before anything is written."""
        ...

    def outcomes(self, trials: list[dict]) -> Generator[TrialOutcome, None, None]:
        """Run the trials; yield their outcomes in the order they finish (closing it stops the trials not started)."""
        ...


@dataclass(frozen=True)
class JoblibLauncher:
    """Processes on this machine (``n_jobs``: how many, -1 for one per core; 1 runs the trials in this process)."""

    n_jobs: int = 1

    def check(self) -> None:
        """Local processes are always there."""

    def outcomes(self, trials: list[dict]) -> Generator[TrialOutcome, None, None]:
        driver = os.getpid()
        return Parallel(n_jobs=self.n_jobs, return_as="generator_unordered")(
            delayed(_watched)(run_trial, t, driver) for t in trials
        )


_WATCH_INTERVAL = 1.0  # seconds between two looks of a worker at its driver
_watching: set[int] = set()


def _watch_driver(driver: int) -> None:
    """In a worker process: exit as soon as the driver process is gone (killed, even by SIGKILL), instead of running
    its trial to the end and then idling in joblib's pool (loky keeps idle workers for minutes)."""
    child = os.getppid() == driver  # loky's workers are the driver's children: reparented when it dies
    while True:
        time.sleep(_WATCH_INTERVAL)
        if child and os.getppid() != driver:
            os._exit(1)
        try:
            os.kill(driver, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:  # a process of someone else has its pid: the driver is gone
            os._exit(1)


def _watched(run: Callable[[dict], TrialOutcome], trial: dict, driver: int) -> TrialOutcome:
    """``run(trial)``, in a process that watches the ``driver`` (from its first trial on) when it is not the driver.
    Such a worker also leaves Ctrl-C to the driver (a terminal sends it to every process of the command: the driver
    stops the sweep and its workers, which would each print a traceback), and writes its log lines and warnings below
    the driver's progress bar."""
    if os.getpid() != driver and driver not in _watching:
        _watching.add(driver)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        lines_beside_bars()
        threading.Thread(target=_watch_driver, args=(driver,), name="watch-driver", daemon=True).start()
    return run(trial)


class ClusterUnreachable(SystemExit):
    """No Dask scheduler at the launcher's address. A SystemExit whose message is one line (the address and what to
    do), so that the command stops with it instead of a traceback."""


@dataclass(frozen=True)
class DaskLauncher:
    """The workers of a running Dask cluster, ``address`` being its scheduler's (``tcp://host:port``).

    A trial the cluster loses (its worker died more often than the scheduler allows) comes back as a failure, and
    stopping the sweep (Ctrl-C) cancels the trials still queued on the cluster."""

    address: str
    tracking_uri: str

    def connect(self):
        """A ``distributed.Client`` of the scheduler at ``address``; ``ClusterUnreachable`` (one line) if there is
        none (waiting ``distributed.comm.timeouts.connect``, 30 s by default)."""
        from distributed import Client

        try:
            return Client(self.address, set_as_default=False)
        except (OSError, ValueError) as error:  # refused, timed out, unknown host, malformed address
            reason = (str(error).splitlines() or [""])[0]
            raise ClusterUnreachable(
                f"no Dask scheduler answers at launcher.address={self.address} ({type(error).__name__}: {reason}): "
                "start one (dask scheduler) or correct the address"
            ) from None

    def check(self) -> None:
        """A scheduler answers at ``address`` (``ClusterUnreachable`` otherwise)."""
        self.connect().close()

    def outcomes(self, trials: list[dict]) -> Generator[TrialOutcome, None, None]:
        from distributed import as_completed

        with self.connect() as client:
            for note in worker_notes(client.run(data_home), data_home(), self.tracking_uri):
                say(f"warning: {note}", file=sys.stderr)
            futures = client.map(run_trial, trials, pure=False)
            trial_of = {future.key: trial for future, trial in zip(futures, trials, strict=True)}
            try:
                for future in as_completed(futures, loop=client.loop):
                    yield _outcome(future, trial_of[future.key])
            finally:
                client.cancel(futures)


def _outcome(future, trial: dict) -> TrialOutcome:
    try:
        return future.result()
    except Exception:  # the cluster lost the trial (KilledWorker, a worker that cannot unpickle it, ...)
        return TrialOutcome(trial, error=traceback.format_exc())


def on_this_machine(host: str) -> bool:
    """Whether ``host`` names this machine (a loopback address, or an address of this host's name)."""
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
        own = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None)}
    except socket.gaierror:
        return False
    return all(ipaddress.ip_address(a).is_loopback or a in own for a in addresses)


def worker_notes(homes: dict[str, Path], home: Path, tracking_uri: str) -> list[str]:
    """What a cluster's workers lack, from where each reads datasets (``homes`` by worker address) and where this
    process fetched them (``home``): a different folder, or other machines with a store only this one can see."""
    notes = []
    elsewhere = sorted({str(h) for h in homes.values() if Path(h) != home})
    remote = sorted({host for host in (urlsplit(a).hostname for a in homes) if not on_this_machine(host)})
    if elsewhere:
        notes.append(
            f"the cluster's workers read datasets from {', '.join(elsewhere)}, but this process fetched them into "
            f"{home}: start the workers with MONDRIAN_DATA={home} (on a filesystem they share with this machine)"
        )
    elif remote:
        notes.append(
            f"workers on {', '.join(remote)} read datasets from {home}: it must be a filesystem they share with this "
            "machine (MONDRIAN_DATA), or they fetch the datasets again, and fail on those put there by hand"
        )
    store = sqlite_file(tracking_uri)
    if remote and store is not None:
        notes.append(
            f"runs are logged into the SQLite file {store} on this machine, by this process only: keep it running "
            "until the sweep ends (trials whose results it has not received run again next time), and log to a "
            "tracking server (tracking.uri=http://...) for a store that the team and other machines can see"
        )
    return notes
