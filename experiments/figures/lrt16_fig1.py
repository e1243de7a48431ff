"""lrt16-fig1: predictive mean and uncertainty of the Mondrian forest (LRT16's Gaussian prior), an exact GP, the
decision forests RF and ERT (their spread across trees) and a split-conformal RF, on a 1-D toy whose test inputs leave
the training range (two clusters with a gap, and beyond both ends): a panel per method (the training points, the test
labels, the predictive mean and its central interval at the highest level), and the test scores by region."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Claim, Drawing, Table, title_with_legend, unchecked
from experiments.figures.predictive_methods import (
    BETTER,
    COLORS,
    FORESTS,
    GP,
    MF,
    cell,
    long_table,
    lower_cases,
    present,
    summary,
)
from experiments.figures.quantifiers import Cases, quantified
from experiments.figures.tables import markdown_table
from experiments.protocols.predictive import gaussian_nlpd

# The toy's regions (datasets/gap_sine.yaml): the training clusters [0, 1/3] and [2/3, 1], the gap between them, and
# beyond the data on both sides.
REGIONS = ("clusters", "gap", "beyond")
GROWTH = 1.5  # "grows away from the data": the mean std beyond the data at least 1.5 times that in the clusters (ours)


def region(x: np.ndarray) -> np.ndarray:
    """The region of each test input."""
    beyond = (x < 0) | (x > 1)
    gap = (x > 1 / 3) & (x < 2 / 3)
    return np.where(beyond, "beyond", np.where(gap, "gap", "clusters"))


def region_table(runs) -> pd.DataFrame:
    """method, seed, region, mean_std, nlpd (Gaussian methods), coverage: each run's test grid by region."""
    rows = []
    for run in runs:
        t = run.tables["predictions"]
        where = region(t["x"].to_numpy())
        nlpd = gaussian_nlpd(t["target"].to_numpy(), t["mean"].to_numpy(), t["std"].to_numpy())
        inside = (t["lower"] <= t["target"]) & (t["target"] <= t["upper"])
        for name in REGIONS:
            mask = where == name
            rows.append({"method": run.model, "seed": run.seed, "region": name,
                         "mean_std": float(t["std"][mask].mean()), "nlpd": float(nlpd[mask].mean()),
                         "coverage": float(inside[mask].mean())})  # fmt: skip
    return pd.DataFrame(rows)


def plot(runs, spec) -> Drawing:
    long = long_table(runs)
    methods = present(long)
    first = min(run.seed for run in runs)
    shown = {run.model: run for run in runs if run.seed == first}
    fig, axes = plt.subplots(1, len(methods), figsize=(3.2 * len(methods), 3.4), squeeze=False, sharey=True)
    for ax, name in zip(axes[0], methods, strict=True):
        run = shown[name]
        train, test = run.tables["training"], run.tables["predictions"].sort_values("x")
        ax.scatter(train["x"], train["target"], s=6, color="black", label="training data")
        ax.scatter(test["x"], test["target"], s=3, color="0.7", label="test labels")
        ax.plot(test["x"], test["mean"], color=COLORS[name], label="predictive mean")
        ax.fill_between(test["x"], test["lower"], test["upper"], color=COLORS[name], alpha=0.25,
                        label="central interval")  # fmt: skip
        ax.axvspan(1 / 3, 2 / 3, color="0.9", zorder=0)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("x")
        ax.set_ylim(-4, 4)
    axes[0][0].set_ylabel("y")
    level = f"{100 * max(run.tables['calibration']['level']):g}%"
    title = (
        f"LRT16 Fig. 1 (our toy): predictive mean and central {level} interval, seed {first}; "
        "the gap shaded, test inputs beyond [0, 1] on both sides"
    )
    title_with_legend(fig, axes[0][0], title)
    regions = region_table(runs)
    return Drawing(fig, {"": Table(scores(long, regions), markdown(long, regions))})


def scores(long: pd.DataFrame, regions: pd.DataFrame) -> pd.DataFrame:
    """Per method: the mean over seeds of the test scores, and of the mean std and coverage in each region."""
    overall = summary(long, ["rmse", "nlpd", "coverage_95", "width_95"])
    by_region = regions.groupby(["method", "region"])[["mean_std", "coverage", "nlpd"]].mean().unstack("region")
    by_region.columns = [f"{value}_{where}" for value, where in by_region.columns]
    return overall.merge(by_region.reset_index(), on="method", how="left")


def markdown(long: pd.DataFrame, regions: pd.DataFrame) -> str:
    table = scores(long, regions)
    rows = []
    for name in present(long):
        r = table[table["method"] == name].iloc[0]
        rows.append({"method": name, "RMSE": cell(r["rmse"], r["rmse_ci"]), "NLPD": cell(r["nlpd"], r["nlpd_ci"]),
                     "95% coverage": cell(r["coverage_95"], r["coverage_95_ci"]),
                     **{f"mean std ({w})": f"{r[f'mean_std_{w}']:.3g}" for w in REGIONS}})  # fmt: skip
    seeds = int(table["seeds"].max())
    return markdown_table(pd.DataFrame(rows)) + (
        f"\nTest scores on the toy's grid, mean ± 1.96 SE over {seeds} seeds; mean predictive std by region "
        "(clusters: the training inputs' range; gap: between the clusters; beyond: outside [0, 1]). The conformal "
        "model has no density (no NLPD nor std).\n"
    )


WHERE_ABSTRACT = "LRT16 Abstract"
WHERE_INTRO = "LRT16 Sec. 1"
CALIBRATED = (
    "Through a combination of illustrative examples, real-world large-scale datasets, and Bayesian optimization "
    "benchmarks, we demonstrate that Mondrian forests outperform approximate GPs on large-scale regression tasks and "
    "deliver better-calibrated uncertainty assessments than decision-forest-based methods."
)
NOT_AS_GOOD = (
    "While decision forests usually yield good predictions (as measured by, e.g., mean squared error or "
    "classification accuracy), the uncertainty estimates of decision forests are not as good as those produced by "
    "GPs."
)


def claims(runs, spec) -> list[Claim]:
    """On the toy: the decision forests' NLPD above the GP's (Sec. 1); MF's NLPD below each decision forest's, and
    MF's uncertainty growing away from the data where theirs does not (the abstract's "better-calibrated ... than
    decision-forest-based methods" on its illustrative example)."""
    long = long_table(runs)
    methods = set(long["method"])
    forests = [f for f in FORESTS if f in methods]
    out = []
    if GP in methods and forests:
        cases, measured = lower_cases(long, "nlpd", GP, forests)
        out += quantified(f"gap_sine: the GP's test NLPD is lower than each decision forest's ({', '.join(forests)}, "
                          f"their spread across trees; {BETTER})", cases, measured, key="gp_beats_forests_nlpd",
                          quote=NOT_AS_GOOD, where=WHERE_INTRO)  # fmt: skip
    else:
        out.append(unchecked("gap_sine: the GP's test NLPD is lower than each decision forest's",
                             "not checked: the runs hold no GP or no decision forest", key="gp_beats_forests_nlpd",
                             quote=NOT_AS_GOOD, where=WHERE_INTRO))  # fmt: skip
    if MF in methods and forests:
        cases, measured = lower_cases(long, "nlpd", MF, forests)
        out += quantified(f"gap_sine: MF's test NLPD is lower than each decision forest's ({', '.join(forests)}; "
                          f"{BETTER})", cases, measured, key="mf_beats_forests_nlpd", quote=CALIBRATED,
                          where=WHERE_ABSTRACT)  # fmt: skip
        out.append(grows_away(region_table(runs), forests))
    else:
        for key in ("mf_beats_forests_nlpd", "mf_std_grows_away"):
            out.append(unchecked(f"gap_sine: {key.replace('_', ' ')}", "not checked: the runs hold no MF or no "
                                 "decision forest", key=key, quote=CALIBRATED, where=WHERE_ABSTRACT))  # fmt: skip
    return out


def grows_away(regions: pd.DataFrame, forests: list[str]) -> Claim:
    """On every seed: MF's mean std beyond the data is at least GROWTH times that in the clusters, each forest's is
    not (this project's reading of the abstract's "better-calibrated" on its illustrative example)."""
    wide = regions.pivot_table(index=["method", "seed"], columns="region", values="mean_std")
    ratio = (wide["beyond"] / wide["clusters"]).rename("ratio").reset_index()
    margins, labels = {}, {}
    for name in [MF, *forests]:
        part = ratio[ratio["method"] == name]
        worst = part["ratio"].min() if name == MF else part["ratio"].max()
        margins[name] = float(worst - GROWTH if name == MF else GROWTH - worst)
        labels[name] = f"{'least' if name == MF else 'largest'} ratio over seeds {worst:.3g}, vs {GROWTH:g}:"
    cases = Cases(margins, labels=labels, digits=3)
    return quantified(f"gap_sine: MF's mean predictive std beyond the data (x outside [0, 1]) is at least "
                      f"{GROWTH:g} times that within the training clusters on every seed, each decision forest's "
                      f"({', '.join(forests)}) is not ({GROWTH:g}: this project's threshold)", cases,
                      "; ".join(cases.margin(c) for c in cases.margins), key="mf_std_grows_away", quote=CALIBRATED,
                      where=WHERE_ABSTRACT, values={"growth": GROWTH})[0]  # fmt: skip
