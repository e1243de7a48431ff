"""amf-fig3: the prunings of a small AMF tree with their priors, aggregation weights and predictions at a query.

Top row: each pruning's partition of the unit square (its splits across its cells, the full tree's other splits
dotted), the points x_t and the query (red, its cell shaded). Bottom row: the full tree, the pruning's nodes in
black and the leaf holding the query in red.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.partitions import cells, draw_splits, root_of, tree_layout

QUERY = "#d62728"
# Prop. 1 ("The value f^t(x) from Equation (6) can be computed exactly via the AmfPredict procedure"): its clean span,
# the text file has LaTeX residue around it. Both of the figure's identities are its algebra, checked on the
# library's numbers: invariants of the code, not results.
PROPOSITION_1 = "can be computed exactly via the"


def _kept(pruning: pd.Series) -> set[int]:
    return {int(j) for j in str(pruning["nodes"]).split()}


def _norm(kept: set[int], nodes: pd.DataFrame) -> int:
    """||T||: the nodes of the pruning that are not leaves of the full tree (Eq. (21))."""
    return sum(int(nodes.at[j, "left"]) >= 0 for j in kept)


def _count_prunings(nodes: pd.DataFrame, j: int) -> int:
    """Number of prunings of the subtree at j: 1 + (prunings of its left child) x (prunings of its right child)."""
    if nodes.at[j, "left"] < 0:
        return 1
    return 1 + _count_prunings(nodes, int(nodes.at[j, "left"])) * _count_prunings(nodes, int(nodes.at[j, "right"]))


def _point_names(nodes: pd.DataFrame, points: pd.DataFrame) -> dict[int, str]:
    """The point each leaf of the full tree holds (its range is that point), as x_t."""
    names = {}
    for j in nodes.index[nodes["left"] < 0]:
        at = np.isclose(points["x0"], nodes.at[j, "lower_0"]) & np.isclose(points["x1"], nodes.at[j, "lower_1"])
        names[j] = ",".join(f"$x_{t}$" for t in points.loc[at, "t"])
    return names


def _pruned(nodes: pd.DataFrame, kept: set[int]) -> pd.DataFrame:
    """The node table of the pruning: nodes outside it dropped, its leaves' children cut."""
    table = nodes.copy()
    leaf = ~table["left"].isin(list(kept))
    table.loc[leaf, ["left", "right"]] = -1
    return table


def _draw_cells(ax, run, pruning: pd.Series, query: np.ndarray) -> None:
    nodes, points = run.tables["nodes"], run.tables["points"]
    kept = _kept(pruning)
    lower, upper = cells(nodes, np.zeros(2), np.ones(2))
    draw_splits(ax, nodes, lower, upper, lambda n: "0.8", lw=0.8)
    pruned = _pruned(nodes, kept)
    draw_splits(ax, pruned.loc[sorted(kept)], lower, upper, lambda n: "k", lw=1.6)
    leaf = int(pruning["query_leaf"])
    ax.add_patch(plt.Rectangle(lower[leaf], *(upper[leaf] - lower[leaf]), color=QUERY, alpha=0.12, lw=0, zorder=0))
    ax.scatter(points["x0"], points["x1"], s=18, color="k", zorder=3)
    for _, p in points.iterrows():
        ax.annotate(f"$x_{int(p['t'])}$", (p["x0"], p["x1"]), textcoords="offset points", xytext=(3, 3), fontsize=8)
    ax.scatter(*query, marker="*", s=90, color=QUERY, zorder=4)
    ax.add_patch(plt.Rectangle((0, 0), 1, 1, fill=False, lw=1.2))
    ax.set(xlim=(-0.03, 1.03), ylim=(-0.03, 1.03), aspect="equal", xticks=[], yticks=[])
    ax.axis("off")


def _draw_tree(ax, run, pruning: pd.Series, names: dict[int, str]) -> None:
    nodes = run.tables["nodes"]
    kept = _kept(pruning)
    x, _ = tree_layout(nodes)
    depth = nodes["depth"]
    for j, n in nodes[nodes["parent"] >= 0].iterrows():
        p = int(n["parent"])
        inside = j in kept and p in kept
        ax.plot([x[p], x[j]], [depth[p], depth[j]], color="k" if inside else "0.8", ls="-" if inside else ":", lw=1.2)
    for j in nodes.index:
        is_leaf = j in kept and int(nodes.at[j, "left"]) not in kept
        colour = QUERY if j == int(pruning["query_leaf"]) else ("k" if j in kept else "0.8")
        ax.scatter(x[j], depth[j], marker="s" if is_leaf else "o", s=40 if is_leaf else 22, color=colour, zorder=3)
        if nodes.at[j, "left"] < 0:
            ax.text(x[j], depth[j] + 0.25, names[j], ha="center", va="top", fontsize=8)
    ax.set(xlim=(min(x.values()) - 0.6, max(x.values()) + 0.6), ylim=(depth.max() + 0.8, -0.4), xticks=[], yticks=[])
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)


def plot(runs, spec) -> Drawing:
    run = runs[0]
    prunings = run.tables["prunings"]
    query = np.asarray(run.protocol["query"], dtype=float)
    t = len(run.tables["points"])
    names = _point_names(run.tables["nodes"], run.tables["points"])
    n = len(prunings)
    fig, axes = plt.subplots(2, n, figsize=(2.5 * n, 5.4), gridspec_kw={"height_ratios": [1, 0.8]}, squeeze=False)
    for k, (_, pruning) in enumerate(prunings.iterrows()):
        _draw_cells(axes[0, k], run, pruning, query)
        _draw_tree(axes[1, k], run, pruning, names)
        axes[0, k].set_title(
            f"$T_{{{t},{k}}}$: prior $2^{{-{int(pruning['norm'])}}}$\n"
            f"weight {pruning['weight']:.3f}, $\\hat y$ = {pruning['prediction']:.3f}",
            fontsize=9,
        )
    summary = run.metrics
    fig.suptitle(
        f"the {n} prunings of an AMF tree after t = {t} points (labels "
        + ", ".join(f"$y_{int(p['t'])}$ = {p['y']:g}" for _, p in run.tables["points"].iterrows())
        + f"); aggregated prediction at the query $\\sum_T w(T)\\,\\hat y_T$ = {summary['aggregated_prediction']:.4f}, "
        f"the tree's = {summary['library_prediction']:.4f}",
        fontsize=9,
    )
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    run = runs[0]
    nodes, prunings, summary = run.tables["nodes"], run.tables["prunings"], run.metrics
    norms = np.array([_norm(_kept(p), nodes) for _, p in prunings.iterrows()])
    prior_gap = float(np.abs(prunings["prior"] - 2.0**-norms).max())
    expected = _count_prunings(nodes, root_of(nodes))
    ctw_gap = abs(summary["log_sum_weights"] - summary["log_wbar_root"])
    prediction_gap = abs(summary["aggregated_prediction"] - summary["library_prediction"])
    return [
        Claim(
            "every pruning of the tree is listed once: 1 + product of the children's counts at each node",
            len(prunings) == expected and prunings["nodes"].is_unique,
            f"{len(prunings)} prunings listed, {expected} expected",
            key="prunings_listed",
            kind=INVARIANT,
        ),
        Claim(
            "the priors are 2^-||T|| (||T|| = nodes of T not leaves of the tree) and sum to 1",
            prior_gap == 0 and abs(prunings["prior"].sum() - 1) < 1e-12,
            "priors " + ", ".join(f"2^-{k}" for k in norms) + f", sum {prunings['prior'].sum():.15f}",
            key="priors",
            kind=INVARIANT,
            paper="2^-4, 2^-3, 2^-3, 2^-2, 2^-1 (Fig. 3's panels, summing to 17/16)",
        ),
        Claim(
            "the summed weights prior x prod w_v equal the root's wbar (context-tree weighting, Eq. (28)): the "
            "library's recursion is Lemma 3's algebra",
            ctw_gap < 1e-9,
            f"log sum = {summary['log_sum_weights']:.12f}, log wbar(root) = {summary['log_wbar_root']:.12f}",
            key="context_tree_weighting",
            kind=INVARIANT,
            quote=PROPOSITION_1,
            where="AMF Proposition 1",
        ),
        Claim(
            "the weighted mean of the prunings' predictions is the tree's prediction (Eq. (6)): an exact identity "
            "of the code, no sampling",
            prediction_gap < 1e-9,
            f"{summary['aggregated_prediction']:.12f} vs {summary['library_prediction']:.12f} "
            "(query routed by the splits)",
            key="aggregated_prediction",
            kind=INVARIANT,
            quote=PROPOSITION_1,
            where="AMF Proposition 1",
        ),
    ]
