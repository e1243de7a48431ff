"""The figure modules' table toolkit: runs to one long table, mean ± sd per group, and Markdown tables with the best
cell of each row in bold."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd


def long_table(runs, label: Callable[[object], dict], columns: Iterable[str] | None = None) -> pd.DataFrame:
    """One row per logged step of each run's curves (``columns``: which curve columns, all by default), with the
    columns ``label(run)`` gives (for example dataset, method, trees, seed) in front. With ``columns=()`` one row
    per run holding its final metrics instead."""
    frames = []
    for run in runs:
        labels = label(run)
        if columns == ():
            frame = pd.DataFrame([run.metrics])
        else:
            frame = run.curves if columns is None else run.curves[list(columns)]
            frame = frame.copy()
        for name, value in reversed(labels.items()):
            frame.insert(0, name, [value] * len(frame))
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def mean_sd(frame: pd.DataFrame, by: list[str], values: list[str]) -> pd.DataFrame:
    """Per group of ``by``: each value's mean (column ``value``), its standard deviation over the group's rows
    (``value_sd``, NaN for a single row) and the number of rows (``n``)."""
    grouped = frame.groupby(by, sort=False, observed=True)
    out = grouped[values].mean()
    sd = grouped[values].std().add_suffix("_sd")
    return pd.concat([out, sd, grouped.size().rename("n")], axis=1).reset_index()


def format_mean_sd(mean: float, sd: float, spec: str = ".4f") -> str:
    """'mean ± sd' ('mean' alone when sd is NaN; empty when the mean is)."""
    if pd.isna(mean):
        return ""
    return format(mean, spec) + ("" if pd.isna(sd) else f" ± {format(sd, spec)}")


def wide_cells(
    summary: pd.DataFrame,
    rows: list[str],
    column: str,
    value: str,
    best: str = "max",
    spec: str = ".4f",
    order: Iterable[str] | None = None,
    suffix: Callable[[pd.Series], str] | None = None,
) -> pd.DataFrame:
    """A summary (as ``mean_sd`` gives) spread to one row per ``rows`` group and one column per value of ``column``
    (in ``order`` if given), each cell 'mean ± sd' of ``value`` (plus ``suffix(row)``), the best of each row
    (``best``: "max" or "min") in bold; an absent combination is an empty cell."""
    if best not in ("max", "min"):
        raise ValueError(f"best must be 'max' or 'min', not {best!r}")
    columns = list(order) if order is not None else list(dict.fromkeys(summary[column]))
    out = []
    for key, part in summary.groupby(rows, sort=False, observed=True):
        part = part.set_index(column)
        means = part[value].astype(float)
        winner = means.idxmax() if best == "max" else means.idxmin()
        cells = dict(zip(rows, key if isinstance(key, tuple) else (key,), strict=True))
        for name in columns:
            if name not in part.index:
                cells[name] = ""
                continue
            row = part.loc[name]
            text = format_mean_sd(row[value], row.get(f"{value}_sd", np.nan), spec)
            text = f"**{text}**" if name == winner and not np.isnan(means[name]) else text
            cells[name] = text + (suffix(row) if suffix else "")
        out.append(cells)
    return pd.DataFrame(out, columns=[*rows, *columns])


def markdown_table(frame: pd.DataFrame, floatfmt: str = ".4g") -> str:
    """The frame as a Markdown table (numbers formatted with ``floatfmt``, NaN as an empty cell, '|' escaped)."""

    def cell(value) -> str:
        if isinstance(value, float | np.floating):
            return "" if np.isnan(value) else format(value, floatfmt)
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(map(cell, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"
