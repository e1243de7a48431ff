"""The one table of `make bench` (experiments.bench.summary) from small real runs of the benchmarks."""

import math

import pytest

from experiments.bench import bsp, first_fit, lrt14, mondrian_forest
from experiments.bench.summary import COLUMNS, summary


@pytest.mark.slow
def test_summary_has_a_row_per_measurement_in_consistent_units():
    mf = mondrian_forest.run(n_samples=3000, n_trees=4, n_batches=5, repeats=1)
    timing = lrt14.run(n_trees=2, n_batches=3)
    online_bsp = bsp.run(dims=(2, 3), n_samples=400, n_trees=3, repeats=1)
    table = summary(mf, timing, online_bsp)
    assert list(table.columns) == COLUMNS
    # MF learning and prediction at n_jobs 1 and 2; LRT14's timing; BSP (both leaf rules) and its MF baseline at
    # d = 2 and 3
    assert len(table) == 4 + 1 + 6

    learn = table.iloc[0]
    assert learn["benchmark"] == "MF online learning (5 mini-batches)"
    timed = mf.set_index(["n_jobs", "what"]).loc[(1, "learning")]
    seconds, extra = timed["MF s"], timed["ExtraTrees s"]
    assert timed["MF"] == "partial_fit, 5 mini-batches"
    assert math.isclose(learn["samples/s"], 3000 / seconds) and learn["data"] == "3000 x 16 synthetic"
    assert math.isclose(learn["us per sample per tree"], seconds * 1e6 / (3000 * 4))
    assert learn["vs scikit-learn"] == f"{extra / seconds:.2f} (ExtraTrees)"
    assert not mf.isna().any().any()  # no empty cells: one row per comparison

    lrt = table.iloc[4]
    mf_s, rf_s, ert_s = timing["training s"]
    assert lrt["vs scikit-learn"] == f"{rf_s / mf_s:.2f} (Breiman-RF), {ert_s / mf_s:.2f} (ERT-k)"
    assert math.isclose(lrt["us per sample per tree"], mf_s * 1e6 / (15_000 * 2))

    bsp_rows = table.iloc[5:]
    assert list(bsp_rows["data"]) == ["400 points, d = 2"] * 3 + ["400 points, d = 3"] * 3
    assert list(bsp_rows["benchmark"][:2]) == ["online BSP forest, leaf rule text", "online BSP forest, leaf rule law"]
    assert (bsp_rows["bytes per node"] > 0).all()
    assert list(bsp_rows["us per sample per tree"]) == list(online_bsp["us per point per tree"])
    law = online_bsp["forest"] == "BSP (law)"  # says whether the two readings grew the same trees; the others do not
    assert set(online_bsp.loc[law, "same trees as text"]) <= {"yes", "no"}
    assert set(online_bsp.loc[~law, "same trees as text"]) == {""}


@pytest.mark.slow
def test_first_fit_bench_fits_in_a_fresh_process_with_an_empty_then_a_filled_cache():
    table = first_fit.run(["MondrianPartitionForestRegressor"])
    (row,) = table.to_dict("records")
    assert row["estimator"] == "MondrianPartitionForestRegressor"
    assert all(math.isfinite(row[c]) and row[c] > 0 for c in table.columns if c != "estimator")
    assert math.isclose(row["cold / target"], row["cold first fit (s)"] / first_fit.TARGET_SECONDS)
