"""theory-leaves: Monte Carlo mean number of leaves of MP(lam, [0,1]^d) against the exact (1 + lam)^d."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from experiments.figures import Claim, Drawing


def table(runs) -> pd.DataFrame:
    rows = [
        {
            "dim": r.protocol["dim"],
            "lifetime": r.protocol["lifetime"],
            "mean": r.metrics["mean_leaves"],
            "se": r.metrics["se_leaves"],
            "exact": r.metrics["exact_mean_leaves"],
            "replicates": r.metrics["replicates"],
        }
        for r in runs
    ]
    out = pd.DataFrame(rows).sort_values(["dim", "lifetime"]).reset_index(drop=True)
    out["z"] = (out["mean"] - out["exact"]) / out["se"]
    return out


def plot(runs, spec) -> Drawing:
    t = table(runs)
    fig, (ax, ax_dev) = plt.subplots(2, 1, figsize=(6.5, 7), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    for k, (dim, part) in enumerate(t.groupby("dim")):
        color = f"C{k}"
        grid = np.geomspace(part["lifetime"].min(), part["lifetime"].max(), 200)
        ax.plot(grid, (1 + grid) ** dim, color=color, lw=1, label=f"exact $(1+\\lambda)^{{{dim}}}$")
        ax.plot(part["lifetime"], part["mean"], "o", ms=4, color=color, label=f"d = {dim}: Monte Carlo mean")
        offset = 1 + 0.04 * (k - 1)  # side by side, so that the intervals do not hide each other
        ax_dev.errorbar(
            part["lifetime"] * offset,
            part["mean"] / part["exact"] - 1,
            yerr=1.96 * part["se"] / part["exact"],
            fmt="o",
            ms=4,
            color=color,
            capsize=3,
            label=f"d = {dim}",
        )
    ax.set(xscale="log", yscale="log", ylabel="number of leaves")
    low, high = int(t["replicates"].min()), int(t["replicates"].max())
    replicates = f"{low}" if low == high else f"{low} to {high}"
    ax.set_title(f"Leaves of MP($\\lambda$, $[0,1]^d$): {replicates} partitions per point")
    ax.legend(fontsize=8, ncol=2)
    ax_dev.axhline(0, color="k", lw=0.8)
    ax_dev.set(xlabel="lifetime $\\lambda$", ylabel="mean / exact - 1\n(95% interval)")
    ax_dev.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """Proposition 2: E[#leaves] = (1 + lam)^d, point by point (95% intervals) and jointly (chi-square)."""
    t = table(runs)
    inside = (t["z"].abs() <= 1.96).mean()
    chi2 = float((t["z"] ** 2).sum())
    p_value = float(stats.chi2.sf(chi2, df=len(t)))
    return [
        Claim(
            "E[#leaves of MP(lam, [0,1]^d)] = (1 + lam)^d: the exact value is in the 95% interval at most points",
            passed=bool(inside >= 0.85),
            measured=f"{round(inside * len(t))}/{len(t)} inside, max |z| = {t['z'].abs().max():.2f}",
            key="leaves_within_intervals",
        ),
        Claim(
            "the Monte Carlo means agree with (1 + lam)^d jointly (chi-square of the z-scores, p > 0.001)",
            passed=p_value > 1e-3,
            measured=f"chi2 = {chi2:.1f} on {len(t)} df, p = {p_value:.3f}",
            key="leaves_jointly",
        ),
    ]
