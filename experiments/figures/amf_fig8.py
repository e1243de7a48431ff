"""amf-fig8: two noisy 1-D signals, AMF's reconstruction, and the aggregation-weighted depths of its trees.

The paper: "wherever the signal is unsmooth, the weighted depths used by AMF increase and decrease where the signal
is smooth". The roughness of the true signal at x is its total variation on [x - 0.01, x + 0.01], from the signal's
formula. "Wherever" is read point by point: at every grid point of the roughest tenth (by that variation) the weighted
depth is above its mean on the smoothest part (the smoothest tenth, with every point as smooth as it: all the flat
pieces of a piecewise constant signal). Beside it, the weaker reading by tenths: the roughest tenth has the highest
mean depth of the ten, and the depth rises with the variation (Spearman > 0).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import spearmanr

from experiments.figures import INVARIANT, Claim, Drawing

WINDOW = 0.01  # half-width of the window over which the local variation of the signal is measured
TENTHS = 10
RECONSTRUCTED = 0.9  # R^2 of a reconstruction the middle row can show as one


def _signal(run) -> str:
    """The name of the run's signal (doppler, blocks, ...)."""
    return run.data_settings["signal"]


def local_variation(x: np.ndarray, signal: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Total variation of the true signal (``signal``, a run's RunRecord.signal) on [x - WINDOW, x + WINDOW] (clipped
    to [0, 1]), from a fine grid."""
    fine = np.linspace(0, 1, 200_001)
    cumulative = np.r_[0.0, np.cumsum(np.abs(np.diff(signal(fine))))]
    upper, lower = np.clip(x + WINDOW, 0, 1), np.clip(x - WINDOW, 0, 1)
    return np.interp(upper, fine, cumulative) - np.interp(lower, fine, cumulative)


def r2(prediction: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """R^2 of the prediction against the true signal, and its RMSE."""
    mse = float(np.mean((prediction - truth) ** 2))
    return 1.0 - mse / float(np.var(truth)), float(np.sqrt(mse))


@dataclass
class Roughness:
    """The grid of one run cut into tenths by the signal's local variation, smoothest first."""

    x: np.ndarray
    depth: np.ndarray
    prediction: np.ndarray
    truth: np.ndarray
    tenths: list[np.ndarray]  # grid indices of each tenth
    rho: float  # Spearman correlation of the weighted depth with the local variation

    variation: np.ndarray

    @classmethod
    def of(cls, run) -> Roughness:
        grid = run.tables["grid"]
        x = grid["x"].to_numpy()
        variation = local_variation(x, run.signal)
        depth = grid["weighted_depth"].to_numpy()
        tenths = np.array_split(np.argsort(variation, kind="stable"), TENTHS)
        truth = run.signal(x)
        rho = float(spearmanr(depth, variation)[0])
        return cls(x, depth, grid["prediction"].to_numpy(), truth, tenths, rho, variation)

    def smooth(self) -> np.ndarray:
        """The smoothest part: the grid points whose variation is at most the smoothest tenth's largest (ties kept,
        so that a piecewise constant signal's flat pieces are all in it)."""
        return np.flatnonzero(self.variation <= self.variation[self.tenths[0]].max())

    def depths(self) -> np.ndarray:
        """Mean weighted depth on each tenth, smoothest to roughest."""
        return np.array([self.depth[part].mean() for part in self.tenths])

    def roughest(self) -> str:
        """Where the roughest tenth lies, its depth and how well AMF reconstructs the signal there."""
        part = self.tenths[-1]
        local_r2, rmse = r2(self.prediction[part], self.truth[part])
        lowest = part[np.argmin(self.depth[part])]
        return (
            f"roughest tenth (x in [{self.x[part].min():.3f}, {self.x[part].max():.3f}]): weighted depth mean "
            f"{self.depth[part].mean():.2f}, min {self.depth[lowest]:.2f} at x = {self.x[lowest]:.3f}; "
            f"reconstruction RMSE {rmse:.4f} against the signal's sd {self.truth[part].std():.4f} there "
            f"(local R^2 {local_r2:.3f})"
        )


def plot(runs, spec) -> Drawing:
    fig, axes = plt.subplots(3, len(runs), figsize=(5.5 * len(runs), 7.5), sharex=True, squeeze=False)
    for (ax_data, ax_fit, ax_depth), run in zip(axes.T, runs, strict=True):
        grid, points = run.tables["grid"], run.tables["points"]
        x = grid["x"].to_numpy()
        truth = run.signal(x)
        ax_data.scatter(points["x"], points["y"], s=1, color="0.6", alpha=0.5, label="noisy samples")
        ax_data.plot(x, truth, color="C0", lw=1.5, label="signal")
        ax_data.set_title(f"{_signal(run)}: {len(points)} samples, noise sd {run.data_settings['noise']:g}")
        ax_data.legend(fontsize=8, loc="best")
        fit, rmse = r2(grid["prediction"].to_numpy(), truth)
        ax_fit.plot(x, truth, color="0.7", lw=1, label="signal")
        ax_fit.plot(x, grid["prediction"], color="C2", lw=1.5, label=f"AMF (RMSE {rmse:.3f}, $R^2$ {fit:.3f})")
        ax_fit.legend(fontsize=8, loc="best")
        trees = [c for c in grid.columns if c.startswith("depth_")]
        for c in trees:
            ax_depth.plot(x, grid[c], color="C1", lw=0.5, alpha=0.15)
        ax_depth.plot(x, grid["weighted_depth"], color="C3", lw=2, label=f"average of the {len(trees)} trees")
        rough = Roughness.of(run)
        smooth_depth = rough.depth[rough.smooth()].mean()
        part = rough.tenths[-1]
        deeper = rough.depth[part] > smooth_depth
        ax_depth.axhline(smooth_depth, color="0.3", ls="--", lw=1, label="its mean on the smoothest part")
        ax_depth.scatter(
            rough.x[part][deeper], rough.depth[part][deeper], s=6, color="k", zorder=3, label="roughest tenth: deeper"
        )
        ax_depth.scatter(rough.x[part][~deeper], rough.depth[part][~deeper], s=12, marker="x", color="C0", zorder=3,
                         label="roughest tenth: not deeper")  # fmt: skip
        ax_depth.set(xlabel="x", ylabel="weighted depth")
        ax_depth.legend(fontsize=7, loc="upper right")
    axes[0, 0].set_ylabel("y")
    axes[1, 0].set_ylabel("reconstruction")
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    return [claim for run in runs for claim in (*depth_follows_roughness(run), reconstruction(run))]


def stretches(x: np.ndarray, margins: np.ndarray) -> list[str]:
    """The grid points where a margin is not positive, as runs of neighbouring points: 'x in [a, b] (k points):
    margin lo .. hi'."""
    order = np.argsort(x)
    x, margins = x[order], margins[order]
    bad = np.flatnonzero(margins <= 0)
    groups = np.split(bad, np.flatnonzero(np.diff(bad) > 1) + 1) if len(bad) else []
    return [
        f"x in [{x[g].min():.3f}, {x[g].max():.3f}] ({len(g)} grid points): margin {margins[g].min():+.2f} .. "
        f"{margins[g].max():+.2f}"
        for g in groups
    ]


def turns(x_low: float, x_high: float, signal: Callable[[np.ndarray], np.ndarray]) -> int:
    """The local extrema of the true signal on [x_low, x_high] (its oscillations' half-periods), on a fine grid."""
    slope = np.diff(signal(np.linspace(x_low, x_high, 100_001)))
    return int((np.sign(slope[1:]) * np.sign(slope[:-1]) < 0).sum())


def failing_stretch(run, rough: Roughness, part: np.ndarray, margins: np.ndarray) -> dict:
    """Where the roughest part's depth is not above the smoothest part's mean: its extent, the training points in it,
    the signal's turns there, and AMF's local R^2 there and on the rest of the roughest part (no keys if none)."""
    bad = margins <= 0
    if not bad.any():
        return {}
    low, high = float(rough.x[part][bad].min()), float(rough.x[part][bad].max())
    samples = run.tables["points"]["x"].to_numpy()
    values = {
        "failing_low": low, "failing_high": high, "shallower": int(bad.sum()),
        "samples_failing": int(((samples >= low) & (samples <= high)).sum()),
        "failing_turns": turns(low, high, run.signal),
    }  # fmt: skip
    for name, where in (("failing_r2", bad), ("rest_r2", ~bad)):  # an R^2 needs two points at least
        if where.sum() > 1:
            values[name] = r2(rough.prediction[part][where], rough.truth[part][where])[0]
    return values


def depth_follows_roughness(run) -> list[Claim]:
    """The caption's "wherever", point by point over the roughest tenth; beside it, the reading by tenths."""
    signal, rough = _signal(run), Roughness.of(run)
    rough_part, smooth_part = rough.tenths[-1], rough.smooth()
    smooth_depth = float(rough.depth[smooth_part].mean())
    margins = rough.depth[rough_part] - smooth_depth
    lowest = int(np.argmin(margins))
    depths = rough.depths()
    values = {
        "rough_low": float(rough.x[rough_part].min()), "rough_high": float(rough.x[rough_part].max()),
        "rough_points": len(rough_part), "deeper": int((margins > 0).sum()), "smooth_points": len(smooth_part),
        "smooth_depth": smooth_depth, "rough_depth": float(rough.depth[rough_part].mean()),
        "min_margin": float(margins[lowest]), "min_depth": float(rough.depth[rough_part][lowest]),
        "min_x": float(rough.x[rough_part][lowest]), "spearman": rough.rho,
        "noise": float(run.data_settings.get("noise", 0.0)), "n_samples": len(run.tables["points"]),
        "tenth_lowest": float(depths[:-1].min()), "tenth_highest": float(depths[:-1].max()),
        **failing_stretch(run, rough, rough_part, margins),
    }  # fmt: skip
    printed = Claim(
        f"{signal}: wherever the signal is unsmooth the weighted depth increases, and it decreases where the signal is "
        f"smoothest: at every grid point of the roughest tenth by the signal's local variation, the weighted depth is "
        f"above its mean on the smoothest part (the smoothest tenth, with every point of as little variation)",
        bool((margins > 0).all()),
        f"{values['deeper']} of {len(rough_part)} points of the roughest tenth (x in [{values['rough_low']:.3f}, "
        f"{values['rough_high']:.3f}]) deeper than the smoothest part's mean {smooth_depth:.2f} ({len(smooth_part)} "
        f"points); smallest margin {values['min_margin']:+.2f} at x = {values['min_x']:.3f}; {rough.roughest()}",
        key=f"{signal}_depth_follows_roughness",
        quote="wherever the signal is unsmooth, the weighted depths used by AMF increase and decrease where the "
        "signal is smooth",
        where="AMF Fig. 8 caption",
        exceptions=stretches(rough.x[rough_part], margins),
        values=values,
    )
    weaker = printed.weaker(
        f"{signal}: by tenths of the grid (by the local variation), the roughest tenth has the highest mean weighted "
        f"depth of the {TENTHS}, and the depth rises with the variation over the grid (Spearman > 0)",
        bool(depths[-1] == depths.max() and rough.rho > 0),
        "mean weighted depth per tenth, smoothest to roughest: "
        + ", ".join(f"{d:.2f}" for d in depths)
        + f"; Spearman correlation with the local variation {rough.rho:.2f}",
        key=f"{signal}_depth_follows_roughness_tenths",
    )
    return [printed, weaker]


def reconstruction(run) -> Claim:
    """The middle row shows a reconstruction of the signal (an invariant of the drawing, not the paper's claim)."""
    grid = run.tables["grid"]
    fit, rmse = r2(grid["prediction"].to_numpy(), run.signal(grid["x"].to_numpy()))
    return Claim(
        f"{_signal(run)}: AMF reconstructs the signal (R^2 >= {RECONSTRUCTED} against the true signal)",
        fit >= RECONSTRUCTED,
        f"R^2 {fit:.3f}, RMSE {rmse:.4f}",
        key=f"{_signal(run)}_reconstruction",
        kind=INVARIANT,
    )
