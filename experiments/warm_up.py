"""The compile before the clock. numba compiles a kernel on its first call in a process (or loads it from its
cache), which takes seconds; a trial's protocol times its model's calls (``train_time``, ``test_time``), so the first
trial run in each worker process would count that compile as training. Before the protocol starts, a throw-away
copy of the model makes the calls protocols time (fit, partial_fit, the progressive loops, predict and
predict_proba) on a few rows of the trial's data; the trial then finds its kernels ready.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from experiments.data import Dataset

COMPILED = "mondrian"  # the package whose estimators run numba kernels
ROWS = 24  # enough rows for every class of a small dataset to show up, few enough to cost nothing


def _rows(dataset: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """ROWS rows spread over the training part (sorted datasets hold one class per stretch)."""
    n = len(dataset.y_train)
    index = np.unique(np.linspace(0, n - 1, min(ROWS, n)).astype(int))
    return dataset.X_train[index], dataset.y_train[index]


def _calls(model, X: np.ndarray, y: np.ndarray, classes) -> list[Callable]:
    """The calls a protocol may time, those the model has (a classifier's online calls name the classes)."""
    labels = {} if classes is None else {"classes": classes}
    calls = [lambda: model.fit(X, y)]
    if hasattr(model, "partial_fit"):
        calls.append(lambda: model.partial_fit(X, y, **labels))
    for name in ("progressive_predict_proba", "progressive_predict"):
        if hasattr(model, name):
            calls.append(lambda name=name: getattr(model, name)(X, y, **labels))
    for name in ("predict", "predict_proba"):
        if hasattr(model, name):
            calls.append(lambda name=name: getattr(model, name)(X))
    return calls


def warm_up(model: Callable, dataset: Dataset) -> None:
    """Run the model's timed calls once on a few rows of ``dataset``, on a model of its own (``model()``), so that
    their kernels are compiled or loaded in this process before any clock starts. A call that fails here is left
    for the trial itself to meet and report."""
    estimator = model()
    if type(estimator).__module__.partition(".")[0] != COMPILED:
        return  # scikit-learn's forests compile nothing (and a grid search would cost seconds for nothing)
    X, y = _rows(dataset)
    classes = dataset.classes if dataset.task == "classification" else None
    for call in _calls(estimator, X, y, classes):
        try:
            call()
        except Exception:  # the trial's own call meets it and reports it, with its traceback
            continue
