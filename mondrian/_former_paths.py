"""The library's former module paths, from before its families got folders of their own (``mondrian/bsp/``, ...):
importing one gives the module now at its new path, so that models pickled before the move load (a pickle names the
modules of its classes: ``mondrian._orf``, ``mondrian._bsp_nodes``, ...) and ``mondrian.hull``, a public module,
keeps working, with a FutureWarning naming its new path."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType

# former path -> the module's path now
FORMER_PATHS = {
    "mondrian.hull": "mondrian.bsp.hull",
    "mondrian._amf": "mondrian.amf._kernels",
    "mondrian._bsp": "mondrian.bsp._kernels",
    "mondrian._bsp_family": "mondrian.bsp._family",
    "mondrian._bsp_nodes": "mondrian.bsp._nodes",
    "mondrian._bsp_tree": "mondrian.bsp._tree",
    "mondrian._small_blocks": "mondrian.bsp._small_blocks",
    "mondrian._orient": "mondrian.bsp._orient",
    "mondrian._hypot": "mondrian.bsp._hypot",
    "mondrian._cells": "mondrian.partition._cells",
    "mondrian._family_points": "mondrian.forest._family_points",
    "mondrian._ikn": "mondrian.forest._ikn",
    "mondrian._increasing": "mondrian.forest._increasing",
    "mondrian._path_mean": "mondrian.forest._path_mean",
    "mondrian._paused": "mondrian.forest._paused",
    "mondrian._orf": "mondrian.orf._kernels",
    "mondrian._orf_family": "mondrian.orf._family",
    "mondrian._orf_tree": "mondrian.orf._tree",
}


class FormerPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """An import finder, last on ``sys.meta_path``, that answers a former path with the module at its new one."""

    def find_spec(self, fullname, path=None, target=None) -> importlib.machinery.ModuleSpec | None:
        return importlib.util.spec_from_loader(fullname, self) if fullname in FORMER_PATHS else None

    def create_module(self, spec) -> ModuleType:
        now = FORMER_PATHS[spec.name]
        if not spec.name.rpartition(".")[2].startswith("_"):
            warnings.warn(
                f"{spec.name} has moved to {now}: import it from there ({spec.name} will be removed in a future "
                "release)",
                FutureWarning,
                stacklevel=2,
            )
        return importlib.import_module(now)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module was imported at its new path."""


def install() -> None:
    """Put the finder last on ``sys.meta_path`` (once): modules at their paths today are found first."""
    if not any(isinstance(finder, FormerPaths) for finder in sys.meta_path):
        sys.meta_path.append(FormerPaths())
