"""MondrianForestClassifier (10 trees, lifetime inf) against scikit-learn's ExtraTreesClassifier.

On a synthetic dataset of 20 000 points in 16 dimensions: time per tree per sample of
partial_fit in mini-batches and of predict_proba, and the same for ExtraTrees fitted once,
as ratios measured in the same run.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.ensemble import ExtraTreesClassifier

from experiments.bench import best_time
from mondrian import MondrianForestClassifier


def _timings(X, y, n_trees: int, n_batches: int, n_jobs: int, repeats: int) -> dict[str, float]:
    batches = np.array_split(np.arange(len(X)), n_batches)

    def mondrian_partial_fit():
        model = MondrianForestClassifier(n_trees, random_state=0, n_jobs=n_jobs)
        for rows in batches:
            model.partial_fit(X[rows], y[rows], classes=[0, 1])
        return model

    def extra_trees_fit():
        return ExtraTreesClassifier(n_trees, random_state=0, n_jobs=n_jobs).fit(X, y)

    mondrian, extra = mondrian_partial_fit(), extra_trees_fit()  # the first call also loads the kernels
    return {
        f"MF partial_fit, {n_batches} mini-batches": best_time(mondrian_partial_fit, repeats),
        "ExtraTrees fit once": best_time(extra_trees_fit, repeats),
        "MF predict_proba": best_time(lambda: mondrian.predict_proba(X), repeats),
        "ExtraTrees predict_proba": best_time(lambda: extra.predict_proba(X), repeats),
    }


def run(
    n_samples: int = 20_000,
    n_features: int = 16,
    n_trees: int = 10,
    n_batches: int = 100,
    n_jobs_list=(1, 2),
    repeats: int = 3,
) -> pd.DataFrame:
    X, y = make_classification(n_samples, n_features, n_informative=8, random_state=0)
    microseconds = 1e6 / (n_trees * n_samples)  # seconds -> microseconds per tree per sample
    rows = []
    for n_jobs in n_jobs_list:
        timings = _timings(X, y, n_trees, n_batches, n_jobs, repeats)
        for name, seconds in timings.items():
            rows.append(
                {
                    "n_jobs": n_jobs,
                    "what": name,
                    "samples": n_samples,
                    "trees": n_trees,
                    "seconds": seconds,
                    "us per tree per sample": seconds * microseconds,
                }
            )
        fit, extra_fit, predict, extra_predict = timings.values()
        rows.append({"n_jobs": n_jobs, "what": "ratio MF partial_fit / ExtraTrees fit", "ratio": fit / extra_fit})
        rows.append(
            {
                "n_jobs": n_jobs,
                "what": "ratio MF predict / ExtraTrees predict",
                "ratio": predict / extra_predict,
            }
        )
    return pd.DataFrame(rows)
