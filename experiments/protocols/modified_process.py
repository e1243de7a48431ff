"""The modified Mondrian process of MGS20's proof of Proposition 2 (its Figure 3), against the Mondrian process.

For each coordinate j a one-dimensional Mondrian partition Pi'_j of [0, 1] with the same lifetime is drawn
(``mondrian.sample_mondrian`` in one dimension: its splits are a Poisson process of intensity lambda, each with a
split time). The modified nested partition of [0, 1]^d is then grown from the root: a node whose cell is
prod_j I_j, each I_j a node of Pi'_j, splits at the earliest split time among the I_j that are split before the
lifetime, on that coordinate and at that threshold, and its children replace I_j by its children in Pi'_j. Every
node splits at rate |C| on a coordinate chosen with probability side_j / |C| at a uniform threshold, as in the
Mondrian process, and its leaves are the product grid of the d one-dimensional partitions, whose number of cells
prod_j (1 + N_j), N_j ~ Poisson(lambda) independent, has mean (1 + lambda)^d.

Monte Carlo over ``replicates`` samples: the modified process's number of cells at each time t of ``times``
(prod_j (1 + N_j(t))) beside that of MP(lambda, [0,1]^d) drawn by the library and pruned at t, and the exact
(1 + t)^d. The split law is checked on the modified trees: events over exposure (the rate, 1 for rate |C|), the split
coordinate against side_j / |C|, and the position of each threshold in its side (uniform): per tree a sum whose
expectation is 0, its mean and standard error over the replicates (the trees of one sample share the splits of the
one-dimensional partitions, so only the replicates are independent).

Tables: ``nodes`` (the first sample's modified tree, ``process.partition_table``'s columns), ``axes`` (its
one-dimensional partitions: coordinate, threshold, split time), ``counts`` (per time: mean and standard error of
the number of cells of both processes, exact mean). Summary: the split-law checks (mean excess and its standard
error) and the number of modified trees whose leaves are not the product grid.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.progress import progress
from experiments.protocols.result import TrialResult
from mondrian import MondrianTree, sample_mondrian


def axis_partitions(dim: int, lifetime: float, rng: np.random.Generator) -> list[MondrianTree]:
    """The d independent one-dimensional Mondrian partitions Pi'_1, ..., Pi'_d of [0, 1]."""
    return [sample_mondrian(lifetime, [0.0], [1.0], random_state=rng) for _ in range(dim)]


def modified_tree(axes: list[MondrianTree]) -> pd.DataFrame:
    """The modified nested partition built from the one-dimensional partitions ``axes``: one row per node (node,
    parent, left, right, feature, threshold, split_time, birth, lower_j, upper_j, depth), node 0 the root."""
    arrays = [a.arrays() for a in axes]
    dim = len(axes)
    rows: list[dict] = []
    stack = [(-1, 0.0, tuple(a.root for a in axes), 0)]
    while stack:
        parent, birth, current, depth = stack.pop()
        node = len(rows)
        times = [arrays[j]["split_time"][current[j]] for j in range(dim)]
        row = {"node": node, "parent": parent, "left": -1, "right": -1, "feature": -1, "threshold": 0.0}
        row |= {"split_time": np.inf, "birth": birth, "depth": depth}
        for j in range(dim):
            row[f"lower_{j}"] = arrays[j]["box_lower"][current[j], 0]
            row[f"upper_{j}"] = arrays[j]["box_upper"][current[j], 0]
        rows.append(row)
        if parent >= 0:
            rows[parent]["left" if rows[parent]["left"] < 0 else "right"] = node
        j = int(np.argmin(times))
        if not np.isfinite(times[j]):
            continue
        row.update(feature=j, threshold=float(arrays[j]["threshold"][current[j]]), split_time=float(times[j]))
        for side in ("right", "left"):  # the left child is visited first, so it gets the smaller index
            child = list(current)
            child[j] = int(arrays[j][side][current[j]])
            stack.append((node, float(times[j]), tuple(child), depth + 1))
    return pd.DataFrame(rows)


def cells_at(axes: list[MondrianTree], times: np.ndarray) -> np.ndarray:
    """The number of cells of the product grid at each time: prod_j (1 + number of splits of Pi'_j before t)."""
    count = np.ones(len(times))
    for axis in axes:
        split = axis.arrays()["split_time"]
        count *= 1 + np.sum(split[None, :] <= times[:, None], axis=1)
    return count


def box(tree: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The cells' lower and upper corners, two (n_nodes, d) arrays."""
    dim = int(tree.columns.str.startswith("lower_").sum())
    return (
        np.column_stack([tree[f"lower_{j}"] for j in range(dim)]),
        np.column_stack([tree[f"upper_{j}"] for j in range(dim)]),
    )


def split_law(tree: pd.DataFrame, lifetime: float) -> np.ndarray:
    """Three sums over one tree's nodes whose expectation is 0 when every node splits as in the Mondrian process:
    splits minus exposure (sum of |C| (min(split time, lifetime) - birth): the rate is |C|), splits on coordinate 0
    minus sum side_0 / |C| over the splits (the coordinate's law), and sum over splits of (position - 1/2), the
    position of the threshold in its side (uniform)."""
    lower, upper = box(tree)
    sides = upper - lower
    linear = sides.sum(axis=1)
    internal = np.flatnonzero(tree["left"].to_numpy() >= 0)
    end = np.minimum(tree["split_time"].to_numpy(), lifetime)
    f = tree["feature"].to_numpy()[internal]
    position = (tree["threshold"].to_numpy()[internal] - lower[internal, f]) / sides[internal, f]
    return np.array(
        [
            len(internal) - np.sum(linear * (end - tree["birth"].to_numpy())),
            np.sum(f == 0) - np.sum(sides[internal, 0] / linear[internal]),
            np.sum(position - 0.5),
        ]
    )


def axis_table(axes: list[MondrianTree]) -> pd.DataFrame:
    """The splits of each one-dimensional partition: coordinate, threshold, split time."""
    frames = []
    for j, axis in enumerate(axes):
        arrays = axis.arrays()
        split = arrays["left"] >= 0
        frames.append(pd.DataFrame({"coordinate": j, "threshold": arrays["threshold"][split],
                                    "split_time": arrays["split_time"][split]}))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


LAW_CHECKS = ("rate", "coordinate", "position")


def run(dim: int, lifetime: float, replicates: int, n_times: int, seed: int) -> TrialResult:
    """``replicates`` samples of the modified process and of MP(lifetime, [0,1]^dim); the first one kept whole."""
    if dim < 1 or not 0 < lifetime < np.inf or replicates < 2 or n_times < 1:
        raise ValueError(f"need dim >= 1, a finite positive lifetime, replicates >= 2, n_times >= 1; got {dim}, "
                         f"{lifetime}, {replicates}, {n_times}")  # fmt: skip
    rng = np.random.default_rng(seed)
    times = np.linspace(0.0, lifetime, n_times + 1)[1:]
    modified = np.empty((replicates, n_times))
    mondrian = np.empty((replicates, n_times))
    law = np.empty((replicates, len(LAW_CHECKS)))
    not_grid = 0
    for r in progress(range(replicates), desc="modified_process", leave=False, mininterval=2.0):
        axes = axis_partitions(dim, lifetime, rng)
        tree = modified_tree(axes)
        modified[r] = cells_at(axes, times)
        not_grid += int((tree["left"] < 0).sum()) != modified[r, -1]
        law[r] = split_law(tree, lifetime)
        if r == 0:
            first, first_axes = tree, axis_table(axes)
        sample = sample_mondrian(lifetime, np.zeros(dim), np.ones(dim), random_state=rng)
        mondrian[r] = [sample.n_leaves(t) for t in times]
    counts = pd.DataFrame(
        {
            "time": times,
            "modified_mean": modified.mean(0),
            "modified_se": modified.std(0, ddof=1) / np.sqrt(replicates),
            "mondrian_mean": mondrian.mean(0),
            "mondrian_se": mondrian.std(0, ddof=1) / np.sqrt(replicates),
            "exact": (1 + times) ** dim,
        }
    )
    summary = {"replicates": float(replicates), "not_grid": float(not_grid)}
    for k, name in enumerate(LAW_CHECKS):
        summary[f"{name}_excess"] = float(law[:, k].mean())
        summary[f"{name}_excess_se"] = float(law[:, k].std(ddof=1) / np.sqrt(replicates))
    return TrialResult(summary=summary, tables={"nodes": first, "axes": first_axes, "counts": counts})
