"""LRT14's illustrations (lrt14-fig1, lrt14-fig2): reading and drawing the one-tree node tables of
``protocols.lrt14_updates`` (one table per state), and the checks behind their invariants.

The points below each node are found by routing the points through the splits from the root, independently of the
library (``partitions.members``), and every box is compared to their range.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures.partitions import boxes, cells, members, root_of, split_segment, tree_layout


def states(run) -> list[pd.DataFrame]:
    """The run's node table of each state, indexed by node."""
    nodes = run.tables["nodes"]
    return [table.drop(columns="state").set_index("node", drop=False) for _, table in nodes.groupby("state")]


def points_seen(run, state: int) -> pd.DataFrame:
    """The points the tree has seen at ``state``."""
    points = run.tables["points"]
    return points[points["state"] <= state].reset_index(drop=True)


def coordinates(points: pd.DataFrame) -> np.ndarray:
    """The points' coordinates (columns x0, x1, ...) as an (n, d) array."""
    return points[[c for c in points.columns if c.startswith("x") and c[1:].isdigit()]].to_numpy()


def lifetime(run) -> float:
    """The tree's lifetime lambda."""
    return float(run.estimator["lifetime"])


def time_of(nodes: pd.DataFrame, lam: float) -> pd.Series:
    """Split time of each node, the lifetime at a leaf."""
    return nodes["split_time"].where(nodes["left"] >= 0, lam)


def order_violations(nodes: pd.DataFrame, lam: float) -> int:
    """Nodes whose time is not after their parent's, plus splits not before the lifetime."""
    time = time_of(nodes, lam)
    children = nodes[nodes["parent"] >= 0]
    late = int((nodes.loc[nodes["left"] >= 0, "split_time"] >= lam).sum())
    return int((time[children.index].to_numpy() <= time[children["parent"]].to_numpy()).sum()) + late


def range_violations(nodes: pd.DataFrame, X: np.ndarray) -> int:
    """Nodes whose box is not exactly the range of the points below them (or that have none)."""
    lower, upper = boxes(nodes)
    below = members(nodes, X)
    bad = 0
    for row, j in enumerate(nodes.index):
        mine = X[below.get(j, np.arange(0))]
        bad += len(mine) == 0 or not (
            np.array_equal(lower[row], mine.min(0)) and np.array_equal(upper[row], mine.max(0))
        )
    return bad


def nesting_violations(nodes: pd.DataFrame) -> int:
    """Nodes whose box is not inside their parent's."""
    lower, upper = boxes(nodes)
    row = {j: r for r, j in enumerate(nodes.index)}
    bad = 0
    for r, p in enumerate(nodes["parent"]):
        if p >= 0:
            bad += not (np.all(lower[r] >= lower[row[p]]) and np.all(upper[r] <= upper[row[p]]))
    return bad


def split_violations(nodes: pd.DataFrame, X: np.ndarray) -> int:
    """Splits whose threshold is not inside their node's box (lower <= threshold < upper on the split dimension)
    or that leave a side without points."""
    below = members(nodes, X)
    bad = 0
    for _, n in nodes[nodes["left"] >= 0].iterrows():
        f = int(n["feature"])
        inside = n[f"lower_{f}"] <= n["threshold"] < n[f"upper_{f}"]
        bad += not inside or len(below[int(n["left"])]) == 0 or len(below[int(n["right"])]) == 0
    return bad


def leaf_overlaps(nodes: pd.DataFrame) -> int:
    """Pairs of leaves whose (closed) boxes meet."""
    lower, upper = boxes(nodes[nodes["left"] < 0])
    meet = np.all(np.maximum(lower[:, None], lower[None]) <= np.minimum(upper[:, None], upper[None]), axis=2)
    return int(np.triu(meet, 1).sum())


def one_label_splits(nodes: pd.DataFrame, X: np.ndarray, labels: np.ndarray) -> int:
    """Split nodes whose points all carry one label (LRT14's pausing never splits those)."""
    below = members(nodes, X)
    return sum(len(np.unique(labels[below[j]])) < 2 for j in nodes.index[nodes["left"] >= 0])


def draw_blocks(ax, nodes: pd.DataFrame, colour=lambda j: "k") -> None:
    """Each node's range as a grey box, each split solid inside its node's range and dotted across the rest of its
    cell (the unit square cut by the splits above); ``colour(node)`` colours a split."""
    lower, upper = boxes(nodes)
    cell_lower, cell_upper = cells(nodes, np.zeros(2), np.ones(2))
    ax.add_patch(plt.Rectangle((0, 0), 1, 1, fill=False, lw=1.0, color="0.3"))
    for r, (j, n) in enumerate(nodes.iterrows()):
        if np.all(upper[r] > lower[r]):
            size = upper[r] - lower[r]
            ax.add_patch(plt.Rectangle(lower[r], *size, facecolor="0.55", alpha=0.18, edgecolor="0.45", lw=0.8))
        if n["left"] >= 0:
            f = int(n["feature"])
            ax.plot(*split_segment(f, n["threshold"], cell_lower[r], cell_upper[r]), ls=":", lw=1.0, color=colour(j))
            ax.plot(*split_segment(f, n["threshold"], lower[r], upper[r]), lw=2.0, color=colour(j))
    ax.set(xlim=(-0.03, 1.03), ylim=(-0.03, 1.03), aspect="equal", xlabel="$x_1$", ylabel="$x_2$")


def rule(n: pd.Series) -> str:
    """The split as LRT14 writes it: x_f > threshold goes right."""
    return f"$x_{int(n['feature']) + 1} > {n['threshold']:.2f}$"


def draw_tree(ax, nodes: pd.DataFrame, bottom: float, colour=lambda j: "k") -> tuple[dict[int, float], list[int]]:
    """The tree on a vertical time axis (time grows downwards): each split a dot at its time labelled by its rule,
    the leaves at ``bottom``; returns the x position of each node and the leaf order."""
    x, leaves = tree_layout(nodes)
    time = time_of(nodes, bottom)
    root = root_of(nodes)
    ax.plot([x[root], x[root]], [0, time[root]], color="0.5", lw=1)
    for j, n in nodes[nodes["parent"] >= 0].iterrows():
        p = int(n["parent"])
        ax.plot([x[p], x[j], x[j]], [time[p], time[p], time[j]], color="0.5", lw=1)
    for j, n in nodes[nodes["left"] >= 0].iterrows():
        ax.scatter(x[j], n["split_time"], s=36, color=colour(j), zorder=3)
        ax.annotate(rule(n), (x[j], n["split_time"]), textcoords="offset points", xytext=(5, 4), fontsize=8,
                    color=colour(j))  # fmt: skip
    ax.scatter([x[j] for j in leaves], [bottom] * len(leaves), marker="s", s=14, color="0.3", zorder=3)
    ax.set(xlim=(-0.6, len(leaves) - 0.4), xticks=[])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    return x, leaves


def leaf_level(lam: float, times) -> float:
    """Where the leaves are drawn on the time axis: at the lifetime, or below the last split when it is inf."""
    if np.isfinite(lam):
        return lam
    return 1.2 * max(times) if len(times) else 1.0


def time_axis(ax, times, lam: float) -> None:
    """Ticks at the split times, and at 0 and at the leaves (the lifetime) unless a split time is too close to
    read apart; dotted guides at the split times."""
    bottom = leaf_level(lam, times)
    lam_label = f"$\\lambda$ = {lam:g}" if np.isfinite(lam) else "$\\lambda = \\infty$"
    times = sorted(set(np.round(times, 2)))
    for t in times:
        ax.axhline(t, ls=":", color="0.8", lw=0.7, zorder=0)
    ax.axhline(bottom, ls="--", color="0.6", lw=0.8, zorder=0)
    gap = 0.06 * bottom
    ticks = {t: f"{t:.2f}" for t in times}
    if not times or times[0] >= gap:
        ticks[0.0] = "0"
    ticks = {t: label for t, label in ticks.items() if bottom - t >= gap} | {bottom: lam_label}
    ax.set_yticks(list(ticks), list(ticks.values()))
    ax.set(ylim=(bottom * 1.16, -0.04 * bottom), ylabel="time $\\tau$")
