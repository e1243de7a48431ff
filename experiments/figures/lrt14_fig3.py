"""lrt14-fig3: test accuracy of the online MF and ORF-Saffari and of batch forests re-fitted on the data seen so far,
against the fraction of the training data (top row: the pass over the mini-batches) and the cumulative training time
(bottom row: with ORF-Saffari's further passes over the training set)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import NOT_COMPARABLE, Claim, Drawing, title_with_legend, unchecked
from experiments.figures.accuracy_curves import (
    CLOSE,
    KEYS,
    TENTHS,
    accuracy_long,
    at_tenths,
    close_cases,
    copy_note,
    dataset_title,
    draw_curves,
    final,
    final_table,
    final_times,
    gap_lines,
    gaps_at_tenths,
    listing,
    means,
    missing_reason,
    not_measured,
    ordered,
    panel_dataset,
    percent,
    set_accuracy_limits,
    speed_cases,
    time_line,
    unmeasured,
)
from experiments.figures.quantifiers import Cases, quantified
from experiments.figures.tables import paired_difference

DAGGER = "\u2020"  # LRT14's mark of the runs on dna's attributes 61-120
REDUCED = {"dna61_120": "dna"}  # datasets drawn in another's panel, their methods marked with the dagger
LABELS = {"ERT": "ERT-k", "RF": "Breiman-RF"}  # the catalog's model names -> the paper's
ORF = "ORF-Saffari"
BATCH = ("ERT-k", "ERT-1", "Breiman-RF")
TIMED = ("ERT-k", "ERT-1")  # the batch forests LRT14 timed (its footnote 3: scikit-learn's Breiman-RF was not)
METHODS = ("MF", "ERT-k", "ERT-1", ORF, "Breiman-RF", f"MF{DAGGER}", f"ERT-1{DAGGER}")
COLORS = {
    "MF": "C0", "ERT-k": "C1", "ERT-1": "C2", ORF: "C3", "Breiman-RF": "C4",
    f"MF{DAGGER}": "C9", f"ERT-1{DAGGER}": "C8",
}  # fmt: skip
MARKERS = {"MF": "o", "ERT-k": "s", "ERT-1": "^", ORF: "v", "Breiman-RF": "D"}
ORDER = ("usps", "satimage", "letter", "dna")
NAMED = ("usps", "satimage", "letter")  # the datasets of the sentences on accuracy and time ("satimages")
ABOVE = ORDER  # "the forests trained on above datasets": the four of Fig. 3
TIMES_FASTER = 10  # "at least an order of magnitude"
DEPTH_TOLERANCE = 0.1  # how much steeper against ln N the depth may grow over the upper half of the range of N
BETTER = "over seeds, the one-sided 95% lower bound of the mean per-seed difference is > 0"
SEC7 = "LRT14 Sec. 7"
# The sentences of LRT14 Sec. 7 the claims test, verbatim (the text file's ligatures included).
CLOSE_QUOTE = (
    "Comparing test accuracy vs fraction of training data on usps, satimages and letter datasets, we observe that MF "
    "achieves accuracy very close to the batch RF versions (Breiman-RF, ERT-k, ERT-1) trained on the same fraction "
    "of the data."
)
ORF_QUOTE = "MF signi\ufb01cantly outperforms ORF-Saffari trained on the same fraction of training data."
FASTER_QUOTE = (
    "Comparing test accuracy vs training time on usps, satimages and letter datasets, we observe that MF is at least "
    "an order of magnitude faster than re-trained batch versions and ORF-Saffari."
)
DEPTH_QUOTE = "Appendix E shows that the average depth of the forests trained on above datasets scales as O(log N )."
DNA_QUOTE = (
    "However, in the presence of irrelevant features, methods which choose splits independent of labels (MF, ERT-1) "
    "perform worse than Breiman-RF and ERT-k (but still better than ORF-Saffari) as indicated by the results on the "
    "dna dataset."
)
FILTERED_QUOTE = (
    "We observe that, as expected, \ufb01ltering out irrelevant features signi\ufb01cantly improves performance of MF "
    "and ERT-1."
)
SIZES = "the paper's sizes"
HEADER = """# LRT14 Fig. 3: final test accuracy after all 100 mini-batches

MF (lifetime inf, IKN smoothing with gamma = 10 d, paused pure blocks) and ORF-Saffari learn the mini-batches online
(one pass: the paper's top row, "results after a single pass"); "ORF-Saffari (k passes)" is ORF-Saffari at the end
of its epochs, the pass over the mini-batches and k - 1 passes over the whole training set after it, each in a new
random order (the paper's 20 epochs; the bottom row's last marker). Breiman-RF, ERT-k (k = sqrt(d)) and ERT-1
(scikit-learn) are re-fitted on all the data seen at each of the 100 mini-batches. 100 trees, features min-max scaled
on train and test together. Written by `make reproduce-figure FIG=lrt14-fig3` (experiments/figures/lrt14_fig3.py)."""


def label(run) -> tuple[str, str]:
    """(panel, method): dna61_120's runs go to dna's panel as MF-dagger and ERT-1-dagger."""
    name = run.dataset
    method = LABELS.get(run.model, run.model)
    if name in REDUCED:
        return dataset_title(REDUCED[name]), method + DAGGER
    return dataset_title(name), method


def single_pass(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of the pass over the mini-batches: the paper's top row ("results after a single pass")."""
    return frame[frame["pass"] == 1]


def after_passes(mean: pd.DataFrame) -> pd.DataFrame:
    """The last row of each method that made passes after the mini-batches, as a method named by its passes."""
    last = final(mean[mean["pass"] > 1])
    return last.assign(method=[f"{m} ({p} passes)" for m, p in zip(last["method"], last["pass"], strict=True)])


def draw_depth(ax: plt.Axes, part: pd.DataFrame) -> None:
    """MF's average leaf depth against the points seen N (log scale; mean ± sd over seeds), with the line
    a + b ln N fitted over the lower half of the range of ln N drawn across the whole range: where the depth leaves it
    upwards, it grows faster than log N (the depth claim)."""
    depth = part.groupby("step")["mean_depth"].agg(["mean", "std"])
    n = depth.index.to_numpy(float)
    ax.plot(n, depth["mean"], color=COLORS["MF"], lw=1.3, marker=MARKERS["MF"], markevery=max(1, len(n) // 10), ms=4)
    sd = depth["std"].fillna(0.0)
    ax.fill_between(n, depth["mean"] - sd, depth["mean"] + sd, color=COLORS["MF"], alpha=0.15, lw=0)
    (slope, intercept), _, middle = half_fits(n, depth["mean"].to_numpy())
    ax.plot(n, intercept + slope * np.log(n), color="0.4", ls="--", lw=1, label="a + b ln N (lower half)")
    ax.axvline(middle, color="0.6", lw=0.6, ls=":")
    ax.set_xscale("log")
    ax.grid(alpha=0.3, which="both", lw=0.5)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=7, loc="upper left", frameon=False)
    ax.set_xlabel("points seen N (log scale)", fontsize=9)


def plot(runs, spec) -> Drawing:
    long = accuracy_long(runs, label, extra=("mean_depth",))
    mean = means(long)
    first = single_pass(mean)
    panels = ordered(mean["dataset"], ORDER)
    depths = mf_depths(long)
    rows = 3 if not depths.empty else 2
    fig, axes = plt.subplots(rows, len(panels), figsize=(max(3.6 * len(panels), 8.0), 3.2 * rows), squeeze=False)
    for column, panel in enumerate(panels):
        if rows == 3 and panel in set(depths["dataset"]):
            draw_depth(axes[2, column], depths[depths["dataset"] == panel])
        elif rows == 3:
            axes[2, column].set_axis_off()
        part, part_first = mean[mean["dataset"] == panel], first[first["dataset"] == panel]
        top, bottom = axes[0, column], axes[1, column]
        draw_curves(top, part_first, "fraction", METHODS, COLORS, MARKERS)
        draw_curves(bottom, part, "train_time", METHODS, COLORS, MARKERS)
        bottom.set_xscale("log")
        set_accuracy_limits(top, part_first)
        set_accuracy_limits(bottom, part)
        top.set_xlim(0, 1)
        top.set_title(f"{panel} (n_train = {int(part_first['step'].max())})", fontsize=10)
        top.set_xlabel("fraction of training data", fontsize=9)
        bottom.set_xlabel("cumulative training time (s)", fontsize=9)
    for ax in axes[:2, 0]:
        ax.set_ylabel("test accuracy", fontsize=9)
    if rows == 3:
        axes[2, 0].set_ylabel("MF's average leaf depth", fontsize=9)
    n_seeds = int(mean["n_seeds"].max())
    trees = sorted(mean["trees"].unique())
    handles_from = axes[0, int(np.argmax([mean[mean["dataset"] == p]["method"].nunique() for p in panels]))]
    note = copy_note(panels, SIZES)
    extra = after_passes(mean)
    lines = [
        f"Test accuracy after each of the mini-batches; {', '.join(map(str, trees))} trees; mean ± sd over {n_seeds} "
        f"seed{'s' * (n_seeds > 1)}.",
        f"MF, ORF-Saffari online (one pass), batch forests re-fitted on the data seen. {DAGGER}: dna's attributes "
        "61-120",
    ]
    if not extra.empty:
        further = int(extra["pass"].max()) - 1
        lines.append(
            f"{ORF} then makes {further} further passes over the training set (second row, a marker after each)"
        )
    if rows == 3:
        lines.append("Third row: MF's average leaf depth (mean over trees of a tree's mean leaf depth) against N")
    title_with_legend(fig, handles_from, "\n".join([*lines, *([note] if note else [])]))
    table = pd.concat([first, extra], ignore_index=True)
    return Drawing(fig, {"": final_table(table, HEADER, (*METHODS, *sorted(set(extra["method"]))), SIZES)})


def claims(runs, spec) -> list[Claim]:
    long = accuracy_long(runs, label, extra=("mean_depth",))
    first = single_pass(long)  # the accuracy claims: the paper's top row
    seed_tenths = at_tenths(first, [*KEYS, "seed"])
    panels = ordered(long["dataset"], ORDER)
    named = [p for p in panels if panel_dataset(p) in NAMED]
    dna = next((p for p in panels if panel_dataset(p) == "dna"), None)
    return [
        *close_to_batch(seed_tenths, named, unmeasured(NAMED, panels)),
        *above_orf(seed_tenths, named, unmeasured(NAMED, panels)),
        *faster(final_times(long).droplevel("trees"), long, named, unmeasured(NAMED, panels)),
        *depth_scaling(long, [p for p in panels if panel_dataset(p) in ABOVE], unmeasured(ABOVE, panels)),
        *dna_claims(final(first, [*KEYS, "seed"]), dna),
    ]


def close_to_batch(seed_tenths: pd.DataFrame, named: list[str], absent: list[str]) -> list[Claim]:
    """MF within CLOSE of each batch forest at every tenth on each dataset of the sentence (the printed claim), and
    at 100% of the data only (a weaker reading beside it); a line of its own for each dataset not measured."""
    missing = "MF's test accuracy is very close to the batch forests' trained on the same fraction, on {dataset}"
    out = not_measured("close_to_batch", missing, absent, CLOSE_QUOTE, SEC7)
    if not named:
        return out
    gaps = gaps_at_tenths(seed_tenths, "MF", BATCH, named)
    cases = close_cases(gaps, "MF")
    datasets = listing(named)
    worst = gaps["gap"].idxmax()
    flip, flip_upper = gaps["gap"].max(), gaps["upper"].max()
    (printed,) = quantified(
        f"at every tenth of the data (10%, ..., 100%) on each of {datasets}: MF's test accuracy is within {CLOSE} of "
        f"each of Breiman-RF, ERT-k and ERT-1 trained on the same fraction (means over seeds; {CLOSE}: this "
        "project's threshold, the text gives none)",
        cases,
        f"{gap_lines(gaps, 'best batch forest - MF')}. Within {CLOSE} at {cases.count()} (dataset, tenth) cases; "
        f"the verdict flips at a threshold of {flip:.4f} on the means ({flip_upper:.4f} on the one-sided 95% upper "
        "bounds over seeds)",
        key="close_to_batch",
        quote=CLOSE_QUOTE,
        where=SEC7,
        values={
            "threshold": CLOSE,
            "flip": flip,
            "flip_upper": flip_upper,
            "worst_case": f"{worst[0]} at {percent(worst[1])}",
            "worst_rival": gaps.loc[worst, "rival"],
            "failing": len(cases.failing),
        },
    )
    end = gaps.xs(TENTHS[-1], level="tenth")
    weaker = printed.weaker(
        f"at 100% of the data on each of {datasets}: MF's test accuracy is within {CLOSE} of each of Breiman-RF, "
        'ERT-k and ERT-1 (the end of the data only: a weaker reading of "trained on the same fraction")',
        bool((end["gap"] <= CLOSE).all()),
        "; ".join(f"{p}: {end.loc[p, 'rival']} - MF = {end.loc[p, 'gap']:+.4f}" for p in named),
        key="close_to_batch_end",
        values={"end_gap": end["gap"].max()},
    )
    return [printed, weaker, *out]


def above_orf(seed_tenths: pd.DataFrame, named: list[str], absent: list[str]) -> list[Claim]:
    """MF more accurate than ORF-Saffari after its single pass at every tenth on each dataset of the sentence, over
    seeds; a line of its own for each dataset not measured."""
    missing = "MF's test accuracy is higher than ORF-Saffari's trained on the same fraction, on {dataset}"
    out = not_measured("above_orf", missing, absent, ORF_QUOTE, SEC7)
    if not named:
        return out
    lead = paired_difference(seed_tenths, "MF", ORF, ["dataset", "tenth"]).loc[named]
    margins, labels = {}, {}
    for (panel, tenth), row in lead.iterrows():
        case = f"{panel} {percent(tenth)}"
        margins[case], labels[case] = row["low"], f"MF - {ORF} = {row['mean']:+.4f}, lower bound"
    cases = Cases(margins, labels=labels)
    measured = "; ".join(
        f"{p}: MF - {ORF} from {part['mean'].min():+.4f} to {part['mean'].max():+.4f}, lower bounds from "
        f"{part['low'].min():+.4f} to {part['low'].max():+.4f}, higher at {int((part['low'] > 0).sum())} of "
        f"{len(part)} tenths"
        for p, part in lead.groupby(level=0, sort=False)
    )
    printed = quantified(
        f"at every tenth of the data on each of {listing(named)}: MF's test accuracy is higher than "
        f"ORF-Saffari's trained on the same fraction (ORF-Saffari after a single pass, as the paper's top row; "
        f"significantly: {BETTER})",
        cases,
        measured,
        key="above_orf",
        quote=ORF_QUOTE,
        where=SEC7,
        values={"smallest_lead": lead["mean"].min(), "smallest_low": lead["low"].min()},
    )
    return [*printed, *out]


def faster(times: pd.DataFrame, long: pd.DataFrame, named: list[str], absent: list[str]) -> list[Claim]:
    """LRT14's "at least an order of magnitude faster than re-trained batch versions and ORF-Saffari", by rival: the
    batch forests are not comparable (the paper timed Python against Python; here ERT is compiled Cython), ORF-Saffari
    is (this project's numba, as MF). ``times``: each run's cumulative time at its end, index dataset and seed."""
    why = (
        "not comparable: the paper timed its authors' Python MF against their Python ERT (Sec. 7; footnote 3: "
        "scikit-learn's optimized C code was not timed); here ERT-k and ERT-1 are scikit-learn's compiled Cython and "
        "MF this project's numba, so the ratio measures two implementations as much as two algorithms"
    )
    statement = f"MF is at least {TIMES_FASTER} times faster than the re-trained ERT-k and ERT-1 (cumulative time)"
    missing = "MF is at least an order of magnitude faster than ORF-Saffari on {dataset}"
    out = not_measured("faster_than_orf", missing, absent, FASTER_QUOTE, SEC7)
    if not named:
        batch = unchecked(
            statement, why, key="faster_than_batch", quote=FASTER_QUOTE, where=SEC7, status=NOT_COMPARABLE
        )
        return [batch, *out]
    times = times.loc[named]
    ratios = {
        f"ratios_{rival.replace('-', '').lower()}": ", ".join(
            f"{p} {times.loc[p, rival].mean() / times.loc[p, 'MF'].mean():.1f}x" for p in named
        )
        for rival in TIMED
    }
    lines = ". ".join(f"{p}: {time_line(times.loc[p], 'MF', TIMED)}" for p in named)
    batch = Claim(
        f"{statement} on {listing(named)}",
        None,
        f"{why}. Measured, not compared: {lines}",
        key="faster_than_batch",
        quote=FASTER_QUOTE,
        where=SEC7,
        status=NOT_COMPARABLE,
        values=ratios,
        timed=True,
    )
    passes = int(long.loc[long["method"] == ORF, "pass"].max())
    cases, measured = speed_cases(times, "MF", ORF, TIMES_FASTER)
    orf = quantified(
        f"on each of {listing(named)}: MF's cumulative training time is at least {TIMES_FASTER} times below "
        f"ORF-Saffari's over its {passes} passes (the ratio of the means over seeds; both are this project's numba "
        "code, as the paper's pair was both its authors' Python)",
        cases,
        measured,
        key="faster_than_orf",
        quote=FASTER_QUOTE,
        where=SEC7,
        paper=f'>= {TIMES_FASTER}x (Sec. 7: "at least an order of magnitude faster")',
        values={"flip": min(cases.margins.values()) + TIMES_FASTER, "passes": passes},
        timed=True,
    )
    return [batch, *orf, *out]


def half_fits(n: np.ndarray, depth: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The least-squares lines (slope, intercept) of depth against ln n over the lower and the upper half of the range
    of ln n (the point at the middle in both), and the n at the middle."""
    ln = np.log(n)
    middle = (ln.min() + ln.max()) / 2
    lower, upper = ln <= middle + 1e-12, ln >= middle - 1e-12
    return np.polyfit(ln[lower], depth[lower], 1), np.polyfit(ln[upper], depth[upper], 1), float(np.exp(middle))


def slope_ratio(n: np.ndarray, depth: np.ndarray) -> float:
    """The slope of depth against ln n over the upper half of the range of ln n over that over the lower half."""
    lower, upper, _ = half_fits(n, depth)
    return upper[0] / lower[0]


def mf_depths(long: pd.DataFrame) -> pd.DataFrame:
    """MF's rows that logged the average leaf depth (mean_depth), over its pass over the mini-batches."""
    return long[(long["method"] == "MF") & (long["pass"] == 1) & long["mean_depth"].notna()]


def depth_scaling(long: pd.DataFrame, named: list[str], absent: list[str]) -> list[Claim]:
    """LRT14's "the average depth of the forests ... scales as O(log N)": on each dataset measured, MF's average
    leaf depth against ln N (N the points seen) does not bend upwards: the slope over the upper half of the range of
    ln N at most 1 + DEPTH_TOLERANCE times that over the lower half. A depth a + b ln N keeps its slope (whatever a:
    the ratio depth / ln N still rises towards b when a < 0, so it is no test), a power law N^c multiplies it by
    e^(c w) over halves of width w in ln N."""
    missing = "the average depth of MF's trees scales as O(log N) on {dataset}"
    out = not_measured("depth_log_n", missing, absent, DEPTH_QUOTE, SEC7)
    mf = mf_depths(long)
    logged = [p for p in named if p in set(mf["dataset"])]
    statement = (
        "on each of {datasets}: the average leaf depth of MF's trees (the mean over trees of a tree's mean leaf "
        "depth) grows no faster than a + b ln N over the N measured (N the points seen): the slope of depth against "
        f"ln N over the upper half of the range of ln N is no more than {1 + DEPTH_TOLERANCE:g} times the slope over "
        f"the lower half ({DEPTH_TOLERANCE:g}: this project's tolerance; O(log N) is asymptotic and the text gives no "
        "range; a power law N^c would multiply the slope by e^(c w), w the width of a half in ln N)"
    )
    if not logged:
        why = "not checked: the runs log no depth (mean_depth: MF's runs made before the fractions protocol logged it)"
        statement = statement.format(datasets=listing(named))
        return [unchecked(statement, why, key="depth_log_n", quote=DEPTH_QUOTE, where=SEC7), *out]
    margins, labels, lines, ratios = {}, {}, [], {}
    for panel in logged:
        part = mf[mf["dataset"] == panel]
        mean = part.groupby("step")["mean_depth"].mean()
        n, depth = mean.index.to_numpy(float), mean.to_numpy()
        lower, upper, middle = half_fits(n, depth)
        ratios[panel] = upper[0] / lower[0]
        per_seed = [slope_ratio(s["step"].to_numpy(float), s["mean_depth"].to_numpy()) for _, s in part.groupby("seed")]
        margins[panel] = 1 + DEPTH_TOLERANCE - ratios[panel]
        labels[panel] = f"ratio {ratios[panel]:.3f}, margin"
        at = [0, int(np.argmin(np.abs(n - middle))), len(n) - 1]
        lines.append(
            f"{panel}: N {int(n[0])}-{int(n[-1])}; mean leaf depth "
            + " / ".join(f"{depth[i]:.2f}" for i in at)
            + " and depth / ln N "
            + " / ".join(f"{depth[i] / np.log(n[i]):.3f}" for i in at)
            + f" at N = {int(n[at[0]])} / {int(n[at[1]])} / {int(n[at[2]])}; slope of depth on ln N {lower[0]:.3f} "
            f"(N <= {middle:.0f}) and {upper[0]:.3f} (above): ratio {ratios[panel]:.3f} (per seed "
            f"{min(per_seed):.3f}-{max(per_seed):.3f})"
        )
    printed = quantified(
        statement.format(datasets=listing(logged)),
        Cases(margins, digits=3, labels=labels),
        "; ".join(lines),
        key="depth_log_n",
        quote=DEPTH_QUOTE,
        where=SEC7,
        values={"tolerance": DEPTH_TOLERANCE, "ratios": ", ".join(f"{p} {r:.3f}" for p, r in ratios.items())},
    )
    return [*printed, *out]


def dna_claims(seed_final: pd.DataFrame, panel: str | None) -> list[Claim]:
    """On dna (after the whole training set, over seeds): MF and ERT-1 below Breiman-RF and ERT-k, still above
    ORF-Saffari, and each improved by keeping attributes 61-120 (the dagger runs); not checked without dna."""
    sentences = {
        "dna_worse": ("on dna, each of MF and ERT-1 is less accurate than each of Breiman-RF and ERT-k", DNA_QUOTE),
        "dna_above_orf": ("on dna, each of MF and ERT-1 is more accurate than ORF-Saffari", DNA_QUOTE),
        "dna_filtered": ("on dna, keeping attributes 61-120 improves each of MF and ERT-1", FILTERED_QUOTE),
    }
    over = f" (after the whole training set; {BETTER})"
    if panel is None:
        why = missing_reason("dna")
        return [unchecked(s + over, why, key=k, quote=q, where=SEC7) for k, (s, q) in sentences.items()]
    pairs = {
        "dna_worse": [(b, a) for a in ("MF", "ERT-1") for b in ("Breiman-RF", "ERT-k")],
        "dna_above_orf": [(a, ORF) for a in ("MF", "ERT-1")],
        "dna_filtered": [(a + DAGGER, a) for a in ("MF", "ERT-1")],
    }
    present = set(seed_final.loc[seed_final["dataset"] == panel, "method"])
    out = []
    for key, (statement, quote) in sentences.items():
        if not {m for pair in pairs[key] for m in pair} <= present:
            why = missing_reason("dna61_120") if key == "dna_filtered" else "not checked: a method of it was not run"
            out.append(unchecked(statement + over, why, key=key, quote=quote, where=SEC7))
            continue
        lows = {f"{a} - {b}": paired_difference(seed_final, a, b, ["dataset"]).loc[panel] for a, b in pairs[key]}
        labels = {c: f"{d['mean']:+.4f}, lower bound" for c, d in lows.items()}
        cases = Cases({c: d["low"] for c, d in lows.items()}, labels=labels)
        measured = "; ".join(cases.margin(c) for c in lows)
        out += quantified(statement + over, cases, measured, key=key, quote=quote, where=SEC7)
    return out
