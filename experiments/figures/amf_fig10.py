"""amf-fig10: average online log loss (progressive validation) of AMF, MF, SGD and Dummy on the AMF datasets."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Claim, Drawing, Table, title_with_legend
from experiments.figures.amf_online import AMF_VARIANTS, COLORS, MF, PAPER_AMF, dataset_title, ordered
from experiments.figures.tables import long_table, markdown_table, wide_cells

METHODS = (*AMF_VARIANTS, MF, "SGD", "Dummy")
LOSS = "average_log_loss"
ACCURACY = "average_accuracy"
HEADER = """# AMF Fig. 10: online average log loss (progressive validation: predict x_t, then learn it)

What the paper ran: AMF (onelearn) is onelearn 0.3's AMFClassifier with its defaults (10 trees, step 1, pure leaves
not split, its weighting: a new leaf is not charged, the log loss counts the point first; dirichlet 0.5 with two
classes, 0.01 with more); MF (skgarden-like) is the closest configuration of this library's MondrianForestClassifier
to scikit-garden's (lifetime inf, no pausing, IKN with gamma inf); SGD: logistic regression, constant step 0.1, L2
penalty 1e-4, one pass; Dummy: Krichevsky-Trofimov on the labels. Beside them: AMF as the text's Algorithm 4
(dirichlet 1/2) and, with more than two classes, onelearn's weighting at dirichlet 1/2. Every AMF routes x by the
existing splits (onelearn's prediction). Written by `make reproduce-figure FIG=amf-fig10`
(experiments/figures/amf_fig10.py) from the figure's runs."""


def method_order(names) -> list[str]:
    """Methods in the figure's order (the AMF lines, MF, SGD, Dummy, RF, ERT), others after, alphabetically."""
    names = set(names)
    return [m for m in (*METHODS, "RF", "ERT") if m in names] + sorted(names - {*METHODS, "RF", "ERT"})


def curves(runs) -> pd.DataFrame:
    """Long table: dataset, method, seed, n (the stream's length), step, the average log loss and accuracy."""

    def labels(run) -> dict:
        return {"dataset": run.dataset, "method": run.model, "seed": run.seed, "n": int(run.curves["step"].iloc[-1])}

    return long_table(runs, labels, ["step", LOSS, ACCURACY])


def at_fraction(long: pd.DataFrame, fraction: float) -> pd.DataFrame:
    """The average loss at the first logged step >= fraction * n, per dataset, method and seed."""
    rows = long[long["step"] >= np.ceil(fraction * long["n"])]
    return rows.sort_values("step").groupby(["dataset", "method", "seed"], as_index=False).first()


def summary(runs, early_fraction: float) -> pd.DataFrame:
    """Per dataset and method: final and early average log loss and final accuracy, mean and sd over seeds."""
    long = curves(runs)
    final = at_fraction(long, 1.0)
    early = at_fraction(long, early_fraction)
    keys = ["dataset", "method"]
    out = final.groupby(keys)[LOSS].agg(final_mean="mean", final_sd="std", n_seeds="count").reset_index()
    out = out.merge(final.groupby(keys)[ACCURACY].agg(accuracy_mean="mean", accuracy_sd="std").reset_index(), on=keys)
    out = out.merge(final.groupby(keys)["step"].first().rename("n_samples").reset_index(), on=keys)
    out = out.merge(early.groupby(keys)["step"].first().rename("early_step").reset_index(), on=keys)
    out = out.merge(early.groupby(keys)[LOSS].agg(early_mean="mean", early_sd="std").reset_index(), on=keys)
    out["dataset"] = pd.Categorical(out["dataset"], ordered(out["dataset"]), ordered=True)
    out["method"] = pd.Categorical(out["method"], method_order(out["method"]), ordered=True)
    return out.sort_values(keys).reset_index(drop=True)


def winners(table: pd.DataFrame, column: str, variant: str) -> dict[str, str]:
    """Per dataset, the method with the lowest mean among the AMF ``variant`` and the methods that are not AMF."""
    rivals = table[(table["method"] == variant) | ~table["method"].isin(AMF_VARIANTS)]
    best = rivals.loc[rivals.groupby("dataset", observed=True)[column].idxmin()]
    return dict(zip(best["dataset"].astype(str), best["method"].astype(str), strict=True))


def markdown(table: pd.DataFrame, prefix: str, title: str) -> str:
    """Datasets as rows with their step, methods as columns, 'mean ± sd' with the best mean in bold (the lowest
    loss, the highest accuracy)."""
    cells = wide_cells(table.rename(columns={f"{prefix}_mean": prefix}), ["dataset"], "method", prefix,
                       best="max" if prefix == "accuracy" else "min", order=table["method"].cat.categories)  # fmt: skip
    steps = table.groupby("dataset", observed=True)["early_step" if prefix == "early" else "n_samples"].first()
    cells.insert(1, "t" if prefix == "early" else "n", [int(steps[d]) for d in cells["dataset"]])
    cells["dataset"] = [dataset_title(str(d)) for d in cells["dataset"]]
    return f"{title}\n\n{markdown_table(cells)}"


def final_table(table: pd.DataFrame, early_fraction: float) -> Table:
    """The summary as CSV, and as Markdown the final and early average log loss and the final accuracy."""
    n_seeds = int(table["n_seeds"].max())
    text = (
        f"{HEADER}\n\nMean ± sd over {n_seeds} seeds (each seed shuffles the stream); bold: the best mean.\n\n"
        + markdown(table, "final", "Final average log loss (t = n):")
        + "\n"
        + markdown(table, "early", f"Average log loss early (at t = {early_fraction:g} n, rounded up):")
        + "\n"
        + markdown(table, "accuracy", "Final average accuracy (t = n):")
    )
    return Table(table, text)


def plot(runs, spec) -> Drawing:
    long = curves(runs)
    datasets = ordered(long["dataset"].unique())
    methods = method_order(long["method"].unique())
    n_cols = min(5, len(datasets))
    n_rows = int(np.ceil(len(datasets) / n_cols))
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(3.3 * n_cols, 2.9 * n_rows + 0.7), squeeze=False)
    n_seeds = int(long.groupby(["dataset", "method"])["seed"].nunique().max())
    early = spec.get("early_fraction", 0.1)
    for ax, dataset in zip(axes.flat, datasets, strict=False):
        part = long[long["dataset"] == dataset]
        top = 0.0
        for method in methods:
            stats = part[part["method"] == method].groupby("step")[LOSS].agg(["mean", "std", "count"])
            if stats.empty:
                continue
            sd = stats["std"].fillna(0.0)
            ax.plot(stats.index, stats["mean"], color=COLORS.get(method), lw=1.4, label=method)
            ax.fill_between(stats.index, stats["mean"] - sd, stats["mean"] + sd, color=COLORS.get(method), alpha=0.2)
            later = stats.loc[stats.index >= 10, "mean"]
            if method not in ("SGD", MF) or later.empty:  # their first predictions can be far off
                top = max(top, stats["mean"].max())
            else:
                top = max(top, later.quantile(0.9))
        ax.axvline(np.ceil(early * part["n"].max()), color="0.5", ls=":", lw=0.8)
        ax.set_xscale("log")
        ax.set_ylim(0, top * 1.05)
        ax.set_title(f"{dataset_title(dataset)} (n = {part['n'].max()})", fontsize=10)
        ax.grid(alpha=0.3, which="both", lw=0.5)
        ax.tick_params(labelsize=8)
    for ax in axes.flat[len(datasets) :]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("t (samples revealed)", fontsize=9)
    for ax in axes[:, 0]:
        ax.set_ylabel("average log loss", fontsize=9)
    title_with_legend(
        fig,
        max(axes.flat, key=lambda ax: len(ax.get_lines())),  # a panel with every method (some run on some datasets)
        f"Online progressive validation: mean ± sd over {n_seeds} shuffle{'s' * (n_seeds > 1)}"
        f" (10 trees); dotted: t = {early:g} n",
    )
    return Drawing(fig, {"": final_table(summary(runs, early), early)})


def claims(runs, spec) -> list[Claim]:
    """The paper's claims, on what the paper ran (AMF (onelearn)) against the methods that are not AMF."""
    fraction = spec.get("early_fraction", 0.1)
    table = summary(runs, fraction)
    if PAPER_AMF not in set(table["method"]):
        return []
    n = table["dataset"].nunique()
    return [
        lowest_loss(table, "final", "at the end of the stream", n // 2 + 1, "most"),
        lowest_loss(table, "early", f"early (t = {fraction:g} n)", max(n - 1, 1), "all or nearly all"),
    ]


def lowest_loss(table: pd.DataFrame, prefix: str, when: str, needed: int, quantifier: str) -> Claim:
    """AMF (onelearn) has the lowest mean average log loss (``prefix``: final or early) on ``needed`` datasets."""
    n = table["dataset"].nunique()
    best = winners(table, f"{prefix}_mean", PAPER_AMF)
    wins = [d for d, m in best.items() if m == PAPER_AMF]
    pivot = table.pivot(index="dataset", columns="method", values=f"{prefix}_mean")
    details = "; ".join(
        f"{dataset_title(str(d))}: " + ", ".join(f"{m} {row[m]:.4f}" for m in pivot.columns if not np.isnan(row[m]))
        for d, row in pivot.iterrows()
    )
    losers = ", ".join(f"{dataset_title(d)} ({best[d]})" for d in best if best[d] != PAPER_AMF) or "none"
    return Claim(
        f"{PAPER_AMF} has the lowest average log loss {when} on {quantifier} datasets (>= {needed} of {n}),"
        " against the methods that are not AMF",
        len(wins) >= needed,
        f"{PAPER_AMF} lowest on {len(wins)} of {n}; others win on: {losers}. Means: {details}",
        key=f"{prefix}_lowest_loss",
    )
