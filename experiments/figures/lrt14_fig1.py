"""lrt14-fig1: a Mondrian tree on a few labelled points of the unit square (LRT14, Figure 1(b)).

Left, the blocks: the range B^x_j of the points of each node (grey, nested, so deeper blocks are darker), each
split drawn solid inside its node's range, where LRT14 commits it, and dotted across the rest of the node's cell.
Right, the tree on a vertical time axis: each split at its time, labelled by its rule, the leaves at the lifetime
with the points they hold. Drawn from the node table of ``protocols.lrt14_updates`` (one batch, one state).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.lrt14_illustrations import (
    coordinates,
    draw_blocks,
    draw_tree,
    leaf_level,
    leaf_overlaps,
    lifetime,
    nesting_violations,
    one_label_splits,
    order_violations,
    points_seen,
    range_violations,
    split_violations,
    states,
    time_axis,
)
from experiments.figures.partitions import members

MARKERS = ("o", "s", "^", "D")
COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd")


def plot(runs, spec) -> Drawing:
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
    paused = "\nblocks of one class are paused (not split)" if run.estimator.get("pausing") else ""
    ax_tree.set_title(f"the Mondrian tree on its time axis, leaves with their points{paused}", fontsize=9)
    fig.tight_layout()
    return Drawing(fig)


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
            key="split_times_increase",
            kind=INVARIANT,
        ),
        Claim(
            "each node's box is the range of the points below it (a restricted tree), nested in its parent's",
            range_violations(nodes, X) == 0 and nesting_violations(nodes) == 0,
            f"{len(nodes)} nodes, {range_violations(nodes, X)} boxes differ from their points' range, "
            f"{nesting_violations(nodes)} outside their parent's",
            key="restricted_nested_boxes",
            kind=INVARIANT,
        ),
        Claim(
            "each split cuts its node's box and sends points to both sides",
            split_violations(nodes, X) == 0,
            f"{len(internal)} splits, {split_violations(nodes, X)} violations",
            key="splits_cut_boxes",
            kind=INVARIANT,
        ),
        Claim(
            "the leaves' boxes are disjoint and the leaves hold every point once",
            leaf_overlaps(nodes) == 0 and sum(per_leaf) == len(X),
            f"{len(leaves)} leaves holding {per_leaf} of {len(X)} points, {leaf_overlaps(nodes)} overlapping pairs",
            key="leaves_disjoint",
            kind=INVARIANT,
        ),
    ]
    if run.estimator.get("pausing", False):
        out.append(
            Claim(
                "pausing: only blocks holding both classes are split",
                one_label_splits(nodes, X, labels) == 0,
                f"{one_label_splits(nodes, X, labels)} of {len(internal)} splits cut a block of one class",
                key="pausing",
                kind=INVARIANT,
            )
        )
    return out
