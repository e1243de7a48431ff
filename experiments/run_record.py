"""A finished trial run as the figures read it, from the local store (experiments.tracking) or from the committed
evidence (experiments.evidence_files) alike.

What a figure needs to know of a run's dataset beyond what the run logged (its number of features, the true signal
of a synthetic one) is a function of the trial's config, read here from the dataset catalog and the generators, so
that figure modules import no data module; the committed evidence and new runs are read alike."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd


@dataclass
class RunRecord:
    """A finished trial run read back from the store (or from the committed evidence).

    Figure modules read a run's settings through the accessors below, never through ``trial`` directly."""

    run_id: str
    name: str
    trial: dict
    metrics: dict[str, float]
    curves: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    commit: str = ""  # the code the trial ran (git_commit: the commit, -dirty with uncommitted changes)
    # where it ran: its env.* tags (experiments.environment); none for a run made before environments were recorded
    environment: dict[str, str] = field(default_factory=dict)

    @property
    def dataset(self) -> str:
        """The dataset's name (its config's ``name``)."""
        return self.trial["dataset"]["name"]

    @property
    def model(self) -> str:
        """The model's name (its config's ``name``)."""
        return self.trial["model"]["name"]

    @property
    def seed(self) -> int:
        return self.trial.get("seed", 0)

    @property
    def data_settings(self) -> dict:
        """What the dataset's loader was called with (``dataset.load``)."""
        return self.trial["dataset"].get("load", {})

    @property
    def estimator(self) -> dict:
        """The estimator's settings (``model.estimator``); empty for a model without one."""
        return self.trial["model"].get("estimator", {})

    @property
    def trees(self) -> int | None:
        """The forest's number of trees (``n_estimators``), None for a model without one."""
        trees = self.estimator.get("n_estimators")
        return None if trees is None else int(trees)

    @property
    def protocol(self) -> dict:
        """The protocol's settings (``protocol.run``)."""
        return self.trial["protocol"].get("run", {})

    @property
    def n_features(self) -> int:
        """The number of features of the dataset the run loads by name (its catalog entry's shape,
        datasets/<name>.yaml)."""
        from experiments.data import catalog  # the catalog's files, read only when a figure asks

        return int(catalog.entry(self.dataset).shape["n_features"])

    def signal(self, x: np.ndarray) -> np.ndarray:
        """The true regression function at x of the run's synthetic 1-D signal (``data_settings["signal"]``: doppler,
        blocks, ...), without its noise."""
        from experiments.data.synthetic import signal_function  # the generators, imported only when a figure asks

        return signal_function(x, self.data_settings["signal"])
