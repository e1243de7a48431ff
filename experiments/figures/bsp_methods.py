"""What the BSP figures share: the paper's names of its five methods, their order and colours, and the mean with
its 1.96 standard-error half-width over replicates (the paper's error bars)."""

from __future__ import annotations

import pandas as pd

LAW = "BSP (law)"  # the online BSP forest with the leaf rule that keeps the batch law, beside the text's "BSP"
METHODS = ("RF", "ERT", "MF fixed", "MF increasing", "BSP", LAW)
COLORS = dict(zip(METHODS, ("tab:green", "tab:olive", "tab:blue", "tab:purple", "tab:red", "tab:orange"), strict=True))
ONLINE = ("MF fixed", "MF increasing", "BSP")  # the paper's online methods (its claims are about these)
# The project's model names -> the paper's: an online Mondrian forest with lifetime inf (LRT14's, or the closest
# configuration to scikit-garden's, which the paper ran) is BSP's "MF fixed".
_PAPER_NAMES = {"MF": "MF fixed", "MF (skgarden-like)": "MF fixed", "Mondrian increasing": "MF increasing"}


def method(run) -> str:
    """The paper's name of a run's method; the online BSP forest under the law's leaf rule is told apart."""
    name = run.trial["model"]["name"]
    if name == "BSP" and run.trial["model"]["estimator"].get("leaf_sampling") == "law":
        return LAW
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
