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


def tree_label(run) -> str:
    """A tree (M = 1) or a forest of M trees."""
    n_trees = int(run.trial["model"]["estimator"]["n_estimators"])
    return "tree" if n_trees == 1 else f"forest (M = {n_trees})"


def long_table(runs, label=tree_label) -> pd.DataFrame:
    """d, variant (``label(run)``), seed, n, risk."""
    frames = []
    for run in runs:
        frame = run.curves[["step", "risk"]].rename(columns={"step": "n"})
        frame["d"] = int(run.trial["dataset"]["load"]["n_features"])
        frame["variant"] = label(run)
        frame["seed"] = run.trial.get("seed", 0)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def slopes(long: pd.DataFrame, smallest_n: int = 0) -> pd.DataFrame:
    """Per d and variant: the least-squares slope of log risk on log n (n >= ``smallest_n``) for each seed, their
    mean and 95% interval."""
    long = long[long["n"] >= smallest_n]
    per_seed = (
        long.groupby(["d", "variant", "seed"])
        .apply(lambda g: np.polyfit(np.log(g["n"]), np.log(g["risk"]), 1)[0], include_groups=False)
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


def draw(long: pd.DataFrame, fitted: pd.DataFrame, title: str, panel_title) -> plt.Figure:
    """One log-log panel per d: each variant's risk per seed (dots), their geometric mean (line, legend with the
    fitted slope) and the minimax slope -2/(d+2) through the first point."""
    dims = sorted(long["d"].unique())
    variants = list(dict.fromkeys(long["variant"]))
    fig, axes = plt.subplots(1, len(dims), figsize=(max(4.2 * len(dims), 7.0), 3.9), squeeze=False)
    for ax, d in zip(axes[0], dims, strict=True):
        part = long[long["d"] == d]
        for name, curve in part.groupby("variant", sort=False):
            color = f"C{variants.index(name)}"
            mean = np.exp(np.log(curve["risk"]).groupby(curve["n"]).mean())  # geometric mean over seeds
            row = fitted[(fitted["d"] == d) & (fitted["variant"] == name)].iloc[0]
            label = f"{name}: slope {row['slope']:.2f} [{row['low']:.2f}, {row['high']:.2f}]"
            ax.plot(mean.index, mean.values, "o-", color=color, ms=4, lw=1.3, label=label)
            ax.scatter(curve["n"], curve["risk"], color=color, s=5, alpha=0.3)
        n = np.array(sorted(part["n"].unique()), float)
        anchor = np.exp(np.log(part.loc[part["n"] == n[0], "risk"]).mean())
        minimax = -2.0 / (d + 2)
        ax.plot(n, anchor * (n / n[0]) ** minimax, "k--", lw=1, label=f"minimax slope -2/(d+2) = {minimax:.2f}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(panel_title(d), fontsize=10)
        ax.set_xlabel("n", fontsize=9)
        ax.grid(alpha=0.3, which="both", lw=0.5)
        ax.legend(fontsize=7, loc="lower left")
        ax.tick_params(labelsize=8)
    axes[0, 0].set_ylabel("excess risk E(f_hat(X) - f(X))^2", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return fig


def plot(runs, spec) -> plt.Figure:
    long = long_table(runs)
    n_seeds = int(long["seed"].nunique())
    return draw(
        long,
        slopes(long),
        "MGS20: purely random Mondrian tree and forest on f(x) = ||x - 1/2|| (Lipschitz), noise sd 0.1\n"
        f"{n_seeds} seeds (dots), their geometric mean (lines); slopes: mean [95% interval] over seeds",
        lambda d: f"d = {d}, lam_n = n^(1/{d + 2})",
    )


def claims(runs, spec) -> list[Claim]:
    fitted = slopes(long_table(runs))
    out = []
    for row in fitted.itertuples():
        out.append(
            Claim(
                f"d = {row.d}, {row.variant}: the risk decays at least at the minimax rate "
                f"n^(-2/(d+2)) (the 95% interval of the fitted slope reaches {row.minimax:.3f} or below)",
                bool(row.low <= row.minimax),
                f"slope {row.slope:.3f} [{row.low:.3f}, {row.high:.3f}] over {row.seeds} seeds",
            )
        )
    return out
