"""LRT16's methods and their predictive distributions, as lrt16-fig1 and lrt16-table1 read them from runs of the
predictive protocol: names and colours, one row of scores per run, the calibration curves, and the comparisons over
seeds (a lower NLPD or calibration error on every seed)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.figures.quantifiers import Cases

MF, GP, RF, ERT, CONFORMAL = "MF", "GP", "RF", "ERT", "RF split conformal"
# MF's predictive at x branching off above a node read as the exact law of x's new leaf (the library's
# branch_law="exact"), beside the authors' code's law that MF runs: shown, never in a claim
MF_EXACT = "MF (exact branching)"
METHODS = (MF, MF_EXACT, GP, RF, ERT, CONFORMAL)
FORESTS = (RF, ERT)  # the decision forests LRT16 sets MF against, their uncertainty the spread across trees
COLORS = {
    MF: "tab:blue",
    MF_EXACT: "tab:cyan",
    GP: "tab:green",
    RF: "tab:red",
    ERT: "tab:orange",
    CONFORMAL: "tab:purple",
}
# "Better" over seeds, paired by seed: on every seed (a sign test, one-sided: p = 2^-n under no difference for n
# seeds). A Student bound on the mean margin, the project's usual test, fails on NLPDs, which are heavy-tailed: a
# forest whose trees agree far from the data scores 1e6 on one seed and 5 on the next.
BETTER = "on every seed (paired by seed: a one-sided sign test)"
NOMINAL = 0.95  # the interval level the tables show


def long_table(runs) -> pd.DataFrame:
    """dataset, method, seed and the protocol's summary (rmse, nlpd, coverage_<c>, width_<c>, ...): a row per run."""
    return pd.DataFrame({"dataset": run.dataset, "method": run.model, "seed": run.seed, **run.metrics} for run in runs)


def calibration(runs) -> pd.DataFrame:
    """dataset, method, seed, level, coverage, width: each run's calibration curve."""
    parts = [
        run.tables["calibration"].assign(dataset=run.dataset, method=run.model, seed=run.seed)
        for run in runs
        if "calibration" in run.tables
    ]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def calibration_error(curves: pd.DataFrame) -> pd.DataFrame:
    """dataset, method, seed, calibration_error: the mean over levels of |coverage - level| of each run."""
    gap = (curves["coverage"] - curves["level"]).abs()
    frame = curves.assign(calibration_error=gap)
    return frame.groupby(["dataset", "method", "seed"], as_index=False)["calibration_error"].mean()


def present(long: pd.DataFrame, names=METHODS) -> list[str]:
    """The methods of ``names`` the runs hold, in the figures' order."""
    return [m for m in names if m in set(long["method"])]


def lower_cases(long: pd.DataFrame, value: str, better: str, rivals: list[str]) -> tuple[Cases, str]:
    """Whether ``better`` has a lower ``value`` than each rival (``BETTER``): the cases (margin: the least excess
    of the rival over ``better`` on a seed, > 0 when it holds on every seed) and the measured text (the means, the
    least margins)."""
    wide = long.pivot_table(index="seed", columns="method", values=value)
    means = long.groupby("method")[value].mean()
    cases, labels, parts = {}, {}, []
    for rival in rivals:
        excess = (wide[rival] - wide[better]).dropna()
        case = f"{better} vs {rival}"
        cases[case] = float(excess.min()) if len(excess) else float("nan")
        labels[case] = f"{rival} - {better} over {len(excess)} seeds, least"
        parts.append(f"{rival} {means[rival]:.4g} (least margin {cases[case]:+.4g})")
    measured = f"{value}, mean over seeds: {better} {means[better]:.4g} vs " + "; ".join(parts)
    return Cases(cases, labels=labels), measured


def summary(long: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Per dataset and method: the mean of ``columns`` over seeds, their 1.96 SE (``<name>_ci``) and the seeds."""
    grouped = long.groupby(["dataset", "method"])
    out = grouped[columns].mean().join((grouped[columns].sem().fillna(0.0) * 1.96).add_suffix("_ci"))
    out["seeds"] = grouped["seed"].nunique()
    return out.reset_index()


def cell(mean: float, ci: float, spec: str = ".3g") -> str:
    """'mean ± ci' ('' for nan: a score the method has not, the conformal model's NLPD)."""
    return "" if np.isnan(mean) else f"{mean:{spec}} ± {ci:{spec}}"
