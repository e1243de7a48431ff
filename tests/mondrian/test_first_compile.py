"""The first compile is announced once per process (``mondrian._compile``), and not when numba's cache holds the
kernels; the ``mondrian`` logger silences it. Each case is a fresh process on its own numba cache folder."""

import os
import subprocess
import sys

import pytest

FIT_TWICE = r"""
import logging, sys
from sklearn.datasets import load_diabetes
from mondrian import MondrianPartitionForestRegressor
if sys.argv[1] == "silenced":
    logging.getLogger("mondrian").setLevel(logging.ERROR)
X, y = load_diabetes(return_X_y=True)
MondrianPartitionForestRegressor(random_state=0).fit(X, y)
MondrianPartitionForestRegressor(random_state=1).fit(X, y)
"""
MESSAGE = "mondrian: compiling the kernels of MondrianPartitionForestRegressor"


def fit_twice(cache, mode="default"):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", FIT_TWICE, mode], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr


@pytest.mark.subprocess
def test_the_first_compile_is_announced_once_then_not_once_cached_and_can_be_silenced(tmp_path):
    assert fit_twice(tmp_path / "cache").count(MESSAGE) == 1
    assert MESSAGE not in fit_twice(tmp_path / "cache")  # the kernels are in the cache now
    assert MESSAGE not in fit_twice(tmp_path / "other", "silenced")
