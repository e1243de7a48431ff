"""Composing configs from conf/ (inside the Hydra app or from plain Python, e.g. tests and workers)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from itertools import product
from pathlib import Path

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
