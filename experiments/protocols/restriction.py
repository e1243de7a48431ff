"""Unrestricted vs restricted Mondrian partitions of a few points (AMF Fig. 5, Section 4.1).

The unrestricted partition is the Mondrian process on the unit box with lifetime inf, a cell being split (by the
library's SplitCell kernel) only while it holds two points or more: cells with one point or none stay leaves. The
restricted partition is the same sample with every split that leaves one side empty removed: its node keeps only
the non-empty side, and each node's box becomes the range of its points (LRT14's restriction to the data, the
tree AMF grows online). Its leaves hold exactly one point each.

Tables: ``unrestricted`` and ``restricted`` (node tables as ``process.partition_table``: structure, split, split
time, box; plus ``n_points``; the restricted one also ``origin``, the unrestricted node it comes from) and
``points`` (x0, x1, ...).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.protocols.result import TrialResult
from mondrian.tree import sample_split


def _table(rows: list[dict], dim: int) -> pd.DataFrame:
    table = pd.DataFrame(rows)
    for j in range(dim):
        table[f"lower_{j}"] = [r["lower"][j] for r in rows]
        table[f"upper_{j}"] = [r["upper"][j] for r in rows]
    return table.drop(columns=["lower", "upper", "members"])


def _node(parent: int, lower, upper, members: np.ndarray) -> dict:
    return {
        "parent": parent,
        "left": -1,
        "right": -1,
        "feature": -1,
        "threshold": 0.0,
        "split_time": np.inf,
        "lower": np.array(lower, dtype=float),
        "upper": np.array(upper, dtype=float),
        "members": members,
        "n_points": len(members),
    }


def unrestricted(points: np.ndarray, rng: np.random.Generator) -> list[dict]:
    """MP(inf, [0,1]^d) split until every cell holds at most one point; node 0 is the root."""
    dim = points.shape[1]
    nodes = [_node(-1, np.zeros(dim), np.ones(dim), np.arange(len(points)))]
    stack = [0]
    while stack:
        j = stack.pop()
        node = nodes[j]
        if node["n_points"] < 2:
            continue
        start = nodes[node["parent"]]["split_time"] if node["parent"] >= 0 else 0.0
        time, f, threshold = sample_split(node["lower"], node["upper"], start, np.inf, rng)
        members = node["members"]
        goes_left = points[members, f] <= threshold
        for side, part in (("left", members[goes_left]), ("right", members[~goes_left])):
            lower, upper = node["lower"].copy(), node["upper"].copy()
            (upper if side == "left" else lower)[f] = threshold
            node[side] = len(nodes)
            nodes.append(_node(j, lower, upper, part))
            stack.append(node[side])
        node.update(feature=int(f), threshold=float(threshold), split_time=float(time))
    for j, node in enumerate(nodes):
        node["node"] = j
    return nodes


def restricted(full: list[dict], points: np.ndarray) -> list[dict]:
    """The restriction of ``full`` to its points: splits with an empty side removed, boxes shrunk to the ranges."""
    nodes: list[dict] = []

    def visit(j: int, parent: int) -> int:
        node = full[j]
        if node["left"] >= 0:
            sides = [full[node["left"]], full[node["right"]]]
            if min(s["n_points"] for s in sides) == 0:  # a split that makes an empty leaf: skip it
                return visit(max(sides, key=lambda s: s["n_points"])["node"], parent)
        members = node["members"]
        k = len(nodes)
        nodes.append(_node(parent, points[members].min(0), points[members].max(0), members))
        nodes[k].update(node=k, origin=j)
        if node["left"] >= 0:
            nodes[k].update(feature=node["feature"], threshold=node["threshold"], split_time=node["split_time"])
            nodes[k]["left"] = visit(node["left"], k)
            nodes[k]["right"] = visit(node["right"], k)
        return k

    visit(0, -1)
    return nodes


def run(seed: int, n_points: int = 10, dim: int = 2) -> TrialResult:
    """``n_points`` uniform points of [0,1]^dim, their unrestricted Mondrian partition and its restriction."""
    if n_points < 2:
        raise ValueError(f"n_points must be at least 2, got {n_points}")
    rng = np.random.default_rng(seed)
    points = rng.uniform(size=(n_points, dim))
    full = unrestricted(points, rng)
    small = restricted(full, points)
    box = [f"{side}_{j}" for j in range(dim) for side in ("lower", "upper")]
    columns = ["node", "parent", "left", "right", "feature", "threshold", "split_time", "n_points", *box]
    full_table = _table(full, dim)[columns]
    return TrialResult(
        summary={
            "n_points": float(n_points),
            "unrestricted_leaves": float((full_table["left"] < 0).sum()),
            "restricted_leaves": float(sum(n["left"] < 0 for n in small)),
        },
        tables={
            "unrestricted": full_table,
            "restricted": _table(small, dim)[[*full_table.columns, "origin"]],
            "points": pd.DataFrame({f"x{j}": points[:, j] for j in range(dim)}),
        },
    )
