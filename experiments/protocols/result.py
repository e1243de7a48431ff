"""What a protocol returns for one trial."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class TrialResult:
    """Curves (one row per logged step, column ``step`` = samples seen), final numbers, extra tables."""

    curves: pd.DataFrame = field(default_factory=lambda: pd.DataFrame({"step": []}))
    summary: dict[str, float] = field(default_factory=dict)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
