"""What the BSP figures share: the paper's names of its five methods, their order and colours, the mean with its 1.96
standard-error half-width over replicates (the paper's error bars), the test of "better" over replicates, and the
panels of a measure against a setting, one line per method."""

from __future__ import annotations

import pandas as pd
from matplotlib.ticker import NullFormatter, ScalarFormatter

from experiments.figures.tables import CONFIDENCE, paired_difference

LAW = "BSP (law)"  # the online BSP forest with the leaf rule that keeps the batch law, beside the text's "BSP"
METHODS = ("RF", "ERT", "MF fixed", "MF increasing", "BSP", LAW)
COLORS = dict(zip(METHODS, ("tab:green", "tab:olive", "tab:blue", "tab:purple", "tab:red", "tab:orange"), strict=True))
ONLINE = ("MF fixed", "MF increasing", "BSP")  # the paper's online methods (its claims are about these)
MONDRIAN = ("MF fixed", "MF increasing")
BATCH = ("RF", "ERT")
# The project's model names -> the paper's: an online Mondrian forest with lifetime inf (LRT14's, or the closest
# configuration to scikit-garden's, which the paper ran) is BSP's "MF fixed".
_PAPER_NAMES = {"MF": "MF fixed", "MF (skgarden-like)": "MF fixed", "Mondrian increasing": "MF increasing"}
# How "better" is tested where the paper says it, as the other figures of the project test it.
BETTER = (
    f"over replicates: the one-sided {CONFIDENCE:.0%} lower confidence bound of the mean per-replicate margin is > 0"
)


def method(run) -> str:
    """The paper's name of a run's method; the online BSP forest under the law's leaf rule is told apart."""
    if run.model == "BSP" and run.estimator.get("leaf_sampling") == "law":
        return LAW
    return _PAPER_NAMES.get(run.model, run.model)


def tree_counts(runs) -> str:
    """The forests' numbers of trees, as a title gives them ("100", or "10/100"); a grid search's inner forest is
    not counted."""
    counts = sorted({run.trees for run in runs} - {None, 0})
    return "/".join(map(str, counts))


def mean_ci(long: pd.DataFrame, keys: list[str], columns: list[str]) -> pd.DataFrame:
    """Per ``keys``: the mean of ``columns`` over the seeds, their 1.96 SE (column ``<name>_ci``, 0 for one seed)
    and the number of seeds."""
    grouped = long.groupby(keys)
    out = grouped[columns].mean().join((grouped[columns].sem().fillna(0.0) * 1.96).add_suffix("_ci"))
    out["seeds"] = grouped["seed"].nunique()
    return out.reset_index()


def margins(long: pd.DataFrame, value: str, better: str, worse: str, by: list[str], lower: bool = True) -> pd.DataFrame:
    """Per group of ``by`` in per-replicate rows (method, seed, ``value``, ...): by how much ``better`` beats
    ``worse`` on ``value`` on the same replicate (a lower value when ``lower``: an RMSE, a time; else a higher one: an
    accuracy): the mean margin over replicates, its one-sided lower confidence bound (``low``, nan under 2
    replicates) and the replicates (``n``). ``better`` is better where ``low`` > 0 (``BETTER``)."""
    above, below = (worse, better) if lower else (better, worse)
    return paired_difference(long, above, below, by, value)


def beats_at_every(
    long: pd.DataFrame, value: str, better: str, worse: str, by: str, lower: bool = True, label=None
) -> tuple[bool, str]:
    """Whether ``better`` beats ``worse`` on ``value`` at every value of ``by`` (``BETTER``; see ``margins``), and
    the measured text: the two means and the margin's lower bound at each (``label(at)`` names a value of ``by``)."""
    found = margins(long, value, better, worse, [by], lower)
    means = long.groupby([by, "method"])[value].mean()
    label = label or (lambda at: f"{by}={at:g}")
    text = "; ".join(
        f"{label(at)}: {means[at, better]:.3f} vs {means[at, worse]:.3f} (bound {row['low']:+.3f})"
        for at, row in found.iterrows()
    )
    return len(found) > 0 and bool((found["low"] > 0).all()), f"{better} vs {worse} (the margin's lower bound): {text}"


def draw_methods(ax, table: pd.DataFrame, x: str, y: str) -> None:
    """One line per method of ``table`` (as ``mean_ci`` gives it): ``y`` against ``x``, with its 1.96 SE bars."""
    for name in METHODS:
        line = table[table["method"] == name]
        if not line.empty:
            ax.errorbar(line[x], line[y], yerr=line[f"{y}_ci"], marker="o", ms=3, capsize=2, color=COLORS[name],
                        label=name)  # fmt: skip
    ax.grid(alpha=0.3)


def size_axis(ax, sizes) -> None:
    """A log axis of training sizes, each size a labelled tick."""
    ax.set_xscale("log")
    ax.set_xticks(sorted(sizes))
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
