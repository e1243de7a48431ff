"""Where a sweep's trials run: processes on this machine (joblib) or the workers of a running Dask cluster.

A launcher turns trials into their outcomes, yielded as they finish; the process that drives the sweep logs each one
to MLflow, so workers never touch the store. What workers need is to import this project and to read the trials'
datasets from the cache this process fetched them into (``MONDRIAN_DATA`` on a filesystem they share).
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import traceback
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from joblib import Parallel, delayed

from experiments.data.catalog import data_home
from experiments.store import sqlite_file
from experiments.trial import TrialOutcome, run_trial


class Launcher(Protocol):
    def outcomes(self, trials: list[dict]) -> Generator[TrialOutcome, None, None]:
        """Run the trials; yield their outcomes in the order they finish (closing it stops the trials not started)."""
        ...


@dataclass(frozen=True)
class JoblibLauncher:
    """Processes on this machine (``n_jobs``: how many, -1 for one per core; 1 runs the trials in this process)."""

    n_jobs: int = 1

    def outcomes(self, trials: list[dict]) -> Generator[TrialOutcome, None, None]:
        return Parallel(n_jobs=self.n_jobs, return_as="generator_unordered")(delayed(run_trial)(t) for t in trials)


@dataclass(frozen=True)
class DaskLauncher:
    """The workers of a running Dask cluster, ``address`` being its scheduler's (``tcp://host:port``).

    A trial the cluster loses (its worker died more often than the scheduler allows) comes back as a failure, and
    stopping the sweep (Ctrl-C) cancels the trials still queued on the cluster."""

    address: str
    tracking_uri: str

    def outcomes(self, trials: list[dict]) -> Generator[TrialOutcome, None, None]:
        from distributed import Client, as_completed

        with Client(self.address, set_as_default=False) as client:
            for note in worker_notes(client.run(data_home), data_home(), self.tracking_uri):
                print(f"warning: {note}", file=sys.stderr)
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
