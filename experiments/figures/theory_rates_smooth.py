"""theory-rates-smooth: on a C^2 regression function (s = 2) in d = 1, a single purely random Mondrian tree is stuck
at the rate n^(-2/3) while a forest with lam_n ~ n^(1/5) and M_n = n^(2/5) trees reaches n^(-4/5) on the inner
box (MGS20, Proposition 3 and Theorem 3); the empty cells' share of each risk beside it."""

from __future__ import annotations

from experiments.figures import Claim, Drawing
from experiments.figures.theory_family import draw, empty_shares, geometric_mean, rate_measured, rate_table, slopes

TREE, FOREST = "tree, lam_n ~ n^(1/3)", "forest, lam_n ~ n^(1/5), M_n = n^(2/5)"


def rule_label(run) -> str:
    return FOREST if run.protocol["trees_exponent"] else TREE


def rates(d: int) -> list[tuple[float, str, str]]:
    """The tree's rate -2/(d+2) and the forest's -2s/(d+2s) with s = 2, each drawn from its own first point."""
    return [(-2.0 / (d + 2), f"tree's rate -2/(d+2) = {-2.0 / (d + 2):.2f}", TREE),
            (-4.0 / (d + 4), f"forest's rate -4/(d+4) = {-4.0 / (d + 4):.2f}", FOREST)]  # fmt: skip


def plot(runs, spec) -> Drawing:
    long = rate_table(runs, rule_label)
    n_seeds = int(long["seed"].nunique())
    return Drawing(
        draw(
            long,
            slopes(long),
            "MGS20: f(x) = sin(2 pi x) (C^2), noise sd 0.1, risk on the inner box [0.05, 0.95]; a single tree against "
            f"a forest whose lifetime and size follow s = 2\n{n_seeds} seeds (dots), geometric mean (lines); slopes: "
            "mean [95% interval] over seeds; empty cells' share of the risk at the smallest -> largest n",
            lambda d: f"d = {d}",
            rates,
            legend="right",
        )
    )


def claims(runs, spec) -> list[Claim]:
    """Per d: Theorem 3's forest rate, Proposition 3's tree rate (both two-sided on the fitted slope), and the forest
    below the tree at every n."""
    long = rate_table(runs, rule_label)
    fitted, rest, shares = slopes(long), slopes(long, "risk_nonempty"), empty_shares(long)
    risk = geometric_mean(long, ["d", "variant", "n"])
    out = []
    for d in sorted(fitted["d"].unique()):
        (tree_rate, _, _), (target, _, _) = rates(d)
        forest, tree = (fitted[(fitted["d"] == d) & (fitted["variant"] == v)].iloc[0] for v in (FOREST, TREE))
        out.append(
            Claim(
                f"d = {d}: the forest reaches the rate n^(-2s/(d+2s)) = n^({target:.3f}) of Theorem 3 (the 95% "
                "interval of its fitted slope contains it: the bound is attained, its variance lam_n / n being of "
                "that order)",
                bool(forest["low"] <= target <= forest["high"]),
                rate_measured(fitted, rest, shares, d, FOREST),
                key=f"forest_rate_d{d}",
            )
        )
        out.append(
            Claim(
                f"d = {d}: the single tree decays at its rate n^({tree_rate:.3f}), no faster (Proposition 3: at least "
                "of that order for every lifetime; Theorem 2: at most with lam_n ~ n^(1/(d+2))): the 95% interval "
                "of its fitted slope contains it",
                bool(tree["low"] <= tree_rate <= tree["high"]),
                rate_measured(fitted, rest, shares, d, TREE),
                key=f"tree_rate_d{d}",
            )
        )
        sizes = sorted(long.loc[long["d"] == d, "n"].unique())
        ratios = [risk[d, TREE, n] / risk[d, FOREST, n] for n in sizes]
        out.append(
            Claim(
                f"d = {d}: the forest is more accurate than the single tree at every n",
                all(r > 1 for r in ratios),
                "tree / forest risk: " + ", ".join(f"n={n}: {r:.1f}" for n, r in zip(sizes, ratios, strict=True)),
                key=f"forest_beats_tree_d{d}",
            )
        )
    return out
