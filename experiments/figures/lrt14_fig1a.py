"""lrt14-fig1a: a decision tree and its partition of the unit square (LRT14, Figure 1(a)).

The tree is the one-tree LRT14 classifier of lrt14-fig1 (the ``lrt14_updates`` protocol, one batch), read as a plain
decision tree (LRT14 Section 3): left, its structure, each internal node with its rule x_d > xi and each leaf with
the points it holds; right, the blocks B_j of its nodes, B_root the unit square and B_left(j) = {x in B_j : x_d <= xi},
B_right(j) the rest, each split drawn across its whole block. The root's left block is shaded, with B^x_j, the
smallest rectangle enclosing its points, dashed inside it (the paper's caption).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.partitions import boxes, cells, members, path_of, root_of, split_segment, tiling, tree_layout

MARKERS = ("o", "s")
COLOURS = ("#d62728", "#1f77b4")
UNIT = (np.zeros(2), np.ones(2))


def batch_tree(run) -> pd.DataFrame:
    """The node table of the tree after its one batch (state 0), one row per node in node order."""
    nodes = run.tables["nodes"]
    return nodes[nodes["state"] == 0].drop(columns="state").sort_values("node").reset_index(drop=True)


def points_of(run) -> tuple[np.ndarray, np.ndarray]:
    """The points' coordinates (n, 2) and labels."""
    points = run.tables["points"]
    return points[["x0", "x1"]].to_numpy(), points["label"].to_numpy()


def blocks_holding(lower: np.ndarray, upper: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The rows of the blocks (lower, upper] (closed at 0, the square's edge) that hold x."""
    above = (x > lower) | (lower == 0)
    return np.flatnonzero(np.all(above & (x <= upper), axis=1))


def range_outside_block(nodes: pd.DataFrame) -> int:
    """Nodes whose range B^x_j (the library's box of their points) is not inside their block B_j."""
    lower, upper = boxes(nodes)
    cell_lower, cell_upper = cells(nodes, *UNIT)
    return int(np.sum(np.any((lower < cell_lower) | (upper > cell_upper), axis=1)))


def misplaced_points(nodes: pd.DataFrame, X: np.ndarray) -> int:
    """Points not in exactly one leaf block, or outside the range of the leaf whose block holds them."""
    leaves = nodes[nodes["left"] < 0]
    cell_lower, cell_upper = cells(nodes, *UNIT)
    lower, upper = boxes(nodes)
    bad = 0
    for x in X:
        held = blocks_holding(cell_lower[leaves.index], cell_upper[leaves.index], x)
        j = int(leaves.index[held[0]]) if len(held) == 1 else -1
        bad += j < 0 or j != path_of(nodes, x)[-1] or not np.all((lower[j] <= x) & (x <= upper[j]))
    return bad


def root_left_block(nodes: pd.DataFrame, X: np.ndarray, labels: np.ndarray) -> tuple[bool, str]:
    """Is the root's left block (0, xi] x (0, 1] on x1, holding one class only, its range the smallest rectangle
    enclosing those points? (the caption's B_j and B^x_j); with what was measured."""
    root = root_of(nodes)
    if nodes.at[root, "left"] < 0:
        return False, "the tree has no split"
    j, xi = int(nodes.at[root, "left"]), float(nodes.at[root, "threshold"])
    cell_lower, cell_upper = cells(nodes, *UNIT)
    lower, upper = boxes(nodes)
    mine = X[:, 0] <= xi
    one_class = len(np.unique(labels[mine])) == 1 and mine.any()
    smallest = mine.any() and np.allclose(lower[j], X[mine].min(0)) and np.allclose(upper[j], X[mine].max(0))
    on_x1 = int(nodes.at[root, "feature"]) == 0 and np.allclose([cell_lower[j], cell_upper[j]], [[0, 0], [xi, 1]])
    text = (
        f"root split x{int(nodes.at[root, 'feature']) + 1} > {xi:.2f}: B_j = (0, {xi:.2f}] x (0, 1] holds "
        f"{int(mine.sum())} points of class(es) {sorted(set(labels[mine].tolist()))}, B^x_j = "
        f"[{lower[j, 0]:.2f}, {upper[j, 0]:.2f}] x [{lower[j, 1]:.2f}, {upper[j, 1]:.2f}]"
    )
    return bool(on_x1 and one_class and smallest), text


def rule(n: pd.Series) -> str:
    return f"$x_{int(n['feature']) + 1} > {n['threshold']:.2f}$"


def draw_structure(ax, nodes: pd.DataFrame, X: np.ndarray, labels: np.ndarray) -> None:
    """The tree top-down by depth: rules at internal nodes, each leaf with its points' markers."""
    x, leaves = tree_layout(nodes)
    depth = nodes["depth"]
    for j, n in nodes[nodes["parent"] >= 0].iterrows():
        p = int(n["parent"])
        ax.plot([x[p], x[j]], [-depth[p], -depth[j]], color="0.4", lw=1.2, zorder=1)
        side = "no" if j == nodes.at[p, "left"] else "yes"
        ax.annotate(side, ((x[p] + x[j]) / 2, -(depth[p] + depth[j]) / 2), fontsize=7, color="0.4",
                    xytext=(-14 if side == "no" else 4, 0), textcoords="offset points")  # fmt: skip
    for j, n in nodes[nodes["left"] >= 0].iterrows():
        ax.text(x[j], -depth[j], rule(n), ha="center", va="center", fontsize=9,
                bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "0.3"}, zorder=3)  # fmt: skip
    below = members(nodes, X)
    for j in leaves:
        held = below[j]
        offsets = (np.arange(len(held)) - (len(held) - 1) / 2) * 0.16
        for dx, i in zip(offsets, held, strict=True):
            k = int(labels[i])
            ax.scatter(x[j] + dx, -depth[j], marker=MARKERS[k], s=60, color=COLOURS[k], zorder=3)
    ax.set(xlim=(-0.7, len(leaves) - 0.3), ylim=(-depth.max() - 0.5, 0.5))
    ax.set_axis_off()


def draw_blocks(ax, nodes: pd.DataFrame, X: np.ndarray, labels: np.ndarray) -> None:
    """The blocks of the partition: each split across its whole block, the root's left block shaded with the range
    of its points dashed inside it, the points."""
    cell_lower, cell_upper = cells(nodes, *UNIT)
    lower, upper = boxes(nodes)
    ax.add_patch(plt.Rectangle((0, 0), 1, 1, fill=False, lw=1.5, color="k"))
    root = root_of(nodes)
    if nodes.at[root, "left"] >= 0:
        j = int(nodes.at[root, "left"])
        ax.add_patch(plt.Rectangle(cell_lower[j], *(cell_upper[j] - cell_lower[j]), color="#d62728", alpha=0.08))
        ax.add_patch(plt.Rectangle(lower[j], *(upper[j] - lower[j]), fill=False, ls="--", lw=1.0, color="0.35"))
        xi = nodes.at[root, "threshold"]
        ax.text(xi / 2, 0.95, f"$B_j = (0, {xi:.2f}] \\times (0, 1]$", ha="center", va="top", fontsize=8)
        ax.annotate("$B^x_j$", (lower[j, 0], lower[j, 1]), xytext=(0, -12), textcoords="offset points", fontsize=8)
    for j, n in nodes[nodes["left"] >= 0].iterrows():
        segment = split_segment(int(n["feature"]), n["threshold"], cell_lower[j], cell_upper[j])
        ax.plot(*segment, color="k", lw=2.0)
    for k in np.unique(labels):
        mine = X[labels == k]
        ax.scatter(*mine.T, marker=MARKERS[int(k)], s=60, color=COLOURS[int(k)], zorder=4, label=f"class {k}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), aspect="equal", xlabel="$x_1$", ylabel="$x_2$")


def plot(runs, spec) -> Drawing:
    run = runs[0]
    nodes, (X, labels) = batch_tree(run), points_of(run)
    fig, (ax_tree, ax_blocks) = plt.subplots(1, 2, figsize=(10, 4.6), gridspec_kw={"width_ratios": [1, 1.1]})
    draw_structure(ax_tree, nodes, X, labels)
    draw_blocks(ax_blocks, nodes, X, labels)
    ax_tree.set_title("the decision tree: a rule $x_d > \\xi_j$ at each split (yes: right)", fontsize=9)
    ax_blocks.set_title("its blocks $B_j$: each split across its whole block", fontsize=9)
    fig.suptitle("LRT14 Fig. 1(a): decision tree (the tree of Fig. 1(b) without its split times)", fontsize=10)
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """Invariants of the drawing: the leaf blocks tile the square (no block empty or inverted), each point lies in
    one of them (the one the rules route it to) inside that leaf's range, every range lies in its block, and the
    root's left block is the caption's."""
    run = runs[0]
    nodes, (X, labels) = batch_tree(run), points_of(run)
    leaves = nodes[nodes["left"] < 0]
    cell_lower, cell_upper = cells(nodes, *UNIT)
    area, overlap = tiling(cell_lower[leaves.index], cell_upper[leaves.index])
    inverted = int(np.sum(np.any(cell_upper <= cell_lower, axis=1)))
    outside, misplaced = range_outside_block(nodes), misplaced_points(nodes, X)
    caption, caption_text = root_left_block(nodes, X, labels)
    return [
        Claim(
            "the leaf blocks B_j tile the unit square, each split inside its block",
            abs(area - 1) < 1e-12 and overlap == 0 and inverted == 0,
            f"{len(leaves)} leaf blocks, total area {area:.12f}, largest overlap {overlap:.1e}, {inverted} blocks "
            "empty or inverted",
            key="leaf_blocks_tile_square",
            kind=INVARIANT,
        ),
        Claim(
            "each point lies in exactly one leaf block, the one its rules route it to, inside that leaf's range",
            misplaced == 0,
            f"{len(X)} points, {misplaced} misplaced",
            key="points_in_one_block",
            kind=INVARIANT,
        ),
        Claim(
            "the range of each node's points B^x_j lies inside its block B_j",
            outside == 0,
            f"{len(nodes)} nodes, {outside} ranges outside their block",
            key="ranges_inside_blocks",
            kind=INVARIANT,
        ),
        Claim(
            "the root's left block is B_j = (0, xi] x (0, 1], holding the points of one class, B^x_j the smallest "
            "rectangle enclosing them",
            caption,
            caption_text,
            key="root_left_block",
            kind=INVARIANT,
            paper="B_j = (0, 0.37] x (0, 1], the red circles",
        ),
    ]
