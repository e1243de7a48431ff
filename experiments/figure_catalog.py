"""The figures as the harness knows them before any run: their ids, the papers they come from, in the report's order,
and what each figure's config says of it (checked against experiments.figure_schema): its profiles, classification,
records and explanations. The bottom of the harness: it reads config files only, so that what runs, reads or shows
figures (reproduce, regenerate, tracking, the report, the UI's store) knows them from one place without importing each
other."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from omegaconf import DictConfig

from experiments.config import CONF_DIR, config_file
from experiments.figure_schema import FigureSpec, validated

# The profile a figure runs at when none of its paper profile's datasets can be had: the same settings on what any
# machine has (copies reachable offline, or real data of the same kind standing in for the paper's).
FALLBACK_PROFILE = "offline"

PAPERS = {
    "lrt14": "LRT14: Lakshminarayanan, Roy, Teh, *Mondrian forests: efficient online random forests* (NeurIPS 2014)",
    "mgs17": "MGS17: Mourtada, Gaïffas, Scornet, *Universal consistency and minimax rates for online Mondrian "
    "forests* (NeurIPS 2017)",
    "mgs20": "MGS20: Mourtada, Gaïffas, Scornet, *Minimax optimal rates for Mondrian trees and forests* (Annals of "
    "Statistics 2020)",
    "amf": "AMF: Mourtada, Gaïffas, Scornet, *AMF: aggregated Mondrian forests for online learning* (JRSS-B 2021)",
    "bsp": "BSP: Fan, Li, Sisson, *Online binary space partitioning forests* (AISTATS 2020)",
    "lrt16": "Beyond the papers, LRT16: Lakshminarayanan, Roy, Teh, *Mondrian forests for large-scale regression when "
    "uncertainty matters* (AISTATS 2016)",
    "cku23": "Beyond the papers, CKU23: Cattaneo, Klusowski, Underwood, *Inference with Mondrian random forests* "
    "(2023)",
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


def figure_ids() -> list[str]:
    """Every registered figure and table id (one config per id in conf/figure)."""
    return sorted(path.stem for path in (CONF_DIR / "figure").glob("*.yaml"))


def figure_spec(figure_id: str) -> FigureSpec:
    """The figure's config file as written, checked against the schema (FigureConfigError naming each bad key)."""
    path = CONF_DIR / "figure" / f"{figure_id}.yaml"
    return validated(config_file(path), path.name)


def profile_settings(cfg: DictConfig) -> DictConfig:
    """The settings of a composed config's profile (``cfg.profile``) in its figure's config."""
    figure = cfg.figure
    if cfg.profile not in figure.profiles:
        raise ValueError(f"figure {figure.id} has no profile {cfg.profile!r}; it has {list(figure.profiles)}")
    return figure.profiles[cfg.profile]


def other_data(figure_id: str, profile: str) -> str:
    """What a profile runs on in place of the paper's data, as its ``other_data`` says ("" when it runs the paper's
    data or copies of them)."""
    settings = figure_spec(figure_id).profiles.get(profile)
    return settings.other_data.strip() if settings else ""


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


def records(figure_id: str) -> dict[str, list[dict] | None]:
    """The figure config's lists of RECORD_KINDS (None for a list it does not have), each entry a mapping of its
    kind's fields."""
    spec = figure_spec(figure_id)
    listed = {kind.key: getattr(spec, kind.key) for kind in RECORD_KINDS}
    return {key: None if entries is None else list(map(dataclasses.asdict, entries)) for key, entries in listed.items()}


def explanations(figure_id: str) -> dict[str, str]:
    """claim key -> why it holds or does not (a template: experiments.explanations), as the figure config records it
    (``explanations``)."""
    return figure_spec(figure_id).explanations


def classification(figure_id: str) -> tuple[str, str]:
    """The id's category (one of experiments.figure_schema.CATEGORIES) and subject (what it reproduces, checks, probes
    or draws), as its config names them."""
    spec = figure_spec(figure_id)
    return spec.category, " ".join(spec.subject.split())
