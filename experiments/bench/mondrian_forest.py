"""MondrianForestClassifier (10 trees, lifetime inf) against scikit-learn's ExtraTreesClassifier.

On a synthetic dataset of 20 000 points in 16 dimensions: time per tree per sample of
partial_fit in mini-batches and of predict_proba, and the same for ExtraTrees fitted once;
one row per comparison, with the speed ratio measured in the same run (MF / ExtraTrees:
above 1, MF is faster).
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
    return {  # what: (MF's call, its seconds, ExtraTrees' call, its seconds)
        "learning": (
            f"partial_fit, {n_batches} mini-batches",
            best_time(mondrian_partial_fit, repeats),
            "fit once",
            best_time(extra_trees_fit, repeats),
        ),
        "prediction": (
            "predict_proba",
            best_time(lambda: mondrian.predict_proba(X), repeats),
            "predict_proba",
            best_time(lambda: extra.predict_proba(X), repeats),
        ),
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
        for what, (mf_call, mf_s, extra_call, extra_s) in _timings(X, y, n_trees, n_batches, n_jobs, repeats).items():
            rows.append(
                {
                    "n_jobs": n_jobs,
                    "what": what,
                    "MF": mf_call,
                    "ExtraTrees": extra_call,
                    "samples": n_samples,
                    "trees": n_trees,
                    "MF s": mf_s,
                    "ExtraTrees s": extra_s,
                    "MF us per tree per sample": mf_s * microseconds,
                    "ExtraTrees us per tree per sample": extra_s * microseconds,
                    "speed: MF / ExtraTrees": extra_s / mf_s,
                }
            )
    return pd.DataFrame(rows)
