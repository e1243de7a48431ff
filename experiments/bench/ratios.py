"""A few speed ratios in seconds, for `make compare`: ours against scikit-learn's forests measured in the same run.

``make bench`` takes tens of minutes; these take a few seconds each once the kernels are compiled: each estimator's
learning and prediction on 4000 x 10 synthetic points, 10 trees, against ExtraTrees fitted once on the same points,
each timed at its best of 3 rounds in turn (experiments.bench.best_in_turn), after a warm-up call that compiles the
kernels. A ratio is the peer's time over ours (above 1, ours is faster).

`make compare` runs this file at each commit compared, with that commit's library on the path:
``python -P experiments/bench/ratios.py --out ratios.json`` (the same measuring code for both commits).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor

from experiments.bench import best_in_turn
from mondrian import AMFClassifier, MondrianForestClassifier, MondrianForestRegressor

N_SAMPLES, N_FEATURES, N_TREES, N_BATCHES, REPEATS = 4000, 10, 10, 20, 3


def _batches(n_rows: int) -> list[np.ndarray]:
    return np.array_split(np.arange(n_rows), N_BATCHES)


def _online(make: Callable[[], object], X: np.ndarray, y: np.ndarray, **fit) -> Callable[[], object]:
    """A call that learns the rows in N_BATCHES mini-batches with ``partial_fit``."""

    def learn():
        model = make()
        for rows in _batches(len(X)):
            model.partial_fit(X[rows], y[rows], **fit)
        return model

    return learn


def timings(n_samples: int = N_SAMPLES, repeats: int = REPEATS) -> dict[str, float]:
    """Each ratio by name: peer's seconds / ours, at their best of ``repeats`` rounds in turn."""
    X, y = make_classification(n_samples, N_FEATURES, n_informative=5, random_state=0)
    Xr, yr = make_regression(n_samples, N_FEATURES, noise=1.0, random_state=0)
    calls = {
        "MF": _online(lambda: MondrianForestClassifier(N_TREES, random_state=0), X, y, classes=[0, 1]),
        "AMF": _online(lambda: AMFClassifier(N_TREES, random_state=0), X, y, classes=[0, 1]),
        "MF regressor": _online(lambda: MondrianForestRegressor(N_TREES, random_state=0), Xr, yr),
        "ExtraTrees": lambda: ExtraTreesClassifier(N_TREES, random_state=0).fit(X, y),
        "ExtraTrees regressor": lambda: ExtraTreesRegressor(N_TREES, random_state=0).fit(Xr, yr),
    }
    for call in calls.values():  # compiles the kernels (or loads them from numba's cache) before any clock starts
        call()
    learning, models = best_in_turn(calls, repeats)
    predicting, _ = best_in_turn(
        {name: (lambda m=models[name]: m.predict_proba(X)) for name in ("MF", "AMF", "ExtraTrees")}, repeats
    )
    return {
        "MondrianForestClassifier partial_fit / ExtraTreesClassifier fit": learning["ExtraTrees"] / learning["MF"],
        "AMFClassifier partial_fit / ExtraTreesClassifier fit": learning["ExtraTrees"] / learning["AMF"],
        "MondrianForestRegressor partial_fit / ExtraTreesRegressor fit": (
            learning["ExtraTrees regressor"] / learning["MF regressor"]
        ),
        "MondrianForestClassifier predict_proba / ExtraTreesClassifier's": predicting["ExtraTrees"] / predicting["MF"],
        "AMFClassifier predict_proba / ExtraTreesClassifier's": predicting["ExtraTrees"] / predicting["AMF"],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the ratios as JSON, name -> ratio")
    parser.add_argument("--samples", type=int, default=N_SAMPLES, help=f"rows of each dataset (default {N_SAMPLES})")
    args = parser.parse_args(argv)
    args.out.write_text(json.dumps(timings(args.samples), indent=2) + "\n")


if __name__ == "__main__":
    main()
