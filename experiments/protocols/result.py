"""What a protocol is (its ``run``, conf/protocol/<name>.yaml's ``run._target_``) and what it returns for one trial."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import pandas as pd


@dataclass
class TrialResult:
    """Curves (one row per logged step, column ``step`` = samples seen), final numbers, extra tables."""

    curves: pd.DataFrame = field(default_factory=lambda: pd.DataFrame({"step": []}))
    summary: dict[str, float] = field(default_factory=dict)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)


class ProtocolRun(Protocol):
    """A protocol's ``run``, called once per trial (experiments.trial.execute) with the trial's ``seed``, its
    ``dataset`` (experiments.data.Dataset) and ``model`` (a function making a fresh estimator) when the trial has
    them, and its config's settings (``protocol.run``) by name; it returns the trial's TrialResult."""

    def __call__(self, *, seed: int, **inputs_and_settings) -> TrialResult: ...
