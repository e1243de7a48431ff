"""BSP Sec. 3 (after Algorithm 5, resting on Theorem 1): "the distribution of an online BSP-Tree trained (using the
cBSP) on sequentially arriving data, is the same as that of a BSP-Tree ... directly trained on the full dataset.
Different shuffling arrangement on the datapoints would not affect the partition result."

One draw of ``n_points`` uniform points of [0, 1]^2 (the trial's seed); per cell ``n_trees`` trees, each summarised
by its number of leaves and the time of its root's cut (inf when the budget leaves the root uncut):

- ``batch``: an implementation of the process on the full data written here from the paper's Algorithm 5 (HullCut),
  independent of the library: a block of more than 3 points is cut after Exp(rate_scale x the perimeter of its
  points' convex hull) if before the budget, along a direction theta of [0, pi) drawn with density proportional to
  the hull's width in that direction, at a position uniform on the hull's projection range; each side keeps its
  points (and their hull);
- the library's ``OnlineBSPForestRegressor`` learning the points one at a time (Algorithm 4) under each leaf rule
  of ``rules`` (``law``: a leaf sampled on from its budget; ``text``: cut again from scratch, as printed), in two
  orders: ``shuffled`` (a random permutation) and ``sorted`` along x1 + 0.5 x2 (most points then arrive outside the
  hull of those before them).

With a fixed ``budget`` (the sentence's setting) the law rule should match the batch cells in both orders. With
``increasing=True`` the same cells under the paper's increasing budget tau_n = budget_scale n^(1/4) against the
batch process at tau_N: Algorithm 4 samples only the leaves on the new point's path, so that other leaves lag
behind tau_n, and the order may matter (a measured finding, not the sentence's setting).

Table ``trees``: budget ("fixed" or "increasing"), rule ("batch", "law", "text"), order ("-" for batch, "shuffled",
"sorted"), tree, leaves, root_time.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.spatial import ConvexHull

from experiments.protocols.result import TrialResult
from mondrian import OnlineBSPForestRegressor

MAX_UNCUT = 3  # the paper: a block is cut only if it contains more than 3 datapoints (Algorithm 4, lines 2-3)
ORDERS = ("shuffled", "sorted")


def _direction(hull: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(cos theta, sin theta), theta in [0, pi) drawn with density proportional to the hull's width along it (by
    rejection under the hull's diameter, which bounds every width)."""
    bound = max(np.linalg.norm(hull - v, axis=1).max() for v in hull)
    while True:
        theta = rng.uniform(0.0, np.pi)
        direction = np.array([np.cos(theta), np.sin(theta)])
        if rng.uniform(0.0, bound) < np.ptp(hull @ direction):
            return direction


def batch_tree(X: np.ndarray, budget: float, rate_scale: float, rng: np.random.Generator) -> tuple[int, float]:
    """One tree of the process on all of X at once (Algorithm 5 from the root): (its leaves, its root's cut time)."""
    leaves, root_time = 0, np.inf
    blocks = [(np.arange(len(X)), 0.0)]
    while blocks:
        rows, start = blocks.pop()
        if len(rows) <= MAX_UNCUT:
            leaves += 1
            continue
        hull = X[rows][ConvexHull(X[rows]).vertices]
        perimeter = np.linalg.norm(np.roll(hull, -1, axis=0) - hull, axis=1).sum()
        time = start + rng.exponential(1.0 / (rate_scale * perimeter))
        if not time < budget:
            leaves += 1
            continue
        if start == 0.0:
            root_time = time
        along = X[rows] @ _direction(hull, rng)
        left = along <= rng.uniform(along.min(), along.max())
        blocks += [(rows[left], time), (rows[~left], time)]
    return leaves, root_time


def online_trees(X: np.ndarray, order: np.ndarray, rule: str, budget, budget_scale: float, rate_scale: float,
                 n_trees: int, seed: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The library's online trees learning X in ``order``, one point at a time: (leaves, root cut times)."""
    forest = OnlineBSPForestRegressor(n_trees, budget=budget, budget_scale=budget_scale, rate_scale=rate_scale,
                                      leaf_sampling=rule, random_state=seed, n_jobs=1)  # fmt: skip
    forest.partial_fit(X[order], np.zeros(len(X)))
    roots = []
    for tree in forest.trees_:
        nodes, root = tree.nodes, int(tree.nodes.root[0])
        roots.append(float(nodes.split_time[root]) if nodes.left[root] >= 0 else np.inf)
    return np.array([tree.n_leaves for tree in forest.trees_]), np.array(roots)


def run(
    seed: int,
    n_points: int = 1000,
    budget: float = 5.0,
    rate_scale: float = 0.5,
    n_trees: int = 1000,
    rules: tuple = ("law", "text"),
    increasing: bool = True,
    budget_scale: float = 1.0,
) -> TrialResult:
    if n_points <= MAX_UNCUT or n_trees < 2 or budget <= 0:
        raise ValueError(f"need n_points > {MAX_UNCUT}, n_trees >= 2 and a positive budget; got {n_points} points, "
                         f"{n_trees} trees, budget {budget}")  # fmt: skip
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n_points, 2))
    orders = {"shuffled": rng.permutation(n_points), "sorted": np.argsort(X[:, 0] + 0.5 * X[:, 1], kind="stable")}
    tau_n = budget_scale * n_points ** (1 / 4)  # the paper's tau_n = k n^(1/(d+2)) at d = 2
    settings = [("fixed", budget, budget)] + ([("increasing", "increasing", tau_n)] if increasing else [])
    frames = []
    for name, online_budget, batch_budget in settings:
        cells = [("batch", "-", np.array([batch_tree(X, batch_budget, rate_scale, rng) for _ in range(n_trees)]).T)]
        for rule in rules:
            for order in ORDERS:
                found = online_trees(X, orders[order], rule, online_budget, budget_scale, rate_scale, n_trees,
                                     int(rng.integers(2**31)))  # fmt: skip
                cells.append((rule, order, found))
        for rule, order, (leaves, roots) in cells:
            frames.append(pd.DataFrame({"budget": name, "rule": rule, "order": order, "tree": np.arange(n_trees),
                                        "leaves": leaves, "root_time": roots}))  # fmt: skip
    summary = {"n_points": float(n_points), "budget": budget, "tau_n": tau_n, "n_trees": float(n_trees)}
    return TrialResult(summary=summary, tables={"trees": pd.concat(frames, ignore_index=True)})
