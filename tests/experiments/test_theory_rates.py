"""The rate figures' checks (theory-rates-lipschitz, theory-rates-smooth, theory-fixed-lifetime, theory-adaptive) on
risk curves of known slopes: a slope at the theory's rate passes, one steeper than the rate fails (two-sided: empty
cells, whose part of the risk falls faster, cannot pass for the rate), and the measured text gives the empty cells'
share and the slope of the rest."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from claim_checks import assert_keyed

from experiments.figures import CLAIM, theory_adaptive, theory_fixed_lifetime, theory_rates, theory_rates_smooth
from experiments.tracking import RunRecord

SIZES = 500 * 2 ** np.arange(8)


def run(trial: dict, slope: float, empty_at_first: float, seed: int) -> RunRecord:
    """Risk = a rate part falling as n^slope (with a little seed noise) + an empty-cell part falling as n^(2 slope),
    which is ``empty_at_first`` of the risk at the first n."""
    wobble = np.exp(0.01 * np.random.default_rng(seed).standard_normal(len(SIZES)))
    rest = 0.1 * (SIZES / SIZES[0]) ** slope * wobble
    empty = 0.1 * empty_at_first / (1.0 - empty_at_first) * (SIZES / SIZES[0]) ** (2 * slope)
    curves = pd.DataFrame({"step": SIZES, "risk": rest + empty, "empty_share": empty / (rest + empty)})
    return RunRecord("test", "test", {**trial, "seed": seed}, {}, curves)


def lipschitz_runs(d: int, empty_at_first: float) -> list[RunRecord]:
    return [
        run({"dataset": {"load": {"n_features": d}}, "model": {"estimator": {"n_estimators": trees}}},
            -2.0 / (d + 2), empty_at_first, seed)
        for trees in (1, 10) for seed in range(5)
    ]  # fmt: skip


def check(module, runs) -> list:
    """The figure drawn (and closed) and its claims, keyed and all claims (the theorems' statements)."""
    plt.close(module.plot(runs, {}).figure)
    claims = module.claims(runs, {})
    assert_keyed(claims)
    assert all(c.kind == CLAIM for c in claims)
    return claims


def test_lipschitz_passes_at_the_rate_and_fails_a_steeper_slope_from_empty_cells():
    at_rate = check(theory_rates, lipschitz_runs(2, 0.0))
    assert len(at_rate) == 2 and all(c.passed for c in at_rate)
    assert [c.key for c in at_rate] == ["minimax_rate_d2_forest_m10", "minimax_rate_d2_tree"]
    steeper = check(theory_rates, lipschitz_runs(2, 0.8))  # the empty cells' faster fall steepens the slope
    assert len(steeper) == 2 and not any(c.passed for c in steeper)
    assert "empty cells 79.9% of the risk at n = 500" in steeper[0].measured
    assert "the rest of the risk: slope -0.500 [" in steeper[0].measured


@pytest.mark.parametrize("tree_empty, passed", [(0.0, [True, True, True]), (0.9, [True, False, True])])
def test_smooth_tree_rate_is_two_sided(tree_empty, passed):
    forest = {"protocol": {"run": {"trees_exponent": 0.4}}, "dataset": {"load": {"n_features": 1}}}
    tree = {"protocol": {"run": {"trees_exponent": None}}, "dataset": {"load": {"n_features": 1}}}
    runs = [run(forest, -0.8, 0.0, seed) for seed in range(5)]
    runs += [run(tree, -2 / 3, tree_empty, seed) for seed in range(5)]
    for tree_run in runs[5:]:
        tree_run.curves["risk"] *= 10.0  # the tree: ten times the forest's risk and more
    claims = check(theory_rates_smooth, runs)
    assert [c.passed for c in claims] == passed, claims
    assert [c.key for c in claims] == ["forest_rate_d1", "tree_rate_d1", "forest_beats_tree_d1"]


@pytest.mark.parametrize("fixed_slope, passed", [(0.0, [True, True]), (-0.5, [False, False])])
def test_fixed_lifetime_plateaus_while_lam_n_keeps_improving(fixed_slope, passed):
    """lam_n's risk falls at the minimax rate; a fixed lifetime's is flat (it has stopped improving) or falls too
    (the check fails, and lam_n no longer ends below it)."""
    data = {"dataset": {"load": {"n_features": 1}}}
    runs = [run({**data, "protocol": {"run": {"lifetime": None}}}, -2 / 3, 0.0, seed) for seed in range(3)]
    runs += [run({**data, "protocol": {"run": {"lifetime": 2.0}}}, fixed_slope, 0.0, seed) for seed in range(3)]
    for fixed in runs[3:]:
        fixed.curves["risk"] *= 0.2  # below lam_n's at first
    claims = check(theory_fixed_lifetime, runs)
    assert [c.key for c in claims] == ["fixed_lifetime_plateaus_d1", "increasing_lifetime_improves_d1"]
    assert [c.passed for c in claims] == passed, claims


@pytest.mark.parametrize("excess, passed", [(1.1, True), (1.5, False)])
def test_adaptive_lifetime_near_the_oracle(excess, passed):
    """The adaptive risk ``excess`` times the best grid lifetime's: within 25% passes, 50% above fails."""
    runs = []
    for name, load in (("hoelder", {"n_features": 2, "beta": 0.5}), ("smooth", {"n_features": 2})):
        for seed in range(2):
            oracle = 0.1 * (SIZES / SIZES[0]) ** -0.5
            curves = pd.DataFrame({"step": SIZES, "risk": excess * oracle, "oracle_risk": oracle,
                                   "oracle_lifetime": 4.0, "chosen_lifetime": 4.0})  # fmt: skip
            runs.append(RunRecord("t", "t", {"dataset": {"name": name, "load": load}, "seed": seed}, {}, curves))
    claims = check(theory_adaptive, runs)
    assert [c.key for c in claims] == ["near_oracle_hoelder_beta0p5_d2", "near_oracle_smooth_d2"]
    assert [c.passed for c in claims] == [passed] * 2
