"""theory-leaves: Monte Carlo mean number of leaves of MP(lam, [0,1]^d) against the exact (1 + lam)^d of MGS20
Proposition 2, every point (d, lam) of the grid from its own random stream (keyed by the seed and the point), so that
the points are independent: each is checked within the Bonferroni z of a family-wise error, and all jointly by a
chi-square."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from experiments.figures import Claim, Drawing
from experiments.figures.theory_family import FAMILY, bonferroni_z

QUOTE = "If denotes the number of cells in , we have ."
WHERE = "MGS20 Proposition 2 (Sec. 4; E[#cells] = (1 + lam)^d is not in the text here)"


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
    ax.set_title(
        f"Leaves of MP($\\lambda$, $[0,1]^d$): {replicates} partitions per point, each point from its own stream",
        fontsize=10,
    )
    ax.legend(fontsize=8, ncol=2)
    ax_dev.axhline(0, color="k", lw=0.8)
    ax_dev.set(xlabel="lifetime $\\lambda$", ylabel="mean / exact - 1\n(95% interval)")
    ax_dev.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """Proposition 2: E[#leaves] = (1 + lam)^d at every point (family-wise) and jointly (chi-square)."""
    t = table(runs)
    z_max = bonferroni_z(len(t))
    chi2 = float((t["z"] ** 2).sum())
    p_value = float(stats.chi2.sf(chi2, df=len(t)))
    worst = t.loc[t["z"].abs().idxmax()]
    name = "d{:.0f}_lam{:g}"
    return [
        Claim(
            f"E[#leaves of MP(lam, [0,1]^d)] = (1 + lam)^d at every point (d, lam) of the grid: each Monte Carlo mean "
            f"within {z_max:.2f} standard errors of it (Bonferroni over the {len(t)} points at family-wise {FAMILY})",
            passed=bool((t["z"].abs() <= z_max).all()),
            measured=f"max |z| = {abs(worst['z']):.2f} (d = {worst['dim']:.0f}, lam = {worst['lifetime']:g}: "
            f"{worst['mean']:.2f} ± {worst['se']:.2f} vs {worst['exact']:g}); "
            f"{int((t['z'].abs() > 1.96).sum())} of {len(t)} outside their 95% interval; z: "
            + ", ".join(f"{name.format(r.dim, r.lifetime)} {r.z:+.2f}" for r in t.itertuples()),
            key="leaves_within_intervals",
            quote=QUOTE,
            where=WHERE,
            exceptions=[
                f"{name.format(r.dim, r.lifetime)}: z = {r.z:+.2f}" for r in t.itertuples() if abs(r.z) > z_max
            ],
            values={
                "max_z": float(t["z"].abs().max()),
                "z_bound": z_max,
                "points": len(t),
                "outside_95": int((t["z"].abs() > 1.96).sum()),
            },
        ),
        Claim(
            "the Monte Carlo means agree with (1 + lam)^d jointly: the chi-square of the independent points' z-scores "
            f"on {len(t)} degrees of freedom has p > {FAMILY}",
            passed=p_value > FAMILY,
            measured=f"chi2 = {chi2:.1f} on {len(t)} df, p = {p_value:.3f}",
            key="leaves_jointly",
            quote=QUOTE,
            where=WHERE,
            values={"chi2": chi2, "df": len(t), "p": p_value},
        ),
    ]
