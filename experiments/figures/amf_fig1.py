"""amf-fig1: the decision functions of the 10 trees of AMF and of the forest, their average (Eq. (1))."""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import INVARIANT, Claim, Drawing
from experiments.figures.decisions import decision_grid, draw_decision, draw_points, train_points


def _last(run) -> pd.DataFrame:
    """The trees' test AUCs after the last step (the figure draws the forest once the stream is learnt)."""
    trees = run.tables["trees"]
    return trees[trees["step"] == trees["step"].max()].set_index("tree")


def _trees(run) -> list[int]:
    return sorted(int(k) for k in _last(run).index)


def plot(runs, spec) -> Drawing:
    run = runs[0]
    trees = _trees(run)
    auc = _last(run)["auc"]
    n_cols = (len(trees) + 2 + 1) // 2
    fig, axes = plt.subplots(2, n_cols, figsize=(2.2 * n_cols, 4.6))
    axes = axes.ravel()
    xx, yy, P = decision_grid(run)
    draw_points(axes[0], train_points(run))
    axes[0].set(xlim=(xx.min(), xx.max()), ylim=(yy.min(), yy.max()), xticks=[], yticks=[])
    axes[0].set_title("training data", fontsize=9)
    for ax, k in zip(axes[1:], trees, strict=False):
        draw_decision(ax, *decision_grid(run, tree=k), auc=auc[k], title=f"tree {k + 1}")
    image = draw_decision(axes[len(trees) + 1], xx, yy, P, auc=run.metrics["auc"], title="forest (AMF)")
    for ax in axes[len(trees) + 2 :]:
        ax.axis("off")
    fig.colorbar(image, ax=axes.tolist(), fraction=0.02, label="P(class 1)")
    n_train = len(train_points(run))
    fig.suptitle(f"AMF on moons: {len(trees)} trees and their forest after one pass on {n_train} points", fontsize=10)
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """Fig. 1 is an illustration: it states no result, so its checks are invariants of the drawing (the forest is
    the mean of its trees, Eq. (1); the trees differ, each grown by its own random draw)."""
    run = runs[0]
    trees = _trees(run)
    _, _, forest = decision_grid(run)
    grids = [decision_grid(run, tree=k)[2] for k in trees]
    gap = float(np.abs(forest - np.mean(grids, axis=0)).max())
    differences = [float(np.abs(a - b).mean()) for a, b in itertools.combinations(grids, 2)]
    return [
        Claim(
            "the forest's decision function is the average of its trees' (Eq. (1))",
            gap < 1e-9,
            f"max |forest - mean of {len(trees)} trees| on the grid = {gap:.1e}",
            key="forest_is_mean_of_trees",
            kind=INVARIANT,
            quote="namely taking the average over all tree predictions",
            where="AMF Sec. 1, Eq. (1)",
        ),
        Claim(
            "the trees differ: each is grown by its own random draw",
            min(differences) > 1e-3,
            f"smallest mean |difference| between two trees' decision functions = {min(differences):.3f}",
            key="trees_differ",
            kind=INVARIANT,
            quote="Each tree is grown in parallel, following the same randomized mechanism.",
            where="AMF Fig. 1 caption",
        ),
    ]
