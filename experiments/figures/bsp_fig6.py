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
WHERE = "BSP Sec. 3, Lemma 1 (App. C, Lemma 2)"
# Lemma 1's statement, the shortest clean span (the file's LaTeX for tau and 2 tau around it).
LEMMA_QUOTE = "its intersection points with the partition forms a homogeneous Poisson Process with intensity"
Z = 3.0  # a mean or variance is the Poisson law's within Z standard errors
LEVEL = 0.01  # a test of the law's homogeneity at this level


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
    by_rule = slice_counts(t)
    counts = by_rule["law"]
    k = np.arange(max(c.max() for c in by_rule.values()) + 2)
    for rule, colour in (("law", "tab:blue"), ("text", "tab:red")):
        if rule in by_rule:
            found = by_rule[rule]
            axes[3].bar(k, np.bincount(found, minlength=len(k)) / len(found), color=colour, alpha=0.5,
                        label=f"{rule} rule: {len(found)} trees, mean {found.mean():.2f}")  # fmt: skip
    axes[3].plot(k, stats.poisson.pmf(k, m["poisson_mean"]), "o-", color="k", ms=3, label="Lemma 1's Poisson law")
    axes[3].set(xlabel="cuts met by the segment", ylabel="frequency")
    axes[3].legend(fontsize=7)
    axes[3].set_title(f"law rule: mean {counts.mean():.2f}, variance {counts.var(ddof=1):.2f}; "
                      f"Poisson {m['poisson_mean']:.2f}", fontsize=9)  # fmt: skip
    fig.suptitle("BSP Fig. 6: Mondrian boxes vs BSP hulls on the same points; the line slice of the BSP partition",
                 fontsize=10)  # fmt: skip
    fig.tight_layout()
    return Drawing(fig)


def slice_counts(tables) -> dict[str, np.ndarray]:
    """The crossings per tree of each leaf rule (a table without a rule column holds the law's only)."""
    counts = tables["slice_counts"]
    if "rule" not in counts:
        return {"law": counts["crossings"].to_numpy()}
    return {rule: part["crossings"].to_numpy() for rule, part in counts.groupby("rule")}


def moments(counts: np.ndarray, expected: float) -> dict[str, float]:
    """The count's mean and variance, their standard errors under the Poisson law of mean ``expected`` and their
    z-scores."""
    n = len(counts)
    se_mean, se_var = np.sqrt(expected / n), np.sqrt((expected + 2 * expected**2) / n)
    mean, var = counts.mean(), counts.var(ddof=1)
    return {"mean": mean, "var": var, "se_mean": se_mean, "se_var": se_var, "z_mean": (mean - expected) / se_mean,
            "z_var": (var - expected) / se_var, "trees": n}  # fmt: skip


def claims(runs, spec) -> list[Claim]:
    """Lemma 1 on the line slice of trees under the law's leaf rule: a Poisson number of crossings (mean and
    variance within Z SE of the lemma's) at uniform positions, independent on the two halves of the segment
    (homogeneous); beside it, the text's leaf rule's slice; and a hull inside the box of the same points (by
    construction)."""
    t, m = runs[0].tables, runs[0].metrics
    expected = m["poisson_mean"]
    by_rule = slice_counts(t)
    law = moments(by_rule["law"], expected)
    values = {"poisson_mean": expected, **{f"law_{k}": v for k, v in law.items()}}
    beside = ""  # Algorithm 4 as printed, same points: counter-evidence shown with the claim, not a reading of it
    if "text" in by_rule:
        text = moments(by_rule["text"], expected)
        values |= {f"text_{k}": v for k, v in text.items()} | {
            "text_leaves": m.get("text_slice_leaves", np.nan),
            "law_leaves": m.get("slice_leaves", np.nan),
        }
        beside = (
            f"; beside, Algorithm 4 as printed (a leaf cut again from scratch, not the process the lemma is "
            f"about): {text['mean']:.3f} (z {text['z_mean']:+.1f}, variance {text['var']:.3f}), leaves per tree "
            f"{values['text_leaves']:.1f} against {values['law_leaves']:.1f} under the law's rule"
        )
    out = [
        Claim(
            "a BSP leaf keeps the convex hull of its points, tighter than the box of their ranges (a Mondrian leaf)",
            m["bsp_hull_area"] < m["bsp_range_area"],
            f"BSP leaves: hulls {m['bsp_hull_area']:.3f}, boxes of the same points {m['bsp_range_area']:.3f} (the "
            f"Mondrian tree's {m['mondrian_leaves']:.0f} leaf boxes: {m['mondrian_box_area']:.3f})",
            key="hull_tighter_than_box",
            kind=INVARIANT,
        ),
        Claim(
            f"line slice of trees under the law's leaf rule: the mean number of cuts met is the Poisson mean 2 "
            f"rate_scale tau length (within {Z:g} SE)",
            abs(law["z_mean"]) <= Z,
            f"{law['mean']:.3f} vs {expected:.3f} (SE {law['se_mean']:.3f}, z {law['z_mean']:+.2f}, {law['trees']} "
            f"trees){beside}",
            key="slice_poisson_mean", quote=LEMMA_QUOTE, where=WHERE, values=values,
        ),
        Claim(
            f"line slice (law rule): its variance equals its mean, as for a Poisson count (within {Z:g} SE)",
            abs(law["z_var"]) <= Z,
            f"variance {law['var']:.3f} vs {expected:.3f} (SE {law['se_var']:.3f}, z {law['z_var']:+.2f})",
            key="slice_variance_equals_mean", quote=LEMMA_QUOTE, where=WHERE, values=values,
        ),
    ]  # fmt: skip
    if "slice_positions" in t:
        out.append(homogeneous(t))
    return out


def homogeneous(tables) -> Claim:
    """Lemma 1's "homogeneous": the crossings of the law rule's trees fall uniformly along the segment (KS), and
    their numbers on its two halves are uncorrelated over the trees (independent increments; Pearson's test)."""
    positions = tables["slice_positions"]
    counts = tables["slice_counts"]
    positions, counts = positions[positions["rule"] == "law"], counts[counts["rule"] == "law"]
    ks = stats.kstest(positions["s"], "uniform").pvalue
    r, p = stats.pearsonr(counts["first_half"], counts["second_half"])
    return Claim(
        f"line slice (law rule): the crossings fall uniformly along the segment (Kolmogorov-Smirnov p >= {LEVEL:g}) "
        f"and their numbers on its two halves are uncorrelated over the trees (Pearson p >= {LEVEL:g})",
        ks >= LEVEL and p >= LEVEL,
        f"{len(positions)} crossings: KS p {ks:.3f}; halves {counts['first_half'].mean():.2f} and "
        f"{counts['second_half'].mean():.2f} per tree, correlation {r:+.3f} (p {p:.3f})",
        key="slice_homogeneous",
        quote=LEMMA_QUOTE,
        where=WHERE,
        values={"ks_p": ks, "halves_r": r, "halves_p": p},
    )
