"""theory-rates-smooth: on a C^2 regression function (s = 2) in d = 1, a single purely random Mondrian tree with
lam_n = c n^(1/3) against a forest with lam_n = c' n^(1/5) and M_n = ceil(n^(2/5)) trees, risk on the inner box
(MGS20 Sec. 5.3: Proposition 3 and Theorem 3). The claims are tested at the lifetime constants the config fixes
before the run (``constants``: the balance of each bound's two terms); beside them every claim's verdict at each
constant of the declared grid (``band``), drawn as a band around the fixed constants' curves, so that a reader sees
where each claim holds and no constant is picked for passing."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from experiments.figures import Claim, Drawing
from experiments.figures.theory_family import (
    HALF_WIDTH,
    geometric_mean,
    late_half,
    log_axes,
    number_key,
    one_sided,
    rate_claim,
    rate_fits,
    rate_reading,
    rate_table,
    row_of,
    seed_slopes,
    two_sided_rate,
    upper_rate,
)

TREE, FOREST = "tree", "forest"
LABELS = {TREE: "tree, lam_n = c n^(1/3)", FOREST: "forest, lam_n = c n^(1/5), M_n = ceil(n^(2/5))"}
BY = ("d", "variant", "constant")
MUCH = 2.0  # "much better": the tree's risk at least twice the forest's (this project's threshold; the text has none)


def variant(run) -> str:
    return FOREST if run.protocol["trees_exponent"] else TREE


def constant(run) -> dict:
    return {"constant": float(run.protocol["lifetime_scale"])}


def rates(d: int) -> dict[str, float]:
    """The tree's rate -2/(d+2) (Proposition 3, Theorem 2) and the forest's -2s/(d+2s) with s = 2 (Theorem 3)."""
    return {TREE: -2.0 / (d + 2), FOREST: -4.0 / (d + 4)}


def fixed(spec) -> dict[str, float]:
    """The lifetime constants the config fixed before the run, per variant."""
    return {TREE: float(spec.constants.tree), FOREST: float(spec.constants.forest)}


def band(spec) -> list[float]:
    return [float(c) for c in spec.band]


def plot(runs, spec) -> Drawing:
    long = rate_table(runs, variant, constant)
    chosen = fixed(spec)
    fitted = rate_fits(long, BY)["late"]
    fig, (ax, ax_slope) = plt.subplots(1, 2, figsize=(13, 4.6), gridspec_kw={"width_ratios": [1.2, 1]})
    for k, name in enumerate((TREE, FOREST)):
        colour, part = f"C{k}", long[long["variant"] == name]
        means = geometric_mean(part, ["constant", "n"]).unstack("constant")
        grid = means[[c for c in band(spec) if c in means.columns]]
        ax.fill_between(
            means.index,
            grid.min(axis=1),
            grid.max(axis=1),
            color=colour,
            alpha=0.15,
            label=f"{name}: min-max over c in {{{', '.join(f'{c:g}' for c in grid.columns)}}}",
        )
        headline = part[part["constant"] == chosen[name]]
        ax.plot(
            means.index,
            means[chosen[name]],
            "o-",
            color=colour,
            ms=4,
            lw=1.4,
            label=f"{LABELS[name]}, c = {chosen[name]:g} (fixed before the run)",
        )
        ax.scatter(headline["n"], headline["risk"], color=colour, s=4, alpha=0.25)
        n = means.index.to_numpy(float)
        rate = rates(int(part["d"].iloc[0]))[name]
        ax.plot(
            n,
            means[chosen[name]].iloc[0] * (n / n[0]) ** rate,
            ":" if name == TREE else "--",
            color="k",
            lw=1,
            label=f"{name}'s rate n^({rate:.3f})",
        )
        rows = fitted[fitted["variant"] == name].sort_values("constant")
        ax_slope.errorbar(
            rows["constant"],
            rows["slope"],
            yerr=[rows["slope"] - rows["low"], rows["high"] - rows["slope"]],
            fmt="o-",
            color=colour,
            capsize=3,
            ms=4,
            label=f"{name}: late-half slope, 95% interval",
        )
        ax_slope.axhline(rate, color=colour, ls=":" if name == TREE else "--", lw=1, label=f"{name}'s rate {rate:.3f}")
        ax_slope.axvline(chosen[name], color=colour, lw=0.8, alpha=0.6)
        ax_slope.annotate(
            f"c = {chosen[name]:g}",
            (chosen[name], 1),
            xycoords=("data", "axes fraction"),
            xytext=(3, -10 - 10 * k),
            textcoords="offset points",
            color=colour,
            fontsize=8,
        )
    log_axes(ax, "risk on the inner box [0.05, 0.95] against n")
    ax.set_ylabel("excess risk E(f_hat(X) - f(X))^2", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    ax_slope.set_xscale("log")
    ax_slope.set_xticks(band(spec), [f"{c:g}" for c in band(spec)], fontsize=8)
    ax_slope.xaxis.set_minor_formatter(NullFormatter())
    ax_slope.set(
        xlabel="lifetime constant c (vertical lines: the constants fixed before the run)",
        ylabel="slope of log risk on log n (late half of n)",
    )
    ax_slope.set_title("sensitivity of the rates to the lifetime constant", fontsize=10)
    ax_slope.grid(alpha=0.3, lw=0.5)
    ax_slope.legend(fontsize=7)
    seeds = long.groupby("variant")["seed"].nunique()
    fig.suptitle(
        "MGS20 Sec. 5.3: f(x) = sin(2 pi x) (C^2), noise sd 0.1: a single Mondrian tree against a forest whose "
        f"lifetime and size follow s = 2; seeds: tree {seeds.get(TREE, 0)}, forest {seeds.get(FOREST, 0)}\n"
        "lines: the constants fixed before the run (geometric mean over seeds; dots: seeds); bands: the declared "
        "grid of constants",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return Drawing(fig)


def paired(long: pd.DataFrame, tree_c: float, forest_c: float, value: str) -> pd.DataFrame:
    """Per n (or per seed, for ``value`` = "slope"): the tree's and the forest's numbers on the seeds both ran."""
    tree = long[(long["variant"] == TREE) & (long["constant"] == tree_c)]
    forest = long[(long["variant"] == FOREST) & (long["constant"] == forest_c)]
    keys = ["seed"] if value == "slope" else ["n", "seed"]
    return tree.merge(forest, on=keys, suffixes=("_tree", "_forest"))[[*keys, f"{value}_tree", f"{value}_forest"]]


def much_better(long: pd.DataFrame, tree_c: float, forest_c: float) -> tuple[bool, dict, str]:
    """At every n, the tree's risk over the forest's (paired over seeds, on the log scale) significantly above MUCH:
    the one-sided 95% lower bound of the mean log ratio above log MUCH. Returns the verdict, the ratios and the text."""
    pairs = paired(long, tree_c, forest_c, "risk")
    pairs = pairs.assign(log_ratio=np.log(pairs["risk_tree"] / pairs["risk_forest"]))
    bounds = {int(n): one_sided(part["log_ratio"]) for n, part in pairs.groupby("n")}
    holds = all(low > np.log(MUCH) for _, low, _ in bounds.values())
    text = ", ".join(f"n={n}: {np.exp(m):.1f} (lower {np.exp(low):.1f})" for n, (m, low, _) in bounds.items())
    return holds, {n: float(np.exp(low)) for n, (_, low, _) in bounds.items()}, text


def improved_rate(long: pd.DataFrame, tree_c: float, forest_c: float) -> tuple[bool, float, float, int]:
    """The forest's late-half slope minus the tree's, paired over the seeds both ran: its mean, one-sided 95% upper
    bound and the number of pairs."""
    slopes = seed_slopes(late_half(long), by=BY)
    pairs = paired(slopes, tree_c, forest_c, "slope")
    mean, _, high = one_sided(pairs["slope_forest"] - pairs["slope_tree"])
    return high < 0, mean, high, len(pairs)


def verdict_word(verdict) -> str:
    return {"holds": "holds", "fails": "fails", "underpowered": "not checked (underpowered)"}[verdict[0]]


def claims(runs, spec) -> list[Claim]:
    """Per d, at the constants fixed before the run: Theorem 3's forest rate (one-sided), Proposition 3's tree rate
    (two-sided, "the same rate"), the forest much better than the tree at every n, the forest's rate better than the
    tree's; each with its verdict at every constant of the declared grid beside it."""
    long = rate_table(runs, variant, constant)
    fits = rate_fits(long, BY)
    chosen, grid = fixed(spec), band(spec)
    out = []
    for d in sorted(long["d"].unique()):
        rate = rates(d)
        present = {name: set(long.loc[(long["d"] == d) & (long["variant"] == name), "constant"]) for name in rate}
        on_grid = [c for c in grid if c in present[TREE] and c in present[FOREST]]
        where_c = f" at c = {chosen[TREE]:g} (tree) and c = {chosen[FOREST]:g} (forest), fixed before the run"
        beside = "; its verdict at every constant of the declared grid is listed beside it"
        for name, test, key, quote, where, words in (
            (
                FOREST,
                upper_rate,
                f"forest_rate_d{d}",
                "However, it turns out that large enough Mondrian Forests, which average Mondrian trees, are minimax "
                "optimal over .",
                "MGS20 Sec. 5.3, on Theorem 3 (5.4)",
                "the forest's risk on the inner box is O(n^({r:.3f})), Theorem 3's minimax rate n^(-2s/(d+2s)) with "
                "lam_n ~ n^(1/(d+2s)) and M_n ~ n^(2/(d+2s)): over the late half of n its mean per-seed slope is not "
                "significantly shallower (one-sided 95% lower end <= {r:.3f}), its one-sided half-width <= {w}",
            ),
            (
                TREE,
                two_sided_rate,
                f"tree_rate_d{d}",
                "single Mondrian trees do not benefit from this additional smoothness assumption, and achieve the same "
                "rate as in the Lipschitz case.",
                "MGS20 Sec. 5.3, on Proposition 3",
                "the single tree decays at the Lipschitz rate n^({r:.3f}), no faster and no slower: over the late half "
                "of n the 95% interval of its mean per-seed slope contains {r:.3f}, its half-width <= {w}",
            ),
        ):
            r = rate[name]
            headline = row_of(fits["late"], (d, name, chosen[name]), BY)
            verdict = test(headline, r)
            measured, values = rate_reading(fits, (d, name, chosen[name]), r, BY)
            per_c = []
            for c in sorted(present[name] & set(grid)):
                row = row_of(fits["late"], (d, name, c), BY)
                v = test(row, r)
                per_c.append(f"c = {c:g}: {verdict_word(v)} ({row.slope:.3f} [{row.low:.3f}, {row.high:.3f}])")
                values |= {
                    f"slope_c{number_key(c)}": row.slope,
                    f"margin_c{number_key(c)}": v[2],
                    f"empty_first_c{number_key(c)}": fits["shares"].loc[(d, name, c)].iloc[0],
                }
            statement = (
                f"d = {d}: " + words.format(r=r, w=HALF_WIDTH) + f" (the project's power requirement), at c = "
                f"{chosen[name]:g}, fixed before the run{beside}"
            )
            exceptions = [] if verdict[1] is not False else [f"c = {chosen[name]:g}: margin {verdict[2]:+.3f}"]
            out.append(
                rate_claim(
                    statement,
                    verdict,
                    f"{measured}. Over the grid: " + "; ".join(per_c),
                    key=key,
                    quote=quote,
                    where=where,
                    exceptions=exceptions,
                    values={**values, "constant": chosen[name], "margin": verdict[2]},
                )
            )
        holds, lows, text = much_better(long[long["d"] == d], chosen[TREE], chosen[FOREST])
        per_c = []
        for c in on_grid:
            at_c, _, _ = much_better(long[long["d"] == d], c, c)
            per_c.append(f"c = {c:g}: {'holds' if at_c else 'fails'}")
        out.append(
            Claim(
                f"d = {d}: the forest is much better than the single tree at every n: the tree's risk over the "
                f'forest\'s, paired over seeds, has a one-sided 95% lower bound above {MUCH:g} ("much": this '
                f"project's threshold, the text gives none){where_c}{beside}",
                holds,
                f"tree / forest risk, geometric mean over seeds (one-sided 95% lower bound): {text}. Over the grid "
                "(tree and forest at the same c): " + "; ".join(per_c),
                key=f"forest_beats_tree_d{d}",
                quote="In practice, however, forests exhibit much better performances than individual trees.",
                where="MGS20 Sec. 5.3",
                exceptions=[f"n={n}: lower bound {low:.2f}" for n, low in lows.items() if low <= MUCH],
                values={"lowest_bound": min(lows.values()), **{f"lower_n{n}": low for n, low in lows.items()}},
            )
        )
        improved, mean, high, pairs = improved_rate(long[long["d"] == d], chosen[TREE], chosen[FOREST])
        per_c = []
        for c in on_grid:
            at_c, m, h, _ = improved_rate(long[long["d"] == d], c, c)
            per_c.append(f"c = {c:g}: {'holds' if at_c else 'fails'} ({m:+.3f}, upper {h:+.3f})")
        out.append(
            Claim(
                f"d = {d}: the forest's rate is better than the tree's: the forest's late-half slope minus the "
                f"tree's, paired over seeds, has a one-sided 95% upper bound below 0{where_c}{beside}",
                improved,
                f"forest - tree slope: {mean:+.3f}, upper bound {high:+.3f} ({pairs} seeds). Over the grid (tree and "
                "forest at the same c): " + "; ".join(per_c),
                key=f"forest_rate_improves_d{d}",
                quote="Improved rates for Mondrian Forests compared to a Mondrian Tree",
                where="MGS20 Sec. 5.3 (its title)",
                values={"difference": mean, "upper_bound": high, "pairs": pairs},
            )
        )
    return out
