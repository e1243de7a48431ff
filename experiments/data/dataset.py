"""The one value every loader returns: arrays, their split, metadata and a content hash."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

TASKS = ("classification", "regression")


@dataclass(frozen=True)
class Dataset:
    """A dataset with its train/test split (``X_test`` has 0 rows when everything is for training)."""

    name: str
    task: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    feature_names: tuple[str, ...] = ()
    metadata: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {self.task!r}")
        for X, y, part in ((self.X_train, self.y_train, "train"), (self.X_test, self.y_test, "test")):
            if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
                raise ValueError(f"{self.name}: {part} arrays have shapes {X.shape} and {y.shape}")
        if self.X_train.shape[1] != self.X_test.shape[1]:
            raise ValueError(f"{self.name}: train and test have different numbers of features")

    @property
    def n_features(self) -> int:
        return self.X_train.shape[1]

    @property
    def classes(self) -> np.ndarray:
        """Every label of the dataset (train and test), for classifiers that learn online."""
        if self.task != "classification":
            raise ValueError(f"{self.name} is a regression dataset")
        return np.unique(np.concatenate([self.y_train, self.y_test]))

    @cached_property
    def content_hash(self) -> str:
        """sha256 of the arrays (values, dtypes, shapes), the identity of the data a trial saw."""
        h = hashlib.sha256()
        for a in (self.X_train, self.y_train, self.X_test, self.y_test):
            a = np.ascontiguousarray(a)
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes() if a.dtype != object else repr(a.tolist()).encode())
        return h.hexdigest()


def split(name: str, task: str, X, y, test_size: float, seed: int, feature_names=(), **metadata) -> Dataset:
    """A Dataset from full arrays, with a random train/test split (stratified for classification)."""
    from sklearn.model_selection import train_test_split

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if test_size == 0:
        return Dataset(name, task, X, y, X[:0], y[:0], tuple(feature_names), metadata)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=test_size, random_state=seed, stratify=y if task == "classification" else None
    )
    return Dataset(name, task, X_train, y_train, X_test, y_test, tuple(feature_names), metadata)
