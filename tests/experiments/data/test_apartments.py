"""BSP's UK apartment prices through the real code path: a small pp-2012.csv in the Land Registry's layout and
postcode tables in FreeMapTools' and Doogal's layouts (zipped CSVs), served over local HTTP."""

import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.config import compose
from experiments.data import load_dataset
from experiments.data.apartments import normalise_postcodes
from experiments.data.fetch import load

FIXTURES = Path(__file__).parent / "fixtures" / "apartments"
SALES = (FIXTURES / "pp-2012.csv").read_bytes()
TABLE = (FIXTURES / "ukpostcodes.csv").read_text()
# The 10 flats sold from 1 Feb to 31 Oct 2012 whose postcode is located: postcode, latitude, longitude, price.
FLATS = [
    ("E14 5AB", 51.50507, -0.01953, 250000),  # sold on 1 Feb, the first day
    ("M1 1AE", 53.47944, -2.24531, 120000),  # 31 Oct, the last day
    ("LS1 4AP", 53.79972, -1.54921, 135000),  # the table writes LS14AP
    ("E14 5AB", 51.50507, -0.01953, 310000),  # PAON "THE TOWER, 1": a quoted comma
    ("CF10 1EP", 51.48158, -3.17909, 150000),  # the sale writes "CF10  1ep", the table "cf10 1ep"
    ("SE1 9SG", 51.50453, -0.08653, 400000),
    ("B1 1BB", 52.4796, -1.9026, 110000),
    ("NE1 4ST", 54.9738, -1.6132, 90000),
    ("SE1 9SG", 51.50453, -0.08653, 425000),
    ("B1 1BB", 52.4796, -1.9026, 105000),
]


def zipped(name: str, text: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, text)
    return buffer.getvalue()


def doogal_layout(table: str) -> str:
    """The same postcodes in Doogal's layout: Postcode, In Use?, Latitude, Longitude, Easting, Northing, ..."""
    frame = pd.read_csv(io.StringIO(table), dtype=str)
    return pd.DataFrame(
        {
            "Postcode": frame["postcode"],
            "In Use?": "Yes",
            "Latitude": frame["latitude"],
            "Longitude": frame["longitude"],
            "Easting": "530000",
            "Northing": "180000",
        }
    ).to_csv(index=False)


FILES = {
    "pp-2012.csv": SALES,
    "ukpostcodes.zip": zipped("ukpostcodes.csv", TABLE),
    "postcodes.zip": zipped("postcodes.csv", doogal_layout(TABLE)),
}


@pytest.fixture
def served(local_catalog):
    return local_catalog("apartments", FILES)


def rows(dataset) -> np.ndarray:
    """Every (latitude, longitude, log price) of the dataset, train and test, sorted."""
    X = np.vstack([dataset.X_train, dataset.X_test])
    y = np.concatenate([dataset.y_train, dataset.y_test])
    return np.array(sorted(zip(X[:, 0].tolist(), X[:, 1].tolist(), y.tolist(), strict=True)))


EXPECTED = np.array(sorted((lat, lon, np.log(price)) for _, lat, lon, price in FLATS))


def test_located_flats_of_the_window_with_log_price(served):
    dataset = load("apartments")
    assert dataset.task == "regression" and dataset.feature_names == ("latitude", "longitude")
    np.testing.assert_allclose(rows(dataset), EXPECTED)
    # 13 flats in the window; 3 not located (blank postcode, one the table lacks, one with placeholder coordinates).
    assert (dataset.metadata["n_sales"], dataset.metadata["n_unlocated"]) == (13, 3)
    assert set(dataset.metadata["files"]) == {"pp-2012.csv", "ukpostcodes.zip"}


def test_split_is_20_80_seeded_and_reproducible(served):
    first, again = load("apartments", seed=3), load("apartments", seed=3)
    assert (len(first.y_train), len(first.y_test)) == (2, 8)
    assert (first.X_train == again.X_train).all() and (first.y_test == again.y_test).all()
    trains = {tuple(sorted(load("apartments", seed=seed).y_train.tolist())) for seed in range(6)}
    assert len(trains) > 1
    half = load("apartments", train_fraction=0.5, seed=3)
    assert (len(half.y_train), len(half.y_test)) == (5, 5) and np.allclose(rows(half), EXPECTED)
    with pytest.raises(ValueError, match="train_fraction"):
        load("apartments", train_fraction=1.0)


def test_the_second_postcode_table_is_used_when_the_first_fails(served, http_server):
    http_server.faults["apartments/ukpostcodes.zip"] = ["404"]
    dataset = load("apartments")
    np.testing.assert_allclose(rows(dataset), EXPECTED)
    assert set(dataset.metadata["files"]) == {"pp-2012.csv", "postcodes.zip"}


@pytest.mark.parametrize("faults", [["drop"], ["drop", "ignore-range"]])
def test_a_dropped_download_is_resumed_or_restarted(served, http_server, data_home, faults):
    http_server.faults["apartments/pp-2012.csv"] = list(faults)
    np.testing.assert_allclose(rows(load("apartments")), EXPECTED)
    ranges = [r for path, r in http_server.requests if path == "apartments/pp-2012.csv"]
    assert ranges[0] is None and ranges[1] == f"bytes={len(SALES) // 2}-"
    assert (data_home / "apartments" / "pp-2012.csv").read_bytes() == SALES
    assert not [p.name for p in (data_home / "apartments").iterdir() if ".part" in p.name]


def test_postcodes_are_normalised():
    raw = pd.Series(["sw1a  1aa", " E14 5AB ", "LS14AP", "", None, "AB1"])
    assert normalise_postcodes(raw).tolist() == ["SW1A 1AA", "E14 5AB", "LS1 4AP", "", "", ""]


def test_hydra_conf_composes_and_loads_with_the_trial_seed(served):
    dataset = load_dataset(compose(["dataset=apartments", "seed=4"]).dataset)
    direct = load("apartments", seed=4)
    assert dataset.name == "apartments" and dataset.metadata["seed"] == 4
    assert (dataset.X_train == direct.X_train).all() and (dataset.y_test == direct.y_test).all()
