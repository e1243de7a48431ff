"""The reproduction report (`make report`): `python -m experiments.report [--uri URI] [--out PATH]`.

By default it is built from the committed evidence (results/evidence, see experiments.evidence) into
results/REPORT.md and REPORT.html: the same bytes on any machine, from a fresh clone. With ``--uri`` it is built from an
MLflow store instead (`make report-local`: this machine's runs) into a path of its own (results/local/REPORT.md).

Every registered figure and table id is of a category its config names (``category``, with its ``subject``): a *paper
experiment* reproduces an empirical result a paper prints in a figure or table, a *theorem check* simulates an exact
statement, a *study* is a figure the papers do not draw, probing a named statement, an *illustration* draws what a
paper draws to explain its method, an id *beyond the papers* reproduces a result of a later paper (prediction
intervals). For each it takes the drawn figure at the first profile of PROFILES that has one:
the image, the settings it was drawn from, the commit its trials ran at and where they ran (their environments,
experiments.environment), the claims (each quoting the sentence it tests, weaker readings beside the printed ones)
with the measured numbers, their verdicts (experiments.verdicts) and the explanation the config records under the
claim's key (``explanations``, filled with the evidence's numbers, experiments.explanations) whether the claim holds
or not, the invariants apart, and a link to the figure's run in the MLflow UI (`make ui` serves the committed runs),
and its *trial time* at each profile it has committed evidence for (``trial_costs``). A figure with no drawn run is
not checked, with the reason. Every figure lists what its config records (``unspecified`` and ``readings``): the
settings the paper does not give, and the readings that differ from the paper's text. The headline counts the ids per
category and verdict, and the claims per verdict. The report is built once as a document and rendered to Markdown and
to HTML (opens offline), whose figures also draw their committed curves as interactive charts
(experiments.report_curves).

The committed report links to the UI at its default address (``DEFAULT_UI``, `make ui`'s port 5000) whatever ``--ui``
says, so that its bytes never depend on the machine: another ``--ui`` (`make report PORT=5001`) also writes the same
report with its links into LOCAL_COPY.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from experiments import environment, evidence_files
from experiments.config import compose, figure_profiles, grid_overrides
from experiments.data.catalog import entry
from experiments.explanations import ExplanationError, render
from experiments.figure_catalog import (
    FALLBACK_PROFILE,
    PAPERS,
    RECORD_KINDS,
    RecordKind,
    classification,
    description,
    evidence_experiment_ids,
    explanations,
    figure_ids,
    figure_order,
    other_data,
    profile_settings,
    records,
)
from experiments.figure_schema import BEYOND, CATEGORIES, ILLUSTRATION, PAPER_EXPERIMENT, STUDY, THEOREM_CHECK
from experiments.figures import CLAIM, INVARIANT, NOT_CHECKED, NOT_COMPARABLE
from experiments.report_curves import MAX_POINTS, SCRIPT, Chart, chart_html, figure_charts, write_script
from experiments.reproduce import catalog_name
from experiments.tracking import Tracker
from experiments.trial import trial_config
from experiments.ui_addresses import figure_run_url
from experiments.verdicts import LEVELS, REPRODUCED, claim_verdict, id_verdict, printed, readings, tally

PROFILES = ("paper", FALLBACK_PROFILE, "quick")  # which run a figure is reported from, first found first
COMMITTED = Path("results/REPORT.md")
DEFAULT_UI = "http://127.0.0.1:5000"  # `make ui`'s default address, the committed report's links
LOCAL_COPY = Path("results/local/REPORT-evidence.md")  # the committed report linking to another UI address
SUBJECT_LEADS = {
    PAPER_EXPERIMENT: "Reproduces",
    THEOREM_CHECK: "Checks",
    STUDY: "Probes",
    ILLUSTRATION: "Draws",
    BEYOND: "Reproduces",
}  # the line that names an id's subject: "Reproduces LRT14 Fig. 3 ..."


@dataclass(frozen=True)
class Cost:
    """A figure's committed trial runs at one profile: how many, and the sum of their durations."""

    trials: int
    seconds: float


def trial_costs(root: Path, figure_id: str) -> dict[str, Cost]:
    """profile -> the figure's trial runs in the evidence under ``root`` at that profile (its ``runs.jsonl``): their
    number and the sum of their ``duration_seconds`` (each trial's wall-clock time on the machine that ran it), in the
    order of PROFILES, then others by name."""
    profiles = evidence_files.profiles_with_evidence(root, figure_id)
    costs = {}
    for profile in sorted(profiles, key=lambda p: (PROFILES.index(p) if p in PROFILES else len(PROFILES), p)):
        lines = (evidence_files.folder(root, profile, figure_id) / "runs.jsonl").read_text().splitlines()
        runs = [json.loads(line) for line in lines if line]
        costs[profile] = Cost(len(runs), sum(run["metrics"]["duration_seconds"] for run in runs))
    return costs


def duration(seconds: float) -> str:
    """'under 1 s', '42 s', '9 min 05 s', '2 h 46 min'."""
    whole = round(seconds)
    if whole == 0:
        return "under 1 s"
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return "{} min {:02d} s".format(*divmod(whole, 60))
    return "{} h {:02d} min".format(*divmod(round(seconds / 60), 60))


@dataclass
class FigureReport:
    """One figure id as the report shows it."""

    id: str
    description: str
    category: str
    subject: str
    verdict: str | None  # experiments.verdicts' level; None for an id without claims (an illustration)
    reason: str = ""  # why it was not run
    claims: list[dict] = field(default_factory=list)  # the checks as drawn, each with its verdict and explanation
    settings: dict = field(default_factory=dict)
    profile: str = ""
    paper_missing: list[str] = field(default_factory=list)  # paper datasets unreachable (drawn at another profile)
    other_data: str = ""  # what the profile drawn runs on in place of the paper's data ("": the paper's, or copies)
    image: str = ""  # relative to the report
    tables: list[str] = field(default_factory=list)  # relative to the report
    link: str = ""  # the figure run in the MLflow UI
    drawn_at: str = ""
    commit: str = ""  # the code that drew it
    environments: list[dict[str, str]] = field(default_factory=list)  # the env.* tags of its trial runs
    records: dict[str, list[dict] | None] = field(default_factory=dict)  # RecordKind.key -> entries, None: not recorded
    costs: dict[str, Cost] = field(default_factory=dict)  # profile -> its committed trial runs' time (trial_costs)
    charts: list[Chart] = field(default_factory=list)  # its interactive curves (the HTML's alone)

    def of_kind(self, kind: str) -> list[dict]:
        return [c for c in self.claims if c.get("kind") == kind]

    @property
    def printed(self) -> list[dict]:
        return printed(self.claims)

    @property
    def trial_commits(self) -> list[str]:
        """The commits its trials ran at (one, clean, for committed evidence)."""
        return self.settings.get("commits", [])

    def invariants_tally(self) -> str:
        checks = self.of_kind(INVARIANT)
        return f"{sum(c['passed'] for c in checks)}/{len(checks)}" if checks else "-"


def profile_datasets(figure_id: str, profile: str) -> set[str]:
    """The catalog datasets the figure's trials load at ``profile`` (one config composed per dataset setting of
    its grid, not one per trial)."""
    cfg = compose([f"figure={figure_id}", f"profile={profile}"])
    fixed = list(cfg.figure.get("trials", []))
    settings = {
        tuple(o for o in point if o.lstrip("+~").startswith("dataset"))
        for point in grid_overrides(profile_settings(cfg).grid)
    }
    names = {catalog_name(trial_config(compose([*fixed, *overrides]))) for overrides in settings}
    return {name for name in names if name is not None}


def downloads(figure_id: str, profile: str) -> list[str]:
    """The datasets of the figure at ``profile`` that are neither generated nor shipped with an installed package."""
    return sorted(
        n
        for n in profile_datasets(figure_id, profile)
        if not entry(n).synthetic and not any(source.distribution for source in entry(n).sources)
    )


def not_run_reason(figure_id: str) -> str:
    """Why a figure has no drawn run, and what to do about it (the same text on every machine)."""
    needs = downloads(figure_id, "paper")
    steps = f"`make reproduce-figure FIG={figure_id}`, then `make evidence FIG={figure_id}`"
    if needs:
        offline = (
            f"; its profile {FALLBACK_PROFILE} runs on what any machine has: `make reproduce-figure FIG={figure_id} "
            f"PROFILE={FALLBACK_PROFILE}`, then `make evidence FIG={figure_id} PROFILE={FALLBACK_PROFILE}`"
            if FALLBACK_PROFILE in figure_profiles(figure_id)
            else ""
        )
        return (
            f"no drawn run of it yet; its datasets are downloads ({', '.join(needs)}): "
            f'`make data-fetch DATA="{" ".join(needs)}"` where the sources are reachable, or put the files by hand as '
            f"{', '.join(f'datasets/{n}.yaml' for n in needs)} says, then {steps}{offline}"
        )
    return f"no drawn run of it yet: {steps}"


@dataclass
class Drawn:
    """A figure's drawn run as a source gives it."""

    profile: str
    experiment_id: str  # in the store the report links to
    run_id: str
    end_time: int  # ms
    tags: dict[str, str]
    claims: list[dict]
    settings: dict
    image: Path  # the PNG (may have to be fetched: see Source.image)
    environments: list[dict[str, str]]  # the env.* tags of each trial run drawn from (empty dicts: not recorded)
    charts: list[Chart] = field(default_factory=list)  # its curves, interactive (experiments.report_curves)


class EvidenceSource:
    """Drawn figures from the committed evidence, with their curves as interactive charts."""

    def __init__(self, root: Path = evidence_files.ROOT):
        self.root = Path(root)
        self.name = f"the evidence in `{self.root.as_posix()}`"

    def drawn(self, figure_id: str) -> Drawn | None:
        profiles = evidence_files.profiles_with_evidence(self.root, figure_id)
        profile = next((p for p in PROFILES if p in profiles), None)
        if profile is None:
            return None
        document, rows = evidence_files.documents(evidence_files.folder(self.root, profile, figure_id))
        run, settings = document["run"], document["settings"]
        image = next(Path(f) for f in settings["files"] if f.endswith(".png"))
        experiment_id = str(evidence_experiment_ids(self.root)[figure_id])
        charts = figure_charts(self.root, profile, figure_id)
        environments = [environment.recorded(row["tags"]) for row in rows]
        return Drawn(
            profile,
            experiment_id,
            run["run_id"],
            run["end_time"],
            run["tags"],
            document["claims"],
            settings,
            image,
            environments,
            charts,
        )

    def costs(self, figure_id: str) -> dict[str, Cost]:
        return trial_costs(self.root, figure_id)


class StoreSource:
    """Drawn figures from an MLflow store (this machine's runs): the latest drawn figure run per figure (without
    interactive curves, which the committed evidence alone gives)."""

    def __init__(self, tracker: Tracker, images: Path):
        self.tracker, self.images = tracker, images
        self.name = f"the MLflow store `{tracker.uri}`"

    def drawn(self, figure_id: str) -> Drawn | None:
        drawn = [r for r in self.tracker.figure_runs(figure_id) if "claims_passed" in r.data.tags]
        by_profile = {p: [r for r in drawn if r.data.tags.get("profile") == p] for p in PROFILES}
        at = next((runs for runs in by_profile.values() if runs), None)
        if at is None:
            return None
        run = max(at, key=lambda r: r.info.end_time or r.info.start_time)
        client = self.tracker.client
        with tempfile.TemporaryDirectory() as tmp:
            claims = json.loads(Path(client.download_artifacts(run.info.run_id, "claims.json", tmp)).read_text())
            names = {a.path for a in client.list_artifacts(run.info.run_id)}
            settings = (
                json.loads(Path(client.download_artifacts(run.info.run_id, "settings.json", tmp)).read_text())
                if "settings.json" in names
                else {}
            )
        image = next((Path(f) for f in settings.get("files", []) if f.endswith(".png") and Path(f).exists()), None)
        if image is None:
            self.images.mkdir(parents=True, exist_ok=True)
            image = Path(client.download_artifacts(run.info.run_id, f"{figure_id}.png", str(self.images)))
        for claim in claims["claims"]:
            claim["passed"] = claim["passed"] in (True, "True")  # runs drawn before Claim cast numpy bools wrote "True"
            for name, value in (("key", ""), ("kind", CLAIM), ("paper", "")):  # runs drawn before checks had them
                claim.setdefault(name, value)
        return Drawn(
            run.data.tags.get("profile", ""),
            run.info.experiment_id,
            run.info.run_id,
            run.info.end_time or run.info.start_time,
            dict(run.data.tags),
            claims["claims"],
            settings,
            image,
            [environment.recorded(tags) for tags in self.tracker.tags_of(figure_id, settings.get("runs", []))],
        )

    def costs(self, figure_id: str) -> dict[str, Cost]:
        """The committed evidence's (what running the figure costs, whatever this store holds of it)."""
        return trial_costs(evidence_files.ROOT, figure_id)


def figure_report(figure_id: str, drawn: Drawn | None, out_dir: Path, ui: str, costs: dict[str, Cost]) -> FigureReport:
    """One figure id as the report shows it: its claims each with its verdict and its explanation filled, and its
    ``costs`` (``trial_costs``)."""
    listed, (category, subject) = records(figure_id), classification(figure_id)
    if drawn is None:
        verdict = None if category == ILLUSTRATION else NOT_CHECKED
        reason = not_run_reason(figure_id)
        return FigureReport(
            figure_id, description(figure_id), category, subject, verdict, reason, records=listed, costs=costs
        )
    known = explanations(figure_id)  # those of claims another profile draws wait unused (a test holds the committed)
    claims = [
        {
            **c,
            "verdict": claim_verdict(c, drawn.claims) if c in printed(drawn.claims) else "",
            "why": explanation(known[c["key"]], c, drawn) if c["key"] in known else "",
        }
        for c in drawn.claims
    ]
    return FigureReport(
        figure_id,
        description(figure_id),
        category,
        subject,
        id_verdict(drawn.claims),
        claims=claims,
        settings=drawn.settings,
        profile=drawn.profile,
        paper_missing=downloads(figure_id, "paper") if drawn.profile != "paper" else [],
        other_data=other_data(figure_id, drawn.profile),
        image=relative(drawn.image, out_dir),
        tables=[relative(Path(f), out_dir) for f in drawn.settings.get("files", []) if f.endswith((".md", ".csv"))],
        link=figure_run_url(ui, drawn.experiment_id, drawn.run_id),
        drawn_at=datetime.fromtimestamp(drawn.end_time / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC"),
        commit=short_commit(drawn.tags.get("git_commit", "")),
        environments=drawn.environments,
        records=listed,
        costs=costs,
        charts=drawn.charts,
    )


def explanation(template: str, claim: dict, drawn: Drawn) -> str:
    """The explanation of ``claim`` filled from its figure's evidence; a run that lacks the numbers it reads (a
    dataset not measured, at another profile) says so instead (the committed evidence must hold them all: a test)."""
    try:
        return render(template, claim["key"], drawn.claims, drawn.settings)
    except ExplanationError as error:
        return f"(an explanation is recorded, but this run lacks its numbers: {error})"


def relative(path: Path, out_dir: Path) -> str:
    return Path(os.path.relpath(path.resolve(), out_dir.resolve())).as_posix()


def short_commit(described: str) -> str:
    """A commit as `git describe --always --dirty` gave it, shortened, keeping -dirty (uncommitted changes)."""
    return described[:12] + ("-dirty" if described.endswith("-dirty") else "")


def settings_line(report: FigureReport) -> str:
    s = report.settings
    if not s:
        return f"profile {report.profile}; settings not recorded (drawn before they were; redraw it to record them)"

    def listed(key: str) -> str:
        values = s.get(key, [])
        if key == "seeds" and len(values) > 3 and values == list(range(values[0], values[0] + len(values))):
            return f"{values[0]}..{values[-1]} ({len(values)})"
        return ", ".join(map(str, values)) or "-"

    parts = [
        f"profile {s['profile']}",
        f"{s['trials']} trial runs",
        f"datasets {listed('datasets')}",
        f"models {listed('models')}",
        f"protocols {listed('protocols')}",
        f"seeds {listed('seeds')}",
        f"trees {listed('trees')}",
    ]
    if s.get("missing_datasets"):
        parts.append(f"drawn without {', '.join(s['missing_datasets'])} (cannot be had here)")
    return "; ".join(parts)


def headline(report: FigureReport) -> str:
    """The category and verdict, with the count of claims reproduced, and any invariant that fails."""
    counted = report.printed
    broken = sum(not c["passed"] for c in report.of_kind(INVARIANT))
    text = report.category + (" on other data" if report.other_data else "")
    if report.verdict is None:
        text += " (no claim of a paper is checked on it; its invariants are)"
    elif counted:
        text += f", {report.verdict} ({tally(report.claims)} claims reproduced)"
    else:
        text += f", {report.verdict}"
    return text + (f"; {broken} invariant{'s' if broken > 1 else ''} broken" if broken else "")


def commits_line(report: FigureReport) -> str:
    """Which code ran its trials and which drew it."""
    commits = [short_commit(c) for c in report.trial_commits]
    if not commits:
        ran = "the commit its trials ran at is not recorded"
    elif len(commits) == 1 and not commits[0].endswith("-dirty"):
        ran = f"its trials ran at `{commits[0]}` (one clean commit)"
    else:
        ran = f"its trials ran at {len(commits)} commits, not one clean commit: " + ", ".join(f"`{c}`" for c in commits)
    return f"Runs finished {report.drawn_at}; {ran}; drawn by the code at `{report.commit}`."


def environment_line(report: FigureReport) -> str:
    """Where its trials ran: each environment with its dates (and its number of runs, when several), or that it was
    not recorded."""
    where = environment.summary(report.environments)
    return f"Environment: {where or 'not recorded (its runs were made before environments were recorded)'}."


def recorded(report: FigureReport) -> list[tuple[RecordKind, str, list[list[str]]]]:
    """Per RECORD_KINDS: the kind, the lead-in line (Markdown prose) and the table's rows (none: no table)."""
    out = []
    for kind in RECORD_KINDS:
        entries = report.records.get(kind.key)
        if entries is None:
            lead = f"{kind.title}: not recorded yet (`{kind.key}` in conf/figure/{report.id}.yaml)."
        else:
            lead = f"{kind.title}:" if entries else f"{kind.title}: none."
        out.append((kind, lead, [[e[f] for f in kind.fields] for e in entries or []]))
    return out


def unrecorded(reports: list[FigureReport]) -> list[str]:
    """'figure id: key, key' for every figure whose config lacks lists of RECORD_KINDS."""
    missing = {r.id: [k.key for k in RECORD_KINDS if r.records.get(k.key) is None] for r in reports}
    return [f"{figure_id}: {', '.join(keys)}" for figure_id, keys in missing.items() if keys]


def verdict_counts(reports: list[FigureReport]) -> str:
    """'N paper experiments (N reproduced, N partly reproduced, ...; N of them on other data), N theorem checks
    (...), ..., N illustrations'."""
    parts = []
    for category in CATEGORIES:
        ids = [r for r in reports if r.category == category]
        levels = ", ".join(f"{n} {level}" for level in LEVELS if (n := sum(r.verdict == level for r in ids)))
        if others := sum(bool(r.other_data) for r in ids):
            levels += f"; {others} of them on other data"
        name = {STUDY: "study" if len(ids) == 1 else "studies", BEYOND: "ids " + BEYOND}.get(
            category, category + ("s" if len(ids) != 1 else "")
        )
        parts.append(f"{len(ids)} {name}" + (f" ({levels})" if levels else ""))
    return ", ".join(parts)


def claim_counts(reports: list[FigureReport]) -> str:
    """'N claims tested as printed: N reproduced, N partly reproduced, ...; N weaker readings beside them'."""
    claims = [c for r in reports for c in r.printed]
    levels = ", ".join(f"{n} {level}" for level in LEVELS if (n := sum(c["verdict"] == level for c in claims)))
    weaker = sum(bool(c.get("weaker_of")) for r in reports for c in r.claims)
    return f"{len(claims)} claims tested as printed: {levels}; {weaker} weaker readings beside them"


def category_table(reports: list[FigureReport]) -> Table:
    """Ids per category (rows) and verdict (columns)."""
    rows = []
    for category in CATEGORIES:
        ids = [r for r in reports if r.category == category]
        cells = [str(sum(r.verdict == level for r in ids)) for level in LEVELS]
        others = str(sum(bool(r.other_data) for r in ids))
        rows.append([category, str(len(ids)), *cells, str(sum(r.verdict is None for r in ids)), others])
    return Table(["category", "ids", *LEVELS, "no claim", "of them on other data"], rows)


# -- the document ------------------------------------------------------------------------------------------------------
# Text in blocks is the report's own inline Markdown: `code`, *emphasis*, **bold** and [label](address).


@dataclass
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass
class Paragraph:
    text: str


@dataclass
class Image:
    src: str
    alt: str


@dataclass
class Charts:
    """Interactive charts: drawn in the HTML, left out of the Markdown."""

    charts: list[Chart]


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]
    status: list[str] = field(default_factory=list)  # per row, a class for its last cell (HTML colours)


def intro(reports: list[FigureReport], source: str) -> list:
    return [
        Paragraph(
            f"Built by `make report` from {source}. {len(reports)} figure and table ids: {verdict_counts(reports)}. "
            f"{claim_counts(reports)}."
        ),
        category_table(reports),
        Paragraph(
            "Each id is of one category. A *paper experiment* reproduces an empirical result a paper prints in a figure"
            " or table; a *theorem check* simulates an exact statement of a paper (it can confirm the code and the "
            "statement, not an experiment); a *study* is a figure the papers do not draw, probing a named statement; an"
            " *illustration* draws what a paper draws to explain its method; an id *beyond the papers* reproduces a "
            "result of a later paper on the same forests (prediction intervals: LRT16, CKU23), its claims checked as "
            "the five papers' are. Each claim quotes the sentence of the "
            'paper it tests and tests it as printed ("always" in every case, "all the baselines" against each of them);'
            " a weaker reading may stand beside it as its own line, never in its place. A claim is *reproduced* when "
            "the sentence holds as printed on the measured numbers; *partly reproduced* when it does not but a weaker "
            "reading holds (the exceptions listed case by case with their margins); *not reproduced* when neither does;"
            " *not checked* when its data are not here (with the reason); *not comparable* when what was measured "
            "cannot answer the sentence (with why). An id is reproduced when every claim of it is, partly reproduced "
            "when some are. *Invariants* are properties of the code or of the drawing (they hold by construction, or "
            "check that the drawing shows what it should): reported, never counted. Where the paper prints a number for"
            " a claim, it stands beside the measured one; the explanation recorded for a claim is shown whether the "
            "claim holds or not, its numbers read from the evidence. An id drawn *on other data* ran where the paper's"
            " files cannot be had on real data of the same kind standing in for them (its section says which and how "
            "they differ): its claims test the paper's sentences on those data, and no number of ours is compared "
            "with the paper's there (*not comparable*)."
        ),
        Paragraph(
            "The runs behind every figure ship in `results/evidence`, each figure's from one clean commit (named in "
            "its section): `make report` rebuilds this report from them, `make ui` serves them (the links below open "
            "them), `make redraw FIG=<id>` draws a figure again from them. Run a figure on this machine with `make "
            "reproduce-figure FIG=<id>` (its runs go to the local store, its figure to `results/local`); `make "
            "evidence FIG=<id>` makes a complete local run at a clean commit the committed evidence. An id's *trial "
            "time* (in the table of ids at the profile drawn, in its section at each profile committed) is the sum of "
            "its committed trial runs' durations (`duration_seconds`, each trial's wall-clock time on the machine that "
            "ran it): about what running it again takes on one worker of a like machine, drawing it not counted; "
            f"{duration(sum(c.seconds for r in reports for c in r.costs.values()))} for all the ids."
        ),
    ]


def figure_blocks(r: FigureReport) -> list:
    blocks = [Heading(3, f"{r.id}: {headline(r)}", anchor=r.id)]
    blocks += [Paragraph(f"{SUBJECT_LEADS[r.category]} {r.subject}."), Paragraph(r.description)]
    costs = [Paragraph(cost_line(r))] if r.costs else []
    if not r.settings:
        return [*blocks, Paragraph(f"Not run: {r.reason}."), *costs, *record_blocks(r)]
    blocks.append(Image(r.image, r.id))
    if r.charts:
        blocks.append(Charts(r.charts))
    blocks += [Paragraph(f"Settings: {settings_line(r)}. {commits_line(r)}"), Paragraph(environment_line(r)), *costs]
    if r.paper_missing:
        blocks.append(
            Paragraph(
                f"Drawn at profile {r.profile}: the paper profile needs downloads ({', '.join(r.paper_missing)}) "
                f"that the committed runs were not made with."
            )
        )
    if r.other_data:
        blocks.append(Paragraph(f"On other data: {r.other_data}."))
    blocks += record_blocks(r)
    if r.tables:
        blocks.append(Paragraph("Tables: " + ", ".join(f"[{Path(t).name}]({t})" for t in r.tables)))
    if r.printed:
        rows, status = [], []
        for claim in r.printed:
            for c in [claim, *readings(r.claims, claim["key"])]:
                rows.append(claim_row(c))
                status.append(verdict_class(c))
        headers = ["claim, as tested", "the paper's words", "the paper's number", "measured", "verdict"]
        blocks.append(Table(headers, rows, status))
    invariants = r.of_kind(INVARIANT)
    if invariants:
        blocks.append(Paragraph("Invariants (checked, not counted):"))
        blocks.append(
            Table(
                ["invariant", "measured", "holds"],
                [[c["statement"], c["measured"], "yes" if c["passed"] else "**no**"] for c in invariants],
                ["pass" if c["passed"] else "fail" for c in invariants],
            )
        )
    blocks.append(Paragraph(f"Runs: [the figure's run and its trial runs in the MLflow UI]({r.link})"))
    return blocks


CHARTS_LEAD = (  # above a figure's charts in the HTML
    "Its curves, interactive: a chart per dataset, a line per method, the mean of its runs (seeds) at each step, at "
    f"most {MAX_POINTS} steps a line; the menu picks the metric, the buttons the axes' scales, a click on a legend "
    "entry hides its line and a double click shows it alone."
)


def cost_line(r: FigureReport) -> str:
    """The id's trial time at each profile committed (``trial_costs``)."""
    each = [
        f"{duration(cost.seconds)} at profile {profile} ({cost.trials} trial run{'s' if cost.trials != 1 else ''})"
        for profile, cost in r.costs.items()
    ]
    return f"Trial time, the sum of its committed trial runs' durations (`duration_seconds`): {'; '.join(each)}."


def claim_row(c: dict) -> list[str]:
    """A claim's row: a weaker reading says so and is judged holds / does not hold, a printed claim by its verdict;
    exceptions and the explanation follow the verdict; a timed claim's measure says that it is a timing."""
    if c.get("weaker_of"):
        statement, words = f"*weaker reading:* {c['statement']}", "the same"
        verdict = "holds" if c["passed"] else "does not hold"
    else:
        statement, words = c["statement"], f'"{" ".join(c["quote"].split())}" ({c["where"]})'
        verdict = f"**{c['verdict']}**"
    if c.get("exceptions"):
        verdict += "; exceptions: " + "; ".join(c["exceptions"])
    if c["why"]:
        verdict += f". Why: {c['why']}"
    measured = c["measured"] + (
        " *(wall-clock times: they depend on the machine and its load)*" if c.get("timed") else ""
    )
    return [statement, words, c.get("paper") or "-", measured, verdict]


def verdict_class(c: dict) -> str:
    """The HTML class of a claim's verdict cell."""
    if c.get("weaker_of"):
        return "pass" if c["passed"] else "fail"
    return c["verdict"].replace(" ", "-")


def record_blocks(r: FigureReport) -> list:
    blocks = []
    for kind, lead, rows in recorded(r):
        blocks.append(Paragraph(lead))
        if rows:
            blocks.append(Table(list(kind.headings), rows))
    return blocks


def document(reports: list[FigureReport], source: str) -> list:
    """The whole report as blocks."""
    blocks = [Heading(1, "Reproduction report"), *intro(reports, source)]
    summary = [
        [
            f"[{r.id}](#{r.id})",
            r.id.split("-")[0].upper(),
            r.category,
            f"{r.profile} (other data)" if r.other_data else (r.profile or "-"),
            duration(r.costs[r.profile].seconds) if r.profile in r.costs else "-",
            tally(r.claims),
            r.invariants_tally(),
            r.verdict or "-",
        ]
        for r in reports
    ]
    headers = ["id", "paper", "category", "profile", "trial time", "claims reproduced", "invariants holding", "verdict"]
    blocks.append(Table(headers, summary, [(r.verdict or "no-claim").replace(" ", "-") for r in reports]))
    paper = None
    for r in reports:
        if r.id.split("-")[0] != paper:
            paper = r.id.split("-")[0]
            blocks.append(Heading(2, PAPERS.get(paper, paper)))
        blocks += figure_blocks(r)
    return blocks


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(blocks: list) -> str:
    out = []
    for block in blocks:
        if isinstance(block, Charts):
            continue
        if isinstance(block, Heading):
            out += [f'<a id="{block.anchor}"></a>'] if block.anchor else []
            out.append("#" * block.level + " " + block.text)
        elif isinstance(block, Paragraph):
            out.append(block.text)
        elif isinstance(block, Image):
            out.append(f"![{block.alt}]({block.src})")
        else:
            lines = ["| " + " | ".join(block.headers) + " |", "|" + "---|" * len(block.headers)]
            lines += ["| " + " | ".join(map(_md_cell, row)) + " |" for row in block.rows]
            out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def inline_html(text: str) -> str:
    """The report's inline Markdown as HTML (escaped first; code spans are left as written)."""
    parts = re.split(r"(`[^`]+`)", str(text))
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        part = html.escape(part)
        part = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', part)
        part = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", part)
        part = re.sub(r"\*([^*]+)\*", r"<em>\1</em>", part)
        out.append(part)
    return "".join(out)


STYLE = (
    "body{font-family:sans-serif;max-width:75em;margin:auto;padding:1em}img{max-width:100%}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;"
    "vertical-align:top}.reproduced,.pass{color:#060}.partly-reproduced{color:#a60}.not-reproduced,.fail{color:#a00}"
    ".not-checked,.not-comparable,.no-claim{color:#666}"
)


def to_html(blocks: list) -> str:
    """One HTML page that opens offline (images by relative path, plotly.js from SCRIPT beside it when it has charts,
    no remote script or style)."""
    body = []
    for block in blocks:
        if isinstance(block, Charts):
            body += [f"<p>{inline_html(CHARTS_LEAD)}</p>", *map(chart_html, block.charts)]
        elif isinstance(block, Heading):
            anchor = f' id="{block.anchor}"' if block.anchor else ""
            body.append(f"<h{block.level}{anchor}>{inline_html(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            body.append(f"<p>{inline_html(block.text)}</p>")
        elif isinstance(block, Image):
            body.append(f'<img src="{html.escape(block.src)}" alt="{html.escape(block.alt)}">')
        else:
            rows = ["<tr>" + "".join(f"<th>{inline_html(h)}</th>" for h in block.headers) + "</tr>"]
            for number, row in enumerate(block.rows):
                status = f' class="{block.status[number]}"' if block.status else ""
                cells = [f"<td>{inline_html(v)}</td>" for v in row[:-1]]
                cells.append(f"<td{status}>{inline_html(row[-1])}</td>")
                rows.append("<tr>" + "".join(cells) + "</tr>")
            body.append("<table>" + "\n".join(rows) + "</table>")
    script = f'<script src="{SCRIPT.as_posix()}"></script>' if any(isinstance(b, Charts) for b in blocks) else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Reproduction report</title>'
        f"<style>{STYLE}</style>{script}</head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def render_report(source, out_dir: Path, ui: str = DEFAULT_UI) -> tuple[list[FigureReport], str, str]:
    """The report from ``source`` (EvidenceSource or StoreSource) for a file in ``out_dir``: the figures as reported,
    the Markdown and the HTML."""
    ids = sorted(figure_ids(), key=figure_order)
    reports = [figure_report(i, source.drawn(i), out_dir, ui, source.costs(i)) for i in ids]
    blocks = document(reports, source.name)
    return reports, to_markdown(blocks), to_html(blocks)


def build_report(source, out: Path, ui: str = DEFAULT_UI) -> list[FigureReport]:
    """Write ``out`` (Markdown) and the same report as HTML beside it, with plotly.js (SCRIPT) when it has charts;
    returns the figures as reported."""
    out.parent.mkdir(parents=True, exist_ok=True)
    reports, markdown, page = render_report(source, out.parent, ui)
    out.write_text(markdown)
    out.with_suffix(".html").write_text(page)
    if any(r.charts for r in reports):
        write_script(out.parent)
    return reports


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uri", help="build from this MLflow store instead of the committed evidence")
    parser.add_argument("--out", type=Path, help="default: results/REPORT.md, or results/local/REPORT.md with --uri")
    parser.add_argument(
        "--ui",
        default=DEFAULT_UI,
        help=f"the MLflow UI the links point at (make ui); {COMMITTED} keeps the default, another goes to {LOCAL_COPY}",
    )
    args = parser.parse_args(argv)
    if args.uri:
        tracking = compose([]).tracking
        out = args.out or Path("results/local/REPORT.md")
        source = StoreSource(Tracker(args.uri, tracking.artifact_root), out.parent / "report-images")
    else:
        out = args.out or COMMITTED
        source = EvidenceSource()
    committed = out.resolve() == COMMITTED.resolve()
    reports = build_report(source, out, DEFAULT_UI if committed else args.ui)
    print(f"{out} and {out.with_suffix('.html')}: {verdict_counts(reports)}")
    if committed and args.ui.rstrip("/") != DEFAULT_UI:
        build_report(source, LOCAL_COPY, args.ui)
        print(f"{out} links to {DEFAULT_UI} whatever --ui says; the same report linking to {args.ui}: {LOCAL_COPY}")
    unexplained = [
        f"{r.id}: {c['key']} ({c['verdict']})"
        for r in reports
        for c in r.printed
        if c["verdict"] not in (REPRODUCED, NOT_CHECKED, NOT_COMPARABLE) and not c["why"]
    ]
    for line in unexplained:
        print(f"  no explanation recorded (explanations in the figure config) for {line}")
    for line in unrecorded(reports):
        print(f"  not recorded yet in the figure config of {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
