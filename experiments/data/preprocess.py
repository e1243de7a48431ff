"""From parsed arrays to a Dataset: the split (predefined or seeded), feature selection, min-max scaling and PCA,
each fitted on the training part unless a paper says otherwise."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.data.catalog import Entry
from experiments.data.dataset import Dataset, split

SCALER_FITS = ("train", "all")


def one_hot(frame: pd.DataFrame, columns: list) -> np.ndarray:
    """Indicator columns of the categorical ``columns`` (categories in sorted order), as float64."""
    return pd.get_dummies(frame[columns].astype(str), prefix_sep="#").to_numpy(dtype=np.float64)


def minmax(X_train: np.ndarray, X_test: np.ndarray, fit_on: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """Scale each feature to [0, 1] by the min and max of the training part (``fit_on="train"``) or of train and
    test together (``"all"``, LRT14's code); a constant feature becomes 0."""
    if fit_on not in SCALER_FITS:
        raise ValueError(f"fit_scaler_on must be one of {SCALER_FITS}, got {fit_on!r}")
    fitted = X_train if fit_on == "train" else np.vstack([X_train, X_test])
    low, high = fitted.min(axis=0), fitted.max(axis=0)
    width = np.where(high > low, high - low, 1.0)
    return (X_train - low) / width, (X_test - low) / width


def pca(X_train: np.ndarray, X_test: np.ndarray, n_components: int) -> tuple[np.ndarray, np.ndarray]:
    """Project onto the first principal components of the training part."""
    from sklearn.decomposition import PCA

    model = PCA(n_components=n_components).fit(X_train)
    return model.transform(X_train), model.transform(X_test)


def prepare(
    dataset: Entry,
    arrays: dict[str, np.ndarray],
    *,
    test_size: float | None = None,
    seed: int = 0,
    features: list[int] | None = None,
    scale: bool = True,
    fit_scaler_on: str = "train",
    n_components: int | None = None,
) -> Dataset:
    """The common preparation of a tabular dataset.

    ``arrays`` holds either a predefined split (``X_train, y_train, X_test, y_test``), kept unless ``test_size`` is
    given, or one pool (``X, y``), split at random with ``test_size`` (0: all for training) and ``seed``.
    ``features`` keeps a half-open range ``[start, stop)`` of 0-based columns (dna's 61-120 is ``[60, 120]``);
    then min-max scaling (``scale``, fit on ``fit_scaler_on``) and PCA to ``n_components`` (fit on train), whose
    components are scaled to [0, 1] again in the same way (BSP's section 5: "we re-scale the data features to the
    domain [0, 1]^d", its Fig. 3 after PCA).
    """
    names = tuple(str(n) for n in arrays.get("feature_names", ()))
    if "X_train" in arrays:
        X_train, y_train, X_test, y_test = (arrays[k] for k in ("X_train", "y_train", "X_test", "y_test"))
        predefined = test_size is None
    else:
        X_train, y_train = arrays["X"], arrays["y"]
        X_test, y_test = X_train[:0], y_train[:0]
        predefined = False
    if not predefined:
        X = np.vstack([X_train, X_test])
        y = np.concatenate([y_train, y_test])
        pooled = split(dataset.name, dataset.task, X, y, test_size or 0.0, seed)
        X_train, y_train, X_test, y_test = pooled.X_train, pooled.y_train, pooled.X_test, pooled.y_test
    X_train, X_test = np.asarray(X_train, dtype=np.float64), np.asarray(X_test, dtype=np.float64)
    if features is not None:
        start, stop = features
        X_train, X_test = X_train[:, start:stop], X_test[:, start:stop]
        names = names[start:stop]
    if scale:
        X_train, X_test = minmax(X_train, X_test, fit_scaler_on)
    if n_components is not None:
        X_train, X_test = pca(X_train, X_test, n_components)
        names = tuple(f"pc{i + 1}" for i in range(n_components))
        if scale:
            X_train, X_test = minmax(X_train, X_test, fit_scaler_on)
    metadata = {"predefined_split": predefined, "fit_scaler_on": fit_scaler_on if scale else None}
    return Dataset(dataset.name, dataset.task, X_train, y_train, X_test, y_test, names, metadata)
