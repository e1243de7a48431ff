"""The figure modules' table toolkit: runs to one long table, mean ± sd per group, Markdown tables with the best
cell of each row in bold, and paired differences over seeds with their one-sided confidence bound."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd
from scipy import stats


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


# "Better" over seeds: the one-sided lower confidence bound, at this level, of the mean per-seed difference is > 0.
CONFIDENCE = 0.95


def paired_difference(
    frame: pd.DataFrame, a: str, b: str, by: list[str], value: str = "accuracy", confidence: float = CONFIDENCE
) -> pd.DataFrame:
    """Per group of ``by`` in per-seed rows (``by``, method, seed, ``value``): the mean over seeds of ``value`` of
    method ``a`` minus that of ``b`` on the same seed (same data, same order), its one-sided lower confidence bound
    (Student t at ``confidence``; nan under 2 seeds) and the number of seeds. ``a`` is above ``b`` where ``low`` > 0."""
    wide = frame.pivot_table(index=[*by, "seed"], columns="method", values=value)
    groups = (wide[a] - wide[b]).dropna().groupby(level=list(by))
    n, mean, sd = groups.count(), groups.mean(), groups.std()
    low = mean - stats.t.ppf(confidence, n - 1) * sd / np.sqrt(n)
    return pd.DataFrame({"mean": mean, "low": low, "n": n})
