"""The evidence that ships with the report (experiments.evidence): exported from a store, read back run for run,
redrawn byte for byte; and the committed report rebuilt from it."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from experiments import environment, evidence, evidence_files, evidence_mixing, report, verdicts
from experiments.reproduce import figure_trials
from experiments.trial import trial_hash

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / evidence.ROOT


def paths(root: Path) -> list[str]:
    return [f"paths.figures={root}/figures", f"paths.tables={root}/tables"]


def test_the_evidence_reads_back_every_run_as_the_store_gives_it(exported):
    root, tracker, figure = exported
    cfg = evidence.figure_config(figure.figure, "quick", committed=False)
    stored = tracker.load_runs(figure.figure, [trial_hash(t) for t in figure_trials(cfg)])
    read = evidence.read(root, "quick", figure.figure).runs
    assert len(read) == len(stored) == figure.n_trials
    for mine, theirs in zip(read, stored, strict=True):
        assert (mine.run_id, mine.name, mine.trial, mine.metrics) == (
            theirs.run_id,
            theirs.name,
            theirs.trial,
            theirs.metrics,
        )
        pd.testing.assert_frame_equal(mine.curves, theirs.curves)
        assert mine.tables.keys() == theirs.tables.keys()
        for name in mine.tables:
            pd.testing.assert_frame_equal(mine.tables[name], theirs.tables[name])


def test_the_evidence_keeps_where_each_run_ran(exported):
    """Every trial run's env.* tags are in runs.jsonl as the store has them, read back as its record's environment;
    the figure run's are in figure.json; the report built from the evidence says where the trials ran."""
    root, tracker, figure = exported
    document, rows = evidence_files.documents(evidence.folder(root, "quick", figure.figure))
    assert len(rows) == figure.n_trials
    for row in rows:
        stored = environment.recorded(tracker.client.get_run(row["run_id"]).data.tags)
        assert environment.identity(stored) and environment.recorded(row["tags"]) == stored
    assert {run.run_id: run.environment for run in evidence.read(root, "quick", figure.figure).runs} == {
        row["run_id"]: environment.recorded(row["tags"]) for row in rows
    }
    assert environment.identity(document["run"]["tags"])
    drawn = report.EvidenceSource(root).drawn(figure.figure)
    assert report.environment_line(report.figure_report(figure.figure, drawn, root, report.DEFAULT_UI, {})) == (
        f"Environment: {environment.summary([row['tags'] for row in rows])}."
    )


def test_redrawing_from_the_evidence_gives_the_same_files_and_claims(exported, tmp_path):
    root, _, figure = exported
    first, claims = evidence.draw_evidence(root, "quick", figure.figure, paths(tmp_path / "a"))
    second, again = evidence.draw_evidence(root, "quick", figure.figure, paths(tmp_path / "b"))
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    recorded = evidence.read(root, "quick", figure.figure).claims
    assert [c.as_dict() for c in claims] == [c.as_dict() for c in again] == recorded


def test_an_incomplete_run_is_not_exported(exported, tmp_path):
    _, tracker, figure = exported
    with pytest.raises(evidence.IncompleteRun, match="trials of today's grid have no finished run"):
        evidence.export([tracker], figure.figure, "paper", tmp_path, paths(tmp_path))
    assert not list(tmp_path.rglob("*.json"))


@pytest.fixture
def in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def test_the_committed_report_is_rebuilt_from_the_committed_evidence_byte_for_byte(in_repo):
    _, markdown, page = report.render_report(report.EvidenceSource(), Path("results"))
    assert markdown == Path("results/REPORT.md").read_text()
    assert page == Path("results/REPORT.html").read_text()


def committed_figures() -> list[tuple[str, str]]:
    """Two committed figures, one of each profile: those of the fewest runs (bsp-fig3's redrawing alone took 38 s)."""
    found = sorted(COMMITTED.glob("*/*/runs.jsonl"), key=lambda path: (path.stat().st_size, path.as_posix()))
    first = {}
    for path in found:
        first.setdefault(path.parent.parent.name, (path.parent.parent.name, path.parent.name))
    return sorted(first.values())


@pytest.mark.parametrize("profile, figure_id", committed_figures())
def test_committed_figures_redraw_from_their_evidence_unchanged(profile, figure_id, in_repo, tmp_path):
    """`make redraw` on the committed evidence (a copy of it here): the figure's image, PDF and tables are the
    committed files byte for byte, its claims the committed ones, and its figure.json stays as it is."""
    root = tmp_path / "evidence"
    shutil.copytree(evidence.folder(evidence.ROOT, profile, figure_id), evidence.folder(root, profile, figure_id))
    recorded = (evidence.folder(root, profile, figure_id) / "figure.json").read_bytes()
    evidence.redraw(root, profile, figure_id, paths(tmp_path))
    assert (evidence.folder(root, profile, figure_id) / "figure.json").read_bytes() == recorded
    files, claims = evidence.draw_evidence(root, profile, figure_id, paths(tmp_path))
    committed = json.loads((evidence.folder(evidence.ROOT, profile, figure_id) / "figure.json").read_text())
    expected = [Path(f) for f in committed["settings"]["files"]]
    assert [p.name for p in files] == [p.name for p in expected]
    for drawn, kept in zip(files, expected, strict=True):
        assert drawn.read_bytes() == kept.read_bytes(), f"{kept} differs from its redrawing"
    assert [c.as_dict() for c in claims] == committed["claims"]


def test_every_committed_figure_and_table_is_drawn_from_committed_evidence(in_repo):
    drawn = {f for path in COMMITTED.glob("*/*/figure.json") for f in json.loads(path.read_text())["settings"]["files"]}
    tracked = subprocess.run(
        ["git", "ls-files", "results/figures", "results/tables"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert set(tracked) == drawn


def test_every_committed_evidence_counts_its_claims_in_its_tally(in_repo):
    for path in COMMITTED.glob("*/*/figure.json"):
        figure = json.loads(path.read_text())  # its claims and run, without the runs behind them
        counted = verdicts.printed(figure["claims"])  # the claims as printed, not the weaker readings beside them
        reproduced = sum(c["passed"] is True for c in counted)
        assert figure["run"]["tags"]["claims_passed"] == (f"{reproduced}/{len(counted)}" if counted else "-")


A, B, C, D = "a" * 40, "b" * 40, "c" * 40, "d" * 40  # D: a commit this clone lacks


def checkout(monkeypatch, here: str, same) -> None:
    """The checkout at commit ``here``; ``same(first, second)``: whether two commits hold the same code."""
    monkeypatch.setattr(evidence, "git_commit", lambda: here)
    monkeypatch.setattr(evidence, "known", lambda commit: commit != D)
    monkeypatch.setattr(evidence, "same_code", same)
    monkeypatch.setattr(evidence_mixing, "same_code", same)


def one_code(first: str, second: str) -> bool:
    return first == second


@pytest.mark.parametrize(
    "commits, here, same, error",
    [
        ([A, B, B], A, one_code, "ran 2 codes (bbbbbbbbbbbb: 2 runs; aaaaaaaaaaaa: 1 run): run it again at one commit"),
        ([A + "-dirty"], A, lambda *_: True, "not clean commits of one code"),
        ([], A, lambda *_: True, "none recorded"),
        ([A], A + "-dirty", lambda *_: True, "the checkout's is"),
        ([A], B, one_code, "mondrian/, experiments/ or conf/ differ"),
        ([A, D], A, one_code, "ran at dddddddddddd, which this clone lacks: fetch them (git fetch)"),
    ],
)
def test_a_figure_is_drawn_only_by_the_clean_code_its_trials_ran(commits, here, same, error, monkeypatch):
    """`make evidence` and `make redraw`: the trials of clean commits of one code, drawn by a clean checkout of that
    code; trials of several codes are refused, naming them and the flag that merges them."""
    checkout(monkeypatch, here, same)
    with pytest.raises(evidence.MixedCode, match=re.escape(error)):
        evidence.drawing_commit("amf-fig1", commits)


def test_commits_of_the_same_code_are_one_code_and_draw_a_figure(monkeypatch):
    checkout(monkeypatch, C, lambda first, second: {first, second} <= {A, B, C})
    assert evidence.drawing_commit("amf-fig1", [A]) == C
    assert evidence.drawing_commit("amf-fig1", [A, B, B]) == C


def test_allowed_mixed_codes_are_drawn_by_a_checkout_of_one_of_them(monkeypatch):
    checkout(monkeypatch, B, one_code)
    assert evidence.drawing_commit("amf-fig1", [A, B], allow_mixed=True) == B
    checkout(monkeypatch, C, one_code)
    with pytest.raises(evidence.MixedCode, match="ran the code of aaaaaaaaaaaa or bbbbbbbbbbbb, the checkout's is c"):
        evidence.drawing_commit("amf-fig1", [A, B], allow_mixed=True)
