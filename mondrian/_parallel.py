"""Running per-tree kernels on threads (the kernels release the GIL).

Results never depend on n_jobs, float for float: a tree's kernel always runs on its
own random stream, and sums over trees are always taken in tree order. Between two items is a safe point for a call
that can roll back (``_interrupts``): an interrupt stops it there, the threads taking no further item.
"""

import itertools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from joblib import effective_n_jobs

from mondrian._interrupts import safe_point, stopping, watching

_DONE = object()


def for_each(fn: Callable, items: Sequence, n_jobs) -> None:
    """Call fn(item) for every item, on up to n_jobs threads.

    Each thread takes the next item left when it is done with one, so a thread slowed by the machine's other work
    (or a costlier item) takes fewer items than the others instead of holding the rest back."""
    n_workers = max(1, min(effective_n_jobs(n_jobs), len(items)))
    if n_workers == 1:
        for item in items:
            fn(item)
            safe_point()
        return
    # one task per thread pulling from a shared iterator: a task per item (pool.map) doubles the ~0.2 ms a call costs,
    # which one-sample predict and partial_fit calls would pay
    remaining, lock, watched = iter(items), threading.Lock(), watching()
    stopped = []  # an interrupt arrived: the threads took no further item

    def next_item():
        with lock:
            if stopping(watched):
                stopped.append(True)
                return _DONE
            return next(remaining, _DONE)

    def run():
        while (item := next_item()) is not _DONE:
            fn(item)

    while True:
        with ThreadPoolExecutor(n_workers) as pool:
            for done in [pool.submit(run) for _ in range(n_workers)]:
                done.result()
        safe_point()
        if not stopped:
            return
        stopped.clear()  # the interrupt's handler did not raise: the items left are taken up again


def row_blocks(n_rows: int, n_jobs) -> list[slice]:
    """Contiguous row ranges, one per thread."""
    n_blocks = max(1, min(effective_n_jobs(n_jobs), n_rows))
    bounds = np.linspace(0, n_rows, n_blocks + 1).astype(int)
    return [slice(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def sum_over_trees(fn: Callable, trees: Sequence, shape: tuple[int, ...], n_jobs) -> np.ndarray:
    """Sum, in tree order, of what fn(tree, out) adds into a zero buffer of its own per tree."""
    outs = [np.zeros(shape) for _ in trees]
    for_each(lambda k: fn(trees[k], outs[k]), range(len(trees)), n_jobs)
    total = outs[0]
    for out in outs[1:]:
        total += out
    return total
