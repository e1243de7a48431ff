"""BSP Figures 1, 2 and 6: the protocols' tables are the library's trees, and the figures' claims fail on tables
that contradict them."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from claim_checks import assert_keyed

from experiments.figures import CLAIM, INVARIANT, bsp_fig1, bsp_fig2, bsp_fig6
from experiments.figures.bsp_drawing import chord
from experiments.protocols import bsp_illustrations as illustrations
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
    result = illustrations.hulls_and_slice(seed=2, slice_trees=20, slice_points=800)
    points = result.tables["points"]
    X, y = points[["x", "y"]].to_numpy(), points["label"].to_numpy()
    mondrian = MondrianForestClassifier(1, lifetime=3.0, random_state=2).fit(X, y)
    pd.testing.assert_frame_equal(result.tables["mondrian"], partition_table(mondrian.trees_[0]))
    counts = result.tables["slice_counts"]["crossings"]
    assert result.summary["slice_mean"] == counts.mean() and len(counts) == 20
    segment = result.tables["segment"].to_numpy()
    for point in result.tables["crossings"].to_numpy():  # the crossing points lie on the segment
        a, b = segment
        t = (point - a) @ (b - a) / ((b - a) @ (b - a))
        np.testing.assert_allclose(point, a + t * (b - a), atol=1e-12)
        assert 0 <= t <= 1
    claims = bsp_fig6.claims([as_run(result, {})], {})
    assert [c.passed for c in claims] == [True, True, True], claims
    assert_keyed(claims)
    assert [(c.key, c.kind) for c in claims] == [
        ("hull_tighter_than_box", INVARIANT),
        ("slice_poisson_mean", CLAIM),
        ("slice_variance_equals_mean", CLAIM),
    ]
    plt.close(bsp_fig6.plot([as_run(result, {})], {}).figure)
    wrong = {**result.summary, "slice_mean": 2 * result.summary["poisson_mean"]}
    assert not bsp_fig6.claims([RunRecord("r", "r", {}, wrong, result.curves, result.tables)], {})[1].passed


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
