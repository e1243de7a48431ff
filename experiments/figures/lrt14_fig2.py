"""lrt14-fig2: online learning with a Mondrian tree on a toy example (LRT14, Figure 2).

Two points are sampled in one batch, then one point is added at a time (ExtendMondrianBlock). One column per state:
top, the blocks (grey ranges, the splits solid inside them, dotted outside; the point just added and the splits it
brought in red, the range a split was extended from dashed red); bottom, the tree on the shared time axis (the
extended splits ringed in red), leaves named by their points. What each update did is read from the node tables
before and after it (``update_cases``), never written by hand: LRT14's three operations are a new split above an
existing split, the extension of a split to the grown range of its block, and the split of a leaf.
"""

from __future__ import annotations

from itertools import pairwise

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.lrt14_illustrations import (
    coordinates,
    draw_blocks,
    draw_tree,
    leaf_level,
    lifetime,
    nesting_violations,
    order_violations,
    points_seen,
    range_violations,
    rule,
    split_violations,
    states,
    time_axis,
)
from experiments.figures.partitions import members

SPLIT_ABOVE = "new split above a split"
EXTENSION = "split extended"
LEAF_SPLIT = "leaf split"
CASES = (SPLIT_ABOVE, EXTENSION, LEAF_SPLIT)
NEW = "#d62728"
BOX = ["lower_0", "upper_0", "lower_1", "upper_1"]
SPLIT = ["feature", "threshold", "split_time"]


def _same(after: pd.DataFrame, j: int, n: pd.Series, columns: list[str]) -> bool:
    """Node j has the same values of ``columns`` in ``after`` as in the row ``n``."""
    return bool(np.array_equal(after.loc[j, columns].to_numpy(float), n[columns].to_numpy(float)))


def update_cases(before: pd.DataFrame, after: pd.DataFrame) -> list[tuple[str, int, int]]:
    """What one update did, from the node tables before and after it (indexed by node; old nodes keep their index):
    (EXTENSION, j, j) the old split node j kept its split while its range grew; (SPLIT_ABOVE, j, p) a new split node
    p above the old split node j; (LEAF_SPLIT, j, p) the old leaf j's block split, by a new split node p above it (or
    by j itself, p = j, when a paused leaf is sampled again). Extensions come first, from the root down."""
    found = []
    for j, n in before.sort_values("depth", kind="stable").iterrows():
        if n["left"] >= 0 and not _same(after, j, n, BOX) and _same(after, j, n, SPLIT):
            found.append((EXTENSION, int(j), int(j)))
        elif n["left"] < 0 and after.at[j, "left"] >= 0:
            found.append((LEAF_SPLIT, int(j), int(j)))
    for p, n in after[(after["left"] >= 0) & ~after.index.isin(before.index)].iterrows():
        for j in (int(n["left"]), int(n["right"])):
            if j in before.index:
                found.append((SPLIT_ABOVE if before.at[j, "left"] >= 0 else LEAF_SPLIT, j, int(p)))
    return found


def describe(case: tuple[str, int, int], before: pd.DataFrame, after: pd.DataFrame) -> str:
    """One case in words: the split's rule, its time (and the time of the split it came above)."""
    kind, j, p = case
    new = after.loc[p]
    if kind == SPLIT_ABOVE:
        old = before.loc[j]
        return f"{kind}:\n{rule(new)} at {new['split_time']:.2f}, before {rule(old)} at {old['split_time']:.2f}"
    if kind == LEAF_SPLIT:
        return f"{kind}: {rule(new)} at {new['split_time']:.2f}"
    return f"{kind}: {rule(new)}"


def restriction_mismatches(before: pd.DataFrame, after: pd.DataFrame, X_old: np.ndarray) -> int:
    """Old nodes at which the tree after the update, restricted to the earlier points, differs from the tree before:
    other points below them, another split, or another nearest old ancestor than their parent before."""
    below_before, below_after = members(before, X_old), members(after, X_old)
    bad = 0
    for j, n in before.iterrows():
        ancestor = after.at[j, "parent"]
        while ancestor >= 0 and ancestor not in before.index:
            ancestor = after.at[ancestor, "parent"]
        both_leaves = n["left"] < 0 and after.at[j, "left"] < 0
        same_split = both_leaves or (n["left"] >= 0 and _same(after, j, n, SPLIT))
        same_points = np.array_equal(np.sort(below_before[j]), np.sort(below_after.get(j, np.arange(0))))
        bad += not (same_split and same_points and ancestor == n["parent"])
    return bad


def _updates(run) -> tuple[list[pd.DataFrame], list[list[tuple[str, int, int]]]]:
    """The node table of each state and what each update did."""
    tables = states(run)
    return tables, [update_cases(a, b) for a, b in pairwise(tables)]


def _draw_state(ax_blocks, ax_tree, run, tables, s: int, done, bottom: float) -> None:
    """Column s: the blocks and the tree after state s, what its update ``done`` brought in red."""
    nodes, seen = tables[s], points_seen(run, s)
    X = coordinates(seen)
    new_nodes = {p for kind, _, p in done if kind != EXTENSION}
    extended = [j for kind, j, _ in done if kind == EXTENSION]

    def colour(j):
        return NEW if j in new_nodes else "k"

    draw_blocks(ax_blocks, nodes, colour)
    for j in extended:
        old = tables[s - 1].loc[j]
        corner, size = (
            (old["lower_0"], old["lower_1"]),
            (old["upper_0"] - old["lower_0"], old["upper_1"] - old["lower_1"]),
        )
        ax_blocks.add_patch(plt.Rectangle(corner, *size, fill=False, ls="--", lw=1.2, color=NEW))
    fresh = (seen["state"] == s).to_numpy() & (s > 0)
    ax_blocks.scatter(*X.T, s=30, color=np.where(fresh, NEW, "k"), zorder=4)
    for (x0, x1), name, is_new in zip(X, seen["name"], fresh, strict=True):
        ax_blocks.annotate(name, (x0, x1), textcoords="offset points", xytext=(4, 4), fontsize=11,
                           color=NEW if is_new else "k")  # fmt: skip
    letter = "abcdefghijklmnop"
    if s == 0:
        title = f"({letter[s]}) {', '.join(seen['name'])} sampled in one batch"
    else:
        lines = [describe(c, tables[s - 1], nodes) for c in done]
        title = f"({letter[s]}) {seen['name'].iloc[-1]} added\n" + "\n".join(lines)
    ax_blocks.set_title(title, fontsize=9, loc="left")

    x, leaves = draw_tree(ax_tree, nodes, bottom, colour)
    for j in extended:
        ax_tree.scatter(x[j], nodes.at[j, "split_time"], s=130, facecolors="none", edgecolors=NEW, lw=1.5, zorder=4)
    below = members(nodes, X)
    for j in leaves:
        ax_tree.text(x[j], bottom * 1.04, ",".join(seen["name"].iloc[below[j]]), ha="center", va="top", fontsize=11)
    ax_tree.set_title(f"({letter[len(tables) + s]}) the tree after {seen['name'].iloc[-1]}", fontsize=9, loc="left")


def plot(runs, spec) -> Drawing:
    run = runs[0]
    tables, cases = _updates(run)
    n = len(tables)
    fig, axes = plt.subplots(2, n, figsize=(3.9 * n, 8.2), squeeze=False)
    final = tables[-1]
    splits = final.loc[final["left"] >= 0, "split_time"]
    lam = lifetime(run)
    bottom = leaf_level(lam, splits)
    for s in range(n):
        _draw_state(axes[0, s], axes[1, s], run, tables, s, cases[s - 1] if s else [], bottom)
        time_axis(axes[1, s], splits, lam)
        if s:
            axes[0, s].set_ylabel("")
            axes[1, s].set_ylabel("")
    fig.text(
        0.01,
        0.0,
        "grey: the range of each node's points; splits solid inside it, dotted outside. Red: what the update added "
        "(dashed: the range before its extension; ringed: the extended split).",
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    run = runs[0]
    tables, cases = _updates(run)
    lam = lifetime(run)
    return [
        operations(run, cases),
        restricted_after_updates(run, tables),
        times_after_updates(tables, lam),
        updates_keep_the_tree(run, tables),
    ]


def operations(run, cases: list[list[tuple[str, int, int]]]) -> Claim:
    """The seed shows LRT14's three operations (the drawing shows what the paper's does)."""
    points = run.tables["points"]
    occurred = {kind for found in cases for kind, _, _ in found}
    added = points.loc[points["state"] > 0, "name"].tolist()
    per_update = "; ".join(
        f"+{name}: {', '.join(kind for kind, _, _ in found) or 'none'}"
        for name, found in zip(added, cases, strict=True)
    )
    return Claim(
        "each of LRT14's three operations occurs: a new split above a split, a split extended, a leaf split",
        occurred >= set(CASES),
        f"{per_update}; missing: {', '.join(c for c in CASES if c not in occurred) or 'none'}",
        key="three_operations",
        kind=INVARIANT,
        paper="+c: x1 > 0.75 above x2 > 0.23; +d: x2 > 0.23 extended, then x1 > 0.47 (the text of Fig. 2)",
    )


def restricted_after_updates(run, tables: list[pd.DataFrame]) -> Claim:
    """Every state is a restricted tree: boxes the ranges of their points, nested, splits inside them."""
    restricted = nested = cuts = 0
    for s, nodes in enumerate(tables):
        X = coordinates(points_seen(run, s))
        restricted += range_violations(nodes, X)
        nested += nesting_violations(nodes)
        cuts += split_violations(nodes, X)
    return Claim(
        "after every update the tree is restricted: each box is the range of the points below it, boxes nested, "
        "each split inside its box with points on both sides",
        restricted == nested == cuts == 0,
        f"{len(tables)} states, {sum(map(len, tables))} nodes: {restricted} boxes differ from their points' "
        f"range, {nested} not nested, {cuts} bad splits",
        key="restricted_after_updates",
        kind=INVARIANT,
    )


def times_after_updates(tables: list[pd.DataFrame], lam: float) -> Claim:
    """Split times increase down the tree in every state."""
    order = sum(order_violations(nodes, lam) for nodes in tables)
    final = tables[-1]
    times = ", ".join(f"{t:.2f}" for t in sorted(final.loc[final["left"] >= 0, "split_time"]))
    return Claim(
        "after every update split times increase down the tree",
        order == 0,
        f"{len(tables)} states, {order} nodes not after their parent; final split times {times}",
        key="split_times_increase",
        kind=INVARIANT,
        paper="split times 1.01, 2.42, 3.97 (the text of Fig. 2; the seed's draws here)",
    )


def updates_keep_the_tree(run, tables: list[pd.DataFrame]) -> Claim:
    """LRT14's extension is consistent with the tree before: restricted to the earlier points, nothing changed. An
    invariant of the code, not a result: ExtendMondrianBlock (LRT14 Algorithm 4) only inserts a node above one
    (its split between the old range and the new point), extends ranges or recurses, never moving or removing a
    split, so a failure would be a bug. It is the algorithmic half of LRT14's eq. (1), whose distributional half (the
    tree's law whatever the order of the points) is a unit test (tests/mondrian/test_mondrian_online_vs_batch.py)."""
    kept = [restriction_mismatches(a, b, coordinates(points_seen(run, s))) for s, (a, b) in enumerate(pairwise(tables))]
    grown = [len(b) - len(a) for a, b in pairwise(tables)]
    return Claim(
        "an update keeps the tree: restricted to the earlier points, the new tree is the tree before",
        sum(kept) == 0,
        f"nodes added per update {grown}; old nodes that differ per update {kept}",
        key="update_keeps_tree",
        kind=INVARIANT,
        quote="new split in Rabc is sampled such that it is consistent with the existing partition structure in Rab "
        "(i.e., the new split cannot slice through Rab).",
        where="LRT14 Sec. 5, the walk-through of Fig. 2",
    )
