"""Every pruning of a small AMF tree, with its prior, aggregation weight and prediction at a query (AMF Fig. 3).

A one-tree AMF regressor learns ``n_points`` uniform points of the unit square online (labels uniform on [0, 1],
rounded to 2 decimals so that the figure can print them). Its prunings (subtrees with the same root whose every
node has both children or none) are enumerated from the tree's arrays. A pruning T has prior 2^-||T||, ||T|| the
number of its nodes that are not leaves of the full tree (Eq. (21)); its aggregation weight is proportional to
prior x prod over its leaves v of w_v = exp(-step L_v) (Eq. (25)); it predicts at x the mean label of its leaf that
holds x (x routed by the splits). The weighted mean of these predictions is the tree's aggregated prediction.

Tables: ``nodes`` (``process.partition_table`` plus the node statistics: count, label sum, log w, log wbar),
``points`` (x0, x1, y, t) and ``prunings`` (one row each: its nodes, size, ||T||, prior, log weight, normalised
weight, the leaf holding the query and its prediction). Summary: the enumerated aggregate, the library's
prediction at the query, log wbar of the root and the log of the summed weights.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from experiments.protocols.decision import members
from experiments.protocols.process import partition_table
from experiments.protocols.result import TrialResult


def prunings_of(left: np.ndarray, right: np.ndarray, node: int) -> list[frozenset[int]]:
    """The node sets of all prunings of the subtree rooted at ``node``: the node alone, or the node with a pruning
    of each child."""
    alone = [frozenset([node])]
    if left[node] < 0:
        return alone
    below_left, below_right = prunings_of(left, right, left[node]), prunings_of(left, right, right[node])
    return alone + [frozenset([node]) | a | b for a in below_left for b in below_right]


def _leaf_holding(x: np.ndarray, kept: frozenset[int], nodes: pd.DataFrame, root: int) -> int:
    """The leaf of the pruning ``kept`` whose cell holds x: go down the splits while both children are kept."""
    j = root
    while nodes.at[j, "left"] >= 0 and nodes.at[j, "left"] in kept:
        j = nodes.at[j, "left"] if x[nodes.at[j, "feature"]] <= nodes.at[j, "threshold"] else nodes.at[j, "right"]
    return int(j)


def run(model: Callable, seed: int, n_points: int = 4, query: Sequence[float] = (0.6, 0.45)) -> TrialResult:
    """Grow a one-tree AMF regressor on ``n_points`` points, then weigh and evaluate each of its prunings."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n_points, 2))
    y = np.round(rng.uniform(size=n_points), 2)
    estimator = model()
    estimator.partial_fit(X, y)
    if len(estimator.trees_) != 1:
        raise ValueError(f"the prunings protocol reads one tree; the model has {len(estimator.trees_)}")
    tree = estimator.trees_[0]
    nodes = partition_table(tree)
    stats = tree.stats[: tree.n_nodes]
    for name, column in (("count", 0), ("label_sum", 1), ("log_w", -2), ("log_wbar", -1)):
        nodes[name] = stats[:, column]
    full_leaves = set(nodes.index[nodes["left"] < 0])
    x = np.asarray(query, dtype=float)
    mean_label = np.where(nodes["count"] > 0, nodes["label_sum"] / nodes["count"].where(nodes["count"] > 0, 1), 0.0)
    rows = []
    for kept in prunings_of(nodes["left"].to_numpy(), nodes["right"].to_numpy(), tree.root):
        leaves = [j for j in kept if nodes.at[j, "left"] not in kept]
        norm = sum(j not in full_leaves for j in kept)
        leaf = _leaf_holding(x, kept, nodes, tree.root)
        rows.append(
            {
                "nodes": " ".join(map(str, sorted(kept))),
                "size": len(kept),
                "norm": norm,
                "prior": 2.0**-norm,
                "log_weight": -norm * np.log(2) + nodes.loc[leaves, "log_w"].sum(),
                "query_leaf": leaf,
                "prediction": float(mean_label[leaf]),
            }
        )
    prunings = pd.DataFrame(rows).sort_values(["size", "nodes"], ascending=[False, True], ignore_index=True)
    prunings.insert(0, "pruning", np.arange(len(prunings)))
    prunings["weight"] = np.exp(prunings["log_weight"] - logsumexp(prunings["log_weight"]))
    points = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "y": y, "t": np.arange(1, n_points + 1)})
    return TrialResult(
        summary={
            "n_prunings": float(len(prunings)),
            "aggregated_prediction": float((prunings["weight"] * prunings["prediction"]).sum()),
            "library_prediction": float(members(estimator)[0].predict(x[None])[0]),
            "log_wbar_root": float(nodes.at[tree.root, "log_wbar"]),
            "log_sum_weights": float(logsumexp(prunings["log_weight"])),
        },
        tables={"nodes": nodes, "points": points, "prunings": prunings},
    )
