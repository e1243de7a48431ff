"""amf-fig9: decision functions of AMF, MF, RF and ET on three 2-D toy problems, with the test AUC in each panel."""

from __future__ import annotations

import matplotlib.pyplot as plt

from experiments.figures import Claim
from experiments.figures.decisions import decision_grid, draw_decision, draw_points, roughness, train_points

MODELS = ("AMF", "MF", "RF", "ERT")
TITLES = {"ERT": "ET"}  # the paper calls extra trees ET


def _table(runs) -> dict[tuple[str, str], object]:
    """(dataset, model name) -> run."""
    return {(r.trial["dataset"]["name"], r.trial["model"]["name"]): r for r in runs}


def _datasets(runs) -> list[str]:
    return list(dict.fromkeys(r.trial["dataset"]["name"] for r in runs))


def _ordered(names) -> list[str]:
    """Model names in the paper's order (AMF, MF, RF, ET), any other after them."""
    names = set(names)
    return [m for m in MODELS if m in names] + sorted(names - set(MODELS))


def _models(runs) -> list[str]:
    return _ordered(r.trial["model"]["name"] for r in runs)


def _of(values: dict, dataset: str) -> dict[str, float]:
    """The values of one dataset by model (in the figure's order), named as in the paper."""
    return {TITLES.get(m, m): values[dataset, m] for m in _ordered(m for d, m in values if d == dataset)}


def plot(runs, spec) -> plt.Figure:
    table, datasets, models = _table(runs), _datasets(runs), _models(runs)
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
    n_trees = {r.trial["model"]["estimator"]["n_estimators"] for r in runs}
    fig.colorbar(image, ax=axes.ravel().tolist(), fraction=0.015, label="P(class 1)")
    fig.suptitle(f"decision functions, {'/'.join(map(str, sorted(n_trees)))} trees each", fontsize=10, y=0.96)
    return fig


def claims(runs, spec) -> list[Claim]:
    table, datasets = _table(runs), _datasets(runs)
    auc = {key: run.metrics["auc"] for key, run in table.items()}
    rough = {key: roughness(decision_grid(run)[2]) for key, run in table.items()}
    both = [d for d in datasets if (d, "AMF") in auc and (d, "MF") in auc]
    amf_beats_mf = [d for d in both if auc[d, "AMF"] >= auc[d, "MF"]]
    smoothest = [d for d in datasets if (d, "AMF") in rough and rough[d, "AMF"] == min(_of(rough, d).values())]
    aucs = "; ".join(f"{d}: " + ", ".join(f"{m} {v:.3f}" for m, v in _of(auc, d).items()) for d in datasets)
    roughs = "; ".join(f"{d}: " + ", ".join(f"{m} {v:.4f}" for m, v in _of(rough, d).items()) for d in datasets)
    return [
        Claim(
            "AMF's test AUC is at least MF's on most toy datasets",
            2 * len(amf_beats_mf) > len(both),
            f"{len(amf_beats_mf)} of {len(both)}; AUC {aucs}",
        ),
        Claim(
            "AMF's decision function is the smoothest of the four on every toy dataset",
            len(smoothest) == len(datasets),
            f"mean |change of P| between neighbouring grid nodes, {roughs}",
        ),
    ]
