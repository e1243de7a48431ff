"""BSP's UK apartment prices (Fan, Li, Sisson 2020, Table 1 and Fig. 8), after Hensman, Fusi and Lawrence (2013).

HM Land Registry Price Paid Data for 2012 (``pp-2012.csv``: no header, every field quoted; columns transaction id,
price (GBP), date of transfer (``YYYY-MM-DD 00:00``), postcode, property type (D, S, T, F = flat/maisonette, O),
old/new, duration, PAON, SAON, street, locality, town/city, district, county, PPD category type, record status), the
flats sold from February to October 2012, each located at its postcode's centroid by a postcode table
(postcode, latitude, longitude in WGS84 degrees). Features: latitude, longitude; target: the natural log of the price.
"""

from __future__ import annotations

import zipfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from experiments.data import preprocess
from experiments.data.catalog import Entry
from experiments.data.dataset import Dataset

# Positions of the used columns in the headerless Price Paid file.
PRICE, DATE, POSTCODE, PROPERTY_TYPE = 1, 2, 3, 4
CHUNK_ROWS = 250_000
# A located postcode lies in this box (latitude, longitude): England and Wales with a margin. Postcode tables mark
# postcodes without a grid reference with placeholders (99.999999, 0 in the ONS Postcode Directory), left out here.
UK_LATITUDE, UK_LONGITUDE = (49.0, 61.0), (-9.0, 2.0)
FEATURE_NAMES = ("latitude", "longitude")


def normalise_postcodes(postcodes: pd.Series) -> pd.Series:
    """Upper case, whitespace removed, then one space before the inward code (its last three characters):
    ``"sw1a  1aa"`` -> ``"SW1A 1AA"``. A missing or too short postcode becomes ``""``."""
    compact = postcodes.fillna("").astype(str).str.upper().str.replace(r"\s+", "", regex=True)
    spaced = compact.str[:-3] + " " + compact.str[-3:]
    return spaced.where(compact.str.len() >= 5, "")


def read_sales(path, property_type: str, first_day: str, last_day: str) -> pd.DataFrame:
    """Price (GBP) and normalised postcode of the sales of ``property_type`` transferred from ``first_day`` to
    ``last_day`` (inclusive, ISO dates), in file order."""
    reader = pd.read_csv(
        path,
        header=None,
        usecols=[PRICE, DATE, POSTCODE, PROPERTY_TYPE],
        dtype={PRICE: np.float64, DATE: str, POSTCODE: str, PROPERTY_TYPE: str},
        keep_default_na=False,
        chunksize=CHUNK_ROWS,
    )
    first, last = pd.Timestamp(first_day), pd.Timestamp(last_day)
    kept = []
    with reader:
        for chunk in reader:
            day = pd.to_datetime(chunk[DATE].str.slice(0, 10), format="%Y-%m-%d")
            chunk = chunk[(chunk[PROPERTY_TYPE].str.strip() == property_type) & (day >= first) & (day <= last)]
            kept.append(pd.DataFrame({"price": chunk[PRICE], "postcode": normalise_postcodes(chunk[POSTCODE])}))
    if not kept:
        raise ValueError(f"{path}: no rows")
    return pd.concat(kept, ignore_index=True)


@contextmanager
def _open_table(path: Path):
    """A CSV file, or the one CSV member of a zip archive."""
    if not zipfile.is_zipfile(path):
        with open(path, "rb") as f:
            yield f
        return
    with zipfile.ZipFile(path) as archive:
        members = [m for m in archive.namelist() if m.lower().endswith(".csv")]
        if len(members) != 1:
            raise ValueError(f"{path}: expected one .csv member, found {members}")
        with archive.open(members[0]) as f:
            yield f


def read_postcodes(path, columns: dict[str, str]) -> pd.DataFrame:
    """Latitude and longitude indexed by normalised postcode from a table with a header; ``columns`` maps
    ``postcode``, ``latitude``, ``longitude`` to the table's own column names. Rows without usable coordinates
    are left out; a postcode listed twice keeps its first row."""
    wanted = {columns[key]: key for key in ("postcode", "latitude", "longitude")}
    with _open_table(Path(path)) as f:
        table = pd.read_csv(f, usecols=list(wanted), dtype=str, keep_default_na=False).rename(columns=wanted)
    latitude = pd.to_numeric(table["latitude"], errors="coerce")
    longitude = pd.to_numeric(table["longitude"], errors="coerce")
    located = latitude.between(*UK_LATITUDE) & longitude.between(*UK_LONGITUDE)
    frame = pd.DataFrame(
        {"latitude": latitude[located].to_numpy(), "longitude": longitude[located].to_numpy()},
        index=normalise_postcodes(table["postcode"][located]).to_numpy(),
    )
    return frame[~frame.index.duplicated(keep="first")]


def parse(
    files: dict,
    *,
    sales: str,
    postcodes: str,
    columns: dict[str, str],
    property_type: str = "F",
    first_day: str = "2012-02-01",
    last_day: str = "2012-10-31",
) -> dict[str, np.ndarray]:
    """``X`` (latitude, longitude), ``y`` (natural log of the price in GBP) of the located sales in file order,
    ``feature_names``, and the counts ``n_sales`` (sales of the type in the window) and ``n_unlocated`` (those
    left out: no postcode, a postcode the table lacks, or one without coordinates)."""
    sold = read_sales(files[sales], property_type, first_day, last_day)
    if (sold["price"] <= 0).any() or sold["price"].isna().any():
        raise ValueError(f"{sales}: prices must be positive numbers")
    located = read_postcodes(files[postcodes], columns).reindex(sold["postcode"].to_numpy())
    found = located["latitude"].notna().to_numpy()
    return {
        "X": located[["latitude", "longitude"]].to_numpy(dtype=np.float64)[found],
        "y": np.log(sold["price"].to_numpy(dtype=np.float64))[found],
        "feature_names": np.array(FEATURE_NAMES),
        "n_sales": np.array(len(sold)),
        "n_unlocated": np.array(int((~found).sum())),
    }


def prepare(
    dataset: Entry, arrays: dict[str, np.ndarray], *, train_fraction: float = 0.2, seed: int = 0, scale: bool = False
) -> Dataset:
    """BSP's split: a random ``train_fraction`` (20%) of the apartments for training, the rest (80%) for testing,
    drawn with the trial's ``seed``. ``scale`` min-max scales latitude and longitude, fitted on the training part
    (off by default: the papers do not say)."""
    if not 0 < train_fraction < 1:
        raise ValueError(f"{dataset.name}: train_fraction must lie in (0, 1), got {train_fraction}")
    X_train, X_test, y_train, y_test = train_test_split(
        arrays["X"], arrays["y"], train_size=train_fraction, random_state=seed
    )
    if scale:
        X_train, X_test = preprocess.minmax(X_train, X_test)
    metadata = {
        "predefined_split": False,
        "train_fraction": train_fraction,
        "seed": seed,
        "fit_scaler_on": "train" if scale else None,
        "n_sales": int(arrays["n_sales"]),
        "n_unlocated": int(arrays["n_unlocated"]),
    }
    names = tuple(str(n) for n in arrays["feature_names"])
    return Dataset(dataset.name, dataset.task, X_train, y_train, X_test, y_test, names, metadata)
