"""The committed evidence as a reviewer reads it: every claim quotes the sentence it tests and tests its quantifier as
printed (a weaker reading stands beside the printed claim, never in its place), names only the datasets measured,
every explanation's numbers are the evidence's, and every figure's runs come from one clean commit whose code drew
it, which the report names."""

import json
import re
from pathlib import Path

import pytest

from experiments import evidence, report
from experiments.evidence_mixing import codes, environments
from experiments.explanations import evidence_numbers, numbers_not_in, render
from experiments.figures import CHECKED, CLAIM
from experiments.provenance import is_clean, same_code

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / evidence.ROOT
# A statement that tests a weaker quantifier than "every": the sentence it quotes must say as much.
WEAK = re.compile(
    r"\b(most|nearly|almost|majority|mostly|typically|usually|often|generally|several|some)\b"
    r"|>=\s*\d+\s*of\s*\d+|\d+ of \d+ or more",
    re.IGNORECASE,
)
UNIVERSAL = re.compile(r"\b(always|all|every|each|any|never|none)\b", re.IGNORECASE)
CATALOG = sorted(p.stem for p in (REPO / "datasets").glob("*.yaml"))


def figures() -> list[tuple[str, str]]:
    return sorted((p.parent.parent.name, p.parent.name) for p in COMMITTED.glob("*/*/figure.json"))


@pytest.fixture
def in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def documents(profile: str, figure_id: str) -> tuple[dict, list[dict]]:
    folder = evidence.folder(COMMITTED, profile, figure_id)
    rows = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines() if line]
    return json.loads((folder / "figure.json").read_text()), rows


@pytest.mark.parametrize("profile, figure_id", figures())
def test_every_claim_quotes_its_sentence_and_tests_its_quantifier_as_printed(profile, figure_id):
    document, _ = documents(profile, figure_id)
    claims = {c["key"]: c for c in document["claims"]}
    for c in claims.values():
        if c["kind"] != CLAIM:
            continue
        assert c["quote"].strip() and c["where"].strip(), c["key"]
        if c["weaker_of"]:
            printed = claims.get(c["weaker_of"])
            assert printed and not printed["weaker_of"] and printed["quote"] == c["quote"], c["key"]
            continue
        weak_quote = WEAK.search(c["quote"])
        weak = WEAK.search(c["statement"])
        assert not weak or weak_quote, (
            f"{c['key']} tests {weak.group()!r} where its sentence has no such word: test the printed quantifier, "
            "and the weaker one as a reading beside it (weaker_of)"
        )
        if UNIVERSAL.search(c["quote"]) and not weak_quote:
            assert UNIVERSAL.search(c["statement"]), f"{c['key']}: the sentence's 'all/every/always' is not tested"


@pytest.mark.parametrize("profile, figure_id", figures())
def test_claims_name_only_the_datasets_measured(profile, figure_id):
    document, _ = documents(profile, figure_id)
    measured = document["settings"]["datasets"]
    for c in document["claims"]:
        if c["kind"] != CLAIM or c["status"] != CHECKED:
            continue
        for name in CATALOG:
            if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", c["statement"]):
                assert any(m == name or m.startswith(name + "_") for m in measured), (
                    f"{c['key']} names {name}, which the figure did not measure ({', '.join(measured)})"
                )


@pytest.mark.parametrize("profile, figure_id", figures())
def test_every_explanation_reads_its_numbers_from_the_evidence(profile, figure_id):
    document, rows = documents(profile, figure_id)
    keys = {c["key"] for c in document["claims"]}
    numbers = evidence_numbers([document, *rows])
    for key, template in report.explanations(figure_id).items():
        assert key in keys, f"{figure_id}: an explanation of {key!r}, which the evidence has no claim of"
        render(template, key, document["claims"], document["settings"])  # every placeholder is the evidence's
        assert numbers_not_in(template, numbers) == [], f"{figure_id}, {key}: numbers not in the evidence"


@pytest.mark.parametrize("profile, figure_id", figures())
def test_every_figure_ran_at_clean_commits_of_one_code_and_profile_in_one_environment_whose_code_drew_it(
    profile, figure_id
):
    """Several codes or environments only when their evidence records them as mixed (make evidence MIXED=1)."""
    document, rows = documents(profile, figure_id)
    commits = sorted({row["tags"]["git_commit"] for row in rows})
    assert commits and all(map(is_clean, commits)), commits
    assert {row["tags"]["profile"] for row in rows} == {profile}
    assert document["settings"]["commits"] == commits
    ran = codes([row["tags"]["git_commit"] for row in rows])
    one = len(ran) == 1 and len(environments([row["tags"] for row in rows])) == 1
    assert one or "mixed" in document["settings"], (ran, figure_id)
    drawn = document["run"]["tags"]["git_commit"]
    assert is_clean(drawn) and any(same_code(drawn, members[0]) for members, _ in ran), (drawn, ran)


def test_the_report_names_the_commit_each_figure_ran_at(in_repo):
    text = Path("results/REPORT.md").read_text()
    for profile, figure_id in figures():
        _, rows = documents(profile, figure_id)
        commit = rows[0]["tags"]["git_commit"][:12]
        section = text[text.index(f'<a id="{figure_id}"></a>') :]
        section = section[: section.find("<a id=", 10) if "<a id=" in section[10:] else None]
        assert f"its trials ran at `{commit}` (one clean commit)" in section, figure_id


def test_every_figure_and_table_id_has_committed_evidence():
    """The report leaves no id "not run": each has the runs of one profile in the committed evidence (the paper's,
    or offline on copies of its data or on other data of the same kind)."""
    from experiments.figure_catalog import figure_ids

    drawn = {figure_id for _, figure_id in figures()}
    assert [figure_id for figure_id in figure_ids() if figure_id not in drawn] == []
