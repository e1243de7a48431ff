"""The protocols of AMF's Fig. 10-12: progressive validation on a log grid, and test metrics on a held-out part."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import roc_auc_score

from experiments.data import synthetic
from experiments.data.bundled import bundled
from experiments.protocols import holdout, online, progressive
from mondrian import AMFClassifier


def amf(n_estimators=3):
    return lambda: AMFClassifier(n_estimators=n_estimators, random_state=0, n_jobs=1)


def test_log_steps_cover_the_start_the_tenths_and_the_end():
    steps = progressive.log_steps(1000, 20)
    assert steps[0] == 1 and steps[-1] == 1000
    assert np.all(np.diff(steps) > 0)
    assert set(range(100, 1001, 100)) <= set(steps)
    assert len(steps) <= 20 + 10
    assert list(progressive.log_steps(3, 100)) == [1, 2, 3]


def test_progressive_equals_online_at_common_steps():
    data = synthetic.moons(n_samples=400, test_size=0.0, seed=0)
    by_grid = progressive.run(amf(), data, seed=3, n_points=30).curves.set_index("step")
    by_block = online.run(amf(), data, seed=3, log_every=40).curves.set_index("step")
    common = by_block.index.intersection(by_grid.index)
    assert list(common) == list(range(40, 401, 40))
    for column in ("average_log_loss", "average_accuracy"):
        np.testing.assert_allclose(by_grid.loc[common, column], by_block.loc[common, column], rtol=1e-12)
    assert by_grid["average_log_loss"].iloc[0] == pytest.approx(np.log(2))  # the first prediction is uniform


def test_progressive_max_samples_keeps_a_prefix_of_the_shuffled_stream():
    data = synthetic.moons(n_samples=400, test_size=0.0, seed=0)
    full = progressive.run(amf(), data, seed=1, n_points=10).curves.set_index("step")
    prefix = progressive.run(amf(), data, seed=1, n_points=10, max_samples=200)
    assert prefix.curves["step"].iloc[-1] == 200 and prefix.summary["n_samples"] == 200
    assert prefix.curves["average_log_loss"].iloc[-1] == pytest.approx(full.loc[200, "average_log_loss"], rel=1e-12)
    with pytest.raises(ValueError, match="max_samples"):
        progressive.run(amf(), data, seed=1, max_samples=0)


def test_progressive_runs_models_without_a_compiled_loop():
    sgd = progressive.run(lambda: SGDClassifier(loss="log_loss", random_state=0), bundled("iris", test_size=0.0), 0)
    assert sgd.curves["step"].iloc[-1] == 150
    assert sgd.curves["average_log_loss"].iloc[0] == pytest.approx(np.log(3))


def test_holdout_tests_an_online_model_every_chunk_and_chunks_do_not_change_it():
    data = synthetic.moons(n_samples=400, test_size=0.3, seed=0)
    chunks = holdout.run(amf(), data, seed=2, every=50)
    assert list(chunks.curves["step"]) == [50, 100, 150, 200, 250, 280]
    assert chunks.curves[["auc", "accuracy"]].stack().between(0, 1).all()
    assert chunks.curves["train_time"].is_monotonic_increasing
    once = holdout.run(amf(), data, seed=2, every=None)
    assert list(once.curves["step"]) == [280]
    for key in ("auc", "accuracy", "log_loss"):
        assert once.summary[key] == pytest.approx(chunks.summary[key], rel=1e-12)
    assert chunks.summary["n_train"] == 280 and chunks.summary["n_test"] == 120


def test_holdout_fits_a_batch_model_once_on_the_whole_training_part():
    data = synthetic.moons(n_samples=400, test_size=0.3, seed=0)
    result = holdout.run(lambda: RandomForestClassifier(n_estimators=5, random_state=0), data, seed=0, every=50)
    assert list(result.curves["step"]) == [280]
    assert result.summary["auc"] > 0.8
    short = holdout.run(lambda: RandomForestClassifier(n_estimators=5, random_state=0), data, seed=0, max_samples=100)
    assert list(short.curves["step"]) == [100]


def test_auc_binary_multiclass_and_missing_class():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    p1 = np.clip(0.3 * y + rng.random(200) * 0.7, 0, 1)
    proba = np.c_[1 - p1, p1]
    assert holdout.auc(proba, y) == pytest.approx(roc_auc_score(y, p1))
    y3 = rng.integers(0, 3, 300)
    proba3 = rng.dirichlet(np.ones(3), 300)
    assert 0 <= holdout.auc(proba3, y3) <= 1
    assert np.isnan(holdout.auc(proba3, np.where(y3 == 2, 0, y3)))


def test_holdout_needs_a_test_part_and_a_positive_chunk():
    with pytest.raises(ValueError, match="test set"):
        holdout.run(amf(), synthetic.moons(n_samples=100, test_size=0.0, seed=0), seed=0)
    with pytest.raises(ValueError, match="every"):
        holdout.run(amf(), synthetic.moons(n_samples=100, test_size=0.3, seed=0), seed=0, every=0)
