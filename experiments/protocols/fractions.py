"""Mini-batch fractions (LRT14 Fig. 3, MGS17 Fig. 1) and learning curves (BSP Fig. 4 and 5).

The shuffled training data is cut into ``n_batches`` mini-batches, or at the training sizes ``sizes``. Online
models learn each new mini-batch with partial_fit; batch models are re-fitted on all data seen so far.
After each mini-batch: test metrics, the cumulative training time and the forest's shape, read through the models'
public API outside the clock, nan for a model that does not tell it:

- ``leaves``: the mean number of leaves per tree (the project's forests: ``n_leaves()`` of the forest, as the BSP
  forests have, or of each tree in ``trees_``; scikit-learn's: ``get_n_leaves()`` of each tree in ``estimators_``),
  which the comparisons at matched leaves per tree read (BSP Figs. 3-5);
- ``mean_depth``: the forest's average leaf depth, the mean over its trees of the mean depth of a tree's leaves
  (root 0), for forests whose trees tell their nodes' depths and their leaves (``MondrianTree.depths()`` and
  ``leaves()``, read at the tree's lifetime: MondrianForestClassifier and MondrianForestRegressor, and ORF-Saffari,
  whose trees are MondrianTree's too); LRT14 Sec. 7 says the average depth of its forests scales as O(log N)
  (lrt14-fig3).

One-off costs (numba loading its compiled kernels, imports on first use) are paid before the clock starts, on a
throw-away model fitted to a few rows.

``final_passes`` = k > 0 (epochs, as ORF-Saffari's in LRT14 Fig. 3): after the last mini-batch an online model learns
the training data it has seen k more times, each pass in a new order and in one partial_fit call, with a row after
each pass (its fraction that of the data seen, 1 unless ``sizes`` stops short); a column ``pass`` numbers the rows'
passes (1 for the mini-batches, 2..k+1 after). Steps count every sample learnt, so pass p ends at step p * n_seen
(the logged metrics' steps never repeat). Batch models ignore it; with k = 0 the curves have no ``pass`` column.
"""

from __future__ import annotations

import itertools
import time
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd

from experiments.data import Dataset
from experiments.protocols.metrics import classification_scores, regression_scores
from experiments.protocols.result import TrialResult

REFIT_CHOICES = ("auto", "always")


def aligned_proba(estimator, X: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """predict_proba with one column per class of the dataset (a model fitted on a prefix may lack some)."""
    proba = estimator.predict_proba(X)
    out = np.zeros((len(X), len(classes)))
    out[:, np.searchsorted(classes, estimator.classes_)] = proba
    return out


def scores_on_test(estimator, dataset: Dataset) -> dict[str, float]:
    if dataset.task == "classification":
        classes = dataset.classes
        y_index = np.searchsorted(classes, dataset.y_test)
        if hasattr(estimator, "predict_proba"):
            return classification_scores(aligned_proba(estimator, dataset.X_test, classes), y_index)
        return {"accuracy": float(np.mean(estimator.predict(dataset.X_test) == dataset.y_test))}
    return regression_scores(estimator.predict(dataset.X_test), dataset.y_test)


def mean_leaves(estimator) -> float:
    """Mean number of leaves per tree: the project's forests (``n_leaves()`` of the forest or of its trees) and
    scikit-learn's (``get_n_leaves()`` of its trees), through a grid search's refitted best estimator; nan for other
    models."""
    estimator = getattr(estimator, "best_estimator_", estimator)
    if callable(getattr(estimator, "n_leaves", None)):
        return float(np.mean(estimator.n_leaves()))
    trees = list(getattr(estimator, "trees_", [])) + list(getattr(estimator, "estimators_", []))
    counts = [
        tree.n_leaves() if hasattr(tree, "n_leaves") else tree.get_n_leaves()
        for tree in trees
        if hasattr(tree, "n_leaves") or hasattr(tree, "get_n_leaves")
    ]
    return float(np.mean(counts)) if counts else float("nan")


def mean_depth(estimator) -> float:
    """The forest's average leaf depth: the mean over its trees of the mean depth of a tree's leaves (root 0), for
    forests whose trees tell their nodes' depths and their leaves (``MondrianTree``'s); nan for other models."""
    estimator = getattr(estimator, "best_estimator_", estimator)
    trees = [t for t in getattr(estimator, "trees_", []) if hasattr(t, "depths") and hasattr(t, "leaves")]
    per_tree = [t.depths()[t.leaves()] for t in trees]
    means = [d.mean() for d in per_tree if d.size]
    return float(np.mean(means)) if means else float("nan")


def checkpoint(estimator, dataset: Dataset, train_time: float) -> dict[str, float]:
    """A curve's row after an update, but its step: the cumulative training time, the forest's shape (leaves per
    tree, average leaf depth) and the test metrics."""
    shape = {"leaves": mean_leaves(estimator), "mean_depth": mean_depth(estimator)}
    return {"train_time": train_time, **shape, **scores_on_test(estimator, dataset)}


def warm_up_rows(y: np.ndarray, classes) -> np.ndarray:
    """A few rows to warm up on: the first 20, or for a classifier the first 3 of each class (a batch model may
    fit on them with stratified 3-fold cross-validation, as the grid-searched ERT does)."""
    if classes is None:
        return np.arange(min(len(y), 20))
    return np.sort(np.concatenate([np.flatnonzero(y == c)[:3] for c in classes]))


def warm_up(model: Callable, X: np.ndarray, y: np.ndarray, dataset: Dataset, online: bool) -> None:
    """Fit (online: in two updates) a throw-away model on a few rows of (X, y), the dataset's training rows in the
    order they will be learnt, and predict a few test rows with it. Its warnings are silenced: they are about its
    few rows (e.g. scikit-learn's "more than 50% unique classes" on a half of 3 rows per class), not about the trial."""
    classes = dataset.classes if dataset.task == "classification" else None
    rows = warm_up_rows(y, classes)
    estimator = model()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if online:
            first, second = rows[: len(rows) // 2], rows[len(rows) // 2 :]
            estimator.partial_fit(X[first], y[first], **({} if classes is None else {"classes": classes}))
            estimator.partial_fit(X[second], y[second])
        else:
            estimator.fit(X[rows], y[rows])
        predict = estimator.predict_proba if hasattr(estimator, "predict_proba") else estimator.predict
        predict(dataset.X_test[:10])


def run(
    model: Callable,
    dataset: Dataset,
    seed: int,
    n_batches: int = 10,
    shuffle: bool = True,
    refit: str = "auto",
    sizes: list[int] | None = None,
    final_passes: int = 0,
) -> TrialResult:
    """Learn the training data in ``n_batches`` growing fractions, or up to each of ``sizes`` (increasing training
    sizes, instead of n_batches); ``refit='always'``: re-fit online models too. An online model then makes
    ``final_passes`` more passes over the data it learnt, each in a new order drawn from the seed's generator (after
    the shuffle's draw), each in one partial_fit call (the model learns row by row: chunks would change nothing but
    the calls' overhead in the time)."""
    if refit not in REFIT_CHOICES:
        raise ValueError(f"refit must be one of {REFIT_CHOICES}, got {refit!r}")
    if isinstance(final_passes, bool) or not isinstance(final_passes, int) or final_passes < 0:
        raise ValueError(f"final_passes must be a non-negative integer, got {final_passes!r}")
    if len(dataset.X_test) == 0:
        raise ValueError(f"the fractions protocol needs a test set; {dataset.name} has none (test_size=0?)")
    X, y = dataset.X_train, dataset.y_train
    rng = np.random.default_rng(seed)
    if shuffle:
        order = rng.permutation(len(X))
        X, y = X[order], y[order]
    if sizes is None:
        bounds = np.linspace(0, len(X), n_batches + 1).astype(int)
    else:
        sizes = [int(n) for n in sizes]
        if not sizes or sizes != sorted(set(sizes)) or sizes[0] < 1 or sizes[-1] > len(X):
            raise ValueError(f"sizes must increase within 1..{len(X)} (the training set), got {sizes}")
        bounds = np.array([0, *sizes])
    estimator = model()
    online = refit == "auto" and hasattr(estimator, "partial_fit")
    fit_kwargs = {"classes": dataset.classes} if online and dataset.task == "classification" else {}
    warm_up(model, X, y, dataset, online)
    rows, train_time = [], 0.0
    for a, b in itertools.pairwise(bounds):
        start = time.perf_counter()
        if online:
            estimator.partial_fit(X[a:b], y[a:b], **fit_kwargs)
        else:
            estimator = model().fit(X[:b], y[:b])
        train_time += time.perf_counter() - start
        rows.append({"step": int(b), "pass": 1, "fraction": b / len(X), **checkpoint(estimator, dataset, train_time)})
    seen = int(bounds[-1])
    for epoch in range(2, final_passes + 2) if online else ():
        order = rng.permutation(seen)
        start = time.perf_counter()
        estimator.partial_fit(X[order], y[order])
        train_time += time.perf_counter() - start
        rows.append(
            {
                "step": epoch * seen,
                "pass": epoch,
                "fraction": seen / len(X),
                **checkpoint(estimator, dataset, train_time),
            }
        )
    curves = pd.DataFrame(rows)
    if not final_passes:
        curves = curves.drop(columns="pass")  # the curves of a single pass, as before the option
    return TrialResult(curves=curves, summary=curves.iloc[-1].drop("step").to_dict())
