"""Composing configs from conf/ (inside the Hydra app or from plain Python, e.g. tests and workers), and the command
line's side of them: names checked against conf/ with "did you mean", and commands written as the user types them."""

from __future__ import annotations

import argparse
import difflib
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

CONF_DIR = Path(__file__).resolve().parent.parent / "conf"


def compose(overrides: Iterable[str] = ()) -> DictConfig:
    """The root config with Hydra command-line style overrides applied."""
    overrides = list(overrides)
    if GlobalHydra.instance().is_initialized():
        return hydra_compose("config", overrides=overrides)
    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        return hydra_compose("config", overrides=overrides)


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


def figure_profiles(figure_id: str) -> list[str]:
    """The profiles of a figure (paper, quick, offline, ...), read from its config file without composing it."""
    with open(CONF_DIR / "figure" / f"{figure_id}.yaml") as f:
        return list(yaml.safe_load(f).get("profiles") or {})


def other_data(figure_id: str, profile: str) -> str:
    """What a profile runs on in place of the paper's data, as its ``other_data`` says ("" when it runs the paper's
    data or copies of them)."""
    with open(CONF_DIR / "figure" / f"{figure_id}.yaml") as f:
        profiles = yaml.safe_load(f).get("profiles") or {}
    return str((profiles.get(profile) or {}).get("other_data") or "").strip()


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
