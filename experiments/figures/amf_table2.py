"""amf-table2: AMF's complexity (its Table 2) measured on the library's AMFClassifier and AMFRegressor.

From the ``complexity`` protocol's curves (one run per model and seed, one tree): the time per update (AmfUpdate) and
per prediction (AmfPredict) against n, the depth of the path they walk (Remark 2: an update costs twice the depth;
Prop. 2: the depth is Theta(log n)) with Prop. 2's bound, the time against the depth, and the memory per point.
Each measured series is summarised by the exponent of n fitted on log-log axes (the median over seeds at each n):
Theta(log n) gives about 1 / ln n there (0.1 over 2^11..2^20), Theta(sqrt n) 0.5, Theta(n) 1. The table sets the
measured growth beside the table's orders.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.figures import Claim, Drawing, Table
from experiments.figures.tables import long_table, markdown_table

EXPONENT_TOLERANCE = 0.25  # nearer the exponent of log n (about 0.1) than that of sqrt n (0.5)
DEPTH_R2 = 0.98  # the depth linear in ln n
MEMORY_TOLERANCE = 0.05  # memory O(1) per update: the model's size at most linear in n
COLOURS = {"AMFClassifier": "tab:blue", "AMFRegressor": "tab:orange"}
MEASURED = ("update_us", "predict_us", "update_depth", "predict_depth", "model_bytes", "nodes")


def model_of(run) -> str:
    """The estimator's class name (both AMF models are named AMF in their configs)."""
    return run.estimator["_target_"].rsplit(".", 1)[-1]


def medians(runs) -> pd.DataFrame:
    """Per model and n (``step``): the median over seeds of every measured column."""
    frame = long_table(runs, lambda run: {"model": model_of(run), "seed": run.seed}, ["step", *MEASURED])
    return frame.groupby(["model", "step"], sort=True)[list(MEASURED)].median().reset_index()


def exponent(n: pd.Series, value: pd.Series) -> float:
    """The slope of log(value) against log(n): value ~ n^slope."""
    return float(np.polyfit(np.log(n), np.log(value), 1)[0])


def log_fit(n: pd.Series, value: pd.Series) -> tuple[float, float, float]:
    """value = a + b ln n by least squares: (a, b, R^2)."""
    b, a = np.polyfit(np.log(n), value, 1)
    residual = value - (a + b * np.log(n))
    return float(a), float(b), float(1 - residual.var() / value.var())


def prop2_bound(n) -> np.ndarray:
    """Prop. 2's bound on E[D_n(x)] with M = 1 (uniform features): log n / log 2 + 2."""
    return np.log2(n) + 2


def summary(part: pd.DataFrame) -> dict[str, float]:
    """One model's fitted numbers."""
    n = part["step"]
    a, b, r2 = log_fit(n, part["update_depth"])
    return {
        "update_exponent": exponent(n, part["update_us"]),
        "predict_exponent": exponent(n, part["predict_us"]),
        "depth_exponent": exponent(n, part["update_depth"]),
        "memory_exponent": exponent(n, part["model_bytes"]),
        "log_exponent": exponent(n, np.log(n)),
        "depth_intercept": a,
        "depth_slope": b,
        "depth_r2": r2,
    }


def per_unit(row: pd.Series, column: str) -> float:
    """The measured value as the table shows it: the model's size per point, the others as measured."""
    return row[column] / row["step"] if column == "model_bytes" else row[column]


def complexity_table(data: pd.DataFrame) -> pd.DataFrame:
    """Table 2's rows beside what was measured: per algorithm and model, the first and last n's numbers and the
    fitted exponent of n."""
    rows = []
    for model, part in data.groupby("model"):
        fit, first, last = summary(part), part.iloc[0], part.iloc[-1]
        n0, n1 = int(first["step"]), int(last["step"])
        for algorithm, order, column, unit, key in (
            ("AmfUpdate", "Θ(log n)", "update_us", "µs/point", "update_exponent"),
            ("AmfPredict", "Θ(log n)", "predict_us", "µs/point", "predict_exponent"),
            ("depth of an update (Prop. 2)", "Θ(log n), ≤ log2 n + 2", "update_depth", "nodes", "depth_exponent"),
            ("memory (exponent: the model's size)", "O(1) per update", "model_bytes", "bytes/point", "memory_exponent"),
        ):
            rows.append(
                {
                    "algorithm": algorithm,
                    "paper": order,
                    "model": model,
                    f"at n = {n0}": f"{per_unit(first, column):.3g} {unit}",
                    f"at n = {n1}": f"{per_unit(last, column):.3g} {unit}",
                    "exponent of n": round(fit[key], 3),
                    "Θ(log n) gives": round(fit["log_exponent"], 3),
                }
            )
    for algorithm, order in (("MondrianUpdate", "Θ(n)"), ("MondrianPredict", "Θ(log n)")):
        rows.append({"algorithm": algorithm, "paper": order, "model": "not measured (the original MF code)"})
    return pd.DataFrame(rows)


def draw_series(ax, data: pd.DataFrame, runs, column: str, ylabel: str, per_point: bool = False) -> None:
    """A measured column against n for each model: the seeds' values faint, their median joined."""
    seeds = long_table(runs, lambda run: {"model": model_of(run), "seed": run.seed}, ["step", column])
    for model, part in data.groupby("model"):
        mine = seeds[seeds["model"] == model]
        scale_all = mine["step"] if per_point else 1
        scale = part["step"] if per_point else 1
        ax.scatter(mine["step"], mine[column] / scale_all, s=8, alpha=0.3, color=COLOURS.get(model))
        ax.plot(part["step"], part[column] / scale, "o-", ms=4, color=COLOURS.get(model), label=model)
    ax.set_xscale("log", base=2)
    ax.set(xlabel="n (points seen)", ylabel=ylabel)
    ax.legend(fontsize=7)


def draw_depth(ax, data: pd.DataFrame, runs) -> None:
    draw_series(ax, data, runs, "update_depth", "depth of the leaf an update reaches")
    n = np.geomspace(data["step"].min(), data["step"].max(), 100)
    ax.plot(n, prop2_bound(n), "k--", lw=1, label="Prop. 2's bound $\\log_2 n + 2$ (M = 1)")
    ax.plot(n, 2 * np.log(n), "k:", lw=1, label="$2 \\ln n$")
    ax.legend(fontsize=7)


def draw_against_depth(ax, data: pd.DataFrame) -> None:
    for model, part in data.groupby("model"):
        ax.plot(part["update_depth"], part["update_us"], "o-", ms=4, color=COLOURS.get(model), label=model)
    ax.set(xlabel="depth of the leaf an update reaches", ylabel="µs per update")
    ax.legend(fontsize=7)
    ax.set_title("time per update against the depth (Remark 2)", fontsize=9)


def draw_table(ax, table: pd.DataFrame) -> None:
    """The table's orders and fitted exponents (the measured values at both ends are in the Markdown table)."""
    shown = table.fillna("").drop(columns=[c for c in table.columns if c.startswith("at n")])
    shown["algorithm"] = shown["algorithm"].str.replace(r" \(.*\)", "", regex=True)
    shown["model"] = shown["model"].str.replace(r" \(.*\)", "", regex=True)
    ax.axis("off")
    cells = ax.table(cellText=shown.to_numpy(), colLabels=list(shown.columns), loc="center", cellLoc="left")
    cells.auto_set_font_size(False)
    cells.set_fontsize(7)
    cells.auto_set_column_width(list(range(len(shown.columns))))
    cells.scale(1, 1.3)
    ax.set_title("Table 2's orders beside the fitted exponents of n", fontsize=9)


def plot(runs, spec) -> Drawing:
    data = medians(runs)
    table = complexity_table(data)
    fig, axes = plt.subplots(2, 3, figsize=(17, 9.5))
    draw_series(axes[0, 0], data, runs, "update_us", "µs per update (CPU, per point)")
    axes[0, 0].set_title("AmfUpdate: time per update against n", fontsize=9)
    draw_series(axes[0, 1], data, runs, "predict_us", "µs per prediction (CPU, per point)")
    axes[0, 1].set_title("AmfPredict: time per prediction against n", fontsize=9)
    draw_depth(axes[0, 2], data, runs)
    axes[0, 2].set_title("the depth an update walks (down and back up)", fontsize=9)
    draw_against_depth(axes[1, 0], data)
    draw_series(axes[1, 1], data, runs, "model_bytes", "bytes per point (pickled model / n)", per_point=True)
    axes[1, 1].set_title("memory per point against n", fontsize=9)
    draw_table(axes[1, 2], table)
    fig.suptitle(f"AMF Table 2: complexity of one tree of the library's AMF, {len({r.seed for r in runs})} seeds "
                 "(medians joined)", fontsize=10)  # fmt: skip
    fig.tight_layout()
    return Drawing(fig, {"": Table(table, markdown_table(table))})


def claims(runs, spec) -> list[Claim]:
    """Per model: the depth Theta(log n), the update and prediction times Theta(log n), memory O(1) per update
    (fitted exponents within the stated tolerances); for the regressor (every leaf holds one point, the tree of
    Prop. 2) the depth against Prop. 2's bound."""
    data = medians(runs)
    out = []
    for model, part in data.groupby("model"):
        fit, kind = summary(part), model.removeprefix("AMF").lower()
        n0, n1 = int(part["step"].iloc[0]), int(part["step"].iloc[-1])
        span = f"n = {n0}..{n1}"
        for algorithm, column, key in (("AmfUpdate", "update_us", "update"), ("AmfPredict", "predict_us", "predict")):
            value = fit[f"{key}_exponent"]
            out.append(
                Claim(
                    f"{model}: {algorithm}'s time per point grows no faster than log n: its fitted exponent of n is at "
                    f"most {EXPONENT_TOLERANCE} (log n gives {fit['log_exponent']:.2f} over {span}; sqrt n 0.5, n 1)",
                    value <= EXPONENT_TOLERANCE,
                    f"exponent {value:.3f}: {part[column].iloc[0]:.3g} -> {part[column].iloc[-1]:.3g} µs per point",
                    key=f"{key}_time_log_n_{kind}",
                    paper="Θ(log n)",
                )
            )
        out.append(
            Claim(
                f"{model}: the depth an update walks is Theta(log n): linear in ln n (R^2 >= {DEPTH_R2})",
                fit["depth_r2"] >= DEPTH_R2 and fit["depth_slope"] > 0,
                f"depth = {fit['depth_intercept']:.2f} + {fit['depth_slope']:.3f} ln n, R^2 {fit['depth_r2']:.4f} "
                f"({part['update_depth'].iloc[0]:.1f} -> {part['update_depth'].iloc[-1]:.1f} over {span})",
                key=f"depth_log_n_{kind}",
                paper="E[D_n] = Θ(log n) (Prop. 2); an update costs twice the depth (Remark 2)",
            )
        )
        memory = fit["memory_exponent"]
        out.append(
            Claim(
                f"{model}: memory is O(1) per update: the model's size grows at most linearly in n (exponent at most "
                f"1 + {MEMORY_TOLERANCE})",
                memory <= 1 + MEMORY_TOLERANCE,
                f"exponent {memory:.3f}: {per_unit(part.iloc[0], 'model_bytes'):.1f} -> "
                f"{per_unit(part.iloc[-1], 'model_bytes'):.1f} bytes per point, {part['nodes'].iloc[-1]:.0f} nodes at "
                f"n = {n1}",
                key=f"memory_per_update_{kind}",
                paper="one record sigma_v per node (Eq. (18)); each leaf holds one point (Section 4.1)",
            )
        )
        if model == "AMFRegressor":
            over = part["update_depth"] - prop2_bound(part["step"])
            out.append(
                Claim(
                    "AMFRegressor (every leaf holds one point): the mean depth stays below Prop. 2's bound "
                    "log n / log 2 + 2 (M = 1 for uniform features) at every n",
                    bool((over <= 0).all()),
                    f"at n = {n1}: {part['update_depth'].iloc[-1]:.2f} vs bound {prop2_bound(n1):.2f}; above it at "
                    f"{int((over > 0).sum())} of {len(part)} sizes; fitted {fit['depth_slope']:.3f} ln n against the "
                    f"bound's {1 / np.log(2):.3f} ln n",
                    key="depth_below_prop2_bound",
                    paper="E[D_n(x)] ≤ log n / log[(2M)/(2M-1)] + 2M (Prop. 2)",
                )
            )
    return out
