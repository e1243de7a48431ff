"""theory-rates-lipschitz: excess risk against n (log-log) of MGS20's purely random Mondrian trees and forests on a
Lipschitz regression function in several dimensions, with lam_n = n^(1/(d+2)); the fitted slopes against the
minimax -2/(d+2)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter
from scipy import stats

from experiments.figures import Claim

COLORS = {1: "C1", 10: "C0"}


def variant(n_trees: int) -> str:
    return "tree" if n_trees == 1 else f"forest (M = {n_trees})"


def long_table(runs) -> pd.DataFrame:
    """d, trees, seed, n, risk."""
    frames = []
    for run in runs:
        frame = run.curves[["step", "risk", "n_estimators"]].rename(columns={"step": "n", "n_estimators": "trees"})
        frame["d"] = int(run.trial["dataset"]["load"]["n_features"])
        frame["seed"] = run.trial.get("seed", 0)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def slopes(long: pd.DataFrame) -> pd.DataFrame:
    """Per d and trees: the least-squares slope of log risk on log n for each seed, their mean and 95% interval."""
    per_seed = (
        long.groupby(["d", "trees", "seed"])
        .apply(lambda g: np.polyfit(np.log(g["n"]), np.log(g["risk"]), 1)[0], include_groups=False)
        .rename("slope")
        .reset_index()
    )
    rows = []
    for (d, trees), part in per_seed.groupby(["d", "trees"]):
        k = len(part)
        mean = part["slope"].mean()
        half = stats.t.ppf(0.975, k - 1) * part["slope"].std(ddof=1) / np.sqrt(k) if k > 1 else np.nan
        rows.append({"d": d, "trees": trees, "slope": mean, "low": mean - half, "high": mean + half, "seeds": k})
    out = pd.DataFrame(rows)
    out["minimax"] = -2.0 / (out["d"] + 2.0)
    return out


def plot(runs, spec) -> plt.Figure:
    long = long_table(runs)
    fitted = slopes(long)
    dims = sorted(long["d"].unique())
    fig, axes = plt.subplots(1, len(dims), figsize=(4.2 * len(dims), 3.9), squeeze=False)
    for ax, d in zip(axes[0], dims, strict=True):
        part = long[long["d"] == d]
        for trees, curve in part.groupby("trees"):
            mean = np.exp(np.log(curve["risk"]).groupby(curve["n"]).mean())  # geometric mean over seeds
            row = fitted[(fitted["d"] == d) & (fitted["trees"] == trees)].iloc[0]
            label = f"{variant(trees)}: slope {row['slope']:.2f} [{row['low']:.2f}, {row['high']:.2f}]"
            ax.plot(mean.index, mean.values, "o-", color=COLORS.get(trees), ms=4, lw=1.3, label=label)
            ax.scatter(curve["n"], curve["risk"], color=COLORS.get(trees), s=5, alpha=0.3)
        n = np.array(sorted(part["n"].unique()), float)
        anchor = np.exp(np.log(part.loc[part["n"] == n[0], "risk"]).mean())
        ax.plot(
            n,
            anchor * (n / n[0]) ** (-2.0 / (d + 2)),
            "k--",
            lw=1,
            label=f"minimax slope -2/(d+2) = {-2 / (d + 2):.2f}",
        )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(f"d = {d}, lam_n = n^(1/{d + 2})", fontsize=10)
        ax.set_xlabel("n", fontsize=9)
        ax.grid(alpha=0.3, which="both", lw=0.5)
        ax.legend(fontsize=7, loc="lower left")
        ax.tick_params(labelsize=8)
    axes[0, 0].set_ylabel("excess risk E(f_hat(X) - f(X))^2", fontsize=9)
    n_seeds = int(long["seed"].nunique())
    fig.suptitle(
        "MGS20: purely random Mondrian tree and forest on f(x) = ||x - 1/2|| (Lipschitz), noise sd 0.1\n"
        f"{n_seeds} seeds (dots), their geometric mean (lines); slopes: mean [95% interval] over seeds",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return fig


def claims(runs, spec) -> list[Claim]:
    fitted = slopes(long_table(runs))
    out = []
    for row in fitted.itertuples():
        out.append(
            Claim(
                f"d = {row.d}, {variant(row.trees)}: the risk decays at least at the minimax rate "
                f"n^(-2/(d+2)) (the 95% interval of the fitted slope reaches {row.minimax:.3f} or below)",
                bool(row.low <= row.minimax),
                f"slope {row.slope:.3f} [{row.low:.3f}, {row.high:.3f}] over {row.seeds} seeds",
            )
        )
    return out
