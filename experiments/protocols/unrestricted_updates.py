"""AMF's partition update on the unrestricted Mondrian partition (AMF Algorithm 2, its Figure 4).

Before the t-th point, AMF keeps Pi_t, the minimal subtree of one infinite Mondrian partition Pi ~ MP of [0, 1]^d
that separates the distinct points x_1, ..., x_{t-1}: the root, and the children of every kept node whose cell holds
two points or more (AMF Section 2.1). When x_t arrives in a leaf that holds a point x_s, Algorithm 2 samples splits
of that cell, following the Mondrian process, until one separates x_s from x_t: that is Pi_{t+1}, the minimal
subtree of the same Pi that separates x_1, ..., x_t. Pi is drawn once with ``mondrian.sample_mondrian`` at a
lifetime large enough for its leaves to separate the points (checked), and Pi_t read from it after each point.

With ``labels`` (regression), each state's node statistics are also computed from their definitions (AMF Table 1
and Sec. 2.2), never by the update the text's Algorithm 2 runs, so that a figure can check that update against them:
the empirical-mean forecaster of the labels the cell has seen (0 when empty, Eq. (4)), its cumulative square loss
L_v over the points of the cell in their order, each loss taken before the point is learnt, log w_v = -step L_v, and
log wbar_v = log of the sum over the prunings T of the subtree at v of 2^-||T|| prod_{leaves v' of T} w_v' (||T||:
the nodes of T that are not leaves of Pi_t, Eq. (21)), by enumerating the prunings.

Tables: ``nodes`` (the kept nodes of each state, with Pi's node indices, so that states compare node by node: the
columns of ``process.partition_table`` for cells, ``n_points`` the points the cell holds and ``state``), ``points``
(name x1, x2, ..., coordinates x0, x1, ..., the ``state`` in which the point arrived: 0 for the first ``first``
points, k for the k-th point after them; ``label`` with labels) and, with labels, ``stats`` (state, node, count,
sum_0 the label sum, log_w, log_wbar: the layout of ``lrt14_updates``'s statistics of an AMF tree).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from experiments.protocols.process import partition_table
from experiments.protocols.prunings import prunings_of
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


def definitions(nodes: pd.DataFrame, X: np.ndarray, y: np.ndarray, step: float) -> pd.DataFrame:
    """Each node's statistics from their definitions (Table 1, Sec. 2.2, Eq. (21)) after the points X (in order)
    with labels y: count, label sum, log w = -step x the cumulative square loss of the cell's empirical mean, each
    point's loss taken before it is learnt, and log wbar by enumerating the prunings of the node's subtree."""
    below = points_below(nodes, X)
    rows = {}
    for j, held in below.items():
        loss, total = 0.0, 0.0
        for k, i in enumerate(sorted(held)):
            forecast = total / k if k else 0.0
            loss += (forecast - y[i]) ** 2
            total += y[i]
        rows[j] = {"count": float(len(held)), "sum_0": total, "log_w": 0.0 - step * loss}  # 0.0, not -0.0, if empty
    size = int(nodes.index.max()) + 1
    left, right = np.full(size, -1), np.full(size, -1)
    left[nodes.index], right[nodes.index] = nodes["left"], nodes["right"]
    leaves = set(nodes.index[nodes["left"] < 0])
    for j in nodes.index:
        terms = [
            sum(rows[v]["log_w"] for v in kept if left[v] not in kept) - np.log(2) * len(kept - leaves)
            for kept in prunings_of(left, right, int(j))
        ]
        rows[j]["log_wbar"] = float(logsumexp(terms))
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("node").reset_index()
    return table.sort_values("node", ignore_index=True)


def run(
    seed: int,
    points: Sequence[Sequence[float]],
    first: int,
    lifetime: float,
    labels: Sequence[float] | None = None,
    step: float = 1.0,
) -> TrialResult:
    """Pi_t of points[:first], then after each further point, from one MP(lifetime, [0,1]^d) sample; with labels,
    every state's node statistics from their definitions."""
    X = np.asarray(points, dtype=float)
    if X.ndim != 2 or not 1 <= first <= len(X) or np.any((X < 0) | (X > 1)):
        raise ValueError(f"need a (n, d) array of points of [0, 1]^d and 1 <= first <= n; got points of shape "
                         f"{X.shape}, first={first}")  # fmt: skip
    y = None if labels is None else np.asarray(labels, dtype=float)
    if y is not None and y.shape != (len(X),):
        raise ValueError(f"need one label per point; got {y.shape} labels for {len(X)} points")
    full = partition_table(sample_mondrian(lifetime, np.zeros(X.shape[1]), np.ones(X.shape[1]), random_state=seed))
    full = full.set_index("node", drop=False)
    ends = range(first, len(X) + 1)
    states = [minimal_subtree(full, X[:end]) for end in ends]
    nodes = pd.concat([subtree.assign(state=state) for state, subtree in enumerate(states)], ignore_index=True)
    table = pd.DataFrame({"name": [f"x{i + 1}" for i in range(len(X))]})
    for j in range(X.shape[1]):
        table[f"x{j}"] = X[:, j]
    table["state"] = np.concatenate([np.zeros(first, int), np.arange(1, len(X) - first + 1)])
    tables = {"nodes": nodes, "points": table}
    if y is not None:
        table["label"] = y
        tables["stats"] = pd.concat(
            [definitions(subtree, X[:end], y[:end], step).assign(state=state)
             for state, (subtree, end) in enumerate(zip(states, ends, strict=True))],
            ignore_index=True,
        )  # fmt: skip
    return TrialResult(
        summary={"n_states": float(len(ends)), "n_nodes": float((nodes["state"] == len(ends) - 1).sum())},
        tables=tables,
    )
