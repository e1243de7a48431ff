"""lrt14-fig1: a Mondrian tree on a few labelled points of the unit square (LRT14, Figure 1(b)).

Left, the blocks: the range B^x_j of the points of each node (grey, nested, so deeper blocks are darker), each
split drawn solid inside its node's range, where LRT14 commits it, and dotted across the rest of the node's cell.
Right, the tree on a vertical time axis: each split at its time, labelled by its rule, the leaves at the lifetime
with the points they hold. Drawn from the node table of ``protocols.lrt14_updates`` (one batch, one state).

Also the checks and drawing helpers that lrt14-fig2 shares: the points below each node are found by routing the
points through the splits from the root, independently of the library, and every box is compared to their range.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Claim
from experiments.figures.partitions import boxes, cells, root_of, split_segment, tree_layout

MARKERS = ("o", "s", "^", "D")
COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd")


def states(run) -> list[pd.DataFrame]:
    """The run's node table of each state, indexed by node."""
    nodes = run.tables["nodes"]
    return [table.drop(columns="state").set_index("node", drop=False) for _, table in nodes.groupby("state")]


def points_seen(run, state: int) -> pd.DataFrame:
    """The points the tree has seen at ``state``."""
    points = run.tables["points"]
    return points[points["state"] <= state].reset_index(drop=True)


def coordinates(points: pd.DataFrame) -> np.ndarray:
    return points[[c for c in points.columns if c.startswith("x") and c[1:].isdigit()]].to_numpy()


def lifetime(run) -> float:
    return float(run.trial["model"]["estimator"]["lifetime"])


def members(nodes: pd.DataFrame, X: np.ndarray) -> dict[int, np.ndarray]:
    """The indices of the points below each node: all at the root, then x[feature] <= threshold to the left."""
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


def plot(runs, spec) -> plt.Figure:
    run = runs[0]
    (nodes,) = states(run)
    points, lam = points_seen(run, 0), lifetime(run)
    X, labels = coordinates(points), points["label"].to_numpy()
    classes = np.unique(labels)
    fig, (ax_blocks, ax_tree) = plt.subplots(1, 2, figsize=(10, 4.8), gridspec_kw={"width_ratios": [1, 1.15]})
    draw_blocks(ax_blocks, nodes)
    for k, c in enumerate(classes):
        mine = X[labels == c]
        ax_blocks.scatter(*mine.T, marker=MARKERS[k], s=42, color=COLOURS[k], zorder=4, label=f"class {c}")
    ax_blocks.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False, handletextpad=0.2)
    splits = nodes.loc[nodes["left"] >= 0, "split_time"]
    bottom = leaf_level(lam, splits)
    x, leaves = draw_tree(ax_tree, nodes, bottom)
    below = members(nodes, X)
    for j in leaves:
        mine = labels[below[j]]
        offsets = (np.arange(len(mine)) - (len(mine) - 1) / 2) * 0.14
        for dx, c in zip(offsets, mine, strict=True):
            k = int(np.searchsorted(classes, c))
            ax_tree.scatter(x[j] + dx, bottom * 1.07, marker=MARKERS[k], s=30, color=COLOURS[k], clip_on=False)
    time_axis(ax_tree, splits, lam)
    ax_blocks.set_title(
        "blocks: the range of each node's points (grey)\nsplits solid inside it, dotted outside", fontsize=9
    )
    paused = "\nblocks of one class are paused (not split)" if run.trial["model"]["estimator"].get("pausing") else ""
    ax_tree.set_title(f"the Mondrian tree on its time axis, leaves with their points{paused}", fontsize=9)
    fig.tight_layout()
    return fig


def claims(runs, spec) -> list[Claim]:
    run = runs[0]
    (nodes,) = states(run)
    points, lam = points_seen(run, 0), lifetime(run)
    X, labels = coordinates(points), points["label"].to_numpy()
    internal = nodes[nodes["left"] >= 0]
    leaves = nodes[nodes["left"] < 0]
    below = members(nodes, X)
    per_leaf = sorted(len(below[j]) for j in leaves.index)
    times = ", ".join(f"{t:.2f}" for t in sorted(internal["split_time"]))
    out = [
        Claim(
            "split times increase down the tree and stay below the lifetime",
            order_violations(nodes, lam) == 0,
            f"{len(internal)} splits at {times}; lambda = {lam:g}; {order_violations(nodes, lam)} violations",
        ),
        Claim(
            "each node's box is the range of the points below it (a restricted tree), nested in its parent's",
            range_violations(nodes, X) == 0 and nesting_violations(nodes) == 0,
            f"{len(nodes)} nodes, {range_violations(nodes, X)} boxes differ from their points' range, "
            f"{nesting_violations(nodes)} outside their parent's",
        ),
        Claim(
            "each split cuts its node's box and sends points to both sides",
            split_violations(nodes, X) == 0,
            f"{len(internal)} splits, {split_violations(nodes, X)} violations",
        ),
        Claim(
            "the leaves' boxes are disjoint and the leaves hold every point once",
            leaf_overlaps(nodes) == 0 and sum(per_leaf) == len(X),
            f"{len(leaves)} leaves holding {per_leaf} of {len(X)} points, {leaf_overlaps(nodes)} overlapping pairs",
        ),
    ]
    if run.trial["model"]["estimator"].get("pausing", False):
        out.append(
            Claim(
                "pausing: only blocks holding both classes are split",
                one_label_splits(nodes, X, labels) == 0,
                f"{one_label_splits(nodes, X, labels)} of {len(internal)} splits cut a block of one class",
            )
        )
    return out
