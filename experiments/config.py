"""Composing configs from conf/ (inside the Hydra app or from plain Python, e.g. tests and workers), and the command
line's side of them: names checked against conf/ with "did you mean", and commands written as the user types them."""

from __future__ import annotations

import argparse
import copy
import difflib
import functools
import json
import os
import re
import shlex
import sys
from collections.abc import Iterable, Mapping
from itertools import product
from pathlib import Path

import yaml
from hydra import compose as hydra_compose
from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from omegaconf import DictConfig, ListConfig, OmegaConf

from experiments.figure_schema import FigureConfigError, validated

CONF_DIR = Path(__file__).resolve().parent.parent / "conf"


def compose(overrides: Iterable[str] = ()) -> DictConfig:
    """The root config with Hydra command-line style overrides applied, its figure config (if it has one) checked
    against the schema (experiments.figure_schema: FigureConfigError naming the file and each bad key)."""
    overrides = list(overrides)
    if GlobalHydra.instance().is_initialized():
        cfg = hydra_compose("config", overrides=overrides)
    else:
        with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
            cfg = hydra_compose("config", overrides=overrides)
    chosen = [o.partition("=")[2] for o in overrides if o.lstrip("+").partition("=")[0] == "figure"]
    check_figure(cfg, chosen[-1] if chosen else "")
    return cfg


def check_figure(cfg: DictConfig, name: str) -> None:
    """Check the figure config of a composed root config (none: nothing to check) against the schema; ``name`` is the
    figure config chosen (conf/figure/<name>.yaml), which the error names."""
    if cfg.get("figure") is not None:
        validated(OmegaConf.to_container(cfg.figure), f"conf/figure/{name or cfg.figure.get('id')}.yaml")


def override_value(value) -> str:
    """A Python value written in Hydra's override grammar."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple, ListConfig)):
        return "[" + ",".join(override_value(v) for v in value) + "]"
    return str(value)


def grid_overrides(grid) -> list[list[str]]:
    """Expand a grid into override lists: a mapping key -> values is a cartesian product;
    a list of such mappings is the union of their products (for grids that are not rectangular)."""
    if grid is None:
        return [[]]
    grids = [grid] if isinstance(grid, (Mapping, DictConfig)) else list(grid)
    combos = []
    for g in grids:
        keys = list(g.keys())
        for values in product(*(g[k] for k in keys)):
            combos.append([f"{k}={override_value(v)}" for k, v in zip(keys, values, strict=False)])
    return combos


def to_plain(cfg) -> dict:
    return OmegaConf.to_container(cfg, resolve=True) if isinstance(cfg, (DictConfig, ListConfig)) else cfg


def flatten(tree, prefix: str = "") -> dict[str, str]:
    """Nested config -> {'model.estimator.n_estimators': '10', ...}."""
    if isinstance(tree, dict):
        out = {}
        for key, value in tree.items():
            out.update(flatten(value, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: json.dumps(tree) if isinstance(tree, list) else str(tree)}


# -- the command line -------------------------------------------------------------------------------------
# The config groups a user picks by name on the command line (figure=..., dataset=..., launcher=...).
GROUPS = ("figure", "dataset", "model", "protocol", "launcher", "tracking")


def group_names(group: str) -> list[str]:
    """The names a config group accepts: its files conf/<group>/<name>.yaml."""
    return sorted(path.stem for path in (CONF_DIR / group).glob("*.yaml"))


def figure_file(figure_id: str) -> dict:
    """A figure's config file as written (conf/figure/<id>.yaml, not composed)."""
    return config_file(CONF_DIR / "figure" / f"{figure_id}.yaml")


def config_file(path: Path) -> dict:
    """A config file as written, parsed once per version of the file (the report, the store of the evidence and the
    UI's notes read the figures' files dozens of times), with libyaml; a copy: what a caller changes stays its own."""
    return copy.deepcopy(_parsed_yaml(path, path.stat().st_mtime_ns))


@functools.lru_cache(maxsize=256)
def _parsed_yaml(path: Path, version: int) -> dict:
    return yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}


def figure_profiles(figure_id: str) -> list[str]:
    """The profiles of a figure (paper, quick, offline, ...), read from its config file without composing it."""
    return list(figure_file(figure_id).get("profiles") or {})


def brief(names: list[str], width: int = 160) -> str:
    """The names in one short line: all of them if they fit ``width``, else those sharing a stem (the part before the
    first - or _) three or more times folded into ``stem*`` with their count."""
    text = ", ".join(names)
    if len(text) <= width:
        return text
    stems: dict[str, list[str]] = {}
    for name in names:
        stems.setdefault(re.split(r"[-_]", name, maxsplit=1)[0], []).append(name)
    return ", ".join(
        f"{stem}* ({len(group)})" if len(group) >= 3 else ", ".join(group) for stem, group in stems.items()
    )


def _or(names: list[str]) -> str:
    """a, b or c."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def unknown_name(kind: str, name: str, known: list[str], what: str | None = None) -> str:
    """The one-line error for a name that is not among ``known`` (``what`` says so, by default "unknown <kind>
    '<name>'"): the close ones (difflib) as "did you mean", else the known names in brief."""
    what = what or f"unknown {kind} {name!r}"
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if close:
        return f"{what}; did you mean {_or(close)}?"
    return f"{what}; the {kind}s are: {brief(known)}"


def _simple_values(value: str) -> list[str] | None:
    """The names an override's value picks (one, or several for a multirun's a,b,c); None for anything else (null,
    Hydra's sweep functions, interpolations), which is left to Hydra."""
    names = value.split(",")
    if all(re.fullmatch(r"[\w.-]+", name) for name in names) and value != "null":
        return names
    return None


def check_names(overrides: list[str], default_profile: str = "paper") -> str | None:
    """The first unknown config group choice or figure profile among command-line overrides, as a one-line error with
    "did you mean"; None if every name is known. Checked before Hydra composes, whose own error lists every option of
    the group (and an unknown profile would only fail deep inside the run)."""
    chosen = {}
    for override in overrides:
        key, sep, value = override.lstrip("+~").partition("=")
        if sep and key in GROUPS and _simple_values(value):
            known = group_names(key)
            for name in _simple_values(value):
                if name not in known:
                    return unknown_name(key, name, known)
            chosen[key] = _simple_values(value)
        elif sep and key == "profile" and _simple_values(value):
            chosen["profile"] = _simple_values(value)
    for figure_id in chosen.get("figure", []):
        profiles = figure_profiles(figure_id)
        for profile in chosen.get("profile", [default_profile]):
            if profile not in profiles:
                return unknown_name("profile", profile, profiles, f"figure {figure_id} has no profile {profile!r}")
    return None


TRIAL_GROUPS = ("dataset", "model", "protocol")


def figure_runs(figure_id: str) -> dict[str, list[str]]:
    """The dataset, model and protocol choices of a figure's trials (its ``trials`` and its profiles' grids), read
    from its config file: group -> names, an empty list for a group its trials leave out (``~dataset``)."""
    figure = figure_file(figure_id)
    runs: dict[str, list[str]] = {}
    for override in figure.get("trials") or []:
        key, _, name = override.partition("=")
        if key.lstrip("~") in TRIAL_GROUPS:
            runs[key.lstrip("~")] = [] if key.startswith("~") else [name]
    for profile in (figure.get("profiles") or {}).values():
        grid = profile.get("grid") or []
        for point in [grid] if isinstance(grid, dict) else grid:
            for group in set(TRIAL_GROUPS) & set(point):
                runs.setdefault(group, []).extend(n for n in point[group] if n not in runs[group])
    return runs


def check_figure_configs(overrides: list[str]) -> str | None:
    """The figure configs chosen among command-line overrides checked against the schema, before Hydra composes them
    (whose error would come with a stack trace): the first bad one's error, one line per bad key; None if they hold.
    Their names are known (check_names)."""
    for override in overrides:
        key, sep, value = override.lstrip("+").partition("=")
        for name in (_simple_values(value) or []) if sep and key == "figure" else []:
            try:
                validated(figure_file(name), f"conf/figure/{name}.yaml")
            except FigureConfigError as error:
                return str(error)
    return None


def check_figure_choices(overrides: list[str]) -> str | None:
    """A trial group chosen on the command line that the figure chosen there does not run, as a one-line error: another
    protocol than the figure's (it measures what the figure draws), or a dataset or model for a figure that runs
    none. Hydra would fail inside the figure's grid (a setting of the figure's protocol that the other one lacks), or
    every trial would."""
    chosen = {}
    for override in overrides:
        key, sep, value = override.partition("=")
        if sep and key in ("figure", *TRIAL_GROUPS) and _simple_values(value):
            chosen[key] = _simple_values(value)
    for figure_id in chosen.get("figure", []):
        runs = figure_runs(figure_id)
        for group in TRIAL_GROUPS:
            for name in chosen.get(group, []):
                if runs.get(group) == []:
                    return f"figure {figure_id} runs no {group}: leave out {group}={name}"
                if group == "protocol" and name not in runs[group]:
                    return f"figure {figure_id} runs protocol {_or(runs[group])}, not {name}: leave out protocol={name}"
    return None


# Settings that count something (trees, points, replicates, repeats, ...): a positive integer.
_COUNTS = re.compile(r"n_(?!jobs$)\w+|replicates|repeats|\w+_trees")


def expected_value(key: str, value, default) -> str | None:
    """What the setting ``key`` takes, if ``value`` is not that (None if it is): a seed a non-negative integer,
    ``n_jobs`` -1 or a positive integer, a count a positive integer, any other setting a value of the kind of its
    config value ``default`` (an integer, a number, true or false, a list; anything where that is null, text or an
    interpolation). Null is taken by any setting but a seed."""
    name = key.rsplit(".", 1)[-1]
    integer = isinstance(value, int) and not isinstance(value, bool)
    if name == "seed":
        return None if integer and value >= 0 else "a non-negative integer"
    if value is None:
        return None
    if name == "n_jobs":
        return None if integer and (value == -1 or value >= 1) else "-1 (one per core) or a positive integer"
    if _COUNTS.fullmatch(name) and (default is None or type(default) is int):
        return None if integer and value >= 1 else "a positive integer"
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(default, int):
        return None if integer else "an integer"
    if isinstance(default, float):
        return None if integer or isinstance(value, float) else "a number"
    if isinstance(default, list):
        return None if isinstance(value, list) else "a list"
    return None


def _settings(tree, prefix: str = "") -> dict:
    """Every setting of a config (as plain containers, unresolved): dotted key -> value, nested ones included."""
    found = {}
    for key, value in tree.items():
        found[f"{prefix}{key}"] = value
        if isinstance(value, dict):
            found.update(_settings(value, f"{prefix}{key}."))
    return found


def _close_settings(key: str, settings: dict) -> list[str]:
    """The settings a mistyped ``key`` may mean: those beside it with a close name, else those anywhere with a close
    last name (n_jobs -> launcher.n_jobs), else those with a close whole key; closest first."""
    parent, _, name = key.rpartition(".")
    last = {k: k.rpartition(".")[2] for k in settings}
    for candidates in ({k: n for k, n in last.items() if k.rpartition(".")[0] == parent}, last):
        near = difflib.get_close_matches(name, set(candidates.values()), n=3, cutoff=0.75)
        if near:
            return sorted((k for k in candidates if candidates[k] in near), key=lambda k: near.index(last[k]))[:3]
    return difflib.get_close_matches(key, [k for k in settings if not key.startswith(f"{k}.")], n=3, cutoff=0.8)


def unknown_setting(key: str, settings: dict) -> str:
    """The one-line error for a setting that is not in the config (``settings``, from ``_settings``): the close ones
    as "did you mean", else the settings beside where it would be."""
    close = _close_settings(key, settings)
    if close:
        return f"unknown setting {key!r}; did you mean {_or(close)}?"
    parent = key.rpartition(".")[0]
    while parent and parent not in settings:
        parent = parent.rpartition(".")[0]
    node = settings[parent] if parent else {k: v for k, v in settings.items() if "." not in k}
    if not isinstance(node, dict):
        return f"unknown setting {key!r}; {parent} is a value, not a group of settings"
    return f"unknown setting {key!r}; the settings of {parent or 'the config'} are: {brief(sorted(node))}"


def _parsed(overrides: list[str]) -> list | None:
    """Hydra's parse of the overrides (``key=value``, ``~key``, ``+key=value``), None if Hydra cannot parse them (its
    own error then says why)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    try:
        lines = [o for o in overrides if not o.startswith("-") and ("=" in o or o.startswith("~"))]  # no --flags
        return OverridesParser.create().parse_overrides(lines)
    except HydraException:
        return None


def _group_choice(override) -> str | None:
    """The override as a config group choice composed from (a multirun's first choice), or None for a setting."""
    if override.key_or_group not in GROUPS:
        return None
    if override.is_sweep_override():
        first = getattr(override.value(), "list", [None])[0]
        return f"{override.get_key_element()}={override_value(first)}"
    return override.input_line


def _figure_setting(key: str, overrides: list[str]) -> str | None:
    """For a setting that is not in the config the command line composes, but in a dataset, model or protocol that
    the figure chosen runs (its protocol's setting, say): the one-line error that says which choice adds it."""
    group = key.split(".", 1)[0]
    figures = [v for o in overrides if o.startswith("figure=") for v in _simple_values(o.partition("=")[2]) or []]
    if group not in TRIAL_GROUPS or len(figures) != 1:
        return None
    for name in figure_runs(figures[0]).get(group, []):
        if key in _settings(OmegaConf.to_container(compose([f"{group}={name}"]), resolve=False)):
            return f"{key!r} is a setting of {group} {name}, which figure {figures[0]} runs: add {group}={name}"
    return None


def check_settings(overrides: list[str]) -> str | None:
    """The first override of a setting that is not in the config (Hydra's error would offer to add it: ``+key=...``),
    or whose value the setting does not take (which every trial would fail with, ``expected_value``), as a one-line
    error; None if all are good. The config is composed from the overrides' group choices (their names known:
    ``check_names``); Hydra's own settings, package overrides and sweeps other than lists (range, glob) are left to
    Hydra, as is a command line it cannot parse or compose."""
    parsed = _parsed(overrides)
    if parsed is None:
        return None
    try:
        root = compose(line for line in map(_group_choice, parsed) if line is not None)
    except Exception:  # Hydra says why when it composes the same
        return None
    settings = _settings(OmegaConf.to_container(root, resolve=False))
    for override in parsed:
        key = override.key_or_group
        if key in GROUPS or key.split(".")[0] == "hydra" or "/" in key or override.package is not None:
            continue
        adds = override.is_add() or override.is_force_add()
        if not adds and key not in settings:
            return _figure_setting(key, overrides) or unknown_setting(key, settings)
        sweep = override.value() if override.is_sweep_override() else None
        if override.is_delete() or (sweep is not None and not hasattr(sweep, "list")):
            continue
        for value in sweep.list if sweep is not None else [override.value()]:
            if isinstance(value, str) and "${" in value:
                continue  # an interpolation: resolved when the trial runs
            expected = expected_value(key, value, settings.get(key))
            if expected is not None:
                return f"{key}={override_value(value)}: expected {expected}"
    return None


# make's variables for the settings its reproduce-figure and figures targets pass on; other overrides go in ARGS.
MAKE_VARIABLES = {"figure": "FIG", "profile": "PROFILE"}


def under_make() -> bool:
    """Whether make started this command (make puts MAKELEVEL into its commands' environment): hints then name make's
    variables, which the user typed, instead of the overrides make turned them into."""
    return "MAKELEVEL" in os.environ


def setting(key: str, value) -> str:
    """One setting as the user would type it: ``key=value`` for Hydra, or under make its variable (``PROFILE=offline``,
    ``ARGS="allow_missing=true"``)."""
    if not under_make():
        return f"{key}={value}"
    if key in MAKE_VARIABLES:
        return f"{MAKE_VARIABLES[key]}={value}"
    return f'ARGS="{key}={value}"'


class OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one line, without the usage block (``--help`` shows it); exit status 2, as argparse."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def python_command(module: str, argv: list[str]) -> str:
    """``python -m module argv...`` as a shell line, with the interpreter that runs this one (relative to the working
    directory when inside it: ``.venv/bin/python``)."""
    python = Path(sys.executable)
    if python.is_relative_to(Path.cwd()):
        python = python.relative_to(Path.cwd())
    return shlex.join([str(python), "-m", module, *argv])


def make_command(target: str, variables: dict[str, str], args: list[str]) -> str:
    """``make target VAR=value ARGS="..."`` as a shell line."""
    line = shlex.join(["make", target, *(f"{name}={value}" for name, value in variables.items())])
    if args:
        line += ' ARGS="' + re.sub(r'(["\\$`])', r"\\\1", " ".join(args)) + '"'
    return line
