"""The rates protocol: the model refitted on growing prefixes, its lifetime (and trees) following n, its excess risk
measured against the noiseless regression function recorded by the synthetic datasets."""

import numpy as np
import pytest

from experiments.data.fetch import load
from experiments.data.synthetic import hoelder_function, regression_function, smooth_function
from experiments.protocols import rates
from mondrian import MondrianPartitionForestRegressor
from mondrian.partition import lifetime_grid


def test_synthetic_datasets_record_their_regression_function():
    data = load("hoelder", n_samples=50, n_features=3, beta=0.5, test_size=10, seed=1)
    np.testing.assert_array_equal(regression_function(data)(data.X_test), hoelder_function(data.X_test, 0.5))
    smooth = load("smooth", n_samples=50, n_features=2, test_size=10, seed=1)
    np.testing.assert_array_equal(regression_function(smooth)(smooth.X_test), smooth_function(smooth.X_test))
    with pytest.raises(ValueError, match="regression function"):
        regression_function(load("friedman5", n_samples=50))


def test_risk_against_f_with_lifetime_and_trees_following_n():
    data = load("hoelder", n_samples=1200, n_features=2, test_size=200, seed=0)
    inner = np.all((data.X_test >= 0.1) & (data.X_test <= 0.9), axis=1)
    result = rates.run(
        lambda: MondrianPartitionForestRegressor(random_state=0),
        data,
        seed=0,
        sizes=[100, 1000],
        lifetime_scale=2.0,
        trees_scale=0.5,
        trees_exponent=0.5,
        inner_margin=0.1,
    )
    curves = result.curves
    np.testing.assert_allclose(curves["lifetime"], [2.0 * 100**0.25, 2.0 * 1000**0.25])
    np.testing.assert_array_equal(curves["n_estimators"], [5, 16])
    for n, row in zip([100, 1000], curves.itertuples(), strict=True):
        forest = MondrianPartitionForestRegressor(row.n_estimators, lifetime=row.lifetime, random_state=0)
        forest.fit(data.X_train[:n], data.y_train[:n])
        truth = hoelder_function(data.X_test[inner], 1.0)
        assert row.risk == pytest.approx(np.mean((forest.predict(data.X_test[inner]) - truth) ** 2), rel=1e-12)
        # predictions are affine in the empty cells' value, with slope q: the share of trees whose cell is empty
        # (the same trees, fitted with empty cells predicting 1: the value is fixed at fit)
        moved = MondrianPartitionForestRegressor(
            row.n_estimators, lifetime=row.lifetime, empty_value=1.0, random_state=0
        )
        moved = moved.fit(data.X_train[:n], data.y_train[:n]).predict(data.X_test[inner])
        empty = moved - forest.predict(data.X_test[inner])
        assert row.empty_share == pytest.approx(np.mean((empty * truth) ** 2) / row.risk, rel=1e-9)
    assert 0.0 < curves["empty_share"].iloc[0] < 1.0  # 100 points in about 50 cells: some empty
    assert result.summary["final_risk"] == curves["risk"].iloc[-1]


def test_fixed_and_adaptive_lifetimes_and_bad_sizes():
    data = load("smooth", n_samples=700, n_features=1, test_size=200, seed=0)
    fixed = rates.run(lambda: MondrianPartitionForestRegressor(3, random_state=0), data, 0, [100, 500], lifetime=4.0)
    assert list(fixed.curves["lifetime"]) == [4.0, 4.0] and "limit_risk" not in fixed.summary
    adaptive = rates.run(
        lambda: MondrianPartitionForestRegressor(3, random_state=0), data, 0, [100, 500], lifetime="adaptive"
    )
    curves = adaptive.curves
    assert np.all(curves["chosen_lifetime"] <= curves["lifetime"]) and np.all(curves["risk"] >= 0)
    assert "empty_share" in fixed.curves and "empty_share" not in curves  # the STAR mix is no single pruned forest
    assert list(curves["n_fit"]) == [50, 250] and list(curves["n_held"]) == [50, 250]
    forest = MondrianPartitionForestRegressor(3, lifetime="adaptive", random_state=0)
    forest.fit(data.X_train[:500], data.y_train[:500])
    truth = smooth_function(data.X_test)
    grid_risks = np.mean((forest.predict_nested(data.X_test, forest.selection_["lifetimes"]) - truth) ** 2, axis=1)
    last = curves.iloc[-1]
    assert last["half_oracle_risk"] == pytest.approx(grid_risks.min(), rel=1e-12)
    assert last["half_oracle_lifetime"] == forest.selection_["lifetimes"][np.argmin(grid_risks)]
    assert (last["partner_lifetime"], last["alpha"]) == (forest.selection_["partner"], forest.selection_["alpha"])
    # the full-data oracle: a forest of the same trees' streams on all 500 points, its best lifetime of lifetime_grid
    grid = lifetime_grid(500, 1)
    full = MondrianPartitionForestRegressor(3, lifetime=grid[-1], random_state=0).fit(
        data.X_train[:500], data.y_train[:500]
    )
    full_risks = np.mean((full.predict_nested(data.X_test, grid) - truth) ** 2, axis=1)
    assert last["full_oracle_risk"] == pytest.approx(full_risks.min(), rel=1e-12)
    assert last["full_oracle_lifetime"] == grid[np.argmin(full_risks)]
    assert last["full_oracle_at_edge"] == float(np.argmin(full_risks) in (0, len(grid) - 1))
    table = adaptive.tables["grid_risks"]
    at_500 = table[(table["n"] == 500) & (table["forest"] == "full")]
    np.testing.assert_allclose(at_500["risk"], full_risks, rtol=1e-12)
    half = table[(table["n"] == 500) & (table["forest"] == "half")]
    np.testing.assert_allclose(half["held_out_risk"], forest.selection_["risks"], rtol=1e-12)
    for sizes in ([], [500, 100], [0, 10], [100, 501]):
        with pytest.raises(ValueError, match="sizes"):
            rates.run(lambda: MondrianPartitionForestRegressor(), data, 0, sizes)


def test_a_fixed_lifetimes_limit_is_its_forests_cells_predicting_the_mean_of_f():
    """The limit as n -> inf: the last forest's partitions with each cell predicting the mean of f over it; it is
    the risk's limit (at a large n the risk is close to it) and exact on f constant per cell (0 then)."""
    data = load("hoelder", n_samples=20200, n_features=2, test_size=200, seed=0)
    result = rates.run(
        lambda: MondrianPartitionForestRegressor(5, random_state=0), data, 0, [20000], lifetime=2.0, limit=True
    )
    assert result.summary["limit_risk"] == pytest.approx(result.summary["final_risk"], rel=0.05)
    lower, upper = np.array([[0.0, 0.0], [0.2, 0.5]]), np.array([[1.0, 1.0], [0.6, 0.7]])
    np.testing.assert_allclose(
        rates.cell_means(lambda X: X[:, 0] * X[:, 1] ** 2, lower, upper),
        [1 / 6, 0.4 * (0.7**3 - 0.5**3) / 3 / 0.2],
        rtol=1e-12,
    )
