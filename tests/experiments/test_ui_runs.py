"""What the MLflow UI shows of the harness's runs: trial run names that lead with what varies, a trial run's start and
end being the trial's own, experiments marked as machine-learning ones with the figure's caption as description, and
a figure run's claims as a table in its description."""

import pytest
from mlflow.entities import ViewType
from mlflow.utils.mlflow_tags import MLFLOW_RUN_NOTE

from experiments.config import compose, grid_overrides
from experiments.launchers import JoblibLauncher
from experiments.run_view import KIND_TAG, MACHINE_LEARNING, claims_note
from experiments.sweep import run_sweep
from experiments.tracking import Tracker
from experiments.trial import run_names, trial_config, trial_hash, trial_name


def named(trials: list[dict]) -> list[str]:
    names = run_names(trials)
    return [names[trial_hash(t)] for t in trials]


def leaf_trials(grid: dict) -> list[dict]:
    return [
        trial_config(compose(["~dataset", "~model", "protocol=leaf_count", "protocol.run.replicates=20", *point]))
        for point in grid_overrides(grid)
    ]


def test_trial_run_names_lead_with_the_settings_that_vary():
    trials = leaf_trials({"protocol.run.dim": [1, 2], "protocol.run.lifetime": [0.5, 2]})
    assert named(trials) == ["dim=1, lifetime=0.5", "dim=1, lifetime=2", "dim=2, lifetime=0.5", "dim=2, lifetime=2"]
    (one,) = trials[:1]
    small = {"protocol": {"name": "p", "run": {"a": 1}}, "seed": 0}
    assert named([small]) == [trial_name(small)] == ["p(a=1)/seed=0"]  # nothing varies: its full name, if it fits,
    assert trial_name(one) == "leaf_count(dim=1,lifetime=0.5,replicates=20)/seed=0"  # else its named settings and seed
    assert named([one]) == ["leaf_count, seed=0"]


def test_names_say_datasets_and_models_by_name_the_seed_last_and_leave_out_what_they_decide():
    trials = [
        trial_config(compose([f"dataset={d}", f"model={m}", f"seed={s}", f"model.estimator.n_estimators={n}"]))
        for d in ("moons", "circles")
        for m, n in (("mondrian_classifier", 10), ("mondrian_classifier", 20), ("amf_classifier", 10))
        for s in (0, 1)
    ]
    names = named(trials)
    # "circles, AMF, n_estimators=10, seed=1" would not fit the UI's column: the label by its initials
    assert names[:3] == ["moons MF ne=10 seed=0", "moons MF ne=10 seed=1", "moons MF ne=20 seed=0"]
    assert names[4] == "moons AMF ne=10 seed=0"
    assert len(set(names)) == len(trials)
    assert not any("random_state" in name or "_target_" in name for name in names)  # the seed and the model decide


def test_long_names_are_shortened_to_fit_the_ui_never_cut():
    """The UI's runs table shows about NAME_WIDTH characters: lists by their ends, labels of several words by their
    initials unless two would read the same, spaces between settings; names stay distinct."""
    trials = [
        {"model": {"name": "BSP", "run": {"budget_scale": b, "leaf_sampling": leaf, "sizes": sizes}}, "seed": seed}
        for b in (0.1, 1.0)
        for leaf in ("law", "text")
        for sizes in ([5000], [300, 500, 1000, 5000])
        for seed in (0, 1)
    ] + [
        {"model": {"name": "MF", "run": {"lifetime_scale": scale, "sizes": [300, 500, 1000, 5000]}}, "seed": seed}
        for scale in (2.0, 4.0)
        for seed in (0, 1)
    ]
    names = named(trials)
    assert names[0] == "BSP bs=0.1 leaf_sampling=law sizes=[5000] seed=0"
    assert names[2] == "BSP bs=0.1 leaf_sampling=law sizes=[300…5000] seed=0"
    assert names[-1] == "MF sizes=[300…5000] lifetime_scale=4.0 seed=1"  # ls would read as leaf_sampling's
    assert len(set(names)) == len(trials)
    few = [{"model": {"name": "MF", "run": {"budget_scale": b}}, "seed": 0} for b in (1, 2)]
    assert named(few) == ["budget_scale=1", "budget_scale=2"]  # short enough: whole labels


def test_settings_sharing_a_last_name_are_told_apart_and_classes_said_by_their_own_name():
    trials = [
        {"model": {"name": "M", "estimator": {"_target_": target, "a": {"size": a}, "b": {"size": b}}}, "seed": 0}
        for target, a, b in (
            ("pkg.mod.Forest", 1, 1),
            ("pkg.mod.Tree", 1, 1),
            ("pkg.mod.Tree", 1, 2),
            ("pkg.mod.Tree", 2, 1),
        )
    ]
    # "estimator=Forest, a.size=1, b.size=1" would not fit the UI's column: a.size and b.size by their initials
    assert named(trials) == [
        "estimator=Forest as=1 bs=1",
        "estimator=Tree as=1 bs=1",
        "estimator=Tree as=1 bs=2",
        "estimator=Tree as=2 bs=1",
    ]
    assert named(trials[1:3]) == ["size=1", "size=2"]  # what fits keeps its whole label


def test_a_trial_run_starts_and_ends_with_its_trial_not_with_its_claim(tracker):
    trials = leaf_trials({"protocol.run.lifetime": [1.0, 2.0]})
    run_sweep(trials, tracker, "exp", JoblibLauncher(1))  # one after another, both claimed before the first runs
    runs = tracker.client.search_runs([tracker.experiment_id("exp")], run_view_type=ViewType.ACTIVE_ONLY)
    first, second = sorted(runs, key=lambda r: r.info.start_time)
    assert {r.info.status for r in runs} == {"FINISHED"} and len(runs) == 2
    assert second.info.start_time >= first.info.end_time - 1  # claimed together, run one by one (1 ms: rounding)
    for run in runs:
        took = run.info.end_time - run.info.start_time
        assert abs(took - 1000 * run.data.metrics["duration_seconds"]) <= 1
        assert run.data.tags["trial_name"].startswith("leaf_count(") and run.info.run_name.startswith("lifetime=")
    claims = tracker.client.search_runs([tracker.experiment_id("exp")], run_view_type=ViewType.DELETED_ONLY)
    assert {r.info.run_name for r in claims} >= {r.info.run_name for r in runs}  # the claims, withdrawn


def test_figure_experiments_are_machine_learning_ones_described_by_their_caption(store, monkeypatch):
    tracker = Tracker(store["uri"], store["artifact_root"])
    tracker.client.create_experiment("theory-leaves")  # as a store written before the harness set these tags
    tracker.experiment_id("theory-leaves")
    tags = tracker.client.get_experiment_by_name("theory-leaves").tags
    assert tags[KIND_TAG] == MACHINE_LEARNING
    note = tags[MLFLOW_RUN_NOTE]
    assert "(1 + lam)^d" in note and "MGS17/MGS20" in note and "Profiles: paper, quick." in note
    # the list of experiments shows the note's start as written: plain text, no Markdown marks
    assert note.startswith("theory-leaves: ") and not set("*`") & set(note.split("\n\n")[0])
    tracker.experiment_id("exp")
    assert tracker.client.get_experiment_by_name("exp").tags == {KIND_TAG: MACHINE_LEARNING}  # no figure: no note
    again = Tracker(store["uri"], store["artifact_root"])
    monkeypatch.setattr(again.client, "set_experiment_tag", lambda *args: pytest.fail(f"written again: {args}"))
    assert again.experiment_id("theory-leaves") == tracker.experiment_id("theory-leaves")  # tags already there


def test_a_figure_runs_description_is_its_claims_table_with_verdicts():
    claims = [
        {"statement": "rates | slopes", "kind": "claim", "paper": "-0.5", "measured": "-0.49", "passed": True},
        {"statement": "AMF is smoother", "kind": "claim", "paper": "", "measured": "2 of 3", "passed": False},
        {"statement": "one cell per point", "kind": "invariant", "paper": "", "measured": "ok", "passed": True},
    ]
    lines = claims_note(claims).splitlines()
    assert lines[:2] == ["Claims reproduced: 1/2.", "Invariants: 1 of 1 hold."]
    assert lines[3:] == [
        "| check | the paper | measured | verdict |",
        "|---|---|---|---|",
        "| rates \\| slopes | -0.5 | -0.49 | **reproduced** |",
        "| AMF is smoother | - | 2 of 3 | **not reproduced** |",
        "| one cell per point (invariant) | - | ok | holds |",
    ]
    long = [{**claims[0], "measured": "x" * 20000} for _ in range(40)]
    assert len(claims_note(long)) <= 8000
