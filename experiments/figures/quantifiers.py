"""A quantified sentence checked case by case: "on every dataset", "at every fraction", "against all the baselines".

``Cases`` holds the margin of each case (positive where the sentence holds in it: the measured gap beyond its
threshold, or a lower confidence bound over seeds) and says whether it holds in every case, in at least k, and where
it fails. ``quantified`` makes the claim that tests the sentence as printed (every case, its exceptions listed with
their margins) and, when the paper's words allow one, a weaker reading beside it ("most": at least k of n), so that
the printed claim is never loosened in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from experiments.figures import Claim


def _value_name(case: str) -> str:
    """A case's name as a key of a claim's values: snake case, ASCII."""
    return re.sub(r"[^a-z0-9]+", "_", case.lower()).strip("_")


@dataclass
class Cases:
    """The margins of a quantified sentence's cases, in order: > 0 where it holds (``tolerance``: at >= -tolerance,
    for a threshold that already sits in the margin leave it 0)."""

    margins: dict[str, float]
    tolerance: float = 0.0
    digits: int = 4
    unit: str = ""
    labels: dict[str, str] = field(default_factory=dict)  # case -> how its margin reads ("MF - RF")

    def holds(self, case: str) -> bool:
        return self.margins[case] > -self.tolerance if self.tolerance else self.margins[case] > 0

    @property
    def holding(self) -> list[str]:
        return [c for c in self.margins if self.holds(c)]

    @property
    def failing(self) -> list[str]:
        return [c for c in self.margins if not self.holds(c)]

    def every(self) -> bool:
        return bool(self.margins) and not self.failing

    def at_least(self, k: int) -> bool:
        return len(self.holding) >= k

    def count(self) -> str:
        return f"{len(self.holding)} of {len(self.margins)}"

    def margin(self, case: str) -> str:
        label = f"{self.labels[case]} " if case in self.labels else ""
        return f"{case}: {label}{self.margins[case]:+.{self.digits}f}{self.unit}"

    def exceptions(self) -> list[str]:
        """Each case where the sentence fails, with its margin."""
        return [self.margin(c) for c in self.failing]

    def values(self, prefix: str = "") -> dict[str, float]:
        """The margins by name, for the explanations (``{key.<prefix><case>}``)."""
        return {prefix + _value_name(c): m for c, m in self.margins.items()}


def quantified(
    statement: str,
    cases: Cases,
    measured: str,
    *,
    key: str,
    quote: str,
    where: str,
    paper: str = "",
    values: dict | None = None,
    most: tuple[str, int] | None = None,
    timed: bool = False,
) -> list[Claim]:
    """The claim that the sentence holds in every case, exceptions listed; with ``most`` = (statement, k), beside it
    the weaker reading that it holds in at least k cases (key ``<key>_most``); ``timed``: the cases are timings."""
    numbers = {**cases.values(), "holding": len(cases.holding), "cases": len(cases.margins), **(values or {})}
    printed = Claim(
        statement,
        cases.every(),
        measured,
        key=key,
        quote=quote,
        where=where,
        paper=paper,
        exceptions=cases.exceptions(),
        values=numbers,
        timed=timed,
    )
    claims = [printed]
    if most is not None:
        weaker, k = most
        claims.append(printed.weaker(weaker, cases.at_least(k), f"holds in {cases.count()}", key=f"{key}_most"))
    return claims
