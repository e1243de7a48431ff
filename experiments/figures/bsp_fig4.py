"""bsp-fig4: test RMSE (to the true function, top row) and leaves per tree (bottom row) against the number of
training points on Friedman's function in d = 5 and d = 10, for RF, ERT, MF fixed, MF increasing and the online BSP
forest (the text's leaf rule, and the law's beside it); mean +- 1.96 SE over replicates."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter, ScalarFormatter

from experiments.figures import Claim, title_with_legend
from experiments.figures.bsp_methods import COLORS, METHODS, ONLINE, mean_ci, method, tree_counts


def long_table(runs) -> pd.DataFrame:
    """dataset, method, seed, n, rmse, leaves (per tree), train_time: one row per run and training size."""
    frames = []
    for run in runs:
        frame = run.curves[["step", "rmse", "leaves", "train_time"]].rename(columns={"step": "n"})
        frame["dataset"] = run.trial["dataset"]["name"]
        frame["method"] = method(run)
        frame["seed"] = run.trial.get("seed", 0)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def summary(runs) -> pd.DataFrame:
    return mean_ci(long_table(runs), ["dataset", "method", "n"], ["rmse", "leaves", "train_time"])


def by_dimension(table: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The table's rows per dataset, friedman5 before friedman10."""
    names = sorted(table["dataset"].unique(), key=lambda name: int(name.removeprefix("friedman")))
    return [(name, table[table["dataset"] == name]) for name in names]


def plot(runs, spec) -> plt.Figure:
    table = summary(runs)
    panels = by_dimension(table)
    fig, axes = plt.subplots(2, len(panels), figsize=(5.5 * len(panels), 7.6), squeeze=False)
    for column, (dataset, part) in enumerate(panels):
        for row, (value, label) in enumerate(
            (("rmse", "test RMSE to the true function"), ("leaves", "leaves per tree"))
        ):
            ax = axes[row][column]
            for name in METHODS:
                line = part[part["method"] == name]
                if not line.empty:
                    ax.errorbar(line["n"], line[value], yerr=line[f"{value}_ci"], marker="o", ms=3, capsize=2,
                                color=COLORS[name], label=name)  # fmt: skip
            ax.set_xscale("log")
            ax.set_xticks(sorted(part["n"].unique()))
            ax.xaxis.set_major_formatter(ScalarFormatter())
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("training points N")
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
        axes[0][column].set_title(f"Friedman, d = {dataset.removeprefix('friedman')}", fontsize=10)
        axes[1][column].set_yscale("log")
    title_with_legend(
        fig,
        axes[0][0],
        f"BSP Fig. 4: Friedman's function, {tree_counts(runs)} trees, {int(table['seeds'].max())} "
        "replicates (mean +- 1.96 SE)",
    )
    return fig


def claims(runs, spec) -> list[Claim]:
    table = summary(runs)
    out = []
    for dataset, part in by_dimension(table):
        wide = part.pivot(index="n", columns="method", values="rmse")
        for mf in ("MF fixed", "MF increasing"):
            if "BSP" in wide and mf in wide:
                out.append(
                    Claim(
                        f"{dataset}: BSP has a lower RMSE than {mf} at every N (paper: by about 0.1)",
                        bool((wide["BSP"] < wide[mf]).all()),
                        "; ".join(f"N={n}: BSP {row['BSP']:.3f}, {mf} {row[mf]:.3f}" for n, row in wide.iterrows()),
                    )
                )
        batch = [m for m in ("RF", "ERT") if m in wide]
        online = [m for m in ONLINE if m in wide]
        if batch and online:
            last = wide.index.max()
            out.append(
                Claim(
                    f"{dataset}: the batch forests (RF, ERT) beat the online ones at the largest N",
                    bool(wide.loc[last, batch].max() < wide.loc[last, online].min()),
                    f"N={last}: " + ", ".join(f"{m} {wide.loc[last, m]:.3f}" for m in batch + online),
                )
            )
    gaps = {}
    for dataset, part in by_dimension(table):
        wide = part.pivot(index="n", columns="method", values="rmse")
        if "BSP" in wide and "RF" in wide:
            gaps[dataset] = float(np.mean(wide["BSP"] - wide["RF"]))
    if {"friedman5", "friedman10"} <= set(gaps):
        out.append(
            Claim(
                "the gap between BSP and RF is larger with the 5 noise features (d = 10) than without (d = 5)",
                gaps["friedman10"] > gaps["friedman5"],
                f"mean RMSE(BSP) - RMSE(RF) over N: d=5 {gaps['friedman5']:.3f}, d=10 {gaps['friedman10']:.3f}",
            )
        )
    return out
