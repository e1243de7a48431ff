"""theory-rates-lipschitz: excess risk against n (log-log) of MGS20's purely random Mondrian trees and forests on a
Lipschitz regression function in several dimensions, with lam_n = n^(1/(d+2)); Theorem 2's rate, an upper bound,
read one-sided on the late half of n (the slope must not be significantly shallower than -2/(d+2), with the stated
power), beside the slope over all n and the share of the risk made by empty cells (which predict 0)."""

from __future__ import annotations

from experiments.figures import Claim, Drawing
from experiments.figures.theory_family import (
    HALF_WIDTH,
    draw,
    late_half,
    rate_claim,
    rate_fits,
    rate_reading,
    rate_table,
    slopes,
    upper_rate,
)

QUOTE = (
    "The convergence rate stated in Theorem 2 for is valid for both trees and forests, and the risk bound does not "
    "depend on the number of trees that compose the forest."
)
WHERE = "MGS20 Sec. 5.3, on Theorem 2 (5.2)"


def tree_label(run) -> str:
    """A tree (M = 1) or a forest of M trees."""
    return "tree" if run.trees == 1 else f"forest (M = {run.trees})"


def tree_key(run) -> str:
    """The variant as the claims' keys spell it: "tree", "forest_m10"."""
    return "tree" if run.trees == 1 else f"forest_m{run.trees}"


def plot(runs, spec) -> Drawing:
    long = rate_table(runs, tree_label)
    return Drawing(
        draw(
            long,
            slopes(late_half(long)),
            "MGS20 Theorem 2: purely random Mondrian tree and forest on f(x) = ||x - 1/2|| (Lipschitz), noise sd 0.1\n"
            "seeds (dots), their geometric mean (lines); slopes of log risk on log n over the late half of n: mean "
            "[95% interval] over seeds; empty cells' share of the risk at the smallest -> largest n",
            lambda d: f"d = {d}, lam_n = n^(1/{d + 2})",
            legend="below",
        )
    )


def claims(runs, spec) -> list[Claim]:
    """Theorem 2, per d and variant: the risk is O(n^(-2/(d+2))), read one-sided on the late half of n."""
    long = rate_table(runs, tree_label)
    fits = rate_fits(long)
    keys = {tree_label(run): tree_key(run) for run in runs}
    out = []
    for row in fits["late"].itertuples():
        rate = float(row.minimax)
        verdict = upper_rate(row, rate)
        measured, values = rate_reading(fits, (row.d, row.variant), rate)
        statement = (
            f"d = {row.d}, {row.variant}: the risk is O(n^({rate:.3f})), Theorem 2's rate n^(-2/(d+2)) with "
            f"lam_n = n^(1/(d+2)), as for any number of trees: over the late half of n ({values['n_late']} to "
            f"{values['n_last']}) the mean per-seed slope of log risk on log n is not significantly shallower (its "
            f"one-sided 95% lower end <= {rate:.3f}), and its one-sided half-width is <= {HALF_WIDTH} (the "
            "project's power requirement: wider, a slope that does not contradict the rate is not checked)"
        )
        exceptions = (
            []
            if verdict[1] is not False
            else [
                f"late-half slope {row.slope:.3f}: its lower end {row.slope - row.half:.3f} is above {rate:.3f} by "
                f"{-verdict[2]:.3f}"
            ]
        )
        out.append(
            rate_claim(
                statement,
                verdict,
                measured,
                key=f"minimax_rate_d{row.d}_{keys[row.variant]}",
                quote=QUOTE,
                where=WHERE,
                exceptions=exceptions,
                values={**values, "margin": verdict[2]},
            )
        )
    return out
