"""bsp-fig3: test accuracy (top row) and leaves per tree (bottom row) against the training:test ratio on four
datasets reduced to 4 principal components, for RF, ERT, MF fixed, MF increasing and the online BSP forest (the
text's leaf rule, and the law's beside it); mean +- 1.96 SE over replicates."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Claim, title_with_legend
from experiments.figures.accuracy_curves import CLOSE, dataset_title, ordered
from experiments.figures.bsp_methods import COLORS, METHODS, mean_ci, method, tree_counts

ORDER = ("satimage", "dna", "letter", "usps")  # the paper's panels
PCA_SUFFIX = "_pca4"


def long_table(runs) -> pd.DataFrame:
    """dataset (the paper's name, marked when a copy stands in), method, seed, train fraction, accuracy, leaves per
    tree."""
    rows = []
    for run in runs:
        load = run.trial["dataset"]["load"]
        rows.append(
            {
                "dataset": dataset_title(run.trial["dataset"]["name"].removesuffix(PCA_SUFFIX)),
                "method": method(run),
                "seed": run.trial.get("seed", 0),
                "train_fraction": round(1.0 - float(load["test_size"]), 6),
                "n_train": int(run.curves["step"].iloc[-1]),
                "accuracy": float(run.curves["accuracy"].iloc[-1]),
                "leaves": float(run.curves["leaves"].iloc[-1]),
            }
        )
    return pd.DataFrame(rows)


def summary(runs) -> pd.DataFrame:
    return mean_ci(long_table(runs), ["dataset", "method", "train_fraction"], ["accuracy", "leaves", "n_train"])


def ratio(fraction: float) -> str:
    """A training fraction as the paper's training:test ratio (0.3 -> "3:7")."""
    train = round(fraction * 10)
    return f"{train}:{10 - train}" if abs(fraction * 10 - train) < 1e-9 else f"{fraction:g}"


def plot(runs, spec) -> plt.Figure:
    table = summary(runs)
    panels = ordered(table["dataset"].unique(), ORDER)
    fig, axes = plt.subplots(2, len(panels), figsize=(4.2 * len(panels), 7.2), squeeze=False)
    for column, dataset in enumerate(panels):
        part = table[table["dataset"] == dataset]
        for ax, value, label in ((axes[0][column], "accuracy", "test accuracy"), (axes[1][column], "leaves", None)):
            for name in METHODS:
                line = part[part["method"] == name]
                if not line.empty:
                    ax.errorbar(line["train_fraction"], line[value], yerr=line[f"{value}_ci"], marker="o", ms=3,
                                capsize=2, color=COLORS[name], label=name)  # fmt: skip
            fractions = sorted(part["train_fraction"].unique())
            ax.set_xticks(fractions, [ratio(f) for f in fractions])
            ax.set_xlabel("training : test")
            ax.set_ylabel(label or "leaves per tree")
            ax.grid(alpha=0.3)
        axes[0][column].set_title(f"{dataset} (PCA, 4 components)", fontsize=10)
        axes[1][column].set_yscale("log")
    title_with_legend(
        fig,
        axes[0][0],
        f"BSP Fig. 3: classification accuracy, {tree_counts(runs)} trees, {int(table['seeds'].max())} "
        "replicates (mean +- 1.96 SE)",
    )
    return fig


def claims(runs, spec) -> list[Claim]:
    table = summary(runs)
    out = []
    for dataset in ordered(table["dataset"].unique(), ORDER):
        wide = table[table["dataset"] == dataset].pivot(index="train_fraction", columns="method", values="accuracy")
        if "BSP" not in wide:
            continue
        mfs = [m for m in ("MF fixed", "MF increasing") if m in wide]
        if mfs:
            out.append(
                Claim(
                    f"{dataset}: BSP is more accurate than the Mondrian forests at every ratio",
                    bool((wide["BSP"] > wide[mfs].max(axis=1)).all()),
                    "; ".join(
                        f"{ratio(f)}: BSP {wide.loc[f, 'BSP']:.3f}, best MF {wide.loc[f, mfs].max():.3f}"
                        for f in wide.index
                    ),
                )
            )
        batch = [m for m in ("RF", "ERT") if m in wide]
        if batch and not dataset.startswith("dna"):
            gap = wide[batch].max(axis=1) - wide["BSP"]
            out.append(
                Claim(
                    f"{dataset}: BSP is competitive with RF and ERT (at most {CLOSE:g} below the better one, "
                    "mean over ratios)",
                    bool(np.mean(gap) <= CLOSE),
                    "; ".join(
                        f"{ratio(f)}: BSP {wide.loc[f, 'BSP']:.3f}, best batch {wide.loc[f, batch].max():.3f}"
                        for f in wide.index
                    ),
                )
            )
    return out
