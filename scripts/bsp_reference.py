"""Reference outputs of the online BSP forest on fixed seeds: the bit-for-bit specification of its kernels.

Kernel work (speed, memory layout) must leave every tree and prediction exactly as it was. This script fits small
forests (both estimators, both leaf rules, the increasing and a fixed budget, d = 1, 2, 3, 5, points in general
position and points on a coarse grid, which makes duplicates, segments and collinear vertices; the classifier votes
hard on the grid) in one batch and through several calls (``progressive_predict`` on the empty forest,
``partial_fit`` calls, ``progressive_predict`` on the rest), and stores what defines them: predictions, leaf
counts, and per tree a digest of each array of the partition (the tree's shape, its cuts and times, statistics,
every hull's vertices in order, the leaves' point lists, the state of its random stream).
Digests keep the file small; predictions and leaf counts are stored in full, so that a failure shows how far off
it is. ``tests/mondrian/test_bsp_bit_for_bit.py`` compares with the stored file.

Run ``python scripts/bsp_reference.py`` only to record a deliberate change of the trees' law or of the random
stream's use (say why in the commit): the file is the specification of every other change.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
from pathlib import Path

import numpy as np

from mondrian import OnlineBSPForestClassifier, OnlineBSPForestRegressor
from mondrian._points import points_of

REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "mondrian" / "data" / "bsp_reference.npz"
N_TRAIN, N_TEST, N_TREES = 240, 40, 3
CHUNKS = (1, 60, 99, 180)  # partial_fit calls of the several-call run, between a progressive first point and rest
FIXED_BUDGET = 1.5


def cases() -> list[dict]:
    """Every setting recorded: the cross product of task, leaf rule, budget and dimension, points on a grid for
    the fixed budget (ties then meet both rules and both tasks), and one 1-D setting per task."""
    out = [
        {"task": task, "leaf_sampling": rule, "budget": budget, "d": d, "grid": budget != "increasing"}
        for task, rule, budget, d in itertools.product(
            ("regression", "classification"), ("law", "text"), ("increasing", FIXED_BUDGET), (2, 3, 5)
        )
    ]
    out += [
        {"task": task, "leaf_sampling": "text", "budget": "increasing", "d": 1, "grid": False}
        for task in ("regression", "classification")
    ]
    return out


def name(case: dict) -> str:
    """A case's key in the file."""
    budget = "inc" if case["budget"] == "increasing" else f"fixed{case['budget']}"
    return f"{case['task'][:3]}-{case['leaf_sampling']}-{budget}-d{case['d']}{'-grid' if case['grid'] else ''}"


def data(case: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, X_test) of a case, from a seed of its own."""
    seed = int.from_bytes(hashlib.sha256(name(case).encode()).digest()[:4], "little")
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(N_TRAIN + N_TEST, case["d"]))
    if case["grid"]:
        X = np.round(X * 4) / 4
    signal = np.sin(np.pi * X[:, 0] * X[:, -1]) + X.sum(axis=1) / case["d"]
    if case["task"] == "regression":
        y = 10 * signal + 0.2 * rng.standard_normal(len(X))
    else:
        y = np.digitize(signal + 0.3 * rng.standard_normal(len(X)), [0.6, 1.2])
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:]


def model(case: dict):
    """A fresh estimator of the case (a fixed seed; a classifier votes hard on the grid, soft elsewhere)."""
    kwargs = {"n_estimators": N_TREES, "budget": case["budget"], "leaf_sampling": case["leaf_sampling"]}
    if case["task"] == "regression":
        return OnlineBSPForestRegressor(**kwargs, random_state=7)
    vote = "hard" if case["grid"] else "soft"
    return OnlineBSPForestClassifier(**kwargs, vote=vote, classes=[0, 1, 2], random_state=7)


def predictions(forest, X_test: np.ndarray) -> np.ndarray:
    if isinstance(forest, OnlineBSPForestClassifier):
        return forest.predict_proba(X_test)
    return forest.predict(X_test)


def digest(a: np.ndarray) -> np.ndarray:
    """SHA-256 of an array's values and shape, ints as int64 and floats as float64 (little-endian): 32 bytes."""
    a = np.asarray(a)
    a = a.astype("<i8" if a.dtype.kind in "iub" else "<f8")
    return np.frombuffer(hashlib.sha256(repr(a.shape).encode() + np.ascontiguousarray(a).tobytes()).digest(), np.uint8)


def tree_arrays(forest, tree) -> dict[str, np.ndarray]:
    """What defines a tree, node by node in the order of its node arrays: shape, cuts, times, statistics, hulls
    (their sizes, then every vertex, node by node and pair by pair), the leaves' point lists (in list order) and
    the next draw of its random stream."""
    nodes, n = tree.nodes, tree.n_nodes
    n_pairs = len(forest.pairs_)
    hulls = [tree.hull(v, p, forest.points_.X, forest.pairs_) for v in range(n) for p in range(n_pairs)]
    lists = []
    for v in range(n):
        rows = np.empty(int(nodes.stats[v, 0]) if n else 0, np.int64)
        lists.append(rows[: points_of(nodes.first_point, tree.next_point, v, rows)])
    out = {field: getattr(nodes, field)[:n] for field in ("parent", "left", "right", "pair")}
    out |= {field: getattr(nodes, field)[:n] for field in ("direction", "position", "split_time", "sampled_until")}
    out["stats"] = nodes.stats[:n]
    out["hull_sizes"] = np.array([len(h) for h in hulls], np.int64)
    out["hull_vertices"] = np.concatenate(hulls) if hulls else np.empty(0, np.int64)
    out["list_sizes"] = np.array([len(rows) for rows in lists], np.int64)
    out["list_points"] = np.concatenate(lists) if lists else np.empty(0, np.int64)
    out["rng_next"] = np.array([copy.deepcopy(tree.rng).integers(2**62)])
    return out


def one_batch(case: dict) -> tuple[object, np.ndarray]:
    """The case fitted by one ``fit``: (forest, its predictions on the test points)."""
    X, y, X_test = data(case)
    forest = model(case).fit(X, y)
    return forest, predictions(forest, X_test)


def several_calls(case: dict) -> tuple[object, np.ndarray]:
    """The case fed through several calls: ``progressive_predict(_proba)`` on the first point (the empty tree's
    prior), ``partial_fit`` on chunks, then ``progressive_predict(_proba)`` on the rest; returns (forest, the
    progressive predictions then those on the test points)."""
    X, y, X_test = data(case)
    forest = model(case)
    progressive = [_progressive(forest, X[:1], y[:1])]
    for start, end in itertools.pairwise(CHUNKS):
        forest.partial_fit(X[start:end], y[start:end])
    progressive.append(_progressive(forest, X[CHUNKS[-1] :], y[CHUNKS[-1] :]))
    return forest, np.concatenate([*(p.ravel() for p in progressive), predictions(forest, X_test).ravel()])


def _progressive(forest, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    if isinstance(forest, OnlineBSPForestClassifier):
        return forest.progressive_predict_proba(X, y)
    return forest.progressive_predict(X, y)


RUNS = {"batch": one_batch, "calls": several_calls}
FIELDS = ("parent", "left", "right", "pair", "direction", "position", "split_time", "sampled_until", "stats")
FIELDS += ("hull_sizes", "hull_vertices", "list_sizes", "list_points", "rng_next")


def outputs(case: dict) -> dict[str, np.ndarray]:
    """Every recorded value of a case, keyed ``<run>/<what>``: predictions, leaf counts, and the digests of the
    trees' arrays (one row per tree, one column per name of ``tree_arrays`` in the order of ``FIELDS``)."""
    out = {}
    for run, fitted in RUNS.items():
        forest, predicted = fitted(case)
        out[f"{run}/predictions"] = predicted
        out[f"{run}/n_leaves"] = forest.n_leaves()
        arrays = [tree_arrays(forest, tree) for tree in forest.trees_]
        assert all(list(tree) == list(FIELDS) for tree in arrays)
        out[f"{run}/digests"] = np.array([[digest(tree[field]) for field in FIELDS] for tree in arrays])
    return out


def main() -> None:
    stored = {f"{name(case)}/{key}": value for case in cases() for key, value in outputs(case).items()}
    REFERENCE.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(REFERENCE, **stored)
    print(f"{REFERENCE}: {len(stored)} arrays, {REFERENCE.stat().st_size} bytes")


if __name__ == "__main__":
    main()
