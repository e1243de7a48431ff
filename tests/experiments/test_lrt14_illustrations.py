"""LRT14's illustrations (lrt14-fig1, lrt14-fig2): the lrt14_updates protocol, the checks behind the figures' claims,
and the figures drawn and checked from real runs made through the harness (sweep into a temporary MLflow store)."""

from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from claim_checks import assert_keyed
from matplotlib import pyplot as plt

from experiments.config import compose
from experiments.figures import INVARIANT, lrt14_fig1, lrt14_fig2, lrt14_illustrations
from experiments.figures.lrt14_fig2 import EXTENSION, LEAF_SPLIT, SPLIT_ABOVE, update_cases
from experiments.protocols import lrt14_updates
from experiments.reproduce import figure_trials
from experiments.sweep import run_sweep
from experiments.tracking import RunRecord, Tracker
from experiments.trial import trial_config, trial_hash
from mondrian import MondrianForestClassifier

# LRT14 Figure 2's toy example as conf/protocol/lrt14_updates.yaml gives it: a, b in one batch, then c, then d
POINTS = [[0.1, 0.8], [0.3, 0.1], [0.92, 0.45], [0.52, 0.22]]
LABELS = [0, 1, 0, 1]


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    """Runs made by the harness into a temporary MLflow store, read back as the figures get them."""
    root = tmp_path_factory.mktemp("store")
    tracker = Tracker(f"sqlite:///{root}/mlflow.db", str(root / "artifacts"))

    def runs(figure_id: str, *overrides: str) -> list[RunRecord]:
        trials = figure_trials(compose([f"figure={figure_id}", "profile=quick"]), list(overrides))
        report = run_sweep(trials, tracker, figure_id)
        assert report.failed == []
        return tracker.load_runs(figure_id, [trial_hash(t) for t in trials])

    return runs


def drawn_claims(module, runs) -> list:
    drawing = module.plot(runs, {})
    assert drawing.figure.axes and not drawing.tables
    plt.close(drawing.figure)
    claims = module.claims(runs, {})
    assert_keyed(claims)
    return claims


def with_tables(run: RunRecord, nodes: pd.DataFrame, trial: dict | None = None) -> RunRecord:
    return RunRecord(run.run_id, run.name, trial or run.trial, run.metrics, run.curves, {**run.tables, "nodes": nodes})


def updates(seed: int, points=POINTS, labels=LABELS, first: int = 2, pausing: bool = False):
    return lrt14_updates.run(
        lambda: MondrianForestClassifier(n_estimators=1, pausing=pausing, random_state=seed),
        seed=seed,
        points=points,
        labels=labels,
        first=first,
    )


# -- the protocol ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 12, 14])
def test_protocol_keeps_one_table_per_state_with_stable_node_indices(seed):
    result = updates(seed)
    tables = lrt14_illustrations.states(result)
    # lifetime inf without pausing: every leaf holds one distinct point, so 2n - 1 nodes after n points
    assert [len(t) for t in tables] == [3, 5, 7]
    for before, after in pairwise(tables):
        assert list(after.index[: len(before)]) == list(before.index)  # old nodes keep their index
    points = result.tables["points"]
    assert list(points["name"]) == ["a", "b", "c", "d"] and list(points["state"]) == [0, 0, 1, 2]
    assert np.array_equal(points[["x0", "x1"]].to_numpy(), np.array(POINTS))


def test_protocol_first_state_is_the_batch_sampled_tree():
    """The first call into an empty tree samples its block from the batch: the tree of ``fit`` on the same points."""
    result = updates(12)
    batch = MondrianForestClassifier(n_estimators=1, pausing=False, random_state=12).fit(POINTS[:2], LABELS[:2])
    arrays = batch.trees_[0].arrays()
    first = lrt14_illustrations.states(result)[0]
    for name in ("parent", "left", "right", "feature", "threshold", "split_time"):
        assert np.array_equal(first[name].to_numpy(), arrays[name]), name
    assert np.array_equal(first[["lower_0", "lower_1"]].to_numpy(), arrays["box_lower"])


def test_protocol_rejects_forests_and_bad_settings():
    with pytest.raises(ValueError, match="one tree"):
        lrt14_updates.run(
            lambda: MondrianForestClassifier(n_estimators=2), seed=0, points=POINTS, labels=LABELS, first=2
        )
    with pytest.raises(ValueError, match="first"):
        updates(0, first=5)
    with pytest.raises(ValueError, match="labels"):
        updates(0, labels=[0, 1])


# -- what an update did, read from the tables --------------------------------------------------------------------------
def table(*rows) -> pd.DataFrame:
    """Node table from rows (node, parent, left, right, feature, threshold, split_time, (l0, u0, l1, u1), depth)."""
    columns = ["node", "parent", "left", "right", "feature", "threshold", "split_time"]
    frame = pd.DataFrame([r[:7] for r in rows], columns=columns)
    for k, name in enumerate(["lower_0", "upper_0", "lower_1", "upper_1"]):
        frame[name] = [r[7][k] for r in rows]
    frame["depth"] = [r[8] for r in rows]
    return frame.set_index("node", drop=False)


INF = np.inf
A, B, C, D = (0.1, 0.1, 0.8, 0.8), (0.3, 0.3, 0.1, 0.1), (0.9, 0.9, 0.45, 0.45), (0.5, 0.5, 0.2, 0.2)
AB = (0.1, 0.3, 0.1, 0.8)
BEFORE = table((0, -1, 1, 2, 1, 0.3, 2.0, AB, 0), (1, 0, -1, -1, -1, 0, INF, B, 1), (2, 0, -1, -1, -1, 0, INF, A, 1))


def test_a_new_split_above_the_root():
    after = table(
        (0, 3, 1, 2, 1, 0.3, 2.0, AB, 1),
        (1, 0, -1, -1, -1, 0, INF, B, 2),
        (2, 0, -1, -1, -1, 0, INF, A, 2),
        (3, -1, 0, 4, 0, 0.8, 1.0, (0.1, 0.9, 0.1, 0.8), 0),
        (4, 3, -1, -1, -1, 0, INF, C, 1),
    )
    assert update_cases(BEFORE, after) == [(SPLIT_ABOVE, 0, 3)]
    assert lrt14_fig2.restriction_mismatches(BEFORE, after, np.array([A[::2], B[::2]])) == 0


def test_an_extended_split_then_a_leaf_split():
    after = table(
        (0, -1, 3, 2, 1, 0.3, 2.0, (0.1, 0.5, 0.1, 0.8), 0),
        (1, 3, -1, -1, -1, 0, INF, B, 2),
        (2, 0, -1, -1, -1, 0, INF, A, 1),
        (3, 0, 1, 4, 0, 0.4, 3.0, (0.3, 0.5, 0.1, 0.2), 1),
        (4, 3, -1, -1, -1, 0, INF, D, 2),
    )
    assert update_cases(BEFORE, after) == [(EXTENSION, 0, 0), (LEAF_SPLIT, 1, 3)]
    # a point that lands on a seen one changes nothing
    assert update_cases(BEFORE, BEFORE.copy()) == []
    # an old split moved is no extension, and the restriction to the old points is no longer the old tree
    moved = after.copy()
    moved.loc[0, "threshold"] = 0.05
    assert (EXTENSION, 0, 0) not in update_cases(BEFORE, moved)
    assert lrt14_fig2.restriction_mismatches(BEFORE, moved, np.array([A[::2], B[::2]])) > 0


def test_a_paused_leaf_sampled_again_is_a_leaf_split():
    """With pausing, a and b of one class make a paused leaf; c of the other class un-pauses it: the leaf itself
    becomes a split node (its block sampled again)."""
    result = updates(3, points=POINTS[:3], labels=[0, 0, 1], pausing=True)
    before, after = lrt14_illustrations.states(result)
    assert len(before) == 1 and after.at[0, "left"] >= 0
    assert (LEAF_SPLIT, 0, 0) in update_cases(before, after)


# -- the figures from the harness ------------------------------------------------------------------------------------
def test_fig1_from_the_harness(harness):
    runs = harness("lrt14-fig1")
    assert len(runs) == 1
    claims = drawn_claims(lrt14_fig1, runs)
    assert len(claims) == 5 and all(c.passed for c in claims), claims
    assert {c.kind for c in claims} == {INVARIANT}  # an illustration: properties of the sampler, not results


def test_fig2_from_the_harness_shows_the_three_operations(harness):
    runs = harness("lrt14-fig2")
    claims = drawn_claims(lrt14_fig2, runs)
    assert len(claims) == 4 and all(c.passed for c in claims), claims
    # an illustration: "an update keeps the tree" holds by construction of ExtendMondrianBlock, an invariant
    assert {c.kind for c in claims} == {INVARIANT}
    keeps = next(c for c in claims if c.key == "update_keeps_tree")
    assert "old nodes that differ per update [0, 0]" in keeps.measured and keeps.where.startswith("LRT14")
    tables = lrt14_illustrations.states(runs[0])
    kinds = [[kind for kind, _, _ in update_cases(a, b)] for a, b in pairwise(tables)]
    assert kinds == [[SPLIT_ABOVE], [EXTENSION, LEAF_SPLIT]]


def test_fig2_case_claim_fails_when_an_operation_is_missing(harness):
    """Only a, b and c: c brings a split above the root, nothing is extended and no leaf is split."""
    runs = harness("lrt14-fig2", "protocol.run.points=[[0.1,0.8],[0.3,0.1],[0.92,0.45]]", "protocol.run.labels=[0,1,0]")
    cases, *structure = lrt14_fig2.claims(runs, {})
    assert not cases.passed and "missing: split extended, leaf split" in cases.measured
    assert all(c.passed for c in structure), structure


def test_fig1_claims_catch_a_corrupted_tree(harness):
    (run,) = harness("lrt14-fig1")
    nodes = run.tables["nodes"]
    leaf = int(nodes.index[nodes["left"] < 0][0])
    split = int(nodes.index[(nodes["left"] >= 0) & (nodes["parent"] >= 0)][0])
    corruptions = {
        1: lambda t: t.assign(lower_0=t["lower_0"] - 0.01),  # boxes larger than their points' range
        0: lambda t: t.assign(split_time=t["split_time"].where(t["node"] != split, 0.01)),  # child before parent
        2: lambda t: t.assign(threshold=t["threshold"].where(t["node"] != split, 2.0)),  # split outside its box
        3: lambda t: t.assign(upper_0=t["upper_0"].where(t["node"] != leaf, 1.0)),  # leaf box over its neighbours
    }
    for index, corrupt in corruptions.items():
        claims = lrt14_fig1.claims([with_tables(run, corrupt(nodes.copy()))], {})
        assert not claims[index].passed, (index, claims[index])
    assert lrt14_illustrations.leaf_overlaps(corruptions[3](nodes.copy()).set_index("node", drop=False)) > 0


def test_fig1_pausing_claim_fails_on_a_tree_grown_without_pausing():
    """Without pausing (lifetime inf) blocks of one class are split down to single points: the claim must see it."""
    points, labels = [[0.1, 0.3], [0.25, 0.75], [0.55, 0.2], [0.85, 0.35], [0.6, 0.8], [0.9, 0.65]], [0, 0, 1, 1, 0, 0]
    result = updates(0, points=points, labels=labels, first=6)
    trial = {"model": {"estimator": {"lifetime": np.inf, "pausing": True}}}
    claims = lrt14_fig1.claims([RunRecord("test", "test", trial, {}, pd.DataFrame(), result.tables)], {})
    assert claims[4].key == "pausing" and not claims[4].passed, claims[4]
    assert all(c.passed for c in claims[:4]), claims


def test_fig2_claims_catch_an_update_that_moves_an_old_split(harness):
    (run,) = harness("lrt14-fig2")
    nodes = run.tables["nodes"].copy()
    last = nodes["state"] == nodes["state"].max()
    root_split = last & (nodes["node"] == 0)
    nodes.loc[root_split, "threshold"] += 1e-3
    claims = lrt14_fig2.claims([with_tables(run, nodes)], {})
    assert not claims[3].passed, claims[3]


def test_trial_of_fig2_is_the_protocols_default_example():
    trials = figure_trials(compose(["figure=lrt14-fig2", "profile=paper"]))
    assert [t["protocol"]["run"]["points"] for t in trials] == [POINTS]
    assert trials[0] == trial_config(compose([
        "~dataset", "model=mondrian_classifier", "protocol=lrt14_updates", "model.estimator.n_estimators=1",
        "++model.estimator.pausing=false", "seed=12",
    ]))  # fmt: skip
