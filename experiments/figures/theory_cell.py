"""theory-cell: the law of the cell of MP(lam, [0,1]^d) containing x (MGS20 Proposition 1).

Its sides are independent; x_j - L_j = min(E/lam, x_j) and R_j - x_j = min(E'/lam, 1 - x_j) with
E, E' ~ Exp(1); and x' lies in the same cell as x with probability exp(-lam ||x - x'||_1).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from experiments.figures import Claim, Drawing
from experiments.figures.theory_family import number_key


def _sides(run):
    """(column, side label, samples, truncation point) for every side of x's cell."""
    x = np.asarray(run.protocol["point"], dtype=float)
    table = run.tables["sides"]
    for j in range(len(x)):
        yield f"left_{j}", f"$x_{j + 1} - L_{j + 1}$", table[f"left_{j}"].to_numpy(), x[j]
        yield f"right_{j}", f"$R_{j + 1} - x_{j + 1}$", table[f"right_{j}"].to_numpy(), 1.0 - x[j]


def _side_tests(samples, lifetime, edge):
    """Atom at the box edge (mass exp(-lam edge)) and KS test of the part below it (a truncated Exp(lam))."""
    at_edge = samples >= edge - 1e-12
    p = np.exp(-lifetime * edge)
    n = len(samples)
    z_atom = (at_edge.sum() - n * p) / np.sqrt(n * p * (1 - p))
    inner = samples[~at_edge]
    ks = stats.kstest(inner, lambda t: -np.expm1(-lifetime * t) / -np.expm1(-lifetime * edge))
    return z_atom, ks.pvalue


def plot(runs, spec) -> Drawing:
    fig, axes = plt.subplots(len(runs), 2, figsize=(11, 4.2 * len(runs)), squeeze=False)
    for (ax_side, ax_same), run in zip(axes, runs, strict=False):
        settings = run.protocol
        lam = settings["lifetime"]
        for k, (_, label, samples, edge) in enumerate(_sides(run)):
            grid = np.linspace(0, edge, 200)
            ecdf = np.searchsorted(np.sort(samples), grid, side="right") / len(samples)
            ax_side.step(grid, ecdf, where="post", color=f"C{k}", lw=1.2, label=f"{label} (sampled)")
            exact = np.where(grid < edge, -np.expm1(-lam * grid), 1.0)
            ax_side.plot(grid, exact, "--", color=f"C{k}", lw=1)
        ax_side.set(
            xlabel="distance from x to the side of its cell",
            ylabel="CDF",
            title=f"sides of the cell of x = {tuple(settings['point'])}, $\\lambda$ = {lam:g}",
        )
        ax_side.legend(fontsize=8, title="dashed: min(E/$\\lambda$, edge), E ~ Exp(1)", title_fontsize=8)
        same = run.tables["same_cell"].sort_values("l1_distance")
        n = same["replicates"].to_numpy()
        se = np.sqrt(same["frequency"] * (1 - same["frequency"]) / n)
        grid = np.linspace(0, same["l1_distance"].max() * 1.1, 200)
        ax_same.plot(grid, np.exp(-lam * grid), "k-", lw=1, label="exact $e^{-\\lambda \\|x - x'\\|_1}$")
        ax_same.errorbar(
            same["l1_distance"],
            same["frequency"],
            yerr=1.96 * se,
            fmt="o",
            capsize=3,
            label="sampled frequency, 95% interval",
        )
        ax_same.set(
            xlabel="$\\|x - x'\\|_1$",
            ylabel="P(x' in the cell of x)",
            yscale="log",
            title=f"{int(n[0])} partitions, $\\lambda$ = {lam:g}",
        )
        ax_same.legend(fontsize=8)
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """Proposition 1, per lifetime: each side's law, the sides' independence, P(x' in the cell of x)."""
    out = []
    for run in runs:
        lam = run.protocol["lifetime"]
        at = f"lam{number_key(lam)}"
        tests = [(name, *_side_tests(samples, lam, edge)) for name, _, samples, edge in _sides(run)]
        worst_z = max(abs(z) for _, z, _ in tests)
        worst_p = min(p for _, _, p in tests)
        out.append(
            Claim(
                f"lam = {lam:g}: each side distance is min(E/lam, edge), E ~ Exp(1) (edge atom, KS of the rest)",
                passed=bool(worst_z < 4 and worst_p > 1e-3),
                measured=f"{len(tests)} sides: max |z| at the edge atom = {worst_z:.2f}, min KS p = {worst_p:.3f}",
                key=f"side_law_{at}",
            )
        )
        table = run.tables["sides"]
        corr = np.corrcoef(table.to_numpy().T)
        off_diagonal = np.abs(corr[~np.eye(len(corr), dtype=bool)]).max()
        bound = 4 / np.sqrt(len(table))
        out.append(
            Claim(
                f"lam = {lam:g}: the sides of the cell are independent (correlations within 4/sqrt(n))",
                passed=bool(off_diagonal < bound),
                measured=f"max |corr| = {off_diagonal:.4f}, bound {bound:.4f}",
                key=f"independent_sides_{at}",
            )
        )
        same = run.tables["same_cell"]
        se = np.sqrt(same["exact"] * (1 - same["exact"]) / same["replicates"])
        z = ((same["frequency"] - same["exact"]) / se).abs()
        out.append(
            Claim(
                f"lam = {lam:g}: P(x' in the cell of x) = exp(-lam ||x - x'||_1)",
                passed=bool(z.max() < 4),
                measured=f"{len(same)} points x': max |z| = {z.max():.2f}",
                key=f"same_cell_probability_{at}",
            )
        )
    return out
