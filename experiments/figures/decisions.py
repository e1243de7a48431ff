"""Drawing the decision functions that the ``decision`` protocol records (amf-fig1, amf-fig7, amf-fig9)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

FOREST = -1  # the ``tree`` of the forest's own rows in the grid table
CMAP = plt.get_cmap("RdBu")
CLASS_COLOURS = ("#b2182b", "#2166ac")  # class 0 red, class 1 blue, as the ends of CMAP


def decision_grid(run, step: int | None = None, tree: int = FOREST) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(xx, yy, P) on the square grid: the probability of class 1 after ``step`` rows (default: the last step)."""
    grid = run.tables["grid"]
    step = int(grid["step"].max()) if step is None else step
    rows = grid[(grid["step"] == step) & (grid["tree"] == tree)]
    size = round(np.sqrt(len(rows)))
    if size * size != len(rows) or size == 0:
        raise ValueError(f"{run.name}: no square grid for step {step}, tree {tree} ({len(rows)} rows)")
    shape = (size, size)
    return (
        rows["x0"].to_numpy().reshape(shape),
        rows["x1"].to_numpy().reshape(shape),
        rows["proba"].to_numpy().reshape(shape),
    )


def roughness(P: np.ndarray) -> float:
    """Mean absolute difference of the probability between neighbouring grid nodes: 0 for a constant function,
    large for a function that jumps often (blocky decision functions)."""
    return float(np.mean(np.r_[np.abs(np.diff(P, axis=0)).ravel(), np.abs(np.diff(P, axis=1)).ravel()]))


def draw_points(ax, points: pd.DataFrame, size: float = 8.0) -> None:
    for label, colour in enumerate(CLASS_COLOURS):
        part = points[points["y"] == label]
        ax.scatter(part["x0"], part["x1"], s=size, color=colour, edgecolors="white", linewidths=0.3, zorder=3)


def draw_decision(ax, xx, yy, P, points: pd.DataFrame | None = None, auc: float | None = None, title: str = ""):
    """Filled contours of P in [0, 1] (RdBu: red class 0, blue class 1), the points over it, the AUC bottom right."""
    image = ax.contourf(xx, yy, P, levels=np.linspace(0, 1, 21), cmap=CMAP, vmin=0, vmax=1, alpha=0.85)
    if points is not None:
        draw_points(ax, points)
    if auc is not None:
        ax.text(
            0.97,
            0.04,
            f"AUC {auc:.3f}",
            transform=ax.transAxes,
            ha="right",
            va="bottom",
            fontsize=8,
            bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1.5},
        )
    ax.set(xlim=(xx.min(), xx.max()), ylim=(yy.min(), yy.max()), xticks=[], yticks=[])
    ax.set_title(title, fontsize=9)
    return image


def train_points(run, step: int | None = None) -> pd.DataFrame:
    """The training points revealed up to ``step`` (all of them by default)."""
    points = run.tables["points"]
    train = points[points["order"] >= 0]
    return train if step is None else train[train["order"] < step]
