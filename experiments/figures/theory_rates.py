"""theory-rates-lipschitz: excess risk against n (log-log) of MGS20's purely random Mondrian trees and forests on a
Lipschitz regression function in several dimensions, with lam_n = n^(1/(d+2)); the fitted slopes against the
minimax -2/(d+2), and the share of the risk made by empty cells (which predict 0)."""

from __future__ import annotations

from experiments.figures import Claim, Drawing
from experiments.figures.theory_family import draw, empty_shares, rate_measured, rate_table, slopes


def tree_label(run) -> str:
    """A tree (M = 1) or a forest of M trees."""
    return "tree" if run.trees == 1 else f"forest (M = {run.trees})"


def tree_key(run) -> str:
    """The variant as the claims' keys spell it: "tree", "forest_m10"."""
    return "tree" if run.trees == 1 else f"forest_m{run.trees}"


def plot(runs, spec) -> Drawing:
    long = rate_table(runs, tree_label)
    n_seeds = int(long["seed"].nunique())
    return Drawing(
        draw(
            long,
            slopes(long),
            "MGS20: purely random Mondrian tree and forest on f(x) = ||x - 1/2|| (Lipschitz), noise sd 0.1\n"
            f"{n_seeds} seeds (dots), their geometric mean (lines); slopes: mean [95% interval] over seeds; "
            "empty cells' share of the risk at the smallest -> largest n",
            lambda d: f"d = {d}, lam_n = n^(1/{d + 2})",
            legend="below",
        )
    )


def claims(runs, spec) -> list[Claim]:
    """Theorem 2, per d and variant: the fitted slope's 95% interval contains the minimax -2/(d+2)."""
    long = rate_table(runs, tree_label)
    fitted, rest, shares = slopes(long), slopes(long, "risk_nonempty"), empty_shares(long)
    keys = {tree_label(run): tree_key(run) for run in runs}
    return [
        Claim(
            f"d = {row.d}, {row.variant}: the risk decays at the minimax rate n^(-2/(d+2)) of Theorem 2 (the 95% "
            f"interval of the fitted slope contains {row.minimax:.3f}: for this f, whose gradient vanishes only at "
            "1/2, a tree's bias is of order lam^-2, of which M trees keep a 1/M part, and the variance of order "
            "lam^d / n, so the bound is attained)",
            bool(row.low <= row.minimax <= row.high),
            rate_measured(fitted, rest, shares, row.d, row.variant),
            key=f"minimax_rate_d{row.d}_{keys[row.variant]}",
        )
        for row in fitted.itertuples()
    ]
