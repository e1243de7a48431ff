"""theory-adaptive: MGS20's adaptive lifetime (half split, ERM, STAR step) against the best lifetime of its grid in
hindsight, over n, for regression functions of several smoothness levels."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from experiments.figures import Claim, Drawing
from experiments.figures.theory_family import geometric_mean, log_axes, long_table, number_key

FACTOR = 1.25  # "nearly as good as the oracle": the adaptive risk at most 25% above the best grid lifetime's
RISKS = ("risk", "oracle_risk")


def function_label(run) -> str:
    d = int(run.data_settings["n_features"])
    if run.dataset == "smooth":
        return f"smooth (s = 2), d = {d}"
    return f"Hölder beta = {float(run.data_settings['beta']):g}, d = {d}"


def function_key(run) -> str:
    """The regression function as the claims' keys spell it: "hoelder_beta0p5_d2", "smooth_d2"."""
    d = int(run.data_settings["n_features"])
    if run.dataset == "smooth":
        return f"smooth_d{d}"
    return f"hoelder_beta{number_key(float(run.data_settings['beta']))}_d{d}"


def geometric_means(long: pd.DataFrame) -> pd.DataFrame:
    """Per function (variant) and n: the geometric means over seeds of the adaptive and the oracle risks."""
    return pd.concat([geometric_mean(long, ["variant", "n"], risk) for risk in RISKS], axis=1).reset_index()


def plot(runs, spec) -> Drawing:
    long = long_table(runs, function_label, RISKS)
    means = geometric_means(long)
    functions = list(dict.fromkeys(long["variant"]))
    fig, axes = plt.subplots(1, len(functions), figsize=(max(4.2 * len(functions), 7.0), 3.9), squeeze=False)
    for ax, function in zip(axes[0], functions, strict=True):
        part, mean = long[long["variant"] == function], means[means["variant"] == function]
        for column, color, name in (
            ("risk", "C0", "adaptive (STAR)"),
            ("oracle_risk", "C3", "best grid lifetime in hindsight"),
        ):
            ax.plot(mean["n"], mean[column], "o-", color=color, ms=4, lw=1.3, label=name)
            ax.scatter(part["n"], part[column], color=color, s=5, alpha=0.3)
        log_axes(ax, function)
        ax.legend(fontsize=8, loc="lower left")
    axes[0, 0].set_ylabel("excess risk E(f_hat(X) - f(X))^2", fontsize=9)
    n_seeds = int(long["seed"].nunique())
    fig.suptitle(
        "MGS20's adaptive lifetime (forest of 10 purely random Mondrian trees on half the data, grid 1, 2, 4, ..., "
        "ERM then STAR on the other half)\nagainst the best lifetime of the grid in hindsight; noise sd 0.1; "
        f"{n_seeds} seeds (dots), geometric mean (lines)",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.88))
    return Drawing(fig)


def claims(runs, spec) -> list[Claim]:
    """Per function: at the largest n, the adaptive forest is nearly as good as the best lifetime of its grid."""
    means = geometric_means(long_table(runs, function_label, RISKS))
    keys = {function_label(run): function_key(run) for run in runs}
    out = []
    for function, part in means.groupby("variant", sort=False):
        ratio = (part["risk"] / part["oracle_risk"]).to_numpy()
        out.append(
            Claim(
                f"{function}: at the largest n, the adaptive forest's risk is within {FACTOR - 1:.0%} of that of the "
                "best lifetime of its grid in hindsight (the same forest; geometric means over seeds)",
                bool(ratio[-1] <= FACTOR),
                "adaptive / best grid lifetime: "
                + ", ".join(f"n={n}: {r:.3f}" for n, r in zip(part["n"], ratio, strict=True)),
                key=f"near_oracle_{keys[function]}",
            )
        )
    return out
