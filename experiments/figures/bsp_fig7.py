"""bsp-fig7: the one-dimensional case of BSP's line-slice lemma, an obtuse triangle flattening onto its longest side
(BSP Figure 7, in the proof of Lemma 2).

Top: the triangle A B C (eps the largest of the run) with a BSP tree's cuts and, in blue, where they meet AB; the
triangles for each eps with their perimeter PE = L1 + L2 + sqrt(L1^2 + eps^2) + sqrt(L2^2 + eps^2); the measured
rate of the first cut's cost against eps beside PE, which tends to 2L. Bottom: the number of cuts met by AB (mean
and variance) against eps beside the Poisson mean tau 2L (times rate_scale); their law and their positions on AB at
eps = 0 (the segment) and at the smallest eps > 0, against the Poisson law and the uniform law.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from experiments.figures import Claim, Drawing
from experiments.figures.bsp_drawing import draw_partition

Z = 3.0
KS_LEVEL = 0.01
WHERE = "BSP App. C, proof of Lemma 2 (Fig. 7)"
RATE_QUOTE = (
    "the cost of cut in this triangle follows an Exponential distribution with rate parameter being the perimeter of "
    "the triangle"
)
COUNT_QUOTE = "As a result, the number of cuts follows a Poisson distribution with parameter"
POSITION_QUOTE = "The cut position is Uniformly distributed in the line segment."


def settings(run) -> dict[str, float]:
    """budget, rate_scale, length and apex as the trial ran them (the protocol's defaults where not given)."""
    given = run.protocol
    return {
        "budget": float(given.get("budget", 3.0)),
        "rate_scale": float(given.get("rate_scale", 1.0)),
        "length": float(given.get("length", 1.0)),
        "apex": float(given.get("apex", 0.3)),
    }


def limits(counts: pd.DataFrame) -> list[float]:
    """The eps of the lemma's limit that the claims check: 0 (the segment) and the smallest eps > 0."""
    epsilons = sorted(counts["epsilon"].unique())
    return ([0.0] if 0 in epsilons else []) + [e for e in epsilons if e > 0][:1]


def first_cut_rate(part: pd.DataFrame, budget: float) -> tuple[float, float]:
    """The rate of the first cut's cost (events over exposure, censored at the budget) and its standard error."""
    events = np.isfinite(part["root_cost"]).sum()
    exposure = np.minimum(part["root_cost"], budget).sum()
    return events / exposure, np.sqrt(events) / exposure


def count_stats(part: pd.DataFrame, mean: float) -> dict[str, float]:
    """Mean and variance of the crossings with their standard errors under a Poisson law of mean ``mean``."""
    n = len(part)
    return {
        "mean": part["crossings"].mean(),
        "var": part["crossings"].var(ddof=1),
        "se_mean": np.sqrt(mean / n),
        "se_var": np.sqrt((mean + 2 * mean**2) / n),
    }


def tag(epsilon: float) -> str:
    """An eps as a name in a claim's values: "eps0", "eps0_02"."""
    return f"eps{epsilon:g}".replace(".", "_")


def label(epsilon: float) -> str:
    return "segment (ε = 0)" if epsilon == 0 else f"ε = {epsilon:g}"


def draw_drawn_tree(ax, run, s: dict[str, float]) -> None:
    """The drawn tree's cuts in its triangle, the triangle's sides named, the crossings of AB in blue."""
    t = run.tables
    draw_partition(ax, t["nodes"], t["hulls"], lw=1.0)
    apex = s["apex"]
    height = float(t["points"]["y"].max())
    ax.plot([0, s["length"], apex, 0], [0, 0, height, 0], color="k", lw=1.4)
    ax.plot([apex, apex], [0, height], ls=":", color="0.5")
    crossings = t["drawn_crossings"]["s"] * s["length"]
    ax.scatter(crossings, np.zeros(len(crossings)), s=28, color="blue", zorder=4)
    ax.text(apex / 2, -0.03, "$L_1$", ha="center", va="top")
    ax.text((apex + s["length"]) / 2, -0.03, "$L_2$", ha="center", va="top")
    ax.text(apex + 0.01, height / 2, "ε", va="center")
    ax.set(xlim=(-0.05, s["length"] + 0.05), ylim=(-0.1, height + 0.1), aspect="equal")
    ax.set_axis_off()
    ax.set_title(f"a BSP tree in the triangle (ε = {height:g}, budget {s['budget']:g}): {len(crossings)} cuts meet "
                 "AB (blue)", fontsize=9)  # fmt: skip


def draw_triangles(ax, triangles: pd.DataFrame, s: dict[str, float]) -> None:
    for _, row in triangles[triangles["epsilon"] > 0].iterrows():
        e = row["epsilon"]
        ax.plot([0, s["length"], s["apex"], 0], [0, 0, e, 0], lw=1.2, label=f"ε = {e:g}: PE = {row['perimeter']:.3f}")
    ax.plot([0, s["length"]], [0, 0], color="k", lw=2.5, label=f"segment: 2L = {2 * s['length']:g}")
    ax.set(xlabel="$x_1$", ylabel="$x_2$", aspect="equal")
    ax.legend(fontsize=7)
    ax.set_title("the triangle flattens onto AB: its perimeter PE tends to 2L", fontsize=9)


def draw_rates(ax, counts: pd.DataFrame, s: dict[str, float]) -> None:
    """The first cut's measured rate against eps, over rate_scale, beside PE(eps) and its limit 2L."""
    grid = np.linspace(0, counts["epsilon"].max(), 200)
    perimeter = s["length"] + np.hypot(s["apex"], grid) + np.hypot(s["length"] - s["apex"], grid)
    ax.plot(grid, perimeter, color="k", lw=1, label="PE(ε)")
    ax.axhline(2 * s["length"], ls=":", color="0.4", label="2L")
    measured = [(e, *first_cut_rate(part, s["budget"])) for e, part in counts.groupby("epsilon")]
    epsilons, rates, ses = (np.array(v) for v in zip(*measured, strict=True))
    ax.errorbar(epsilons, rates / s["rate_scale"], yerr=2 * ses / s["rate_scale"], fmt="o", color="tab:red",
                capsize=3, label="measured rate of the first cut (± 2 SE)")  # fmt: skip
    ax.set(xlabel="ε", ylabel="rate of the first cut / rate_scale")
    ax.legend(fontsize=7)
    ax.set_title("the first cut's cost is Exp(PE)", fontsize=9)


def draw_counts(ax, counts: pd.DataFrame, mean: float) -> None:
    """Mean and variance of the crossings of AB per eps, beside the Poisson mean."""
    epsilons = sorted(counts["epsilon"].unique(), reverse=True)
    x = np.arange(len(epsilons))
    rows = [count_stats(counts[counts["epsilon"] == e], mean) for e in epsilons]
    ax.errorbar(x - 0.08, [r["mean"] for r in rows], yerr=[2 * r["se_mean"] for r in rows], fmt="o", capsize=3,
                label="mean (± 2 SE)")  # fmt: skip
    ax.errorbar(x + 0.08, [r["var"] for r in rows], yerr=[2 * r["se_var"] for r in rows], fmt="s", capsize=3,
                label="variance (± 2 SE)")  # fmt: skip
    ax.axhline(mean, color="red", lw=1, label=f"Poisson: mean = variance = τ 2L = {mean:g}")
    ax.set_xticks(x, [label(e) for e in epsilons], fontsize=8)
    ax.set(ylabel="cuts met by AB")
    ax.legend(fontsize=7)
    ax.set_title(f"{counts['tree'].nunique()} trees per ε: the count on AB", fontsize=9)


def draw_law(ax, counts: pd.DataFrame, mean: float) -> None:
    chosen = limits(counts)
    k = np.arange(counts["crossings"].max() + 2)
    width = 0.8 / len(chosen)
    for i, epsilon in enumerate(chosen):
        part = counts.loc[counts["epsilon"] == epsilon, "crossings"].to_numpy()
        ax.bar(k + (i - (len(chosen) - 1) / 2) * width, np.bincount(part, minlength=len(k)) / len(part), width,
               alpha=0.6, label=label(epsilon))  # fmt: skip
    ax.plot(k, stats.poisson.pmf(k, mean), "o-", color="red", ms=4, label=f"Poisson({mean:g})")
    ax.set(xlabel="cuts met by AB", ylabel="frequency")
    ax.legend(fontsize=7)
    ax.set_title("their number: Poisson", fontsize=9)


def draw_positions(ax, positions: pd.DataFrame, counts: pd.DataFrame) -> None:
    for epsilon in limits(counts):
        s = positions.loc[positions["epsilon"] == epsilon, "s"]
        ax.hist(s, bins=20, range=(0, 1), density=True, histtype="step", lw=1.5, label=f"{label(epsilon)}: {len(s)}")
    ax.axhline(1, color="red", lw=1, label="uniform")
    ax.set(xlabel="position on AB (fraction of L)", ylabel="density", ylim=(0, 1.6))
    ax.legend(fontsize=7)
    ax.set_title("their positions: uniform", fontsize=9)


def plot(runs, spec) -> Drawing:
    run = runs[0]
    s, t, mean = settings(run), run.tables, run.metrics["poisson_mean"]
    fig, axes = plt.subplots(2, 3, figsize=(17, 9))
    draw_drawn_tree(axes[0, 0], run, s)
    draw_triangles(axes[0, 1], t["triangles"], s)
    draw_rates(axes[0, 2], t["counts"], s)
    draw_counts(axes[1, 0], t["counts"], mean)
    draw_law(axes[1, 1], t["counts"], mean)
    draw_positions(axes[1, 2], t["positions"], t["counts"])
    fig.suptitle("BSP Fig. 7: the one-dimensional case: an obtuse triangle flattening onto AB (L = L1 + L2) cuts it "
                 "as a segment, a Poisson number of cuts of mean τ 2L at uniform positions", fontsize=10)  # fmt: skip
    fig.tight_layout()
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """The proof's three statements, each within its stated tolerance: the first cut's cost Exp(PE) at every eps,
    and at eps = 0 and the smallest eps, a Poisson number of cuts on AB (mean and variance) at uniform positions."""
    run = runs[0]
    s, t, mean = settings(run), run.tables, run.metrics["poisson_mean"]
    counts, triangles = t["counts"], t["triangles"].set_index("epsilon")
    rates = []
    for epsilon, part in counts.groupby("epsilon"):
        rate, se = first_cut_rate(part, s["budget"])
        expected = s["rate_scale"] * triangles.at[epsilon, "perimeter"]
        rates.append((epsilon, rate, se, expected))
    chosen = limits(counts)
    moments = {e: count_stats(counts[counts["epsilon"] == e], mean) for e in chosen}
    pvalues = {
        e: stats.kstest(t["positions"].loc[t["positions"]["epsilon"] == e, "s"], "uniform").pvalue for e in chosen
    }
    return [
        Claim(
            f"the cost of the triangle's first cut is Exp(rate_scale PE), PE -> 2L as eps -> 0 (measured rate within "
            f"{Z:g} SE at every eps)",
            all(abs(rate - expected) <= Z * se for _, rate, se, expected in rates),
            "; ".join(f"{label(e)}: {rate:.3f} ± {se:.3f} vs {expected:.3f}" for e, rate, se, expected in rates),
            key="first_cut_rate",
            paper="PE = (L1 + L2) + sqrt(L1^2 + eps^2) + sqrt(L2^2 + eps^2) -> 2(L1 + L2)",
            quote=RATE_QUOTE,
            where=WHERE,
            values={f"z_{tag(e)}": (rate - expected) / se for e, rate, se, expected in rates},
        ),
        Claim(
            f"the number of cuts met by the segment has the Poisson mean tau 2L (x rate_scale; within {Z:g} SE)",
            all(abs(m["mean"] - mean) <= Z * m["se_mean"] for m in moments.values()),
            "; ".join(
                f"{label(e)}: {m['mean']:.3f} vs {mean:g} (SE {m['se_mean']:.3f}, "
                f"z {(m['mean'] - mean) / m['se_mean']:+.2f})"
                for e, m in moments.items()
            ),
            key="segment_count_mean",
            paper="Poisson with parameter tau 2L",
            quote=COUNT_QUOTE,
            where=WHERE,
            values={f"{k}_{tag(e)}": v for e, m in moments.items() for k, v in m.items()} | {"poisson_mean": mean},
        ),
        Claim(
            f"its variance equals its mean, as for a Poisson number (within {Z:g} SE)",
            all(abs(m["var"] - mean) <= Z * m["se_var"] for m in moments.values()),
            "; ".join(f"{label(e)}: {m['var']:.3f} vs {mean:g} (SE {m['se_var']:.3f})" for e, m in moments.items()),
            key="segment_count_variance",
            paper="Poisson with parameter tau 2L",
            quote=COUNT_QUOTE,
            where=WHERE,
        ),
        Claim(
            f"the cuts meet the segment at uniform positions (Kolmogorov-Smirnov p >= {KS_LEVEL})",
            all(p >= KS_LEVEL for p in pvalues.values()),
            "; ".join(f"{label(e)}: p = {p:.3f}" for e, p in pvalues.items()),
            key="positions_uniform",
            paper="the cut position is uniformly distributed in the line segment",
            quote=POSITION_QUOTE,
            where=WHERE,
            values={f"p_{tag(e)}": p for e, p in pvalues.items()},
        ),
    ]
