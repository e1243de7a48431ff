"""The schema of a figure config (conf/figure/<id>.yaml) as typed dataclasses, and its check: every key known, of its
type, the required ones present, each bad key one line of the error naming the file and the key's place.

A config is checked as it is composed (experiments.config.compose, the Hydra app experiments.run) and as the figure
catalog reads it (experiments.figure_catalog.figure_spec). What a figure's module reads of its profile (``point``,
``early_fraction``, ...) is typed here too, so that a mistyped setting is an error rather than a silent default.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from dataclasses import dataclass, field
from typing import Any

PAPER_EXPERIMENT, THEOREM_CHECK, STUDY, ILLUSTRATION = "paper experiment", "theorem check", "study", "illustration"
# a result of a paper beyond the five this project reproduces (prediction intervals: LRT16, CKU23), checked as theirs
BEYOND = "beyond the papers"
CATEGORIES = (PAPER_EXPERIMENT, THEOREM_CHECK, STUDY, ILLUSTRATION, BEYOND)

Grid = dict[str, list] | list[dict[str, list]]  # one product of settings, or a union of several


@dataclass(frozen=True)
class Unspecified:
    """A setting the paper does not give: the value run and why."""

    setting: str
    value: str
    why: str


@dataclass(frozen=True)
class Reading:
    """Where the text is ambiguous: what it says, what runs and why."""

    text: str
    run: str
    why: str


@dataclass(frozen=True)
class Profile:
    """The settings of one profile (paper, quick, offline, ...): its grid of trials, what it runs on in place of the
    paper's data (``other_data``), and the settings its figure's module reads."""

    grid: Grid
    other_data: str = ""
    point: list[float] | None = None  # mgs20-fig2: the point x whose estimates are drawn
    constants: dict[str, float] | None = None  # theory-rates-smooth: the lifetime constants the claims are tested at
    band: list[float] | None = None  # theory-rates-smooth: the constants of the band drawn around them
    early_fraction: float | None = None  # amf-fig10: where the "early" losses are read


@dataclass(frozen=True)
class FigureSpec:
    """A figure config: what the figure is (``id``, its ``module``, ``category``, ``subject``), the overrides every
    trial shares (``trials``), its ``profiles``, and what the report records beside it: ``unspecified`` settings,
    ``readings`` of the text, ``explanations`` keyed by claim key."""

    id: str
    module: str
    category: str
    subject: str
    profiles: dict[str, Profile]
    trials: list[str] = field(default_factory=list)
    unspecified: list[Unspecified] | None = None
    readings: list[Reading] | None = None
    explanations: dict[str, str] = field(default_factory=dict)


_QUALIFIED = re.compile(r"[\w.]+[.](\w+)")  # a class named with its module: list[Reading], not a module's path


class FigureConfigError(ValueError):
    """A figure config that does not hold to the schema: one line per bad key."""


def _errors(kind, value, where: str) -> list[str]:
    """What is wrong with ``value`` as a ``kind`` at ``where`` (a key's place: profiles.paper.grid, readings[2])."""
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any:
        return []
    if origin in (types.UnionType, typing.Union):
        found = [_errors(option, value, where) for option in arguments]
        if any(not errors for errors in found):
            return []
        return min(found, key=len) if len(arguments) == 2 and type(None) in arguments else [_wrong(kind, value, where)]
    if kind is type(None):
        return [] if value is None else [_wrong(kind, value, where)]
    if dataclasses.is_dataclass(kind):
        return _dataclass_errors(kind, value, where)
    if origin is list or kind is list:
        if not isinstance(value, list):
            return [_wrong(kind, value, where)]
        item = arguments[0] if arguments else Any
        return [error for k, v in enumerate(value, 1) for error in _errors(item, v, f"{where}[{k}]")]
    if origin is dict or kind is dict:
        if not isinstance(value, dict):
            return [_wrong(kind, value, where)]
        item = arguments[1] if arguments else Any
        return [error for k, v in value.items() for error in _errors(item, v, f"{where}.{k}")]
    if kind is str:
        return [] if isinstance(value, str) and value.strip() else [_wrong("a non-empty string", value, where)]
    if kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if ok else [_wrong(kind, value, where)]
    return [] if isinstance(value, kind) else [_wrong(kind, value, where)]


def _wrong(kind, value, where: str) -> str:
    """The error of a value that is not a ``kind`` (a type, or words saying what it must be)."""
    name = kind if isinstance(kind, str) else kind.__name__ if isinstance(kind, type) else str(kind)
    return f"{where} must be {_QUALIFIED.sub(lambda found: found[1], name)}, not {value!r}"


def _dataclass_errors(kind, value, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [_wrong(f"a mapping of {kind.__name__}'s keys", value, where or "the config")]
    at = f"{where}." if where else ""
    hints = typing.get_type_hints(kind, globals())
    fields = {f.name: f for f in dataclasses.fields(kind)}
    errors = [f"unknown key {at}{key} (the keys: {', '.join(fields)})" for key in value if key not in fields]
    for name, spec in fields.items():
        if name in value:
            errors += _errors(hints[name], value[name], f"{at}{name}")
        elif spec.default is dataclasses.MISSING and spec.default_factory is dataclasses.MISSING:
            errors.append(f"missing required key {at}{name}")
    return errors


def _built(kind, value):
    """The checked ``value`` as ``kind``: dataclasses made of their keys, lists and mappings of them likewise."""
    if dataclasses.is_dataclass(kind) and isinstance(value, dict):
        hints = typing.get_type_hints(kind, globals())
        return kind(**{k: _built(hints[k], v) for k, v in value.items()})
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if origin in (types.UnionType, typing.Union):
        return next((_built(a, value) for a in arguments if not _errors(a, value, "")), value)
    if origin is list and isinstance(value, list):
        return [_built(arguments[0], v) for v in value]
    if origin is dict and isinstance(value, dict):
        return {k: _built(arguments[1], v) for k, v in value.items()}
    return value


def validated(config: dict, file: str) -> FigureSpec:
    """The figure config ``config`` (as written in ``file``, or composed) checked against the schema, as a FigureSpec;
    FigureConfigError naming the file and each bad key otherwise."""
    errors = _errors(FigureSpec, config, "")
    if not errors and config["category"] not in CATEGORIES:
        errors.append(f"category must be one of {', '.join(CATEGORIES)}, not {config['category']!r}")
    if errors:
        raise FigureConfigError(f"{file}: " + f"\n{file}: ".join(errors))
    return _built(FigureSpec, config)
