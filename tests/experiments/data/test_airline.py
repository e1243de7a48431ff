"""BSP's airline delays through the real code path: a small 2008.csv.bz2 and plane-data.csv in the Data Expo's
layouts, served over local HTTP by the catalog's own sources."""

import bz2
from pathlib import Path

import numpy as np
import pytest

from experiments.config import compose
from experiments.data import load_dataset
from experiments.data.fetch import load

FIXTURES = Path(__file__).parent / "fixtures" / "airline"
FLIGHTS = bz2.compress((FIXTURES / "2008.csv").read_bytes())
PLANES = (FIXTURES / "plane-data.csv").read_bytes()
FEATURE_NAMES = ("plane_age", "distance", "air_time", "dep_time", "arr_time", "day_of_week", "day_of_month", "month")
# The 16 flights of the fixture that survive cleaning, in time order: their arrival delays.
DELAYS = [-5, 5, 14, 2, -5, 34, -14, 10, 13, 5, -5, 5, 10, 5, 0, 15]


@pytest.fixture
def served(local_catalog):
    return local_catalog("airline", {"2008.csv.bz2": FLIGHTS, "plane-data.csv": PLANES})


def everything(dataset):
    return np.vstack([dataset.X_train, dataset.X_test]), np.concatenate([dataset.y_train, dataset.y_test])


def test_features_target_and_cleaning(served):
    dataset = load("airline", n_train=10, n_test=6)
    X, y = everything(dataset)
    assert dataset.task == "regression" and dataset.feature_names == FEATURE_NAMES
    assert y.tolist() == DELAYS
    # AA 12 on 1 Jan 2008, plane N10323 built 1986: age 22, 802 miles, 110 min in the air, 07:00 -> 09:05, a Tuesday.
    assert X[0].tolist() == [22, 802, 110, 700, 905, 2, 1, 1]
    # MQ 3003 on 31 Jan, plane N10156 built 2004, departing at 24:00 (the file's hhmm, kept as is), landing 01:13.
    assert X[8].tolist() == [4, 334, 60, 2400, 113, 4, 31, 1] and y[8] == 13
    # Left out: Dec 2007, May and Dec 2008; 2 cancelled, 1 diverted; 6 planes of unknown year (blank, "None", "0000",
    # no year, tail number absent or "0"); 2 flights with a missing value (ArrTime NA, AirTime blank).
    counts = {k: dataset.metadata[k] for k in ("n_window", "n_cancelled", "n_diverted", "n_unknown_plane", "n_missing")}
    assert counts == {"n_window": 27, "n_cancelled": 2, "n_diverted": 1, "n_unknown_plane": 6, "n_missing": 2}
    assert dataset.metadata["n_available"] == 16 and dataset.metadata["predefined_split"]


def test_chronological_order_with_stable_ties(served):
    X, _ = everything(load("airline", n_train=8, n_test=8))
    month, day, departure = X[:, 7], X[:, 6], X[:, 3]
    keys = list(zip(month, day, departure, strict=True))
    assert keys == sorted(keys)
    # Two ties (3 Jan 07:54, 14 Feb 11:30) keep the file's order: WN 3231 (810 miles) before US 600 (280), WN 101
    # (895) before MQ 3002 (235).
    assert X[3:5, 1].tolist() == [810, 280] and X[9:11, 1].tolist() == [895, 235]


def test_train_is_the_first_flights_and_test_the_next(served):
    X, _ = everything(load("airline", n_train=10, n_test=6))
    dataset = load("airline", n_train=5, n_test=3)
    assert (dataset.X_train == X[:5]).all() and (dataset.X_test == X[5:8]).all()
    assert dataset.y_train.tolist() == DELAYS[:5] and dataset.y_test.tolist() == DELAYS[5:8]
    assert not dataset.metadata["fit_scaler_on"]
    scaled = load("airline", n_train=5, n_test=3, scale=True)
    assert scaled.X_train.min() == 0 and scaled.X_train.max() == 1


@pytest.mark.parametrize(("n_train", "n_test"), [(14, 3), (5, 100_000), (0, 3)])
def test_too_few_flights_is_an_error(served, n_train, n_test):
    with pytest.raises(ValueError, match="airline"):
        load("airline", n_train=n_train, n_test=n_test)


def test_a_tab_separated_plane_table_gives_the_same_data(local_catalog):
    """Dataverse serves a file it ingested as a table in tab-separated form."""
    tabbed = PLANES.decode().replace(",", "\t").encode()
    local_catalog("airline", {"2008.csv.bz2": FLIGHTS, "plane-data.csv": tabbed})
    _, y = everything(load("airline", n_train=10, n_test=6))
    assert y.tolist() == DELAYS


@pytest.mark.parametrize("faults", [["drop"], ["drop", "ignore-range"]])
def test_a_dropped_download_is_resumed_or_restarted(served, http_server, data_home, faults):
    http_server.faults["airline/2008.csv.bz2"] = list(faults)
    _, y = everything(load("airline", n_train=10, n_test=6))
    assert y.tolist() == DELAYS
    ranges = [r for path, r in http_server.requests if path == "airline/2008.csv.bz2"]
    assert ranges[0] is None and ranges[1] == f"bytes={len(FLIGHTS) // 2}-"
    assert (data_home / "airline" / "2008.csv.bz2").read_bytes() == FLIGHTS
    assert not [p.name for p in (data_home / "airline").iterdir() if ".part" in p.name]


def test_hydra_confs_compose_and_load(served):
    cfg = compose(["dataset=airline_100k", "seed=0", "dataset.load.n_train=10", "dataset.load.n_test=6"])
    dataset = load_dataset(cfg.dataset)
    assert dataset.name == "airline" and len(dataset.y_train) == 10 and len(dataset.y_test) == 6
    assert dataset.y_train.tolist() + dataset.y_test.tolist() == DELAYS
    for conf, n_train in [("airline_100k", 100_000), ("airline_400k", 400_000), ("airline_1m", 1_000_000)]:
        options = compose([f"dataset={conf}"]).dataset.load
        assert (options.name, options.n_train, options.n_test, options.scale) == ("airline", n_train, 100_000, False)
