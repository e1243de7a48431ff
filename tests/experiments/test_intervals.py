"""The intervals protocol (coverage and width at a point over replications) and cku23-coverage's claims."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from experiments.figures import cku23_coverage
from experiments.protocols import intervals
from experiments.run_record import RunRecord
from tests.experiments.claim_checks import assert_keyed

K = 4000  # replications of the synthetic tables: the binomial sd of a 95% coverage is 0.0034


def gaussian_replications(k: int, half_width_in_sd: float, bias: float = 0.0, seed: int = 0) -> pd.DataFrame:
    """k replications of an estimate ~ N(mu + bias, 0.1^2) with the interval estimate -+ half_width_in_sd * 0.1 and
    a fresh Y ~ N(mu, 0.3^2), as the protocol records them before `covered`."""
    rng = np.random.default_rng(seed)
    mu, sd = 1.0, 0.1
    estimate = mu + bias + sd * rng.standard_normal(k)
    return pd.DataFrame(
        {
            "replication": np.arange(k),
            "mu": mu,
            "y_new": mu + 0.3 * rng.standard_normal(k),
            "lifetime": 5.0,
            "estimate": estimate,
            "std": sd,
            "lower": estimate - half_width_in_sd * sd,
            "upper": estimate + half_width_in_sd * sd,
            "empty_share": 0.0,
            "seconds": 0.0,
        }
    )


def tolerance(p: float, k: int) -> float:
    """Three binomial standard errors of a coverage p over k replications."""
    return 3 * math.sqrt(p * (1 - p) / k)


def test_a_correct_interval_covers_at_its_level_and_a_wrong_one_is_caught():
    right = intervals.summarize(intervals.covered(gaussian_replications(K, norm.ppf(0.975))))
    assert abs(right["coverage_mu"] - 0.95) <= tolerance(0.95, K)
    assert right["coverage_mu_se"] == pytest.approx(math.sqrt(0.95 * 0.05 / K), rel=0.1)
    assert right["width"] == pytest.approx(2 * norm.ppf(0.975) * 0.1)
    too_narrow = intervals.summarize(intervals.covered(gaussian_replications(K, 1.0)))
    assert abs(too_narrow["coverage_mu"] - 0.6827) <= tolerance(0.6827, K)
    assert too_narrow["coverage_mu"] < 0.95 - 10 * tolerance(0.95, K)
    # a confidence interval for mu(x) (sd 0.1) is far too narrow for a new Y (noise 0.3): P(|N(0, 0.1^2 + 0.09)| <=
    # 0.196) = 0.46
    expected_y = 2 * norm.cdf(norm.ppf(0.975) * 0.1 / math.sqrt(0.1**2 + 0.3**2)) - 1
    assert abs(right["coverage_y"] - expected_y) <= tolerance(expected_y, K)


def test_bias_sd_and_rmse_are_the_estimates_against_mu():
    table = intervals.covered(gaussian_replications(K, 2.0, bias=0.05))
    summary = intervals.summarize(table)
    assert summary["bias"] == pytest.approx(0.05, abs=3 * 0.1 / math.sqrt(K))
    assert summary["sd"] == pytest.approx(0.1, rel=0.05)
    assert summary["rmse"] == pytest.approx(math.sqrt(summary["bias"] ** 2 + summary["sd"] ** 2))
    # a shifted interval of half-width 2 sd covers P(|Z + 0.5| <= 2) = 0.9332
    assert abs(summary["coverage_mu"] - 0.9332) <= tolerance(0.9332, K)


def test_the_amse_optimal_lifetime_balances_the_theorems_bias_and_variance():
    d, n, noise = 2, 1000, 0.3
    lam = intervals.amse_optimal_lifetime(d, n, noise)
    constant = ((4 - 4 * math.log(2)) / 3) ** d

    def amse(lifetime):
        return (math.pi**2 * d / (2 * lifetime**2)) ** 2 + lifetime**d * noise**2 * constant / n

    assert amse(lam) < min(amse(0.95 * lam), amse(1.05 * lam))
    assert lam == pytest.approx((math.pi**4 * d * n / (noise**2 * constant)) ** (1 / (4 + d)))


def test_every_method_of_a_seed_meets_the_same_samples_and_the_trial_is_deterministic():
    settings = {"n_estimators": 10, "dim": 2, "n_samples": 200, "replications": 5, "seed": 3}
    spread = intervals.run(method="forest_spread", **settings)
    conformal = intervals.run(method="split_conformal", **settings)
    a, b = spread.tables["replications"], conformal.tables["replications"]
    assert np.array_equal(a["y_new"], b["y_new"]) and (a["mu"] == 2.0).all()
    again = intervals.run(method="forest_spread", **settings).tables["replications"]
    pd.testing.assert_frame_equal(a.drop(columns="seconds"), again.drop(columns="seconds"))
    other_seed = intervals.run(method="forest_spread", **{**settings, "seed": 4}).tables["replications"]
    assert not np.array_equal(a["y_new"], other_seed["y_new"])
    assert (a["lower"] < a["estimate"]).all() and (a["estimate"] < a["upper"]).all()
    assert spread.summary["replications"] == 5 and np.isnan(conformal.summary["std_hat"])


def test_the_debiased_forest_runs_at_its_lifetime_and_reports_its_standard_error():
    settings = {"method": "mondrian", "n_estimators": 10, "dim": 1, "n_samples": 200, "replications": 3, "seed": 1}
    plain = intervals.run(debias_order=0, **settings).tables["replications"]
    debiased = intervals.run(debias_order=1, debias_ratio=1.5, **settings).tables["replications"]
    assert np.allclose(plain["lifetime"], intervals.amse_optimal_lifetime(1, 200, 0.3))
    assert np.array_equal(plain["y_new"], debiased["y_new"])
    assert (plain["std"] > 0).all() and not np.allclose(plain["estimate"], debiased["estimate"])
    z = norm.ppf(0.975)
    assert np.allclose(debiased["upper"] - debiased["lower"], 2 * z * debiased["std"])
    rule = intervals.run(debias_order=1, lifetime="polynomial", **settings).tables["replications"]
    assert rule["lifetime"].nunique() == 3  # chosen from each sample
    pd.testing.assert_frame_equal(
        rule.drop(columns="seconds"),
        intervals.run(debias_order=1, lifetime="polynomial", **settings).tables["replications"].drop(columns="seconds"),
    )


def test_errors_are_clear():
    with pytest.raises(ValueError, match="unknown method 'bagging'"):
        intervals.run(seed=0, method="bagging", replications=1, n_samples=20)
    with pytest.raises(ValueError, match="debias_order and debias_ratio apply to method 'mondrian' only"):
        intervals.run(seed=0, method="forest_spread", debias_order=1, replications=1, n_samples=20)
    with pytest.raises(ValueError, match="empty_value must be a number or 'mean', got 'median'"):
        intervals.run(seed=0, method="mondrian", empty_value="median", replications=1, n_samples=20)
    with pytest.raises(ValueError, match="replications must be at least 1"):
        intervals.run(seed=0, method="forest_spread", replications=0)


def record(method: str, J: int, table: pd.DataFrame, seed: int = 0, lifetime="amse_optimal") -> RunRecord:
    settings = {"method": method, "debias_order": J, "lifetime": lifetime, "dim": 1, "n_samples": 1000}
    settings |= {"n_estimators": 1000, "empty_value": 0.0}
    trial = {"protocol": {"run": settings}, "seed": seed}
    return RunRecord(f"{method}{J}", "trial", trial, {}, pd.DataFrame({"step": []}), {"replications": table})


def runs_with(debiased_half_width: float, debiased_bias: float = 0.0) -> list[RunRecord]:
    """J = 0 at its MSE-optimal lifetime (bias half its sd, its interval of half-width 1.96 sd), J = 1 on the same
    replications with a larger sd and the given interval, and a baseline."""
    z = norm.ppf(0.975)
    plain = gaussian_replications(K, z, bias=0.05, seed=1)
    debiased = gaussian_replications(K, debiased_half_width, bias=debiased_bias, seed=2)
    debiased["estimate"] = 1.0 + debiased_bias + 1.3 * (debiased["estimate"] - 1.0 - debiased_bias)
    debiased["std"] = 0.13
    debiased["lower"], debiased["upper"] = (
        debiased["estimate"] - debiased_half_width * 0.13,
        debiased["estimate"] + debiased_half_width * 0.13,
    )
    baseline = gaussian_replications(K, 5.0, seed=3)
    return [
        record("mondrian", 0, intervals.covered(plain)),
        record("mondrian", 1, intervals.covered(debiased)),
        record("split_conformal", 0, intervals.covered(baseline)),
    ]


def by_key(claims) -> dict:
    return {claim.key: claim for claim in claims}


def test_claims_hold_on_a_valid_debiased_interval_and_fail_on_wrong_numbers():
    claims = cku23_coverage.claims(runs_with(norm.ppf(0.975)), None)
    assert_keyed(claims)
    found = by_key(claims)
    assert set(found) == {
        "debiased_coverage_d1_n1000_oracle_b1000",
        "debiased_coverage_not_below_d1_n1000_oracle_b1000",
        "negligible_bias_d1_n1000_oracle_b1000",
        "plain_undercovers_d1_n1000_oracle_b1000",
        "variance_estimator_j0_d1_n1000_oracle_b1000",
        "variance_estimator_j1_d1_n1000_oracle_b1000",
        "wider_debiased_d1_n1000_oracle_b1000",
        "larger_error_debiased_d1_n1000_oracle_b1000",
    }
    assert all(claim.passed for claim in claims), [str(c) for c in claims if not c.passed]
    # an interval of half-width 1.5 sd covers 0.866: both readings fail
    narrow = by_key(cku23_coverage.claims(runs_with(1.5), None))
    assert not narrow["debiased_coverage_d1_n1000_oracle_b1000"].passed
    assert not narrow["debiased_coverage_not_below_d1_n1000_oracle_b1000"].passed
    # one of 2.5 sd covers 0.988: too much for the printed reading, not for the weaker one
    wide = by_key(cku23_coverage.claims(runs_with(2.5), None))
    assert not wide["debiased_coverage_d1_n1000_oracle_b1000"].passed
    assert wide["debiased_coverage_not_below_d1_n1000_oracle_b1000"].passed
    # a bias of 0.4 sd is not negligible
    biased = by_key(cku23_coverage.claims(runs_with(norm.ppf(0.975), debiased_bias=0.052), None))
    assert not biased["negligible_bias_d1_n1000_oracle_b1000"].passed
    # a debiased interval narrower than the plain one fails the width claim
    assert not by_key(cku23_coverage.claims(runs_with(1.0), None))["wider_debiased_d1_n1000_oracle_b1000"].passed
    # a standard error 20% short of the sd fails the variance estimator's claim
    runs = runs_with(norm.ppf(0.975))
    runs[1].tables["replications"]["std"] = 0.8 * 0.13
    assert not by_key(cku23_coverage.claims(runs, None))["variance_estimator_j1_d1_n1000_oracle_b1000"].passed


def test_the_plain_claim_fails_when_the_plain_interval_covers_at_nominal():
    runs = runs_with(norm.ppf(0.975))
    runs[0] = record("mondrian", 0, intervals.covered(gaussian_replications(K, norm.ppf(0.975), seed=1)))
    assert not by_key(cku23_coverage.claims(runs, None))["plain_undercovers_d1_n1000_oracle_b1000"].passed


def test_the_drawing_tabulates_every_method():
    drawing = cku23_coverage.plot(runs_with(norm.ppf(0.975)), None)
    frame = drawing.tables[""].frame
    assert len(frame) == 3 and set(frame["replications"]) == {K}
    assert "split conformal (MAPIE)" in set(frame["label"])
