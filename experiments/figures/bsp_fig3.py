"""bsp-fig3: test accuracy (top row) and leaves per tree (bottom row) against the training:test ratio on four
datasets reduced to 4 principal components, for RF, ERT, MF fixed, MF increasing and the online BSP forest (the
text's leaf rule, and the law's beside it); mean +- 1.96 SE over replicates."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Claim, Drawing, title_with_legend
from experiments.figures.accuracy_curves import CLOSE, dataset_title, ordered
from experiments.figures.bsp_methods import (
    BATCH,
    BETTER,
    MONDRIAN,
    beats_at_every,
    draw_methods,
    mean_ci,
    method,
    tree_counts,
)

ORDER = ("satimage", "dna", "letter", "usps")  # the paper's panels
PCA_SUFFIX = "_pca4"


def long_table(runs) -> pd.DataFrame:
    """dataset (the paper's name, marked when a copy stands in), key (the catalog's name: the claims' keys), method,
    seed, train fraction, accuracy, leaves per tree."""
    rows = []
    for run in runs:
        name = run.dataset.removesuffix(PCA_SUFFIX)
        rows.append(
            {
                "dataset": dataset_title(name),
                "key": name,
                "method": method(run),
                "seed": run.seed,
                "train_fraction": round(1.0 - float(run.data_settings["test_size"]), 6),
                "n_train": int(run.curves["step"].iloc[-1]),
                "accuracy": float(run.curves["accuracy"].iloc[-1]),
                "leaves": float(run.curves["leaves"].iloc[-1]),
            }
        )
    return pd.DataFrame(rows)


def summary(long: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, method and training fraction: the means and 1.96 SE over replicates."""
    return mean_ci(long, ["dataset", "key", "method", "train_fraction"], ["accuracy", "leaves", "n_train"])


def ratio(fraction: float) -> str:
    """A training fraction as the paper's training:test ratio (0.3 -> "3:7")."""
    train = round(fraction * 10)
    return f"{train}:{10 - train}" if abs(fraction * 10 - train) < 1e-9 else f"{fraction:g}"


def plot(runs, spec) -> Drawing:
    table = summary(long_table(runs))
    panels = ordered(table["dataset"].unique(), ORDER)
    fig, axes = plt.subplots(2, len(panels), figsize=(4.2 * len(panels), 7.2), squeeze=False)
    for column, dataset in enumerate(panels):
        part = table[table["dataset"] == dataset]
        for ax, value, label in ((axes[0][column], "accuracy", "test accuracy"), (axes[1][column], "leaves", None)):
            draw_methods(ax, part, "train_fraction", value)
            fractions = sorted(part["train_fraction"].unique())
            ax.set_xticks(fractions, [ratio(f) for f in fractions])
            ax.set_xlabel("training : test")
            ax.set_ylabel(label or "leaves per tree")
        axes[0][column].set_title(f"{dataset} (PCA, 4 components)", fontsize=10)
        axes[1][column].set_yscale("log")
    title_with_legend(
        fig,
        axes[0][0],
        f"BSP Fig. 3: classification accuracy, {tree_counts(runs)} trees, {int(table['seeds'].max())} "
        "replicates (mean +- 1.96 SE)",
    )
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """Section 5.1, per dataset: BSP more accurate than the Mondrian forests, and (dna excepted) competitive with RF
    and ERT."""
    long = long_table(runs)
    table = summary(long)
    out = []
    for dataset in ordered(table["dataset"].unique(), ORDER):
        part, seeds = table[table["dataset"] == dataset], long[long["dataset"] == dataset]
        wide = part.pivot(index="train_fraction", columns="method", values="accuracy")
        if "BSP" not in wide:
            continue
        key = part["key"].iloc[0]
        mfs = [m for m in MONDRIAN if m in wide]
        if mfs:
            out.append(beats_the_mondrian_forests(dataset, key, seeds, mfs))
        batch = [m for m in BATCH if m in wide]
        if batch and not dataset.startswith("dna"):
            out.append(competitive_with_batch(dataset, key, wide, batch))
    return out


def beats_the_mondrian_forests(dataset: str, key: str, seeds: pd.DataFrame, mfs: list[str]) -> Claim:
    """The paper's "much better than the Mondrian Forest", tested at every ratio over replicates."""
    verdicts = [beats_at_every(seeds, "accuracy", "BSP", mf, "train_fraction", lower=False, label=ratio) for mf in mfs]
    return Claim(
        f"{dataset}: BSP is more accurate than the Mondrian forests at every ratio ({BETTER})",
        all(passed for passed, _ in verdicts),
        "; ".join(text for _, text in verdicts),
        key=f"bsp_beats_mondrian_{key}",
    )


def competitive_with_batch(dataset: str, key: str, wide: pd.DataFrame, batch: list[str]) -> Claim:
    """The paper's "quite competitive to RF and ERT": the mean gap to the better batch forest within CLOSE."""
    gap = wide[batch].max(axis=1) - wide["BSP"]
    return Claim(
        f"{dataset}: BSP is competitive with RF and ERT (at most {CLOSE:g} below the better one, mean over ratios)",
        bool(np.mean(gap) <= CLOSE),
        "; ".join(
            f"{ratio(f)}: BSP {wide.loc[f, 'BSP']:.3f}, best batch {wide.loc[f, batch].max():.3f}" for f in wide.index
        ),
        key=f"competitive_with_batch_{key}",
    )
