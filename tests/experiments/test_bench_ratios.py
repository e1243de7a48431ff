"""The speed ratios of `make compare` (experiments/bench/ratios.py), on a few rows."""

import json
import math

from experiments.bench import ratios


def test_the_ratios_are_written_by_name_each_a_positive_ratio(tmp_path):
    out = tmp_path / "ratios.json"
    ratios.main(["--out", str(out), "--samples", "300"])
    measured = json.loads(out.read_text())
    assert len(measured) == 5 and all(" / " in name for name in measured)
    assert all(math.isfinite(value) and value > 0 for value in measured.values())
