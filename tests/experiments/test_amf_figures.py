"""The protocols behind the AMF illustration figures (amf-fig1, 2, 3, 5, 7, 8, 9) and their figures' claims.

Figures are read from RunRecords built in memory (tables round-tripped through CSV as the MLflow store does), so
that their claims are checked to pass on real trials and to fail on corrupted ones.
"""

import io

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf
from sklearn.ensemble import RandomForestClassifier

from experiments.data import synthetic
from experiments.figures import (
    amf_fig1,
    amf_fig2,
    amf_fig3,
    amf_fig5,
    amf_fig7,
    amf_fig8,
    amf_fig10,
    amf_fig11,
    amf_fig12,
)
from experiments.protocols import decision, depth, prunings, restriction
from experiments.protocols.result import TrialResult
from experiments.tracking import RunRecord
from mondrian import AMFClassifier, AMFRegressor


def as_run(result: TrialResult, trial: dict) -> RunRecord:
    """What a figure gets back from the store: tables and curves through CSV, the metrics' last values."""

    def through_csv(table: pd.DataFrame) -> pd.DataFrame:
        return pd.read_csv(io.StringIO(table.to_csv(index=False)))

    curves = through_csv(result.curves)
    metrics = {c: float(curves[c].iloc[-1]) for c in curves.columns if c != "step" and len(curves)}
    metrics |= {k: float(v) for k, v in result.summary.items() if k not in metrics}
    tables = {name: through_csv(table) for name, table in result.tables.items()}
    return RunRecord("test", "test", trial, metrics, curves, tables)


def check_figure(module, runs) -> list:
    figure = module.plot(runs, {})
    assert figure.axes
    plt.close(figure)
    return module.claims(runs, {})


# -- prunings (amf-fig3) ---------------------------------------------------------------------------------------------
def test_prunings_of_a_leaf_a_chain_and_a_balanced_tree():
    none = np.array([-1])
    assert prunings.prunings_of(none, none, 0) == [frozenset([0])]
    chain_left, chain_right = np.array([1, -1, 3, -1, -1]), np.array([2, -1, 4, -1, -1])
    assert len(prunings.prunings_of(chain_left, chain_right, 0)) == 3
    left, right = np.array([1, 3, 5, -1, -1, -1, -1]), np.array([2, 4, 6, -1, -1, -1, -1])
    found = prunings.prunings_of(left, right, 0)
    assert len(found) == 5 and len(set(found)) == 5
    assert frozenset([0]) in found and frozenset(range(7)) in found


@pytest.mark.parametrize("seed, n_points", [(0, 4), (1, 3), (2, 5), (3, 6), (4, 2)])
def test_prunings_aggregate_to_the_trees_prediction(seed, n_points):
    result = prunings.run(
        lambda: AMFRegressor(n_estimators=1, random_state=seed), seed=seed, n_points=n_points, query=[0.3, 0.7]
    )
    table, summary = result.tables["prunings"], result.summary
    assert table["prior"].sum() == pytest.approx(1.0, abs=1e-12)
    assert table["weight"].sum() == pytest.approx(1.0, abs=1e-12)
    assert summary["log_sum_weights"] == pytest.approx(summary["log_wbar_root"], abs=1e-10)
    assert summary["aggregated_prediction"] == pytest.approx(summary["library_prediction"], abs=1e-10)
    assert (table["prior"] == 2.0 ** -table["norm"]).all()
    assert len(result.tables["nodes"]) == 2 * n_points - 1


def test_prunings_reads_one_tree():
    with pytest.raises(ValueError, match="one tree"):
        prunings.run(lambda: AMFRegressor(n_estimators=2, random_state=0), seed=0)


def test_fig3_claims_pass_and_catch_a_wrong_prior():
    trial = {"protocol": {"run": {"query": [0.6, 0.45]}}}
    result = prunings.run(lambda: AMFRegressor(n_estimators=1, random_state=0), seed=0, n_points=4, query=[0.6, 0.45])
    claims = check_figure(amf_fig3, [as_run(result, trial)])
    assert len(claims) == 4 and all(c.passed for c in claims), claims
    result.tables["prunings"].loc[0, "prior"] *= 2
    claims = amf_fig3.claims([as_run(result, trial)], {})
    assert not claims[1].passed


# -- restriction (amf-fig5) ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_restriction_keeps_the_splits_that_separate_points(seed):
    result = restriction.run(seed=seed, n_points=8)
    full, small = result.tables["unrestricted"], result.tables["restricted"]
    full_leaves, small_leaves = full[full["left"] < 0], small[small["left"] < 0]
    assert full_leaves["n_points"].max() <= 1
    assert (small_leaves["n_points"] == 1).all() and len(small_leaves) == 8
    internal = small[small["left"] >= 0]
    counts = small.set_index("node")["n_points"]
    assert (counts[internal["left"]].to_numpy() + counts[internal["right"]].to_numpy() == internal["n_points"]).all()
    assert len(full_leaves) >= len(small_leaves)
    again = restriction.run(seed=seed, n_points=8)
    pd.testing.assert_frame_equal(again.tables["restricted"], small)


def test_restriction_needs_two_points():
    with pytest.raises(ValueError, match="at least 2"):
        restriction.run(seed=0, n_points=1)


def test_fig5_claims_pass_and_catch_a_split_outside_its_range():
    result = restriction.run(seed=0, n_points=10)
    claims = check_figure(amf_fig5, [as_run(result, {})])
    assert len(claims) == 4 and all(c.passed for c in claims), claims
    small = result.tables["restricted"]
    root = small.index[small["parent"] < 0][0]
    f = int(small.at[root, "feature"])
    small.at[root, "threshold"] = small.at[root, f"upper_{f}"] + 1e-3
    claims = amf_fig5.claims([as_run(result, {})], {})
    assert not claims[1].passed and not claims[3].passed


# -- partition (amf-fig2) --------------------------------------------------------------------------------------------
def test_fig2_claims_pass_on_the_paper_sample_and_catch_overlapping_cells():
    from experiments.protocols import process

    trial = {"protocol": {"run": {"lifetime": 3.4}}}
    result = process.partition(dim=2, lifetime=3.4, seed=92)
    assert result.summary["n_leaves"] == 5
    claims = check_figure(amf_fig2, [as_run(result, trial)])
    assert all(c.passed for c in claims), claims
    nodes = result.tables["nodes"]
    leaf = nodes.index[nodes["left"] < 0][0]
    nodes.loc[leaf, "upper_0"] += 0.1
    assert not amf_fig2.claims([as_run(result, trial)], {})[1].passed


# -- decision functions (amf-fig1, amf-fig7, amf-fig9) ---------------------------------------------------------------
@pytest.fixture(scope="module")
def moons():
    return synthetic.moons(n_samples=200, noise=0.25, test_size=0.5, seed=0)


def test_decision_grid_steps_and_trees(moons):
    result = decision.run(
        lambda: AMFClassifier(n_estimators=4, random_state=0),
        moons,
        seed=0,
        steps=[5, 20, 1000],
        grid_size=12,
        per_tree=True,
    )
    grid = result.tables["grid"]
    assert list(result.curves["step"]) == [5, 20, 100]
    assert len(grid) == 3 * 5 * 12 * 12
    last = grid[grid["step"] == 100]
    forest = last[last["tree"] == -1]["proba"].to_numpy()
    trees = np.mean([last[last["tree"] == k]["proba"].to_numpy() for k in range(4)], axis=0)
    np.testing.assert_allclose(forest, trees, atol=1e-12)
    assert len(result.tables["trees"]) == 3 * 4
    points = result.tables["points"]
    assert (points["order"] >= 0).sum() == 100 and (points["order"] < 0).sum() == 100
    assert 0.5 < result.summary["auc"] <= 1.0


def test_decision_refits_a_batch_model_at_each_step(moons):
    result = decision.run(lambda: RandomForestClassifier(n_estimators=5, random_state=0), moons, 0, [30, 100], 10)
    assert list(result.curves["step"]) == [30, 100]
    assert result.curves["train_time"].is_monotonic_increasing


def test_decision_rejects_what_it_cannot_draw(moons):
    regression = synthetic.signal1d(n_samples=50, test_size=0.3)
    with pytest.raises(ValueError, match="binary classifiers on 2-D data"):
        decision.run(lambda: AMFRegressor(), regression, seed=0)
    with pytest.raises(ValueError, match="online Mondrian forest"):
        decision.run(lambda: RandomForestClassifier(n_estimators=2), moons, seed=0, grid_size=5, per_tree=True)


def test_fig1_and_fig7_claims_pass_and_catch_a_forest_that_is_not_the_mean(moons):
    trial = {"model": {"estimator": {"n_estimators": 10}}}
    result = decision.run(
        lambda: AMFClassifier(n_estimators=10, random_state=0),
        moons,
        seed=0,
        steps=[5, 30, 100],
        grid_size=20,
        per_tree=True,
    )
    run = as_run(result, trial)
    assert all(c.passed for c in check_figure(amf_fig7, [run]))
    claims = check_figure(amf_fig1, [run])
    assert len(claims) == 3 and all(c.passed for c in claims), claims
    grid = result.tables["grid"]
    grid.loc[(grid["tree"] == 0) & (grid["step"] == 100), "proba"] = 0.0
    assert not amf_fig1.claims([as_run(result, trial)], {})[0].passed


# -- weighted depth (amf-fig8) ---------------------------------------------------------------------------------------
def test_depth_grid_averages_the_trees():
    data = synthetic.signal1d(n_samples=800, signal="blocks", seed=0)
    result = depth.run(lambda: AMFRegressor(n_estimators=4, step=10.0, random_state=0), data, seed=0, grid_size=50)
    grid = result.tables["grid"]
    per_tree = grid[[f"depth_{k}" for k in range(4)]].to_numpy()
    np.testing.assert_allclose(grid["weighted_depth"], per_tree.mean(axis=1), atol=1e-12)
    assert (per_tree >= 0).all() and len(result.tables["points"]) == 800
    assert grid["x"].is_monotonic_increasing


def test_depth_rejects_what_it_cannot_read(moons):
    with pytest.raises(ValueError, match="1-D regressions"):
        depth.run(lambda: AMFClassifier(), moons, seed=0)
    data = synthetic.signal1d(n_samples=50)
    with pytest.raises(ValueError, match="weighted_depth"):
        depth.run(lambda: RandomForestClassifier(), data, seed=0)


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
def test_fig8_claims_pass_and_catch_a_flat_depth():
    data = synthetic.signal1d(n_samples=3000, signal="blocks", seed=0)
    trial = {"dataset": {"load": {"signal": "blocks", "noise": 0.03}}}
    result = depth.run(lambda: AMFRegressor(n_estimators=10, step=10.0, random_state=0), data, seed=0, grid_size=400)
    claims = check_figure(amf_fig8, [as_run(result, trial)])
    assert len(claims) == 2 and all(c.passed for c in claims), claims
    result.tables["grid"]["weighted_depth"] = 5.0
    assert not amf_fig8.claims([as_run(result, trial)], {})[1].passed


# -- comparisons on real data (amf-fig10, 11, 12): the paper's claims on what the paper ran -------------------------
def fake_run(dataset: str, method: str, curves: dict, seed: int = 0, n_trees: int = 10) -> RunRecord:
    trial = {
        "dataset": {"name": dataset},
        "model": {"name": method, "estimator": {"n_estimators": n_trees}},
        "seed": seed,
    }
    frame = pd.DataFrame(curves)
    return RunRecord("test", "test", trial, {c: float(frame[c].iloc[-1]) for c in frame if c != "step"}, frame)


def progressive_runs(final_loss: dict) -> list[RunRecord]:
    """Runs whose average log loss falls from 1 to final_loss[dataset, method] over 100 steps."""
    steps = np.arange(1, 101)
    return [
        fake_run(d, m, {"step": steps, amf_fig10.LOSS: np.linspace(1.0, loss, 100), amf_fig10.ACCURACY: 1 - loss / 2})
        for (d, m), loss in final_loss.items()
    ]


def test_fig10_claims_are_on_the_papers_amf_against_the_methods_that_are_not_amf(tmp_path):
    final = {}
    for dataset in ("car", "spambase"):
        final |= {(dataset, amf_fig10.PAPER_AMF): 0.3, (dataset, "AMF"): 0.2, (dataset, amf_fig10.MF): 0.4}
        final |= {(dataset, "SGD"): 0.5, (dataset, "Dummy"): 0.9}
    claims = check_figure(amf_fig10, progressive_runs(final))
    assert len(claims) == 2 and all(c.statement.startswith(amf_fig10.PAPER_AMF) for c in claims)
    assert all(c.passed for c in claims), claims  # the text's AMF, lower still, is not a rival
    plt.close(amf_fig10.plot(progressive_runs(final), OmegaConf.create({"table": str(tmp_path / "fig10")})))
    table = (tmp_path / "fig10.md").read_text()
    assert "Final average accuracy" in table and "| spambase | 100 | 0.8500 | **0.9000** |" in table
    final["spambase", amf_fig10.MF] = 0.25
    assert not amf_fig10.claims(progressive_runs(final), {})[0].passed


def test_fig11_and_fig12_claims_compare_the_papers_amf_with_the_papers_mf():
    steps = np.array([100, 200])
    runs = []
    for dataset, (amf, mf) in {"adult": (0.85, 0.80), "bank": (0.90, 0.88), "spambase": (0.95, 0.96)}.items():
        runs += [fake_run(dataset, amf_fig10.PAPER_AMF, {"step": steps, "auc": [0.7, amf]})]
        runs += [fake_run(dataset, amf_fig10.MF, {"step": steps, "auc": [0.7, mf]})]
        runs += [fake_run(dataset, "AMF", {"step": steps, "auc": [0.7, 0.5]})]
        runs += [fake_run(dataset, "RF", {"step": [200], "auc": [0.99]})]
    claims = check_figure(amf_fig11, runs)
    assert [c.passed for c in claims] == [True, True], claims
    assert claims[1].statement.startswith(f"{amf_fig10.PAPER_AMF} has a higher test AUC than {amf_fig10.MF}")
    runs = []
    for dataset in ("adult", "bank", "spambase"):
        for k in (1, 2, 5):
            auc = {
                amf_fig10.PAPER_AMF: 0.80 + 0.01 * k,
                "AMF": 0.99,
                amf_fig10.MF: 0.70 + 0.03 * k,
                "RF": 0.6 + 0.05 * k,
            }
            runs += [fake_run(dataset, m, {"step": [100], "auc": [a]}, n_trees=k) for m, a in auc.items()]
    claims = check_figure(amf_fig12, runs)
    assert len(claims) == 2 and all(c.passed for c in claims), claims  # the text's AMF (0.99) is not a rival
    flat_mf = [r for r in runs if r.trial["model"]["name"] != amf_fig10.MF]
    flat_mf += [
        fake_run(d, amf_fig10.MF, {"step": [100], "auc": [0.9]}, n_trees=k)
        for d in ("adult", "bank")
        for k in (1, 2, 5)
    ]
    assert [c.passed for c in amf_fig12.claims(flat_mf, {})] == [False, False]
