"""amf-fig5: unrestricted vs restricted Mondrian partitions of the same points.

Left, the Mondrian process on the unit square split until each cell holds at most one point, the splits that leave
a side empty in blue; right, its restriction: those splits removed, each split drawn across its cell of the
restricted tree (AMF's Equation (2)), and the ranges of the points of the internal nodes dashed.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.partitions import boxes, cells, draw_splits, tiling

REMOVED = "#1f78b4"  # splits that leave a side empty (the paper's blue)


def _empty_side(full: pd.DataFrame) -> pd.Series:
    """For each internal node of the unrestricted partition: does one side of its split hold no point?"""
    counts = full.set_index("node")["n_points"]
    internal = full[full["left"] >= 0]
    return pd.Series(
        np.minimum(counts[internal["left"]].to_numpy(), counts[internal["right"]].to_numpy()) == 0,
        index=internal["node"],
    )


def _points(run) -> np.ndarray:
    """The sample points as an (n, 2) array."""
    return run.tables["points"][["x0", "x1"]].to_numpy()


def _square(ax, title: str) -> None:
    ax.add_patch(plt.Rectangle((0, 0), 1, 1, fill=False, lw=1.5))
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), aspect="equal", title=title)
    ax.axis("off")


def plot(runs, spec) -> Drawing:
    run = runs[0]
    full, small, points = run.tables["unrestricted"], run.tables["restricted"], _points(run)
    empty = _empty_side(full)
    fig, (ax_full, ax_small) = plt.subplots(1, 2, figsize=(10, 5))
    lower, upper = boxes(full)
    draw_splits(ax_full, full, lower, upper, lambda n: REMOVED if empty[n["node"]] else "k", lw=1.5)
    lower, upper = cells(small, np.zeros(2), np.ones(2))
    draw_splits(ax_small, small, lower, upper, lambda n: "k", lw=1.5)
    for _, n in small[small["left"] >= 0].iterrows():
        ax_small.add_patch(
            plt.Rectangle(
                (n["lower_0"], n["lower_1"]),
                n["upper_0"] - n["lower_0"],
                n["upper_1"] - n["lower_1"],
                fill=False,
                ls="--",
                lw=0.8,
                color="0.55",
            )
        )
    for ax in (ax_full, ax_small):
        ax.scatter(points[:, 0], points[:, 1], s=25, color="k", zorder=3)
    n_full, n_small = int((full["left"] < 0).sum()), int((small["left"] < 0).sum())
    _square(ax_full, f"unrestricted: {n_full} cells\n{int(empty.sum())} splits (blue) leave a cell empty")
    _square(ax_small, f"restricted: {n_small} cells, one point each\n(dashed: the ranges of its internal nodes)")
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    run = runs[0]
    full, small, points = run.tables["unrestricted"], run.tables["restricted"], _points(run)
    full_leaves, small_leaves = full[full["left"] < 0], small[small["left"] < 0]
    full_volume, full_overlap = tiling(*boxes(full_leaves))
    small_cells = cells(small, np.zeros(2), np.ones(2))
    lo, hi = small_cells[0][small_leaves.index], small_cells[1][small_leaves.index]
    small_volume, small_overlap = tiling(lo, hi)
    per_leaf = np.all((points[:, None] >= lo[None]) & (points[:, None] <= hi[None]), axis=2).sum(0)

    empty = _empty_side(full)
    kept = full.set_index("node").loc[empty.index[~empty.to_numpy()]]
    split = ["feature", "threshold", "split_time"]
    same_splits = sorted(map(tuple, kept[split].to_numpy())) == sorted(
        map(tuple, small[small["left"] >= 0][split].to_numpy())
    )

    internal = small[small["left"] >= 0]
    lower, upper = boxes(small)
    origin_lower, origin_upper = boxes(full.set_index("node").loc[small["origin"]].reset_index())
    inside_cell = bool(np.all(lower >= origin_lower) and np.all(upper <= origin_upper))
    inside_data = bool(np.all(lower >= points.min(0)) and np.all(upper <= points.max(0)))
    f = internal["feature"].to_numpy()
    rows = internal.index.to_numpy()
    cuts_range = bool(np.all((lower[rows, f] <= internal["threshold"]) & (internal["threshold"] < upper[rows, f])))
    return [
        Claim(
            "unrestricted: the leaves tile the square and hold at most one point each",
            bool(abs(full_volume - 1) < 1e-12 and full_overlap == 0 and full_leaves["n_points"].max() <= 1),
            f"{len(full_leaves)} leaves, total area {full_volume:.15f}, max overlap {full_overlap:.1e}, "
            f"{int((full_leaves['n_points'] == 0).sum())} empty",
            key="unrestricted_tiles",
            kind=INVARIANT,
        ),
        Claim(
            "restricted: removing the splits that leave a side empty gives its splits, one leaf per point",
            same_splits and len(small_leaves) == len(points) and bool(np.all(per_leaf == 1)),
            f"{len(kept)} of {len(empty)} splits kept = {len(internal)} restricted splits; "
            f"{len(small_leaves)} leaves for {len(points)} points, "
            f"points per leaf cell {sorted(set(per_leaf.tolist()))}",
            key="restriction_removes_empty_splits",
            kind=INVARIANT,
        ),
        Claim(
            "restricted: its cells (Eq. (2)) still tile the square",
            bool(abs(small_volume - 1) < 1e-12 and small_overlap == 0),
            f"total area {small_volume:.15f}, max overlap {small_overlap:.1e}",
            key="restricted_cells_tile",
            kind=INVARIANT,
        ),
        Claim(
            "restricted: each node's range lies inside its cell and the data's range, and each split cuts its range",
            inside_cell and inside_data and cuts_range,
            f"inside cells {inside_cell}, inside the data's bounding box {inside_data}, "
            f"thresholds in ranges {cuts_range}",
            key="ranges_inside_cells",
            kind=INVARIANT,
        ),
    ]
