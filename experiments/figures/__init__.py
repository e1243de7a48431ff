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

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'}  {self.statement}  [{self.measured}]"


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
