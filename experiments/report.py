"""The reproduction report (`make report`): `python -m experiments.report [--uri URI] [--out results/REPORT.md]`.

For every registered figure and table id it reads the latest drawn figure run in the MLflow store (profile paper
first, then offline, then quick): the image, the settings it was drawn from (settings.json), the paper's claims with
the measured numbers and their verdicts (claims.json), and links to the runs in the MLflow UI. A claim that does not
hold carries the one-line explanation recorded in conf/report/explanations.yaml. A figure with no drawn run says why
(its datasets cannot be had here, or it has not been run). Every figure, run or not, lists what its config records
(keys ``unspecified`` and ``readings`` of conf/figure/<id>.yaml): the settings the paper does not give, and the
readings that differ from the paper's text, each with the value run and why. Writes REPORT.md and REPORT.html (opens
offline, images beside it) side by side.
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

import yaml

from experiments.config import CONF_DIR, compose, grid_overrides
from experiments.data import DatasetUnavailable
from experiments.data.catalog import entry
from experiments.data.fetch import parsed
from experiments.regenerate import FALLBACK_PROFILE, figure_ids
from experiments.reproduce import catalog_name, profile_settings
from experiments.tracking import Tracker
from experiments.trial import trial_config

PROFILES = ("paper", FALLBACK_PROFILE, "quick")  # which run a figure is reported from, first found first
PAPERS = {
    "lrt14": "LRT14: Lakshminarayanan, Roy, Teh, *Mondrian forests: efficient online random forests* (NeurIPS 2014)",
    "mgs17": "MGS17: Mourtada, Gaïffas, Scornet, *Universal consistency and minimax rates for online Mondrian "
    "forests* (NeurIPS 2017)",
    "mgs20": "MGS20: Mourtada, Gaïffas, Scornet, *Minimax optimal rates for Mondrian trees and forests* (Annals of "
    "Statistics 2020)",
    "amf": "AMF: Mourtada, Gaïffas, Scornet, *AMF: aggregated Mondrian forests for online learning* (JRSS-B 2021)",
    "bsp": "BSP: Fan, Li, Sisson, *Online binary space partitioning forests* (AISTATS 2020)",
    "theory": "Theory: the project's simulations of the MGS17/MGS20 statements (the papers have no figure for them)",
}
EXPLANATIONS = CONF_DIR / "report" / "explanations.yaml"
REPRODUCED, NOT_REPRODUCED, NOT_RUN = "reproduced", "not reproduced", "not run"


@dataclass(frozen=True)
class RecordKind:
    """A list a figure config records beside its grid: its key, its title in the report, its entries' fields and
    their column headings."""

    key: str
    title: str
    fields: tuple[str, ...]
    headings: tuple[str, ...]


RECORD_KINDS = (
    RecordKind(
        "unspecified", "Settings the paper does not give", ("setting", "value", "why"), ("setting", "value run", "why")
    ),
    RecordKind(
        "readings", "Readings that differ from the text", ("text", "run", "why"), ("the text", "what runs", "why")
    ),
)


@dataclass
class FigureReport:
    """One figure id as the report shows it."""

    id: str
    description: str
    verdict: str
    reason: str = ""  # why it was not run
    claims: list[dict] = field(default_factory=list)  # statement, passed, measured, and why (failed claims)
    settings: dict = field(default_factory=dict)
    profile: str = ""
    paper_missing: list[str] = field(default_factory=list)  # paper datasets unreachable (drawn at another profile)
    image: str = ""  # relative to the report
    tables: list[str] = field(default_factory=list)  # relative to the report
    links: dict[str, str] = field(default_factory=dict)  # label -> MLflow UI address
    drawn_at: str = ""
    commit: str = ""
    records: dict[str, list[dict] | None] = field(default_factory=dict)  # RecordKind.key -> entries, None: not recorded

    @property
    def tally(self) -> str:
        return f"{sum(c['passed'] for c in self.claims)}/{len(self.claims)}" if self.claims else "-"


def figure_order(figure_id: str) -> tuple:
    """Papers in the order of PAPERS, then figures before tables, by number (fig2 before fig10)."""
    paper, _, rest = figure_id.partition("-")
    number = re.search(r"\d+", rest)
    return (
        list(PAPERS).index(paper) if paper in PAPERS else len(PAPERS),
        rest.startswith("table"),
        int(number.group()) if number else 0,
        rest,
    )


def description(figure_id: str) -> str:
    """The figure config's leading comment: what the figure shows and with which settings."""
    lines = []
    for line in (CONF_DIR / "figure" / f"{figure_id}.yaml").read_text().splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# ").rstrip())
    return " ".join(lines)


def records(figure_id: str) -> dict[str, list[dict] | None]:
    """The figure config's lists of RECORD_KINDS (None for a list it does not have), each entry checked to have
    exactly its kind's fields, each a non-empty string."""
    path = CONF_DIR / "figure" / f"{figure_id}.yaml"
    config = yaml.safe_load(path.read_text())
    found = {}
    for kind in RECORD_KINDS:
        entries = config.get(kind.key)
        if entries is not None and not isinstance(entries, list):
            raise ValueError(f"{path.name}: {kind.key} must be a list of entries, not {entries!r}")
        for number, item in enumerate(entries or [], 1):
            if not (
                isinstance(item, dict)
                and item.keys() == set(kind.fields)
                and all(isinstance(v, str) and v.strip() for v in item.values())
            ):
                raise ValueError(
                    f"{path.name}: {kind.key} entry {number} {item!r} must have exactly the fields "
                    f"{', '.join(kind.fields)}, each a non-empty string (quote numbers)"
                )
        found[kind.key] = entries
    return found


def explanations() -> dict[str, dict[str, str]]:
    """figure id -> {claim statement (or its beginning) -> why it does not hold}."""
    return yaml.safe_load(EXPLANATIONS.read_text()) or {}


def why_not(statement: str, known: dict[str, str]) -> str:
    return next((why for start, why in known.items() if statement.startswith(start)), "")


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


def unreachable(figure_id: str, profile: str) -> list[str]:
    """The real datasets of the figure at ``profile`` that are neither in the cache nor in an installed
    distribution (nothing is downloaded)."""
    missing = []
    for name in sorted(n for n in profile_datasets(figure_id, profile) if not entry(n).synthetic):
        try:
            parsed(name, download=False)
        except DatasetUnavailable:
            missing.append(name)
    return missing


def not_run_reason(figure_id: str, profiles) -> str:
    """Why a figure has no drawn run, and what to do about it."""
    missing = {p: unreachable(figure_id, p) for p in ("paper", FALLBACK_PROFILE) if p in profiles}
    if all(missing.values()):
        names = sorted({n for ns in missing.values() for n in ns})
        files = ", ".join(f"datasets/{n}.yaml" for n in names)
        return (
            f"its datasets cannot be had on this machine ({', '.join(names)}: not in the dataset cache, no network); "
            f'`make data-fetch DATA="{" ".join(names)}"` where the sources are reachable, or put the files by '
            f"hand as {files} says, then `make reproduce-figure FIG={figure_id}`"
        )
    return f"no drawn run of it in the store yet: `make reproduce-figure FIG={figure_id}` (or `make figures`)"


class Reader:
    """Reads the figure runs of one store."""

    def __init__(self, tracker: Tracker, out_dir: Path, ui: str):
        self.tracker, self.client, self.out_dir, self.ui = tracker, tracker.client, out_dir, ui.rstrip("/")

    def latest_drawn(self, figure_id: str):
        """The latest figure run that holds a drawing, at the first profile of PROFILES that has one."""
        drawn = [r for r in self.tracker.figure_runs(figure_id) if "claims_passed" in r.data.tags]
        for profile in PROFILES:
            at = [r for r in drawn if r.data.tags.get("profile") == profile]
            if at:
                return max(at, key=lambda r: r.info.end_time or r.info.start_time)
        return None

    def artifact(self, run, path: str, folder: Path) -> Path:
        return Path(self.client.download_artifacts(run.info.run_id, path, str(folder)))

    def relative(self, path: Path) -> str:
        return Path(os.path.relpath(path.resolve(), self.out_dir.resolve())).as_posix()

    def image(self, run, figure_id: str, settings: dict) -> str:
        """The figure's PNG where it was written, or a copy of the run's artifact beside the report."""
        for file in settings.get("files", []):
            if file.endswith(".png") and Path(file).exists():
                return self.relative(Path(file))
        folder = self.out_dir / "report-images"
        folder.mkdir(parents=True, exist_ok=True)
        return self.relative(self.artifact(run, f"{figure_id}.png", folder))

    def figure(self, figure_id: str, known: dict[str, str]) -> FigureReport:
        cfg = compose([f"figure={figure_id}"])
        profiles = list(cfg.figure.profiles)
        run, listed = self.latest_drawn(figure_id), records(figure_id)
        if run is None:
            return FigureReport(
                figure_id, description(figure_id), NOT_RUN, not_run_reason(figure_id, profiles), records=listed
            )
        with tempfile.TemporaryDirectory() as tmp:
            claims = json.loads(self.artifact(run, "claims.json", Path(tmp)).read_text())["claims"]
            names = {a.path for a in self.client.list_artifacts(run.info.run_id)}
            settings = (
                json.loads(self.artifact(run, "settings.json", Path(tmp)).read_text())
                if ("settings.json" in names)
                else {}
            )
        for claim in claims:
            claim["passed"] = claim["passed"] in (True, "True")  # runs drawn before Claim cast numpy bools wrote "True"
            claim["why"] = "" if claim["passed"] else why_not(claim["statement"], known)
        profile = run.data.tags.get("profile", "")
        table = cfg.figure.profiles[profile].get("table") if profile in profiles else None
        experiment = f"{self.ui}/#/experiments/{run.info.experiment_id}"
        return FigureReport(
            figure_id,
            description(figure_id),
            REPRODUCED if all(c["passed"] for c in claims) else NOT_REPRODUCED,
            claims=claims,
            settings=settings,
            profile=profile,
            paper_missing=unreachable(figure_id, "paper") if profile != "paper" else [],
            image=self.image(run, figure_id, settings),
            tables=[self.relative(p) for p in table_files(table)],
            links={
                "figure run (its trial runs are its children)": f"{experiment}/runs/{run.info.run_id}",
                "experiment": experiment,
            },
            drawn_at=datetime.fromtimestamp((run.info.end_time or run.info.start_time) / 1000, UTC).strftime(
                "%Y-%m-%d %H:%M UTC"
            ),
            commit=short_commit(run.data.tags.get("git_commit", "")),
            records=listed,
        )


def table_files(stem: str | None) -> list[Path]:
    """The Markdown and CSV files of a figure's table, those that exist."""
    return [path for path in (Path(f"{stem}.md"), Path(f"{stem}.csv")) if path.exists()] if stem else []


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
    if report.verdict == NOT_REPRODUCED:
        failed = sum(not c["passed"] for c in report.claims)
        return f"{report.verdict} ({failed} of {len(report.claims)} claims do not hold)"
    if report.verdict == REPRODUCED:
        return f"{report.verdict} ({len(report.claims)} of {len(report.claims)} claims hold)"
    return report.verdict


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def recorded(report: FigureReport) -> list[tuple[RecordKind, str, list[list[str]]]]:
    """Per RECORD_KINDS: the kind, the lead-in line (Markdown prose) and the table's rows (none: no table), shared by
    both formats."""
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
    """'N reproduced, N not reproduced, N not run'."""
    return ", ".join(f"{sum(r.verdict == v for r in reports)} {v}" for v in (REPRODUCED, NOT_REPRODUCED, NOT_RUN))


def intro(reports: list[FigureReport], source: str) -> list[str]:
    """The report's opening paragraphs (Markdown prose), shared by both formats."""
    return [
        f"Built {datetime.now(UTC):%Y-%m-%d %H:%M UTC} by `make report` from the MLflow store `{source}`. "
        f"{len(reports)} figure and table ids: {verdict_counts(reports)}.",
        "A figure is *reproduced* when every claim of the paper checked on it holds on the measured numbers, *not "
        "reproduced* when one does not (each such claim says why), *not run* when no drawn run of it exists (with the "
        "reason). The links open the runs in the MLflow UI: start it with `make ui`. Regenerate everything with "
        "`make figures`, one figure with `make reproduce-figure FIG=<id>`.",
    ]


def _markdown_records(report: FigureReport) -> list[str]:
    out = []
    for kind, lead, rows in recorded(report):
        out += ["", lead]
        if rows:
            out += ["", "| " + " | ".join(kind.headings) + " |", "|" + "---|" * len(kind.headings)]
            out += ["| " + " | ".join(map(_cell, row)) + " |" for row in rows]
    return out


def to_markdown(reports: list[FigureReport], source: str) -> str:
    out = ["# Reproduction report"]
    for paragraph in intro(reports, source):
        out += ["", paragraph]
    out += [
        "",
        "| id | paper | profile | claims holding | verdict |",
        "|---|---|---|---|---|",
    ]
    out += [
        f"| [{r.id}](#{r.id}) | {r.id.split('-')[0].upper()} | {r.profile or '-'} | {r.tally} | {r.verdict} |"
        for r in reports
    ]
    paper = None
    for r in reports:
        if r.id.split("-")[0] != paper:
            paper = r.id.split("-")[0]
            out += ["", f"## {PAPERS.get(paper, paper)}"]
        out += ["", f'<a id="{r.id}"></a>', f"### {r.id}: {headline(r)}", "", r.description, ""]
        if r.verdict == NOT_RUN:
            out.append(f"Not run: {r.reason}.")
            out += _markdown_records(r)
            continue
        out += [f"![{r.id}]({r.image})", "", f"Settings: {settings_line(r)}. Drawn {r.drawn_at}, commit `{r.commit}`."]
        if r.paper_missing:
            out += [
                "",
                f"Drawn at profile {r.profile}: the paper profile's datasets ({', '.join(r.paper_missing)}) "
                f"cannot be had on this machine.",
            ]
        out += _markdown_records(r)
        if r.tables:
            out += ["", "Table: " + ", ".join(f"[{Path(t).suffix[1:]}]({t})" for t in r.tables)]
        out += ["", "| claim | measured | verdict |", "|---|---|---|"]
        for c in r.claims:
            verdict = "holds" if c["passed"] else f"**does not hold**: {c['why'] or 'no explanation recorded yet'}"
            out.append(f"| {_cell(c['statement'])} | {_cell(c['measured'])} | {_cell(verdict)} |")
        out += ["", "Runs: " + ", ".join(f"[{label}]({url})" for label, url in r.links.items())]
    return "\n".join(out) + "\n"


def _html_text(text: str) -> str:
    """Escaped text with Markdown's `code` as HTML."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _html_prose(text: str) -> str:
    """The report's own Markdown prose (`code` and *emphasis*) as HTML."""
    return re.sub(r"\*([^*]+)\*", r"<em>\1</em>", _html_text(text))


def _html_records(report: FigureReport) -> list[str]:
    body = []
    for kind, lead, rows in recorded(report):
        body.append(f"<p>{_html_text(lead)}</p>")
        if rows:
            body.append("<table><tr>" + "".join(f"<th>{h}</th>" for h in kind.headings) + "</tr>")
            body += ["<tr>" + "".join(f"<td>{_html_text(v)}</td>" for v in row) + "</tr>" for row in rows]
            body.append("</table>")
    return body


def to_html(reports: list[FigureReport], source: str) -> str:
    """The report as one HTML page that opens offline (images by relative path, no script, no remote style)."""
    body = [f"<p>{_html_prose(p)}</p>" for p in intro(reports, source)]
    body.append("<table><tr><th>id</th><th>profile</th><th>claims holding</th><th>verdict</th></tr>")
    body += [
        f'<tr><td><a href="#{r.id}">{r.id}</a></td><td>{r.profile or "-"}</td><td>{r.tally}</td>'
        f'<td class="{r.verdict.replace(" ", "-")}">{r.verdict}</td></tr>'
        for r in reports
    ]
    body.append("</table>")
    paper = None
    for r in reports:
        if r.id.split("-")[0] != paper:
            paper = r.id.split("-")[0]
            body.append(f"<h2>{_html_prose(PAPERS.get(paper, paper))}</h2>")
        body.append(f'<h3 id="{r.id}">{r.id}: <span class="{r.verdict.replace(" ", "-")}">{headline(r)}</span></h3>')
        body.append(f"<p>{_html_text(r.description)}</p>")
        if r.verdict == NOT_RUN:
            body.append(f"<p>Not run: {_html_text(r.reason)}.</p>")
            body += _html_records(r)
            continue
        body.append(f'<img src="{html.escape(r.image)}" alt="{r.id}">')
        body.append(
            f"<p>Settings: {_html_text(settings_line(r))}. Drawn {r.drawn_at} at commit <code>{r.commit}</code>.</p>"
        )
        if r.paper_missing:
            body.append(
                f"<p>Drawn at profile {r.profile}: the paper profile's datasets "
                f"({html.escape(', '.join(r.paper_missing))}) cannot be had on this machine.</p>"
            )
        body += _html_records(r)
        if r.tables:
            body.append(
                "<p>Table: "
                + ", ".join(f'<a href="{html.escape(t)}">{Path(t).suffix[1:]}</a>' for t in r.tables)
                + "</p>"
            )
        body.append("<table><tr><th>claim</th><th>measured</th><th>verdict</th></tr>")
        for c in r.claims:
            verdict = (
                "holds"
                if c["passed"]
                else f"<b>does not hold</b>: {_html_text(c['why'] or 'no explanation recorded yet')}"
            )
            body.append(
                f"<tr><td>{_html_text(c['statement'])}</td><td>{_html_text(c['measured'])}</td>"
                f'<td class="{"pass" if c["passed"] else "fail"}">{verdict}</td></tr>'
            )
        body.append("</table>")
        body.append(
            "<p>Runs: "
            + ", ".join(f'<a href="{html.escape(u)}">{html.escape(label)}</a>' for label, u in r.links.items())
            + "</p>"
        )
    style = (
        "body{font-family:sans-serif;max-width:75em;margin:auto;padding:1em}img{max-width:100%}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;"
        "vertical-align:top}.reproduced,.pass{color:#060}.not-reproduced,.fail{color:#a00}"
        ".not-run{color:#666}"
    )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Reproduction report</title>'
        f"<style>{style}</style></head><body>\n<h1>Reproduction report</h1>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def build_report(tracker: Tracker, out: Path, ui: str = "http://127.0.0.1:5000") -> list[FigureReport]:
    """Write ``out`` (Markdown) and the same report as HTML beside it; returns the figures as reported."""
    out.parent.mkdir(parents=True, exist_ok=True)
    reader, known = Reader(tracker, out.parent, ui), explanations()
    ids = sorted(figure_ids(), key=figure_order)
    reports = [reader.figure(figure_id, known.get(figure_id, {})) for figure_id in ids]
    out.write_text(to_markdown(reports, tracker.uri))
    out.with_suffix(".html").write_text(to_html(reports, tracker.uri))
    return reports


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uri", help="the MLflow store (default: the harness's, tracking.uri)")
    parser.add_argument("--out", type=Path, default=Path("results/REPORT.md"))
    parser.add_argument("--ui", default="http://127.0.0.1:5000", help="the MLflow UI the links point at (make ui)")
    args = parser.parse_args(argv)
    tracking = compose([]).tracking
    tracker = Tracker(args.uri or tracking.uri, tracking.artifact_root)
    reports = build_report(tracker, args.out, args.ui)
    print(f"{args.out} and {args.out.with_suffix('.html')}: {verdict_counts(reports)}")
    unexplained = [f"{r.id}: {c['statement']}" for r in reports for c in r.claims if not c["passed"] and not c["why"]]
    for line in unexplained:
        print(f"  no explanation recorded in {EXPLANATIONS.relative_to(CONF_DIR.parent)} for {line}")
    for line in unrecorded(reports):
        print(f"  not recorded yet in the figure config of {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
