"""BSP Table 1 and Fig. 8 end to end on data in the real files' formats: a generated pp-2012.csv with its postcode
table and a generated 2008.csv.bz2 with plane-data.csv, put where a user puts files by hand ($MONDRIAN_DATA/<name>/,
checked like downloads), then `python -m experiments.run figure=... profile=quick` as a user runs it. The
predictions protocol is specified on its own too."""

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from claim_checks import assert_keyed
from sklearn.ensemble import RandomForestRegressor

from experiments.bench.standins import airline_files, apartment_files, write
from experiments.config import compose
from experiments.data import load_dataset
from experiments.figures import CLAIM, bsp_fig8
from experiments.protocols.predictions import run as predictions
from experiments.tracking import RunRecord
from experiments.verdicts import NOT_CHECKED, NOT_COMPARABLE
from mondrian import OnlineBSPForestRegressor


@pytest.fixture
def by_hand(tmp_path, monkeypatch):
    """$MONDRIAN_DATA holding the generated files where a user puts them by hand."""
    home = tmp_path / "data"
    write(home, {"apartments": apartment_files(720), "airline": airline_files(1200)})
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


def fig8_runs(predict, rmse: float = 0.536) -> list[RunRecord]:
    """Two replicates of test flats whose log prices follow latitude (a spatial pattern), predicted by ``predict``
    (target, rng) -> predictions, with the run's test RMSE ``rmse``."""
    rng = np.random.default_rng(0)
    runs = []
    for seed in (1, 0):
        latitude, longitude = rng.uniform(50, 54, 400), rng.uniform(-3, 0, 400)
        target = 12.0 + 0.5 * (latitude - 52.0) + 0.05 * rng.standard_normal(400)
        table = pd.DataFrame({"latitude": latitude, "longitude": longitude, "target": target,
                              "prediction": predict(target, rng)})  # fmt: skip
        trial = {"dataset": {"name": "apartments"}, "model": {"name": "BSP", "estimator": {"n_estimators": 10}},
                 "seed": seed}  # fmt: skip
        runs.append(RunRecord(f"r{seed}", "r", trial, {"rmse": rmse + 0.001 * seed}, pd.DataFrame(),
                              {"predictions": table}))  # fmt: skip
    return runs


def test_fig8_maps_the_first_replicate_and_its_claims_fail_on_unrelated_predictions():
    """Predictions that follow the prices with independent errors: accurate (Table 1's RMSE given), following the
    prices, errors free of pattern. A constant prediction: none of it; a good map with another RMSE than Table 1's:
    not the paper's accuracy."""
    good = fig8_runs(lambda target, rng: target + 0.05 * rng.standard_normal(len(target)))
    claims = bsp_fig8.claims(good, {})
    assert_keyed(claims)
    assert [(c.key, c.kind, c.weaker_of, c.passed) for c in claims] == [
        ("predictions_capture_prices", CLAIM, "", True),
        ("predictions_follow_prices", CLAIM, "predictions_capture_prices", True),
        ("errors_pattern_free", CLAIM, "", True),
    ]
    assert all(c.quote and c.where for c in claims)
    figure = bsp_fig8.plot(good, {}).figure
    assert "(10 trees), seed 0" in figure.texts[0].get_text()
    constant = fig8_runs(lambda target, rng: np.full(len(target), 12.3))
    assert [c.passed for c in bsp_fig8.claims(constant, {})] == [False, False, False]
    other = fig8_runs(lambda target, rng: target + 0.05 * rng.standard_normal(len(target)), rmse=0.7)
    assert [c.passed for c in bsp_fig8.claims(other, {})] == [False, True, True]


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
    assert len(claims) == 3, done.stdout  # the generated flats are not the paper's: their verdicts are not checked


def test_fig8_on_other_data_checks_the_capture_and_says_tables_accuracy_is_not_comparable():
    runs = fig8_runs(lambda target, rng: target + 0.05 * rng.standard_normal(len(target)), rmse=0.2)
    for run in runs:
        run.trial["dataset"]["name"] = "ames"
    claims = bsp_fig8.claims(runs, {})
    assert [(c.key, c.status, c.passed) for c in claims] == [
        ("predictions_capture_prices_ames", "checked", True),
        ("predictions_accurate_ames", NOT_COMPARABLE, None),
        ("errors_pattern_free_ames", "checked", True),
        ("predictions_capture_prices", NOT_CHECKED, None),
        ("errors_pattern_free", NOT_CHECKED, None),
    ]
    assert all(c.quote and c.statement.startswith("Ames houses (other data)") for c in claims[:3])
    assert "Ames houses (other data" in bsp_fig8.plot(runs, {}).figure.texts[0].get_text()
