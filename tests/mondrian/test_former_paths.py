"""Models pickled before the library's families moved into folders (``mondrian/bsp/``, ``mondrian/orf/``, ...) load
and predict as they did: ``data/models_pickled_before_folders.pkl`` was written by the code of the commit before the
move (one fitted model of each estimator, with its predictions on 10 rows), and its pickles name the modules' former
paths (``mondrian._orf``, ``mondrian._bsp_nodes``, ...). ``mondrian.hull``, a public module, still imports, with a
FutureWarning naming its new path."""

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mondrian
from mondrian._former_paths import FORMER_PATHS

STORED = Path(__file__).parent / "data" / "models_pickled_before_folders.pkl"


def test_models_pickled_before_the_move_load_and_predict_the_same():
    stored = pickle.loads(STORED.read_bytes())
    assert len(stored["models"]) == len(mondrian.__all__) - 2  # every estimator (not MondrianTree, sample_mondrian)
    for model, expected in zip(stored["models"], stored["predictions"], strict=True):
        predicted = model.predict_proba(stored["X"]) if hasattr(model, "predict_proba") else model.predict(stored["X"])
        np.testing.assert_array_equal(predicted, expected)


@pytest.mark.parametrize("former", sorted(FORMER_PATHS))
def test_a_former_path_is_the_module_at_its_new_path(former):
    # a fresh interpreter: this one may have imported the former path already
    code = (
        "import importlib, warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    former = importlib.import_module({former!r})\n"
        f"now = importlib.import_module({FORMER_PATHS[former]!r})\n"
        "assert former is now\n"
        "print(sorted({type(w.message).__name__ + ': ' + str(w.message) for w in caught}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    if former.rpartition(".")[2].startswith("_"):  # a private path: nothing to tell a user
        assert out.strip() == "[]"
    else:
        assert f"FutureWarning: {former} has moved to {FORMER_PATHS[former]}" in out


def test_the_former_paths_are_no_modules_of_the_library():
    """A former path that is a file again would be found first and hide the module at its new path."""
    root = Path(mondrian.__file__).parent
    for former in FORMER_PATHS:
        assert not (root / (former.removeprefix("mondrian.").replace(".", "/") + ".py")).exists(), former
