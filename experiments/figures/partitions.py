"""Drawing and checking 2-D Mondrian partitions and their trees, from a node table (one row per node).

The node table is what ``experiments.protocols.process.partition_table`` writes: columns ``node``, ``parent``,
``left``, ``right`` (-1 for none), ``feature``, ``threshold``, ``split_time`` and the box ``lower_j``/``upper_j``
of each node (its cell for a full partition, the range of its points for a restricted tree).
Shared by the figures that draw a partition beside its tree (mgs20-fig1, amf-fig2, amf-fig3, amf-fig5).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import colors

from experiments.figures import INVARIANT, Claim


def root_of(nodes: pd.DataFrame) -> int:
    return int(nodes.loc[nodes["parent"] < 0, "node"].iloc[0])


def members(nodes: pd.DataFrame, X: np.ndarray) -> dict[int, np.ndarray]:
    """The indices of the points of X below each node, routed from the root (all of them there), x[feature] <=
    threshold to the left: every node of the tree a key, a parent before its children. The figures' one routing of
    points down a node table (independent of the library's, which the figures check)."""
    below = {root_of(nodes): np.arange(len(X))}
    stack = [root_of(nodes)]
    while stack:
        j = stack.pop()
        n = nodes.loc[j]
        if n["left"] < 0:
            continue
        goes_left = X[below[j], int(n["feature"])] <= n["threshold"]
        below[int(n["left"])], below[int(n["right"])] = below[j][goes_left], below[j][~goes_left]
        stack += [int(n["left"]), int(n["right"])]
    return below


def path_of(nodes: pd.DataFrame, x: np.ndarray) -> list[int]:
    """The nodes from the root down to the leaf whose cell holds the point x."""
    return [j for j, below in members(nodes, np.asarray(x)[None, :]).items() if len(below)]


def tree_layout(nodes: pd.DataFrame) -> tuple[dict[int, float], list[int]]:
    """x position of each node (leaves in order, parents centred over their children) and the leaf order."""
    left, right = nodes["left"].to_numpy(), nodes["right"].to_numpy()
    leaves: list[int] = []
    x: dict[int, float] = {}

    def visit(j: int) -> None:
        if left[j] < 0:
            x[j] = float(len(leaves))
            leaves.append(j)
            return
        visit(int(left[j]))
        visit(int(right[j]))
        x[j] = (x[int(left[j])] + x[int(right[j])]) / 2

    visit(root_of(nodes))
    return x, leaves


def cells(nodes: pd.DataFrame, lower, upper) -> tuple[np.ndarray, np.ndarray]:
    """The cell of every node when the root's cell is the box [lower, upper] and each split cuts its node's cell
    at the threshold (AMF's Equation (2)); for a restricted tree these cells tile the box, unlike the ranges."""
    n = len(nodes)
    lo = np.zeros((n, len(lower)))
    hi = np.zeros((n, len(upper)))
    left, right = nodes["left"].to_numpy(), nodes["right"].to_numpy()
    feature, threshold = nodes["feature"].to_numpy(), nodes["threshold"].to_numpy()
    stack = [root_of(nodes)]
    lo[stack[0]], hi[stack[0]] = lower, upper
    while stack:
        j = stack.pop()
        if left[j] < 0:
            continue
        f = int(feature[j])
        for child, side in ((int(left[j]), hi), (int(right[j]), lo)):
            lo[child], hi[child] = lo[j], hi[j]
            side[child, f] = threshold[j]
            stack.append(child)
    return lo, hi


def split_segment(feature: int, threshold: float, lower, upper) -> tuple[list[float], list[float]]:
    """The (xs, ys) of the segment that a split draws across the 2-D box [lower, upper]."""
    if feature == 0:
        return [threshold, threshold], [lower[1], upper[1]]
    return [lower[0], upper[0]], [threshold, threshold]


def draw_splits(ax, nodes: pd.DataFrame, lower: np.ndarray, upper: np.ndarray, colour, lw: float = 2.0) -> None:
    """Each split of the table as a segment across its node's box (rows of lower/upper); colour(row) -> colour."""
    for j, n in nodes[nodes["left"] >= 0].iterrows():
        ax.plot(*split_segment(int(n["feature"]), n["threshold"], lower[j], upper[j]), color=colour(n), lw=lw)


def boxes(nodes: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The lower_j / upper_j columns of the table as two (n_nodes, d) arrays."""
    d = sum(c.startswith("lower_") for c in nodes.columns)
    return (
        np.stack([nodes[f"lower_{j}"] for j in range(d)], 1),
        np.stack([nodes[f"upper_{j}"] for j in range(d)], 1),
    )


def draw_time_tree(ax, nodes: pd.DataFrame, lam: float, cmap, norm, label_times: bool = False) -> list[int]:
    """The tree on a vertical split-time axis (time grows downwards), each split a dot at its time coloured by it and
    labelled by its feature (and its time with ``label_times``), leaves at the lifetime ``lam`` numbered in order.
    Returns the leaf order."""
    internal = nodes[nodes["left"] >= 0]
    x, leaves = tree_layout(nodes)
    time = {int(n["node"]): (n["split_time"] if n["left"] >= 0 else lam) for _, n in nodes.iterrows()}
    for _, n in nodes[nodes["parent"] >= 0].iterrows():
        j, p = int(n["node"]), int(n["parent"])
        ax.plot([x[p], x[j], x[j]], [time[p], time[p], time[j]], color="0.5", lw=1)
    root = root_of(nodes)
    ax.plot([x[root], x[root]], [0, time[root]], color="0.5", lw=1)
    ax.scatter(
        [x[j] for j in internal["node"]],
        internal["split_time"],
        c=internal["split_time"],
        cmap=cmap,
        norm=norm,
        s=40,
        zorder=3,
    )
    for _, n in internal.iterrows():
        time_label = f" at {n['split_time']:.2f}" if label_times else ""
        ax.annotate(
            f"$x_{int(n['feature']) + 1}${time_label}",
            (x[int(n["node"])], n["split_time"]),
            textcoords="offset points",
            xytext=(4, -9),
            fontsize=7,
        )
    ax.scatter([x[j] for j in leaves], [lam] * len(leaves), marker="s", s=12, color="0.3", zorder=3)
    for k, j in enumerate(leaves):
        ax.text(x[j], lam * 1.03, str(k + 1), ha="center", va="top", fontsize=7, color="0.3")
    ax.axhline(lam, ls="--", color="0.6", lw=0.8)
    if label_times:
        for t in internal["split_time"]:
            ax.axhline(t, ls=":", color="0.8", lw=0.7, zorder=0)
    ax.set(ylim=(lam * 1.1, -0.05 * lam), xticks=[], ylabel="split time")
    return leaves


def number_leaves(ax, nodes: pd.DataFrame, leaves: list[int], lower: np.ndarray, upper: np.ndarray) -> None:
    """Write each leaf's number (its order in the tree drawing) at the centre of its 2-D box."""
    for k, j in enumerate(leaves):
        ax.text(
            (lower[j, 0] + upper[j, 0]) / 2,
            (lower[j, 1] + upper[j, 1]) / 2,
            str(k + 1),
            ha="center",
            va="center",
            fontsize=7,
            color="0.3",
        )


def partition_figure(nodes: pd.DataFrame, lam: float, figsize, tree_width: float, label_times: bool = False):
    """A Mondrian partition of the unit square (left) and its tree on the time axis (right), each split coloured
    by its time; returns the figure, both axes, the colour map and its normalisation."""
    norm = colors.Normalize(0, lam)
    cmap = plt.get_cmap("viridis")
    fig, (ax_cells, ax_tree) = plt.subplots(1, 2, figsize=figsize, gridspec_kw={"width_ratios": [1, tree_width]})
    ax_cells.add_patch(plt.Rectangle((0, 0), 1, 1, fill=False, lw=1.5))
    lower, upper = boxes(nodes)
    draw_splits(ax_cells, nodes, lower, upper, lambda n: cmap(norm(n["split_time"])))
    leaves = draw_time_tree(ax_tree, nodes, lam, cmap, norm, label_times=label_times)
    number_leaves(ax_cells, nodes, leaves, lower, upper)
    ax_cells.set(
        xlim=(-0.02, 1.02),
        ylim=(-0.02, 1.02),
        aspect="equal",
        xlabel="$x_1$",
        ylabel="$x_2$",
        title=f"Mondrian partition MP($\\lambda$ = {lam:g}, $[0,1]^2$): {len(leaves)} cells",
    )
    return fig, ax_cells, ax_tree, cmap, norm


def tiling(lower: np.ndarray, upper: np.ndarray) -> tuple[float, float]:
    """Total volume of the boxes and their largest pairwise overlap (a tiling of the unit box: 1 and 0)."""
    volume = (upper - lower).prod(1)
    overlap = np.clip(np.minimum(upper[:, None], upper[None]) - np.maximum(lower[:, None], lower[None]), 0, None)
    overlap = overlap.prod(-1)
    np.fill_diagonal(overlap, 0)
    return float(volume.sum()), float(overlap.max()) if len(volume) > 1 else 0.0


def partition_claims(nodes: pd.DataFrame, lam: float) -> list[Claim]:
    """The structural facts of a Mondrian partition of the unit square given as a node table of cells, invariants of
    the sampler: split times increase down the tree below the lifetime, the leaves tile the square, each split cuts
    its cell in two."""
    nodes = nodes.set_index("node", drop=False)
    internal = nodes[nodes["left"] >= 0]
    children = nodes[nodes["parent"] >= 0]
    parent_time = nodes.loc[children["parent"], "split_time"].to_numpy()
    child_time = np.where(children["left"] >= 0, children["split_time"], np.inf)
    increasing = bool(np.all(child_time > parent_time) and np.all(internal["split_time"] < lam))

    leaves = nodes[nodes["left"] < 0]
    volume, overlap = tiling(*boxes(leaves))

    mismatches = 0
    for _j, n in internal.iterrows():
        f, t = int(n["feature"]), n["threshold"]
        for child, side in ((int(n["left"]), "upper"), (int(n["right"]), "lower")):
            expected = {f"lower_{d}": n[f"lower_{d}"] for d in (0, 1)} | {f"upper_{d}": n[f"upper_{d}"] for d in (0, 1)}
            expected[f"{side}_{f}"] = t
            mismatches += any(nodes.loc[child, k] != v for k, v in expected.items())
    last = f"last at {internal['split_time'].max():.3f}" if len(internal) else "none"
    return [
        Claim(
            "split times increase down the tree and stay below the lifetime",
            increasing,
            f"{len(internal)} splits, {last} < lambda = {lam:g}",
            key="split_times_increase",
            kind=INVARIANT,
        ),
        Claim(
            "the leaves tile the square: total area 1, no overlap",
            bool(abs(volume - 1) < 1e-12 and overlap == 0),
            f"{len(leaves)} leaves, total area {volume:.15f}, max pairwise overlap {overlap:.1e}",
            key="leaves_tile",
            kind=INVARIANT,
        ),
        Claim(
            "each split cuts its cell in two at the threshold",
            mismatches == 0,
            f"{2 * len(internal)} children checked, {mismatches} mismatches",
            key="splits_cut_cells",
            kind=INVARIANT,
        ),
    ]
