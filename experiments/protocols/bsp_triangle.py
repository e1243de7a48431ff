"""BSP's one-dimensional case of the line-slice lemma (its Figure 7): BSP trees in an obtuse triangle that flattens
onto its longest side.

The triangle has vertices A = (0, 0), B = (L, 0) and C = (L1, eps): its perimeter PE = L + sqrt(L1^2 + eps^2) +
sqrt(L2^2 + eps^2), L2 = L - L1, tends to 2L as eps -> 0, so the cost of its first cut, Exp(rate_scale PE), tends to
Exp(rate_scale 2L), the rate of a segment of length L; the number of cuts met by the segment AB is then Poisson with
mean rate_scale tau 2L and their positions are uniform on it (the lemma's proof, with rate_scale = 1). For each eps of
``epsilons`` (0: the segment itself, one feature, which the library places on a line of the plane) one forest of
``n_trees`` online BSP trees with a fixed budget learns ``n_points`` uniform points of the triangle and its three
vertices (so that its hull is the triangle); per tree the cut times of its root (the first cut's cost) and where
its cuts meet AB (``cuts_on_segment``).

Tables: ``counts`` (eps, tree, crossings, root_cost: inf when the root is not cut), ``positions`` (eps, s in
[0, 1] along AB), ``triangles`` (eps, perimeter) and, for the tree of ``drawn_epsilon`` whose number of crossings
is nearest the Poisson mean, ``nodes`` and ``hulls`` (``bsp_illustrations.tree_tables``) and ``points``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.protocols.bsp_illustrations import tree_tables
from experiments.protocols.result import TrialResult
from mondrian import OnlineBSPForestRegressor

LAW = "law"  # the process's law at a budget (bsp_illustrations: the text's leaf rule does not keep it)


def triangle_points(n: int, epsilon: float, apex: float, length: float, rng: np.random.Generator) -> np.ndarray:
    """The vertices A, B, C of the triangle and n uniform points inside it; for eps = 0, n uniform points of
    [0, length] and its ends, as one feature."""
    if epsilon == 0:
        return np.concatenate([[0.0, length], rng.uniform(0, length, n)])[:, None]
    a, b, c = np.array([0.0, 0.0]), np.array([length, 0.0]), np.array([apex, epsilon])
    u, v = rng.uniform(size=(2, n))
    flip = u + v > 1
    u[flip], v[flip] = 1 - u[flip], 1 - v[flip]
    return np.vstack([a, b, c, a + np.outer(u, b - a) + np.outer(v, c - a)])


def perimeter(epsilon: float, apex: float, length: float) -> float:
    """PE = L1 + L2 + sqrt(L1^2 + eps^2) + sqrt(L2^2 + eps^2) (2 L for the segment, eps = 0)."""
    return length + np.hypot(apex, epsilon) + np.hypot(length - apex, epsilon)


def root_cost(tree) -> float:
    """The cost (split time) of the root's cut, inf when the budget leaves the root uncut."""
    nodes = tree.nodes
    root = int(nodes.root[0])
    return float(nodes.split_time[root]) if nodes.left[root] >= 0 else np.inf


def run(
    seed: int,
    epsilons: list[float],
    budget: float = 3.0,
    rate_scale: float = 1.0,
    length: float = 1.0,
    apex: float = 0.3,
    n_points: int = 2000,
    n_trees: int = 1000,
    drawn_epsilon: float | None = None,
) -> TrialResult:
    """One forest per eps; the crossings of AB and the first cut's cost of each tree."""
    if not 0 < apex < length or min(epsilons) < 0 or n_points < 4 or n_trees < 2:
        raise ValueError(f"need 0 < apex < length, epsilons >= 0, n_points >= 4, n_trees >= 2; got apex {apex}, "
                         f"length {length}, epsilons {epsilons}, {n_points} points, {n_trees} trees")  # fmt: skip
    rng = np.random.default_rng(seed)
    drawn_epsilon = max(epsilons) if drawn_epsilon is None else drawn_epsilon
    a, b = np.zeros(2), np.array([length, 0.0])
    counts, positions, drawn = [], [], {}
    for epsilon in epsilons:
        X = triangle_points(n_points, epsilon, apex, length, rng)
        forest = OnlineBSPForestRegressor(n_trees, budget=budget, rate_scale=rate_scale, leaf_sampling=LAW,
                                          random_state=int(rng.integers(2**31)), n_jobs=2)  # fmt: skip
        forest.fit(X, np.zeros(len(X)))
        cuts = [tree.cuts_on_segment(a, b, forest.pairs_) for tree in forest.trees_]
        crossings = np.array([len(c) for c in cuts])
        counts.append(pd.DataFrame({"epsilon": epsilon, "tree": np.arange(n_trees), "crossings": crossings,
                                    "root_cost": [root_cost(t) for t in forest.trees_]}))  # fmt: skip
        positions.append(pd.DataFrame({"epsilon": epsilon, "s": np.concatenate(cuts)}))
        if epsilon == drawn_epsilon:
            shown = int(np.argmin(np.abs(crossings - 2 * rate_scale * budget * length)))
            nodes, hulls = tree_tables(forest, shown)
            drawn = {"nodes": nodes, "hulls": hulls[hulls["pair"] == 0],
                     "points": pd.DataFrame({"x": X[:, 0], "y": X[:, 1] if X.shape[1] > 1 else 0.0}),
                     "drawn_crossings": pd.DataFrame({"s": cuts[shown]})}  # fmt: skip
    triangles = pd.DataFrame({"epsilon": epsilons, "perimeter": [perimeter(e, apex, length) for e in epsilons]})
    return TrialResult(
        summary={"poisson_mean": 2 * rate_scale * budget * length, "n_trees": float(n_trees)},
        tables={
            "counts": pd.concat(counts, ignore_index=True),
            "positions": pd.concat(positions, ignore_index=True),
            "triangles": triangles,
            **drawn,
        },
    )
