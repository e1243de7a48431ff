"""amf-fig4: AMF's update of the unrestricted Mondrian partition when x_5 arrives (Algorithm 2).

Left, Pi_t: the minimal subtree of a Mondrian partition of the unit square that separates x_1, ..., x_4, each split
across its cell, and its tree with every node named by its word, leaves filled (their point) or empty (none). Right,
Pi_{t+1}: the splits sampled in the leaf that held x_5 and another point until one separates them (red), the tree
with the path of x_5 bold, and the updates of the weights and forecasts that run up that path. Drawn from the tables
of ``protocols.unrestricted_updates``, whose node statistics (computed from their definitions, Table 1) check the
text's upward recursion: the values on the path after x_5 are the recursion applied to those before, and no node off
the path changes.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.amf_updates import (
    Forecaster,
    UpdateCheck,
    empty_node,
    missing,
    path_values,
    statistics,
)
from experiments.figures.partitions import boxes, members, path_of, split_segment, tiling
from experiments.figures.tree_updates import (
    PATH,
    UPDATES,
    draw_points,
    draw_word_tree,
    math_name,
    same_node,
    seen,
    square,
    state,
    words,
)

# Fig. 4's caption, the sentence the value checks carry.
CAPTION = (
    "The updates of weights and predictions along the path are indicated, and are computed in an upwards recursion."
)
CREATED = (
    "a new node that keeps the point x_s of the split leaf starts as a copy of that leaf, any other as (1, 1, "
    "h(empty)): Algorithm 2, lines 6 and 8"
)


def old_leaf(before: pd.DataFrame, x: np.ndarray) -> int:
    """The leaf of Pi_t whose cell holds the new point."""
    return path_of(before, x)[-1]


def new_splits(before: pd.DataFrame, after: pd.DataFrame, x: np.ndarray) -> list[int]:
    """The splits the update made: the old leaf of x (now split) and the new internal nodes, top-down."""
    return [
        j for j in path_of(after, x) if after.at[j, "left"] >= 0 and (j not in before.index or j == old_leaf(before, x))
    ]


def draw_state(ax_cells, ax_tree, nodes: pd.DataFrame, X, names, new: int | None, red: set[int]) -> None:
    """A partition with its splits across their cells (those in ``red`` red), its points and its tree."""
    lower, upper = boxes(nodes)
    for row, (j, n) in enumerate(nodes.iterrows()):
        if n["left"] >= 0:
            segment = split_segment(int(n["feature"]), n["threshold"], lower[row], upper[row])
            ax_cells.plot(*segment, color=PATH if j in red else "k", lw=2.2 if j in red else 1.5)
    draw_points(ax_cells, X, names, new)
    path = path_of(nodes, X[new]) if new is not None else []
    draw_word_tree(ax_tree, nodes, X, names, path, colour=lambda j: PATH if j in red else "k")


def plot(runs, spec) -> Drawing:
    run = runs[0]
    before, after = state(run, 0), state(run, 1)
    X0, names0 = seen(run, 0)
    X1, names1 = seen(run, 1)
    new = len(X1) - 1
    red = set(new_splits(before, after, X1[new]))
    fig, axes = plt.subplots(1, 4, figsize=(17, 5.6), gridspec_kw={"width_ratios": [1, 1.1, 1, 1.3]})
    draw_state(axes[0], axes[1], before, X0, names0, None, set())
    draw_state(axes[2], axes[3], after, X1, names1, new, red)
    t = len(X1)
    square(axes[0], f"tree partition $\\Pi_t$ (t = {t}) before seeing $x_t$")
    axes[1].set_title(f"tree $T_t$ (t = {t}): ● a leaf with its point, ○ an empty leaf", fontsize=9)
    square(axes[2], f"updated partition $\\Pi_{{t+1}}$: new splits (red) separate {math_name(names1[new])}")
    axes[3].set_title("updated tree $T_{t+1}$: the path of $x_t$ bold", fontsize=9)
    fig.suptitle("AMF Fig. 4: AmfUpdate$(x_t, y_t)$ (Algorithm 2) on the unrestricted Mondrian partition", fontsize=10)
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    fig.text(0.72, 0.01, UPDATES, fontsize=9, va="bottom", bbox={"facecolor": "white", "edgecolor": "0.7"})
    if "stats" in run.tables:
        names = {j: w or "ε" for j, w in words(after).items()}
        text = path_values(before_values(run, before, after, X1), statistics(run, 1), path_of(after, X1[new]), names)
        fig.text(0.01, 0.01, text, fontsize=8, va="bottom", family="monospace")
    return Drawing(fig)


def changed_nodes(before: pd.DataFrame, after: pd.DataFrame, x: np.ndarray) -> list[int]:
    """Nodes of Pi_t that are missing from Pi_{t+1} or changed, except the old leaf of x (which is split)."""
    leaf = old_leaf(before, x)
    return [
        j for j in before.index if j != leaf and (j not in after.index or not same_node(before.loc[j], after.loc[j]))
    ]


def strays(before: pd.DataFrame, after: pd.DataFrame, x: np.ndarray) -> list[int]:
    """New nodes of Pi_{t+1} that do not descend from the old leaf of x."""
    leaf = old_leaf(before, x)
    out = []
    for j in after.index.difference(before.index):
        k = j
        while k != leaf and after.at[k, "parent"] >= 0:
            k = int(after.at[k, "parent"])
        out += [j] if k != leaf else []
    return out


def crowded_leaves(nodes: pd.DataFrame, X: np.ndarray) -> int:
    """Leaves holding two distinct points or more."""
    below = members(nodes, X)
    return sum(len(np.unique(X[below[j]], axis=0)) > 1 for j in nodes.index[nodes["left"] < 0])


def idle_splits(nodes: pd.DataFrame, X: np.ndarray) -> int:
    """Splits of cells that hold fewer than two distinct points (not in the minimal subtree)."""
    below = members(nodes, X)
    return sum(len(np.unique(X[below[j]], axis=0)) < 2 for j in nodes.index[nodes["left"] >= 0])


def separation(before, after, X: np.ndarray, names: list[str]) -> tuple[bool, str]:
    """Did x_t land in a leaf holding a point x_s, and do the new splits all hold both, the last one separating
    them (the drawing's event)?"""
    x = X[-1]
    splits = new_splits(before, after, x)
    below = members(after, X)
    shared = [i for i in below[old_leaf(before, x)] if i != len(X) - 1]
    if not splits:
        return False, f"no split: the leaf of {names[-1]} held no other point"
    both = all({*shared, len(X) - 1} <= set(below[j]) for j in splits)
    last = splits[-1]
    sides = [set(below[int(after.at[last, side])]) for side in ("left", "right")]
    apart = len(shared) == 1 and any(shared[0] in s and len(X) - 1 not in s for s in sides)
    held_names = ", ".join(names[i] for i in shared)
    return both and apart, f"{len(splits)} splits sampled in the leaf of {names[-1]}, which held {held_names}"


def before_values(run, before: pd.DataFrame, after: pd.DataFrame, X: np.ndarray) -> pd.DataFrame:
    """The statistics before x_t of every node of Pi_{t+1}: its own for a node of Pi_t; for a new node, as Algorithm
    2 creates it (lines 6 and 8): a copy of the split leaf when its cell keeps that leaf's point, else (1, 1,
    h(empty))."""
    stats = statistics(run, 0)
    leaf = old_leaf(before, X[-1])
    below = members(after, X)
    rows = {
        j: stats.loc[j] if j in before.index
        else stats.loc[leaf] if any(i != len(X) - 1 for i in below[j]) else empty_node(stats)
        for j in after.index
    }  # fmt: skip
    return pd.DataFrame(rows).T


def update_values(run, before: pd.DataFrame, after: pd.DataFrame) -> list[Claim]:
    """The text's recursion (Sec. 2.2, Algorithm 2 lines 12-18) checked on the node statistics."""
    if "stats" not in run.tables:
        return missing("the run logged no node statistics (protocol.run.labels unset)", CAPTION, "AMF Fig. 4 caption")
    X, _ = seen(run, 1)
    y = float(run.tables["points"]["label"].iloc[len(X) - 1])
    check = UpdateCheck.of(before_values(run, before, after, X), statistics(run, 1), after, path_of(after, X[-1]), y,
                           Forecaster("mean", float(run.protocol.get("step", 1.0))))  # fmt: skip
    names = {j: w or "ε" for j, w in words(after).items()}
    return check.claims(names, 1e-12, CAPTION, "AMF Fig. 4 caption", CREATED)


def claims(runs, spec) -> list[Claim]:
    """Invariants of Algorithm 2's update, read from the two states' tables."""
    run = runs[0]
    before, after = state(run, 0), state(run, 1)
    X0, _ = seen(run, 0)
    X1, names = seen(run, 1)
    x = X1[-1]
    changed, stray = changed_nodes(before, after, x), strays(before, after, x)
    crowded, idle = crowded_leaves(after, X1), idle_splits(before, X0) + idle_splits(after, X1)
    separated, separated_text = separation(before, after, X1, names)
    leaves = after[after["left"] < 0]
    area, overlap = tiling(*boxes(leaves))
    empty = sum(len(v) == 0 for j, v in members(after, X1).items() if after.at[j, "left"] < 0)
    return [
        Claim(
            "Pi_{t+1} refines Pi_t: its nodes are unchanged, but for the leaf of x_t, below which all new nodes lie",
            not changed and not stray,
            f"{len(before)} -> {len(after)} nodes; {len(changed)} old nodes changed, {len(stray)} new nodes elsewhere",
            key="refines_previous",
            kind=INVARIANT,
        ),
        Claim(
            "splits are sampled in the leaf of x_t until one separates x_t from the point x_s it held",
            separated,
            separated_text,
            key="splits_until_separated",
            kind=INVARIANT,
        ),
        Claim(
            "each leaf holds at most one point (some none: empty leaves) and each split's cell two or more",
            crowded == 0 and idle == 0,
            f"{crowded} leaves with two points or more, {idle} splits of a cell with fewer than two; "
            f"{empty} empty leaves of {len(leaves)}",
            key="minimal_subtree",
            kind=INVARIANT,
        ),
        Claim(
            "the leaves' cells tile the unit square",
            abs(area - 1) < 1e-12 and overlap == 0,
            f"{len(leaves)} leaves, total area {area:.12f}, largest overlap {overlap:.1e}",
            key="cells_tile_square",
            kind=INVARIANT,
        ),
        *update_values(run, before, after),
    ]
