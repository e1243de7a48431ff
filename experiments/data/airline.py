"""BSP's airline delays (Fan, Li, Sisson 2020, Table 1), built as Hensman, Fusi and Lawrence (2013) built them.

US commercial flights of January-April 2008 from the ASA Data Expo 2009 yearly file ``2008.csv.bz2`` (one row per
flight, header ``Year, Month, DayofMonth, DayOfWeek, DepTime, ..., ArrDelay, ..., Cancelled, ..., Diverted, ...``),
joined on the tail number with ``plane-data.csv`` (``tailnum, type, ..., year``: the year of manufacture, ``None`` or
blank when unknown) for the plane's age. The eight features, in BSP's order: plane age (years), distance (miles), air
time (minutes), departure time and arrival time (local, hhmm as in the file), day of week (1 = Monday), day of month,
month; the target is the arrival delay in minutes. Training set: the first ``n_train`` flights in time order; test set:
the ``n_test`` flights that follow.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.data import preprocess
from experiments.data.catalog import Entry
from experiments.data.dataset import Dataset

# Columns of the flights file that are read (the file has 29); every one is numeric but TailNum.
NUMERIC_COLUMNS = (
    "Year",
    "Month",
    "DayofMonth",
    "DayOfWeek",
    "DepTime",
    "ArrTime",
    "AirTime",
    "ArrDelay",
    "Distance",
    "Cancelled",
    "Diverted",
)
TAIL_COLUMN = "TailNum"
# BSP's features (plane_age is computed from plane-data.csv) and the target, as columns of the joined table.
FEATURES = ("plane_age", "Distance", "AirTime", "DepTime", "ArrTime", "DayOfWeek", "DayofMonth", "Month")
FEATURE_NAMES = ("plane_age", "distance", "air_time", "dep_time", "arr_time", "day_of_week", "day_of_month", "month")
TARGET = "ArrDelay"
CHUNK_ROWS = 500_000  # the 2008 file has ~7M rows: streamed in chunks, only the needed columns and months kept


def read_flights(path, year: int, months: list[int]) -> tuple[pd.DataFrame, dict[str, int]]:
    """The flights of ``year`` and ``months`` that were neither cancelled nor diverted, in file order, and counts of
    the rows in the window and of those dropped as cancelled or diverted."""
    columns = [*NUMERIC_COLUMNS, TAIL_COLUMN]
    reader = pd.read_csv(
        path,
        usecols=columns,
        dtype={**dict.fromkeys(NUMERIC_COLUMNS, np.float64), TAIL_COLUMN: str},
        na_values=["NA", ""],
        keep_default_na=False,
        chunksize=CHUNK_ROWS,
    )
    kept, counts = [], {"n_window": 0, "n_cancelled": 0, "n_diverted": 0}
    with reader:
        for chunk in reader:
            chunk = chunk[(chunk["Year"] == year) & chunk["Month"].isin(months)]
            cancelled, diverted = chunk["Cancelled"] == 1, chunk["Diverted"] == 1
            counts["n_window"] += len(chunk)
            counts["n_cancelled"] += int(cancelled.sum())
            counts["n_diverted"] += int((diverted & ~cancelled).sum())
            kept.append(chunk[~cancelled & ~diverted])
    if not kept:
        raise ValueError(f"{path}: no rows")
    return pd.concat(kept, ignore_index=True), counts


def _delimiter(path) -> str:
    """plane-data.csv is comma-separated; a Dataverse copy ingested as a table is served tab-separated."""
    with open(path, encoding="utf-8", errors="replace") as f:
        header = f.readline()
    return "\t" if "\t" in header else ","


def read_plane_years(path) -> pd.Series:
    """Year of manufacture by tail number; planes whose year is unknown (``None``, blank, 0) are left out, and a
    tail number listed twice keeps its first row."""
    planes = pd.read_csv(path, sep=_delimiter(path), dtype=str, keep_default_na=False)
    planes.columns = [c.strip().lower() for c in planes.columns]
    missing = {"tailnum", "year"} - set(planes.columns)
    if missing:
        raise ValueError(f"{path}: no column {sorted(missing)} (columns: {list(planes.columns)})")
    years = pd.to_numeric(planes["year"].str.strip(), errors="coerce")
    known = pd.Series(years.to_numpy(), index=planes["tailnum"].str.strip())
    known = known[~known.index.duplicated(keep="first")]
    return known[known > 0]


def chronological(flights: pd.DataFrame) -> pd.DataFrame:
    """Flights sorted by date, then departure time; a stable sort, so ties keep the file's order."""
    order = np.lexsort((flights["DepTime"].to_numpy(), flights["DayofMonth"].to_numpy(), flights["Month"].to_numpy()))
    return flights.iloc[order].reset_index(drop=True)


def parse(
    files: dict, *, flights: str, planes: str, year: int = 2008, months: tuple[int, ...] = (1, 2, 3, 4)
) -> dict[str, np.ndarray]:
    """``X`` (the eight features in BSP's order), ``y`` (arrival delay, minutes) of the cleaned flights in time
    order, ``feature_names``, and the counts of the cleaning steps (0-d arrays ``n_window``, ``n_cancelled``,
    ``n_diverted``, ``n_unknown_plane``, ``n_missing``)."""
    table, counts = read_flights(files[flights], year, list(months))
    return features(table, read_plane_years(files[planes]), counts)


def features(table: pd.DataFrame, plane_years: pd.Series, counts: dict[str, int]) -> dict[str, np.ndarray]:
    """The parsed arrays of flights that were neither cancelled nor diverted (columns named as in the Data Expo
    file): each plane's age from its year of manufacture, flights of unknown planes or with a missing value dropped
    and counted, the rest in time order."""
    table = table.copy()
    table["plane_age"] = table["Year"] - table[TAIL_COLUMN].str.strip().map(plane_years).astype(np.float64)
    unknown_plane = table["plane_age"].isna()
    incomplete = table[[*FEATURES, TARGET]].isna().any(axis=1)
    counts = {**counts, "n_unknown_plane": int(unknown_plane.sum())}
    counts["n_missing"] = int((incomplete & ~unknown_plane).sum())
    table = chronological(table[~incomplete])
    return {
        "X": table[list(FEATURES)].to_numpy(dtype=np.float64),
        "y": table[TARGET].to_numpy(dtype=np.float64),
        "feature_names": np.array(FEATURE_NAMES),
        **{name: np.array(count) for name, count in counts.items()},
    }


def prepare(
    dataset: Entry,
    arrays: dict[str, np.ndarray],
    *,
    n_train: int | None,
    n_test: int = 100_000,
    scale: bool = False,
) -> Dataset:
    """BSP's split (after Deisenroth and Ng 2015): the first ``n_train`` flights in time order for training
    (100K, 400K or 1M in Table 1; None: all but the last ``n_test``), the ``n_test`` that follow for testing.
    ``scale`` min-max scales the features, fitted on the training part (off by default: the papers do not say)."""
    X, y = arrays["X"], arrays["y"]
    if n_train is None:
        n_train = len(y) - n_test
    if n_train <= 0 or n_test <= 0:
        raise ValueError(f"{dataset.name}: n_train and n_test must be positive, got {n_train} and {n_test}")
    if n_train + n_test > len(y):
        raise ValueError(
            f"{dataset.name} has {len(y)} flights after cleaning: too few for n_train={n_train} + n_test={n_test}"
        )
    X_train, X_test = X[:n_train], X[n_train : n_train + n_test]
    y_train, y_test = y[:n_train], y[n_train : n_train + n_test]
    if scale:
        X_train, X_test = preprocess.minmax(X_train, X_test)
    counts = {name: int(arrays[name]) for name in arrays if name.startswith("n_")}
    metadata = {
        "predefined_split": True,
        "order": "chronological",
        "n_available": len(y),
        "fit_scaler_on": "train" if scale else None,
        **counts,
    }
    names = tuple(str(n) for n in arrays["feature_names"])
    return Dataset(dataset.name, dataset.task, X_train, y_train, X_test, y_test, names, metadata)
