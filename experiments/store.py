"""An MLflow store shared by several processes (sweeps, Slurm or submitit jobs, the UI).

A SQLite file takes one writer at a time: a new file's tables are created by one process while the others wait
(two processes migrating one new file corrupt it), and a call that finds the file locked by another writer waits,
then tries again. Many concurrent writers want a tracking server instead (``mlflow server``, ``tracking.uri=http://...``).
"""

from __future__ import annotations

import functools
import os
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
    """The database file of a ``sqlite:///path`` URI; None for any other store, and for SQLite's in-memory database
    (``sqlite:///:memory:``), which has no file (nor a lock file beside it)."""
    if not uri.startswith("sqlite:///"):
        return None
    name = uri.removeprefix("sqlite:///").split("?", 1)[0]
    return None if name in ("", ":memory:") else Path(name)


@contextmanager
def ctrl_c_after() -> Iterator[None]:
    """Ctrl-C (SIGINT) held back until the block has run, then raised as usual. A store call cut in the middle can
    leave its SQLite connection holding the file's lock, referenced from the interrupt's traceback: the writes of the
    stopping command itself (withdrawing its claims) then wait for that lock, attempt after attempt, for minutes.
    Only where Python handles SIGINT (the main thread, a handler of its own installed); elsewhere the block just
    runs."""
    if threading.current_thread() is not threading.main_thread() or not callable(signal.getsignal(signal.SIGINT)):
        yield
        return
    held: list[Any] = []
    previous = signal.signal(signal.SIGINT, lambda *received: held.append(received))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            previous(*held[0])


def retry_when_locked(call: Callable[..., Any], *args, **kwargs) -> Any:
    """``call(*args, **kwargs)``, tried again with a growing random wait while the store is locked by another writer.
    A locked write is rolled back whole, so trying it again never writes twice. Each attempt runs whole: a Ctrl-C
    stops the command after it (``ctrl_c_after``), the waits between attempts stop at once."""
    for attempt in range(_ATTEMPTS):
        try:
            with ctrl_c_after():
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


class StoreError(SystemExit):
    """A store that cannot be opened. A SystemExit whose message is one line naming the file and what to do, so that
    a command (a figure, the report) stops with that line instead of a traceback."""


def _sqlite_client(uri: str, path: Path) -> RetryingClient:
    if path.exists() and path.stat().st_size == 0:  # SQLite would take it as a new, empty store
        raise StoreError(
            f"{path}: an empty file, not an MLflow store (a copy or a creation cut short?): delete it to start a new "
            "store there, or point tracking.uri (report: --uri) at the store you meant"
        )
    try:
        return RetryingClient(MlflowClient(tracking_uri=uri))
    except Exception as error:
        from sqlalchemy.exc import DatabaseError

        cause = error if isinstance(error, DatabaseError) else error.__cause__ or error.__context__
        if not isinstance(cause, DatabaseError) or _LOCKED in str(cause):
            raise
        reason = str(cause.orig if getattr(cause, "orig", None) is not None else cause).splitlines()[0]
        raise StoreError(
            f"{path}: not a readable MLflow SQLite store ({reason}): restore it from a backup, or move it aside "
            f"(mv {path} {path}.broken) to start a new store there"
        ) from None


def _writable(path: Path, lock: Path) -> bool:
    """Whether this process may write the store's file and create (or open) its lock file."""
    return os.access(path, os.W_OK) and os.access(lock if lock.exists() else lock.parent, os.W_OK)


def open_client(uri: str) -> RetryingClient:
    """A client of the store at ``uri``. A new SQLite file gets its tables under a file lock (``<file>.lock``), so
    that one process creates them; an existing file that this process may not write (a read-only store, or one in a
    read-only folder) is opened for reading without the lock. An empty or corrupt file stops with ``StoreError``."""
    path = sqlite_file(uri)
    if path is None:
        return RetryingClient(MlflowClient(tracking_uri=uri))
    lock = path.with_name(path.name + ".lock")
    if path.exists() and not _writable(path, lock):
        return _sqlite_client(uri, path)  # nothing to create in a store this process cannot write
    with locked(lock):
        return _sqlite_client(uri, path)
