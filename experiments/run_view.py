"""What a run shows in the MLflow UI, written the same way by the harness's tracking (experiments.tracking) and by the
store of the committed evidence (experiments.evidence_store): a figure experiment's description and type, a figure
run's description (its claims' table) and claims page (claims.html), the curves as metric points, and the tag names
MLflow reads. It imports no MLflow: the store of the evidence is written without it.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.config import CONF_DIR, figure_profiles
from experiments.figure_catalog import PAPERS, description
from experiments.verdicts import INVARIANT, claim_verdict, printed, tally

PARAM_MAX_LENGTH = 6000
_NOTE_MAX_LENGTH = 8000  # characters of a run's tag value
# An experiment's type as the MLflow UI writes it when one picks "machine learning" rather than GenAI for it.
KIND_TAG, MACHINE_LEARNING = "mlflow.experimentKind", "custom_model_development"
# The tags MLflow reads of a run (mlflow.utils.mlflow_tags; tests/experiments/test_evidence_store.py checks them).
RUN_NAME, RUN_NOTE, PARENT_RUN = "mlflow.runName", "mlflow.note.content", "mlflow.parentRunId"


def figure_note(figure_id: str) -> str | None:
    """A figure experiment's description: the figure's caption, its paper and its profiles, as the report says them, in
    plain text (the UI's list of experiments shows it unrendered, its page renders it as Markdown); None for an
    experiment that is not a figure's."""
    if not (CONF_DIR / "figure" / f"{figure_id}.yaml").exists():
        return None
    paper = PAPERS.get(figure_id.split("-")[0], "")
    profiles = figure_profiles(figure_id)
    return (
        f"{figure_id}: {description(figure_id).replace('`', '')}\n\n{paper}\n\n"
        f"Profiles: {', '.join(profiles)}. Each figure run (figure {figure_id} at profile paper, figure {figure_id} "
        "(quick) and so on at the others) holds the drawing and the claims with their verdicts; its trial runs are "
        "its children, named by the settings that tell them apart. Regenerate: make reproduce-figure "
        f"FIG={figure_id} PROFILE={profiles[0]} (or another profile)."
    )


def experiment_tags(name: str) -> dict[str, str]:
    """The tags the UI reads of an experiment: its type, and for a figure's its description (``figure_note``)."""
    note = figure_note(name)
    return {KIND_TAG: MACHINE_LEARNING, **({RUN_NOTE: note} if note else {})}


def _cell(text: str, width: int = 500) -> str:
    """Text as one cell of a Markdown table, cut at ``width`` characters (a run's description holds 8000)."""
    text = " ".join(str(text).split()).replace("|", "\\|") or "-"
    return text if len(text) <= width else text[: width - 1] + "…"


def _checks(claims: list[dict]) -> tuple[list[str], list[tuple[str, str, str, str, bool]]]:
    """A figure's claims as its run shows them: the lines of their tallies, and per check its text, the paper's number,
    the measured one, its verdict and whether the verdict is stressed (a claim's verdict, an invariant that fails)."""
    lines = [f"Claims reproduced: {tally(claims)}."] if printed(claims) else []
    invariants = [c for c in claims if c.get("kind") == INVARIANT]
    if invariants:
        lines.append(f"Invariants: {sum(c['passed'] for c in invariants)} of {len(invariants)} hold.")
    checks = []
    for c in claims:
        if c.get("kind") == INVARIANT:
            check, verdict, stressed = (
                f"{c['statement']} (invariant)",
                "holds" if c["passed"] else "does not hold",
                not c["passed"],
            )
        elif c.get("weaker_of"):
            check, verdict, stressed = (
                f"{c['statement']} (weaker reading)",
                "holds" if c["passed"] else "does not hold",
                False,
            )
        else:
            check, verdict, stressed = c["statement"], claim_verdict(c, claims), True
        checks.append((check, c.get("paper", ""), c["measured"], verdict, stressed))
    return lines, checks


def claims_note(claims: list[dict]) -> str:
    """A figure run's description (Markdown): how many claims are reproduced and invariants hold, and the table of its
    checks with the paper's number, the measured one and the verdict (a long cell cut; claims.json has them whole)."""
    lines, checks = _checks(claims)
    lines += ["", "| check | the paper | measured | verdict |", "|---|---|---|---|"]
    for check, paper, measured, verdict, stressed in checks:
        verdict = f"**{verdict}**" if stressed else verdict
        lines.append("| " + " | ".join(map(_cell, [check, paper, measured, verdict])) + " |")
    note = "\n".join(lines)
    return note if len(note) <= _NOTE_MAX_LENGTH else note[: _NOTE_MAX_LENGTH - 40] + "\n\n(cut: claims.json has all)"


CLAIMS_PAGE = "claims.html"  # a figure run's artifact: its drawing and claims, which the UI shows as the run opens


def claims_page(title: str, claims: list[dict], drawn: list[Path]) -> str:
    """A figure run's page (HTML, one file: the MLflow UI shows it in the run's artifacts, where ``figure_run_url``
    opens the run): the title, the tallies and the table of every check whole, with the sentence of the paper each
    claim quotes, then the drawing (the first PNG among the ``drawn`` files, embedded; none if there is none)."""
    image = next((path.read_bytes() for path in drawn if path.suffix == ".png"), None)
    lines, checks = _checks(claims)
    quotes = [c.get("quote", "") for c in claims]
    cell = "<td>{}</td>".format
    rows = []
    for (check, paper, measured, verdict, stressed), quote in zip(checks, quotes, strict=True):
        said = f"<br><q>{html.escape(quote)}</q>" if quote else ""
        verdict = f"<b>{html.escape(verdict)}</b>" if stressed else html.escape(verdict)
        rows.append(f"<tr>{cell(html.escape(check) + said)}{cell(html.escape(paper))}{cell(html.escape(measured))}"
                    f"{cell(verdict)}</tr>")  # fmt: skip
    drawing = (
        f'<img src="data:image/png;base64,{base64.b64encode(image).decode()}" alt="{html.escape(title)}">'
        if image
        else ""
    )
    return (
        f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>'
        "body{font-family:sans-serif;font-size:14px;margin:12px} img{max-width:100%} table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 6px;vertical-align:top;text-align:left} q{color:#555}"
        f"</style></head><body><h3>{html.escape(title)}</h3>"
        + "".join(f"<p>{html.escape(line)}</p>" for line in lines)
        + "<table><tr><th>check (the paper's words)</th><th>the paper</th><th>measured</th><th>verdict</th></tr>"
        + "".join(rows)
        + f"</table>{drawing}</body></html>"
    )


def curve_points(curves: pd.DataFrame, by: list[str] = ()) -> pd.DataFrame:
    """The curves' finite values as metric points, curve after curve: columns ``by``, step, key, value (``step``:
    samples seen; columns ``by`` tell the runs apart in a frame of several runs' curves)."""
    points = curves.melt(id_vars=[*by, "step"], var_name="key", value_name="value")
    points["value"] = pd.to_numeric(points["value"], errors="coerce")
    points["step"] = pd.to_numeric(points["step"], errors="coerce")
    return points[np.isfinite(points["value"]) & points["step"].notna()]
