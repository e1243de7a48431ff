"""One module per figure: ``plot(runs, spec) -> Drawing`` and ``claims(runs, spec) -> list[Claim]``.

A figure module reads only finished runs (``RunRecord``: trial config through its accessors, metrics, curves,
tables) and the settings of the profile being reproduced; it never runs trials itself and never writes files: the
harness writes the drawing's image and tables (and logs them with the figure's run).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Protocol, runtime_checkable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from omegaconf import DictConfig

from experiments.run_record import RunRecord
from experiments.verdicts import CHECKED, CLAIM, INVARIANT, KINDS, NOT_CHECKED, NOT_COMPARABLE, STATUSES


@dataclass
class Claim:
    """A statement of a paper (or an invariant of the code), checked on the measured numbers.

    A claim quotes the sentence of the paper it tests (``quote``, verbatim, printed at ``where``: "LRT14 Sec. 7",
    "AMF Fig. 10 caption") and tests it as printed; ``statement`` says how, with the threshold the words imply. A
    weaker reading of a sentence is a claim of its own beside the printed one: ``weaker_of`` names the printed
    claim's key (it quotes the same sentence), so that a printed claim that fails while a weaker reading holds is
    *partly reproduced*. ``exceptions`` lists where the statement fails, case by case with its margin.

    ``key`` names the check within its figure, stable across rewordings (the config's explanations are keyed by
    it); ``paper`` is the number the paper prints for it, when it prints one, shown beside the measured one;
    ``values`` are the check's numbers by name, which the config's explanations quote (``{key.name}``), so that an
    explanation's numbers are those of the evidence. ``status`` is CHECKED, or NOT_CHECKED / NOT_COMPARABLE with
    ``passed`` None and ``measured`` saying why."""

    statement: str
    passed: bool | None
    measured: str
    key: str = field(default="", kw_only=True)
    kind: str = field(default=CLAIM, kw_only=True)
    paper: str = field(default="", kw_only=True)
    quote: str = field(default="", kw_only=True)
    where: str = field(default="", kw_only=True)
    weaker_of: str = field(default="", kw_only=True)
    exceptions: list[str] = field(default_factory=list, kw_only=True)
    status: str = field(default=CHECKED, kw_only=True)
    values: dict[str, float | int | str] = field(default_factory=dict, kw_only=True)
    timed: bool = field(default=False, kw_only=True)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"claim kind must be one of {KINDS}, not {self.kind!r}")
        if self.status not in STATUSES:
            raise ValueError(f"claim status must be one of {STATUSES}, not {self.status!r}")
        if self.status == CHECKED:
            self.passed = bool(self.passed)  # a numpy bool would be written to claims.json as the string "True"
        elif self.passed is not None:
            raise ValueError(f"a claim {self.status} has passed None, not {self.passed!r}")
        if self.kind == CLAIM and not (self.quote.strip() and self.where.strip()):
            raise ValueError(f"claim {self.key or self.statement!r} quotes no sentence of a paper (quote and where)")
        if self.kind == INVARIANT and (self.weaker_of or self.status != CHECKED):
            raise ValueError(f"invariant {self.key!r} is checked and is no reading of a claim")
        self.exceptions = [str(e) for e in self.exceptions]
        self.values = {str(k): _plain(v) for k, v in self.values.items()}

    def weaker(self, statement: str, passed: bool, measured: str, key: str, **fields) -> Claim:
        """A weaker reading of this (printed) claim: the same sentence, tested with a weaker quantifier."""
        return Claim(statement, passed, measured, key=key, quote=self.quote, where=self.where, weaker_of=self.key,
                     **{"timed": self.timed, **fields})  # fmt: skip

    def as_dict(self) -> dict:
        """The claim's fields; ``timed`` only when set (the claims that read no time are written as before it)."""
        fields = asdict(self)
        if not self.timed:
            del fields["timed"]
        return fields

    def __str__(self) -> str:
        tag = "" if self.kind == CLAIM else " (invariant)"
        tag += f" (weaker reading of {self.weaker_of})" if self.weaker_of else ""
        verdict = self.status.upper() if self.status != CHECKED else "PASS" if self.passed else "FAIL"
        return f"{verdict}{tag}  {self.statement}  [{self.measured}]"


def unchecked(statement: str, why: str, *, key: str, quote: str, where: str, status: str = NOT_CHECKED) -> Claim:
    """A claim of the paper this run cannot decide: its data are not here (NOT_CHECKED), or what is measured cannot
    answer the sentence (NOT_COMPARABLE); ``why`` says which, and stands as its measured value."""
    if status not in (NOT_CHECKED, NOT_COMPARABLE):
        raise ValueError(f"an unchecked claim is {NOT_CHECKED} or {NOT_COMPARABLE}, not {status!r}")
    return Claim(statement, None, why, key=key, quote=quote, where=where, status=status)


def _plain(value):
    """A number as Python's own (numpy's would not write to JSON), a string as it is."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | np.bool_):
        return bool(value)
    return int(value) if isinstance(value, int | np.integer) else float(value)


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


@runtime_checkable
class FigureModule(Protocol):
    """What a figure module is (conf/figure/<id>.yaml's ``module``): ``plot`` draws the runs, ``claims`` checks the
    paper's sentences on them; ``spec`` is the settings of the profile drawn (its ``grid``, ``other_data`` and the
    settings experiments.figure_schema.Profile types). Both read the runs through RunRecord's accessors only."""

    def plot(self, runs: list[RunRecord], spec: DictConfig) -> Drawing: ...

    def claims(self, runs: list[RunRecord], spec: DictConfig) -> list[Claim]: ...


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
