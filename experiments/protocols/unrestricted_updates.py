"""AMF's partition update on the unrestricted Mondrian partition (AMF Algorithm 2, its Figure 4).

Before the t-th point, AMF keeps Pi_t, the minimal subtree of one infinite Mondrian partition Pi ~ MP of [0, 1]^d
that separates the distinct points x_1, ..., x_{t-1}: the root, and the children of every kept node whose cell holds
two points or more (AMF Section 2.1). When x_t arrives in a leaf that holds a point x_s, Algorithm 2 samples splits
of that cell, following the Mondrian process, until one separates x_s from x_t: that is Pi_{t+1}, the minimal
subtree of the same Pi that separates x_1, ..., x_t. Pi is drawn once with ``mondrian.sample_mondrian`` at a
lifetime large enough for its leaves to separate the points (checked), and Pi_t read from it after each point.

Tables: ``nodes`` (the kept nodes of each state, with Pi's node indices, so that states compare node by node: the
columns of ``process.partition_table`` for cells, ``n_points`` the points the cell holds and ``state``) and
``points`` (name x1, x2, ..., coordinates x0, x1, ..., the ``state`` in which the point arrived: 0 for the first
``first`` points, k for the k-th point after them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from experiments.protocols.process import partition_table
from experiments.protocols.result import TrialResult
from mondrian import sample_mondrian


def points_below(nodes: pd.DataFrame, X: np.ndarray) -> dict[int, np.ndarray]:
    """The indices of the points in each node's cell: all at the root, x[feature] <= threshold to the left."""
    root = int(nodes.loc[nodes["parent"] < 0, "node"].iloc[0])
    below, stack = {root: np.arange(len(X))}, [root]
    while stack:
        j = stack.pop()
        if nodes.at[j, "left"] < 0:
            continue
        goes_left = X[below[j], int(nodes.at[j, "feature"])] <= nodes.at[j, "threshold"]
        left, right = int(nodes.at[j, "left"]), int(nodes.at[j, "right"])
        below[left], below[right] = below[j][goes_left], below[j][~goes_left]
        stack += [left, right]
    return below


def minimal_subtree(nodes: pd.DataFrame, X: np.ndarray) -> pd.DataFrame:
    """The nodes of the minimal subtree that separates the distinct points X: a node is kept when its parent's cell
    holds two distinct points or more; a kept node holding one point or none is a leaf (left = right = -1)."""
    below = points_below(nodes, X)
    distinct = {j: len(np.unique(X[rows], axis=0)) for j, rows in below.items()}
    kept = [j for j in nodes.index if nodes.at[j, "parent"] < 0 or distinct[int(nodes.at[j, "parent"])] >= 2]
    subtree = nodes.loc[kept].copy()
    subtree["n_points"] = [len(below[j]) for j in kept]
    separated = subtree["left"] >= 0
    if (~separated & (subtree["n_points"] >= 2)).any():
        raise ValueError("the Mondrian partition does not separate the points at this lifetime; raise it")
    leaf = np.array([distinct[j] < 2 for j in kept])
    subtree.loc[leaf, ["left", "right", "feature"]] = -1
    subtree.loc[leaf, "split_time"] = np.inf
    return subtree


def run(seed: int, points: Sequence[Sequence[float]], first: int, lifetime: float) -> TrialResult:
    """Pi_t of points[:first], then after each further point, from one MP(lifetime, [0,1]^d) sample."""
    X = np.asarray(points, dtype=float)
    if X.ndim != 2 or not 1 <= first <= len(X) or np.any((X < 0) | (X > 1)):
        raise ValueError(f"need a (n, d) array of points of [0, 1]^d and 1 <= first <= n; got points of shape "
                         f"{X.shape}, first={first}")  # fmt: skip
    full = partition_table(sample_mondrian(lifetime, np.zeros(X.shape[1]), np.ones(X.shape[1]), random_state=seed))
    full = full.set_index("node", drop=False)
    ends = range(first, len(X) + 1)
    nodes = pd.concat(
        [minimal_subtree(full, X[:end]).assign(state=state) for state, end in enumerate(ends)], ignore_index=True
    )
    table = pd.DataFrame({"name": [f"x{i + 1}" for i in range(len(X))]})
    for j in range(X.shape[1]):
        table[f"x{j}"] = X[:, j]
    table["state"] = np.concatenate([np.zeros(first, int), np.arange(1, len(X) - first + 1)])
    return TrialResult(
        summary={"n_states": float(len(ends)), "n_nodes": float((nodes["state"] == len(ends) - 1).sum())},
        tables={"nodes": nodes, "points": table},
    )
