"""bsp-fig5: the efficiency of the online BSP forest's oblique cuts against the online Mondrian forest with the same
increasing budget, on the toy y = 10 sin(pi x1 x2) + 0.2 N(0, 1): test RMSE and leaves per tree against the budget
multiplier k at N = 5000, test RMSE and training time against N (k = 1), and test RMSE against leaves per tree at
N = 5000, where MF increasing's lifetime_scale sweep (beyond the figure's k) meets BSP's leaves; mean +- 1.96 SE over
replicates."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from experiments.figures import Claim, Drawing, title_with_legend
from experiments.figures.bsp_methods import (
    BETTER,
    COLORS,
    LAW,
    MF_INCREASING,
    at_matched_leaves,
    beat_cases,
    draw_methods,
    margins,
    matched_cases,
    mean_ci,
    method,
    name_key,
    scaled,
    size_axis,
    tree_counts,
)
from experiments.figures.quantifiers import Cases, quantified
from experiments.figures.tables import long_table as runs_table
from experiments.verdicts import NOT_CHECKED

BSP, MF = "BSP", MF_INCREASING
WHERE = "BSP Sec. 5.3 (Fig. 5)"
ALWAYS_QUOTE = (
    "For case\u00a0(1), the left two sub-figures confirm that, for different budget sequences, the online BSP-Forest "
    "can always obtain better RMSE performance than the Mondrian Forest."
)
LEAVES_QUOTE = "The numbers of leaves are also similar between these two algorithms."
STABLE_QUOTE = (
    "It is noted that, as each node is restricted to be cut only if it contains more than 333 datapoints, these "
    "algorithms\u2019 performance becomes stable even for large value settings of budget sequences."
)
SIZES_QUOTE = (
    "For case\u00a0(2), the right two sub-figures indicate the consistent better performance of the online-BSPF for "
    "different number of datapoints, with the price of requiring a bit longer running time"
)
CHEAPER_QUOTE = (
    "In practice, we may alleviate this additional computational cost by using less hierarchical structure (through "
    "settings of smaller budget"
)
EFFICIENT_QUOTE = "(2) the online-BSPF produce more efficient partitions than the Mondrian Forest algorithm."
SIMILAR = 1.25  # "similar" numbers of leaves: within a factor 1.25 (this project's threshold; the text gives none)
STABLE = 0.05  # "stable": RMSE within 5% of its value at the largest k over the large budgets (this project's)
LARGE = 1.0  # "large value settings": k >= 1, the value the paper keeps after case (1) (tau_n = n^(1/4))
A_BIT = 2.0  # "a bit longer": at most 2 times (BSP's d^2 against MF's d in Sec. 3's cost, d = 2; this project's)


def _multiplier(run) -> float:
    """The budget multiplier k of tau_n = k n^(1/4) (BSP's budget_scale, the Mondrian forest's lifetime_scale)."""
    return float(run.estimator.get("budget_scale", run.estimator.get("lifetime_scale")))


def _labels(run) -> dict:
    """method, k, seed and panel: "budget" (one size per run, the left panels), "size" (a curve over N); on the size
    panel MF increasing at k != 1 is its lifetime_scale sweep (its own line)."""
    panel = "budget" if len(run.curves) == 1 else "size"
    name, k = method(run, sweep=False), _multiplier(run)
    if panel == "size" and name == MF and k != 1.0:
        name = scaled(k)
    return {"method": name, "k": k, "seed": run.seed, "panel": panel}


def long_table(runs) -> pd.DataFrame:
    """method, k, seed, panel, n, rmse, leaves, train_time: one row per run and training size."""
    return runs_table(runs, _labels, ["step", "rmse", "leaves", "train_time"]).rename(columns={"step": "n"})


def summary(long: pd.DataFrame, panel: str, by: str) -> pd.DataFrame:
    """Per method and ``by`` (k or n): mean and 1.96 SE of rmse, leaves and train_time over the seeds."""
    return mean_ci(long[long["panel"] == panel], ["method", by], ["rmse", "leaves", "train_time"])


def budget_grid(budget: pd.DataFrame) -> list[float]:
    """The figure's k: those BSP ran (MF increasing's sweep beyond them is for the matched comparison)."""
    return sorted(budget.loc[budget["method"] == BSP, "k"].unique()) or sorted(budget["k"].unique())


def matched(long: pd.DataFrame, panel: str, bsp: str = BSP) -> pd.DataFrame:
    """``bsp``'s replicates of the panel with MF increasing's RMSE at their leaves per tree: on the budget panel
    from every MF run at that N (its k is the sweep), on the size panel from MF's streams at each lifetime_scale."""
    part = long[long["panel"] == panel]
    sweep = part[part["method"].str.startswith(MF)].assign(scale=lambda f: f["k"])
    if sweep["scale"].nunique() < 2:
        return pd.DataFrame()
    return at_matched_leaves(part[part["method"] == bsp], sweep, ["n", "seed"], "rmse")


def plot(runs, spec) -> Drawing:
    long = long_table(runs)
    budget, size = summary(long, "budget", "k"), summary(long, "size", "n")
    grid = budget_grid(long[long["panel"] == "budget"])
    shown = budget[budget["k"] <= max(grid)] if grid else budget
    fig, axes = plt.subplots(1, 5, figsize=(19, 3.9))
    at = ", ".join(f"N = {n}" for n in sorted(long.loc[long["panel"] == "budget", "n"].unique()))
    panels = [
        (shown, "k", "rmse", "test RMSE", f"budget multiplier k ({at})"),
        (shown, "k", "leaves", "leaves per tree", f"budget multiplier k ({at})"),
        (size, "n", "rmse", "test RMSE", "training points N (k = 1)"),
        (size[~size["method"].str.startswith(f"{MF} x")], "n", "train_time", "cumulative training time (s)",
         "training points N (k = 1)"),
    ]  # fmt: skip
    for ax, (table, x, y, ylabel, xlabel) in zip(axes, panels, strict=False):
        draw_methods(ax, table, x, y)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if x == "n" and len(table):
            size_axis(ax, table["n"].unique())
            ax.tick_params(axis="x", labelrotation=45)
        if y in ("leaves", "train_time"):
            ax.set_yscale("log")
    draw_efficiency(axes[4], budget)
    seeds = int(long["seed"].nunique())
    title_with_legend(
        fig,
        axes[0],
        "BSP Fig. 5: online BSP forest vs online Mondrian forest, same budget tau_n = k n^(1/4); "
        f"y = 10 sin(pi x1 x2) + 0.2 N(0,1); {tree_counts(runs)} trees, {seeds} replicates (mean +- 1.96 SE)\n"
        "dashed: MF increasing at lifetime_scale s n^(1/4), s > 1 (its sweep, beyond the figure's k)",
    )
    return Drawing(fig)


def draw_efficiency(ax, budget: pd.DataFrame) -> None:
    """Test RMSE against leaves per tree on the budget panel: each method over its k (MF increasing's sweep
    included), the comparison at matched leaves."""
    for name in (MF, BSP, LAW):
        line = budget[budget["method"] == name].sort_values("leaves")
        if len(line):
            ax.errorbar(line["leaves"], line["rmse"], xerr=line["leaves_ci"], yerr=line["rmse_ci"], marker="o", ms=3,
                        capsize=2, color=COLORS[name], label=name)  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("leaves per tree (each point a k)")
    ax.set_ylabel("test RMSE")
    ax.set_title("cutting efficiency: RMSE at equal leaves", fontsize=9)
    ax.grid(alpha=0.3)


def claims(runs, spec) -> list[Claim]:
    """Section 5.3's statements on the panels that ran (BSP: Algorithm 4 as printed; BSP (law)'s numbers in each
    claim's measured text), and Sec. 5's "more efficient partitions" at matched leaves per tree."""
    long = long_table(runs)
    budget, size = long[long["panel"] == "budget"], long[long["panel"] == "size"]
    grid = budget_grid(budget)
    figure_k = budget[budget["k"].isin(grid)]
    out = []
    if not budget.empty:
        out += [
            lower_rmse(figure_k, "k", "budget multiplier k", "over_budgets", ALWAYS_QUOTE),
            similar_leaves(figure_k),
            *stable(figure_k),
            cheaper_with_smaller_budget(figure_k),
        ]
    if not size.empty:
        out += [lower_rmse(size, "n", "N (k = 1)", "over_sizes", SIZES_QUOTE), *slower(size)]
    if not (budget.empty and size.empty):
        out.append(more_efficient(long))
    return out


def _at(by: str):
    """How a measured text names a value of the setting ``by``: "k=0.5", "N=1000"."""
    name = "N" if by == "n" else by
    return lambda value: f"{name}={value:g}"


def law_line(seeds: pd.DataFrame, by: str, value: str = "rmse") -> str:
    """BSP (law)'s margin over MF increasing at each value of ``by``, the reading drawn beside."""
    if LAW not in set(seeds["method"]):
        return ""
    found = margins(seeds, value, LAW, MF, [by])
    return "; beside, BSP (law) - MF margin: " + ", ".join(
        f"{_at(by)(at)} {r['mean']:+.4f} (bound {r['low']:+.4f})" for at, r in found.iterrows()
    )


def lower_rmse(seeds: pd.DataFrame, by: str, name: str, key: str, quote: str) -> Claim:
    """The paper: BSP "can always obtain better RMSE performance than the Mondrian Forest" (budgets), "the consistent
    better performance" (sizes): at every value of ``by``."""
    cases, measured = beat_cases(seeds, "rmse", BSP, MF, by, label=_at(by))
    values = {}
    if LAW in set(seeds["method"]):
        better, worse = margins(seeds, "rmse", LAW, MF, [by]), margins(seeds, "rmse", MF, LAW, [by])
        values = {"law_better": int((better["low"] > 0).sum()), "law_worse": int((worse["low"] > 0).sum()),
                  "cases": len(cases.margins)}  # fmt: skip
    return quantified(f"BSP has a lower test RMSE than MF increasing at every {name} ({BETTER})", cases,
                      measured + law_line(seeds, by), key=f"bsp_beats_mf_{key}", quote=quote, where=WHERE,
                      values=values | cases.values())[0]  # fmt: skip


def similar_leaves(budget: pd.DataFrame) -> Claim:
    """The paper: "The numbers of leaves are also similar between these two algorithms": at every k, the mean
    leaves per tree within a factor SIMILAR."""
    wide = summary(budget, "budget", "k").pivot(index="k", columns="method", values="leaves")
    b, m = wide[BSP], wide[MF]
    ratio = np.maximum(b / m, m / b)
    cases = Cases(
        {f"k={k:g}": SIMILAR - ratio[k] for k in b.index},
        labels={f"k={k:g}": f"{b[k]:.0f} vs {m[k]:.0f} leaves, {SIMILAR:g} - ratio" for k in b.index},
    )
    values = {"bsp_leaves_min": b.min(), "bsp_leaves_max": b.max(), "mf_leaves_min": m.min(), "mf_leaves_max": m.max(),
              "ratio_min": ratio.min(), "ratio_max": ratio.max(), "similar": SIMILAR}  # fmt: skip
    measured = "; ".join(f"k={k:g}: {b[k]:.1f} vs {m[k]:.1f} ({ratio[k]:.2f}x)" for k in b.index)
    if LAW in wide:
        law = np.maximum(wide[LAW] / m, m / wide[LAW])
        measured += "; beside, BSP (law) vs MF: " + ", ".join(f"k={k:g} {law[k]:.2f}x" for k in law.index)
        values |= {"law_ratio_min": law.min(), "law_ratio_max": law.max()}
    return quantified(
        f"at every k, BSP and MF increasing have similar numbers of leaves per tree (means within a factor "
        f"{SIMILAR:g}: this project's threshold; the text gives none)",
        cases, measured, key="similar_leaves", quote=LEAVES_QUOTE, where=WHERE, values=values,
    )[0]  # fmt: skip


def stable(budget: pd.DataFrame) -> list[Claim]:
    """The paper: "these algorithms' performance becomes stable even for large value settings of budget sequences":
    for BSP and MF increasing each, over the large k (k >= LARGE, to the largest of the figure), the mean RMSE
    within STABLE of its value at the largest k, and no significant rise from LARGE to the largest k (the upper 95%
    bound of the paired RMSE(largest) - RMSE(LARGE) at most STABLE of RMSE(largest))."""
    top = budget["k"].max()
    if not top > LARGE:
        return [Claim("over the large budgets, the RMSE of each of BSP and MF increasing is stable", None,
                      f"not checked: these runs have no budget above k = {LARGE:g}", key="stable_for_large_budgets",
                      quote=STABLE_QUOTE, where=WHERE, status=NOT_CHECKED)]  # fmt: skip
    large = budget[budget["k"] >= LARGE]
    means = large.groupby(["method", "k"])["rmse"].mean()
    cases, labels, parts, values = {}, {}, [], {"stable": STABLE, "large": LARGE, "top": top}
    for name in (n for n in (BSP, MF, LAW) if n in set(large["method"])):
        level = means[name]
        spread = float((level - level[top]).abs().max() / level[top])
        rise = margins(large[large["k"].isin([LARGE, top])].assign(
            method=lambda f: f["method"] + f["k"].map({LARGE: "@low", top: "@top"})), "rmse", f"{name}@low",
            f"{name}@top", ["panel"]).iloc[0]  # fmt: skip
        upper = float((2 * rise["mean"] - rise["low"]) / level[top])  # the one-sided upper bound of the rise
        margin = min(STABLE - spread, STABLE - upper)
        parts.append(f"{name}: RMSE {level.iloc[0]:.4f} at k={level.index[0]:g} to {level[top]:.4f} at k={top:g}, "
                     f"largest change {spread:.1%}, upper bound of the rise {upper:+.1%}")  # fmt: skip
        values |= {f"{name_key(name)}_spread": spread, f"{name_key(name)}_first": level.iloc[0],
                   f"{name_key(name)}_last": level[top]}  # fmt: skip
        if name != LAW:
            cases[name], labels[name] = margin, f"change {spread:.1%}, rise bound {upper:+.1%}, {STABLE:.0%} - largest"
    found = Cases(cases, labels=labels)
    statement = (
        f"over the large budgets (k from {LARGE:g} to {top:g}), the RMSE of each of BSP and MF increasing is "
        f"stable: within {STABLE:.0%} of its value at k = {top:g}, with no significant rise ({STABLE:.0%}: this "
        "project's threshold; the text gives none)"
    )
    printed = quantified(statement, found, "; ".join(parts), key="stable_for_large_budgets", quote=STABLE_QUOTE,
                         where=WHERE, values=values)[0]  # fmt: skip
    if BSP not in cases:
        return [printed]
    weaker = printed.weaker(
        f"over the large budgets (k from {LARGE:g} to {top:g}), BSP's RMSE is stable (within {STABLE:.0%}, no "
        "significant rise)", found.holds(BSP), found.margin(BSP), key="stable_for_large_budgets_bsp",
    )  # fmt: skip
    return [printed, weaker]


def cheaper_with_smaller_budget(budget: pd.DataFrame) -> Claim:
    """Sec. 3: the extra cost may be alleviated "through settings of smaller budget": BSP trains faster at the
    smallest k than at the largest (paired over replicates)."""
    low, top = budget["k"].min(), budget["k"].max()
    ends = budget[(budget["method"] == BSP) & budget["k"].isin([low, top])]
    ends = ends.assign(method=ends["k"].map({low: "small", top: "large"}))
    found = margins(ends, "train_time", "small", "large", ["panel"]).iloc[0]
    means = budget[budget["method"] == BSP].groupby("k")["train_time"].mean()
    rho = stats.spearmanr(means.index, means.to_numpy()).statistic if means.nunique() > 1 else float("nan")
    return Claim(
        f"BSP trains faster with the smallest budget of the figure (k = {low:g}) than with the largest (k = {top:g}) "
        f"({BETTER})",
        bool(found["low"] > 0),
        f"{means[low]:.2f} s vs {means[top]:.2f} s (margin {found['mean']:+.2f} s, bound {found['low']:+.2f}); "
        f"Spearman correlation of k and the mean time over the figure's k {rho:+.2f}",
        key="smaller_budget_cheaper",
        quote=CHEAPER_QUOTE,
        where="BSP Sec. 3 (computational complexity)",
        values={"time_small": means[low], "time_large": means[top], "spearman": rho},
        timed=True,
    )


def slower(size: pd.DataFrame) -> list[Claim]:
    """The paper: the better RMSE comes "with the price of requiring a bit longer running time" (O(d^2) pairs): at
    every N longer (over replicates) and at most A_BIT times MF's cumulative training time (ratio of the means);
    beside it, the weaker "longer"."""
    longer, text = beat_cases(size, "train_time", MF, BSP, "n", label=_at("n"))
    means = size.groupby(["n", "method"])["train_time"].mean()
    ratios = {n: means[n, BSP] / means[n, MF] for n in sorted(size["n"].unique())}
    cases = {f"N={n}": min(longer.margins[f"N={n}"], A_BIT - r) for n, r in ratios.items()}
    labels = {f"N={n}": f"{r:.1f}x, min(bound, {A_BIT:g} - ratio)" for n, r in ratios.items()}
    statement = (
        f"at every N, BSP takes longer to train than MF increasing ({BETTER}), but no more than {A_BIT:g} times as "
        f"long (a bit: {A_BIT:g}, this project's threshold, the factor d of BSP's O(N log N d^2) over the Mondrian "
        "forest's O(N log N d) at d = 2)"
    )
    values = {"ratio_min": min(ratios.values()), "ratio_max": max(ratios.values()), "a_bit": A_BIT}
    measured = f"seconds, {text}; ratios " + ", ".join(f"N={n} {r:.1f}x" for n, r in ratios.items())
    printed = quantified(statement, Cases(cases, labels=labels), measured, key="bsp_slower", quote=SIZES_QUOTE,
                         where=WHERE, values=values, timed=True)[0]  # fmt: skip
    weaker = printed.weaker(f"at every N, BSP takes longer to train than MF increasing ({BETTER})", longer.every(),
                            text, key="bsp_slower_longer", exceptions=longer.exceptions())  # fmt: skip
    return [printed, weaker]


def more_efficient(long: pd.DataFrame) -> Claim:
    """Sec. 5's "(2) the online-BSPF produce more efficient partitions than the Mondrian Forest algorithm": at the
    same number of leaves per tree, BSP's RMSE lower than MF increasing's, at every k of the budget panel and every
    N of the size panel (MF increasing's RMSE interpolated at BSP's leaves between the two runs of its sweep that
    bracket them, replicate by replicate; no extrapolation)."""
    statement = (
        "at every k of the budget panel and every N of the size panel, BSP has a lower test RMSE than MF increasing "
        "with as many leaves per tree (interpolated in log leaves between MF's two lifetime_scales that bracket BSP's "
        f"leaves, replicate by replicate; no extrapolation; {BETTER})"
    )
    grid = budget_grid(long[long["panel"] == "budget"])
    cases, parts, values = {}, [], {}
    for panel, by in (("budget", "k"), ("size", "n")):
        found = matched(long, panel)
        if found.empty:
            continue
        if by == "k":
            found = found[found["k"].isin(grid)]
        panel_cases, text = matched_cases(found, by, "rmse", lower=True, label=_at(by))
        cases |= panel_cases.margins
        parts.append(f"{panel} panel: {text}")
        rows = found.dropna(subset=["matched"])
        lead = (rows["matched"] - rows["rmse"]).groupby(rows[by]).mean()
        if len(lead):
            values |= {f"{panel}_lead_min": float(lead.min()), f"{panel}_lead_max": float(lead.max())}
        law = matched(long, panel, LAW)
        if len(law):
            law_cases, _ = matched_cases(law, by, "rmse", lower=True, label=_at(by))
            parts.append(f"beside, BSP (law) at its leaves: better at {law_cases.count()} {by}")
            values[f"law_{panel}_better"] = len(law_cases.holding)
    if not cases:
        why = "; ".join(parts) or "MF increasing's lifetime_scale sweep is not in these runs"
        return Claim(statement, None, f"not checked: no leaves of BSP matched by MF increasing's sweep ({why})",
                     key="more_efficient_partitions", quote=EFFICIENT_QUOTE, where="BSP Sec. 5 (intro)",
                     status=NOT_CHECKED)  # fmt: skip
    found = Cases(cases)
    return quantified(statement, found, "; ".join(parts), key="more_efficient_partitions", quote=EFFICIENT_QUOTE,
                      where="BSP Sec. 5 (intro)", values=values)[0]  # fmt: skip
