"""An exclusive lock between processes on one file (parallel trials, jobs or sweeps sharing a cache or a store)."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def locked(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` (created with its folder if missing) while the block runs."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
