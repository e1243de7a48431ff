"""LRT14's timing claim: an online Mondrian forest learning 100 mini-batches against batch forests re-fitted on
the cumulative data after each mini-batch (LRT14 Fig. 3, bottom row), here against compiled scikit-learn.

letter (the AMF wheel's copy: LIBSVM's letter cannot be fetched offline): its 20 000 rows shuffled once (seed 0),
the first 15 000 for training (LRT14's size), the rest for test; 100 trees each, one thread. MondrianForestClassifier
as in LRT14 (lifetime inf, IKN smoothing, gamma = 10 d) learns each of the 100 mini-batches with partial_fit;
RandomForestClassifier (Breiman-RF, scikit-learn defaults) and ExtraTreesClassifier (ERT-k, k = sqrt(d)) are
fitted afresh on the first k mini-batches for k = 1..100. Training time only (prediction excluded), one run each.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

from experiments.data import load
from mondrian import MondrianForestClassifier

N_TRAIN = 15_000


def _data(name: str):
    data = load(name)
    X = np.vstack([data.X_train, data.X_test]) if len(data.X_test) else data.X_train
    y = np.concatenate([data.y_train, data.y_test]) if len(data.X_test) else data.y_train
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order], y[order]
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:]


def run(name: str = "letter_amf", n_trees: int = 100, n_batches: int = 100) -> pd.DataFrame:
    X, y, X_test, y_test = _data(name)
    bounds = np.linspace(0, len(y), n_batches + 1).astype(int)
    classes = np.unique(y)
    MondrianForestClassifier(2, random_state=0).partial_fit(X[:50], y[:50], classes=classes)  # load the kernels

    def mondrian():
        model = MondrianForestClassifier(n_trees, random_state=0, n_jobs=1)
        start = time.perf_counter()
        for a, b in itertools.pairwise(bounds):
            model.partial_fit(X[a:b], y[a:b], classes=classes)
        return model, time.perf_counter() - start

    def refitted(make):
        seconds = 0.0
        for b in bounds[1:]:
            start = time.perf_counter()
            model = make().fit(X[:b], y[:b])
            seconds += time.perf_counter() - start
        return model, seconds

    methods = {
        "MF (LRT14), partial_fit on each mini-batch": mondrian,
        "Breiman-RF, re-fitted after each mini-batch": lambda: refitted(
            lambda: RandomForestClassifier(n_trees, random_state=0, n_jobs=1)
        ),
        "ERT-k, re-fitted after each mini-batch": lambda: refitted(
            lambda: ExtraTreesClassifier(n_trees, random_state=0, n_jobs=1)
        ),
    }
    rows = []
    for method, fn in methods.items():
        model, seconds = fn()
        rows.append(
            {
                "method": method,
                "training rows": len(y),
                "trees": n_trees,
                "training s": seconds,
                "test accuracy": float(np.mean(model.predict(X_test) == y_test)),
            }
        )
    table = pd.DataFrame(rows)
    mf = table["training s"].iloc[0]
    table["speed: MF / this (target >= 10)"] = table["training s"] / mf  # ours / peer: above 1, MF is faster
    table.loc[0, "speed: MF / this (target >= 10)"] = np.nan  # MF itself: shown empty
    return table
