"""The figures as the harness knows them before any run: the papers they come from, in the report's order, and what
each figure's config says of it. The bottom of the harness: it reads config files only, so that what reads or shows
runs (tracking, the report, the UI's store) can name and order figures without importing each other."""

from __future__ import annotations

import re
from pathlib import Path

from experiments.config import CONF_DIR

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


def evidence_experiment_ids(root: Path) -> dict[str, int]:
    """The experiment id of each figure in the committed evidence's own store (experiments.evidence_store numbers
    them from 1 in the report's order), which the committed report's links name: a run's page opens in the UI's
    machine-learning view only at its experiment's address."""
    ids = sorted({path.parent.name for path in Path(root).glob("*/*/figure.json")}, key=figure_order)
    return {figure_id: k for k, figure_id in enumerate(ids, start=1)}


def description(figure_id: str) -> str:
    """The figure config's leading comment: what the figure shows and with which settings."""
    lines = []
    for line in (CONF_DIR / "figure" / f"{figure_id}.yaml").read_text().splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# ").rstrip())
    return " ".join(lines)
