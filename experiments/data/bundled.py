"""The small datasets bundled inside scikit-learn (no network)."""

from __future__ import annotations

from sklearn import datasets as skd

from experiments.data.dataset import split

_LOADERS = {
    "iris": (skd.load_iris, "classification"),
    "wine": (skd.load_wine, "classification"),
    "breast_cancer": (skd.load_breast_cancer, "classification"),
    "digits": (skd.load_digits, "classification"),
    "diabetes": (skd.load_diabetes, "regression"),
}


def bundled(name: str, test_size: float = 0.3, seed: int = 0):
    """One of scikit-learn's bundled datasets with a seeded train/test split."""
    if name not in _LOADERS:
        raise ValueError(f"unknown bundled dataset {name!r}; choose one of {sorted(_LOADERS)}")
    load, task = _LOADERS[name]
    data = load()
    names = [str(f) for f in getattr(data, "feature_names", [])]
    return split(name, task, data.data, data.target, test_size, seed, feature_names=names, source="scikit-learn")
