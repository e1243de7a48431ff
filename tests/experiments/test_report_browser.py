"""The committed report in a real browser (headless Chromium) with the network cut off: REPORT.html opened from the
file system draws, with the plotly.js beside it, an interactive chart for each dataset of every figure whose evidence
has curves or sweeps a setting, every line of it."""

import re
from pathlib import Path

import pytest

from experiments import evidence_files, report
from experiments.figure_catalog import figure_ids
from experiments.ui import browser, headless

REPO = Path(__file__).resolve().parents[2]
OFFLINE = ("--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND")  # nothing reaches the network

pytestmark = pytest.mark.skipif(
    browser() is None, reason="no Chromium here (Debian: apt-get install chromium; .ci/run installs it)"
)


# The figures whose runs hold one step each and sweep a setting, drawn against it: amf-fig12 the number of trees,
# bsp-fig3 the training:test ratio.
SWEEPS = {"amf-fig12", "bsp-fig3"}


def with_curves(root: Path) -> set[str]:
    """The figures whose committed evidence (at the profile the report draws) has a run with two steps or more."""
    found = set()
    for figure_id in figure_ids():
        profile = next(
            (p for p in report.PROFILES if p in evidence_files.profiles_with_evidence(root, figure_id)), None
        )
        if profile is None:
            continue
        curves = evidence_files.blocks(evidence_files.folder(root, profile, figure_id) / "curves")
        if "step" in curves and len(curves) and curves.groupby("run_id")["step"].nunique().max() >= 2:
            found.add(figure_id)
    return found


@pytest.fixture(scope="module")
def drawn():
    """The report's DOM once its scripts ran (opened offline), and the charts the evidence gives, by figure."""
    source = report.EvidenceSource(REPO / evidence_files.ROOT)
    charts = {figure_id: d.charts for figure_id in figure_ids() if (d := source.drawn(figure_id)) and d.charts}
    dom = headless((REPO / "results/REPORT.html").as_uri(), "--dump-dom", *OFFLINE, timeout=300)
    return dom, charts


@pytest.mark.slow
def test_every_figure_with_curves_has_its_charts_drawn_offline(drawn):
    dom, charts = drawn
    assert set(charts) == with_curves(REPO / evidence_files.ROOT) | SWEEPS
    sections = dict(re.findall(r'<h3 id="([^"]+)">(.*?)(?=<h[23][ >]|</body>)', dom, re.S))
    rendered = re.findall(r'<div id="(curves-[^"]+)" class="curves js-plotly-plot">', dom)
    assert len(rendered) == sum(map(len, charts.values())) and len(set(rendered)) == len(rendered)
    for figure_id, expected in charts.items():
        section = sections[figure_id]
        for chart in expected:
            start = section.index(f'<div id="{chart.div_id}" class="curves js-plotly-plot">')
            drawing = section[start : section.find("<script>", start)]
            assert 'class="main-svg"' in drawing, f"{chart.div_id} not drawn"
            assert drawing.count('class="trace scatter') == len(chart.figure["data"]), f"{chart.div_id}: lines missing"
