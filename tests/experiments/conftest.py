import pytest

from experiments.tracking import Tracker


@pytest.fixture
def store(tmp_path):
    """A fresh MLflow store (SQLite + local artifacts) in a temporary folder."""
    return {"uri": f"sqlite:///{tmp_path}/mlflow.db", "artifact_root": str(tmp_path / "artifacts")}


@pytest.fixture
def tracker(store):
    return Tracker(store["uri"], store["artifact_root"])
