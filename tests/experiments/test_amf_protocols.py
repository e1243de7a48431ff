"""The protocols of AMF's Fig. 10-12 (progressive validation on a log grid, test metrics on a held-out part) and the
node statistics the update illustrations log (Fig. 4: from their definitions; Fig. 6: the library's)."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import roc_auc_score

from experiments.data import synthetic
from experiments.data.bundled import bundled
from experiments.protocols import holdout, lrt14_updates, online, progressive, unrestricted_updates
from mondrian import AMFClassifier, AMFRegressor, MondrianForestClassifier


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


# -- node statistics of the update illustrations (amf-fig4, amf-fig6) -------------------------------------------------
POINTS = [[0.15, 0.75], [0.7, 0.25], [0.35, 0.2], [0.8, 0.8], [0.55, 0.4]]
LABELS = [0.3, 0.8, 0.5, 0.1, 0.6]


@pytest.mark.parametrize("seed", [112, 3, 9])
def test_unrestricted_updates_statistics_follow_their_definitions(seed):
    """Counted and weighed from Table 1's definitions: the counts are the points each cell holds, a cell with one
    point has paid the square loss of h(empty) = 0 on it, an empty cell nothing, and the enumerated wbar satisfies
    the text's recursion (wbar = w at a leaf, w / 2 + wbar_0 wbar_1 / 2 above) that it never used."""
    result = unrestricted_updates.run(seed, POINTS, 4, 60.0, LABELS, step=2.0)
    nodes, stats = result.tables["nodes"], result.tables["stats"]
    assert list(result.tables["points"]["label"]) == LABELS
    for k, end in ((0, 4), (1, 5)):
        table = nodes[nodes["state"] == k].set_index("node")
        mine = stats[stats["state"] == k].set_index("node").loc[table.index]
        assert (mine["count"] == table["n_points"]).all() and mine.loc[table["parent"] < 0, "count"].item() == end
        one = table["n_points"] == 1
        held = [unrestricted_updates.points_below(table.assign(node=table.index), np.asarray(POINTS[:end]))[j] for j in
                table.index[one]]  # fmt: skip
        np.testing.assert_allclose(mine.loc[one, "log_w"], [-2.0 * LABELS[h[0]] ** 2 for h in held], rtol=1e-12)
        assert (mine.loc[table["n_points"] == 0, ["log_w", "log_wbar"]] == 0).all().all()
        leaf = table["left"] < 0
        np.testing.assert_array_equal(mine.loc[leaf, "log_wbar"], mine.loc[leaf, "log_w"])
        inner = table.index[~leaf]
        left, right = table.loc[inner, "left"], table.loc[inner, "right"]
        children = mine.loc[left, "log_wbar"].to_numpy() + mine.loc[right, "log_wbar"].to_numpy()
        recursion = np.logaddexp(mine.loc[inner, "log_w"].to_numpy(), children) + np.log(0.5)
        np.testing.assert_allclose(mine.loc[inner, "log_wbar"], recursion, rtol=1e-12)


def test_unrestricted_updates_without_labels_log_no_statistics_and_check_their_labels():
    assert "stats" not in unrestricted_updates.run(112, POINTS, 4, 60.0).tables
    with pytest.raises(ValueError, match="one label per point"):
        unrestricted_updates.run(112, POINTS, 4, 60.0, LABELS[:3])


def test_lrt14_updates_log_an_amf_trees_statistics_and_nothing_more_for_other_forests():
    result = lrt14_updates.run(lambda: AMFRegressor(1, random_state=60), 60, POINTS, LABELS, 4)
    stats, nodes = result.tables["stats"], result.tables["nodes"]
    assert list(stats.columns) == ["node", "count", "sum_0", "log_w", "log_wbar", "state"]
    for k, end in ((0, 4), (1, 5)):
        table = nodes[nodes["state"] == k]
        root = int(table.loc[table["parent"] < 0, "node"].iloc[0])
        mine = stats[stats["state"] == k].set_index("node")
        assert len(mine) == len(table) and mine.at[root, "count"] == end
        assert mine.at[root, "sum_0"] == pytest.approx(sum(LABELS[:end]), abs=1e-12)
    classes = lrt14_updates.run(lambda: AMFClassifier(1, random_state=0), 0, POINTS, [0, 1, 2, 1, 0], 4)
    assert [c for c in classes.tables["stats"].columns if c.startswith("sum_")] == ["sum_0", "sum_1", "sum_2"]
    lrt14 = lrt14_updates.run(lambda: MondrianForestClassifier(1, random_state=0), 0, POINTS, [0, 1, 0, 1, 0], 4)
    assert set(lrt14.tables) == {"nodes", "points"}  # what the LRT14 figures read, unchanged
