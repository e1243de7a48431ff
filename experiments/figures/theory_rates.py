"""theory-rates-lipschitz: excess risk against n (log-log) of MGS20's purely random Mondrian trees and forests on a
Lipschitz regression function in several dimensions, with lam_n = n^(1/(d+2)); the fitted slopes against the
minimax -2/(d+2), and the share of the risk made by empty cells (which predict 0)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter
from scipy import stats

from experiments.figures import Claim


def tree_label(run) -> str:
    """A tree (M = 1) or a forest of M trees."""
    n_trees = int(run.trial["model"]["estimator"]["n_estimators"])
    return "tree" if n_trees == 1 else f"forest (M = {n_trees})"


def long_table(runs, label=tree_label, values=("risk",)) -> pd.DataFrame:
    """d, variant (``label(run)``), seed, n and the curves' ``values``."""
    frames = []
    for run in runs:
        frame = run.curves[["step", *values]].rename(columns={"step": "n"})
        frame["d"] = int(run.trial["dataset"]["load"]["n_features"])
        frame["variant"] = label(run)
        frame["seed"] = run.trial.get("seed", 0)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def rate_table(runs, label=tree_label) -> pd.DataFrame:
    """``long_table`` with the empty cells' share of the risk (empty_share, recorded by the rates protocol) and the
    rest of the risk, risk_nonempty = risk (1 - empty_share)."""
    long = long_table(runs, label, ("risk", "empty_share"))
    return long.assign(risk_nonempty=long["risk"] * (1.0 - long["empty_share"]))


def slopes(long: pd.DataFrame, value: str = "risk") -> pd.DataFrame:
    """Per d and variant: the least-squares slope of log ``value`` on log n for each seed, their mean and 95%
    interval."""
    per_seed = (
        long.groupby(["d", "variant", "seed"])
        .apply(lambda g: np.polyfit(np.log(g["n"]), np.log(g[value]), 1)[0], include_groups=False)
        .rename("slope")
        .reset_index()
    )
    rows = []
    for (d, name), part in per_seed.groupby(["d", "variant"]):
        k = len(part)
        mean = part["slope"].mean()
        half = stats.t.ppf(0.975, k - 1) * part["slope"].std(ddof=1) / np.sqrt(k) if k > 1 else np.nan
        rows.append({"d": d, "variant": name, "slope": mean, "low": mean - half, "high": mean + half, "seeds": k})
    out = pd.DataFrame(rows)
    out["minimax"] = -2.0 / (out["d"] + 2.0)
    return out


def empty_shares(long: pd.DataFrame) -> pd.Series:
    """The empty cells' mean share of the risk over seeds, per d, variant and n."""
    return long.groupby(["d", "variant", "n"])["empty_share"].mean()


def interval(row) -> str:
    return f"{row.slope:.3f} [{row.low:.3f}, {row.high:.3f}]"


def rate_measured(fitted, rest, shares, d, variant) -> str:
    """A variant's fitted slope, the empty cells' share of its risk at the smallest and largest n, and the slope of
    the rest of its risk (without the empty cells' part)."""
    row, other = (f[(f["d"] == d) & (f["variant"] == variant)].iloc[0] for f in (fitted, rest))
    share = shares[d, variant]
    return (
        f"slope {interval(row)} over {row.seeds} seeds; empty cells {share.iloc[0]:.1%} of the risk at "
        f"n = {share.index[0]}, {share.iloc[-1]:.1%} at n = {share.index[-1]}; the rest of the risk: slope "
        f"{interval(other)}"
    )


LEGEND_PLACES = {
    "inside": {"loc": "lower left"},
    "right": {"loc": "center left", "bbox_to_anchor": (1.02, 0.5)},
    "below": {"loc": "upper center", "bbox_to_anchor": (0.5, -0.18)},
}


def draw(
    long: pd.DataFrame, fitted: pd.DataFrame, title: str, panel_title, rates=None, legend: str = "inside"
) -> plt.Figure:
    """One log-log panel per d: each variant's risk per seed (dots), their geometric mean (line, legend with the
    fitted slope, and the empty cells' share of the risk at the smallest and largest n when the table has it) and the
    reference slopes ``rates(d)`` (slope, label, variant): a line from the variant's first point (None: all
    variants'); by default the minimax -2/(d+2). Each panel's legend ``legend``: "inside" (its lower left corner),
    "right" of it or "below" it."""
    rates = rates or (lambda d: [(-2.0 / (d + 2), f"minimax slope -2/(d+2) = {-2.0 / (d + 2):.2f}", None)])
    dims = sorted(long["d"].unique())
    variants = list(dict.fromkeys(long["variant"]))
    shares = empty_shares(long) if "empty_share" in long else None
    width = max(4.2 * len(dims), 7.0) + (4.0 if legend == "right" else 0.0)
    fig, axes = plt.subplots(1, len(dims), figsize=(width, 5.2 if legend == "below" else 3.9), squeeze=False)
    for ax, d in zip(axes[0], dims, strict=True):
        part = long[long["d"] == d]
        for name, curve in part.groupby("variant", sort=False):
            color = f"C{variants.index(name)}"
            mean = np.exp(np.log(curve["risk"]).groupby(curve["n"]).mean())  # geometric mean over seeds
            row = fitted[(fitted["d"] == d) & (fitted["variant"] == name)].iloc[0]
            label = f"{name}: slope {row['slope']:.2f} [{row['low']:.2f}, {row['high']:.2f}]"
            if shares is not None:
                label += f"\n  empty cells: {shares[d, name].iloc[0]:.0%} -> {shares[d, name].iloc[-1]:.0%} of the risk"
            ax.plot(mean.index, mean.values, "o-", color=color, ms=4, lw=1.3, label=label)
            ax.scatter(curve["n"], curve["risk"], color=color, s=5, alpha=0.3)
        n = np.array(sorted(part["n"].unique()), float)
        for style, (slope, label, variant) in zip(("k--", "k:"), rates(d), strict=False):
            first = part[(part["n"] == n[0]) & ((part["variant"] == variant) if variant else True)]
            anchor = np.exp(np.log(first["risk"]).mean())
            ax.plot(n, anchor * (n / n[0]) ** slope, style, lw=1, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(panel_title(d), fontsize=10)
        ax.set_xlabel("n", fontsize=9)
        ax.grid(alpha=0.3, which="both", lw=0.5)
        ax.legend(fontsize=7, **LEGEND_PLACES[legend])
        ax.tick_params(labelsize=8)
    axes[0, 0].set_ylabel("excess risk E(f_hat(X) - f(X))^2", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return fig


def plot(runs, spec) -> plt.Figure:
    long = rate_table(runs)
    n_seeds = int(long["seed"].nunique())
    return draw(
        long,
        slopes(long),
        "MGS20: purely random Mondrian tree and forest on f(x) = ||x - 1/2|| (Lipschitz), noise sd 0.1\n"
        f"{n_seeds} seeds (dots), their geometric mean (lines); slopes: mean [95% interval] over seeds; "
        "empty cells' share of the risk at the smallest -> largest n",
        lambda d: f"d = {d}, lam_n = n^(1/{d + 2})",
        legend="below",
    )


def claims(runs, spec) -> list[Claim]:
    long = rate_table(runs)
    fitted, rest, shares = slopes(long), slopes(long, "risk_nonempty"), empty_shares(long)
    return [
        Claim(
            f"d = {row.d}, {row.variant}: the risk decays at the minimax rate n^(-2/(d+2)) of Theorem 2 (the 95% "
            f"interval of the fitted slope contains {row.minimax:.3f}: for this f, whose gradient vanishes only at "
            "1/2, a tree's bias is of order lam^-2, of which M trees keep a 1/M part, and the variance of order "
            "lam^d / n, so the bound is attained)",
            bool(row.low <= row.minimax <= row.high),
            rate_measured(fitted, rest, shares, row.d, row.variant),
        )
        for row in fitted.itertuples()
    ]
