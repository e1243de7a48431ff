"""One module per figure: ``plot(runs, spec) -> Figure`` and ``claims(runs, spec) -> list[Claim]``.

A figure module reads only finished runs (``RunRecord``: trial config, metrics, curves,
tables) and the settings of the profile being reproduced; it never runs trials itself.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


@dataclass
class Claim:
    """A statement of the paper (or of the theory), checked against the measured numbers."""

    statement: str
    passed: bool
    measured: str

    def __post_init__(self):
        self.passed = bool(self.passed)  # a numpy bool would be written to claims.json as the string "True"

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'}  {self.statement}  [{self.measured}]"


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


def save_figure(fig: plt.Figure, out_dir: Path, figure_id: str) -> list[Path]:
    """Write the figure as PNG and PDF; returns the two paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{figure_id}.png", out_dir / f"{figure_id}.pdf"]
    for path in paths:
        fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)
    return paths
