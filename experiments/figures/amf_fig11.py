"""amf-fig11: test AUC along the training stream of the online AMF, MF and SGD against batch RF and ET."""

from __future__ import annotations

import pandas as pd

from experiments.figures import Claim, Drawing, title_with_legend
from experiments.figures.amf_online import AMF_VARIANTS, COLORS, MF, PAPER_AMF, dataset_title, label, ordered, panels
from experiments.figures.tables import long_table

ONLINE = (*AMF_VARIANTS, MF, "SGD")
BATCH = ("RF", "ET")


def curves(runs) -> pd.DataFrame:
    """Long table: dataset, method, seed, step, auc (batch methods: one row, at the end of the stream)."""

    def labels(run) -> dict:
        return {"dataset": run.dataset, "method": label(run), "seed": run.seed}

    return long_table(runs, labels, ["step", "auc"])


def final_auc(long: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd over seeds of the test AUC at the end of the stream, per dataset and method."""
    last = long.sort_values("step").groupby(["dataset", "method", "seed"], as_index=False).last()
    return last.groupby(["dataset", "method"])["auc"].agg(["mean", "std", "count"]).reset_index()


def plot(runs, spec) -> Drawing:
    long = curves(runs)
    datasets = ordered(long["dataset"].unique())
    n_seeds = int(long.groupby(["dataset", "method"])["seed"].nunique().max())
    fig, axes = panels(len(datasets))
    for ax, dataset in zip(axes.flat, datasets, strict=False):
        part = long[long["dataset"] == dataset]
        n = part["step"].max()
        low = 1.0
        for method in ONLINE:
            stats = part[part["method"] == method].groupby("step")["auc"].agg(["mean", "std"])
            if stats.empty:
                continue
            sd = stats["std"].fillna(0.0)
            ax.plot(stats.index, stats["mean"], color=COLORS[method], lw=1.3, label=method)
            ax.fill_between(stats.index, stats["mean"] - sd, stats["mean"] + sd, color=COLORS[method], alpha=0.2)
            low = min(low, stats.loc[stats.index >= 0.05 * n, "mean"].min())
        for method, style in zip(BATCH, ("--", ":"), strict=True):
            values = part.loc[part["method"] == method, "auc"]
            if values.empty:
                continue
            ax.axhline(values.mean(), color=COLORS[method], ls=style, lw=1.6, label=method)
            low = min(low, values.mean())
        ax.set_ylim(max(0.0, low - 0.03), None)
        ax.set_xlim(0, n)
        ax.set_title(f"{dataset_title(dataset)} (n_train = {n})", fontsize=10)
        ax.set_xlabel("training samples seen", fontsize=9)
        ax.grid(alpha=0.3, lw=0.5)
        ax.tick_params(labelsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("test AUC", fontsize=9)
    title_with_legend(
        fig,
        axes[0, 0],
        "Test AUC (30% held out), every 100 samples for the online methods; RF, ET (10 trees) fitted once\n"
        f"mean ± sd over {n_seeds} split{'s' * (n_seeds > 1)} and stream orders",
    )
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    table = final_auc(curves(runs)).pivot(index="dataset", columns="method", values="mean")
    table = table.loc[ordered(table.index)]
    n = len(table)
    needed = n // 2 + 1
    online = [m for m in ONLINE if m in table.columns]
    batch = [m for m in BATCH if m in table.columns]
    details = "; ".join(
        f"{dataset_title(d)}: " + ", ".join(f"{m} {row[m]:.4f}" for m in (*online, *batch))
        for d, row in table.iterrows()
    )
    batch_best = [d for d, row in table.iterrows() if row[batch].max() > row[online].max()]
    out = [
        Claim(
            f"a batch method (RF or ET) has the best test AUC at the end on most datasets (>= {needed} of {n})",
            len(batch_best) >= needed,
            f"batch best on {len(batch_best)} of {n} ({', '.join(map(dataset_title, batch_best)) or 'none'}). "
            f"Final test AUC, mean over seeds: {details}",
            key="batch_best",
        )
    ]
    if PAPER_AMF in table.columns and MF in table.columns:
        margin = table[PAPER_AMF] - table[MF]
        over_mf = [d for d in table.index if margin[d] > 0]
        out.append(
            Claim(
                f"{PAPER_AMF} has a higher test AUC than {MF} at the end on most datasets (>= {needed} of {n})",
                len(over_mf) >= needed,
                f"{PAPER_AMF} > {MF} on {len(over_mf)} of {n} ({', '.join(map(dataset_title, over_mf)) or 'none'}); "
                + "; ".join(f"{dataset_title(d)}: {PAPER_AMF} - {MF} = {margin[d]:+.4f}" for d in table.index),
                key="above_mf",
            )
        )
    return out
