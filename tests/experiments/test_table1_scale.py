"""The Table 1 scale benchmark end to end on a small apartments stand-in: the scale profile's five methods with the
paper's 100 trees, run through the figure runner into the benchmark's own store, tabulated with their times and
peak memory; a second call runs nothing again."""

import pandas as pd
import pytest

from experiments.bench import table1_scale
from experiments.bench.standins import apartment_files, write
from experiments.environment import environment, identity


@pytest.mark.slow
def test_apartments_row_is_run_and_tabulated(tmp_path, monkeypatch):
    monkeypatch.setenv("MONDRIAN_DATA", str(write(tmp_path / "data", {"apartments": apartment_files(300)})))
    out = tmp_path / "out"
    launcher = ["launcher=joblib", "launcher.n_jobs=1"]
    frame = table1_scale.table(*table1_scale.run_rows(["apartments"], out, launcher))
    assert sorted(frame["method"]) == ["BSP", "ERT", "MF", "MF increasing", "RF"]
    assert (frame["row"] == "apartments").all() and (frame["trees"] == 100).all()
    assert (frame["n_train"] == 60).all()  # 20% of the 300 flats
    assert (frame["trial time s"] >= frame["train_time s"]).all() and (frame["train_time s"] > 0).all()
    assert (frame["peak memory MB"] > 50).all() and (frame["commit"].str.len() == 10).all()
    assert frame.set_index("method")["trees_per_fit"].to_dict()["BSP"] == 1
    here = identity(environment())
    assert all(identity(row) == here for row in frame.to_dict("records"))  # each trial's row: where it ran
    again = table1_scale.table(*table1_scale.run_rows(["apartments"], out, launcher))
    assert again.equals(frame)  # finished trials are read back, not run again


def test_a_method_run_again_replaces_its_trials_and_the_table_keeps_the_others():
    def trial(row, method, seconds, commit):
        return {"row": row, "method": method, "train_time s": seconds, "commit": commit}

    earlier = pd.DataFrame([
        trial("airline_1m", "RF", 3012.0, "ed2768f121"), trial("airline_100k", "BSP", 540.6, "2893da6db3"),
        trial("airline_100k", "RF", 551.8, "2893da6db3"), trial("apartments", "BSP", 5.99, "2893da6db3"),
    ])  # fmt: skip
    now = pd.DataFrame([trial("airline_100k", "BSP", 236.0, "e4093b4abc")])
    table = table1_scale.with_earlier(now, earlier)
    assert list(zip(table["row"], table["method"], strict=True)) == [
        ("apartments", "BSP"), ("airline_100k", "BSP"), ("airline_100k", "RF"), ("airline_1m", "RF"),
    ]  # fmt: skip
    assert table.set_index(["row", "method"]).loc[("airline_100k", "BSP"), "commit"] == "e4093b4abc"
    assert table["train_time s"].tolist() == [5.99, 236.0, 551.8, 3012.0]


def test_the_table_says_where_its_trials_ran_and_keeps_it_when_read_back(tmp_path):
    """Each row's env.* columns; the trials' environments in one line, rows of an earlier table without any counted
    apart; written and read back, the environments are the same text."""
    where = {**environment(), "env.cores": "2"}
    frame = pd.DataFrame([
        {"row": "apartments", "method": "RF", "commit": "0123456789", **where},
        {"row": "apartments", "method": "BSP", "commit": "0123456789", **where},
        {"row": "airline_1m", "method": "RF", "commit": "ed2768f121"},
    ])  # fmt: skip
    assert table1_scale.environments(frame).endswith(f"{where['env.date']} (2 runs) / not recorded (1 run)")
    frame.to_csv(tmp_path / "table.csv", index=False)
    read = table1_scale.read_table(tmp_path / "table.csv")
    assert table1_scale.environments(read) == table1_scale.environments(frame)
    assert read["commit"].tolist() == frame["commit"].tolist()
