"""bsp-fig6: a Mondrian tree's boxes and a BSP tree's convex hulls on the same labelled points; a line slice of BSP
trees: where the cuts meet a segment, and the number of crossings over many trees against the Poisson law."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle
from scipy import stats

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.bsp_drawing import draw_partition
from experiments.figures.partitions import boxes, draw_splits

LABEL_COLOURS = np.array(["tab:blue", "tab:orange", "tab:green"])


def _points(ax, points) -> None:
    ax.scatter(points["x"], points["y"], s=12, c=LABEL_COLOURS[points["label"].to_numpy() % 3], zorder=3)
    ax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal")
    ax.add_patch(Rectangle((0, 0), 1, 1, fill=False, ls=":", color="0.4"))


def plot(runs, spec) -> Drawing:
    run = runs[0]
    t, m = run.tables, run.metrics
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.4))
    mondrian = t["mondrian"]
    lower, upper = boxes(mondrian)
    for j in np.flatnonzero(mondrian["left"].to_numpy() < 0):
        width = upper[j] - lower[j]
        axes[0].add_patch(Rectangle(lower[j], width[0], width[1], fill=False, ls="--", lw=0.7, color="0.3"))
    draw_splits(axes[0], mondrian, lower, upper, lambda row: "k", lw=1.2)
    _points(axes[0], t["points"])
    axes[0].set_title(f"Mondrian tree: boxes of the data's range ({m['mondrian_leaves']:.0f} leaves)", fontsize=9)
    draw_partition(axes[1], t["bsp_nodes"], t["bsp_hulls"])
    _points(axes[1], t["points"])
    axes[1].set_title(f"BSP tree: convex hulls of the data ({m['bsp_leaves']:.0f} leaves)", fontsize=9)
    draw_partition(axes[2], t["slice_nodes"], t["slice_hulls"], lw=0.8)
    axes[2].plot(t["segment"]["x"], t["segment"]["y"], color="red", lw=2)
    axes[2].scatter(t["crossings"]["x"], t["crossings"]["y"], s=30, color="blue", zorder=3)
    axes[2].set(xlim=(0, 1), ylim=(0, 1), aspect="equal")
    axes[2].set_title(f"line slice of a BSP tree: {len(t['crossings'])} crossing points", fontsize=9)
    counts = t["slice_counts"]["crossings"].to_numpy()
    k = np.arange(counts.max() + 2)
    axes[3].bar(k, np.bincount(counts, minlength=len(k)) / len(counts), color="tab:blue", alpha=0.6, label="trees")
    axes[3].plot(k, stats.poisson.pmf(k, m["poisson_mean"]), "o-", color="red", label="Poisson law")
    axes[3].set(xlabel="cuts met by the segment", ylabel="frequency")
    axes[3].legend(fontsize=8)
    axes[3].set_title(f"{len(counts)} trees: mean {counts.mean():.2f}, variance {counts.var(ddof=1):.2f}; "
                      f"Poisson {m['poisson_mean']:.2f}", fontsize=9)  # fmt: skip
    fig.suptitle("BSP Fig. 6: Mondrian boxes vs BSP hulls on the same points; the line slice of the BSP partition",
                 fontsize=10)  # fmt: skip
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """The line-slice lemma's Poisson law (within 3 SE of its mean and of its variance), and a hull inside the box of
    the same points (by construction)."""
    m = runs[0].metrics
    n = m["slice_trees"]
    mean, var, expected = m["slice_mean"], m["slice_var"], m["poisson_mean"]
    se_mean = np.sqrt(expected / n)
    se_var = np.sqrt((expected + 2 * expected**2) / n)
    return [
        Claim(
            "a BSP leaf keeps the convex hull of its points, tighter than the box of their ranges (a Mondrian leaf)",
            m["bsp_hull_area"] < m["bsp_range_area"],
            f"BSP leaves: hulls {m['bsp_hull_area']:.3f}, boxes of the same points {m['bsp_range_area']:.3f} (the "
            f"Mondrian tree's {m['mondrian_leaves']:.0f} leaf boxes: {m['mondrian_box_area']:.3f})",
            key="hull_tighter_than_box",
            kind=INVARIANT,
        ),
        Claim(
            "line slice: the mean number of cuts met is the Poisson mean 2 rate_scale tau length (within 3 SE)",
            abs(mean - expected) <= 3 * se_mean,
            f"{mean:.3f} vs {expected:.3f} (SE {se_mean:.3f}, {n:.0f} trees)",
            key="slice_poisson_mean",
        ),
        Claim(
            "line slice: its variance equals its mean, as for a Poisson count (within 3 SE)",
            abs(var - expected) <= 3 * se_var,
            f"variance {var:.3f} vs {expected:.3f} (SE {se_var:.3f})",
            key="slice_variance_equals_mean",
        ),
    ]
