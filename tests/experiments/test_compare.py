"""`make compare`: the comparison of two commits' runs (experiments.comparison) on small synthetic runs, and the command
end to end on a temporary clone (experiments.compare)."""

import subprocess
from pathlib import Path

import pytest

from experiments.compare import main
from experiments.comparison import (
    SEEDED,
    SPEED_RATIO,
    TOLERANCES,
    WALL_CLOCK,
    FigureRun,
    Snapshot,
    TrialRun,
    changes,
    failing,
    markdown,
    metric_kind,
)

CLAIMS = [
    {"key": "rate", "statement": "the rate holds", "passed": True, "kind": "claim", "quote": "q", "where": "w"},
    {"key": "shape", "statement": "the tree is binary", "passed": True, "kind": "invariant"},
]
METRICS = {"accuracy": 0.9, "n_nodes": 41.0, "duration_seconds": 3.2, "peak_memory_mb": 400.0, "train_time": 1.5}


def snapshot(commit="a" * 40, claims=CLAIMS, metrics=METRICS, trial_hash="h1", ratios=None, drawn=True) -> Snapshot:
    trials = {"moons, MF, seed=0": TrialRun(trial_hash, dict(metrics))}
    figure = FigureRun(drawn, [dict(c) for c in claims], trials)
    return Snapshot(commit, {"theory-leaves": figure}, ratios or {"MF / ExtraTrees": 0.5})


def test_the_same_runs_give_an_empty_table_that_does_not_fail():
    found = changes(snapshot(), snapshot(commit="b" * 40))
    assert found == [] and not failing(found)
    table = markdown(snapshot(), snapshot(commit="b" * 40), found)
    assert "| fails | what | where | item | base | head | rule |" in table
    assert table.count("\n|") == 2  # the header and its rule, no row
    assert "no failing change (0 listed)" in table


def test_an_exact_metric_that_moved_is_listed_whole_and_fails():
    (change,) = changes(snapshot(), snapshot(metrics={**METRICS, "accuracy": 0.9000000000000001}))
    assert change.what == "metric moved" and change.item == "moons, MF, seed=0: accuracy" and change.fails
    assert (change.base, change.head) == ("0.9", "0.9000000000000001")  # the values whole: the move shows
    assert change.rule == f"{SEEDED}: exact"
    assert failing([change])


def test_wall_clock_metrics_are_never_compared():
    moved = {**METRICS, "duration_seconds": 99.0, "peak_memory_mb": 1.0, "train_time": 0.1}
    assert {metric_kind(m) for m in ("duration_seconds", "peak_memory_mb", "train_time")} == {WALL_CLOCK}
    assert changes(snapshot(), snapshot(metrics=moved)) == []


def test_nan_equals_nan_for_an_exact_metric():
    nan = {**METRICS, "accuracy": float("nan")}
    assert changes(snapshot(metrics=nan), snapshot(metrics=nan)) == []


def test_a_speed_ratio_within_its_tolerance_is_not_listed_one_beyond_is_listed_without_failing():
    rel = TOLERANCES[SPEED_RATIO].rel
    within = snapshot(ratios={"MF / ExtraTrees": 0.5 * (1 + rel * 0.9)})
    assert changes(snapshot(), within) == []
    beyond = snapshot(ratios={"MF / ExtraTrees": 0.5 * (1 + rel * 1.1)})
    (change,) = changes(snapshot(), beyond)
    assert change.what == "speed ratio" and change.item == "MF / ExtraTrees" and not change.fails
    table = markdown(snapshot(), beyond, [change])
    assert "| fails | what | where | item | base | head | rule |\n|---|---|---|---|---|---|---|\n\n" in table  # none
    assert "| MF / ExtraTrees | 0.5 | 0.61 |" in table.split("never failing):")[1]


def test_a_claim_verdict_flip_fails_with_the_figure_verdict():
    flipped = [{**CLAIMS[0], "passed": False}, CLAIMS[1]]
    found = changes(snapshot(), snapshot(claims=flipped))
    assert [(c.what, c.item, c.base, c.head, c.fails) for c in found] == [
        ("figure verdict", "theory-leaves", "reproduced", "not reproduced", True),
        ("claim verdict", "rate", "reproduced", "not reproduced", True),
    ]


def test_a_timed_claim_that_flips_is_listed_without_failing_and_so_is_the_figure_verdict_it_alone_moved():
    timed = [{**CLAIMS[0], "timed": True}, CLAIMS[1]]
    found = changes(snapshot(claims=timed), snapshot(claims=[{**timed[0], "passed": False}, CLAIMS[1]]))
    assert [(c.what, c.item, c.rule, c.fails) for c in found] == [
        ("figure verdict", "theory-leaves", "timed claims only: listed", False),
        ("claim verdict", "rate", "timed: listed", False),
    ]
    assert not failing(found)
    fast = {"key": "fast", "statement": "MF is fast", "passed": True, "kind": "claim", "quote": "q", "where": "w"}
    both = [*timed, fast]
    found = changes(
        snapshot(claims=both), snapshot(claims=[{**timed[0], "passed": False}, CLAIMS[1], {**fast, "passed": False}])
    )
    assert [(c.item, c.fails) for c in found] == [("theory-leaves", True), ("fast", True), ("rate", False)]


def test_an_invariant_that_stops_holding_fails():
    broken = [CLAIMS[0], {**CLAIMS[1], "passed": False}]
    (change,) = changes(snapshot(), snapshot(claims=broken))
    assert (change.what, change.item, change.base, change.head, change.fails) == (
        "claim verdict", "shape", "holds", "does not hold", True,
    )  # fmt: skip


def test_a_changed_trial_hash_is_listed_without_failing():
    (change,) = changes(snapshot(trial_hash="0123456789abcdef"), snapshot(trial_hash="fedcba9876543210"))
    assert (change.what, change.item, change.base, change.head) == (
        "trial hash", "moons, MF, seed=0", "0123456789ab", "fedcba987654",
    )  # fmt: skip
    assert not failing([change])


def test_a_figure_not_drawn_at_the_head_fails_one_drawn_only_at_the_head_or_at_neither_does_not():
    (lost,) = changes(snapshot(), snapshot(drawn=False))
    assert (lost.what, lost.base, lost.head, lost.fails) == ("figure drawn", "drawn", "not drawn", True)
    (new,) = changes(snapshot(drawn=False), snapshot())
    assert (new.base, new.head, new.fails) == ("not drawn", "drawn", False)
    (neither,) = changes(snapshot(drawn=False), snapshot(drawn=False))  # its datasets are not on this machine
    assert (neither.base, neither.head, neither.rule, neither.fails) == ("not drawn", "not drawn", "listed", False)


def test_metrics_and_trials_on_one_side_are_listed_without_failing():
    fewer = {k: v for k, v in METRICS.items() if k != "n_nodes"}
    (change,) = changes(snapshot(), snapshot(metrics=fewer))
    assert (change.what, change.base, change.head, change.fails) == ("metric on one side", "41.0", "-", False)
    other = snapshot()
    other.figures["theory-leaves"].trials = {"moons, MF, seed=1": TrialRun("h1", dict(METRICS))}
    found = changes(snapshot(), other)
    assert {(c.what, c.item, c.fails) for c in found} == {
        ("trial on one side", "moons, MF, seed=0", False),
        ("trial on one side", "moons, MF, seed=1", False),
    }


# -- the command ------------------------------------------------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


def commit(repo: Path, path: str, edit, message: str) -> None:
    file = repo / path
    file.write_text(edit(file.read_text()))
    git(repo, "commit", "-q", "-am", message)


CHECKOUT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--base", "no-such-ref"], "'no-such-ref' names no commit"),
        (["--base", "HEAD", "--figs", "theory-leaves", "no-such-figure"], "no figure no-such-figure at either commit"),
    ],
)
def test_a_bad_ref_or_figure_stops_with_one_line_and_status_2(argv, message, monkeypatch, capsys):
    monkeypatch.chdir(CHECKOUT)
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.slow
def test_compare_end_to_end_on_a_clone(tmp_path, monkeypatch, capsys):
    """A docs-only commit moves nothing (exit 0, an empty table: it holds the base's code, run once); a commit that
    changes the default seed moves theory-leaves' Monte Carlo means (exit 1, the metrics listed)."""
    repo = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(CHECKOUT), str(repo)], check=True)
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "user.name", "test")
    monkeypatch.chdir(repo)
    commit(repo, "CONTRIBUTING.md", lambda text: text + "\nA line of documentation.\n", "Docs only")
    out = tmp_path / "docs.md"
    assert main(["--base", "HEAD~1", "--figs", "theory-leaves", "--no-ratios", "--out", str(out)]) == 0
    table = out.read_text()
    assert "figures theory-leaves at profile quick" in table and "no failing change (0 listed)" in table
    said = capsys.readouterr()
    assert table in said.out and "its runs are the base's, run once" in said.out
    commit(repo, "conf/config.yaml", lambda text: text.replace("\nseed: 0\n", "\nseed: 1\n"), "Default seed 1")
    out = tmp_path / "seed.md"
    assert main(["--base", "HEAD~1", "--figs", "theory-leaves", "--no-ratios", "--out", str(out)]) == 1
    rows = [line for line in out.read_text().splitlines() if line.startswith("| **yes** | metric moved |")]
    assert any("dim=2, lifetime=2: mean_leaves" in row for row in rows)
    assert "trial hash" in out.read_text()
    assert not any("duration_seconds" in row or "peak_memory_mb" in row for row in out.read_text().splitlines())
    assert git(repo, "worktree", "list").count("\n") == 0  # the commits' checkouts are removed
