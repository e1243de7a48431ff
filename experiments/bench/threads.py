"""What two threads can gain on this machine at a given moment: a reference for the n_jobs=2 timings.

A tree's fit walks its nodes in an order set by the data, so most of its time goes to memory latency, and two
threads gain what the machine's caches and memory let them: on a virtual machine whose host is busy, that can be
well below 2, and it drifts from second to second. ``PointerChase`` times the same kind of work with nothing else
in it (each thread follows a random cycle through an array of its own, as large as one tree), one thread against
two: what two threads could gain on the machine beside the timings it is measured with.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _chase(successor, steps):
    node = 0
    for _ in range(steps):
        node = successor[node]
    return node


def _random_cycle(n: int, seed: int) -> np.ndarray:
    """successor[i]: the next index on one random cycle through all n indices."""
    order = np.random.default_rng(seed).permutation(n)
    successor = np.empty(n, np.int64)
    successor[order] = np.roll(order, -1)
    return successor


class PointerChase:
    """One thread chasing ``2 * calls`` times against two threads chasing ``calls`` times each, each through an
    array of ``n_bytes``: call ``time_pair`` between the timings it is a reference for; ``gain`` is the ratio of the
    shortest one-thread time to the shortest two-thread time."""

    def __init__(self, n_bytes: float, steps: int = 1_000_000, calls: int = 2):
        n = max(int(n_bytes) // 8, 1024)
        self.arrays = [_random_cycle(n, seed) for seed in (0, 1)]
        self.steps, self.calls = steps, calls
        self.best = {1: np.inf, 2: np.inf}
        _chase(self.arrays[0], 1)  # compiled (or loaded from the cache) outside the timings

    def _run(self, successor: np.ndarray, calls: int) -> None:
        for _ in range(calls):
            _chase(successor, self.steps)

    def time_pair(self) -> None:
        start = time.perf_counter()
        self._run(self.arrays[0], 2 * self.calls)
        self.best[1] = min(self.best[1], time.perf_counter() - start)
        start = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(self._run, self.arrays, [self.calls] * 2))
        self.best[2] = min(self.best[2], time.perf_counter() - start)

    @property
    def gain(self) -> float:
        return self.best[1] / self.best[2]
