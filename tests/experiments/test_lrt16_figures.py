"""LRT16's figures on made-up runs: their claims decide on the numbers given (they fail when the numbers say so),
their tables and drawings hold every method, and what the runs lack is not checked."""

import numpy as np
import pandas as pd
import pytest
from claim_checks import assert_keyed
from omegaconf import OmegaConf

from experiments.figures import lrt16_fig1, lrt16_table1
from experiments.run_record import RunRecord
from experiments.verdicts import CHECKED, NOT_CHECKED

LEVELS = [0.5, 0.8, 0.9, 0.95]
SPEC = OmegaConf.create({"grid": {}})


def record(dataset: str, method: str, seed: int, nlpd: float, rmse: float, coverage: list[float], predictions=None):
    metrics = {"rmse": rmse, "nlpd": nlpd, "train_time": 1.0, "mean_std": 1.0, "n_train": 100.0, "n_test": 50.0}
    metrics |= {f"coverage_{100 * c:g}": v for c, v in zip(LEVELS, coverage, strict=True)}
    metrics |= {f"width_{100 * c:g}": 2 * c for c in LEVELS}
    tables = {"calibration": pd.DataFrame({"level": LEVELS, "coverage": coverage, "width": [2 * c for c in LEVELS]})}
    if predictions is not None:
        tables["predictions"] = predictions
        tables["training"] = pd.DataFrame({"x": [0.1, 0.9], "target": [0.0, 0.0]})
    trial = {"dataset": {"name": dataset}, "model": {"name": method}, "seed": seed}
    return RunRecord(f"{method}-{seed}", method, trial, metrics, pd.DataFrame([{"step": 100, **metrics}]), tables)


CALIBRATED = [0.5, 0.8, 0.9, 0.95]
SHORT = [0.2, 0.4, 0.5, 0.6]


def table_runs(mf_nlpd: float, mf_coverage=CALIBRATED, forest_coverage=SHORT, rf_rmse: float = 1.0):
    runs = []
    for seed in range(4):
        jitter = 0.01 * seed
        runs += [
            record("flights", "MF", seed, mf_nlpd + jitter, 1.02, mf_coverage),
            record("flights", "RF", seed, 4.0 - jitter, rf_rmse, forest_coverage),
            record("flights", "ERT", seed, 5.0 + jitter, 1.01, forest_coverage),
            record("flights", "RF split conformal", seed, np.nan, 1.03, CALIBRATED),
        ]
    return runs


def by_key(claims) -> dict:
    assert_keyed(claims)
    return {c.key: c for c in claims}


def test_table1_claims_hold_when_mf_is_the_better_calibrated():
    claims = by_key(lrt16_table1.claims(table_runs(mf_nlpd=2.0), SPEC))
    for key in ("mf_beats_forests_nlpd", "mf_beats_forests_calibration", "forests_predict_well",
                "forests_lack_coverage"):  # fmt: skip
        assert claims[f"{key}_flights"].passed is True, claims[f"{key}_flights"]
    assert claims["mf_beats_approximate_gps_flights"].status == NOT_CHECKED


def test_table1_claims_fail_on_numbers_that_contradict_them():
    claims = by_key(lrt16_table1.claims(table_runs(mf_nlpd=4.5, mf_coverage=SHORT, forest_coverage=CALIBRATED,
                                                   rf_rmse=1.5), SPEC))  # fmt: skip
    assert claims["mf_beats_forests_nlpd_flights"].passed is False  # ERT's NLPD 5 > 4.5, RF's 4 < 4.5
    (exception,) = claims["mf_beats_forests_nlpd_flights"].exceptions
    assert exception.startswith("MF vs RF:")
    assert claims["mf_beats_forests_calibration_flights"].passed is False
    assert claims["forests_predict_well_flights"].passed is False  # RF 1.5 against the lowest 1.01
    assert claims["forests_lack_coverage_flights"].passed is False  # the forests' 95% intervals cover 95%


def test_table1_without_mf_leaves_its_claims_not_checked_and_draws_every_method():
    runs = [r for r in table_runs(2.0) if r.model != "MF"]
    claims = by_key(lrt16_table1.claims(runs, SPEC))
    assert claims["mf_beats_forests_nlpd_flights"].status == NOT_CHECKED
    assert claims["forests_lack_coverage_flights"].status == CHECKED
    drawing = lrt16_table1.plot(table_runs(2.0), SPEC)
    frame = drawing.tables[""].frame
    assert set(frame["method"]) == {"MF", "RF", "ERT", "RF split conformal"} and (frame["seeds"] == 4).all()
    assert "| flights | RF split conformal |" in drawing.tables[""].markdown


def toy_predictions(std_inside: float, std_beyond: float) -> pd.DataFrame:
    x = np.linspace(-0.5, 1.5, 41)
    std = np.where((x < 0) | (x > 1), std_beyond, std_inside)
    return pd.DataFrame({"x": x, "target": np.zeros_like(x), "mean": np.zeros_like(x), "std": std,
                         "lower": -2 * std, "upper": 2 * std})  # fmt: skip


def toy_runs(mf_beyond: float, forest_beyond: float, gp_nlpd: float = 0.0):
    runs = []
    for seed in range(3):
        runs += [
            record("gap_sine", "MF", seed, 1.0 + 0.01 * seed, 0.3, CALIBRATED, toy_predictions(0.1, mf_beyond)),
            record("gap_sine", "GP", seed, gp_nlpd - 0.01 * seed, 0.3, CALIBRATED, toy_predictions(0.1, 0.5)),
            record("gap_sine", "RF", seed, 5.0, 0.5, SHORT, toy_predictions(0.1, forest_beyond)),
            record("gap_sine", "ERT", seed, 9.0, 0.5, SHORT, toy_predictions(0.1, forest_beyond)),
        ]
    return runs


def test_fig1_claims_decide_on_the_growth_of_the_std_away_from_the_data():
    claims = by_key(lrt16_fig1.claims(toy_runs(mf_beyond=0.5, forest_beyond=0.1), SPEC))
    assert all(c.passed is True for c in claims.values()), claims
    flat = by_key(lrt16_fig1.claims(toy_runs(mf_beyond=0.15, forest_beyond=0.1), SPEC))
    assert flat["mf_std_grows_away"].passed is False and flat["mf_std_grows_away"].exceptions[0].startswith("MF")
    growing = by_key(lrt16_fig1.claims(toy_runs(mf_beyond=0.5, forest_beyond=0.5), SPEC))
    assert growing["mf_std_grows_away"].passed is False  # the forests' grows too: MF is not the better
    worse_gp = by_key(lrt16_fig1.claims(toy_runs(0.5, 0.1, gp_nlpd=7.0), SPEC))
    assert worse_gp["gp_beats_forests_nlpd"].passed is False  # RF's NLPD 5 is below the GP's 7


def test_fig1_draws_a_panel_per_method_and_scores_the_regions():
    drawing = lrt16_fig1.plot(toy_runs(0.5, 0.1), SPEC)
    assert len(drawing.figure.axes) == 4
    frame = drawing.tables[""].frame.set_index("method")
    assert frame.loc["MF", "mean_std_beyond"] == pytest.approx(0.5)
    assert frame.loc["MF", "mean_std_clusters"] == pytest.approx(0.1)
    assert frame.loc["RF", "mean_std_gap"] == pytest.approx(0.1)
