"""What moved between two commits' runs of the same figures and speed ratios (`make compare`, experiments.compare).

Each commit's runs are read into a ``Snapshot``: per figure, whether it was drawn, its claims (as its figure run logged
them) and its trial runs by run name (their ``trial_hash`` tag and final metrics); and the speed ratios of
experiments.bench.ratios. ``changes`` lists what moved beyond its tolerance, declared per metric kind in TOLERANCES:
a seeded result (an accuracy, a loss, a count of leaves or nodes, a size in bytes: every trial metric not named
otherwise) must stay the same float, a speed ratio may move by 20% (timing on a shared machine is noisy: listed, never
failing), a wall-clock measure (a duration, a time per sample, a peak memory) is never compared, as river's
estimator-regression CI leaves timings out of what it compares. A change fails the comparison when an exact metric
moved, a claim's or a figure's verdict changed, or a figure drawn at the base is not drawn at the head (one drawn at
neither, as a figure whose datasets are downloads this machine lacks, is listed); a trial whose hash differs (its
configuration changed), a trial or a metric on one side only are listed without failing, and so is the verdict of a
claim that reads wall-clock time (``timed`` in its claims, such as "MF trains ten times faster than ORF") and a figure's
verdict that only such claims moved: two runs of the same code may time them differently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from experiments.verdicts import CLAIM, claim_verdict, id_verdict


@dataclass(frozen=True)
class Tolerance:
    """How far a metric of a kind may move: ``exact`` (not at all), ``relative`` (by ``rel`` of the base value) or
    ``ignored`` (never compared); ``fails``: whether moving beyond it fails the comparison."""

    rule: str
    rel: float = 0.0
    fails: bool = True

    def moved(self, base: float, head: float) -> bool:
        """Whether ``head`` is beyond the tolerance from ``base`` (two NaNs are the same value)."""
        if self.rule == "ignored" or (math.isnan(base) and math.isnan(head)):
            return False
        if self.rule == "exact":
            return base != head
        return abs(head - base) > self.rel * abs(base)

    def describe(self) -> str:
        return f"relative {self.rel:.0%}" if self.rule == "relative" else self.rule


SEEDED, SPEED_RATIO, WALL_CLOCK = "seeded result", "speed ratio", "wall clock"
# The one table of tolerances, per metric kind.
TOLERANCES = {
    SEEDED: Tolerance("exact"),
    SPEED_RATIO: Tolerance("relative", rel=0.20, fails=False),
    WALL_CLOCK: Tolerance("ignored"),
}
# The trial metrics that are wall-clock measures (the protocols' timings, the tracker's duration and peak memory); every
# other trial metric is a seeded result.
WALL_CLOCK_METRICS = frozenset(
    {
        "duration_seconds",
        "peak_memory_mb",
        "train_time",
        "fit_time",
        "full_fit_time",
        "test_time",
        "seconds",
        "samples_per_second",
        "update_us",
        "predict_us",
    }
)


def metric_kind(name: str) -> str:
    """The kind of a trial metric: WALL_CLOCK for those WALL_CLOCK_METRICS names, else SEEDED."""
    return WALL_CLOCK if name in WALL_CLOCK_METRICS else SEEDED


@dataclass(frozen=True)
class TrialRun:
    """A finished trial run: its configuration's hash (tag ``trial_hash``) and its final metrics."""

    hash: str
    metrics: dict[str, float]


@dataclass
class FigureRun:
    """A figure's run at one commit: whether it was drawn, its claims (claims.json's), its trial runs by run name."""

    drawn: bool
    claims: list[dict] = field(default_factory=list)
    trials: dict[str, TrialRun] = field(default_factory=dict)


@dataclass
class Snapshot:
    """What one commit gave: its figures' runs by id and its speed ratios by name."""

    commit: str
    figures: dict[str, FigureRun]
    ratios: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Change:
    """One row of the table: what changed (``what``), where (a figure id, or ``bench``), which item (a trial and its
    metric, a claim's key), its value at the base and at the head, the rule it was judged by, whether it fails."""

    what: str
    where: str
    item: str
    base: str
    head: str
    rule: str
    fails: bool


def _number(value: float | None, spec: str = "r") -> str:
    """A value in ``spec`` ("r": whole, the shortest text that reads back as the same float, so that an exact
    metric's move shows; ".3g" for a speed ratio), or - for none."""
    return "-" if value is None else repr(float(value)) if spec == "r" else format(value, spec)


def claim_verdicts(claims: list[dict]) -> dict[str, str]:
    """Each check's verdict by key: a printed claim's (experiments.verdicts), a weaker reading's or an invariant's
    ``holds`` / ``does not hold``."""
    verdicts = {}
    for c in claims:
        printed = c.get("kind", CLAIM) == CLAIM and not c.get("weaker_of")
        verdicts[c.get("key") or c["statement"]] = (
            claim_verdict(c, claims) if printed else ("holds" if c["passed"] else "does not hold")
        )
    return verdicts


def metric_changes(figure_id: str, trial: str, base: TrialRun, head: TrialRun) -> list[Change]:
    """The metrics of one trial that moved beyond their kind's tolerance, and those on one side only."""
    changes = []
    for name in sorted(base.metrics.keys() | head.metrics.keys()):
        kind = metric_kind(name)
        tolerance = TOLERANCES[kind]
        if tolerance.rule == "ignored":
            continue
        old, new = base.metrics.get(name), head.metrics.get(name)
        if old is None or new is None:
            changes.append(Change("metric on one side", figure_id, f"{trial}: {name}", _number(old), _number(new),
                                  kind, False))  # fmt: skip
        elif tolerance.moved(old, new):
            changes.append(Change("metric moved", figure_id, f"{trial}: {name}", _number(old), _number(new),
                                  f"{kind}: {tolerance.describe()}", tolerance.fails))  # fmt: skip
    return changes


def trial_changes(figure_id: str, base: FigureRun, head: FigureRun) -> list[Change]:
    """Per trial run name: a trial on one side only, a hash that differs, and its metrics' changes."""
    changes = []
    for name in sorted(base.trials.keys() | head.trials.keys()):
        old, new = base.trials.get(name), head.trials.get(name)
        if old is None or new is None:
            changes.append(Change("trial on one side", figure_id, name, "run" if old else "-", "run" if new else "-",
                                  "listed", False))  # fmt: skip
            continue
        if old.hash != new.hash:
            changes.append(Change("trial hash", figure_id, name, old.hash[:12], new.hash[:12], "listed", False))
        changes += metric_changes(figure_id, name, old, new)
    return changes


def timed_claims(claims: list[dict]) -> set[str]:
    """The keys of the checks that read wall-clock time."""
    return {c.get("key") or c["statement"] for c in claims if c.get("timed")}


def claim_changes(figure_id: str, base: FigureRun, head: FigureRun) -> list[Change]:
    """Each check's verdict that differs (failing when the check is at both commits and reads no time), then the
    figure's verdict when it differs (failing unless only timed checks changed)."""
    changes = []
    before, after = claim_verdicts(base.claims), claim_verdicts(head.claims)
    timed = timed_claims(base.claims) | timed_claims(head.claims)
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key, "-"), after.get(key, "-")
        if old != new:
            both = key in before and key in after
            rule = ("timed: listed" if key in timed else "exact") if both else "listed"
            changes.append(Change("claim verdict" if both else "claim on one side", figure_id, key, old, new, rule,
                                  both and key not in timed))  # fmt: skip
    old, new = id_verdict(base.claims) or "-", id_verdict(head.claims) or "-"
    if old != new:
        only_timed = bool(changes) and all(c.item in timed for c in changes)
        changes.insert(0, Change("figure verdict", figure_id, figure_id, old, new,
                                 "timed claims only: listed" if only_timed else "exact", not only_timed))  # fmt: skip
    return changes


def figure_changes(figure_id: str, base: FigureRun | None, head: FigureRun | None) -> list[Change]:
    """What changed of one figure: its claims and trials when drawn at both commits, else where it was drawn (failing
    when drawn at the base and not at the head; a figure drawn at neither, as one whose datasets this machine lacks,
    is listed without failing)."""
    if base is not None and head is not None and base.drawn and head.drawn:
        return claim_changes(figure_id, base, head) + trial_changes(figure_id, base, head)
    drawn = ["drawn" if run is not None and run.drawn else "not drawn" for run in (base, head)]
    lost = drawn == ["drawn", "not drawn"]
    return [Change("figure drawn", figure_id, figure_id, drawn[0], drawn[1], "exact" if lost else "listed", lost)]


def ratio_changes(base: dict[str, float], head: dict[str, float]) -> list[Change]:
    """The speed ratios that moved beyond SPEED_RATIO's tolerance, or were measured at one side only."""
    tolerance, changes = TOLERANCES[SPEED_RATIO], []
    for name in sorted(base.keys() | head.keys()):
        old, new = base.get(name), head.get(name)
        if old is None or new is None or tolerance.moved(old, new):
            rule = f"{SPEED_RATIO}: {tolerance.describe()}" if old and new else "listed"
            changes.append(Change(SPEED_RATIO, "bench", name, _number(old, ".3g"), _number(new, ".3g"), rule, False))
    return changes


def changes(base: Snapshot, head: Snapshot) -> list[Change]:
    """Every change from ``base`` to ``head``: figure by figure, then the speed ratios."""
    found = []
    for figure_id in sorted(base.figures.keys() | head.figures.keys()):
        found += figure_changes(figure_id, base.figures.get(figure_id), head.figures.get(figure_id))
    return found + ratio_changes(base.ratios, head.ratios)


def failing(found: list[Change]) -> bool:
    """Whether any change fails the comparison."""
    return any(c.fails for c in found)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|") or "-"


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)] + [
        "| " + " | ".join(map(_cell, row)) + " |" for row in rows
    ]


def markdown(base: Snapshot, head: Snapshot, found: list[Change]) -> str:
    """The comparison as Markdown: a line naming both commits and what was compared, the table of the figures' changes
    (its header alone when nothing moved), the speed ratios that moved beyond their tolerance apart (timing,
    informational: a change that moves nothing may still move them on a busy machine), then the verdict line."""
    figures = ", ".join(sorted(base.figures.keys() | head.figures.keys())) or "none"
    ratios = [c for c in found if c.what == SPEED_RATIO]
    lines = [
        f"Compared {base.commit[:12]} (base) with {head.commit[:12]} (head): figures {figures} at profile quick; "
        f"{len(base.ratios | head.ratios)} speed ratios.",
        "",
        *_table(
            ["fails", "what", "where", "item", "base", "head", "rule"],
            [
                ["**yes**" if c.fails else "no", c.what, c.where, c.item, c.base, c.head, c.rule]
                for c in found
                if c.what != SPEED_RATIO
            ],
        ),
    ]
    if ratios:
        tolerance = TOLERANCES[SPEED_RATIO].describe()
        lines += ["", f"Speed ratios beyond their tolerance ({tolerance}; timing, informational, never failing):", ""]
        lines += _table(["speed ratio", "base", "head"], [[c.item, c.base, c.head] for c in ratios])
    fails = sum(c.fails for c in found)
    verdict = (
        f"{fails} failing change{'s' if fails != 1 else ''} of {len(found)}"
        if fails
        else f"no failing change ({len(found)} listed)"
    )
    return "\n".join([*lines, "", verdict + "."]) + "\n"
