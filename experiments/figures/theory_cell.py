"""theory-cell: the law of the cell of MP(lam, [0,1]^d) containing x (MGS20 Proposition 1) and the diameter of that
cell (its Corollary 1), by Monte Carlo at several points x (centre, off-centre, corner), lifetimes and dimensions,
each point of the grid from its own random stream.

Proposition 1: the sides are independent; x_j - L_j = min(E/lam, x_j) and R_j - x_j = min(E'/lam, 1 - x_j) with
E, E' ~ Exp(1); in its proof (7.1), x' lies in the cell of x with probability exp(-lam ||x - x'||_1). Corollary 1,
for the l2 diameter D of the cell of x: (4.1) P(D >= delta) <= d (1 + lam delta / sqrt(d)) exp(-lam delta / sqrt(d))
and (4.2) E[D^2] <= 4d / lam^2 as printed. Proposition 1's law gives E[D^2] exactly, sum_j g(lam, x_j) / lam^2 with
g -> 6 inside the cube, so (4.2) fails at interior x once lam > 4.17 and 6d / lam^2 is the bound the law allows.
Every claim holds at every point of the grid or fails there: its tests are simultaneous, each at the Bonferroni level
of the family-wise FAMILY.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter
from scipy import stats

from experiments.figures import Claim, Drawing
from experiments.figures.theory_family import FAMILY, number_key

PROPOSITION_1 = "For each , is distributed as and as , where ."
COROLLARY_1 = "Let and let be the -diameter of the cell containing in . For every , we have"
TAIL_GRID = np.geomspace(0.25, 12.0, 48)  # t = lam delta / sqrt(d): the tail bound d (1 + t) e^-t at each


def _first_moment(lam: float, a) -> np.ndarray:
    """E[min(E/lam, a)], E ~ Exp(1)."""
    return -np.expm1(-lam * np.asarray(a, float)) / lam


def _second_moment(lam: float, a) -> np.ndarray:
    """E[min(E/lam, a)^2], E ~ Exp(1)."""
    a = np.asarray(a, float)
    return 2 * (1 - np.exp(-lam * a) * (1 + lam * a)) / lam**2


def exact_squared_diameter(lam: float, x) -> float:
    """E[D^2] for the cell of x in MP(lam, [0,1]^d), from Proposition 1: per coordinate the side is L + R with L, R
    independent truncated Exp(lam) at x_j and 1 - x_j."""
    x = np.asarray(x, float)
    return float(
        np.sum(
            _second_moment(lam, x) + _second_moment(lam, 1 - x) + 2 * _first_moment(lam, x) * _first_moment(lam, 1 - x)
        )
    )


def tail_bound(lam: float, d: int, delta) -> np.ndarray:
    """Corollary 1's (4.1): d (1 + lam delta / sqrt(d)) exp(-lam delta / sqrt(d))."""
    t = lam * np.asarray(delta, float) / np.sqrt(d)
    return d * (1 + t) * np.exp(-t)


def point_label(x) -> str:
    return "(" + ", ".join(f"{v:g}" for v in x) + ")"


def point_key(run) -> str:
    """A grid point as the claims' values name it: "d2_x0p3_0p6_lam8"."""
    x = "_".join(number_key(v) for v in run.protocol["point"])
    return f"d{run.protocol['dim']}_x{x}_lam{number_key(run.protocol['lifetime'])}"


def _sides(run):
    """(column, side label, samples, truncation point) for every side of x's cell."""
    x = np.asarray(run.protocol["point"], dtype=float)
    table = run.tables["sides"]
    for j in range(len(x)):
        yield f"left_{j}", f"$x_{j + 1} - L_{j + 1}$", table[f"left_{j}"].to_numpy(), x[j]
        yield f"right_{j}", f"$R_{j + 1} - x_{j + 1}$", table[f"right_{j}"].to_numpy(), 1.0 - x[j]


def side_p_values(samples: np.ndarray, lam: float, edge: float) -> dict[str, float]:
    """The tests of one side's law min(E/lam, edge): the atom at the edge (exact binomial, mass exp(-lam edge)), KS
    of the part below it (a truncated Exp(lam)) and its mean against (1 - exp(-lam edge)) / lam; two-sided p-values.
    A side whose edge is 0 (x on the cube's face) is 0 always: its one test is that every sample is 0."""
    if edge <= 0:
        return {"zero": 1.0 if np.all(samples == 0) else 0.0}
    n = len(samples)
    at_edge = samples >= edge - 1e-12
    mass = np.exp(-lam * edge)
    out = {"atom": stats.binomtest(int(at_edge.sum()), n, mass).pvalue}
    inner = samples[~at_edge]
    if len(inner):
        out["ks"] = stats.kstest(inner, lambda t: -np.expm1(-lam * t) / -np.expm1(-lam * edge)).pvalue
    z = (samples.mean() - _first_moment(lam, edge)) / (samples.std(ddof=1) / np.sqrt(n))
    out["mean"] = 2 * stats.norm.sf(abs(z))
    return out


def correlation_p_values(table: pd.DataFrame) -> list[float]:
    """Two-sided p-values of the sides' pairwise correlations (Fisher's z), constant sides left out."""
    varying = table.loc[:, table.std() > 0]
    corr = np.corrcoef(varying.to_numpy().T) if varying.shape[1] > 1 else np.ones((1, 1))
    pairs = corr[np.triu_indices(len(corr), 1)]
    return list(2 * stats.norm.sf(np.abs(np.arctanh(np.clip(pairs, -0.999999, 0.999999))) * np.sqrt(len(table) - 3)))


def diameters(run) -> np.ndarray:
    """D^2 of x's cell in each partition: sum_j (R_j - L_j)^2."""
    table = run.tables["sides"]
    d = int(run.protocol["dim"])
    return sum((table[f"left_{j}"] + table[f"right_{j}"]).to_numpy() ** 2 for j in range(d))


def moments(runs) -> pd.DataFrame:
    """Per run: d, x, lam, the mean of D^2 and its standard error, the exact value, the printed and the corrected
    bounds, all also scaled by lam^2 / d."""
    rows = []
    for run in runs:
        d, lam, x = int(run.protocol["dim"]), float(run.protocol["lifetime"]), run.protocol["point"]
        squared = diameters(run)
        rows.append(
            {
                "key": point_key(run),
                "d": d,
                "x": point_label(x),
                "lifetime": lam,
                "mean": squared.mean(),
                "se": squared.std(ddof=1) / np.sqrt(len(squared)),
                "exact": exact_squared_diameter(lam, x),
                "printed": 4 * d / lam**2,
                "corrected": 6 * d / lam**2,
                "replicates": len(squared),
            }
        )
    out = pd.DataFrame(rows).sort_values(["d", "x", "lifetime"]).reset_index(drop=True)
    out["scaled"] = out["mean"] * out["lifetime"] ** 2 / out["d"]
    out["scaled_se"] = out["se"] * out["lifetime"] ** 2 / out["d"]
    out["scaled_exact"] = out["exact"] * out["lifetime"] ** 2 / out["d"]
    return out


def tail_table(runs) -> pd.DataFrame:
    """Per run and t of TAIL_GRID: the frequency of D >= delta = t sqrt(d) / lam, the bound (4.1) and the exact
    one-sided binomial p-value of a frequency that high under the bound."""
    rows = []
    for run in runs:
        d, lam = int(run.protocol["dim"]), float(run.protocol["lifetime"])
        diameter = np.sqrt(diameters(run))
        n = len(diameter)
        delta = TAIL_GRID * np.sqrt(d) / lam
        count = (diameter[:, None] >= delta[None, :]).sum(axis=0)
        bound = tail_bound(lam, d, delta)
        p = np.where(bound < 1, stats.binom.sf(count - 1, n, np.minimum(bound, 1)), 1.0)
        inside = np.clip(bound, 1e-300, 1 - 1e-12)
        z = np.where(bound < 1, (count / n - bound) / np.sqrt(inside * (1 - inside) / n), -np.inf)
        rows.append(
            pd.DataFrame(
                {
                    "key": point_key(run),
                    "d": d,
                    "x": point_label(run.protocol["point"]),
                    "lifetime": lam,
                    "t": TAIL_GRID,
                    "frequency": count / n,
                    "bound": bound,
                    "z": z,
                    "p": p,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def plot(runs, spec) -> Drawing:
    table = moments(runs)
    fig, axes = plt.subplots(2, 2, figsize=(13, 9.5))
    ax_moment, ax_tail, ax_side, ax_same = axes.ravel()
    markers = {1: "s", 2: "o"}
    for k, ((d, x), part) in enumerate(table.groupby(["d", "x"])):
        colour = f"C{k}"
        grid = np.geomspace(part["lifetime"].min(), part["lifetime"].max(), 100)
        point = [float(v) for v in x.strip("()").split(",")]
        exact = [exact_squared_diameter(lam, point) * lam**2 / d for lam in grid]
        ax_moment.plot(grid, exact, "-", color=colour, lw=1)
        ax_moment.errorbar(
            part["lifetime"],
            part["scaled"],
            yerr=2 * part["scaled_se"],
            fmt=markers.get(d, "^"),
            color=colour,
            ms=5,
            capsize=2,
            label=f"d = {d}, x = {x}",
        )
    ax_moment.axhline(4, color="C3", ls="--", lw=1.2, label="printed (4.2): 4")
    ax_moment.axhline(6, color="k", ls=":", lw=1.2, label="corrected: 6 (the limit inside the cube)")
    lifetimes = sorted(table["lifetime"].unique())
    ax_moment.set(
        xscale="log",
        xticks=lifetimes,
        xticklabels=[f"{v:g}" for v in lifetimes],
        xlabel="lifetime $\\lambda$",
        ylabel="$\\lambda^2 E[D^2] / d$",
        title="Corollary 1 (4.2): the squared diameter of the cell of x (lines: exact, Prop. 1)",
    )
    ax_moment.xaxis.set_minor_formatter(NullFormatter())
    ax_moment.legend(fontsize=7, ncol=2)
    tails = tail_table(runs)
    for k, ((d, x), part) in enumerate(tails.groupby(["d", "x"])):
        top = part[part["lifetime"] == part["lifetime"].max()]
        ax_tail.plot(
            top["t"],
            top["frequency"] / d,
            "o",
            ms=3,
            color=f"C{k}",
            label=f"d = {d}, x = {x}, $\\lambda$ = {top['lifetime'].iloc[0]:g}",
        )
    ax_tail.plot(TAIL_GRID, (1 + TAIL_GRID) * np.exp(-TAIL_GRID), "k-", lw=1.2, label="bound (4.1) / d: $(1+t)e^{-t}$")
    ax_tail.set(
        yscale="log",
        xlabel="$t = \\lambda \\delta / \\sqrt{d}$",
        ylabel="$P(D \\geq \\delta) / d$",
        title="Corollary 1 (4.1): the diameter's tail at the largest lifetime",
        ylim=(1e-5, 2),
    )
    ax_tail.legend(fontsize=7)
    shown = max(
        runs, key=lambda r: (r.protocol["dim"], len(set(r.protocol["point"])), -abs(r.protocol["lifetime"] - 8))
    )
    lam = float(shown.protocol["lifetime"])
    for k, (_, label, samples, edge) in enumerate(_sides(shown)):
        grid = np.linspace(0, max(edge, 1e-9), 200)
        ecdf = np.searchsorted(np.sort(samples), grid, side="right") / len(samples)
        ax_side.step(grid, ecdf, where="post", color=f"C{k}", lw=1.2, label=f"{label} (sampled)")
        ax_side.plot(grid, np.where(grid < edge, -np.expm1(-lam * grid), 1.0), "--", color=f"C{k}", lw=1)
    ax_side.set(
        xlabel="distance from x to the side of its cell",
        ylabel="CDF",
        title=f"Prop. 1: sides of the cell of x = {point_label(shown.protocol['point'])}, $\\lambda$ = {lam:g}",
    )
    ax_side.legend(fontsize=8, title="dashed: min(E/$\\lambda$, edge), E ~ Exp(1)", title_fontsize=8)
    for k, run in enumerate(r for r in runs if point_key(r).startswith(point_key(shown).rsplit("_lam", 1)[0] + "_")):
        same = run.tables["same_cell"].sort_values("l1_distance")
        n = same["replicates"].to_numpy()
        se = np.sqrt(same["frequency"] * (1 - same["frequency"]) / n)
        lam_k = float(run.protocol["lifetime"])
        grid = np.linspace(0, same["l1_distance"].max() * 1.1, 200)
        ax_same.plot(grid, np.exp(-lam_k * grid), "-", color=f"C{k}", lw=1)
        ax_same.errorbar(
            same["l1_distance"],
            same["frequency"],
            yerr=1.96 * se,
            fmt="o",
            capsize=3,
            color=f"C{k}",
            label=f"$\\lambda$ = {lam_k:g}",
        )
    ax_same.set(
        xlabel="$\\|x - x'\\|_1$",
        ylabel="P(x' in the cell of x)",
        yscale="log",
        ylim=(1e-5, 1.5),
        title=f"(7.1): lines $e^{{-\\lambda \\|x - x'\\|_1}}$, x = {point_label(shown.protocol['point'])}",
    )
    ax_same.legend(fontsize=7, ncol=2)
    low, high = int(table["replicates"].min()), int(table["replicates"].max())
    fig.suptitle(
        f"MGS20 Proposition 1 and Corollary 1 by Monte Carlo: {low if low == high else f'{low} to {high}'} "
        f"partitions per point, {len(runs)} points (d, x, $\\lambda$), each from its own stream",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    return Drawing(fig)


def _where_fails(p_values: dict[str, float], level: float) -> list[str]:
    return [f"{name}: p = {p:.2g}" for name, p in p_values.items() if p <= level]


def claims(runs, spec) -> list[Claim]:
    """Proposition 1 (each side's law, the sides' correlations, (7.1)) and Corollary 1 ((4.2) as printed, beside it
    the corrected constant 6, the exact E[D^2] of the law, and (4.1)), each at every point of the grid."""
    sides = {}
    for run in runs:
        for name, _, samples, edge in _sides(run):
            for test, p in side_p_values(samples, float(run.protocol["lifetime"]), edge).items():
                sides[f"{point_key(run)} {name} {test}"] = p
    correlations = {
        f"{point_key(r)} pair {k}": p for r in runs for k, p in enumerate(correlation_p_values(r.tables["sides"]))
    }
    same = {}
    for run in runs:
        table = run.tables["same_cell"]
        for row in table.itertuples():
            count = round(row.frequency * row.replicates)
            same[f"{point_key(run)} at {row.l1_distance:g}"] = stats.binomtest(
                count, int(row.replicates), row.exact
            ).pvalue
    table = moments(runs)
    tails = tail_table(runs)
    points = len(runs)
    listing = "; ".join(
        f"{r.key}: {r.scaled:.3f} ± {r.scaled_se:.3f} (exact {r.scaled_exact:.3f})" for r in table.itertuples()
    )
    z_one = float(stats.norm.isf(FAMILY / points))
    above = (table["mean"] - table["printed"]) / table["se"]
    above6 = (table["mean"] - table["corrected"]) / table["se"]
    off = (table["mean"] - table["exact"]) / table["se"]
    z_two = float(stats.norm.isf(FAMILY / (2 * points)))
    worst_tail = tails.loc[tails["p"].idxmin()]
    values = {f"scaled_{r.key}": r.scaled for r in table.itertuples()}
    values |= {f"exact_{r.key}": r.scaled_exact for r in table.itertuples()}
    printed = Claim(
        f"E[D^2] <= 4d/lam^2 at every point (d, x, lam) of the grid, D the l2 diameter of the cell of x (Corollary 1 "
        f"(4.2) as printed): the mean of D^2 over the partitions is nowhere above 4d/lam^2 by more than {z_one:.2f} "
        f"standard errors (one-sided, Bonferroni over the {points} points at family-wise {FAMILY})",
        bool(np.all(above <= z_one)),
        "lam^2 E[D^2] / d per point (printed bound 4): " + listing,
        key="diameter_moment",
        quote=COROLLARY_1,
        where="MGS20 Corollary 1 (4.2)",
        exceptions=[
            f"{r.key}: lam^2 E[D^2] / d = {r.scaled:.3f} ± {r.scaled_se:.3f} > 4 (z = {z:+.1f})"
            for r, z in zip(table.itertuples(), above, strict=True)
            if z > z_one
        ],
        values={
            **values,
            "exceptions": int((above > z_one).sum()),
            "points": points,
            "printed_constant": 4,
            "corrected_constant": 6,
            "largest_scaled": table["scaled"].max(),
        },
    )
    out = [
        Claim(
            "each side distance of the cell of x is min(E/lam, edge), E ~ Exp(1), at every point (d, x, lam) of the "
            "grid: its atom at the edge (exact binomial), the KS test of the rest and its mean (against "
            f"(1 - exp(-lam edge))/lam) each with p above {FAMILY}/{len(sides)} (Bonferroni at family-wise {FAMILY})",
            min(sides.values()) > FAMILY / len(sides),
            f"{len(sides)} tests on {points} points; smallest p = {min(sides.values()):.2g} "
            f"({min(sides, key=sides.get)})",
            key="side_law",
            quote=PROPOSITION_1,
            where="MGS20 Proposition 1 (the laws are not in the text here)",
            exceptions=_where_fails(sides, FAMILY / len(sides)),
            values={"tests": len(sides), "smallest_p": min(sides.values())},
        ),
        Claim(
            "the sides of the cell of x are independent, at every point of the grid, read as pairwise uncorrelated "
            f"(necessary, not sufficient: the check these samples allow): every correlation's p above "
            f"{FAMILY}/{len(correlations)} (Fisher's z, Bonferroni at family-wise {FAMILY})",
            min(correlations.values()) > FAMILY / len(correlations),
            f"{len(correlations)} pairs on {points} points; smallest p = {min(correlations.values()):.2g}",
            key="independent_sides",
            quote="are independent;",
            where="MGS20 Proposition 1, its first property",
            exceptions=_where_fails(correlations, FAMILY / len(correlations)),
            values={"tests": len(correlations), "smallest_p": min(correlations.values())},
        ),
        Claim(
            "P(x' in the cell of x) = exp(-lam ||x - x'||_1) for every point x' and every point (d, x, lam) of the "
            f"grid: each frequency's exact binomial p above {FAMILY}/{len(same)} (Bonferroni at family-wise {FAMILY})",
            min(same.values()) > FAMILY / len(same),
            f"{len(same)} tests; smallest p = {min(same.values()):.2g} ({min(same, key=same.get)})",
            key="same_cell_probability",
            quote="the probability that contains no split is .",
            where="MGS20 proof of Proposition 1, (7.1)",
            exceptions=_where_fails(same, FAMILY / len(same)),
            values={"tests": len(same), "smallest_p": min(same.values())},
        ),
        printed,
        printed.weaker(
            "E[D^2] <= 6d/lam^2 at every point (d, x, lam) of the grid: (4.2) with the constant 6 that Proposition 1's "
            "law gives (each side no longer than (E + E')/lam, whose second moment is 6/lam^2; the limit at interior "
            f"x), "
            f"not exceeded by more than {z_one:.2f} standard errors (one-sided, Bonferroni)",
            bool(np.all(above6 <= z_one)),
            f"largest lam^2 E[D^2] / d: {table['scaled'].max():.3f} ({table.loc[table['scaled'].idxmax(), 'key']}); "
            f"largest z above 6d/lam^2: {above6.max():+.2f}",
            key="diameter_moment_corrected",
            exceptions=[
                f"{r.key}: {r.scaled:.3f} > 6" for r, z in zip(table.itertuples(), above6, strict=True) if z > z_one
            ],
            values={"largest_z": above6.max()},
        ),
        Claim(
            "E[D^2] equals its exact value from Proposition 1's law, sum_j [m2(x_j) + m2(1 - x_j) + 2 m1(x_j) "
            "m1(1 - x_j)] with m1, m2 the moments of min(E/lam, a), at every point (d, x, lam) of the grid: within "
            f"{z_two:.2f} standard errors (two-sided, Bonferroni over the {points} points at family-wise {FAMILY})",
            bool(np.all(np.abs(off) <= z_two)),
            f"largest |z| {np.abs(off).max():.2f} ({table.loc[np.abs(off).idxmax(), 'key']}); " + listing,
            key="diameter_moment_exact",
            quote=PROPOSITION_1,
            where="MGS20 Proposition 1 (its consequence for E[D^2])",
            exceptions=[
                f"{r.key}: z = {z:+.2f}" for r, z in zip(table.itertuples(), off, strict=True) if abs(z) > z_two
            ],
            values={"largest_z": np.abs(off).max()},
        ),
        Claim(
            "P(D >= delta) <= d (1 + lam delta / sqrt(d)) exp(-lam delta / sqrt(d)) at every point (d, x, lam) of "
            f"the grid and every delta of {len(TAIL_GRID)} (t = lam delta / sqrt(d) from {TAIL_GRID[0]:g} to "
            f"{TAIL_GRID[-1]:g}; Corollary 1 (4.1)): no frequency significantly above the bound (exact one-sided "
            f"binomial p above {FAMILY}/{len(tails)}, Bonferroni)",
            bool(tails["p"].min() > FAMILY / len(tails)),
            f"{len(tails)} tests; largest (frequency - bound) / SE {tails['z'].max():+.2f}; "
            f"smallest p {worst_tail['p']:.2g} ({worst_tail['key']}, t = {worst_tail['t']:.2f}: "
            f"{worst_tail['frequency']:.4f} vs {worst_tail['bound']:.4f})",
            key="diameter_tail",
            quote=COROLLARY_1,
            where="MGS20 Corollary 1 (4.1)",
            exceptions=[
                f"{r.key} t = {r.t:.2f}: {r.frequency:.4f} > {r.bound:.4f} (p = {r.p:.2g})"
                for r in tails.itertuples()
                if r.p <= FAMILY / len(tails)
            ],
            values={
                "tests": len(tails),
                "smallest_p": worst_tail["p"],
                "largest_z": tails["z"].max(),
            },
        ),
    ]
    return out
