"""One module per figure: ``plot(runs, spec) -> Drawing`` and ``claims(runs, spec) -> list[Claim]``.

A figure module reads only finished runs (``RunRecord``: trial config through its accessors, metrics, curves,
tables) and the settings of the profile being reproduced; it never runs trials itself and never writes files: the
harness writes the drawing's image and tables (and logs them with the figure's run).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

# The two kinds of check. A claim is what the paper says about its results: a figure's verdict counts claims only.
# An invariant is a property of the code or of the drawing (it holds by construction, or it checks that the drawing
# shows what it should): reported beside the claims, never counted as reproduction.
CLAIM, INVARIANT = "claim", "invariant"
KINDS = (CLAIM, INVARIANT)


@dataclass
class Claim:
    """A statement of the paper (or of the theory, or an invariant of the code), checked on the measured numbers.

    ``key`` names the check within its figure, stable across rewordings (the report's explanations are keyed by
    it); ``paper`` is the number the paper prints for it, when it prints one, shown beside the measured one."""

    statement: str
    passed: bool
    measured: str
    key: str = field(default="", kw_only=True)
    kind: str = field(default=CLAIM, kw_only=True)
    paper: str = field(default="", kw_only=True)

    def __post_init__(self):
        self.passed = bool(self.passed)  # a numpy bool would be written to claims.json as the string "True"
        if self.kind not in KINDS:
            raise ValueError(f"claim kind must be one of {KINDS}, not {self.kind!r}")

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        tag = "" if self.kind == CLAIM else " (invariant)"
        return f"{'PASS' if self.passed else 'FAIL'}{tag}  {self.statement}  [{self.measured}]"


@dataclass
class Table:
    """A table a figure draws beside its image: the numbers (written as CSV) and how they read (Markdown)."""

    frame: pd.DataFrame
    markdown: str


@dataclass
class Drawing:
    """What ``plot`` returns: the figure, and its tables by name ("" for the figure's own table, written as
    ``<id>.csv`` and ``<id>.md``; another name as ``<id>-<name>.csv``)."""

    figure: plt.Figure
    tables: dict[str, Table] = field(default_factory=dict)


def title_with_legend(fig: plt.Figure, ax: plt.Axes, title: str) -> None:
    """The figure's title, the legend of ``ax``'s artists in one row under it, and the panels below both."""
    height = fig.get_figheight()
    top = 1 - (0.2 + 0.17 * (title.count("\n") + 1)) / height
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), frameon=False, bbox_to_anchor=(0.5, top))
    fig.suptitle(title, y=1 - 0.05 / height, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, top - 0.1 / height))


def note_missing(fig: plt.Figure, datasets: list[str]) -> None:
    """Say on the figure itself which datasets it lacks (drawn with allow_missing=true)."""
    fig.text(0.01, 0.0, f"missing datasets (allow_missing=true): {', '.join(datasets)}", color="red", fontsize=8)


# No creation date in the files, so that the same drawing gives the same bytes (a regenerated figure leaves git clean).
_METADATA = {".png": {}, ".pdf": {"CreationDate": None, "ModDate": None}}


def save_figure(fig: plt.Figure, out_dir: Path, figure_id: str) -> list[Path]:
    """Write the figure as PNG and PDF, byte for byte the same for the same drawing; returns the two paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{figure_id}.png", out_dir / f"{figure_id}.pdf"]
    for path in paths:
        fig.savefig(path, dpi=150, bbox_inches="tight", metadata=_METADATA[path.suffix])
    plt.close(fig)
    return paths


def save_tables(tables: dict[str, Table], out_dir: Path, figure_id: str) -> list[Path]:
    """Write each table as CSV and Markdown; returns the paths."""
    paths = []
    for name, table in tables.items():
        stem = out_dir / (f"{figure_id}-{name}" if name else figure_id)
        stem.parent.mkdir(parents=True, exist_ok=True)
        table.frame.to_csv(stem.with_suffix(".csv"), index=False, float_format="%.6g")
        stem.with_suffix(".md").write_text(table.markdown if table.markdown.endswith("\n") else table.markdown + "\n")
        paths += [stem.with_suffix(".csv"), stem.with_suffix(".md")]
    return paths
