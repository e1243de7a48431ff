"""BSP Figures 1, 2 and 6: the protocols' tables are the library's trees, the order check's batch trees are the
process's, and the figures' claims fail on tables that contradict them."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from claim_checks import assert_keyed

from experiments.figures import CLAIM, INVARIANT, bsp_fig1, bsp_fig2, bsp_fig6
from experiments.figures.bsp_drawing import chord
from experiments.protocols import bsp_illustrations as illustrations
from experiments.protocols import bsp_order
from experiments.protocols.process import partition_table
from experiments.tracking import RunRecord
from mondrian import MondrianForestClassifier, OnlineBSPForestRegressor


def as_run(result, protocol_run: dict, seed: int = 0) -> RunRecord:
    trial = {"protocol": {"run": protocol_run}, "seed": seed}
    return RunRecord("r", "r", trial, result.summary, result.curves, result.tables)


def test_chord_of_a_line_in_a_polygon():
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    segment = chord(square, 1.0, 0.0, 0.25)  # x = 0.25
    assert sorted(map(tuple, segment)) == [(0.25, 0.0), (0.25, 1.0)]
    diagonal = chord(square, np.sqrt(0.5), np.sqrt(0.5), np.sqrt(0.5))  # x + y = 1, through two corners
    assert sorted(map(tuple, np.round(diagonal, 12))) == [(0.0, 1.0), (1.0, 0.0)]
    assert chord(square, 1.0, 0.0, 2.0) is None


def test_cut_steps_are_the_root_cut_of_the_librarys_tree():
    result = illustrations.cut_steps(seed=3, n_points=30)
    model = OnlineBSPForestRegressor(1, budget=1.5, random_state=3)
    X = np.random.default_rng(3).uniform(size=(30, 3))
    model.fit(X, np.zeros(30))
    nodes = model.trees_[0].nodes
    root = int(nodes.root[0])
    assert result.summary["u"] == nodes.position[root]
    assert result.summary["theta"] == pytest.approx(np.arctan2(nodes.direction[root, 1], nodes.direction[root, 0]))
    pairs = result.tables["pairs"]
    assert pairs["probability"].sum() == pytest.approx(1.0)
    np.testing.assert_allclose(pairs["probability"], pairs["perimeter"] / pairs["perimeter"].sum())
    points = result.tables["points"]
    assert points["left"].sum() == result.summary["n_left"] and len(points) == 30
    d1, d2 = model.pairs_[nodes.pair[root]]
    along = X[:, d1] * nodes.direction[root, 0] + X[:, d2] * nodes.direction[root, 1]
    assert (points["left"].to_numpy() == (along <= nodes.position[root])).all()


def test_online_steps_replay_partial_fit_and_seed_0_shows_every_case():
    result = illustrations.online_steps(seed=0)
    steps = result.tables["steps"]
    assert list(steps["label"]) == list("abcdefg")
    model = OnlineBSPForestRegressor(1, budget=3.0, random_state=0)
    X = np.random.default_rng(0).uniform(size=(7, 2))
    for i in range(7):
        model.partial_fit(X[i : i + 1], np.zeros(1))
    last = result.tables["nodes"].query("step == 6").reset_index(drop=True)
    nodes, _ = illustrations.tree_tables(model)
    pd.testing.assert_frame_equal(last[nodes.columns], nodes, check_dtype=False)
    run = as_run(result, {"budget": 3.0})
    claims = bsp_fig2.claims([run], {})
    assert all(c.passed for c in claims), claims
    assert_keyed(claims)
    assert [(c.key, c.kind) for c in claims] == [
        ("every_update_case_shown", INVARIANT),
        ("cuts_separate_children_hulls", INVARIANT),
    ]
    figure = bsp_fig2.plot([run], {}).figure
    assert "budget 3, seed 0" in figure.texts[0].get_text()
    plt.close(figure)
    # without the arrival that puts a cut above a node, the claim that every case shows fails
    tables = {**result.tables, "steps": steps.assign(events=steps["events"].str.replace("cut above", "absorbed"))}
    edited = RunRecord("r", "r", {"protocol": {"run": {}}}, {}, result.curves, tables)
    assert not bsp_fig2.claims([edited], {})[0].passed


def test_hulls_and_slice_tables_are_the_librarys_trees():
    result = illustrations.hulls_and_slice(seed=2, slice_trees=20, slice_points=800, text_slice_trees=20)
    points = result.tables["points"]
    X, y = points[["x", "y"]].to_numpy(), points["label"].to_numpy()
    mondrian = MondrianForestClassifier(1, lifetime=3.0, random_state=2).fit(X, y)
    pd.testing.assert_frame_equal(result.tables["mondrian"], partition_table(mondrian.trees_[0]))
    counts = result.tables["slice_counts"]
    law = counts[counts["rule"] == "law"]
    assert result.summary["slice_mean"] == law["crossings"].mean() and len(law) == 20
    assert (counts["first_half"] + counts["second_half"] == counts["crossings"]).all()
    positions = result.tables["slice_positions"]
    assert len(positions) == counts["crossings"].sum() and positions["s"].between(0, 1).all()
    segment = result.tables["segment"].to_numpy()
    for point in result.tables["crossings"].to_numpy():  # the crossing points lie on the segment
        a, b = segment
        t = (point - a) @ (b - a) / ((b - a) @ (b - a))
        np.testing.assert_allclose(point, a + t * (b - a), atol=1e-12)
        assert 0 <= t <= 1
    claims = bsp_fig6.claims([as_run(result, {})], {})
    assert_keyed(claims)
    assert [(c.key, c.kind, c.weaker_of, c.passed) for c in claims] == [
        ("hull_tighter_than_box", INVARIANT, "", True),
        ("slice_poisson_mean", CLAIM, "", True),
        ("slice_variance_equals_mean", CLAIM, "", True),
        ("slice_homogeneous", CLAIM, "", True),
    ], claims
    assert "beside, Algorithm 4 as printed" in claims[1].measured  # the text's trees pile up cuts: shown, not counted
    assert claims[1].values["text_mean"] > 2 * claims[1].values["law_mean"]
    plt.close(bsp_fig6.plot([as_run(result, {})], {}).figure)
    doubled = counts.assign(crossings=np.where(counts["rule"] == "law", 2 * counts["crossings"], counts["crossings"]))
    wrong = RunRecord("r", "r", {}, result.summary, result.curves, {**result.tables, "slice_counts": doubled})
    assert not bsp_fig6.claims([wrong], {})[1].passed
    bunched = positions.assign(s=positions["s"] / 4)  # every crossing on the first quarter: not homogeneous
    clumped = RunRecord("r", "r", {}, result.summary, result.curves, {**result.tables, "slice_positions": bunched})
    assert not bsp_fig6.claims([clumped], {})[3].passed


def test_batch_trees_are_the_process_on_the_points():
    """The order check's batch sampler, apart from the library: no cut before a tiny budget; with a budget far
    beyond the data's scale every block is cut down to at most 3 points; its leaves' law matches the library's
    online trees (law's rule) at a fixed budget, and the text's rule gives far more leaves."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 2))
    assert bsp_order.batch_tree(X, 1e-6, 0.5, rng) == (1, np.inf)
    saturated = [bsp_order.batch_tree(X, 1e6, 0.5, rng)[0] for _ in range(20)]
    assert min(saturated) >= 20 and max(saturated) <= 59  # blocks of 1 to 3 points
    result = bsp_order.run(seed=1, n_points=150, budget=3.0, n_trees=300, increasing=False)
    trees = result.tables["trees"]
    means = trees.groupby(["rule", "order"])["leaves"].mean()
    batch = trees[trees["rule"] == "batch"]["leaves"]
    for order in bsp_order.ORDERS:
        law = trees[(trees["rule"] == "law") & (trees["order"] == order)]["leaves"]
        z = (law.mean() - batch.mean()) / np.sqrt(law.var() / len(law) + batch.var() / len(batch))
        assert abs(z) < 4, (order, means)
        assert means["text", order] > 1.5 * means["batch", "-"]
    assert set(trees["budget"]) == {"fixed"} and len(trees) == 5 * 300


def test_fig2_order_claims_follow_the_order_check():
    result = bsp_order.run(seed=0, n_points=150, budget=3.0, n_trees=200)
    run = as_run(result, {})
    claims = bsp_fig2.claims([run], {})
    assert_keyed(claims)
    assert [(c.key, c.kind, c.passed) for c in claims] == [
        ("online_has_batch_law", CLAIM, True),
        ("order_does_not_matter", CLAIM, True),
        ("printed_algorithm_keeps_batch_law", CLAIM, False),
        ("increasing_budget_keeps_batch_law", CLAIM, claims[-1].passed),
    ], claims
    assert all(c.quote and c.where for c in claims)
    assert (
        claims[0].values["fixed_batch_leaves"]
        == result.tables["trees"].query("rule == 'batch' and budget == 'fixed'")["leaves"].mean()
    )
    trees = result.tables["trees"]
    shifted = trees.assign(leaves=np.where((trees["rule"] == "law") & (trees["order"] == "sorted"), trees["leaves"] + 3,
                                           trees["leaves"]))  # fmt: skip
    edited = RunRecord("r", "r", {}, result.summary, result.curves, {"trees": shifted})
    assert [c.passed for c in bsp_fig2.claims([edited], {})][:2] == [False, False]
    figure = bsp_fig2.plot([run], {}).figure
    assert any("fixed budget 3" in ax.get_title() for ax in figure.axes)
    plt.close(figure)


def test_fig1_claims_fail_on_a_position_outside_the_projection():
    result = illustrations.cut_steps(seed=0, n_points=20)
    run = as_run(result, {})
    claims = bsp_fig1.claims([run], {})
    assert all(c.passed for c in claims)
    assert_keyed(claims)
    assert [c.key for c in claims] == ["two_nonempty_sides", "widths_integrate_to_perimeter", "position_in_projection"]
    assert all(c.kind == INVARIANT for c in claims)  # the sampler's properties: none is counted as reproduction
    plt.close(bsp_fig1.plot([run], {}).figure)
    outside = {**result.summary, "u": result.summary["hi"] + 1.0, "n_right": 0.0}
    bad = RunRecord("r", "r", {}, outside, result.curves, result.tables)
    assert [c.passed for c in bsp_fig1.claims([bad], {})] == [False, True, False]
