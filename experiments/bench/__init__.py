"""Benchmarks: speed measured as ratios against peers run in the same process, never by timed tests."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd


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


def machine() -> str:
    import numba
    import sklearn

    return (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"scikit-learn {sklearn.__version__}; code at {code_version()}"
    )


def code_version() -> str:
    """The commit of the code benchmarked (``+ changes`` when the checkout differs from it), so that a number can be
    traced to the code that gave it."""
    import subprocess

    here = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=here, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "an unknown commit (no git)"
    return f"commit {commit}" + (" + uncommitted changes" if dirty else "")


def write_markdown(table: pd.DataFrame, title: str, path: Path, notes: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = f"# {title}\n\nMachine: {machine()}\n\n{table.to_markdown(index=False, floatfmt='.3g')}\n"
    path.write_text(text + (f"\n{notes}\n" if notes else ""))
