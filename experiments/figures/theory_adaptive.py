"""theory-adaptive: MGS20's adaptive lifetime (half split, ERM, STAR step) against the best lifetime of its grid in
hindsight, over n, for regression functions of several smoothness levels."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from experiments.figures import Claim

FACTOR = 1.25  # "nearly as good as the oracle": the adaptive risk at most 25% above the best grid lifetime's


def function_label(run) -> str:
    load = run.trial["dataset"]["load"]
    d = int(load["n_features"])
    if run.trial["dataset"]["name"] == "smooth":
        return f"smooth (s = 2), d = {d}"
    return f"Hölder beta = {float(load['beta']):g}, d = {d}"


def long_table(runs) -> pd.DataFrame:
    frames = []
    for run in runs:
        frame = run.curves[["step", "risk", "oracle_risk", "oracle_lifetime", "chosen_lifetime"]].copy()
        frame["function"] = function_label(run)
        frame["seed"] = run.trial.get("seed", 0)
        frames.append(frame.rename(columns={"step": "n"}))
    return pd.concat(frames, ignore_index=True)


def geometric_means(long: pd.DataFrame) -> pd.DataFrame:
    logs = np.log(long[["risk", "oracle_risk"]]).groupby([long["function"], long["n"]]).mean()
    return np.exp(logs).reset_index()


def plot(runs, spec) -> plt.Figure:
    long = long_table(runs)
    means = geometric_means(long)
    functions = list(dict.fromkeys(long["function"]))
    fig, axes = plt.subplots(1, len(functions), figsize=(max(4.2 * len(functions), 7.0), 3.9), squeeze=False)
    for ax, function in zip(axes[0], functions, strict=True):
        part, mean = long[long["function"] == function], means[means["function"] == function]
        for column, color, name in (
            ("risk", "C0", "adaptive (STAR)"),
            ("oracle_risk", "C3", "best grid lifetime in hindsight"),
        ):
            ax.plot(mean["n"], mean[column], "o-", color=color, ms=4, lw=1.3, label=name)
            ax.scatter(part["n"], part[column], color=color, s=5, alpha=0.3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(function, fontsize=10)
        ax.set_xlabel("n", fontsize=9)
        ax.grid(alpha=0.3, which="both", lw=0.5)
        ax.legend(fontsize=8, loc="lower left")
        ax.tick_params(labelsize=8)
    axes[0, 0].set_ylabel("excess risk E(f_hat(X) - f(X))^2", fontsize=9)
    n_seeds = int(long["seed"].nunique())
    fig.suptitle(
        "MGS20's adaptive lifetime (forest of 10 purely random Mondrian trees on half the data, grid 1, 2, 4, ..., "
        "ERM then STAR on the other half)\nagainst the best lifetime of the grid in hindsight; noise sd 0.1; "
        f"{n_seeds} seeds (dots), geometric mean (lines)",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.88))
    return fig


def claims(runs, spec) -> list[Claim]:
    means = geometric_means(long_table(runs))
    out = []
    for function, part in means.groupby("function", sort=False):
        ratio = (part["risk"] / part["oracle_risk"]).to_numpy()
        out.append(
            Claim(
                f"{function}: at the largest n, the adaptive forest's risk is within {FACTOR - 1:.0%} of that of the "
                "best lifetime of its grid in hindsight (the same forest; geometric means over seeds)",
                bool(ratio[-1] <= FACTOR),
                "adaptive / best grid lifetime: "
                + ", ".join(f"n={n}: {r:.3f}" for n, r in zip(part["n"], ratio, strict=True)),
            )
        )
    return out
