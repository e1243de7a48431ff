"""BSP Table 1 and Fig. 8 end to end on data in the real files' formats: a generated pp-2012.csv with its postcode
table and a generated 2008.csv.bz2 with plane-data.csv, put where a user puts files by hand ($MONDRIAN_DATA/<name>/,
checked like downloads), then `python -m experiments.run figure=... profile=quick` as a user runs it. The
predictions protocol is specified on its own too."""

import bz2
import io
import os
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest
from claim_checks import assert_keyed
from sklearn.ensemble import RandomForestRegressor

from experiments.config import compose
from experiments.data import load_dataset
from experiments.figures import CLAIM, INVARIANT, bsp_fig8
from experiments.protocols.predictions import run as predictions
from experiments.tracking import RunRecord
from mondrian import OnlineBSPForestRegressor


def apartment_files(n_flats: int = 800, seed: int = 0) -> dict[str, bytes]:
    """pp-2012.csv (the Land Registry's 16 unquoted-header-less columns) and ukpostcodes.zip: flats in the window at
    80 postcodes over England, log prices rising towards London, plus houses and flats outside the window."""
    rng = np.random.default_rng(seed)
    codes = [f"T{k // 10 + 1} {k % 10}AA" for k in range(80)]
    lat, lon = rng.uniform(50.5, 54.5, 80), rng.uniform(-3.5, 0.5, 80)
    london = np.hypot(lat - 51.5, lon + 0.1)
    rows = []
    for k in range(n_flats):
        where = rng.integers(80)
        price = int(np.exp(12.8 - 0.35 * london[where] + 0.25 * rng.standard_normal()))
        day = np.datetime64("2012-02-01") + int(rng.integers(0, 274))
        kind = "F" if k % 10 else "D"  # one sale in ten is a house, dropped
        rows.append([f"{{{k:08d}}}", price, f"{day} 00:00", codes[where], kind, "N", "L", str(k), "", "HIGH STREET",
                     "", "TOWN", "DISTRICT", "COUNTY", "A", "A"])  # fmt: skip
    rows.append(["{late}", 100000, "2012-11-02 00:00", codes[0], "F", "N", "L", "1", "", "", "", "", "", "", "A", "A"])
    sales = pd.DataFrame(rows).to_csv(index=False, header=False, quoting=1).encode()
    table = pd.DataFrame({"id": range(80), "postcode": codes, "latitude": lat.round(6), "longitude": lon.round(6)})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("ukpostcodes.csv", table.to_csv(index=False))
    return {"pp-2012.csv": sales, "ukpostcodes.zip": buffer.getvalue()}


def airline_files(n_flights: int = 1200, seed: int = 0) -> dict[str, bytes]:
    """2008.csv.bz2 (the Data Expo's 29 columns) and plane-data.csv: flights of Jan-Apr 2008 whose delay grows with
    the departure hour and the plane's age, a few cancelled ones."""
    rng = np.random.default_rng(seed)
    tails = [f"N{100 + k}AA" for k in range(40)]
    years = rng.integers(1985, 2008, 40)
    month = rng.integers(1, 5, n_flights)
    day = rng.integers(1, 29, n_flights)
    dep = rng.integers(6, 22, n_flights) * 100 + rng.integers(0, 60, n_flights)
    air = rng.integers(40, 300, n_flights)
    plane = rng.integers(0, 40, n_flights)
    delay = (dep // 100 - 12) * 2 + 0.5 * (2008 - years[plane]) + 10 * rng.standard_normal(n_flights)
    frame = pd.DataFrame({
        "Year": 2008, "Month": month, "DayofMonth": day, "DayOfWeek": (day % 7) + 1, "DepTime": dep,
        "CRSDepTime": dep, "ArrTime": (dep + air // 60 * 100 + air % 60) % 2400, "CRSArrTime": dep,
        "UniqueCarrier": "WN",
        "FlightNum": np.arange(n_flights), "TailNum": np.array(tails)[plane], "ActualElapsedTime": air + 20,
        "CRSElapsedTime": air + 20, "AirTime": air, "ArrDelay": delay.round(), "DepDelay": 0, "Origin": "IAD",
        "Dest": "TPA", "Distance": air * 8, "TaxiIn": 4, "TaxiOut": 8,
        "Cancelled": (np.arange(n_flights) % 50 == 0) * 1,
        "CancellationCode": "", "Diverted": 0, "CarrierDelay": "NA", "WeatherDelay": "NA", "NASDelay": "NA",
        "SecurityDelay": "NA", "LateAircraftDelay": "NA",
    })  # fmt: skip
    planes = pd.DataFrame({"tailnum": tails, "type": "Corporation", "manufacturer": "EMBRAER", "issue_date": "",
                           "model": "EMB-145XR", "status": "Valid", "aircraft_type": "Fixed Wing Multi-Engine",
                           "engine_type": "Turbo-Fan", "year": years})  # fmt: skip
    return {
        "2008.csv.bz2": bz2.compress(frame.to_csv(index=False).encode()),
        "plane-data.csv": planes.to_csv(index=False).encode(),
    }


@pytest.fixture
def by_hand(tmp_path, monkeypatch):
    """$MONDRIAN_DATA holding the generated files where a user puts them by hand."""
    home = tmp_path / "data"
    for name, files in (("apartments", apartment_files()), ("airline", airline_files())):
        (home / name).mkdir(parents=True)
        for file_name, body in files.items():
            (home / name / file_name).write_bytes(body)
    monkeypatch.setenv("MONDRIAN_DATA", str(home))
    return home


def test_generated_files_load_through_the_real_parsers(by_hand):
    apartments = load_dataset(compose(["dataset=apartments", "seed=1"]).dataset)
    assert apartments.feature_names == ("latitude", "longitude")
    assert len(apartments.y_train) + len(apartments.y_test) == 720  # the flats of the window, not the houses
    assert abs(len(apartments.y_train) / 720 - 0.2) < 0.01
    airline = load_dataset(
        compose(["dataset=airline_100k", "dataset.load.n_train=300", "dataset.load.n_test=100"]).dataset
    )
    assert airline.X_train.shape == (300, 8) and airline.X_test.shape == (100, 8)


def test_protocol_scores_every_test_row_and_keeps_a_seeded_sample_of_predictions(by_hand):
    dataset = load_dataset(compose(["dataset=apartments"]).dataset)
    model = lambda: OnlineBSPForestRegressor(5, random_state=0)  # noqa: E731
    result = predictions(model, dataset, seed=3, max_points=100)
    fitted = OnlineBSPForestRegressor(5, random_state=0).partial_fit(dataset.X_train, dataset.y_train)
    rmse = np.sqrt(np.mean((fitted.predict(dataset.X_test) - dataset.y_test) ** 2))
    assert result.summary["rmse"] == pytest.approx(rmse) and result.summary["n_test"] == len(dataset.y_test)
    table = result.tables["predictions"]
    assert list(table.columns) == ["latitude", "longitude", "target", "prediction"] and len(table) == 100
    np.testing.assert_allclose(table["prediction"], fitted.predict(table[["latitude", "longitude"]].to_numpy()))
    again = predictions(model, dataset, seed=3, max_points=100).tables["predictions"]
    pd.testing.assert_frame_equal(table, again)
    batch = predictions(lambda: RandomForestRegressor(5, random_state=0), dataset, seed=0, max_points=10**6)
    assert len(batch.tables["predictions"]) == len(dataset.y_test)
    with pytest.raises(ValueError, match="max_points"):
        predictions(model, dataset, seed=0, max_points=0)


def test_fig8_maps_the_first_replicate_and_its_claims_fail_on_unrelated_predictions():
    rng = np.random.default_rng(0)
    target = rng.normal(12.0, 0.5, 200)
    runs = []
    for seed, prediction in ((1, 12.0 - 2.0 * (target - 12.0)), (0, 12.0 + 0.5 * (target - 12.0))):
        table = pd.DataFrame({"latitude": rng.uniform(50, 54, 200), "longitude": rng.uniform(-3, 0, 200),
                              "target": target, "prediction": prediction})  # fmt: skip
        trial = {"dataset": {"name": "apartments"}, "model": {"name": "BSP", "estimator": {"n_estimators": 10}},
                 "seed": seed}  # fmt: skip
        runs.append(RunRecord(f"r{seed}", "r", trial, {}, pd.DataFrame(), {"predictions": table}))
    claims = bsp_fig8.claims(runs, {})  # seed 0's: half the prices' deviations
    assert_keyed(claims)
    assert [(c.key, c.kind, c.passed) for c in claims] == [
        ("predictions_follow_prices", CLAIM, True),
        ("predictions_smoother_than_prices", INVARIANT, True),
    ]
    figure = bsp_fig8.plot(runs, {}).figure
    assert "(10 trees), seed 0" in figure.texts[0].get_text()
    assert [c.passed for c in bsp_fig8.claims(runs[:1], {})] == [False, False]  # seed 1's: reversed, wider


def run_cli(*overrides, cwd):
    return subprocess.run([sys.executable, "-m", "experiments.run", *overrides], cwd=cwd, capture_output=True,
                          text=True, timeout=900, env=os.environ.copy())  # fmt: skip


@pytest.mark.slow
def test_table1_and_fig8_at_quick_profile_end_to_end(by_hand, tmp_path):
    store = [f"tracking.uri=sqlite:///{tmp_path}/mlflow.db", f"tracking.artifact_root={tmp_path}/artifacts",
             f"paths.figures={tmp_path}/figures", f"paths.tables={tmp_path}/tables", f"hydra.run.dir={tmp_path}/hydra",
             "launcher.n_jobs=2"]  # fmt: skip
    done = run_cli("figure=bsp-table1", "profile=quick", *store, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "20 trials: 0 already finished, 20 run now, 0 failed" in done.stdout
    table = pd.read_csv(tmp_path / "tables/quick/bsp-table1.csv")
    assert set(table["method"]) == {"RF", "ERT", "MF fixed", "MF increasing", "BSP"}
    assert set(table["row"]) == {"Apartment (144 train)", "Airline (300)"} and (table["seeds"] == 2).all()
    markdown = (tmp_path / "tables/quick/bsp-table1.md").read_text()
    assert "(paper 0.536 ± 0.03; " in markdown and "(paper 35.9 ± 0.8; " in markdown  # the paper's numbers beside
    assert table["difference"].notna().all()
    assert "PASS" in done.stdout or "FAIL" in done.stdout
    done = run_cli("figure=bsp-fig8", "profile=quick", *store, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 trials: 0 already finished, 2 run now, 0 failed" in done.stdout
    for figure_id in ("bsp-table1", "bsp-fig8"):
        for suffix in ("png", "pdf"):
            assert (tmp_path / "figures" / "quick" / f"{figure_id}.{suffix}").stat().st_size > 10_000
    claims = [line for line in done.stdout.splitlines() if line.strip().startswith(("PASS", "FAIL"))]
    assert claims and all(line.strip().startswith("PASS") for line in claims), claims
