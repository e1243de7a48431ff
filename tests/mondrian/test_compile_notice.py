"""The compile notice (``mondrian._compile``) is logged when numba compiles one of the library's kernels, and only
then: never in a process whose kernels are all in numba's cache, whatever path an estimator's defaults run; it names
the estimator (or public function) whose call compiles them."""

import json
import logging
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

import mondrian
from mondrian import MondrianForestRegressor, _compile, tree
from mondrian._family import MondrianFamily

NOTICE = "mondrian: compiling the kernels of"

FIT_EACH = r"""
import json, logging
from sklearn.base import BaseEstimator
from sklearn.datasets import load_diabetes, load_iris
import mondrian

notices = []
handler = logging.Handler()
handler.emit = lambda record: notices.append(record.getMessage())
logging.getLogger("mondrian").addHandler(handler)
for name in mondrian.__all__:
    Model = getattr(mondrian, name)
    if isinstance(Model, type) and issubclass(Model, BaseEstimator):
        X, y = (load_iris if "Classifier" in name else load_diabetes)(return_X_y=True)
        Model().fit(X, y).predict(X)
print(json.dumps(notices))
"""


def notices_of_a_fresh_process(env: dict | None = None) -> list[str]:
    """The mondrian logger's records in a new process fitting every public estimator at its defaults."""
    done = subprocess.run(
        [sys.executable, "-c", FIT_EACH], env=env, capture_output=True, text=True, timeout=1200, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.subprocess
def test_a_process_whose_kernels_are_cached_announces_no_compile():
    notices_of_a_fresh_process()  # fills numba's cache (next to the sources) with what the defaults compile
    assert notices_of_a_fresh_process() == []


@pytest.mark.slow
def test_a_cold_cache_announces_the_compile_once_naming_the_estimator(tmp_path):
    script = r"""
from sklearn.datasets import load_iris
from mondrian import MondrianForestClassifier
X, y = load_iris(return_X_y=True)
MondrianForestClassifier().fit(X, y).predict(X)
MondrianForestClassifier().fit(X, y)
"""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.count(NOTICE) == 1 and f"{NOTICE} MondrianForestClassifier," in done.stderr


def compile_a_kernel_of(module: str):
    """A new numba function of ``module``, compiled (uncached) by its first call."""
    namespace = {"__name__": module}
    exec("def plus_one(x):\n    return x + 1\n", namespace)
    return numba.njit(namespace["plus_one"])(1)


@pytest.fixture
def fresh_notices(monkeypatch, caplog):
    monkeypatch.setattr(_compile, "_announced", set())
    caplog.set_level(logging.WARNING, logger="mondrian")
    return caplog


def test_compiling_a_library_kernel_announces_it_once(fresh_notices):
    compile_a_kernel_of("mondrian._a_kernel_module")
    compile_a_kernel_of("mondrian._another_one")
    assert [r.getMessage().split(",")[0] for r in fresh_notices.records] == [f"{NOTICE} mondrian"]


def test_compiling_other_code_announces_nothing(fresh_notices):
    compile_a_kernel_of("someone_elses_module")
    assert not fresh_notices.records


class Recorded(Exception):
    pass


def test_the_notice_names_the_estimator_whose_threads_compile(monkeypatch):
    class MyForest(MondrianForestRegressor):
        pass

    names = []

    def learn_tree(self, *args):
        names.append(_compile._caller())

    monkeypatch.setattr(MondrianFamily, "learn", learn_tree)
    X = np.random.default_rng(0).uniform(size=(20, 2))
    MyForest(n_estimators=4, n_jobs=2).fit(X, X[:, 0])
    assert names == ["MyForest"] * 4


def test_the_notice_names_a_public_function_outside_estimators(monkeypatch):
    def record(*args):
        raise Recorded(_compile._caller())

    monkeypatch.setattr(tree, "sample_partition", record)
    with pytest.raises(Recorded, match=r"^sample_mondrian$"):
        mondrian.sample_mondrian(1.0, [0.0], [1.0], random_state=0)
