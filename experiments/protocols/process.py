"""Simulations of the Mondrian process itself (no data, no model): the theory figures' trials.

Every partition is drawn with ``mondrian.sample_mondrian``, the library's own sampler,
so these protocols test the implementation against the exact laws of MGS20. A Monte Carlo trial draws its partitions
from a stream keyed by its seed and by the point it simulates (``point_stream``), so that the points of one figure,
run with the same seed, are independent samples (a joint test over them assumes it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.progress import progress
from experiments.protocols.result import TrialResult
from mondrian import MondrianTree, sample_mondrian


def _key(value: float) -> int:
    """A number as an entropy word: the bits of its float64 (1 and 1.0 alike)."""
    return int(np.float64(value).view(np.uint64))


def point_stream(seed: int, label: str, dim: int, lifetime: float, *point: float) -> np.random.Generator:
    """The random stream of one simulated point: keyed by the trial's seed, the protocol (``label``), the dimension,
    the lifetime and the coordinates of x, so that two points of a grid never share their draws."""
    words = [seed, *label.encode(), dim, _key(lifetime), *(_key(v) for v in point)]
    return np.random.default_rng(np.random.SeedSequence(words))


def _partitions(dim: int, lifetime: float, replicates: int, rng: np.random.Generator, label: str):
    """``replicates`` independent MP(lifetime, [0,1]^dim) samples drawn from ``rng``."""
    lower, upper = np.zeros(dim), np.ones(dim)
    for _ in progress(range(replicates), desc=label, leave=False, mininterval=2.0):
        yield sample_mondrian(lifetime, lower, upper, random_state=rng)


def leaf_count(dim: int, lifetime: float, replicates: int, seed: int) -> TrialResult:
    """Monte Carlo mean number of leaves of MP(lifetime, [0,1]^dim), beside the exact (1 + lifetime)^dim."""
    rng = point_stream(seed, "leaf_count", dim, lifetime)
    counts = np.array([t.n_leaves() for t in _partitions(dim, lifetime, replicates, rng, "leaf_count")])
    return TrialResult(
        summary={
            "mean_leaves": float(counts.mean()),
            "sd_leaves": float(counts.std(ddof=1)),
            "se_leaves": float(counts.std(ddof=1) / np.sqrt(replicates)),
            "exact_mean_leaves": float((1.0 + lifetime) ** dim),
            "replicates": float(replicates),
        },
        tables={"counts": pd.DataFrame({"n_leaves": counts})},
    )


def cell_law(
    dim: int, lifetime: float, point: list[float], others: list[list[float]], replicates: int, seed: int
) -> TrialResult:
    """The cell of MP(lifetime, [0,1]^dim) containing ``point``: distances to its sides, and same-cell events.

    Table ``sides``: per replicate, x_j - L_j and R_j - x_j for each dimension j.
    Table ``same_cell``: per other point x', how often it shares x's cell, beside exp(-lifetime ||x - x'||_1).
    """
    x = np.asarray(point, dtype=float)
    others = np.asarray(others, dtype=float).reshape(-1, dim)
    queries = np.vstack([x, others])
    left = np.empty((replicates, dim))
    right = np.empty((replicates, dim))
    same = np.zeros(len(others))
    rng = point_stream(seed, "cell_law", dim, lifetime, *x)
    for r, tree in enumerate(_partitions(dim, lifetime, replicates, rng, "cell_law")):
        leaves = tree.apply(queries)
        left[r] = x - tree.nodes.box_lower[leaves[0]]
        right[r] = tree.nodes.box_upper[leaves[0]] - x
        same += leaves[1:] == leaves[0]
    sides = pd.DataFrame(
        {**{f"left_{j}": left[:, j] for j in range(dim)}, **{f"right_{j}": right[:, j] for j in range(dim)}}
    )
    distance = np.abs(others - x).sum(axis=1)
    same_cell = pd.DataFrame(
        {
            "l1_distance": distance,
            "frequency": same / replicates,
            "replicates": replicates,
            "exact": np.exp(-lifetime * distance),
        }
    )
    return TrialResult(summary={"replicates": float(replicates)}, tables={"sides": sides, "same_cell": same_cell})


def partition_table(tree: MondrianTree) -> pd.DataFrame:
    """One row per node: structure, split and box."""
    arrays = tree.arrays()
    table = pd.DataFrame({k: v for k, v in arrays.items() if v.ndim == 1})
    for j in range(arrays["box_lower"].shape[1]):
        table[f"lower_{j}"] = arrays["box_lower"][:, j]
        table[f"upper_{j}"] = arrays["box_upper"][:, j]
    table.insert(0, "node", np.arange(len(table)))
    table["depth"] = tree.depths()
    return table


def partition(dim: int, lifetime: float, seed: int) -> TrialResult:
    """One MP(lifetime, [0,1]^dim) sample, as a node table."""
    tree = sample_mondrian(lifetime, np.zeros(dim), np.ones(dim), random_state=seed)
    return TrialResult(
        summary={"n_leaves": float(tree.n_leaves()), "n_nodes": float(tree.n_nodes)},
        tables={"nodes": partition_table(tree)},
    )
