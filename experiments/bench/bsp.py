"""The online BSP forest against the online Mondrian forest with the same increasing budget (MGS17), on the same
points (5000 by default, 10 trees each, best of 3 runs, the three forests fitted in turn so that a slow spell of the
machine falls on all of them): y = 10 sin(pi x1 x2) + N(0, 0.2^2), x ~ U[0,1]^d, for several d.

Throughput: one ``partial_fit`` over the stream (each tree inserts the points one at a time), in microseconds per
point and tree, and BSP's time over MF's (a cost ratio between two of our forests, not a speed ratio against a
peer: above 1, BSP is slower) beside the number of dimension pairs d(d-1)/2 (the paper expects the d^2 factor: every
update visits every pair's hull). Memory: the bytes of one node's row in the node arrays, the hulls stored per
node (BSP: the slots in the vertex pool and the rows of the hull tables, which small leaves do without), and every
byte the trees hold (capacity included, the point lists of the leaves too) divided by their nodes; the forest's
point store (n d floats, shared by the trees) is counted apart. The two leaf rules differ only when a point reaches
a leaf of more than 3 points; "same trees as text" says whether the law's forest predicts the points exactly as the
text's: where it does (at d = 10 the budget cuts every block of 4 points), the two rows time one computation and differ
by the machine's noise only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.bench import best_in_turn
from mondrian import MondrianForestRegressor, OnlineBSPForestRegressor


def _arrays(obj) -> list[np.ndarray]:
    """Every numpy array an object holds, in its attributes and in their named tuples."""
    out = []
    for value in vars(obj).values():
        if isinstance(value, np.ndarray):
            out.append(value)
        elif isinstance(value, tuple) and hasattr(value, "_fields"):
            out.extend(v for v in value if isinstance(v, np.ndarray))
    return out


def _row_bytes(nodes, skip: tuple[str, ...]) -> int:
    """Bytes of one node's row across the node arrays (per-tree scalars and pools skipped)."""
    return sum(
        a.itemsize * int(np.prod(a.shape[1:])) for f, a in zip(nodes._fields, nodes, strict=True) if f not in skip
    )


def memory(model) -> dict[str, float]:
    trees = model.trees_
    n_nodes = sum(t.n_nodes for t in trees)
    held = sum(sum(a.nbytes for a in _arrays(t)) for t in trees)
    if isinstance(model, OnlineBSPForestRegressor):
        tables = ("hull_start", "hull_size", "perimeter")
        row = _row_bytes(
            trees[0].nodes, (*tables, "hull_rows_used", "pool", "pool_used", "free_slots", "n_nodes", "root")
        )
        hull_row = _row_bytes(trees[0].nodes, tuple(f for f in trees[0].nodes._fields if f not in tables))
        stored = sum(
            int(t.nodes.pool_used[0]) * t.nodes.pool.itemsize + int(t.nodes.hull_rows_used[0]) * hull_row for t in trees
        )
        hull = stored / n_nodes
    else:
        row = _row_bytes(trees[0].nodes, ("n_nodes", "root")) + trees[0].stats.itemsize * trees[0].stats.shape[1]
        hull = 0.0
    return {
        "nodes per tree": n_nodes / len(trees),
        "node row bytes": row,
        "hull bytes per node": hull,
        "held bytes per node": held / n_nodes,
        "point store bytes": model.points_.X.nbytes + model.points_.y.nbytes,
    }


def points(d: int, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
    """The benchmark's points at dimension d: x ~ U[0,1]^d, y = 10 sin(pi x1 x2) + N(0, 0.2^2)."""
    rng = np.random.default_rng(d)
    X = rng.uniform(size=(n_samples, d))
    return X, 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 0.2 * rng.standard_normal(n_samples)


def run(dims=(2, 3, 5, 10), n_samples: int = 5000, n_trees: int = 10, repeats: int = 3) -> pd.DataFrame:
    rows = []
    for d in dims:
        X, y = points(d, n_samples)
        models = {  # the text's leaf rule (the default) and the law's
            "BSP": lambda: OnlineBSPForestRegressor(n_trees, leaf_sampling="text", random_state=0, n_jobs=1),
            "BSP (law)": lambda: OnlineBSPForestRegressor(n_trees, leaf_sampling="law", random_state=0, n_jobs=1),
            "MF increasing": lambda: MondrianForestRegressor(n_trees, lifetime="increasing", random_state=0, n_jobs=1),
        }
        for make in models.values():
            make().partial_fit(X[:50], y[:50])  # loads the kernels
        seconds, fitted = best_in_turn(
            {name: lambda make=make, X=X, y=y: make().partial_fit(X, y) for name, make in models.items()}, repeats
        )
        same = np.array_equal(fitted["BSP"].predict(X), fitted["BSP (law)"].predict(X))
        for name in models:
            rows.append(
                {
                    "d": d,
                    "pairs": d * (d - 1) // 2,
                    "forest": name,
                    "points": n_samples,
                    "trees": n_trees,
                    "seconds": seconds[name],
                    "us per point per tree": 1e6 * seconds[name] / (n_samples * n_trees),
                    **memory(fitted[name]),
                    "same trees as text": ("yes" if same else "no") if name == "BSP (law)" else "",
                }
            )
        for row in rows[-3:-1]:
            row["time: this / MF increasing"] = seconds[row["forest"]] / seconds["MF increasing"]
    return pd.DataFrame(rows)
