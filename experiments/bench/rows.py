"""The benchmarks' rows, machine-readable: each table of a section of results/BENCHMARKS.md as a CSV file of its own,
``<folder>/<section>/<table>.csv``, every row with the environment it was measured in (its ``env.*`` columns,
experiments.environment), so that rows of two machines or two commits can be set side by side, or refused as not
comparable. The section's line in BENCHMARKS.md says the same environment once (``line``)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from experiments.environment import COMMIT, summary


def line(where: dict[str, str]) -> str:
    """A section's environment line: where it was measured and the code it measured."""
    return f"Environment: {summary([where])}; code at {where[COMMIT]}."


def slug(name: str) -> str:
    """A file name for a section or table name: 'river drop-in' -> 'river_drop-in'."""
    return re.sub(r"[^A-Za-z0-9.-]+", "_", name).strip("_").lower()


def write(folder: Path, section: str, tables: dict[str, pd.DataFrame], where: dict[str, str]) -> list[Path]:
    """Each table of ``section`` as ``folder/<section>/<table>.csv``, its rows as measured with the ``env.*``
    columns of ``where`` after them; the section's files of an earlier run are replaced. Returns the files."""
    target = folder / slug(section)
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.glob("*.csv"):
        stale.unlink()
    files = []
    for name, table in tables.items():
        path = target / f"{slug(name)}.csv"
        table.assign(**where).to_csv(path, index=False)
        files.append(path)
    return files
