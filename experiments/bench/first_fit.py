"""The first fit a new user waits for: each public estimator fitted once, in a fresh Python process, on iris
(classifiers) or diabetes (regressors), with defaults but ``random_state=0``.

Cold: numba's cache directory empty (``NUMBA_CACHE_DIR`` pointed at a new folder), so every kernel the fit needs is
compiled. Cached: a second process on the same folder, which loads the compiled kernels. Both times run from before
``import mondrian`` to the end of ``fit``, as the user sees them; the in-process time of a second ``fit`` on a fresh
estimator is the work itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pandas as pd

ESTIMATORS = (
    "MondrianForestClassifier",
    "MondrianForestRegressor",
    "AMFClassifier",
    "AMFRegressor",
    "MondrianPartitionForestClassifier",
    "MondrianPartitionForestRegressor",
    "OnlineBSPForestClassifier",
    "OnlineBSPForestRegressor",
    "OnlineRandomForestClassifier",
)
TARGET_SECONDS = 10.0  # the library issue's target for a cold first fit on iris

_FIT = """
import json, sys, time
start = time.perf_counter()
import mondrian
from sklearn.datasets import load_diabetes, load_iris
name = sys.argv[1]
X, y = (load_iris if "Classifier" in name else load_diabetes)(return_X_y=True)
Model = getattr(mondrian, name)
Model(random_state=0).fit(X, y)
first = time.perf_counter() - start
start = time.perf_counter()
Model(random_state=0).fit(X, y)
print(json.dumps({"first": first, "again": time.perf_counter() - start}))
"""


def _fit_in_fresh_process(name: str, cache: str) -> dict[str, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    done = subprocess.run([sys.executable, "-c", _FIT, name], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(estimators=ESTIMATORS) -> pd.DataFrame:
    """One row per estimator: cold and cached first-fit seconds, the second fit's seconds, and the cold time's
    ratio to the target (at most 1 meets it)."""
    rows = []
    for name in estimators:
        with tempfile.TemporaryDirectory() as cache:
            cold = _fit_in_fresh_process(name, cache)
            cached = _fit_in_fresh_process(name, cache)
        rows.append(
            {
                "estimator": name,
                "cold first fit (s)": cold["first"],
                "cached first fit (s)": cached["first"],
                "second fit (s)": cached["again"],
                "cold / target": cold["first"] / TARGET_SECONDS,
            }
        )
        print(f"  {name}: cold {cold['first']:.1f} s, cached {cached['first']:.1f} s", flush=True)
    return pd.DataFrame(rows)
