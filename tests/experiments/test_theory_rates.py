"""The rate figures' checks (theory-rates-lipschitz, theory-rates-smooth) on risk curves of known slopes: a slope at
the theory's rate passes, one steeper than the rate fails (two-sided: empty cells, whose part of the risk falls
faster, cannot pass for the rate), and the measured text gives the empty cells' share and the slope of the rest."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from experiments.figures import theory_rates, theory_rates_smooth
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
    plt.close(module.plot(runs, {}))
    return module.claims(runs, {})


def test_lipschitz_passes_at_the_rate_and_fails_a_steeper_slope_from_empty_cells():
    at_rate = check(theory_rates, lipschitz_runs(2, 0.0))
    assert len(at_rate) == 2 and all(c.passed for c in at_rate)
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
