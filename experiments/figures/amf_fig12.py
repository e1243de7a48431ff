"""amf-fig12: test AUC against the number of trees of AMF, MF, RF and ET."""

from __future__ import annotations

import pandas as pd

from experiments.figures import Claim, Drawing, title_with_legend
from experiments.figures.amf_online import AMF_VARIANTS, COLORS, MF, PAPER_AMF, dataset_title, label, ordered, panels
from experiments.figures.tables import long_table

# What the paper ran (onelearn's AMF, scikit-garden's MF, RF, ET) carries the claims; the text's AMF is drawn beside.
METHODS = (PAPER_AMF, "AMF", MF, "RF", "ET")
MARKERS = {PAPER_AMF: "o", "AMF": "D", MF: "s", "RF": "^", "ET": "v"}


def table(runs) -> pd.DataFrame:
    """Per dataset, method and number of trees: the final test AUC, mean and sd over seeds."""

    def labels(run) -> dict:
        return {"dataset": run.dataset, "method": label(run), "n_trees": run.trees, "seed": run.seed}

    frame = long_table(runs, labels, ())
    return frame.groupby(["dataset", "method", "n_trees"])["auc"].agg(["mean", "std", "count"]).reset_index()


def plot(runs, spec) -> Drawing:
    t = table(runs)
    datasets = ordered(t["dataset"].unique())
    n_seeds = int(t["count"].max())
    fig, axes = panels(len(datasets))
    for ax, dataset in zip(axes.flat, datasets, strict=False):
        part = t[t["dataset"] == dataset]
        for method in METHODS:
            rows = part[part["method"] == method].sort_values("n_trees")
            if rows.empty:
                continue
            ax.errorbar(
                rows["n_trees"],
                rows["mean"],
                yerr=rows["std"].fillna(0.0),
                color=COLORS[method],
                marker=MARKERS[method],
                ms=4,
                lw=1.3,
                capsize=2,
                label=method,
            )
        trees = sorted(part["n_trees"].unique())
        ax.set_xscale("log")
        ax.set_xticks(trees, [str(k) for k in trees])
        ax.minorticks_off()
        ax.set_title(dataset_title(dataset), fontsize=10)
        ax.set_xlabel("number of trees", fontsize=9)
        ax.grid(alpha=0.3, lw=0.5)
        ax.tick_params(labelsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("test AUC", fontsize=9)
    title_with_legend(
        fig,
        axes[0, 0],
        f"Test AUC (30% held out) against the number of trees; mean ± sd over {n_seeds} split{'s' * (n_seeds > 1)}",
    )
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    t = table(runs)
    means = t.pivot_table(index=["dataset", "n_trees"], columns="method", values="mean")
    datasets = ordered(t["dataset"].unique())
    n = len(datasets)
    needed = n // 2 + 1
    few = [k for k in (1, 2) if k in means.index.get_level_values("n_trees")]
    others = [m for m in METHODS if m in means.columns and m not in AMF_VARIANTS]
    best_with_few, few_details = [], []
    for dataset in datasets:
        rows = means.loc[dataset].loc[few]
        margins = rows[PAPER_AMF] - rows[others].max(axis=1)
        few_details.append(
            f"{dataset_title(dataset)}: "
            + ", ".join(
                f"{k} tree{'s' * (k > 1)} {PAPER_AMF} {rows.loc[k, PAPER_AMF]:.4f} vs best other "
                f"{rows.loc[k, others].idxmax()} {rows.loc[k, others].max():.4f}"
                for k in few
            )
        )
        if (margins > 0).all():
            best_with_few.append(dataset)
    ranges = {d: means.loc[d].max() - means.loc[d].min() for d in datasets}
    least = [d for d in datasets if ranges[d][[PAPER_AMF, *others]].idxmin() == PAPER_AMF]
    range_details = "; ".join(
        f"{dataset_title(d)}: " + ", ".join(f"{m} {ranges[d][m]:.4f}" for m in METHODS if m in ranges[d].index)
        for d in datasets
    )
    trees = ", ".join(map(str, sorted(t["n_trees"].unique())))
    return [
        Claim(
            f"with {' and '.join(map(str, few))} tree(s), {PAPER_AMF} has the best test AUC on most datasets"
            f" (>= {needed} of {n})",
            len(best_with_few) >= needed,
            f"{PAPER_AMF} best at every one of {few} trees on {len(best_with_few)} of {n}: {'; '.join(few_details)}",
            key="best_with_few_trees",
        ),
        Claim(
            f"{PAPER_AMF} is the least sensitive to the number of trees (smallest range of the mean test AUC over"
            f" {trees} trees) on most datasets (>= {needed} of {n})",
            len(least) >= needed,
            f"{PAPER_AMF} smallest range on {len(least)} of {n}; ranges (max - min): {range_details}",
            key="least_sensitive",
        ),
    ]
