"""make bench's rows (experiments/bench/rows.py, scripts/bench.py): each section of results/BENCHMARKS.md says once
where it was measured, and its tables are written beside it with that environment on every row."""

import importlib.util
from pathlib import Path

import pandas as pd

from experiments.bench import memory, rows
from experiments.environment import described, environment

BENCH = Path(__file__).resolve().parents[2] / "scripts" / "bench.py"


def bench_script():
    spec = importlib.util.spec_from_file_location("bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_row_of_every_table_carries_the_environment(tmp_path):
    where = environment()
    tables = {"river drop-in": pd.DataFrame({"learner": ["a", "b"], "seconds": [1.5, 2.0]}), "memory": pd.DataFrame()}
    files = rows.write(tmp_path, "AMF", tables, where)
    assert files == [tmp_path / "amf" / "river_drop-in.csv", tmp_path / "amf" / "memory.csv"]
    written = pd.read_csv(files[0], dtype=str)
    assert list(written.columns) == ["learner", "seconds", *where]
    assert written[list(where)].to_dict("records") == [where, where]
    assert written["seconds"].tolist() == ["1.5", "2.0"]


def test_a_section_written_again_replaces_its_files(tmp_path):
    rows.write(tmp_path, "memory", {"old": pd.DataFrame({"x": [1]})}, environment())
    rows.write(tmp_path, "memory", {"new": pd.DataFrame({"x": [2]})}, environment())
    assert sorted(p.name for p in (tmp_path / "memory").iterdir()) == ["new.csv"]


def test_a_section_s_line_says_where_and_which_code():
    where = {**environment(), "env.commit": "abc-dirty"}
    assert rows.line(where) == f"Environment: {described(where)}; {where['env.date']}; code at abc-dirty."


def test_a_section_run_alone_says_its_environment_and_writes_its_rows(tmp_path, monkeypatch):
    """`make bench ARGS="--only memory"` (the measurement itself left out): the section in BENCHMARKS.md has its
    environment line under its heading, and results/bench/memory/memory.csv its rows with the environment."""
    measured = pd.DataFrame({"learner": ["AMFClassifier (ours)"], "max_nodes": [31], "rows": [400], "peak MB": [1.0],
                             "accuracy": [0.9], "seconds": [0.1]})  # fmt: skip
    monkeypatch.setattr(memory, "run", lambda sizes, river_rows: measured)
    out = tmp_path / "results" / "BENCHMARKS.md"
    out.parent.mkdir()
    out.write_text("# Benchmarks\n\n## Another section\n\nkept\n")
    bench_script().main(["--only", "memory", "--out", str(out)])
    report = out.read_text()
    where = environment()
    heading = f"{bench_script().MEMORY_HEADING}\n\n{rows.line(where)}\n\n| learner"
    assert heading in report and report.count("Environment: ") == 1 and "## Another section\n\nkept\n" in report
    written = pd.read_csv(tmp_path / "results" / "bench" / "memory" / "memory.csv", dtype=str)
    assert written["learner"].tolist() == ["AMFClassifier (ours)"]
    assert written[list(where)].to_dict("records") == [where]
