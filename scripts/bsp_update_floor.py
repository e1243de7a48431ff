"""A floor under the online BSP update's time: the hull arithmetic an update must do, timed alone.

The benchmark's BSP rows (``experiments/bench/bsp.py``: 5000 points, y = 10 sin(pi x1 x2) + noise, x ~ U[0,1]^d)
time whole updates. This script fits one tree of the law's rule on the first 4000 of those points and follows the
next ``--updates`` points down it, without inserting them, to list what their updates would do with the hulls: the
point-in-hull tests of the search for the level from which the point is outside each pair's hulls (the kernel's
search, doubling up from the leaf, then bisecting), and the hulls it is outside of, down to the leaf (those an update
grows where its walk reaches them: a bound). It then times, in tight compiled loops over those very hulls (in cache,
nothing else done): the tests (``hull.locate``), a visibility test of the point against each edge of each grown hull
(the chain it replaces is found among them), the perimeter of each (the exact sum over its edges, which the trees'
bit-for-bit reference fixes) and a copy of its vertices (its storage). Their sum is work that a kernel keeping the
hulls as rows of the point store and their perimeters as those sums must do; what the kernel takes beyond it is its
own cost (the walk, the random draws, slot management, calls).

    .venv/bin/python scripts/bsp_update_floor.py --dims 8 10
"""

from __future__ import annotations

import argparse
import time
from itertools import combinations

import numba
import numpy as np

from experiments.bench.bsp import points
from mondrian import OnlineBSPForestRegressor
from mondrian.bsp._kernels import _descend
from mondrian.bsp._orient import certain_orientation
from mondrian.bsp.hull import UNDECIDED, contains, locate, perimeter_at

FIT, N_SAMPLES = 4000, 5000


def hull_work(d: int, updates: int):
    """The fitted tree's point store, the points followed, and the hulls (start, size, d1, d2, point) their updates
    test and grow."""
    X, y = points(d, N_SAMPLES)
    model = OnlineBSPForestRegressor(n_estimators=1, leaf_sampling="law", random_state=0).partial_fit(X[:FIT], y[:FIT])
    tree, store, Z = model.trees_[0].nodes, model.points_.X, X[FIT : FIT + updates]
    pairs = np.array(list(combinations(range(d), 2)))
    path, tested, grown = np.empty(256, np.int64), [], []
    for k, z in enumerate(Z):
        depth = _descend(tree, z, pairs, path)
        levels = depth if tree.hull_row[path[depth - 1]] >= 0 else depth - 1  # a small leaf keeps no hulls
        for p, (d1, d2) in enumerate(pairs):
            hulls = [(tree.hull_start[r, p], tree.hull_size[r, p], d1, d2, k) for r in tree.hull_row[path[:levels]]]
            low, high, step = 0, levels, 1  # inside above level low, outside from level high on
            while low < high:
                level = high - step if step > 0 else (low + high) >> 1
                if level < low:
                    step, level = 0, (low + high) >> 1
                start, size = hulls[level][:2]
                where = locate(store, tree.pool, start, size, d1, d2, z[d1], z[d2])
                if where == UNDECIDED:
                    where = contains(store, tree.pool[start : start + size], size, d1, d2, z[d1], z[d2])
                tested.append(hulls[level])
                if where == 0:
                    high, step = level, 2 * step
                else:
                    low, step = level + 1, 0
            grown.extend(hulls[low:levels])
    return store, tree.pool, Z, np.array(tested, np.int64), np.array(grown, np.int64)


@numba.njit
def tests(X, pool, Z, hulls):
    inside = 0
    for e in range(hulls.shape[0]):
        start, size, d1, d2, k = hulls[e, 0], hulls[e, 1], hulls[e, 2], hulls[e, 3], hulls[e, 4]
        inside += locate(X, pool, start, size, d1, d2, Z[k, d1], Z[k, d2])
    return inside


@numba.njit
def visibility(X, pool, Z, hulls):
    seen = 0
    for e in range(hulls.shape[0]):
        start, size, d1, d2, k = hulls[e, 0], hulls[e, 1], hulls[e, 2], hulls[e, 3], hulls[e, 4]
        for j in range(size):
            v, w = pool[start + j], pool[start + (j + 1 if j + 1 < size else 0)]
            seen += certain_orientation(X[v, d1], X[v, d2], X[w, d1], X[w, d2], Z[k, d1], Z[k, d2]) <= 0.0
    return seen


@numba.njit
def perimeters(X, pool, Z, hulls):
    total = 0.0
    for e in range(hulls.shape[0]):
        start, size, d1, d2 = hulls[e, 0], hulls[e, 1], hulls[e, 2], hulls[e, 3]
        total += perimeter_at(X, pool, start, size, d1, d2)
    return total


@numba.njit
def copies(pool, hulls, out):
    at = 0
    for e in range(hulls.shape[0]):
        for j in range(hulls[e, 1]):
            out[at] = pool[hulls[e, 0] + j]
            at += 1
    return at


def best_time(call, repeats: int) -> float:
    call()  # compiled
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def floor(d: int, updates: int, repeats: int) -> None:
    """Print the hull work of ``updates`` updates at dimension d and its times per update."""
    X, pool, Z, tested, grown = hull_work(d, updates)
    out = np.empty(int(grown[:, 1].sum()), np.int32)
    parts = {
        "point-in-hull tests": lambda: tests(X, pool, Z, tested),
        "visibility tests": lambda: visibility(X, pool, Z, grown),
        "perimeters": lambda: perimeters(X, pool, Z, grown),
        "copies": lambda: copies(pool, grown, out),
    }
    times = {name: best_time(call, repeats) / updates * 1e6 for name, call in parts.items()}
    print(
        f"d = {d}: per update {len(tested) / updates:.0f} point-in-hull tests, {len(grown) / updates:.0f} hulls grown "
        f"at most, {grown[:, 1].sum() / updates:.0f} of their vertices"
    )
    for name, us in times.items():
        print(f"  {name:20s} {us:6.2f} us")
    print(f"  {'sum':20s} {sum(times.values()):6.2f} us per update")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[8, 10])
    parser.add_argument("--updates", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    for d in args.dims:
        floor(d, args.updates, args.repeats)


if __name__ == "__main__":
    main()
