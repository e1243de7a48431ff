"""amf-fig6: AMF's update of its restricted Mondrian tree when x_5 arrives (Algorithms 4 and 5).

The one-tree ``AMFRegressor`` of the library learns x_1, ..., x_4, then x_5 (the ``lrt14_updates`` protocol: the
tree after each call). Left, the tree partition before x_5: each split across its cell (AMF's Equation (2)), and the
tree with nodes named by their binary words; the node v where the update inserts a split (green) with its range R_v
dashed. Right, after: x_5 lies outside R_v and the split sampled in the extension (red) comes before v's own split, so
it is inserted at v, the old subtree of v moved one level down (its words gain a letter: 10 becomes 100), a new leaf
holding x_5 beside it; the range of v extended to x_5; the path of x_5 bold, with the updates that run up it.
The library's node statistics before and after x_5 (public ``trees_[0].stats``) check the text's update of the
weights and node predictions: on the path, the recursion applied to the values before; off it, nothing changes.
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
from experiments.figures.partitions import boxes, cells, members, path_of, split_segment
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

V_COLOUR = "tab:green"
STATEMENTS = {
    "split_before_next": "the new split's time tau_v + E comes before v's own split tau_v0 (Algorithm 5, line 4)",
    "split_in_extension": "the new split lies in the extension of R_v to x_t (Algorithm 5, lines 6-9)",
    "subtree_moved_down": "the subtree of v is moved one level down (its words gain a letter), the rest unchanged but "
    "for the ranges on the path of x_t, extended to it",
    "inserted_above_split": "the drawing's event: the split is inserted above a node v that is itself split, so its "
    "children move down (10 and 11 to 100 and 101 when v = 1)",
}
PAPER = {
    "inserted_above_split": "two new nodes 10 and 11 inserted below 1, the previous 10 and 11 moved as 100 and 101"
}
UNIT = (np.zeros(2), np.ones(2))
# Fig. 6's caption, the sentence the value checks carry.
CAPTION = "The weights and node predictions are then updated using an upwards path from the new leaf containing"
CREATED = (
    "the node inserted above v starts as a copy of v's old node (Algorithm 5, line 12), the new leaf as (1, 1, "
    "h(empty))"
)


def inserted(before: pd.DataFrame, after: pd.DataFrame) -> tuple[int, int] | None:
    """(new split node, old node below it) when the update inserted a split above an old node, else None."""
    for j in after.index.difference(before.index):
        if after.at[j, "left"] >= 0:
            children = [int(after.at[j, side]) for side in ("left", "right")]
            old = [c for c in children if c in before.index]
            if len(old) == 1:
                return int(j), old[0]
    return None


def draw_state(ax_cells, ax_tree, nodes: pd.DataFrame, X, names, v: int | None, red: int | None, new) -> None:
    """The restricted partition: splits across their cells (red: ``red``), the range of ``v`` dashed green, the
    points, and the tree with v green and the path of the new point bold."""
    table = nodes.reset_index(drop=True)
    cell_lower, cell_upper = cells(table, *UNIT)
    lower, upper = boxes(table)
    for row, (j, n) in enumerate(nodes.iterrows()):
        if n["left"] >= 0:
            segment = split_segment(int(n["feature"]), n["threshold"], cell_lower[row], cell_upper[row])
            ax_cells.plot(*segment, color=PATH if j == red else "k", lw=2.2 if j == red else 1.5)
    if v is not None:
        row = list(nodes.index).index(v)
        ax_cells.add_patch(plt.Rectangle(lower[row], *(upper[row] - lower[row]), fill=False, ls="--", lw=1.4,
                                         color=V_COLOUR))  # fmt: skip
    draw_points(ax_cells, X, names, new)
    path = path_of(nodes, X[new]) if new is not None else []
    draw_word_tree(ax_tree, nodes, X, names, path, colour=lambda j: V_COLOUR if j == v else PATH if j == red else "k")


def plot(runs, spec) -> Drawing:
    run = runs[0]
    before, after = state(run, 0), state(run, 1)
    X0, names0 = seen(run, 0)
    X1, names1 = seen(run, 1)
    new = len(X1) - 1
    insertion = inserted(before, after)
    v_after, v_before = insertion if insertion else (None, None)
    v_word = words(after).get(v_after, "?") if insertion else "?"
    fig, axes = plt.subplots(1, 4, figsize=(17, 5.6), gridspec_kw={"width_ratios": [1, 1.1, 1, 1.3]})
    draw_state(axes[0], axes[1], before, X0, names0, v_before, None, None)
    draw_state(axes[2], axes[3], after, X1, names1, v_after, v_after, new)
    t = len(X1)
    square(axes[0], f"tree partition $\\Pi_t$ (t = {t}): in green v = {v_word}, its range $R_v$ dashed")
    axes[1].set_title(f"tree $T_t$ (t = {t}): every leaf holds one point", fontsize=9)
    square(axes[2], f"{math_name(names1[new])} outside $R_v$: a split (red) in the extended range")
    axes[3].set_title(f"updated tree: the split inserted at v = {v_word}, its old subtree moved down", fontsize=9)
    fig.suptitle("AMF Fig. 6: AmfUpdate$(x_t, y_t)$ (Algorithms 4 and 5) on the restricted Mondrian tree of the "
                 "library's AMF", fontsize=10)  # fmt: skip
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    fig.text(0.72, 0.01, UPDATES, fontsize=9, va="bottom", bbox={"facecolor": "white", "edgecolor": "0.7"})
    if "stats" in run.tables:
        names = {j: w or "ε" for j, w in words(after).items()}
        text = path_values(before_values(run, before, after), statistics(run, 1), path_of(after, X1[new]), names)
        fig.text(0.01, 0.01, text, fontsize=8, va="bottom", family="monospace")
    return Drawing(fig)


def range_mismatches(nodes: pd.DataFrame, X: np.ndarray) -> int:
    """Nodes whose range is not exactly the range of the points below them (or that hold none)."""
    lower, upper = boxes(nodes)
    below = members(nodes, X)
    bad = 0
    for row, j in enumerate(nodes.index):
        mine = X[below[j]]
        bad += len(mine) == 0 or not (np.allclose(lower[row], mine.min(0)) and np.allclose(upper[row], mine.max(0)))
    return bad


def extension(before: pd.DataFrame, after: pd.DataFrame, old: int, new_split: int, x: np.ndarray) -> tuple[bool, str]:
    """Does the new split cut the extension between the old range R_v and x (Algorithm 5, lines 6-9)?"""
    f, threshold = int(after.at[new_split, "feature"]), float(after.at[new_split, "threshold"])
    a, b = before.at[old, f"lower_{f}"], before.at[old, f"upper_{f}"]
    low, high = (x[f], a) if x[f] < a else (b, x[f])
    text = f"split x{f + 1} > {threshold:.3f} in [{low:.3f}, {high:.3f}] (R_v [{a:.3f}, {b:.3f}], x_t {x[f]:.3f})"
    return bool(low <= threshold <= high and high > low), text


def timing(after: pd.DataFrame, new_split: int, old: int) -> tuple[bool, str]:
    """Is the new split's time between its parent's split time (tau_v, 0 at the root) and v's old split's?"""
    parent = int(after.at[new_split, "parent"])
    tau_v = float(after.at[parent, "split_time"]) if parent >= 0 else 0.0
    tau_new, tau_old = float(after.at[new_split, "split_time"]), float(after.at[old, "split_time"])
    return tau_v < tau_new < tau_old, f"tau_v = {tau_v:.3f} < tau_v + E = {tau_new:.3f} < tau_v0 = {tau_old:.3f}"


def moves(before: pd.DataFrame, after: pd.DataFrame, old: int, new_split: int, x: np.ndarray) -> tuple[bool, str]:
    """Are the old nodes unchanged but for ranges extended along the path of x, the subtree of v moved one level
    down (word v + letter + rest), the others keeping their word?"""
    was, now = words(before), words(after)
    v = was[old]
    letter = now[old][len(v)]
    path = set(path_of(after, x))
    bad, renamed = 0, []
    for j in before.index:
        below_v = was[j].startswith(v)
        expected = v + letter + was[j][len(v) :] if below_v else was[j]
        bad += now.get(j) != expected
        if below_v:
            renamed.append(f"{was[j] or 'ε'} -> {now[j]}")
        b, a = before.loc[j].copy(), after.loc[j]
        if j in path:  # its range is extended to x
            for k in range(len(x)):
                b[f"lower_{k}"], b[f"upper_{k}"] = min(b[f"lower_{k}"], x[k]), max(b[f"upper_{k}"], x[k])
        bad += not same_node(b, a)
    extra = len(after) - len(before)
    return (
        bad == 0 and extra == 2,
        f"{extra} new nodes; renamed {', '.join(renamed)}; {bad} old nodes otherwise changed",
    )


def event(before: pd.DataFrame, after: pd.DataFrame, old: int) -> tuple[bool, str]:
    """Is the node the split was inserted above itself split (the drawing's case, not a leaf's)?"""
    was, now = words(before), words(after)
    split = bool(before.at[old, "left"] >= 0)
    return split, f"inserted above node {was[old] or 'ε'} ({'split' if split else 'a leaf'}), now {now[old]}"


def before_values(run, before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """The statistics before x_t of every node of the updated tree: its own for an old node; for the inserted node,
    a copy of the old node below it (Algorithm 5, line 12); for the new leaf, (1, 1, h(empty))."""
    stats = statistics(run, 0)
    insertion = inserted(before, after)
    copies = {insertion[0]: insertion[1]} if insertion else {}
    rows = {
        j: stats.loc[j] if j in before.index else stats.loc[copies[j]] if j in copies else empty_node(stats)
        for j in after.index
    }
    return pd.DataFrame(rows).T


def update_values(run, before: pd.DataFrame, after: pd.DataFrame) -> list[Claim]:
    """The text's recursion (Sec. 2.2, Algorithm 4 lines 7-14) checked on the library's node statistics."""
    if "stats" not in run.tables:
        return missing("the run logged no node statistics (a model that is not AMF, or an older run)", CAPTION,
                       "AMF Fig. 6 caption")  # fmt: skip
    X, _ = seen(run, 1)
    y = float(run.tables["points"]["label"].iloc[len(X) - 1])
    forecaster = Forecaster.of(run.estimator, statistics(run, 0))
    check = UpdateCheck.of(before_values(run, before, after), statistics(run, 1), after, path_of(after, X[-1]), y,
                           forecaster)  # fmt: skip
    names = {j: w or "ε" for j, w in words(after).items()}
    tolerance = 1e-12 if forecaster.kind == "mean" else 1e-5  # the classifier keeps single precision
    return check.claims(names, tolerance, CAPTION, "AMF Fig. 6 caption", CREATED)


def claims(runs, spec) -> list[Claim]:
    """Invariants of Algorithms 4-5's update, read from the two states' tables."""
    run = runs[0]
    before, after = state(run, 0), state(run, 1)
    X1, names = seen(run, 1)
    x = X1[-1]
    per_leaf = [len(members(after, X1)[j]) for j in after.index[after["left"] < 0]]
    insertion = inserted(before, after)
    out = [
        Claim(
            "all leaves contain exactly one point, and each node's range is the range of its points (restricted)",
            set(per_leaf) == {1} and range_mismatches(after, X1) == 0,
            f"{len(per_leaf)} leaves holding {sorted(per_leaf)} points; "
            f"{range_mismatches(after, X1)} ranges differ from their points'",
            key="one_point_per_leaf",
            kind=INVARIANT,
        )
    ]
    out += update_values(run, before, after)
    if insertion is None:
        absent = f"{names[-1]} inserted no split above an old node"
        return out + [Claim(s, False, absent, key=key, kind=INVARIANT) for key, s in STATEMENTS.items()]
    new_split, old = insertion
    checks = {
        "split_before_next": timing(after, new_split, old),
        "split_in_extension": extension(before, after, old, new_split, x),
        "subtree_moved_down": moves(before, after, old, new_split, x),
        "inserted_above_split": event(before, after, old),
    }
    return out + [
        Claim(STATEMENTS[key], ok, text, key=key, kind=INVARIANT, paper=PAPER.get(key, ""))
        for key, (ok, text) in checks.items()
    ]
