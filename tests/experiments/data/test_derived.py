"""Derived datasets (``derived_from`` in the catalog: dna61_120 of dna) read their parent's files: one copy on disk,
one folder to put them in by hand, and fetching the derived dataset fetches the parent's."""

from collections import defaultdict

import numpy as np
import pytest

from experiments.data import catalog
from experiments.data.__main__ import main
from experiments.data.fetch import DatasetUnavailable, load
from tests.experiments.data.test_libsvm import make_files


def test_files_put_by_hand_into_the_parents_folder_load_the_derived_dataset(data_home):
    """The LIBSVM files of dna placed by hand into <cache>/dna/ (no server, no download): dna61_120 loads from them,
    as attributes 61-120 of dna, and writes nothing into a folder of its own."""
    files, _ = make_files("dna")
    (data_home / "dna").mkdir(parents=True)
    for name, body in files.items():
        (data_home / "dna" / name).write_bytes(body)
    dagger = load("dna61_120", download=False, fit_scaler_on="all")
    dna = load("dna", download=False, fit_scaler_on="all")
    np.testing.assert_array_equal(dagger.X_train, dna.X_train[:, 60:120])
    np.testing.assert_array_equal(dagger.X_test, dna.X_test[:, 60:120])
    assert dagger.name == "dna61_120" and dagger.n_features == 60 and dagger.feature_names[0] == "x61"
    assert sorted(p.name for p in data_home.iterdir()) == ["dna"]  # no dna61_120 folder, no second copy
    assert len(list((data_home / "dna").glob("parsed-*.npz"))) == 1  # parsed once for both


def test_a_missing_derived_dataset_says_where_its_parents_files_go(data_home):
    with pytest.raises(DatasetUnavailable) as error:
        load("dna61_120", download=False)
    message = str(error.value)
    assert "dataset 'dna61_120' (it reads dna's files) cannot be had" in message
    assert f"put dna.scale.t, dna.scale.tr, dna.scale.val into {data_home / 'dna'}/" in message


def test_fetching_a_derived_dataset_fetches_its_parent(local_catalog, http_server, data_home, capsys):
    files, _ = make_files("dna")
    local_catalog("dna61_120", files)  # serves dna's files, as the real dna entry names them
    assert main(["fetch", "dna61_120"]) == 0
    assert "dna61_120 (dna's files): http" in capsys.readouterr().out
    assert sorted(path for path, _ in http_server.requests) == [
        "dna/dna.scale.t",
        "dna/dna.scale.tr",
        "dna/dna.scale.val",
    ]
    assert sorted(p.name for p in (data_home / "dna").iterdir() if not p.name.startswith(".")) == [
        "dna.scale.t", "dna.scale.tr", "dna.scale.val", *sorted(p.name for p in (data_home / "dna").glob("parsed-*"))
    ]  # fmt: skip
    assert main(["fetch", "dna"]) == 0  # the parent is there already: nothing fetched again
    assert len(http_server.requests) == 3


def test_the_catalog_keeps_one_entry_per_file():
    """No two entries of the real catalog name the same file of the same source: a dataset prepared from another's
    files is derived from it (derived_from), and every derived entry has a parent with files of its own."""
    owners = defaultdict(set)
    for entry in catalog.entries():
        if entry.derived_from is not None:
            parent = catalog.entry(entry.derived_from)
            assert parent.sources and parent.derived_from is None and entry.sources == parent.sources
            assert entry.manual_dir == parent.manual_dir
            continue
        for source in entry.sources:
            for spec in source.files:
                owners[(spec.url or spec.path, source.distribution)].add(entry.name)
    shared = {file: names for file, names in owners.items() if len(names) > 1}
    assert not shared, f"entries sharing files (make one derived from the other): {shared}"
    assert catalog.entry("dna61_120").derived_from == "dna"


def test_a_derived_entry_has_no_sources_of_its_own():
    raw = {"name": "x", "task": "classification", "derived_from": "dna", "prepare": "p", "sources": [{"kind": "openml",
           "data_id": 1, "parse": "p"}]}  # fmt: skip
    with pytest.raises(ValueError, match="derived dataset has a prepare and its parent's sources, none of its own"):
        catalog.parse_entry(raw)
