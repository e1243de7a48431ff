"""theory-rates-smooth: on a C^2 regression function (s = 2) in d = 1, a single purely random Mondrian tree is stuck
near the rate n^(-2/3) while a forest with lam_n = n^(1/5) and M_n = n^(2/5) trees reaches n^(-4/5) on the inner
box (MGS20, Theorems 3 and 4)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from experiments.figures import Claim
from experiments.figures.theory_rates import draw, long_table, slopes

NEAR = 0.1  # "near" a rate: within 0.1 of its slope
TREE, FOREST = "tree, lam_n ~ n^(1/3)", "forest, lam_n ~ n^(1/5), M_n = n^(2/5)"


def rule_label(run) -> str:
    return FOREST if run.trial["protocol"]["run"]["trees_exponent"] else TREE


def plot(runs, spec) -> plt.Figure:
    long = long_table(runs, rule_label)
    n_seeds = int(long["seed"].nunique())
    return draw(
        long,
        slopes(long),
        "MGS20: f(x) = sin(2 pi x) (C^2), noise sd 0.1, risk on the inner box [0.05, 0.95]; a single tree against a "
        f"forest whose lifetime and size follow s = 2\n{n_seeds} seeds (dots), geometric mean (lines); slopes: mean "
        "[95% interval] over seeds; dashed: the tree's minimax slope -2/(d+2)",
        lambda d: f"d = {d}",
    )


def claims(runs, spec) -> list[Claim]:
    long = long_table(runs, rule_label)
    fitted = slopes(long).set_index("variant")
    risk = np.exp(np.log(long["risk"]).groupby([long["d"], long["variant"], long["n"]]).mean())
    out = []
    for d, part in fitted.groupby("d"):
        target, tree_rate = -4.0 / (d + 4.0), -2.0 / (d + 2.0)  # -2s/(d+2s) with s = 2; the tree's -2/(d+2)
        forest, tree = part.loc[FOREST], part.loc[TREE]
        out.append(
            Claim(
                f"d = {d}: the forest reaches the rate n^(-2s/(d+2s)) = n^({target:.3f}) (the 95% interval of its "
                "fitted slope reaches it or below)",
                bool(forest["low"] <= target),
                f"forest slope {forest['slope']:.3f} [{forest['low']:.3f}, {forest['high']:.3f}]",
            )
        )
        out.append(
            Claim(
                f"d = {d}: the single tree's slope stays near its rate {tree_rate:.3f} (its 95% interval meets "
                f"[{tree_rate - NEAR:.3f}, {tree_rate + NEAR:.3f}])",
                bool(tree["low"] <= tree_rate + NEAR and tree["high"] >= tree_rate - NEAR),
                f"tree slope {tree['slope']:.3f} [{tree['low']:.3f}, {tree['high']:.3f}]",
            )
        )
        sizes = sorted(long.loc[long["d"] == d, "n"].unique())
        ratios = [risk[d, TREE, n] / risk[d, FOREST, n] for n in sizes]
        out.append(
            Claim(
                f"d = {d}: the forest is more accurate than the single tree at every n",
                all(r > 1 for r in ratios),
                "tree / forest risk: " + ", ".join(f"n={n}: {r:.1f}" for n, r in zip(sizes, ratios, strict=True)),
            )
        )
    return out
