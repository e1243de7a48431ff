"""bsp-fig5: the efficiency of the online BSP forest's oblique cuts against the online Mondrian forest with the same
increasing budget, on the toy y = 10 sin(pi x1 x2) + 0.2 N(0, 1): test RMSE and leaves per tree against the budget
multiplier k at N = 5000 (left), test RMSE and training time against N (right); mean +- 1.96 SE over replicates."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Claim, Drawing, title_with_legend
from experiments.figures.bsp_methods import (
    BETTER,
    beats_at_every,
    draw_methods,
    mean_ci,
    method,
    size_axis,
    tree_counts,
)
from experiments.figures.tables import long_table as runs_table

BSP, MF = "BSP", "MF increasing"
SIMILAR_LEAVES = 2.0  # "the numbers of leaves are also similar": within a factor 2 at every budget


def _multiplier(run) -> float:
    """The budget multiplier k of tau_n = k n^(1/4) (BSP's budget_scale, the Mondrian forest's lifetime_scale)."""
    return float(run.estimator.get("budget_scale", run.estimator.get("lifetime_scale")))


def _labels(run) -> dict:
    """method, k, seed and panel: "budget" (one size per run, the left panels), "size" (a curve over N)."""
    panel = "budget" if len(run.curves) == 1 else "size"
    return {"method": method(run), "k": _multiplier(run), "seed": run.seed, "panel": panel}


def long_table(runs) -> pd.DataFrame:
    """method, k, seed, panel, n, rmse, leaves, train_time: one row per run and training size."""
    return runs_table(runs, _labels, ["step", "rmse", "leaves", "train_time"]).rename(columns={"step": "n"})


def summary(long: pd.DataFrame, panel: str, by: str) -> pd.DataFrame:
    """Per method and ``by`` (k or n): mean and 1.96 SE of rmse, leaves and train_time over the seeds."""
    return mean_ci(long[long["panel"] == panel], ["method", by], ["rmse", "leaves", "train_time"])


def plot(runs, spec) -> Drawing:
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
        draw_methods(ax, table, x, y)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if x == "n":
            size_axis(ax, table["n"].unique())
            ax.tick_params(axis="x", labelrotation=45)
        if y in ("leaves", "train_time"):
            ax.set_yscale("log")
    seeds = int(long["seed"].nunique())
    title_with_legend(
        fig,
        axes[0],
        "BSP Fig. 5: online BSP forest vs online Mondrian forest, same budget tau_n = k n^(1/4); "
        f"y = 10 sin(pi x1 x2) + 0.2 N(0,1); {tree_counts(runs)} trees, {seeds} replicates (mean +- 1.96 SE)",
    )
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """Section 5.3's statements, on the panels that ran: lower RMSE at every budget and every N, similar numbers of
    leaves, "a bit longer running time"."""
    long = long_table(runs)
    budget, size = long[long["panel"] == "budget"], long[long["panel"] == "size"]
    out = []
    if not budget.empty:
        out += [lower_rmse(budget, "k", "budget multiplier k", "over_budgets"), similar_leaves(budget)]
    if not size.empty:
        out += [lower_rmse(size, "n", "N (k = 1)", "over_sizes"), slower(size)]
    return out


def _at(by: str):
    """How a measured text names a value of the setting ``by``: "k=0.5", "N=1000"."""
    name = "N" if by == "n" else by
    return lambda value: f"{name}={value:g}"


def lower_rmse(seeds: pd.DataFrame, by: str, name: str, key: str) -> Claim:
    """The paper: BSP "can always obtain better RMSE performance than the Mondrian Forest" (budgets), "the consistent
    better performance" (sizes)."""
    passed, measured = beats_at_every(seeds, "rmse", BSP, MF, by, label=_at(by))
    return Claim(
        f"BSP has a lower test RMSE than the Mondrian forest at every {name} ({BETTER})",
        passed,
        measured,
        key=f"bsp_beats_mf_{key}",
    )


def similar_leaves(budget: pd.DataFrame) -> Claim:
    """The paper: "The numbers of leaves are also similar between these two algorithms" (on the means)."""
    wide = summary(budget, "budget", "k").pivot(index="k", columns="method", values="leaves")
    b, m = wide[BSP], wide[MF]
    ratio = np.maximum(b / m, m / b)
    return Claim(
        f'the two forests have similar numbers of leaves (the paper: "also similar"; here within a factor '
        f"{SIMILAR_LEAVES:g} at every k)",
        bool((ratio <= SIMILAR_LEAVES).all()),
        "; ".join(f"k={k:g}: {b[k]:.0f} vs {m[k]:.0f}" for k in b.index),
        key="similar_leaves",
    )


def slower(size: pd.DataFrame) -> Claim:
    """The paper: the better RMSE comes "with the price of requiring a bit longer running time" (O(d^2) pairs)."""
    passed, measured = beats_at_every(size, "train_time", MF, BSP, "n", label=_at("n"))
    return Claim(
        f'BSP is slower to train at every N (the paper: "a bit longer running time", its cost growing with the '
        f"d(d-1)/2 dimension pairs; {BETTER})",
        passed,
        f"seconds, {measured}",
        key="bsp_slower",
    )
