"""bsp-fig5: the efficiency of the online BSP forest's oblique cuts against the online Mondrian forest with the same
increasing budget, on the toy y = 10 sin(pi x1 x2) + 0.2 N(0, 1): test RMSE and leaves per tree against the budget
multiplier k at N = 5000 (left), test RMSE and training time against N (right); mean +- 1.96 SE over replicates."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter, ScalarFormatter

from experiments.figures import Claim, title_with_legend
from experiments.figures.bsp_methods import COLORS, METHODS, mean_ci, method, tree_counts

SIMILAR_LEAVES = 2.0  # "similar numbers of leaves": within a factor 2 at every budget


def _multiplier(run) -> float:
    estimator = run.trial["model"]["estimator"]
    return float(estimator.get("budget_scale", estimator.get("lifetime_scale")))


def long_table(runs) -> pd.DataFrame:
    """method, k, seed, panel ("budget": one size per run; "size": a curve over N), n, rmse, leaves, train_time."""
    frames = []
    for run in runs:
        frame = run.curves[["step", "rmse", "leaves", "train_time"]].rename(columns={"step": "n"})
        frame["method"] = method(run)
        frame["k"] = _multiplier(run)
        frame["seed"] = run.trial.get("seed", 0)
        frame["panel"] = "budget" if len(frame) == 1 else "size"
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def summary(long: pd.DataFrame, panel: str, by: str) -> pd.DataFrame:
    """Per method and ``by`` (k or n): mean and 1.96 SE of rmse, leaves and train_time over the seeds."""
    return mean_ci(long[long["panel"] == panel], ["method", by], ["rmse", "leaves", "train_time"])


def plot(runs, spec) -> plt.Figure:
    long = long_table(runs)
    budget, size = summary(long, "budget", "k"), summary(long, "size", "n")
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.8))
    at = ", ".join(f"N = {n}" for n in sorted(long.loc[long["panel"] == "budget", "n"].unique()))
    panels = [
        (budget, "k", "rmse", "test RMSE", f"budget multiplier k ({at})"),
        (budget, "k", "leaves", "leaves per tree", f"budget multiplier k ({at})"),
        (size, "n", "rmse", "test RMSE", "training points N (k = 1)"),
        (size, "n", "train_time", "cumulative training time (s)", "training points N (k = 1)"),
    ]
    for ax, (table, x, y, ylabel, xlabel) in zip(axes, panels, strict=True):
        for name in METHODS:
            part = table[table["method"] == name]
            if not part.empty:
                ax.errorbar(part[x], part[y], yerr=part[f"{y}_ci"], marker="o", ms=3, capsize=2, color=COLORS[name],
                            label=name)  # fmt: skip
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if x == "n":
            ax.set_xscale("log")
            ax.set_xticks(sorted(table["n"].unique()))
            ax.xaxis.set_major_formatter(ScalarFormatter())
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.tick_params(axis="x", labelrotation=45)
        if y in ("leaves", "train_time"):
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
    seeds = int(long["seed"].nunique())
    title_with_legend(
        fig,
        axes[0],
        "BSP Fig. 5: online BSP forest vs online Mondrian forest, same budget tau_n = k n^(1/4); "
        f"y = 10 sin(pi x1 x2) + 0.2 N(0,1); {tree_counts(runs)} trees, {seeds} replicates (mean +- 1.96 SE)",
    )
    return fig


def claims(runs, spec) -> list[Claim]:
    long = long_table(runs)
    budget, size = summary(long, "budget", "k"), summary(long, "size", "n")
    bsp, mf = "BSP", "MF increasing"

    def paired(table, by, column):
        wide = table.pivot(index=by, columns="method", values=column)
        return wide[bsp], wide[mf]

    out = []
    b, m = paired(budget, "k", "rmse")
    out.append(
        Claim(
            "BSP has a lower test RMSE than the Mondrian forest at every budget multiplier k",
            bool((b < m).all()),
            "; ".join(f"k={k:g}: {b[k]:.3f} vs {m[k]:.3f}" for k in b.index),
        )
    )
    b, m = paired(budget, "k", "leaves")
    ratio = np.maximum(b / m, m / b)
    out.append(
        Claim(
            f"the two forests have similar numbers of leaves (within a factor {SIMILAR_LEAVES:g} at every k)",
            bool((ratio <= SIMILAR_LEAVES).all()),
            "; ".join(f"k={k:g}: {b[k]:.0f} vs {m[k]:.0f}" for k in b.index),
        )
    )
    b, m = paired(size, "n", "rmse")
    out.append(
        Claim(
            "BSP has a lower test RMSE than the Mondrian forest at every N (k = 1)",
            bool((b < m).all()),
            "; ".join(f"N={n}: {b[n]:.3f} vs {m[n]:.3f}" for n in b.index),
        )
    )
    b, m = paired(size, "n", "train_time")
    out.append(
        Claim(
            "BSP is slower to train (its cost grows with the d(d-1)/2 dimension pairs)",
            bool((b > m).all()),
            "; ".join(f"N={n}: {b[n]:.2f} s vs {m[n]:.2f} s" for n in b.index),
        )
    )
    return out
