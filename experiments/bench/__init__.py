"""Benchmarks: speed measured as ratios against peers run in the same process, never by timed tests."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


def best_time(fn: Callable[[], object], repeats: int = 3) -> float:
    """Best wall time of ``repeats`` calls (the least disturbed by the rest of the machine)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def best_in_turn(calls: dict[str, Callable[[], object]], repeats: int = 3) -> tuple[dict[str, float], dict]:
    """Each call's best wall time over ``repeats`` rounds, the calls in turn within a round (a slow spell of the
    machine slows them alike), and each one's last output (freed before its next run: no call runs beside a dead
    forest)."""
    best, outputs = dict.fromkeys(calls, np.inf), {}
    for _ in range(repeats):
        for name, fn in calls.items():
            outputs[name] = None
            start = time.perf_counter()
            outputs[name] = fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best, outputs
