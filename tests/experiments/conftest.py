"""Shared fixtures: fresh MLflow stores, the command line, and one figure's sweep at profile=quick read back."""

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from mlflow import MlflowClient

from experiments import evidence
from experiments.figure_catalog import figure_ids
from experiments.locks import locked
from experiments.store import open_client
from experiments.tracking import Tracker

# A cheap figure whose 28 trials fit the project's estimators and log a wall-clock curve: the sweep tests run it.
QUICK_FIGURE, QUICK_TRIALS = "bsp-fig5", 28
# Metrics of the machine, not of the model (the protocols' training and test times, a trial's duration, the peak
# memory of the process that ran it): no two runs share them, whatever the launcher; every other metric is
# reproduced float for float.
MACHINE_METRICS = frozenset({"train_time", "test_time", "fit_time", "duration_seconds", "peak_memory_mb"})
CLI = [sys.executable, "-m", "experiments.run"]


@pytest.fixture(autouse=True)
def no_package_index(tmp_path_factory, monkeypatch):
    """Nothing is downloaded at test time: pip, which fetches a data package's archive (experiments.data.sources),
    is pointed at an empty local folder instead of the package index, in this process and in the commands it
    starts (pip reads PIP_NO_INDEX and PIP_FIND_LINKS)."""
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path_factory.mktemp("no-index")))


def _run_cli(*overrides: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """``python -m experiments.run`` with these overrides, to its end."""
    return subprocess.run([*CLI, *overrides], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def store_overrides(root: Path) -> list[str]:
    """The overrides that put a command's store, artifacts, figures and Hydra logs under ``root``."""
    return [
        f"tracking.uri=sqlite:///{root}/mlflow.db",
        f"tracking.artifact_root={root}/artifacts",
        f"paths.figures={root}/figures",
        f"paths.tables={root}/tables",
        f"hydra.run.dir={root}/hydra",
    ]


@dataclass
class QuickFigure:
    """QUICK_FIGURE at profile=quick logged into the store under ``root``: the command, and its runs read back."""

    root: Path
    figure: str = QUICK_FIGURE
    n_trials: int = QUICK_TRIALS

    @property
    def uri(self) -> str:
        return f"sqlite:///{self.root}/mlflow.db"

    def overrides(self, *extra: str) -> list[str]:
        return [f"figure={self.figure}", "profile=quick", *store_overrides(self.root), *extra]

    def command(self, *extra: str) -> list[str]:
        return [*CLI, *self.overrides(*extra)]

    def run(self, *extra: str) -> subprocess.CompletedProcess:
        return _run_cli(*self.overrides(*extra), cwd=self.root)

    def histories(self) -> dict[str, dict[str, list[tuple[int, float]]]]:
        """trial hash -> metric -> [(step, value), ...] of the finished trial runs, timing metrics left out.
        Fails if a trial has more than one finished run (a figure draws from exactly one per trial)."""
        client = MlflowClient(self.uri)
        experiment_id = client.get_experiment_by_name(self.figure).experiment_id
        histories = {}
        for run in client.search_runs([experiment_id], "attributes.status = 'FINISHED'", max_results=1000):
            key = run.data.tags.get("trial_hash")
            if key is None:
                continue
            assert key not in histories, f"two finished runs of trial {run.info.run_name}"
            histories[key] = {
                metric: [(m.step, m.value) for m in client.get_metric_history(run.info.run_id, metric)]
                for metric in sorted(set(run.data.metrics) - MACHINE_METRICS)
            }
        return histories


def session_folder(tmp_path_factory, worker_id: str, name: str) -> Path:
    """A folder of this test session that its xdist workers share (fill it under ``locked(folder / ".lock")``)."""
    base = tmp_path_factory.getbasetemp()
    folder = (base if worker_id == "master" else base.parent) / name
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def empty_store(tmp_path_factory, worker_id) -> Path:
    """A SQLite store with MLflow's tables created, which tests copy (creating the tables takes seconds)."""
    folder = session_folder(tmp_path_factory, worker_id, "empty-store")
    with locked(folder / ".lock"):
        if not (folder / "mlflow.db").exists():
            open_client(f"sqlite:///{folder}/new.db")
            (folder / "new.db").rename(folder / "mlflow.db")
    return folder / "mlflow.db"


@pytest.fixture
def store(tmp_path, empty_store):
    """A fresh MLflow store (SQLite + local artifacts) in a temporary folder."""
    shutil.copy(empty_store, tmp_path / "mlflow.db")
    return {"uri": f"sqlite:///{tmp_path}/mlflow.db", "artifact_root": str(tmp_path / "artifacts")}


@pytest.fixture
def tracker(store):
    return Tracker(store["uri"], store["artifact_root"])


@pytest.fixture
def cli_store(tmp_path, empty_store):
    """Overrides that make a command log into a fresh store under tmp_path, on 2 processes."""
    shutil.copy(empty_store, tmp_path / "mlflow.db")
    return [*store_overrides(tmp_path), "launcher.n_jobs=2"]


@pytest.fixture(scope="session")
def run_cli():
    return _run_cli


@pytest.fixture
def new_quick_figure(tmp_path, empty_store):
    """QuickFigure on a fresh store in tmp_path/<name>."""

    def make(name: str) -> QuickFigure:
        (tmp_path / name).mkdir()
        shutil.copy(empty_store, tmp_path / name / "mlflow.db")
        return QuickFigure(tmp_path / name)

    return make


@pytest.fixture(scope="session")
def quick_figure(tmp_path_factory, worker_id, empty_store) -> QuickFigure:
    """QUICK_FIGURE swept at profile=quick by one process, without interruption: the reference for the others."""
    figure = QuickFigure(session_folder(tmp_path_factory, worker_id, "quick-figure"))
    with locked(figure.root / ".lock"):
        if not (figure.root / "swept").exists():
            shutil.copy(empty_store, figure.root / "mlflow.db")
            done = figure.run("launcher.n_jobs=1")
            assert done.returncode == 0, done.stderr[-3000:]
            (figure.root / "swept").touch()
    return figure


# Figures whose quick profile needs files that cannot be had offline (tested on generated files elsewhere): the
# regenerated store leaves them out, as `make figures` does here, and the report says why.
NEEDS_FILES = ("bsp-fig8", "bsp-table1")
# Figures regenerated a second time on the filled store: nothing is run again.
RESUMED = ("theory-cell", "amf-fig10", "bsp-fig5")


@dataclass
class QuickFigures:
    """Every figure at profile=quick regenerated into one store under ``root`` (`make figures PROFILE=quick`), then
    a few of them again: what the two commands printed, and the store."""

    root: Path
    first: str
    again: str
    needs_files: tuple[str, ...] = NEEDS_FILES
    resumed: tuple[str, ...] = RESUMED

    @property
    def uri(self) -> str:
        return f"sqlite:///{self.root}/mlflow.db"

    @property
    def artifacts(self) -> str:
        return str(self.root / "artifacts")

    def block(self, figure_id: str, text: str | None = None) -> str:
        """What the command printed about one figure: from its header line to the next figure's."""
        text = self.first if text is None else text
        start = text.index(f"\n{figure_id} (profile quick): ")
        following = [text.find(f"\n{other} (profile quick): ", start + 1) for other in figure_ids()]
        return text[start : min([i for i in following if i > start], default=len(text))]


def _regenerate(root: Path, *items: str) -> str:
    """`python -m experiments.regenerate --profile quick` on the store under ``root``; what it printed."""
    overrides = [o for o in store_overrides(root) if not o.startswith("hydra.")]
    done = subprocess.run(
        [sys.executable, "-m", "experiments.regenerate", "--profile", "quick", *items, *overrides, "launcher.n_jobs=2"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="session")
def quick_figures(tmp_path_factory, worker_id, empty_store) -> QuickFigures:
    """QuickFigures, made once per test session."""
    root = session_folder(tmp_path_factory, worker_id, "quick-figures")
    with locked(root / ".lock"):
        if not (root / "again.txt").exists():
            shutil.copy(empty_store, root / "mlflow.db")
            (root / "first.txt").write_text(_regenerate(root, *(f for f in figure_ids() if f not in NEEDS_FILES)))
            (root / "again.txt").write_text(_regenerate(root, *RESUMED))
    return QuickFigures(root, (root / "first.txt").read_text(), (root / "again.txt").read_text())


@pytest.fixture(scope="session")
def exported(quick_figure, tmp_path_factory):
    """The quick figure's store exported as evidence into a folder of its own (``root``/quick/<id>), drawn into
    another: (root, the quick figure's tracker, the quick figure)."""
    root = tmp_path_factory.mktemp("evidence")
    tracker = Tracker(quick_figure.uri, str(quick_figure.root / "artifacts"))
    drawn = root.parent / f"{root.name}-drawn"
    evidence.export([tracker], quick_figure.figure, "quick", root, [f"paths.figures={drawn}", f"paths.tables={drawn}"])
    return root, tracker, quick_figure
