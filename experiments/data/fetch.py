"""Loading a catalog dataset by name: the first source that works, parsed once into a cached ``.npz`` keyed by the
checksums of its files, then prepared (split, scaling, ...) into a Dataset. Fails loudly, never substitutes."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from experiments.data.catalog import Entry, Source, entry
from experiments.data.dataset import Dataset
from experiments.data.sources import SourceError, check_cached, expected_hash, obtain_files, openml_frame
from experiments.locks import locked

# Bump when a parser's output changes, so that parsed caches written by older code are not used.
PARSED_FORMAT = 1


class DatasetUnavailable(RuntimeError):
    """No source of a catalog dataset could provide it."""

    def __init__(self, dataset: Entry, attempts: list[tuple[str, str]]):
        self.dataset = dataset.name
        self.attempts = attempts
        tried = "\n".join(f"  - {where}: {why}" for where, why in attempts)
        by_hand = by_hand_files(dataset)
        if by_hand:
            by_hand = f"\nTo provide it by hand, put {by_hand} into {dataset.manual_dir}/ (checked like a download)."
        files = f" (it reads {dataset.derived_from}'s files)" if dataset.derived_from else ""
        super().__init__(f"dataset {dataset.name!r}{files} cannot be had; sources tried in order:\n{tried}{by_hand}")


def by_hand_files(dataset: Entry) -> str:
    """The files that provide a dataset by hand ("" if none do): its sources' (mirrors of one file share its name),
    as alternatives ("one of: ...") when its sources read different files."""
    choices = list(dict.fromkeys(tuple(sorted(f.name for f in s.files)) for s in dataset.sources if s.files))
    if len(choices) <= 1:
        return ", ".join(choices[0]) if choices else ""
    return "one of: " + "; ".join(" + ".join(names) for names in choices)


def _function(dotted: str):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _parsed_key(dataset: Entry, source: Source, hashes: dict[str, str] | None) -> str:
    identity = {
        "format": PARSED_FORMAT,
        "dataset": dataset.name,
        "parse": source.parse,
        "parse_args": source.parse_args,
        "files": hashes,
        "openml": source.data_id,
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:20]


def _known_hashes(dataset: Entry, source: Source) -> dict[str, str] | None:
    """The files' hashes without reading them (pinned or recorded), or None if some are not known yet."""
    hashes = {f.name: expected_hash(dataset.manual_dir / f.name, f) for f in source.files}
    return None if None in hashes.values() else hashes


def _save(path: Path, arrays: dict[str, np.ndarray]) -> None:
    for name, array in arrays.items():
        if np.asarray(array).dtype == object:
            raise TypeError(f"parsed array {name!r} has dtype object; store numbers or fixed-width strings")
    part = path.with_name(path.name + ".part.npz")
    np.savez(part, **arrays)
    os.replace(part, path)


def _load_parsed(path: Path) -> dict[str, np.ndarray] | None:
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as stored:
            return {name: stored[name] for name in stored.files}
    except Exception as error:  # a damaged zip raises BadZipFile, ValueError, KeyError, MemoryError...
        print(f"{path}: unreadable parsed cache ({type(error).__name__}: {error}); parsing again", file=sys.stderr)
        path.unlink(missing_ok=True)
        return None


@dataclass(frozen=True)
class Parsed:
    arrays: dict[str, np.ndarray]
    source: Source
    files: dict[str, str]  # file name -> sha256 (empty for OpenML)
    path: Path


def _from_cache(dataset: Entry, source: Source) -> Parsed | None:
    hashes = {} if source.kind == "openml" else _known_hashes(dataset, source)
    if hashes is None:
        return None
    path = dataset.manual_dir / f"parsed-{_parsed_key(dataset, source, hashes)}.npz"
    arrays = _load_parsed(path)
    return None if arrays is None else Parsed(arrays, source, hashes, path)


def _discard_damaged_files(dataset: Entry, source: Source) -> bool:
    """Check the source's files that are in the cache against their sha256, deleting those that differ (each named
    on stderr); whether any was deleted."""
    damaged = False
    for spec in source.files:
        path = dataset.manual_dir / spec.name
        damaged |= path.exists() and check_cached(path, spec) is None
    return damaged


def _parse_source(dataset: Entry, source: Source, download: bool, check_files: bool = False) -> Parsed:
    if check_files and source.kind != "openml" and _discard_damaged_files(dataset, source):
        with locked(dataset.manual_dir / ".lock"):
            obtain_files(dataset, source, download)  # fetched again; the parsed cache is keyed by the good hashes
    found = _from_cache(dataset, source)
    if found is not None:
        return found
    with locked(dataset.manual_dir / ".lock"):  # one process at a time fetches and parses a dataset
        found = _from_cache(dataset, source)  # another process may have parsed it while this one waited
        if found is not None:
            return found
        parse = _function(source.parse)
        if source.kind == "openml":
            if not download:
                raise SourceError("not in the cache (OpenML is not asked when downloads are off)")
            hashes, arrays = {}, parse(openml_frame(source), **source.parse_args)
        else:
            files = obtain_files(dataset, source, download)
            hashes = {name: digest for name, (_, digest) in files.items()}
            arrays = parse({name: path for name, (path, _) in files.items()}, **source.parse_args)
        path = dataset.manual_dir / f"parsed-{_parsed_key(dataset, source, hashes)}.npz"
        _save(path, arrays)
    return Parsed(arrays, source, hashes, path)


def parsed(name: str, download: bool = True, check_files: bool = False) -> Parsed:
    """The parsed arrays of a real dataset from its first source that works (only from the cache and installed
    distributions when ``download`` is False). With ``check_files`` the source's files in the cache are checked
    against their sha256 even when the parsed cache is there, and a damaged one is fetched again."""
    dataset = entry(name)
    if dataset.synthetic:
        raise ValueError(f"{name} is synthetic: it is generated, not fetched")
    files = entry(dataset.derived_from) if dataset.derived_from else dataset  # a derived dataset parses its parent's
    attempts = []
    for source in files.sources:
        try:
            return _parse_source(files, source, download, check_files)
        except SourceError as error:
            attempts.append((source.describe(), str(error)))
    raise DatasetUnavailable(dataset, attempts)


def available_here(name: str) -> bool:
    """Whether a catalog dataset can be had without the network: generated, or its files in the cache or in an
    installed distribution."""
    if entry(name).synthetic:
        return True
    try:
        parsed(name, download=False)
    except DatasetUnavailable:
        return False
    return True


def load(name: str, download: bool = True, **options) -> Dataset:
    """A catalog dataset as a Dataset; ``options`` override the catalog's defaults (split, scaling, seed, ...)."""
    dataset = entry(name)
    settings = {**dataset.options, **options}
    if dataset.synthetic:
        return _function(dataset.generator)(**settings)
    found = parsed(name, download)
    result = _function(dataset.prepare)(dataset, found.arrays, **settings)
    result.metadata.update(source=found.source.describe(), files=found.files)
    return result
