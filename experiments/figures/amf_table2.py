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

from experiments.figures import INVARIANT, NOT_COMPARABLE, Claim, Drawing, Table, unchecked
from experiments.figures.tables import long_table, markdown_table

EXPONENT_TOLERANCE = 0.25  # nearer the exponent of log n (about 0.1) than that of sqrt n (0.5)
THETA_BAND = (
    1.25  # Theta(log n): the ratio depth / ln n within this factor over the sizes (a power law n^0.17 gives 1.59)
)
COLOURS = {"AMFClassifier": "tab:blue", "AMFRegressor": "tab:orange"}
MEASURED = ("update_us", "predict_us", "update_depth", "predict_depth", "model_bytes", "nodes", "block")
# The text's sentences, verbatim with the LaTeX residue of the text file (Table 2's rows have no clean span).
TABLE_2 = {
    "AmfUpdate": r"\mathtt{AmfUpdate} Θ(logn)Θ𝑛\Theta(\log n)",
    "AmfPredict": r"\mathtt{AmfPredict} Θ(logn)Θ𝑛\Theta(\log n)",
    "MondrianUpdate": r"\mathtt{MondrianUpdate} Θ(n)Θ𝑛\Theta(n)",
}
REMARK_2 = r"is Θ(logn)Θ𝑛\Theta(\log n) in expectation at step"
PROPOSITION_2 = r"\mathbb{E}[D_{n}^{\Pi}(x)]\leqslant\frac{\log n}{\log[(2M)/(2M-1)]}+2M"


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
    """Prop. 2's bound on E[D_n(x)] as printed, with M = 1 (uniform features): log n / log 2 + 2."""
    return np.log2(n) + 2


def corrected_bound(n) -> np.ndarray:
    """Prop. 2's bound as its proof gives it once corrected, with M = 1: E[U ^ (1 - U)] = 1/4 makes the contraction
    per level 1 - 1/(4M), and D >= k implies N_(k-1) >= 1 (not N_k): log n / log(4/3) + 4 + 1."""
    return np.log(n) / np.log(4 / 3) + 5


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
            (
                "depth of an update (Prop. 2)",
                "Θ(log n), ≤ log2 n + 2 (printed)",
                "update_depth",
                "nodes",
                "depth_exponent",
            ),
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
    ax.plot(n, prop2_bound(n), "k--", lw=1, label="Prop. 2's bound as printed, $\\log_2 n + 2$ (M = 1)")
    ax.plot(n, corrected_bound(n), "k-.", lw=1, label="corrected bound $\\ln n / \\ln(4/3) + 5$ (M = 1)")
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
    """Table 2's rows on the library's AMF (the CPU time's exponent of n against the project's threshold), Remark
    2's Theta(log n) depth and Proposition 2's bound as printed, with the corrected bound beside it, on the tree of
    the proposition (the regressor: one point per leaf); the node count as an invariant of the update."""
    data = medians(runs)
    out = []
    for model, part in data.groupby("model"):
        out += time_claims(model, part)
    out += depth_claims(data)
    out += [nodes_per_update(model, part) for model, part in data.groupby("model")]
    return out + unmeasured_rows(data)


def _span(part: pd.DataFrame) -> str:
    return f"n = {int(part['step'].iloc[0])}..{int(part['step'].iloc[-1])}"


def time_claims(model: str, part: pd.DataFrame) -> list[Claim]:
    """AmfUpdate and AmfPredict Theta(log n) (Table 2), read as the CPU time per point: its fitted exponent of n at
    most EXPONENT_TOLERANCE (this project's threshold)."""
    fit, kind = summary(part), model.removeprefix("AMF").lower()
    out = []
    for algorithm, column, key in (("AmfUpdate", "update_us", "update"), ("AmfPredict", "predict_us", "predict")):
        value = fit[f"{key}_exponent"]
        depth = part["update_depth" if key == "update" else "predict_depth"]
        first, last = part.iloc[0], part.iloc[-1]
        out.append(
            Claim(
                f"{model}: {algorithm} is Theta(log n): its CPU time per point grows no faster than log n, its "
                f"fitted exponent of n no more than {EXPONENT_TOLERANCE} ({EXPONENT_TOLERANCE}: this project's "
                f"threshold, nearer log n's {fit['log_exponent']:.2f} over {_span(part)} than sqrt n's 0.5; the table "
                "gives orders, not times)",
                value <= EXPONENT_TOLERANCE,
                f"exponent {value:.3f}: {first[column]:.3g} -> {last[column]:.3g} µs per point while the depth walked "
                f"goes {depth.iloc[0]:.1f} -> {depth.iloc[-1]:.1f} ({depth.iloc[-1] / depth.iloc[0]:.2f}x; log n "
                f"{np.log(last['step']) / np.log(first['step']):.2f}x)",
                key=f"{key}_time_log_n_{kind}",
                paper="Θ(log n)",
                quote=TABLE_2[algorithm],
                timed=True,
                where="AMF Table 2",
                values={
                    "exponent": value,
                    "time_first": float(first[column]),
                    "time_last": float(last[column]),
                    "time_growth": float(last[column] / first[column]),
                    "depth_first": float(depth.iloc[0]),
                    "depth_last": float(depth.iloc[-1]),
                    "ns_per_node_first": 1000 * float(first[column] / depth.iloc[0]),
                    "ns_per_node_last": 1000 * float(last[column] / depth.iloc[-1]),
                    "nodes_last": float(last["nodes"]),
                    "bytes_per_point": float(last["model_bytes"] / last["step"]),
                    "log_growth": float(np.log(last["step"]) / np.log(first["step"])),
                },
            )
        )
    return out


def depth_claims(data: pd.DataFrame) -> list[Claim]:
    """Remark 2 / Sec. 4.2: the depth Theta(log n) (its ratio to ln n in a band); Proposition 2's bound as printed
    (M = 1 for uniform features) and, beside it, the corrected bound; on the regressor's tree, every leaf holding one
    point (the tree restricted to the observations). The classifier keeps pure leaves unsplit: not that tree."""
    out = []
    classifier = data[data["model"] == "AMFClassifier"]
    if len(classifier):
        ratio = classifier["update_depth"] / np.log(classifier["step"])
        out.append(
            unchecked(
                "AMFClassifier: the depth of its tree is Theta(log n) in expectation",
                "not the tree of Remark 2 and Prop. 2: with split_pure false a pure leaf is not split, so the tree "
                f"is not restricted to the observations ({classifier['nodes'].iloc[-1]:.0f} nodes at n = "
                f"{int(classifier['step'].iloc[-1])}); its depth / ln n goes {ratio.iloc[0]:.2f} -> "
                f"{ratio.iloc[-1]:.2f}",
                key="depth_log_n_classifier",
                quote=REMARK_2,
                where="AMF Remark 2",
                status=NOT_COMPARABLE,
            )
        )
    part = data[data["model"] == "AMFRegressor"]
    if not len(part):
        return out
    n, depth = part["step"], part["update_depth"]
    reached = n + part["block"]  # a point learnt at step n + k falls in the tree restricted to n + k points
    ratio = depth / np.log(n)
    spread = float(ratio.max() / ratio.min())
    a, b, r2 = log_fit(n, depth)
    out.append(
        Claim(
            "AMFRegressor (every leaf holds one point): the depth an update walks is Theta(log n) in expectation: "
            f"its mean depth over ln n stays within a factor {THETA_BAND} at every n of {_span(part)} ({THETA_BAND}: "
            "this project's band; Theta bounds the ratio above and below)",
            spread <= THETA_BAND,
            f"depth / ln n from {ratio.min():.3f} to {ratio.max():.3f} (factor {spread:.3f}); depth = {a:.2f} + "
            f"{b:.3f} ln n, R^2 {r2:.4f} ({depth.iloc[0]:.1f} -> {depth.iloc[-1]:.1f})",
            key="depth_log_n_regressor",
            paper="E[D_n] = Θ(log n) (Remark 2, Sec. 4.2); an update costs twice the depth (Remark 2)",
            quote=REMARK_2,
            where="AMF Remark 2",
            values={
                "ratio_low": float(ratio.min()),
                "ratio_high": float(ratio.max()),
                "slope": b,
                "intercept": a,
                "r2": r2,
                "depth_first": float(depth.iloc[0]),
                "depth_last": float(depth.iloc[-1]),
            },
        )
    )
    over = depth - prop2_bound(reached)
    printed = Claim(
        "AMFRegressor: the mean depth of the leaf a new point reaches stays below Prop. 2's bound as printed, "
        "log n / log[(2M)/(2M-1)] + 2M with M = 1 for uniform features (log2 n + 2), at every n of " + _span(part),
        bool((over <= 0).all()),
        f"above the bound at {int((over > 0).sum())} of {len(part)} sizes, by {over.min():+.2f} to {over.max():+.2f}; "
        f"at n = {int(n.iloc[-1])}: {depth.iloc[-1]:.2f} against {prop2_bound(reached.iloc[-1]):.2f}; fitted "
        f"{b:.3f} ln n against the bound's {1 / np.log(2):.3f} ln n",
        key="depth_below_prop2_bound",
        paper="E[D_n(x)] ≤ log n / log[(2M)/(2M-1)] + 2M (Prop. 2)",
        quote=PROPOSITION_2,
        where="AMF Proposition 2",
        exceptions=[
            f"n = {int(k)}: depth {d:.2f}, {o:+.2f} above" for k, d, o in zip(n, depth, over, strict=True) if o > 0
        ],
        values={
            "above": int((over > 0).sum()),
            "sizes": len(part),
            "over_low": float(over.min()),
            "over_high": float(over.max()),
            "slope": b,
            "intercept": a,
            "bound_slope": 1 / np.log(2),
        },
    )
    under = depth - corrected_bound(reached)
    return [
        *out,
        printed,
        printed.weaker(
            "AMFRegressor: the mean depth stays below the corrected bound log n / log[(4M)/(4M-1)] + 4M + 1 (M = 1: "
            f"ln n / ln(4/3) + 5) at every n of {_span(part)}: the proof's (1/2M) E[U ∧ (1 - U)] is 1/(8M), not "
            "1/(4M), and P(D >= k) <= P(N_(k-1) >= 1) adds 1",
            bool((under <= 0).all()),
            f"below at {int((under <= 0).sum())} of {len(part)} sizes, by {-under.max():.2f} to {-under.min():.2f}; at "
            f"n = {int(n.iloc[-1])}: {depth.iloc[-1]:.2f} against {corrected_bound(reached.iloc[-1]):.2f}",
            key="depth_below_corrected_bound",
            values={
                "below": int((under <= 0).sum()),
                "room_low": float(-under.max()),
                "room_high": float(-under.min()),
            },
        ),
    ]


def nodes_per_update(model: str, part: pd.DataFrame) -> Claim:
    """Each update adds at most two nodes (Algorithm 5, line 12: a split and a leaf): an invariant of the code."""
    most = 2 * part["step"] - 1
    return Claim(
        f"{model}: each update adds at most two nodes (Algorithm 5, line 12): at most 2n - 1 nodes after n points",
        bool((part["nodes"] <= most).all()),
        f"{part['nodes'].iloc[-1]:.0f} nodes at n = {int(part['step'].iloc[-1])} (at most {most.iloc[-1]:.0f}); "
        f"{part['model_bytes'].iloc[-1] / part['step'].iloc[-1]:.1f} bytes per point",
        key=f"nodes_per_update_{model.removeprefix('AMF').lower()}",
        kind=INVARIANT,
    )


def unmeasured_rows(data: pd.DataFrame) -> list[Claim]:
    """Table 2's MondrianUpdate row and Sec. 4.2's d log n: what these runs cannot answer, and why."""
    dims = "d = 2 only"
    return [
        unchecked(
            "MondrianUpdate (the original Mondrian forest's update) is Theta(n), linear in the number of leaves",
            "the row is about LRT14's original implementation; this project's Mondrian forest extends a tree along one "
            "path, as AMF does, so timing it would not test the row",
            key="mondrian_update_linear",
            quote=TABLE_2["MondrianUpdate"],
            where="AMF Table 2",
            status=NOT_COMPARABLE,
        ),
        unchecked(
            "the update complexity of a single tree is Theta(d log n) in the number of features d",
            f"these runs learn points of [0, 1]^2 ({dims}): the dependence on d is not measured",
            key="update_d_log_n",
            quote="then the update complexity of a single tree is",
            where="AMF Sec. 4.2",
        ),
    ]
