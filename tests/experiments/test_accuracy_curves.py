"""The accuracy-curve figures (lrt14-fig3, mgs17-fig1) on hand-made runs: "better" is a paired test over seeds,
MGS17's claims are decided at the printed schedule with the smallest lifetime_scale that passes reported beside,
and the runs are named as the figures draw them."""

import numpy as np
import pandas as pd
import pytest
from claim_checks import assert_keyed
from matplotlib import pyplot as plt
from scipy import stats

from experiments.figures import CLAIM, lrt14_fig3, mgs17_fig1
from experiments.figures.accuracy_curves import KEYS, copy_note
from experiments.figures.tables import CONFIDENCE, paired_difference
from experiments.tracking import RunRecord


def per_seed(differences, base=0.8):
    """Per-seed accuracies of methods a and b on one dataset, a - b = ``differences``."""
    rows = []
    for seed, difference in enumerate(differences):
        rows += [
            {"dataset": "d", "method": "a", "seed": seed, "accuracy": base + difference},
            {"dataset": "d", "method": "b", "seed": seed, "accuracy": base},
        ]
    return pd.DataFrame(rows)


def test_paired_difference_is_the_one_sided_student_bound_over_seeds():
    differences = np.array([0.01, 0.03, 0.0, 0.02, 0.04])
    got = paired_difference(per_seed(differences), "a", "b", ["dataset"]).loc["d"]
    n = len(differences)
    low = differences.mean() - stats.t.ppf(CONFIDENCE, n - 1) * differences.std(ddof=1) / np.sqrt(n)
    assert got["n"] == n
    assert got["mean"] == pytest.approx(differences.mean())
    assert got["low"] == pytest.approx(low)
    assert 0 < got["low"] < got["mean"]


def test_one_seed_or_a_noisy_gain_is_not_better():
    assert np.isnan(paired_difference(per_seed([0.05]), "a", "b", ["dataset"]).loc["d", "low"])
    # a mean gain of 0.01 that one seed contradicts strongly
    assert paired_difference(per_seed([0.03, 0.03, 0.03, 0.03, -0.07]), "a", "b", ["dataset"]).loc["d", "low"] < 0


def test_the_amf_copy_note_only_where_a_copy_is_drawn():
    assert copy_note(["letter", "dna"], "x") == ""
    assert "AMF wheel" in copy_note(["letter (AMF copy)"], "x")


def run(model: str, accuracy: list[float], seed: int, dataset="satimage_amf", **estimator) -> RunRecord:
    n = 3104
    steps = np.linspace(0, n, len(accuracy) + 1).astype(int)[1:]
    curves = pd.DataFrame({"step": steps, "fraction": steps / n, "train_time": 1.0, "accuracy": accuracy})
    trial = {"dataset": {"name": dataset}, "model": {"name": model, "estimator": {"n_estimators": 10, **estimator}}}
    return RunRecord("id", "name", {**trial, "seed": seed}, {}, curves)


def mgs17_runs(gain_by_scale: dict[float, float]) -> list[RunRecord]:
    """Five seeds of the four methods and of the increasing forest at each scale, final accuracy 0.85 + gain (and
    a little seed noise); Breiman RF best."""
    runs = []
    for seed in range(5):
        noise = 0.001 * seed
        runs += [
            run("RF", [0.95], seed),
            run("ERT-1", [0.84 + noise], seed),
            run("Mondrian fixed", [0.85 + noise], seed, lifetime=2.0),
        ]
        runs += [
            run("Mondrian increasing", [0.85 + gain + 2 * noise], seed, lifetime="increasing", lifetime_scale=scale)
            for scale, gain in gain_by_scale.items()
        ]
    return runs


def test_mgs17_claims_are_decided_at_the_printed_schedule_with_the_smallest_passing_scale_beside():
    runs = mgs17_runs({1.0: -0.02, 2.5: 0.02, 5.0: 0.03})
    found = mgs17_fig1.claims(runs, {})
    assert_keyed(found)
    assert {c.kind for c in found} == {CLAIM}
    claims = {c.key: c for c in found}
    assert list(claims) == ["above_fixed_10_trees", "above_ert1_10_trees", "close_to_rf_10_trees"]
    against_fixed = claims["above_fixed_10_trees"]
    assert not against_fixed.passed
    assert "Smallest lifetime_scale at which it holds: 2.5" in against_fixed.measured
    assert "lifetime_scale 1: better on 0 of 1" in against_fixed.measured
    # the printed schedule passing passes the claim
    (first, *_) = mgs17_fig1.claims(mgs17_runs({1.0: 0.02, 2.5: -0.02}), {})
    assert first.passed and "Smallest lifetime_scale at which it holds: 1" in first.measured
    close = claims["close_to_rf_10_trees"]
    assert not close.passed and "Smallest lifetime_scale at which it holds: none of 1, 2.5, 5" in close.measured


def test_figures_name_the_runs_as_drawn():
    assert mgs17_fig1.label(run("Mondrian increasing", [0.9], 0, lifetime="increasing", lifetime_scale=2.5)) == (
        "satimage (AMF copy)",
        "Mondrian increasing x2.5",
    )
    assert mgs17_fig1.label(run("Mondrian increasing", [0.9], 0, lifetime="increasing", lifetime_scale=1.0))[1] == (
        "Mondrian increasing"
    )
    assert lrt14_fig3.label(run("ORF-Saffari", [0.9], 0, dataset="dna")) == ("dna", "ORF-Saffari")
    assert lrt14_fig3.label(run("MF", [0.9], 0, dataset="dna61_120")) == ("dna", "MF\u2020")


def timed_run(model: str, accuracy: list[float], seconds: float, seed: int, passes=()) -> RunRecord:
    """A run of 10 mini-batches taking ``seconds`` in all, then a row per (accuracy, seconds) of ``passes``, a pass
    over the training set each, as the fractions protocol's final_passes writes them."""
    record = run(model, accuracy, seed)
    n = int(record.curves["step"].iloc[-1])
    record.curves["train_time"] = seconds * record.curves["fraction"]
    record.curves["pass"] = 1
    extra = [
        {"step": n * p, "fraction": 1.0, "train_time": t, "accuracy": a, "pass": p}
        for p, (a, t) in enumerate(passes, start=2)
    ]
    record.curves = pd.concat([record.curves, pd.DataFrame(extra)], ignore_index=True)
    return record


def test_lrt14_accuracy_is_after_one_pass_and_orf_time_after_all():
    """The top row, the table's ORF-Saffari and the accuracy claims read ORF-Saffari after its pass over the
    mini-batches; the bottom row and the speed claim its whole curve, to the end of its passes over the training set
    (here 5 times MF's time after one pass, 35 times after all four)."""
    tenths = list(np.linspace(0.80, 0.89, 10))
    runs = []
    for seed in range(5):
        noise = 0.001 * seed
        runs += [timed_run("MF", [a + noise for a in tenths], 0.1, seed)]
        runs += [timed_run(m, [0.9] * 10, 2.0, seed) for m in ("ERT", "ERT-1", "RF")]
        runs += [timed_run("ORF-Saffari", [0.7] * 10, 0.5, seed, passes=[(0.95, 1.5), (0.95, 2.5), (0.96, 3.5)])]
    claims = lrt14_fig3.claims(runs, {})
    assert_keyed(claims)
    close, better, faster = claims
    assert [c.key for c in claims] == ["close_to_batch", "above_orf", "faster"]
    assert close.passed and better.passed
    assert faster.passed, faster.measured
    assert "ORF-Saffari (4 passes, 3.5 s) 35.0x" in faster.measured and faster.paper.startswith(">= 10x")
    drawing = lrt14_fig3.plot(runs, {})
    top, bottom = drawing.figure.axes[:2]
    orf = {ax: next(line for line in ax.get_lines() if line.get_label() == "ORF-Saffari") for ax in (top, bottom)}
    assert len(orf[top].get_xdata()) == 10 and max(orf[top].get_ydata()) == pytest.approx(0.7)
    assert list(orf[bottom].get_xdata()[-3:]) == [1.5, 2.5, 3.5]
    assert orf[bottom].get_markevery() == [*range(10), 10, 11, 12]
    plt.close(drawing.figure)
    assert list(drawing.tables) == [""]  # the figure's main table, written by the harness
    frame, table = drawing.tables[""].frame, drawing.tables[""].markdown
    assert list(frame.columns) == [*KEYS, "step", "fraction", "accuracy", "accuracy_sd", "train_time", "n_seeds"]
    assert "| n_train | MF | ERT-k | ERT-1 | ORF-Saffari | Breiman-RF | ORF-Saffari (4 passes) |" in table
    assert "| satimage (AMF copy) | 10 | 3104 |" in table and "0.7000 ± 0.0000 (0.5 s)" in table
    assert "**0.9600 ± 0.0000** (3.5 s) |" in table  # the best accuracy, bold


def test_mgs17_draws_its_final_table():
    runs = mgs17_runs({1.0: -0.02, 2.5: 0.02})
    drawing = mgs17_fig1.plot(runs, {})
    plt.close(drawing.figure)
    table = drawing.tables[""]
    assert "| dataset | trees | n_train | Breiman RF | ERT-1 | Mondrian increasing |" in table.markdown
    assert "**0.9500 ± 0.0000** (1 s)" in table.markdown  # Breiman RF, the best, in bold
    assert set(table.frame["method"]) == {"Breiman RF", "ERT-1", "Mondrian fixed", "Mondrian increasing",
                                          "Mondrian increasing x2.5"}  # fmt: skip


def test_lrt14_dna_claims_read_the_dagger_runs():
    """On dna the filtered runs (dna61_120, drawn as MF-dagger and ERT-1-dagger) carry their own claim."""
    runs = []
    for seed in range(5):
        noise = 0.002 * seed
        runs += [run(m, [0.7 + noise], seed, dataset="dna") for m in ("MF", "ERT-1")]
        runs += [run(m, [0.9 + 2 * noise], seed, dataset="dna") for m in ("RF", "ERT", "ORF-Saffari")]
        runs += [run(m, [0.8 + noise], seed, dataset="dna61_120") for m in ("MF", "ERT-1")]
    for record in runs:
        record.curves["train_time"] = 1.0 if record.model == "MF" else 20.0
    claims = {c.key: c for c in lrt14_fig3.claims(runs, {})}
    assert list(claims) == ["above_orf", "faster", "dna_worse", "dna_filtered"]
    assert claims["dna_worse"].passed and claims["dna_filtered"].passed, claims
    assert not claims["above_orf"].passed  # ORF-Saffari is ahead of MF here
