"""mgs17-fig1: test accuracy against the fraction of training data of the online Mondrian forest with increasing
lifetime, the one with a fixed lifetime, and the batch forests Breiman RF and ERT-1 re-fitted at each fraction."""

from __future__ import annotations

import matplotlib.pyplot as plt

from experiments.data import catalog
from experiments.figures import Claim, Drawing, title_with_legend
from experiments.figures.accuracy_curves import (
    CLOSE,
    KEYS,
    accuracy_long,
    copy_note,
    dataset_title,
    draw_curves,
    final,
    final_table,
    means,
    ordered,
    set_accuracy_limits,
)
from experiments.figures.tables import paired_difference
from mondrian.forest import lifetime_at

LABELS = {"RF": "Breiman RF"}
INCREASING, FIXED = "Mondrian increasing", "Mondrian fixed"
PRINTED = 1.0  # the scale of the printed schedule lam_n = n^(1/(d+2)), which decides the verdict
METHODS = ("Breiman RF", "ERT-1", INCREASING, FIXED)
COLORS = {"Breiman RF": "C4", "ERT-1": "C2", INCREASING: "C0", FIXED: "C1"}
MARKERS = {"Breiman RF": "D", "ERT-1": "^", INCREASING: "o", FIXED: "s"}
SCALED_COLORS = ("C9", "C5", "C6", "C7")  # the increasing forests with a larger lifetime_scale, drawn beside
ORDER = ("letter", "satimage", "usps", "dna")
RIVALS = {FIXED: "fixed", "ERT-1": "ert1"}  # the methods Mondrian increasing must beat, by their name in claim keys
BETTER = "more accurate: the one-sided 95% lower bound of the mean per-seed difference is > 0"
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
        d = catalog.entry(run.dataset).shape["n_features"]
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


def over_scales(statement: str, check, grid: list[float], context: str, key: str) -> Claim:
    """The claim at the printed schedule (scale 1) decides. The text says a higher lifetime would do better: the
    same ``check(scale) -> (holds, measured)`` at every scale of the grid is reported beside, with the smallest
    scale at which it holds."""
    results = {s: check(s) for s in grid}
    holding = [s for s in grid if results[s][0]]
    smallest = f"{holding[0]:g}" if holding else "none of " + ", ".join(f"{s:g}" for s in grid)
    measured = "; ".join(f"lifetime_scale {s:g}: {results[s][1]}" for s in grid)
    return Claim(statement, results[PRINTED][0], f"{measured}. Smallest lifetime_scale at which it holds: {smallest}. "
                 f"{context}", key=key)  # fmt: skip


def claims(runs, spec) -> list[Claim]:
    long = accuracy_long(runs, label)
    by_seed = final(long, [*KEYS, "seed"])
    lifetimes, grid = final_lifetimes(runs), scales(runs)
    out = []
    for n_trees, part in final(means(long)).groupby("trees"):
        out += tree_claims(n_trees, part, by_seed[by_seed["trees"] == n_trees], lifetimes, grid)
    return out


def tree_claims(n_trees: int, part, seeds, lifetimes: dict, grid: list[float]) -> list[Claim]:
    """The claims for one number of trees: ``part`` the final means, ``seeds`` the final per-seed rows."""
    accuracy = part.pivot(index="dataset", columns="method", values="accuracy")
    panels = ordered(accuracy.index, ORDER)
    accuracy = accuracy.loc[panels]
    present = [m for m in (*METHODS, *(increasing(s) for s in grid)) if m in accuracy.columns]
    details = "; ".join(
        f"{p}: " + ", ".join(f"{m} {accuracy.loc[p, m]:.4f}" for m in dict.fromkeys(present)) for p in panels
    )
    context = f"Final accuracy: {details}. Increasing lifetimes at the end: " + ", ".join(
        f"{p} {reached(lifetimes, p)}" for p in panels
    )
    out = [above(n_trees, rival, seeds, panels, grid, context) for rival in RIVALS]
    plain = [p for p in panels if not p.startswith("dna")]
    if plain:
        out.append(close_to_rf(n_trees, accuracy, plain, grid, context))
    dna = [p for p in panels if p.startswith("dna")]
    if dna:
        out.append(rf_best_on_dna(n_trees, seeds, dna[0], grid, context))
    return out


def above(n_trees: int, rival: str, seeds, panels: list[str], grid: list[float], context: str) -> Claim:
    """Mondrian increasing more accurate than ``rival`` at the end on every dataset, over seeds."""

    def beats(scale):
        d = paired_difference(seeds, increasing(scale), rival, ["dataset"]).loc[panels]
        wins = int((d["low"] > 0).sum())
        diffs = ", ".join(f"{p} {d.loc[p, 'mean']:+.4f}" for p in panels)
        return wins == len(panels), f"better on {wins} of {len(panels)} (mean difference {diffs})"

    return over_scales(
        f"{n_trees} trees: Mondrian increasing is more accurate than {rival} at the end, on every dataset "
        f"(lam_n = n^(1/(d+2)) as printed; {BETTER})",
        beats,
        grid,
        context,
        f"above_{RIVALS[rival]}_{n_trees}_trees",
    )


def close_to_rf(n_trees: int, accuracy, plain: list[str], grid: list[float], context: str) -> Claim:
    """Mondrian increasing within CLOSE of Breiman RF at the end on most datasets other than dna."""
    needed = len(plain) // 2 + 1

    def close(scale):
        gaps = accuracy.loc[plain, "Breiman RF"] - accuracy.loc[plain, increasing(scale)]
        within = int((gaps <= CLOSE).sum())
        return within >= needed, f"within on {within}: " + ", ".join(
            f"{p} RF - increasing = {gaps[p]:+.4f}" for p in plain
        )

    return over_scales(
        f"{n_trees} trees: Mondrian increasing is almost as accurate as Breiman RF (within {CLOSE}) on "
        f"most datasets other than dna (>= {needed} of {len(plain)}; lam_n = n^(1/(d+2)) as printed)",
        close,
        grid,
        context,
        f"close_to_rf_{n_trees}_trees",
    )


def rf_best_on_dna(n_trees: int, seeds, dna: str, grid: list[float], context: str) -> Claim:
    """On dna, Breiman RF more accurate than every other method at the end, over seeds."""

    def rf_best(scale):
        lows = {
            m: paired_difference(seeds, "Breiman RF", m, ["dataset"]).loc[dna, "low"]
            for m in ("ERT-1", FIXED, increasing(scale))
        }
        return all(low > 0 for low in lows.values()), "RF minus " + ", ".join(
            f"{m}: lower bound {low:+.4f}" for m, low in lows.items()
        )

    return over_scales(
        f"{n_trees} trees: on dna, Breiman RF is the most accurate (irrelevant features; {BETTER})",
        rf_best,
        grid,
        context,
        f"rf_best_on_dna_{n_trees}_trees",
    )
