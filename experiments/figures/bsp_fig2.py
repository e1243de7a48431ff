"""bsp-fig2: the online update of a 2-D BSP tree, one arrival per column: hulls (dashed) and cuts (solid), what is
new or grown at this step in red, the arriving point as a star; the tree beneath (new nodes in red). Below, the
theorem check of Sec. 3 (``experiments.protocols.bsp_order``): the number of leaves of online trees learning the same
points in two orders, under each leaf rule, against the batch tree on the full data, at a fixed budget and under the
increasing budget."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter, ScalarFormatter
from scipy import stats

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.bsp_drawing import draw_partition, draw_tree, polygons
from experiments.figures.quantifiers import Cases, quantified

CASES = ("absorbed", "leaf cut", "cut above", "extended")
WHERE = "BSP Sec. 3 (cBSP, after Algorithm 5; Theorem 1)"
# The sentence after Algorithm 5, verbatim (the file's LaTeX for BSP_x included), and its consequence.
LAW_QUOTE = (
    "That is, the distribution of an online BSP-Tree trained (using the cBSP) on sequentially arriving data, is the "
    "same as that of a BSP-Tree\xa0(BSP\U0001d499subscriptBSP\U0001d499\\text{BSP}_{\\boldsymbol{x}}) directly trained "
    "on the full dataset."
)
SHUFFLE_QUOTE = "Different shuffling arrangement on the datapoints would not affect the partition result."
BOTH_QUOTE = f"{LAW_QUOTE} {SHUFFLE_QUOTE}"
LEVEL = 0.01  # two-sample tests at this level: a p-value below it is a departure
STATISTICS = {"leaves": "leaves", "root_time": "root cut time"}
STYLES = {("batch", "-"): ("k", "-"), ("law", "shuffled"): ("tab:orange", "-"), ("law", "sorted"): ("tab:orange", "--"),
          ("text", "shuffled"): ("tab:red", "-"), ("text", "sorted"): ("tab:red", "--")}  # fmt: skip


def protocol_runs(runs, name: str) -> list:
    """The runs of the illustration (``bsp_online``: its table of steps) or of the order check (``bsp_order``: its
    table of trees)."""
    table = {"bsp_online": "steps", "bsp_order": "trees"}[name]
    return [run for run in runs if table in run.tables]


def _changed(row) -> str:
    return "red" if row["new"] or row["grown"] else "k"


def plot(runs, spec) -> Drawing:
    shown, order = protocol_runs(runs, "bsp_online"), protocol_runs(runs, "bsp_order")
    n = len(shown[0].tables["steps"]) if shown else 4
    rows = (2 if shown else 0) + (1 if order else 0)
    ratios = ([1.2, 1] if shown else []) + ([1.4] if order else [])
    fig = plt.figure(figsize=(max(2.3 * n, 10), 2.6 * sum(ratios)))
    grid = fig.add_gridspec(rows, n, height_ratios=ratios)
    if shown:
        draw_updates(fig, grid, shown[0], n)
    if order:
        table = order[0].tables["trees"]
        budgets = list(dict.fromkeys(table["budget"]))
        halves = np.array_split(np.arange(n), len(budgets))
        for columns, budget in zip(halves, budgets, strict=True):
            draw_order(fig.add_subplot(grid[rows - 1, columns[0] : columns[-1] + 1]), table, budget, order[0])
    fig.tight_layout()
    return Drawing(fig)


def draw_order(ax, table: pd.DataFrame, budget: str, run) -> None:
    """The leaves' empirical distribution per cell (rule, order) at one budget setting."""
    part = table[table["budget"] == budget]
    for (rule, order), cell in part.groupby(["rule", "order"], sort=False):
        colour, style = STYLES[rule, order]
        leaves = np.sort(cell["leaves"].to_numpy())
        label = "batch (Algorithm 5, all points)" if rule == "batch" else f"online, {rule} rule, {order}"
        ax.step(leaves, np.arange(1, len(leaves) + 1) / len(leaves), where="post", color=colour, ls=style,
                label=f"{label}: mean {leaves.mean():.1f}")  # fmt: skip
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set(xlabel="leaves per tree", ylabel="fraction of trees")
    m = run.metrics
    setting = f"fixed budget {m['budget']:g}" if budget == "fixed" else f"increasing budget, tau_N = {m['tau_n']:.2f}"
    ax.set_title(f"Sec. 3: {m['n_points']:.0f} points of [0,1]^2 in two orders, {m['n_trees']:.0f} trees per line; "
                 f"{setting}", fontsize=9)  # fmt: skip
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)


def draw_updates(fig, grid, run, n: int) -> None:
    """The illustration: one column per arrival, the partition above and the tree below."""
    steps, nodes, hulls = run.tables["steps"], run.tables["nodes"], run.tables["hulls"]
    axes = [[fig.add_subplot(grid[row, k]) for k in range(n)] for row in (0, 1)]
    depth = 0
    for k, step in steps.iterrows():
        top, bottom = axes[0][k], axes[1][k]
        at = nodes[nodes["step"] == step["step"]]
        draw_partition(top, at, hulls[hulls["step"] == step["step"]], _changed)
        seen = steps.iloc[: k + 1]
        top.scatter(seen["x"][:-1], seen["y"][:-1], s=12, color="k", zorder=3)
        top.scatter([step["x"]], [step["y"]], s=90, marker="*", color="red", zorder=4)
        for _, p in seen.iterrows():
            top.annotate(p["label"], (p["x"], p["y"]), textcoords="offset points", xytext=(3, 3), fontsize=8)
        top.set(xlim=(-0.05, 1.05), ylim=(-0.05, 1.05), xticks=[], yticks=[], aspect="equal")
        top.set_title(f"{step['label']} arrives:\n{step['events']}", fontsize=8)
        depth = max(depth, draw_tree(bottom, at, lambda row: "red" if row["new"] else "k"))
    for bottom in axes[1]:
        bottom.set_ylim(-depth - 0.5, 0.5)
    fig.suptitle(
        f"BSP Fig. 2: online updates of one BSP tree (budget {run.protocol['budget']:g}, seed {run.seed}); dashed: "
        "hulls, solid: cuts, red: new or grown at this step",
        fontsize=10,
    )


def _sides_hold(vertices: np.ndarray, row, left: bool) -> bool:
    along = vertices @ np.array([row["c"], row["s"]]) - row["u"]
    return bool((along <= 1e-12).all()) if left else bool((along > -1e-12).all())


def claims(runs, spec) -> list[Claim]:
    """The drawing's invariants, and Sec. 3's sentence checked on the order trial (``order_claims``)."""
    shown, order = protocol_runs(runs, "bsp_online"), protocol_runs(runs, "bsp_order")
    return (drawing_invariants(shown[0]) if shown else []) + (order_claims(order[0]) if order else [])


def drawing_invariants(run) -> list[Claim]:
    """What the drawing must show (every case of the update, for the seed chosen) and what the update keeps by
    construction (a cut never crosses its children's hulls)."""
    steps, nodes, hulls = run.tables["steps"], run.tables["nodes"], run.tables["hulls"]
    seen = {e for events in steps["events"].fillna("") for e in events.split(", ") if e}
    out = [
        Claim(
            "the arrivals show every case of the online update (absorbed, leaf cut, cut above, extended)",
            set(CASES) <= seen,
            "; ".join(f"{s['label']}: {s['events']}" for _, s in steps.iterrows()),
            key="every_update_case_shown",
            kind=INVARIANT,
        )
    ]
    separated, above, checked_above = 0, 0, True
    for step, at in nodes.groupby("step"):
        shapes = polygons(hulls[hulls["step"] == step])
        for _, row in at[at["left"] >= 0].iterrows():
            left_ok = _sides_hold(shapes[int(row["left"])], row, True)
            right_ok = _sides_hold(shapes[int(row["right"])], row, False)
            separated += left_ok and right_ok
            if row["new"] and not (at.set_index("node").loc[[row["left"], row["right"]], "new"]).all():
                above += 1  # a cut put above an old node: the old node's hull lies on one side
                checked_above &= left_ok and right_ok
    total = sum(len(at[at["left"] >= 0]) for _, at in nodes.groupby("step"))
    out.append(
        Claim(
            "every cut leaves its children's hulls on its two sides (new cuts above a node do not cross its hull)",
            separated == total and checked_above,
            f"{separated} of {total} (node, step) cuts; {above} new cuts above an old node",
            key="cuts_separate_children_hulls",
            kind=INVARIANT,
        )
    )
    return out


def compare(table: pd.DataFrame, budget_setting: str, first: tuple[str, str], second: tuple[str, str],
            cap: float) -> tuple[float, str]:  # fmt: skip
    """Two cells (rule, order) at one budget setting, tree by tree: the smallest p-value of the two-sample
    Kolmogorov-Smirnov and Mann-Whitney tests on the leaves and on the root cut time (censored at ``cap``), and the
    measured text."""
    part = table[table["budget"] == budget_setting]
    a = part[(part["rule"] == first[0]) & (part["order"] == first[1])]
    b = part[(part["rule"] == second[0]) & (part["order"] == second[1])]
    pvalues, parts = [], []
    for column, name in STATISTICS.items():
        x, y = (
            (a[column], b[column]) if column == "leaves" else (np.minimum(a[column], cap), np.minimum(b[column], cap))
        )
        ks, mw = stats.ks_2samp(x, y, method="asymp").pvalue, stats.mannwhitneyu(x, y).pvalue
        pvalues += [ks, mw]
        parts.append(f"{name} {x.mean():.3f} vs {y.mean():.3f} (KS p {ks:.2g}, MW p {mw:.2g})")
    return min(pvalues), ", ".join(parts)


def cell_name(cell: tuple[str, str]) -> str:
    return "batch" if cell[0] == "batch" else f"{cell[0]} {cell[1]}"


def order_cases(table: pd.DataFrame, budget_setting: str, pairs, cap: float) -> tuple[Cases, str]:
    """Per pair of cells, the smallest p-value minus the claim's level per test (LEVEL over the claim's tests,
    Bonferroni: > 0 where no departure is found), and the measured text."""
    margins, labels, parts = {}, {}, []
    each = LEVEL / (2 * len(STATISTICS) * len(pairs))
    for first, second in pairs:
        case = f"{cell_name(first)} vs {cell_name(second)}"
        p, text = compare(table, budget_setting, first, second, cap)
        margins[case], labels[case] = p - each, f"smallest p {p:.2g}, minus {each:.2g}"
        parts.append(f"{case}: {text}")
    return Cases(margins, labels=labels, digits=5), "; ".join(parts)


def cell_values(table: pd.DataFrame) -> dict[str, float]:
    """The mean leaves per tree of each cell, by name (fixed_law_sorted_leaves, increasing_batch_leaves, ...)."""
    means = table.groupby(["budget", "rule", "order"])["leaves"].mean()
    return {"_".join(p for p in (b, r, o) if p != "-") + "_leaves": v for (b, r, o), v in means.items()}


def order_claims(run) -> list[Claim]:
    """Sec. 3's sentence: the online tree has the batch tree's law, whatever the order of the points. Checked at a
    fixed budget (the sentence's setting) under the law's leaf rule (the reading under which it is proved); the
    printed Algorithm 4 (the text's rule) and the increasing budget of the experiments on lines of their own."""
    table, m = run.tables["trees"], run.metrics
    setting = (f"a fixed budget tau = {m['budget']:g} ({m['n_points']:.0f} uniform points of [0,1]^2, "
               f"{m['n_trees']:.0f} trees per order)")  # fmt: skip
    test = (f"two-sample Kolmogorov-Smirnov and Mann-Whitney tests on the leaves and on the root's cut time, no "
            f"departure at level {LEVEL:g} over the claim's tests (Bonferroni)")  # fmt: skip
    batch, values = ("batch", "-"), {**cell_values(table), "level": LEVEL, "tau_n": m["tau_n"], "budget": m["budget"]}
    law = [(("law", o), batch) for o in ("shuffled", "sorted")]
    out = []
    cases, text = order_cases(table, "fixed", law, m["budget"])
    out += quantified(
        f"at {setting}, the online tree under the law's leaf rule (a leaf sampled on from its budget) has the law of "
        f"the batch tree (Algorithm 5 on all the points, implemented apart from the library) in each order, shuffled "
        f"and sorted along x1 + 0.5 x2: {test}", cases, text, key="online_has_batch_law", quote=LAW_QUOTE,
        where=WHERE, values=values)  # fmt: skip
    cases, text = order_cases(table, "fixed", [(("law", "shuffled"), ("law", "sorted"))], m["budget"])
    out += quantified(
        f"at {setting}, the law rule's online trees have the same law whichever the order of the points (shuffled, "
        f"sorted along x1 + 0.5 x2): {test}", cases, text, key="order_does_not_matter", quote=SHUFFLE_QUOTE,
        where=WHERE, values=values)  # fmt: skip
    if "text" in set(table["rule"]):
        text_pairs = [(("text", o), batch) for o in ("shuffled", "sorted")] + [
            (("text", "shuffled"), ("text", "sorted"))
        ]
        cases, text = order_cases(table, "fixed", text_pairs, m["budget"])
        out += quantified(
            f"at {setting}, the online tree of Algorithm 4 as printed (a leaf reached by a point cut again from "
            f"scratch, HullCut) has the batch tree's law in each order and whatever the order: {test}", cases, text,
            key="printed_algorithm_keeps_batch_law", quote=BOTH_QUOTE, where=WHERE, values=values)  # fmt: skip
    if "increasing" in set(table["budget"]):
        pairs = [*((("law", o), batch) for o in ("shuffled", "sorted")), (("law", "shuffled"), ("law", "sorted"))]
        cases, text = order_cases(table, "increasing", pairs, m["tau_n"])
        means = table[table["budget"] == "increasing"].groupby(["rule", "order"])["leaves"].mean()
        text += "; beside, the text's rule: " + ", ".join(f"{o} {means['text', o]:.1f} leaves" for o in
                                                          ("shuffled", "sorted") if ("text", o) in means)  # fmt: skip
        out += quantified(
            f"under the experiments' increasing budget tau_n = n^(1/4) (the same points and trees), the law rule's "
            f"online tree after the last point has the law of the batch tree at tau_N = {m['tau_n']:.2f} in each order "
            f"and whatever the order: {test}", cases, text, key="increasing_budget_keeps_batch_law",
            quote=BOTH_QUOTE, where=WHERE, values=values)  # fmt: skip
    return out
