"""What the BSP figures share: the paper's names of its five methods, their order and colours, and the mean with
its 1.96 standard-error half-width over replicates (the paper's error bars)."""

from __future__ import annotations

import pandas as pd

METHODS = ("RF", "ERT", "MF fixed", "MF increasing", "BSP")
COLORS = dict(zip(METHODS, ("tab:green", "tab:olive", "tab:blue", "tab:purple", "tab:red"), strict=True))
ONLINE = ("MF fixed", "MF increasing", "BSP")
# The project's model names -> the paper's: LRT14's forest (lifetime inf) is BSP's "MF fixed".
_PAPER_NAMES = {"MF": "MF fixed", "Mondrian increasing": "MF increasing"}


def method(run) -> str:
    """The paper's name of a run's method."""
    name = run.trial["model"]["name"]
    return _PAPER_NAMES.get(name, name)


def tree_counts(runs) -> str:
    """The forests' numbers of trees, as a title gives them ("100", or "10/100"); a grid search's inner forest is
    not counted."""
    counts = sorted({int(r.trial["model"]["estimator"].get("n_estimators", 0)) for r in runs} - {0})
    return "/".join(map(str, counts))


def mean_ci(long: pd.DataFrame, keys: list[str], columns: list[str]) -> pd.DataFrame:
    """Per ``keys``: the mean of ``columns`` over the seeds, their 1.96 SE (column ``<name>_ci``, 0 for one seed)
    and the number of seeds."""
    grouped = long.groupby(keys)
    out = grouped[columns].mean().join((grouped[columns].sem().fillna(0.0) * 1.96).add_suffix("_ci"))
    out["seeds"] = grouped["seed"].nunique()
    return out.reset_index()
