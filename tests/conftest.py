"""One compile of each kernel per test session: pytest-xdist's workers (``make test`` runs 2) take turns compiling a
kernel of the library. Each worker otherwise compiled a kernel that numba's cache did not hold yet, at the same time
as the other when both reached it together (from a fresh clone, the cache is empty); the second to come now waits for
the first and loads what it saved."""

import fcntl
import os

import pytest
from numba.core.caching import Cache
from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher


def _compile_in_turn(compile_):
    """``Dispatcher.compile`` under a file lock on the kernel's cache index, taken inside numba's compiler lock (so that
    threads of one process queue there first): numba looks for the kernel in its cache before compiling it, so that
    the worker which waited loads it. Locks are taken along calls (a kernel, then its callees), never in a cycle."""

    held = set()  # the locks this process holds (a kernel compiled for a second signature inside its own compile)

    def compile(self, sig):
        cache = self._cache
        if not isinstance(cache, Cache) or not self.py_func.__module__.startswith("mondrian."):
            return compile_(self, sig)
        with global_compiler_lock:
            path = os.path.join(cache.cache_path, f"{cache._impl.filename_base}.lock")
            if path in held:
                return compile_(self, sig)
            cache._impl.locator.ensure_cache_path()
            with open(path, "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
                held.add(path)
                try:
                    return compile_(self, sig)
                finally:
                    held.discard(path)

    return compile


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        Dispatcher.compile = _compile_in_turn(Dispatcher.compile)
