"""An MLflow store shared by several processes (sweeps, Slurm or submitit jobs, the UI).

A SQLite file takes one writer at a time: a new file's tables are created by one process while the others wait
(two processes migrating one new file corrupt it), and a call that finds the file locked by another writer waits,
then tries again. Many concurrent writers want a tracking server instead (``mlflow server``, ``tracking.uri=http://...``).
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mlflow import MlflowClient

from experiments.locks import locked

_LOCKED = "database is locked"
_ATTEMPTS = 8
_FIRST_WAIT = 0.5  # seconds (times 1 to 2 at random) before the second attempt, doubled after each one
_SERVER_ADVICE = (
    "the SQLite store stayed locked by other writers; for many concurrent writers run a tracking server "
    "(mlflow server --backend-store-uri sqlite:///... --host 127.0.0.1) and log to it with tracking.uri=http://..."
)


def sqlite_file(uri: str) -> Path | None:
    """The database file of a ``sqlite:///path`` URI; None for any other store."""
    if not uri.startswith("sqlite:///"):
        return None
    return Path(uri.removeprefix("sqlite:///").split("?", 1)[0])


def retry_when_locked(call: Callable[..., Any], *args, **kwargs) -> Any:
    """``call(*args, **kwargs)``, tried again with a growing random wait while the store is locked by another writer.
    A locked write is rolled back whole, so trying it again never writes twice."""
    for attempt in range(_ATTEMPTS):
        try:
            return call(*args, **kwargs)
        except Exception as error:
            if _LOCKED not in str(error):
                raise
            if attempt == _ATTEMPTS - 1:
                error.add_note(_SERVER_ADVICE)
                raise
            time.sleep(_FIRST_WAIT * 2**attempt * random.uniform(1.0, 2.0))


class RetryingClient:
    """An MlflowClient whose every call waits and tries again while the store is locked (``retry_when_locked``)."""

    def __init__(self, client: MlflowClient):
        self._client = client

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        return functools.partial(retry_when_locked, attribute) if callable(attribute) else attribute


def open_client(uri: str) -> RetryingClient:
    """A client of the store at ``uri``; a SQLite file is opened (its tables created if new) under a file lock."""
    path = sqlite_file(uri)
    if path is None:
        return RetryingClient(MlflowClient(tracking_uri=uri))
    with locked(path.with_name(path.name + ".lock")):
        return RetryingClient(MlflowClient(tracking_uri=uri))
