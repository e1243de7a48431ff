"""A one-tree online Mondrian forest grown on a few named points, first in one batch, then one point at a time
(LRT14's illustrations, Figures 1 and 2).

The first ``first`` points are learnt in one call: the empty tree samples its block from them at once
(SampleMondrianBlock). Every further point is learnt in a call of its own, which extends the tree to it
(ExtendMondrianBlock). After each call the tree is kept as a node table (``process.partition_table``) tagged with
its ``state``: 0 after the batch, k after the k-th point added online. Node indices are stable across states (an
update only appends nodes), so consecutive states can be compared node by node.

Tables: ``nodes`` (every state's node table, column ``state``) and ``points`` (``name`` a, b, c, ..., coordinates
``x0``, ``x1``, ..., ``label`` and the ``state`` in which the point arrived); for an AMF model (AMF's Fig. 6), also
``stats``: every state's node statistics as the model keeps them (``AMFClassifier.trees_``), one row per node
(``state``, ``node``, ``count``, ``sum_0`` ... ``sum_{m-1}`` the label sum or the class counts, ``log_w``,
``log_wbar``), so that the update of the weights along the new point's path can be checked.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from sklearn.base import is_classifier

from experiments.protocols.process import partition_table
from experiments.protocols.result import TrialResult
from mondrian import AMFClassifier, AMFRegressor


def node_statistics(tree) -> pd.DataFrame:
    """An AMF tree's node statistics in use, by name: count, the m sums, log w, log wbar (double precision)."""
    stats = tree.stats[: tree.n_nodes].astype(float)
    m = stats.shape[1] - 3
    columns = ["count", *(f"sum_{k}" for k in range(m)), "log_w", "log_wbar"]
    table = pd.DataFrame(stats, columns=columns)
    table.insert(0, "node", np.arange(tree.n_nodes))
    return table


def run(
    model: Callable, seed: int, points: Sequence[Sequence[float]], labels: Sequence[int], first: int
) -> TrialResult:
    """Learn points[:first] in one call, then each further point in a call of its own; the tree after each call."""
    X = np.asarray(points, dtype=float)
    y = np.asarray(labels)
    if X.ndim != 2 or len(y) != len(X) or not 1 <= first <= len(X) or len(X) > len(string.ascii_lowercase):
        raise ValueError(
            f"need a (n, d) array of at most 26 points, n labels and 1 <= first <= n; got points of shape "
            f"{X.shape}, {len(y)} labels, first={first}"
        )
    estimator = model()
    extra = {"classes": np.unique(y)} if is_classifier(estimator) else {}
    batches = [slice(0, first), *(slice(i, i + 1) for i in range(first, len(X)))]
    tables, stats = [], []
    for state, rows in enumerate(batches):
        estimator.partial_fit(X[rows], y[rows], **(extra if state == 0 else {}))
        if len(estimator.trees_) != 1:
            raise ValueError(f"the lrt14_updates protocol reads one tree; the model has {len(estimator.trees_)}")
        tables.append(partition_table(estimator.trees_[0]).assign(state=state))
        if isinstance(estimator, AMFClassifier | AMFRegressor):
            stats.append(node_statistics(estimator.trees_[0]).assign(state=state))
    nodes = pd.concat(tables, ignore_index=True)
    arrival = np.concatenate([np.zeros(first, int), np.arange(1, len(X) - first + 1)])
    table = pd.DataFrame({"name": list(string.ascii_lowercase[: len(X)])})
    for j in range(X.shape[1]):
        table[f"x{j}"] = X[:, j]
    table["label"] = y
    table["state"] = arrival
    return TrialResult(
        summary={"n_states": float(len(batches)), "n_nodes": float(len(tables[-1]))},
        tables={"nodes": nodes, "points": table} | ({"stats": pd.concat(stats, ignore_index=True)} if stats else {}),
    )
