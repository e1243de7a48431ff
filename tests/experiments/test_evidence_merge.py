"""`make evidence FROM="..."`: a figure's runs merged from several stores (this machine's, a cluster's store copied
over, a tracking server), each run keeping the environment and commit it recorded; runs of several environments or
codes refused unless ``--allow-mixed``, which records them in the figure's settings."""

import json
import re
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from mlflow import MlflowClient
from mlflow.entities import RunTag
from ui_server import serving

from experiments import evidence
from experiments.environment import PREFIX, environment
from experiments.evidence_sources import ARTIFACTS, source
from experiments.reproduce import figure_trials
from experiments.store import StoreError
from experiments.trial import trial_hash

# Where the other machine recorded its artifacts: its own folder, or its tracking server's (--artifacts-destination)
ELSEWHERE = "file:///cluster/home/someone/results/mlartifacts"
SERVED = "mlflow-artifacts:"


def paths(root: Path) -> list[str]:
    return [f"paths.figures={root}/figures", f"paths.tables={root}/tables"]


def trial_runs(uri: str, figure: str) -> list:
    client = MlflowClient(uri)
    experiment_id = client.get_experiment_by_name(figure).experiment_id
    return [r for r in client.search_runs([experiment_id], max_results=1000) if "trial_hash" in r.data.tags]


def retag(uri: str, figure: str, tags: dict[str, str], drop: str = "\0") -> None:
    """Give every trial run of the store ``tags``, and take away those whose names start with ``drop``."""
    client = MlflowClient(uri)
    for run in trial_runs(uri, figure):
        for name in [name for name in run.data.tags if name.startswith(drop)]:
            client.delete_tag(run.info.run_id, name)
        client.log_batch(run.info.run_id, tags=[RunTag(name, value) for name, value in tags.items()])


@dataclass
class Stores:
    """The quick figure's store copied twice, each copy keeping half of its trials' runs: ``here``, as it is, and
    ``cluster``, as if copied over from another machine (its recorded artifact folders that machine's, its artifacts
    in mlartifacts/ beside its file)."""

    figure: str
    here: str
    cluster: str
    hashes: list[str]  # the figure's trial hashes, in the order of its grid: ``here`` keeps the even ones

    def sources(self) -> list:
        return [source(self.here), source(self.cluster)]


def _keep(uri: str, figure: str, hashes: list[str]) -> None:
    client = MlflowClient(uri)
    for run in trial_runs(uri, figure):
        if run.data.tags["trial_hash"] not in hashes:
            client.delete_run(run.info.run_id)


@pytest.fixture
def stores(quick_figure, tmp_path, request) -> Stores:
    cfg = evidence.figure_config(quick_figure.figure, "quick", committed=False)
    hashes = [trial_hash(t) for t in figure_trials(cfg)]
    for name, half in (("here", hashes[0::2]), ("cluster", hashes[1::2])):
        (tmp_path / name).mkdir()
        shutil.copy(quick_figure.root / "mlflow.db", tmp_path / name / "mlflow.db")
        _keep(f"sqlite:///{tmp_path / name}/mlflow.db", quick_figure.figure, half)
    recorded = (quick_figure.root / "artifacts").as_uri()
    with sqlite3.connect(tmp_path / "cluster" / "mlflow.db") as db:
        elsewhere = getattr(request, "param", ELSEWHERE)
        db.execute("UPDATE experiments SET artifact_location = replace(artifact_location, ?, ?)", (recorded, elsewhere))
        db.execute("UPDATE runs SET artifact_uri = replace(artifact_uri, ?, ?)", (recorded, elsewhere))
    db.close()
    shutil.copytree(quick_figure.root / "artifacts", tmp_path / "cluster" / ARTIFACTS)
    here, cluster = (f"sqlite:///{tmp_path / name}/mlflow.db" for name in ("here", "cluster"))
    machine = environment()
    retag(here, quick_figure.figure, machine)
    retag(cluster, quick_figure.figure, {**machine, f"{PREFIX}date": "2026-01-02"})  # another day, the same machine
    return Stores(quick_figure.figure, here, cluster, hashes)


def rows(root: Path, figure: str) -> list[dict]:
    return [
        json.loads(line) for line in (evidence.folder(root, "quick", figure) / "runs.jsonl").read_text().splitlines()
    ]


@pytest.mark.parametrize("stores", [ELSEWHERE, SERVED], indirect=True)
def test_runs_of_one_environment_merge_from_two_stores_keeping_their_tags(stores, tmp_path):
    root = tmp_path / "evidence"
    evidence.export(stores.sources(), stores.figure, "quick", root, paths(tmp_path))
    written = rows(root, stores.figure)
    recorded = {
        run.info.run_id: {k: v for k, v in run.data.tags.items() if k != "mlflow.runName"}
        for uri in (stores.here, stores.cluster)
        for run in trial_runs(uri, stores.figure)
    }
    assert [row["tags"]["trial_hash"] for row in written] == stores.hashes
    assert {row["tags"][f"{PREFIX}date"] for row in written} == {environment()[f"{PREFIX}date"], "2026-01-02"}
    assert all(row["tags"] == recorded[row["run_id"]] for row in written)
    settings = evidence.read(root, "quick", stores.figure).settings
    assert "mixed" not in settings and settings["trials"] == len(written)


def test_runs_of_two_environments_are_refused_naming_them_and_the_flag(stores, tmp_path, monkeypatch, capsys):
    retag(stores.here, stores.figure, {}, drop=PREFIX)  # runs made before environments were recorded
    monkeypatch.chdir(tmp_path)  # the command's evidence and figures go there, never into the checkout's
    status = evidence.main(
        ["export", stores.figure, "--profile", "quick", "--from", stores.here, "--from", stores.cluster]
    )
    printed = capsys.readouterr().out
    host = environment()[f"{PREFIX}host"]
    assert status == 1 and printed.count("\n") == 1
    assert printed.startswith(
        f"not exported: {stores.figure}: its trials ran in 2 environments (unrecorded: 14 runs; env.host={host}: 14 "
        "runs): run it again on one machine, or pass --allow-mixed (make evidence ... MIXED=1)"
    )
    assert not (tmp_path / "results").exists()


def test_environments_are_told_apart_by_the_tags_that_differ(stores, tmp_path):
    retag(stores.cluster, stores.figure, {f"{PREFIX}cores": "64", f"{PREFIX}numpy": "0.0"})
    with pytest.raises(evidence.MixedEnvironments, match=re.escape("env.cores=64, env.numpy=0.0: 14 runs")):
        evidence.export(stores.sources(), stores.figure, "quick", tmp_path, paths(tmp_path))


def first_commit() -> str:
    """The repository's first commit, whose code is not today's."""
    done = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], capture_output=True, text=True, check=True)
    return done.stdout.split()[0]


def test_runs_of_two_codes_are_refused(stores, tmp_path):
    retag(stores.cluster, stores.figure, {"git_commit": first_commit()})
    with pytest.raises(
        evidence.MixedCode, match=r"its trials ran 2 codes \(\w{12}: 14 runs; \w{12}: 14 runs\).*MIXED=1"
    ):
        evidence.export(stores.sources(), stores.figure, "quick", tmp_path / "evidence", paths(tmp_path))
    assert not (tmp_path / "evidence").exists()


def test_allowed_mixed_runs_are_merged_and_recorded_with_their_environments_and_codes(stores, tmp_path):
    old = first_commit()
    retag(stores.cluster, stores.figure, {"git_commit": old, f"{PREFIX}cores": "64"})
    root = tmp_path / "evidence"
    evidence.export(stores.sources(), stores.figure, "quick", root, paths(tmp_path), allow_mixed=True)
    written = rows(root, stores.figure)
    assert sorted({row["tags"][f"{PREFIX}cores"] for row in written}) == sorted({environment()[f"{PREFIX}cores"], "64"})
    mixed = evidence.read(root, "quick", stores.figure).settings["mixed"]
    assert sorted(e["identity"][f"{PREFIX}cores"] for e in mixed["environments"]) == sorted(
        {environment()[f"{PREFIX}cores"], "64"}
    )
    assert [e["runs"] for e in mixed["environments"]] == [14, 14]
    here = {row["tags"]["git_commit"] for row in written} - {old}
    assert sorted(c["commits"][0] for c in mixed["codes"]) == sorted([old, *here])
    # the evidence records its mixing: drawing it again needs no flag
    evidence.redraw(root, "quick", stores.figure, paths(tmp_path), restamp=True)


def test_runs_merge_from_a_tracking_server_and_a_copied_store(stores, tmp_path):
    here = Path(stores.here.removeprefix("sqlite:///"))
    with serving(here, here.parent / ARTIFACTS, here.parent) as server:
        sources = [source(server.base), source(stores.cluster)]
        evidence.export(sources, stores.figure, "quick", tmp_path / "evidence", paths(tmp_path))
    written = rows(tmp_path / "evidence", stores.figure)
    assert {row["run_id"] for row in written} == {
        run.info.run_id for uri in (stores.here, stores.cluster) for run in trial_runs(uri, stores.figure)
    }


def test_a_store_that_is_not_there_is_refused_not_made(tmp_path):
    with pytest.raises(StoreError, match="no such store"):
        source(f"sqlite:///{tmp_path}/clustr/mlflow.db")
    assert not list(tmp_path.iterdir())
