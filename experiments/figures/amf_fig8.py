"""amf-fig8: two noisy 1-D signals, AMF's reconstruction, and the aggregation-weighted depths of its trees.

Where the signal is rough the weighted depth should rise (narrow cells), where it is smooth it should fall. The
roughness of the true signal at x is its total variation on [x - 0.01, x + 0.01], from the signal's formula.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import spearmanr

from experiments.data.synthetic import signal_function
from experiments.figures import Claim

WINDOW = 0.01  # half-width of the window over which the local variation of the signal is measured


def _signal(run) -> str:
    return run.trial["dataset"]["load"]["signal"]


def local_variation(x: np.ndarray, signal: str) -> np.ndarray:
    """Total variation of the true signal on [x - WINDOW, x + WINDOW] (clipped to [0, 1]), from a fine grid."""
    fine = np.linspace(0, 1, 200_001)
    cumulative = np.r_[0.0, np.cumsum(np.abs(np.diff(signal_function(fine, signal))))]
    upper, lower = np.clip(x + WINDOW, 0, 1), np.clip(x - WINDOW, 0, 1)
    return np.interp(upper, fine, cumulative) - np.interp(lower, fine, cumulative)


def _contrast(run) -> tuple[float, float, float]:
    """Mean weighted depth on the quarter of the grid where the signal varies most, on the quarter where it varies
    least, and the rank correlation of weighted depth with the local variation over the whole grid."""
    grid = run.tables["grid"]
    variation = local_variation(grid["x"].to_numpy(), _signal(run))
    depth = grid["weighted_depth"].to_numpy()
    order = np.argsort(variation, kind="stable")
    quarter = len(order) // 4
    return (
        float(depth[order[-quarter:]].mean()),
        float(depth[order[:quarter]].mean()),
        float(spearmanr(depth, variation)[0]),
    )


def _r2(run) -> tuple[float, float]:
    grid = run.tables["grid"]
    truth = signal_function(grid["x"].to_numpy(), _signal(run))
    mse = float(np.mean((grid["prediction"] - truth) ** 2))
    return 1.0 - mse / float(np.var(truth)), float(np.sqrt(mse))


def plot(runs, spec) -> plt.Figure:
    fig, axes = plt.subplots(3, len(runs), figsize=(5.5 * len(runs), 7.5), sharex=True, squeeze=False)
    for (ax_data, ax_fit, ax_depth), run in zip(axes.T, runs, strict=True):
        grid, points = run.tables["grid"], run.tables["points"]
        x = grid["x"].to_numpy()
        truth = signal_function(x, _signal(run))
        ax_data.scatter(points["x"], points["y"], s=1, color="0.6", alpha=0.5, label="noisy samples")
        ax_data.plot(x, truth, color="C0", lw=1.5, label="signal")
        ax_data.set_title(f"{_signal(run)}: {len(points)} samples, noise sd {run.trial['dataset']['load']['noise']:g}")
        ax_data.legend(fontsize=8, loc="best")
        r2, rmse = _r2(run)
        ax_fit.plot(x, truth, color="0.7", lw=1, label="signal")
        ax_fit.plot(x, grid["prediction"], color="C2", lw=1.5, label=f"AMF (RMSE {rmse:.3f}, $R^2$ {r2:.3f})")
        ax_fit.legend(fontsize=8, loc="best")
        trees = [c for c in grid.columns if c.startswith("depth_")]
        for c in trees:
            ax_depth.plot(x, grid[c], color="C1", lw=0.5, alpha=0.15)
        ax_depth.plot(x, grid["weighted_depth"], color="C3", lw=2, label=f"average of the {len(trees)} trees")
        ax_depth.set(xlabel="x", ylabel="weighted depth")
        ax_depth.legend(fontsize=8, loc="upper right")
    axes[0, 0].set_ylabel("y")
    axes[1, 0].set_ylabel("reconstruction")
    fig.tight_layout()
    return fig


def claims(runs, spec) -> list[Claim]:
    out = []
    for run in runs:
        signal = _signal(run)
        rough, smooth, rho = _contrast(run)
        r2, rmse = _r2(run)
        out += [
            Claim(
                f"{signal}: AMF reconstructs the signal (R^2 >= 0.9 against the true signal)",
                r2 >= 0.9,
                f"R^2 {r2:.3f}, RMSE {rmse:.4f}",
            ),
            Claim(
                f"{signal}: the weighted depth is higher where the signal is rough than where it is smooth",
                rough > smooth and rho > 0,
                f"mean weighted depth {rough:.2f} on the roughest quarter of [0,1] vs {smooth:.2f} on the smoothest; "
                f"Spearman correlation with the local variation {rho:.2f}",
            ),
        ]
    return out
