"""bsp-table1: test RMSE (mean +- 1.96 SE over replicates) of RF, ERT, MF fixed, MF increasing and the online BSP
forest on apartment prices and airline delays, beside the paper's Table 1 (CSV, Markdown and a dot plot)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Claim, title_with_legend
from experiments.figures.bsp_methods import COLORS, METHODS, ONLINE, mean_ci, method

# The paper's Table 1: (RMSE, 1.96 SE) per dataset config and method.
PAPER = {
    "apartments": {"RF": (0.526, 0.02), "ERT": (0.531, 0.02), "MF fixed": (0.545, 0.04),
                   "MF increasing": (0.541, 0.03), "BSP": (0.536, 0.03)},
    "airline_100k": {"RF": (32.2, 0.7), "ERT": (34.1, 1.0), "MF fixed": (36.5, 0.5), "MF increasing": (35.1, 1.2),
                     "BSP": (35.9, 0.8)},
    "airline_400k": {"RF": (33.7, 0.4), "ERT": (33.5, 0.9), "MF fixed": (35.8, 1.2), "MF increasing": (36.2, 0.9),
                     "BSP": (35.2, 1.3)},
    "airline_1m": {"RF": (34.1, 0.9), "ERT": (33.5, 0.6), "MF fixed": (37.3, 1.1), "MF increasing": (36.5, 0.6),
                   "BSP": (35.9, 1.1)},
}  # fmt: skip
ROWS = tuple(PAPER)


def row_label(run) -> str:
    """The table's row: the paper's name of the dataset with the training size that ran."""
    n_train = int(run.metrics.get("n_train", run.curves["n_train"].iloc[-1]))
    if run.trial["dataset"]["name"] == "apartments":
        return f"Apartment ({n_train} train)"
    return f"Airline ({n_train // 1000}K)" if n_train % 1000 == 0 else f"Airline ({n_train})"


def summary(runs) -> pd.DataFrame:
    """Per row and method: the mean RMSE and its 1.96 SE, the seeds, and the paper's RMSE and 1.96 SE."""
    long = pd.DataFrame(
        {
            "config": run.trial["dataset"]["name"],
            "row": row_label(run),
            "method": method(run),
            "seed": run.trial.get("seed", 0),
            "rmse": float(run.curves["rmse"].iloc[-1]),
            "train_time": float(run.curves["train_time"].iloc[-1]),
        }
        for run in runs
    )
    out = mean_ci(long, ["config", "row", "method"], ["rmse", "train_time"])
    paper = [PAPER.get(c, {}).get(m, (np.nan, np.nan)) for c, m in zip(out["config"], out["method"], strict=True)]
    out["paper_rmse"], out["paper_ci"] = zip(*paper, strict=True) if paper else ((), ())
    out["order"] = out["config"].map({config: i for i, config in enumerate(ROWS)})  # the paper's rows first
    return out.sort_values(["order", "row"]).drop(columns="order")


def write_table(table: pd.DataFrame, stem: str) -> None:
    """CSV of the summary; Markdown with a row per dataset, measured then (the paper's) per method."""
    path = Path(stem)
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path.with_suffix(".csv"), index=False, float_format="%.6g")
    present = [m for m in METHODS if m in set(table["method"])]
    lines = ["| dataset | " + " | ".join(present) + " |", "|---" * (len(present) + 1) + "|"]
    for row, part in table.groupby("row", sort=False):
        part = part.set_index("method")
        best = part["rmse"].idxmin()
        cells = []
        for name in present:
            if name not in part.index:
                cells.append("")
                continue
            r = part.loc[name]
            text = f"{r['rmse']:.3f} ± {r['rmse_ci']:.3f}"
            text = f"**{text}**" if name == best else text
            if not np.isnan(r["paper_rmse"]):
                text += f" ({r['paper_rmse']:g} ± {r['paper_ci']:g})"
            cells.append(text)
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    seeds = int(table["seeds"].max())
    lines += ["", f"Test RMSE, mean ± 1.96 SE over {seeds} replicates (bold: the lowest); in brackets the paper's."]
    path.with_suffix(".md").write_text("\n".join(lines) + "\n")


def plot(runs, spec) -> plt.Figure:
    table = summary(runs)
    if spec.get("table"):
        write_table(table, spec.table)
    rows = list(dict.fromkeys(table["row"]))
    fig, axes = plt.subplots(1, len(rows), figsize=(3.6 * len(rows), 3.6), squeeze=False)
    for ax, row in zip(axes[0], rows, strict=True):
        part = table[table["row"] == row].set_index("method")
        for i, name in enumerate(m for m in METHODS if m in part.index):
            r = part.loc[name]
            ax.errorbar(i - 0.12, r["rmse"], yerr=r["rmse_ci"], fmt="o", color=COLORS[name], capsize=3, label=name)
            if not np.isnan(r["paper_rmse"]):
                ax.errorbar(i + 0.12, r["paper_rmse"], yerr=r["paper_ci"], fmt="x", color=COLORS[name], capsize=3,
                            alpha=0.6)  # fmt: skip
        names = [m for m in METHODS if m in part.index]
        ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
        ax.set_title(row, fontsize=10)
        ax.set_ylabel("test RMSE")
        ax.grid(alpha=0.3, axis="y")
    trees = sorted({int(r.trial["model"]["estimator"].get("n_estimators", 0)) for r in runs} - {0})
    title_with_legend(
        fig,
        axes[0][0],
        f"BSP Table 1: test RMSE, {'/'.join(map(str, trees))} trees, {int(table['seeds'].max())} replicates "
        "(o measured, mean +- 1.96 SE; x the paper's)",
    )
    return fig


def claims(runs, spec) -> list[Claim]:
    table = summary(runs)
    out = []
    for row, part in table.groupby("row", sort=False):
        rmse = part.set_index("method")["rmse"]
        mfs = [m for m in ("MF fixed", "MF increasing") if m in rmse]
        if "BSP" in rmse and mfs and row.startswith("Apartment"):
            out.append(
                Claim(
                    f"{row}: BSP has a lower RMSE than both Mondrian forests (paper: 0.536 vs 0.545, 0.541)",
                    bool(rmse["BSP"] < rmse[mfs].min()),
                    ", ".join(f"{m} {rmse[m]:.4f}" for m in ["BSP", *mfs]),
                )
            )
        batch = [m for m in ("RF", "ERT") if m in rmse]
        online = [m for m in ONLINE if m in rmse]
        if batch and online:
            out.append(
                Claim(
                    f"{row}: the best batch forest (RF, ERT) beats every online forest",
                    bool(rmse[batch].min() < rmse[online].min()),
                    ", ".join(f"{m} {rmse[m]:.4f}" for m in batch + online),
                )
            )
        bsp = part.set_index("method").loc["BSP"] if "BSP" in rmse else None
        if bsp is not None and not np.isnan(bsp["paper_rmse"]):
            gap = abs(bsp["rmse"] - bsp["paper_rmse"])
            out.append(
                Claim(
                    f"{row}: BSP's RMSE agrees with the paper's (within the two error bars)",
                    bool(gap <= bsp["rmse_ci"] + bsp["paper_ci"]),
                    f"measured {bsp['rmse']:.4f} ± {bsp['rmse_ci']:.4f}, paper {bsp['paper_rmse']:g} ± "
                    f"{bsp['paper_ci']:g}",
                )
            )
    return out
