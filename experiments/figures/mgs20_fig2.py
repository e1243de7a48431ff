"""mgs20-fig2: MGS20's Proposition 1 drawn on a sample: the cell of a Mondrian partition containing a point x, and
its distances to x on each side, x_j - L_j = min(E_j / lam, x_j) and R_j - x_j = min(E'_j / lam, 1 - x_j) with
independent E, E' ~ Exp(1) (the law itself is checked by Monte Carlo in theory-cell)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.partitions import boxes, draw_splits, partition_claims


def cell_of(nodes, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The leaf boxes that hold x: (lower, upper) of the first, and how many there are (1 for a partition; 2 or 4
    only if x lies on a split)."""
    leaves = nodes[nodes["left"] < 0]
    lower, upper = boxes(leaves)
    holding = np.flatnonzero(np.all((lower <= x) & (x <= upper), axis=1))
    return lower[holding[0]], upper[holding[0]], len(holding)


def plot(runs, spec) -> Drawing:
    run = runs[0]
    nodes = run.tables["nodes"]
    lam = run.protocol["lifetime"]
    x = np.asarray(spec.point, dtype=float)
    low, high, _ = cell_of(nodes, x)
    fig, ax = plt.subplots(figsize=(5.8, 5.8))
    draw_splits(ax, nodes, *boxes(nodes), colour=lambda n: "0.35", lw=1.2)
    ax.add_patch(Rectangle(low, *(high - low), color="C0", alpha=0.25, lw=0))
    ax.plot(*x, "k*", ms=12, zorder=5)
    ax.annotate("x", x, xytext=(6, 6), textcoords="offset points", fontsize=12)
    arrow = {"arrowstyle": "->", "color": "C3", "lw": 1.4, "shrinkA": 0, "shrinkB": 0}
    ends = {"x_1 - L_1": (low[0], x[1]), "R_1 - x_1": (high[0], x[1]), "x_2 - L_2": (x[0], low[1]),
            "R_2 - x_2": (x[0], high[1])}  # fmt: skip
    for end in ends.values():
        ax.annotate("", xy=end, xytext=tuple(x), arrowprops=arrow)
    distances = [abs(x[0] - low[0]), abs(high[0] - x[0]), abs(x[1] - low[1]), abs(high[1] - x[1])]
    ax.set_xlabel(
        "distances from x to its cell's sides (red): "
        + ", ".join(f"${name}$ = {v:.3f}" for name, v in zip(ends, distances, strict=True)),
        fontsize=8,
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_title(
        f"A Mondrian partition MP(lambda = {lam:g}, [0,1]^2) and the cell holding x (shaded)\n"
        "MGS20 Prop. 1: x_j - L_j = min(Exp(lambda), x_j), R_j - x_j = min(Exp(lambda), 1 - x_j), all independent",
        fontsize=9,
    )
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    run = runs[0]
    nodes = run.tables["nodes"]
    x = np.asarray(spec.point, dtype=float)
    low, high, n_holding = cell_of(nodes, x)
    return [
        *partition_claims(nodes, run.protocol["lifetime"]),
        Claim(
            "exactly one cell of the partition holds x; its sides lie within the unit square",
            n_holding == 1 and bool(np.all(low >= 0) and np.all(high <= 1)),
            f"{n_holding} cell(s) hold x = {x.tolist()}; the cell is [{low[0]:.3f}, {high[0]:.3f}] x "
            f"[{low[1]:.3f}, {high[1]:.3f}]",
            key="one_cell_holds_x",
            kind=INVARIANT,
        ),
    ]
