"""The online BSP forest bit for bit: fitted on fixed seeds, its trees and predictions equal the stored reference.

Kernel work (speed, memory layout, compile time) must not change a single tree: the same nodes in the same order,
cuts, times, statistics, hulls (vertices in order), leaf point lists, random streams left in the same state, and
the same predictions, for both estimators, both leaf rules, the increasing and a fixed budget, d = 1, 2, 3, 5, in
one batch and through several ``partial_fit`` / ``progressive_predict`` calls. ``scripts/bsp_reference.py`` defines
the cases and wrote ``data/bsp_reference.npz``; run it again only for a deliberate change of the trees' law.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bsp_reference.py"


def _reference_module():
    spec = importlib.util.spec_from_file_location("bsp_reference", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _reference_module()


@pytest.fixture(scope="module")
def stored():
    with np.load(reference.REFERENCE) as f:
        return dict(f)


@pytest.mark.parametrize("case", reference.cases(), ids=reference.name)
def test_same_trees_and_predictions(case, stored):
    prefix = reference.name(case)
    for key, got in reference.outputs(case).items():
        expected = stored[f"{prefix}/{key}"]
        if key.endswith("/digests"):
            differ = [field for j, field in enumerate(reference.FIELDS) if (got[:, j] != expected[:, j]).any()]
            assert not differ, f"{prefix}/{key}: the trees' {', '.join(differ)} differ from the reference"
        else:
            np.testing.assert_array_equal(got, expected, err_msg=f"{prefix}/{key}", strict=True)


def test_reference_covers_every_case(stored):
    """The file holds the cases the script defines, and nothing else (a stale or partial file fails here)."""
    kinds = ("predictions", "n_leaves", "digests")
    keys = {
        f"{reference.name(case)}/{run}/{kind}" for case in reference.cases() for run in reference.RUNS for kind in kinds
    }
    assert set(stored) == keys
