"""Kernels compiled without reference counting (``mondrian._compile.kernel(refcounts=False)``: AMF's loops over points,
the extension's new parent, BSP's hull tests) leave numba's memory accounting balanced: such a kernel holding an array
a call returned to it (never released), or returning one it does not own (released twice), shows as allocations
without frees, or the reverse. The same rows learnt and predicted again, then the models dropped, must free every
allocation they made."""

import gc

import numpy as np
import pytest
from numba.core.runtime import _nrt_python, rtsys

from mondrian import AMFClassifier, AMFRegressor, MondrianForestRegressor, OnlineBSPForestRegressor


@pytest.fixture
def nrt_stats():
    enabled = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    yield
    if not enabled:
        _nrt_python.memsys_disable_stats()


def unreleased() -> tuple[int, int]:
    """Allocations not freed: (blocks, meminfos)."""
    stats = rtsys.get_allocation_stats()
    return stats.alloc - stats.free, stats.mi_alloc - stats.mi_free


def learn_and_predict(X, y, labels):
    classifier = AMFClassifier(n_estimators=3, random_state=0)
    classifier.progressive_predict_proba(X[:300], labels[:300], classes=[0, 1, 2])
    classifier.partial_fit(X[300:], labels[300:]).predict_proba(X)
    for x, label in zip(X[:20], labels[:20], strict=True):
        classifier.predict_proba_one(x)
        classifier.learn_one(x, label)
    AMFClassifier(n_estimators=2, random_state=1, prediction="split").fit(X, labels).predict_proba(X)
    AMFRegressor(n_estimators=2, random_state=2).fit(X, y).predict(X)
    MondrianForestRegressor(n_estimators=2, lifetime=1.0, random_state=3).fit(X, y).predict(X)
    for rule in ("text", "law"):
        OnlineBSPForestRegressor(2, leaf_sampling=rule, random_state=4).partial_fit(X, y).predict(X)


def test_kernels_without_reference_counting_leave_no_allocation_behind(nrt_stats):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(600, 4))
    y = np.sin(4 * X[:, 0]) + X[:, 1]
    labels = (3 * X[:, 2]).astype(int)
    learn_and_predict(X, y, labels)  # compiles or loads every kernel first
    gc.collect()
    before = unreleased()
    learn_and_predict(X, y, labels)
    gc.collect()
    assert unreleased() == before
