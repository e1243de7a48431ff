"""A figure config's explanations (``explanations``, by claim key): why a claim holds or does not, with the numbers of
the evidence, shown beside the claim whatever its verdict.

An explanation is a template filled when the report is built: ``{key.name}`` is the value ``name`` of the claim
``key`` (its ``values``), ``{name}`` a value of the claim it explains, ``{settings.name}`` a setting of the drawn
figure (``trials``, ``n_seeds``, ``seeds``, ``trees``, ``datasets``, ...), each with an optional format spec
(``{close_to_batch.letter_gap_10:.3f}``). Its numbers are then those of the evidence and cannot drift from it. A number
written in the template itself is a reference (Fig. 3, Table 1, Sec. 5.3, Algorithm 4, ...), part of a name
(dna61_120), or a number the figure's evidence holds (``numbers_not_in``: a test reads every explanation with it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

PLACEHOLDER = re.compile(r"\{(?:([a-z][a-z0-9_]*)\.)?([A-Za-z0-9_]+)(?::([^{}]*))?\}")
_NUMBER = r"\d+(?:\.\d+)*"
REFERENCE = re.compile(
    r"\b(?:Fig(?:ure)?s?\.?|Tables?|Sec(?:tion)?s?\.?|Algorithms?|Prop(?:osition)?s?\.?|Theorems?|Thm\.|"
    r"Corollar(?:y|ies)|Lemmas?|Eqs?\.|Equations?|footnotes?|Appendix|p\.|pp\.|lines?|Examples?|Assumptions?|"
    r"Definitions?|Remarks?|Steps?)\s*\(?" + _NUMBER + r"\)?(?:\s*(?:,|and|-|to)\s*\(?" + _NUMBER + r"\)?)*"
)
NAME = re.compile(r"[A-Za-z_][A-Za-z_-]*\d[\w-]*")  # dna61_120, friedman10, PCA-4, d2: digits inside a name
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])")


class ExplanationError(ValueError):
    """A placeholder names no value of the evidence."""


def settings_values(settings: dict) -> dict:
    """The drawn figure's settings a template reads: each as recorded (lists joined), and their counts."""
    out = {}
    for name, value in settings.items():
        if name in ("files", "runs"):
            continue
        out[name] = ", ".join(map(str, value)) if isinstance(value, list) else value
        if isinstance(value, list):
            out[f"n_{name}"] = len(value)
    return out


def render(template: str, key: str, claims: list[dict], settings: dict) -> str:
    """The explanation of the claim ``key`` with its placeholders filled from the figure's claims and settings."""
    values = {c["key"]: c.get("values", {}) for c in claims}
    values["settings"] = settings_values(settings)

    def fill(match: re.Match) -> str:
        owner, name, spec = match.group(1) or key, match.group(2), match.group(3) or ""
        if owner not in values or name not in values[owner]:
            raise ExplanationError(
                f"the explanation of {key!r} reads {match.group(0)}, which its evidence does not hold "
                f"({owner!r} has {sorted(values.get(owner, {}))})"
            )
        return format(values[owner][name], spec)

    return " ".join(PLACEHOLDER.sub(fill, template).split())


def literal_numbers(template: str) -> list[str]:
    """The numbers a template writes itself: neither filled from the evidence, nor a reference, nor in a name."""
    text = PLACEHOLDER.sub(" ", template)
    text = REFERENCE.sub(" ", text)
    text = NAME.sub(" ", text)
    return NUMBER.findall(text)


def evidence_numbers(documents: Iterable) -> set[float]:
    """Every number written in the evidence's documents (figure.json, runs.jsonl rows), as floats."""
    text = " ".join(json.dumps(d) for d in documents)
    return {float(token) for token in re.findall(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)}


def numbers_not_in(template: str, numbers: set[float]) -> list[str]:
    """The numbers a template writes itself that the evidence does not hold."""
    return [n for n in literal_numbers(template) if float(n) not in numbers]
