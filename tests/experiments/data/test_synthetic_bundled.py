"""Synthetic and bundled datasets: seeded, shaped as documented, validated."""

import numpy as np
import pytest

from experiments.config import compose
from experiments.data import Dataset, load_dataset, synthetic
from experiments.data.bundled import bundled

CONFIGS = [
    "bsp_sin",
    "gap_sine",
    "signal1d",
    "moons",
    "circles",
    "linear",
    "friedman5",
    "friedman10",
    "hoelder",
    "smooth",
    "iris",
    "wine",
    "breast_cancer",
    "digits",
    "diabetes",
]


@pytest.mark.parametrize("name", CONFIGS)
def test_every_dataset_config_loads(name):
    cfg = compose([f"dataset={name}", "seed=1"])
    data = load_dataset(cfg.dataset)
    assert isinstance(data, Dataset)
    assert np.isfinite(data.X_train).all() and len(data.y_train) > 0
    again = load_dataset(compose([f"dataset={name}", "seed=1"]).dataset)
    assert again.content_hash == data.content_hash


def test_seed_changes_synthetic_data_and_hash():
    a, b = synthetic.moons(seed=0), synthetic.moons(seed=1)
    assert a.content_hash != b.content_hash


def test_friedman_has_the_documented_regression_function():
    data = synthetic.friedman(5000, n_features=10, noise=0.0, test_size=0.0, seed=0)
    X, y = data.X_train, data.y_train
    expected = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3] + 5 * X[:, 4]
    np.testing.assert_allclose(y, expected)
    assert X.min() >= 0 and X.max() <= 1 and data.task == "regression"


def test_friedman_noiseless_test_targets_are_the_true_function_on_the_same_split():
    noisy = synthetic.friedman(4000, n_features=5, noise=1.0, test_size=0.5, seed=2)
    clean = synthetic.friedman(4000, n_features=5, noise=1.0, test_size=0.5, seed=2, noiseless_test=True)
    X = clean.X_test
    truth = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3] + 5 * X[:, 4]
    np.testing.assert_allclose(clean.y_test, truth)
    assert (clean.X_train == noisy.X_train).all() and (clean.y_train == noisy.y_train).all()
    assert (clean.X_test == noisy.X_test).all() and abs((noisy.y_test - clean.y_test).std() - 1.0) < 0.05


def test_hoelder_function_and_noise():
    data = synthetic.hoelder(20000, n_features=2, beta=0.5, noise=0.1, test_size=0.0, seed=0)
    residual = data.y_train - synthetic.hoelder_function(data.X_train, 0.5)
    assert abs(residual.std() - 0.1) < 0.005
    with pytest.raises(ValueError, match="beta"):
        synthetic.hoelder(10, beta=1.5)


def test_bsp_sin_toy_has_the_documented_function_and_noise():
    data = synthetic.bsp_sin(20000, noise=0.2, test_size=0.0, seed=0)
    X = data.X_train
    residual = data.y_train - 10 * np.sin(np.pi * X[:, 0] * X[:, 1])
    assert X.shape == (20000, 2) and abs(residual.std() - 0.2) < 0.01


@pytest.mark.parametrize("signal", synthetic.SIGNALS)
def test_signals_are_rescaled_to_the_unit_interval(signal):
    grid = np.linspace(0, 1, 10001)
    values = synthetic.signal_function(grid, signal)
    assert values.min() == pytest.approx(0, abs=1e-3) and values.max() == pytest.approx(1, abs=1e-3)
    data = synthetic.signal1d(3000, signal=signal, noise=0.0, seed=2)
    np.testing.assert_allclose(data.y_train, synthetic.signal_function(data.X_train[:, 0], signal))


def test_signals_have_their_shapes():
    t = np.array([0.05, 0.2, 0.5, 0.9])
    # heavisine: 4 sin(4 pi t) with jumps at 0.3 and 0.72; blocks: piecewise constant between the jumps
    np.testing.assert_allclose(
        synthetic._raw_signal(t, "heavisine"), 4 * np.sin(4 * np.pi * t) - np.sign(t - 0.3) - np.sign(0.72 - t)
    )
    np.testing.assert_allclose(synthetic._raw_signal(np.array([0.05, 0.11, 0.5]), "blocks"), [0, 4, 0.9])
    assert synthetic._raw_signal(np.array([0.1]), "bumps")[0] > 4  # a bump peaks at its location
    with pytest.raises(ValueError, match="doppler"):
        synthetic.signal1d(10, signal="sine")


def test_classification_split_is_stratified_and_classes_cover_both_parts():
    data = bundled("iris", test_size=0.3, seed=0)
    assert sorted(np.bincount(data.y_test)) == [15, 15, 15]
    np.testing.assert_array_equal(data.classes, [0, 1, 2])


def test_unknown_bundled_dataset_names_the_choices():
    with pytest.raises(ValueError, match="digits"):
        bundled("mnist")


def test_dataset_rejects_inconsistent_arrays():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="shapes"):
        Dataset("bad", "regression", X, np.zeros(2), X[:0], np.zeros(0))
    with pytest.raises(ValueError, match="task"):
        Dataset("bad", "ranking", X, np.zeros(3), X[:0], np.zeros(0))
