"""amf-fig9: decision functions of AMF, MF, RF and ET on three 2-D toy problems, with the test AUC in each panel.

The panels draw one seed; the claims read every seed: "AMF, thanks to aggregation, leads to a smooth decision
function, hence with a better generalization properties", each tested over seeds against each other method.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from experiments.figures import Claim, Drawing
from experiments.figures.decisions import decision_grid, draw_decision, draw_points, roughness, train_points
from experiments.figures.tables import CONFIDENCE, paired_difference

MODELS = ("AMF", "MF", "RF", "ERT")
TITLES = {"ERT": "ET"}  # the paper calls extra trees ET
OVER_SEEDS = f"the one-sided {CONFIDENCE:.0%} bound of the mean per-seed difference"


def _ordered(names) -> list[str]:
    """Model names in the paper's order (AMF, MF, RF, ET), any other after them."""
    names = set(names)
    return [m for m in MODELS if m in names] + sorted(names - set(MODELS))


def _datasets(runs) -> list[str]:
    """The runs' datasets, in the order of the grid."""
    return list(dict.fromkeys(r.dataset for r in runs))


def drawn(runs) -> dict[tuple[str, str], object]:
    """(dataset, model name) -> the run the panels draw: the smallest seed's."""
    first = min(r.seed for r in runs)
    return {(r.dataset, r.model): r for r in runs if r.seed == first}


def per_seed(runs) -> pd.DataFrame:
    """dataset, method, seed, test AUC and roughness of the decision function (mean |change of P| between
    neighbouring grid nodes), one row per run."""
    rows = [
        {"dataset": r.dataset, "method": r.model, "seed": r.seed, "auc": r.metrics["auc"],
         "roughness": roughness(decision_grid(r)[2])}
        for r in runs
    ]  # fmt: skip
    return pd.DataFrame(rows)


def plot(runs, spec) -> Drawing:
    table, datasets, models = drawn(runs), _datasets(runs), _ordered(r.model for r in runs)
    fig, axes = plt.subplots(
        len(datasets), len(models) + 1, figsize=(2.3 * (len(models) + 1), 2.3 * len(datasets)), squeeze=False
    )
    for row, dataset in zip(axes, datasets, strict=True):
        first = next(table[dataset, m] for m in models if (dataset, m) in table)
        xx, yy, _ = decision_grid(first)
        draw_points(row[0], train_points(first))
        row[0].set(xlim=(xx.min(), xx.max()), ylim=(yy.min(), yy.max()), xticks=[], yticks=[])
        row[0].set_ylabel(dataset)
        for ax, model in zip(row[1:], models, strict=True):
            run = table.get((dataset, model))
            if run is None:
                ax.axis("off")
                continue
            image = draw_decision(ax, *decision_grid(run), auc=run.metrics["auc"])
    for ax, title in zip(axes[0], ["training data", *(TITLES.get(m, m) for m in models)], strict=True):
        ax.set_title(title, fontsize=10)
    n_trees = sorted({r.trees for r in runs})
    seeds = sorted({r.seed for r in runs})
    fig.colorbar(image, ax=axes.ravel().tolist(), fraction=0.015, label="P(class 1)")
    fig.suptitle(
        f"decision functions, {'/'.join(map(str, n_trees))} trees each; seed {seeds[0]} drawn of {len(seeds)}",
        fontsize=10,
        y=0.96,
    )
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    frame = per_seed(runs).assign(smoothness=lambda f: -f["roughness"])
    datasets = _datasets(runs)
    rivals = [m for m in _ordered(frame["method"]) if m != "AMF"]
    return [smoothest(frame, datasets, rivals), generalizes_better(frame, datasets, rivals)]


def above_every_rival(frame: pd.DataFrame, datasets: list[str], rivals: list[str], value: str):
    """The datasets where AMF's ``value`` is above every rival's over seeds (the lower bound of the paired
    difference AMF - rival > 0), and the differences with their bounds in words."""
    differences = {r: paired_difference(frame, "AMF", r, ["dataset"], value=value).reindex(datasets) for r in rivals}
    holding = [d for d in datasets if all(differences[r].loc[d, "low"] > 0 for r in rivals)]
    details = "; ".join(
        f"{d}: " + ", ".join(
            f"{TITLES.get(r, r)} {differences[r].loc[d, 'mean']:+.4f} (bound {differences[r].loc[d, 'low']:+.4f})"
            for r in rivals
        )
        for d in datasets
    )  # fmt: skip
    return holding, details


def smoothest(frame: pd.DataFrame, datasets: list[str], rivals: list[str]) -> Claim:
    """AMF's decision function smoother than every other method's on every dataset, over seeds."""
    holding, details = above_every_rival(frame, datasets, rivals, "smoothness")
    return Claim(
        "AMF's decision function is the smoothest of the four on every toy dataset (mean |change of P| between "
        f"neighbouring grid nodes lower than each other method's: {OVER_SEEDS}, other - AMF, is > 0)",
        len(holding) == len(datasets),
        f"smoothest on {len(holding)} of {len(datasets)} over {frame['seed'].nunique()} seeds; other - AMF: {details}",
        key="smoothest",
    )


def generalizes_better(frame: pd.DataFrame, datasets: list[str], rivals: list[str]) -> Claim:
    """AMF's test AUC higher than every other method's on every dataset, over seeds."""
    holding, details = above_every_rival(frame, datasets, rivals, "auc")
    means = frame.groupby(["dataset", "method"])["auc"].mean()
    listing = "; ".join(
        f"{d}: " + ", ".join(f"{TITLES.get(m, m)} {means[d, m]:.4f}" for m in _ordered(frame["method"]))
        for d in datasets
    )
    return Claim(
        "AMF generalizes better: its test AUC is higher than each other method's on every toy dataset (higher: "
        f"{OVER_SEEDS}, AMF - other, is > 0)",
        len(holding) == len(datasets),
        f"higher on {len(holding)} of {len(datasets)} over {frame['seed'].nunique()} seeds; AMF - other: {details}. "
        f"Mean test AUC: {listing}",
        key="better_generalization",
    )
