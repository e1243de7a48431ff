"""The LIBSVM multiclass datasets of LRT14, MGS17 and BSP (usps, satimage, letter, dna and LRT14's dna 61-120).

Files in LIBSVM's sparse text format (``label index:value ...``, 1-based indices, zeros omitted), plain or
bzip2-compressed, as https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/ serves them. The catalog
entry names which files form each part (``train``, ``val``, ``test``), the number of features (a file need not
mention the last ones) and the label set, whose order gives the class codes 0..K-1 in every part alike.
"""

from __future__ import annotations

import bz2
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from experiments.data import preprocess
from experiments.data.catalog import Entry
from experiments.data.dataset import Dataset

PARTS = ("train", "val", "test")
BZIP2_MAGIC = b"BZh"


def read_file(path: Path, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """Dense features (float64, ``n_features`` columns) and raw labels of one LIBSVM file, bzip2 or plain."""
    from sklearn.datasets import load_svmlight_file

    data = path.read_bytes()
    if data.startswith(BZIP2_MAGIC):
        data = bz2.decompress(data)
    try:
        X, y = load_svmlight_file(io.BytesIO(data), n_features=n_features, dtype=np.float64, zero_based=False)
    except ValueError as error:
        raise ValueError(f"{path.name}: not a LIBSVM file with {n_features} features: {error}") from error
    return X.toarray(), y


def class_codes(raw: np.ndarray, labels: Sequence[float], where: str) -> np.ndarray:
    """Class codes 0..K-1: the position of each raw label in the catalog's ``labels`` (not in the data's own
    label set, so that a class missing from one file shifts nothing)."""
    code_of = {float(label): code for code, label in enumerate(labels)}
    values, inverse = np.unique(raw, return_inverse=True)
    unknown = [v for v in values.tolist() if v not in code_of]
    if unknown:
        raise ValueError(f"{where}: labels {unknown} are not in the catalog's label set {list(labels)}")
    return np.array([code_of[v] for v in values.tolist()], dtype=np.int64)[inverse.ravel()]


def parse(
    files: Mapping[str, Path], *, n_features: int, labels: Sequence[float], parts: Mapping[str, Sequence[str]]
) -> dict[str, np.ndarray]:
    """``X_<part>, y_<part>`` for each part (``train`` and ``test`` required, ``val`` optional), each the rows of its
    files in the order listed, and ``feature_names`` x1..xD (LIBSVM's 1-based attribute numbers)."""
    if len({float(label) for label in labels}) != len(labels):
        raise ValueError(f"the label set {list(labels)} has repeated labels")
    unknown = sorted(set(parts) - set(PARTS))
    if unknown or not {"train", "test"} <= set(parts):
        raise ValueError(f"parts must name train and test files (val optional), got {sorted(parts)}")
    arrays = {}
    for part, names in parts.items():
        read = [read_file(files[name], n_features) for name in names]
        arrays[f"X_{part}"] = np.vstack([X for X, _ in read])
        arrays[f"y_{part}"] = class_codes(np.concatenate([y for _, y in read]), labels, f"{part} ({', '.join(names)})")
    arrays["feature_names"] = np.array([f"x{j}" for j in range(1, n_features + 1)])
    return arrays


def prepare(
    dataset: Entry,
    arrays: dict[str, np.ndarray],
    *,
    pool: Sequence[str] | None = None,
    test_size: float | None = None,
    **options,
) -> Dataset:
    """The generic :func:`experiments.data.preprocess.prepare`, plus ``pool``: the parts to pool before a random
    split with ``test_size`` and ``seed``. BSP (Fig. 3) splits LIBSVM's whole training file, i.e. ``[train, val]``
    for satimage and dna (N = 4435, 2000) and ``[train]`` for letter (tr + val, 15000) and usps (7291). Without
    ``pool`` the predefined train/test split is kept (LRT14, MGS17) and the ``val`` part, if any, is unused."""
    if pool is None:
        return preprocess.prepare(dataset, arrays, test_size=test_size, **options)
    pool = [str(part) for part in pool]
    missing = [part for part in pool if f"X_{part}" not in arrays]
    if missing:
        present = [part for part in PARTS if f"X_{part}" in arrays]
        raise ValueError(f"{dataset.name} has no part {missing} to pool; it has {present}")
    if test_size is None:
        raise ValueError(f"{dataset.name}: pool={pool} needs a test_size for the random split")
    pooled = {
        "X": np.vstack([arrays[f"X_{part}"] for part in pool]),
        "y": np.concatenate([arrays[f"y_{part}"] for part in pool]),
        "feature_names": arrays["feature_names"],
    }
    result = preprocess.prepare(dataset, pooled, test_size=test_size, **options)
    result.metadata["pool"] = pool
    return result
