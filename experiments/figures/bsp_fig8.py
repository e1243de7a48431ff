"""bsp-fig8: maps of the apartment prices of a test set, the online BSP forest's predictions and their errors."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from experiments.figures import INVARIANT, Claim, Drawing


def first_replicate(runs):
    """The run of the lowest seed and its predictions table."""
    run = min(runs, key=lambda r: r.seed)
    return run, run.tables["predictions"]


def plot(runs, spec) -> Drawing:
    run, table = first_replicate(runs)
    error = table["prediction"] - table["target"]
    low, high = np.percentile(table["target"], [2, 98])
    bound = float(np.percentile(np.abs(error), 98))
    fig, axes = plt.subplots(1, 3, figsize=(13, 5.2), sharex=True, sharey=True)
    panels = [
        (table["target"], "test prices (log GBP)", "RdBu", low, high),
        (table["prediction"], "BSP predictions (log GBP)", "RdBu", low, high),
        (error, "prediction - price", "PuOr", -bound, bound),
    ]
    for ax, (values, title, cmap, vmin, vmax) in zip(axes, panels, strict=True):
        points = ax.scatter(table["longitude"], table["latitude"], c=values, s=3, cmap=cmap, vmin=vmin, vmax=vmax)
        fig.colorbar(points, ax=ax, shrink=0.8)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("longitude")
        ax.set_aspect(1 / np.cos(np.radians(table["latitude"].mean())))
    axes[0].set_ylabel("latitude")
    trees = run.trees
    rmse = float(np.sqrt(np.mean(error**2)))
    fig.suptitle(
        f"BSP Fig. 8: UK apartment prices, online BSP forest ({trees} trees), seed {run.seed}: "
        f"{len(table)} test flats shown, RMSE on them {rmse:.3f} (red: low, blue: high prices)",
        fontsize=10,
    )
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """What the maps show: the predictions follow the prices' spatial pattern (the figure's point), and are smoother
    than them (a forest's averages over cells: reported, not the paper's)."""
    table = first_replicate(runs)[1]
    correlation = float(np.corrcoef(table["prediction"], table["target"])[0, 1])
    spread = (float(table["prediction"].std()), float(table["target"].std()))
    return [
        Claim(
            "the predictions map the prices' spatial pattern (positive correlation with the test prices)",
            correlation > 0,
            f"correlation {correlation:.3f} on {len(table)} test flats",
            key="predictions_follow_prices",
        ),
        Claim(
            "the forest's predictions are smoother than the prices (a smaller spread: averages over cells)",
            spread[0] < spread[1],
            f"sd of predictions {spread[0]:.3f}, of prices {spread[1]:.3f}",
            key="predictions_smoother_than_prices",
            kind=INVARIANT,
        ),
    ]
