"""A figure whose dataset cannot be had stops, unless allow_missing=true: then it is drawn without it and says so."""

import pytest
import yaml
from mlflow import MlflowClient

from experiments import reproduce
from experiments.config import compose
from experiments.data import catalog


def test_fetch_datasets_reports_the_unavailable_real_datasets(http_server, tmp_path, monkeypatch, data_home):
    directory = tmp_path / "catalog"
    directory.mkdir()
    monkeypatch.setattr(catalog, "CATALOG_DIR", directory)
    toy = {
        "name": "toy",
        "task": "regression",
        "shape": {},
        "sources": [
            {
                "kind": "http",
                "files": {"t.csv": {"url": f"{http_server.url}/t.csv", "sha256": None}},
                "parse": "experiments.data.preprocess.one_hot",
            }
        ],
        "prepare": "experiments.data.preprocess.prepare",
    }
    (directory / "toy.yaml").write_text(yaml.safe_dump(toy))
    (directory / "noise.yaml").write_text(
        yaml.safe_dump({"name": "noise", "task": "regression", "generator": "experiments.data.synthetic.smooth"})
    )
    target = "experiments.data.fetch.load"
    trials = [{"dataset": {"load": {"_target_": target, "name": "toy", "seed": s}}, "seed": s} for s in range(3)] + [
        {"dataset": {"load": {"_target_": target, "name": "noise"}}},
        {"protocol": {}},
    ]
    missing = reproduce.fetch_datasets(trials)
    assert list(missing) == ["toy"]
    assert "t.csv: HTTP 404" in missing["toy"] and str(data_home / "toy") in missing["toy"]
    assert len(http_server.requests) == 1  # fetched once for the three trials, before any of them runs


def test_allow_missing_draws_without_the_dataset_and_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(reproduce, "fetch_datasets", lambda trials: {"adult": "dataset 'adult' cannot be had: ..."})
    overrides = [
        "figure=mgs20-fig1",
        "profile=quick",
        f"tracking.uri=sqlite:///{tmp_path}/mlflow.db",
        f"tracking.artifact_root={tmp_path}/artifacts",
        f"paths.figures={tmp_path}/figures",
        f"paths.tables={tmp_path}/tables",
        "launcher.n_jobs=1",
    ]
    assert reproduce.reproduce_figure(compose(overrides)) == 1
    out = capsys.readouterr().out
    assert "cannot be had" in out and "allow_missing=true" in out
    assert not (tmp_path / "figures").exists()

    assert reproduce.reproduce_figure(compose([*overrides, "allow_missing=true"])) == 0
    assert "drawn without adult" in capsys.readouterr().out
    assert (tmp_path / "figures" / "quick" / "mgs20-fig1.png").exists()
    client = MlflowClient(f"sqlite:///{tmp_path}/mlflow.db")
    experiment = client.get_experiment_by_name("mgs20-fig1")
    (figure_run,) = client.search_runs([experiment.experiment_id], "tags.kind = 'figure'")
    assert figure_run.data.tags["missing_datasets"] == "adult"


def test_allow_missing_with_every_dataset_missing_stops_and_names_the_other_profiles(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(reproduce, "fetch_datasets", lambda trials: {"satimage_amf": "cannot be had: ..."})
    monkeypatch.setattr(reproduce, "run_sweep", lambda *args, **kwargs: pytest.fail("no trial should run"))
    overrides = [
        "figure=mgs17-fig1",
        "profile=quick",
        f"tracking.uri=sqlite:///{tmp_path}/mlflow.db",
        f"tracking.artifact_root={tmp_path}/artifacts",
        f"paths.figures={tmp_path}/figures",
        f"paths.tables={tmp_path}/tables",
        "allow_missing=true",
    ]
    assert reproduce.reproduce_figure(compose(overrides)) == 1
    out = capsys.readouterr().out
    assert "every dataset of profile quick is missing, nothing to draw; other profiles: paper, offline" in out
    assert not (tmp_path / "figures").exists()
