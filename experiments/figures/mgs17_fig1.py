"""mgs17-fig1: test accuracy against the fraction of training data of the online Mondrian forest with increasing
lifetime, the one with a fixed lifetime, and the batch forests Breiman RF and ERT-1 re-fitted at each fraction."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Claim, Drawing, title_with_legend, unchecked
from experiments.figures.accuracy_curves import (
    CLOSE,
    KEYS,
    accuracy_long,
    at_tenths,
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
    set_accuracy_limits,
    speed_cases,
    unmeasured,
)
from experiments.figures.quantifiers import Cases
from experiments.figures.tables import paired_difference
from mondrian.forest import lifetime_at

LABELS = {"RF": "Breiman RF"}
INCREASING, FIXED = "Mondrian increasing", "Mondrian fixed"
PRINTED = 1.0  # the scale of the printed schedule lam_n = n^(1/(d+2)), which decides the verdict
METHODS = ("Breiman RF", "ERT-1", INCREASING, FIXED)
COLORS = {"Breiman RF": "C4", "ERT-1": "C2", INCREASING: "C0", FIXED: "C1"}
MARKERS = {"Breiman RF": "D", "ERT-1": "^", INCREASING: "o", FIXED: "s"}
SCALED_COLORS = ("C9", "C5", "C6", "C7")  # the increasing forests with a larger lifetime_scale, drawn beside
ORDER = ("letter", "satimage", "usps", "dna")  # the figure's four panels
RIVALS = {FIXED: "fixed", "ERT-1": "ert1"}  # the methods Mondrian increasing must beat, by their name in claim keys
BETTER = "more accurate: over seeds, the one-sided 95% lower bound of the mean per-seed difference is > 0"
SEVERAL = 2  # "on several datasets": at least 2 (this project's reading, "more than one")
MUCH_FASTER = 2  # "much faster to train": at least 2 times (this project's threshold; the text gives none)
CAPTION = "MGS17 Fig. 1 caption"
# The caption's sentences the claims test, verbatim (the text file's ligature and apostrophe included).
BETTER_QUOTE = (
    "Modi\ufb01ed MF (Algorithm 4) outperforms MF with a constant lifetime, and is better than the batch ERT-1 "
    "algorithm."
)
RF_QUOTE = (
    "It also performs almost as well as Breiman\u2019s RF (a batch algorithm that uses the whole training dataset in "
    "order to choose each split) on several datasets, while being incremental and much faster to train."
)
DNA_QUOTE = (
    "On the dna dataset, as noted in [LRT14], Breiman\u2019s RF outperforms the other algorithms because of the "
    "presence of a large number of irrelevant features."
)
SIZES = "LRT14's sizes"
HEADER = """# MGS17 Fig. 1: final test accuracy after the whole training set

Mondrian increasing (lam_n = n^(1/(d+2)), the printed schedule; "x2.5", "x5": lam_n = 2.5 or 5 n^(1/(d+2)), beside
it) and Mondrian fixed (lam = 2) learn each tenth of the training data online (leaves predict their most frequent
label, majority vote of the trees); Breiman RF and ERT-1 (scikit-learn) are re-fitted on all the data seen at each
tenth. The paper gives no number of trees: 10 and 100 are both run. Written by
`make reproduce-figure FIG=mgs17-fig1` (experiments/figures/mgs17_fig1.py)."""


def increasing(scale: float) -> str:
    """The name of the increasing forest with lam_n = scale n^(1/(d+2))."""
    return INCREASING if scale == PRINTED else f"{INCREASING} x{scale:g}"


def scale_of(run) -> float | None:
    """The run's lifetime_scale if its forest has the increasing lifetime, else None."""
    estimator = run.estimator
    return float(estimator.get("lifetime_scale", 1.0)) if estimator.get("lifetime") == "increasing" else None


def label(run) -> tuple[str, str]:
    scale = scale_of(run)
    return dataset_title(run.dataset), increasing(scale) if scale else LABELS.get(run.model, run.model)


def final_lifetimes(runs) -> dict[tuple[str, float], float]:
    """Per dataset and lifetime_scale, the lifetime lam_n = scale * n^(1/(d+2)) the increasing trees reach on the
    whole training set."""
    out = {}
    for run in runs:
        scale = scale_of(run)
        if scale is None:
            continue
        d = run.n_features
        out[dataset_title(run.dataset), scale] = lifetime_at(int(run.curves["step"].iloc[-1]), scale, d)
    return out


def scales(runs) -> list[float]:
    return sorted({s for s in map(scale_of, runs) if s is not None})


def reached(lifetimes: dict, panel: str) -> str:
    """The final increasing lifetimes of a panel, the printed schedule's first."""
    values = sorted((s, lam) for (p, s), lam in lifetimes.items() if p == panel)
    return "; ".join(f"{'lam_n' if s == PRINTED else f'x{s:g}'} {lam:.2f}" for s, lam in values)


def plot(runs, spec) -> Drawing:
    mean = means(accuracy_long(runs, label))
    panels = ordered(mean["dataset"], ORDER)
    trees = sorted(mean["trees"].unique())
    lifetimes = final_lifetimes(runs)
    scaled = [increasing(s) for s in scales(runs) if s != PRINTED]
    methods = (*METHODS, *scaled)
    colors = {**COLORS, **dict(zip(scaled, SCALED_COLORS, strict=False))}
    fig, axes = plt.subplots(len(trees), len(panels), figsize=(max(3.6 * len(panels), 8.0), 3.3 * len(trees) + 0.9),
                             squeeze=False)  # fmt: skip
    for (row, n_trees), (column, panel) in ((r, c) for r in enumerate(trees) for c in enumerate(panels)):
        ax = axes[row, column]
        part = mean[(mean["dataset"] == panel) & (mean["trees"] == n_trees)]
        draw_curves(ax, part, "fraction", methods, colors, MARKERS)
        set_accuracy_limits(ax, part)
        ax.set_xlim(0.05, 1.02)
        ax.set_title(f"{panel}, {n_trees} trees\n(n_train = {int(part['step'].max())}; {reached(lifetimes, panel)})",
                     fontsize=9)  # fmt: skip
    for ax in axes[-1]:
        ax.set_xlabel("fraction of training data", fontsize=9)
    for ax in axes[:, 0]:
        ax.set_ylabel("test accuracy", fontsize=9)
    n_seeds = int(mean["n_seeds"].max())
    note = copy_note(panels, SIZES)
    title_with_legend(
        fig,
        axes[0, 0],
        f"Test accuracy after each tenth of the training data; mean ± sd over {n_seeds} seed{'s' * (n_seeds > 1)}.\n"
        "Mondrian: online, majority vote, lam_n = n^(1/(d+2)) (xk: k n^(1/(d+2))) or lam = 2; batch forests "
        "re-fitted on the data seen" + (f"\n{note}" if note else ""),
    )
    return Drawing(fig, {"": final_table(mean, HEADER, methods, SIZES)})


def schedule(scale: float) -> str:
    """How a claim reads the schedule: the printed one, or a scale of it (a reading of the unspecified constant)."""
    if scale == PRINTED:
        return "lam_n = n^(1/(d+2)) as printed"
    return (
        f"at lifetime_scale {scale:g} (lam_n = {scale:g} n^(1/(d+2)), a reading of the constant the text leaves open)"
    )


def scale_key(key: str, scale: float) -> str:
    return f"{key}_x{scale:g}".replace(".", "_")


def with_scales(statement, check, grid: list[float], key: str, quote: str, timed: bool = False) -> list[Claim]:
    """The claim at the printed schedule and, beside it, the same check at each other lifetime_scale of the grid (a
    line of its own, weaker_of the printed claim: "printed fails, holds at scale s" is partly reproduced).
    ``statement(scale)`` says what is tested, ``check(scale)`` -> (passed, measured, cases, values); ``timed``: the
    check reads training times."""
    passed, measured, cases, values = check(PRINTED)
    fields = {"exceptions": cases.exceptions(), "values": values}
    printed = Claim(statement(PRINTED), passed, measured, key=key, quote=quote, where=CAPTION, timed=timed, **fields)
    out = [printed]
    for scale in (s for s in grid if s != PRINTED):
        passed, measured, cases, values = check(scale)
        fields = {"exceptions": cases.exceptions(), "values": values}
        out.append(printed.weaker(statement(scale), passed, measured, key=scale_key(key, scale), **fields))
    return out


def claims(runs, spec) -> list[Claim]:
    long = accuracy_long(runs, label)
    seed_tenths, seed_final, times = at_tenths(long, [*KEYS, "seed"]), final(long, [*KEYS, "seed"]), final_times(long)
    panels = ordered(long["dataset"], ORDER)
    grid, lifetimes = scales(runs), final_lifetimes(runs)
    absent = unmeasured(ORDER, panels)
    dna = next((p for p in panels if panel_dataset(p) == "dna"), None)
    out = []
    for n_trees in sorted(long["trees"].unique()):
        tenths = seed_tenths[seed_tenths["trees"] == n_trees]
        for rival in RIVALS:
            out += above(n_trees, rival, tenths, panels, grid, lifetimes, absent)
        out += close_to_rf(n_trees, tenths, panels, grid, absent)
        out += much_faster(n_trees, times.xs(n_trees, level="trees").loc[panels], panels, grid, absent)
        out += rf_best_on_dna(n_trees, seed_final[seed_final["trees"] == n_trees], dna, grid)
    return out


def lam_n_end(lifetimes: dict, panels: list[str], scale: float) -> str:
    """The lifetimes the increasing trees reach at the end, per panel."""
    return ", ".join(f"{p} {lifetimes[p, scale]:.2f}" for p in panels if (p, scale) in lifetimes)


def lead_line(lead: pd.DataFrame, rival: str) -> str:
    """Per panel, the range over the tenths of increasing - rival and of its lower bound over seeds."""
    return "; ".join(
        f"{p}: increasing - {rival} from {part['mean'].min():+.4f} to {part['mean'].max():+.4f} (lower bounds "
        f"{part['low'].min():+.4f} to {part['low'].max():+.4f}), more accurate at "
        f"{int((part['low'] > 0).sum())} of {len(part)} tenths"
        for p, part in lead.groupby(level=0, sort=False)
    )


def above(n_trees: int, rival: str, tenths, panels: list[str], grid, lifetimes: dict, absent) -> list[Claim]:
    """Mondrian increasing more accurate than ``rival`` at every tenth on every dataset, over seeds."""
    key = f"above_{RIVALS[rival]}_{n_trees}_trees"

    def statement(scale):
        return (
            f"{n_trees} trees, {schedule(scale)}: at every tenth of the data on each of {listing(panels)}: "
            f"Mondrian increasing is more accurate than {rival} ({BETTER})"
        )

    def check(scale):
        lead = paired_difference(tenths, increasing(scale), rival, ["dataset", "tenth"]).loc[panels]
        margins, labels = {}, {}
        for (panel, tenth), row in lead.iterrows():
            case = f"{panel} {tenth:.0%}"
            margins[case], labels[case] = row["low"], f"{row['mean']:+.4f}, lower bound"
        cases = Cases(margins, labels=labels)
        lams = lam_n_end(lifetimes, panels, scale)
        values = {
            "holding": len(cases.holding),
            "cases": len(margins),
            "lam_n_end": lams,
            "end_leads": ", ".join(f"{p} {lead.loc[(p, 1.0), 'mean']:+.4f}" for p in panels),
        }
        return cases.every(), f"{lead_line(lead, rival)}; lam_n at the end: {lams}", cases, values

    missing = f"{n_trees} trees: Mondrian increasing is more accurate than {rival} at every tenth of the data on "
    missing += "{dataset}"
    return [
        *with_scales(statement, check, grid, key, BETTER_QUOTE),
        *not_measured(key, missing, absent, BETTER_QUOTE, CAPTION),
    ]


def close_to_rf(n_trees: int, tenths, panels: list[str], grid, absent) -> list[Claim]:
    """On several datasets, Mondrian increasing almost as accurate as Breiman RF at every tenth."""
    key = f"close_to_rf_{n_trees}_trees"

    def statement(scale):
        return (
            f"{n_trees} trees, {schedule(scale)}: on several of {listing(panels)} (at least {SEVERAL}: several read "
            "as more than one), Mondrian increasing is almost as accurate as Breiman RF at every tenth of the data "
            f"(almost: RF's mean accuracy at most {CLOSE} above it, this project's threshold; the text gives none)"
        )

    def check(scale):
        gaps = gaps_at_tenths(tenths, increasing(scale), ["Breiman RF"], panels)
        largest = gaps.groupby(level=0, sort=False)["gap"].max()
        labels = {p: f"largest RF - increasing {largest[p]:+.4f}, margin" for p in panels}
        cases = Cases({p: CLOSE - largest[p] for p in panels}, labels=labels)
        flip = float(np.sort(largest.to_numpy())[SEVERAL - 1]) if len(panels) >= SEVERAL else float("nan")
        measured = (
            f"{gap_lines(gaps, 'Breiman RF - increasing')}. Within {CLOSE} at every tenth on {cases.count()} "
            f"datasets (several: at least {SEVERAL}); the verdict flips at a threshold of {flip:.4f}"
        )
        values = {
            "threshold": CLOSE,
            "within": len(cases.holding),
            "flip": flip,
            "largest_gaps": ", ".join(f"{p} {largest[p]:+.4f}" for p in panels),
        }
        return len(cases.holding) >= SEVERAL, measured, cases, values

    missing = f"{n_trees} trees: Mondrian increasing is almost as accurate as Breiman RF on {{dataset}}"
    return [*with_scales(statement, check, grid, key, RF_QUOTE), *not_measured(key, missing, absent, RF_QUOTE, CAPTION)]


def much_faster(n_trees: int, times, panels: list[str], grid, absent) -> list[Claim]:
    """The caption's "while being incremental and much faster to train": Mondrian increasing's cumulative training
    time at least MUCH_FASTER times below Breiman RF's (re-fitted at each tenth) on every dataset."""
    key = f"much_faster_{n_trees}_trees"

    def statement(scale):
        return (
            f"{n_trees} trees, {schedule(scale)}: on each of {listing(panels)}: Mondrian increasing trains at least "
            f"{MUCH_FASTER} times faster than Breiman RF (cumulative training time, its update at each tenth against "
            "RF's re-fit on the data seen; the ratio of the means over seeds; much faster: at least "
            f"{MUCH_FASTER}x, this project's threshold, the text gives none)"
        )

    def check(scale):
        cases, measured = speed_cases(times, increasing(scale), "Breiman RF", MUCH_FASTER)
        ratios = {p: MUCH_FASTER + m for p, m in cases.margins.items()}
        values = {"ratios": ", ".join(f"{p} {r:.2f}x" for p, r in ratios.items()), "flip": min(ratios.values())}
        return cases.every(), measured, cases, values

    missing = f"{n_trees} trees: Mondrian increasing trains much faster than Breiman RF on {{dataset}}"
    return [
        *with_scales(statement, check, grid, key, RF_QUOTE, timed=True),
        *not_measured(key, missing, absent, RF_QUOTE, CAPTION),
    ]


def rf_best_on_dna(n_trees: int, ending, dna: str | None, grid) -> list[Claim]:
    """On dna, Breiman RF more accurate than each other method at the end, over seeds; not checked without dna."""
    key = f"rf_best_on_dna_{n_trees}_trees"

    def statement(scale):
        return (
            f"{n_trees} trees, {schedule(scale)}: on dna, Breiman RF is more accurate than each of ERT-1, Mondrian "
            f"fixed and Mondrian increasing after the whole training set ({BETTER})"
        )

    if dna is None:
        return [unchecked(statement(PRINTED), missing_reason("dna"), key=key, quote=DNA_QUOTE, where=CAPTION)]

    def check(scale):
        rivals = ("ERT-1", FIXED, increasing(scale))
        lows = {f"RF - {m}": paired_difference(ending, "Breiman RF", m, ["dataset"]).loc[dna] for m in rivals}
        labels = {case: f"{d['mean']:+.4f}, lower bound" for case, d in lows.items()}
        cases = Cases({case: d["low"] for case, d in lows.items()}, labels=labels)
        return cases.every(), "; ".join(cases.margin(c) for c in lows), cases, {}

    return with_scales(statement, check, grid, key, DNA_QUOTE)
