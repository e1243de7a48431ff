"""python -m experiments.data list|fetch|verify [NAME ...] [--paper P]: the catalog from the command line (every
dataset when no name is given; a derived dataset such as dna61_120 reads, and fetches, its parent's files)."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from experiments.config import OneLineParser, unknown_name
from experiments.data import catalog
from experiments.data.catalog import Entry
from experiments.data.download import sha256_file
from experiments.data.fetch import DatasetUnavailable, load, parsed
from experiments.data.sources import expected_hash


def shape_of(dataset) -> dict:
    """The catalog's shape fields measured on a loaded Dataset (with the catalog's default options)."""
    shape = {"n_features": dataset.n_features}
    if dataset.metadata.get("predefined_split"):
        shape |= {"n_train": len(dataset.y_train), "n_test": len(dataset.y_test)}
    else:
        shape["n_samples"] = len(dataset.y_train) + len(dataset.y_test)
    if dataset.task == "classification":
        shape["n_classes"] = len(dataset.classes)
    return shape


UNPINNED = "not yet pinned"  # a file placed by hand whose hash neither the catalog nor a first download recorded


def _cached_files(entry: Entry) -> list[tuple[Path, str]]:
    """(path, state) for every file of the entry's sources that is in the cache (a derived entry's are its
    parent's)."""
    owner = catalog.entry(entry.derived_from) if entry.derived_from else entry
    rows, seen = [], set()
    for source in owner.sources:
        for spec in source.files:
            path = owner.manual_dir / spec.name
            if path.exists() and spec.name not in seen:  # mirrors of one file share its name
                seen.add(spec.name)
                expected = expected_hash(path, spec)
                actual = sha256_file(path)
                if expected is None:
                    state = f"{UNPINNED} (sha256 {actual})"
                else:
                    state = "ok" if actual == expected else "mismatch"
                    state += ", pinned" if spec.sha256 else ", unpinned (hash recorded at first download)"
                rows.append((path, state))
    return rows


def _selected(args) -> list[Entry]:
    if args.names:
        return [catalog.entry(n) for n in args.names]
    return catalog.entries(args.paper)


def cmd_list(args) -> int:
    rows = []
    for entry in _selected(args):
        if entry.synthetic:
            cached = "generated"
        else:
            parsed_files = list(entry.manual_dir.glob("parsed-*.npz"))
            files = _cached_files(entry)
            cached = f"{len(files)} file(s)" + (", parsed" if parsed_files else "") if files or parsed_files else "-"
        shape = ", ".join(f"{k}={v}" for k, v in entry.shape.items())
        rows.append((entry.name, entry.task, " ".join(entry.papers), shape, cached))
    table = pd.DataFrame(rows, columns=["dataset", "task", "papers", "shape", "cached"])
    print(table.to_markdown(index=False))
    print(f"\ncache: {catalog.data_home()}")
    return 0


def cmd_fetch(args) -> int:
    failed = 0
    for entry in _selected(args):
        if entry.synthetic:
            continue
        try:
            found = parsed(entry.name, check_files=True)  # a damaged or truncated file is fetched again
        except DatasetUnavailable as error:
            print(error, file=sys.stderr)
            failed += 1
            continue
        files = f" ({entry.derived_from}'s files)" if entry.derived_from else ""
        print(f"{entry.name}{files}: {found.source.describe()} -> {found.path}")
    return 1 if failed else 0


def cmd_verify(args) -> int:
    rows, failed = [], 0
    selected = [entry for entry in _selected(args) if not entry.synthetic]
    states = {entry.name: _cached_files(entry) for entry in selected}  # before a load records an unpinned hash
    for entry in selected:
        files = states[entry.name]
        unpinned = [f"{path}: {state}" for path, state in files if state.startswith(UNPINNED)]
        bad = [f"{path}: {state}" for path, state in files if state.startswith("mismatch")]
        if bad:
            bad.append("a mismatch is a damaged or truncated file: `fetch` gets it again")
        if unpinned:
            owner = entry.derived_from or entry.name
            unpinned.append(
                f"this check records their sha256 (as `python -m experiments.data fetch {owner}` does) and compares"
                f" them from now on; to pin them for everyone, write them as the files' sha256 in datasets/{owner}.yaml"
            )
        try:
            measured = shape_of(load(entry.name, download=False))
        except DatasetUnavailable:
            rows.append((entry.name, "not cached", "", "; ".join(bad + unpinned)))
            failed += bool(bad)
            continue
        differs = {k: (v, measured.get(k)) for k, v in entry.shape.items() if measured.get(k) != v}
        verdict = "MISMATCH" if differs or bad else (UNPINNED if unpinned else "ok")
        failed += verdict == "MISMATCH"
        shape = ", ".join(f"{k}={v}" for k, v in measured.items())
        detail = "; ".join(bad + unpinned + [f"{k}: catalog {a}, loaded {b}" for k, (a, b) in differs.items()])
        rows.append((entry.name, verdict, shape, detail or (f"{len(files)} file(s) checked" if files else "parsed")))
    print(pd.DataFrame(rows, columns=["dataset", "verdict", "loaded shape", "detail"]).to_markdown(index=False))
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m experiments.data", description=__doc__)
    parser.add_argument("command", choices=["list", "fetch", "verify"])
    parser.add_argument("names", nargs="*", help="catalog names: datasets/<name>.yaml (default: all, or --paper's)")
    parser.add_argument("--paper", choices=["lrt14", "mgs17", "mgs20", "amf", "bsp"], help="only this paper's")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in catalog.names()]
    if unknown:
        parser.error(unknown_name("dataset", unknown[0], catalog.names()))
    return {"list": cmd_list, "fetch": cmd_fetch, "verify": cmd_verify}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
