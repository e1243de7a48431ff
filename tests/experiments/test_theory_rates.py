"""The rate figures' checks (theory-rates-lipschitz, theory-rates-smooth, theory-fixed-lifetime, theory-adaptive) on
risk curves of known slopes: an upper bound on the rate fails only on a slope significantly shallower than it, a
slope that does not contradict it passes only with the stated power (else it is not checked), "the same rate" is
two-sided, the smooth figure's claims are read at the constants its config fixed with every constant's verdict beside
them, and the adaptive forest keeps the rate of the full-data oracle when their ratio does not grow."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from claim_checks import assert_keyed
from omegaconf import OmegaConf

from experiments.figures import (
    CLAIM,
    NOT_CHECKED,
    theory_adaptive,
    theory_fixed_lifetime,
    theory_rates,
    theory_rates_smooth,
)
from experiments.tracking import RunRecord

SIZES = 500 * 2 ** np.arange(8)


def run(trial: dict, slope: float, empty_at_first: float, seed: int, noise: float = 0.01) -> RunRecord:
    """Risk = a rate part falling as n^slope (with ``noise`` on the log scale per seed and n) + an empty-cell part
    falling as n^(2 slope), which is ``empty_at_first`` of the risk at the first n."""
    wobble = np.exp(noise * np.random.default_rng(seed).standard_normal(len(SIZES)))
    rest = 0.1 * (SIZES / SIZES[0]) ** slope * wobble
    empty = 0.1 * empty_at_first / (1.0 - empty_at_first) * (SIZES / SIZES[0]) ** (2 * slope)
    curves = pd.DataFrame(
        {"step": SIZES, "risk": rest + empty, "empty_share": empty / (rest + empty), "lifetime": SIZES**0.25}
    )
    return RunRecord("test", "test", {**trial, "seed": seed}, {}, curves)


def lipschitz_runs(d: int, slope: float, empty_at_first: float = 0.0, noise: float = 0.01) -> list[RunRecord]:
    return [
        run(
            {"dataset": {"load": {"n_features": d}}, "model": {"estimator": {"n_estimators": trees}}},
            slope,
            empty_at_first,
            seed,
            noise,
        )
        for trees in (1, 10)
        for seed in range(5)
    ]


def check(module, runs, spec=None) -> list:
    """The figure drawn (and closed) and its claims, keyed and all claims (the theorems' statements) with a quote."""
    plt.close(module.plot(runs, spec).figure)
    claims = module.claims(runs, spec)
    assert_keyed(claims)
    assert all(c.kind == CLAIM and c.quote and c.where for c in claims)
    return claims


def test_lipschitz_upper_bound_is_one_sided_on_the_late_half():
    """At the rate and steeper (empty cells falling faster) it holds; shallower it fails; noisy seeds that do not
    contradict it leave it not checked (underpowered)."""
    at_rate = check(theory_rates, lipschitz_runs(2, -0.5))
    assert [c.key for c in at_rate] == ["minimax_rate_d2_forest_m10", "minimax_rate_d2_tree"]
    assert all(c.passed for c in at_rate)
    steeper = check(theory_rates, lipschitz_runs(2, -0.5, empty_at_first=0.8))
    assert all(c.passed for c in steeper)
    assert "empty cells 79.9% of the risk at n = 500" in steeper[0].measured
    assert "the rest of the risk: late-half slope" in steeper[0].measured
    assert steeper[0].values["rest_slope"] == pytest.approx(-0.5, abs=0.01)
    assert "late half (n = 8000 to 64000)" in steeper[0].measured
    shallower = check(theory_rates, lipschitz_runs(2, -0.45))
    assert not any(c.passed for c in shallower) and all(c.exceptions for c in shallower)
    noisy = check(theory_rates, lipschitz_runs(2, -0.5, noise=0.3))
    assert all(c.status == NOT_CHECKED and c.passed is None and "underpowered" in c.measured for c in noisy), noisy


def test_a_shallow_early_half_does_not_decide_the_rate():
    """A risk that falls slowly at first and at the rate over the late half meets the rate."""
    runs = lipschitz_runs(1, -2 / 3)
    for r in runs:
        early = r.curves["step"] < 8000
        r.curves.loc[early, "risk"] = (
            r.curves.loc[~early, "risk"].iloc[0] * (r.curves.loc[early, "step"] / 8000) ** -0.3
        )
    assert all(c.passed for c in check(theory_rates, runs))


SMOOTH = OmegaConf.create({"constants": {"tree": 15.8, "forest": 10.9}, "band": [2, 32]})


def smooth_runs(tree_slopes: dict, forest_slopes: dict) -> list[RunRecord]:
    """Per constant c: 5 seeds of the tree (M = 1) and of the forest (trees_exponent 0.4) falling as n^slope; the
    tree ten times the forest's risk."""
    runs = []
    for slopes, exponent, scale in ((tree_slopes, None, 10.0), (forest_slopes, 0.4, 1.0)):
        for c, slope in slopes.items():
            trial = {
                "protocol": {"run": {"trees_exponent": exponent, "lifetime_scale": c}},
                "dataset": {"load": {"n_features": 1}},
            }
            for seed in range(5):
                r = run(trial, slope, 0.0, seed)
                r.curves["risk"] *= scale
                runs.append(r)
    return runs


@pytest.mark.parametrize(
    "tree_slope, passed",
    [(-2 / 3, [True, True, True, True]), (-0.95, [True, False, True, False]), (-0.5, [True, False, True, True])],
)
def test_smooth_claims_at_the_fixed_constants_with_the_grid_beside(tree_slope, passed):
    """The claims read the fixed constants (15.8, 10.9): the tree's "same rate" is two-sided; the forest's rate is
    better than the tree's only if its slope is lower; every constant of the band has its verdict in measured."""
    runs = smooth_runs({15.8: tree_slope, 2: -2 / 3, 32: -1.1}, {10.9: -0.8, 2: -0.6, 32: -0.85})
    claims = check(theory_rates_smooth, runs, SMOOTH)
    assert [c.key for c in claims] == [
        "forest_rate_d1",
        "tree_rate_d1",
        "forest_beats_tree_d1",
        "forest_rate_improves_d1",
    ]
    assert [c.passed for c in claims] == passed, claims
    forest, tree = claims[0], claims[1]
    assert "c = 2: fails" in forest.measured and "c = 32: holds" in forest.measured
    assert "c = 2: holds" in tree.measured and "c = 32: fails" in tree.measured
    assert forest.values["constant"] == 10.9 and tree.values["constant"] == 15.8


def test_smooth_forest_not_much_better_fails():
    runs = smooth_runs({15.8: -0.8, 2: -0.8}, {10.9: -0.8, 2: -0.8})
    for r in runs:
        if r.trial["protocol"]["run"]["trees_exponent"] is None:
            r.curves["risk"] /= 6.0  # the tree 1.7 times the forest's risk: better, not twice as good
    beats = {c.key: c for c in check(theory_rates_smooth, runs, SMOOTH)}["forest_beats_tree_d1"]
    assert not beats.passed and len(beats.exceptions) == len(SIZES)


@pytest.mark.parametrize("fixed_slope, passed", [(0.0, [True, True, True]), (-0.5, [False, True, False])])
def test_fixed_lifetime_stagnates_while_lam_n_keeps_improving(fixed_slope, passed):
    """lam_n's risk falls at the minimax rate; a fixed lifetime's is flat at its limit (it stagnates) or keeps falling
    below the limit it records (the check fails, and lam_n no longer ends below it)."""
    data = {"dataset": {"load": {"n_features": 1}}}
    runs = [run({**data, "protocol": {"run": {"lifetime": None}}}, -2 / 3, 0.0, seed) for seed in range(5)]
    for seed in range(5):
        fixed = run({**data, "protocol": {"run": {"lifetime": 2.0}}}, fixed_slope, 0.0, seed)
        fixed.curves["risk"] *= 0.2  # below lam_n's at first
        fixed.metrics["limit_risk"] = float(fixed.curves["risk"].iloc[0])
        runs.append(fixed)
    claims = check(theory_fixed_lifetime, runs)
    assert [c.key for c in claims] == [
        "fixed_lifetime_plateaus_d1",
        "increasing_lifetime_rate_d1",
        "increasing_ends_below_fixed_d1",
    ]
    assert [c.passed for c in claims] == passed, claims


@pytest.mark.parametrize("growth, half_excess, passed", [(0.0, 1.1, (True, True)), (0.2, 1.5, (False, False))])
def test_adaptive_keeps_the_full_data_oracles_rate(growth, half_excess, passed):
    """The adaptive risk a constant 1.6 times the full-data oracle's keeps its rate; a ratio growing as n^0.2 does
    not. Beside it, the same-half comparison: within 25% passes, 50% above fails."""
    runs = []
    for name, load in (("hoelder", {"n_features": 2, "beta": 0.5}), ("smooth", {"n_features": 2})):
        for seed in range(10):
            noise = np.exp(0.01 * np.random.default_rng(seed).standard_normal(len(SIZES)))
            full = 0.1 * (SIZES / SIZES[0]) ** -0.5
            risk = 1.6 * full * (SIZES / SIZES[0]) ** growth * noise
            curves = pd.DataFrame(
                {
                    "step": SIZES,
                    "risk": risk,
                    "full_oracle_risk": full,
                    "half_oracle_risk": risk / half_excess,
                    "half_oracle_lifetime": 4.0,
                    "full_oracle_lifetime": 8.0,
                }
            )
            runs.append(RunRecord("t", "t", {"dataset": {"name": name, "load": load}, "seed": seed}, {}, curves))
    claims = check(theory_adaptive, runs)
    assert [c.key for c in claims] == [
        "keeps_rate_hoelder_beta0p5_d2",
        "near_half_oracle_hoelder_beta0p5_d2",
        "keeps_rate_smooth_d2",
        "near_half_oracle_smooth_d2",
    ]
    assert [c.passed for c in claims] == list(passed) * 2, claims
    assert claims[0].values["ratio_first"] == pytest.approx(1.6, rel=0.02)
