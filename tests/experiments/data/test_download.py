"""Downloads and the cache: resume, retries, checksums, atomic files, and one clear error when nothing works."""

import hashlib

import numpy as np
import pytest
import yaml

from experiments.data import catalog
from experiments.data.__main__ import main
from experiments.data.download import DownloadError, download
from experiments.data.fetch import DatasetUnavailable, load, parsed

BODY = bytes(range(256)) * 4096  # 1 MiB, several read chunks
DIGEST = hashlib.sha256(BODY).hexdigest()


def test_download_is_verified_and_atomic(http_server, tmp_path):
    http_server.files["f.bin"] = BODY
    dest = tmp_path / "cache" / "f.bin"
    assert download(f"{http_server.url}/f.bin", dest, DIGEST) == DIGEST
    assert dest.read_bytes() == BODY
    assert sorted(p.name for p in dest.parent.iterdir()) == ["f.bin"]


def test_dropped_connection_is_resumed_with_a_range_request(http_server, tmp_path):
    http_server.files["f.bin"] = BODY
    http_server.faults["f.bin"] = ["drop"]
    dest = tmp_path / "f.bin"
    download(f"{http_server.url}/f.bin", dest, DIGEST, backoff=0)
    assert dest.read_bytes() == BODY
    (_, no_range), (_, resumed) = http_server.requests
    assert no_range is None and resumed == f"bytes={len(BODY) // 2}-"
    assert not (tmp_path / "f.bin.part").exists()


def test_a_server_ignoring_ranges_restarts_from_scratch(http_server, tmp_path):
    http_server.files["f.bin"] = BODY
    http_server.faults["f.bin"] = ["drop", "ignore-range"]
    dest = tmp_path / "f.bin"
    download(f"{http_server.url}/f.bin", dest, DIGEST, backoff=0)
    assert dest.read_bytes() == BODY


def test_a_corrupted_body_is_discarded_and_fetched_again(http_server, tmp_path):
    http_server.files["f.bin"] = BODY
    http_server.faults["f.bin"] = ["corrupt", "500"]
    dest = tmp_path / "f.bin"
    download(f"{http_server.url}/f.bin", dest, DIGEST, backoff=0)
    assert dest.read_bytes() == BODY
    assert [r for _, r in http_server.requests] == [None, None, None]  # the corrupted file is not resumed


def test_persistent_failure_raises_and_leaves_no_file(http_server, tmp_path):
    http_server.files["f.bin"] = BODY
    http_server.faults["f.bin"] = ["corrupt"] * 3
    dest = tmp_path / "f.bin"
    with pytest.raises(DownloadError, match=r"3 attempts failed.*sha256"):
        download(f"{http_server.url}/f.bin", dest, DIGEST, retries=3, backoff=0)
    assert not dest.exists() and not (tmp_path / "f.bin.part").exists()
    with pytest.raises(DownloadError, match="HTTP 404"):
        download(f"{http_server.url}/missing.bin", dest, backoff=0)
    assert len(http_server.requests) == 4  # a 404 is not retried


def test_a_partial_file_left_by_an_interrupted_run_is_resumed(http_server, tmp_path):
    http_server.files["f.bin"] = BODY
    (tmp_path / "f.bin.part").write_bytes(BODY[:1000])
    download(f"{http_server.url}/f.bin", tmp_path / "f.bin", DIGEST)
    assert (tmp_path / "f.bin").read_bytes() == BODY
    assert http_server.requests == [("f.bin", "bytes=1000-")]


# A toy catalog entry: two http sources for one CSV table, to test the cache and the error in isolation.


def parse_table(files, column):
    table = np.loadtxt(files["table.csv"], delimiter=",")
    return {"X": table[:, :column], "y": table[:, column]}


def toy_entry(tmp_path, monkeypatch, server, pins):
    directory = tmp_path / "catalog"
    directory.mkdir(exist_ok=True)
    monkeypatch.setattr(catalog, "CATALOG_DIR", directory)
    sources = [
        {
            "kind": "http",
            "files": {"table.csv": {"url": f"{server.url}/{mirror}/table.csv", "sha256": pin}},
            "parse": f"{__name__}.parse_table",
            "parse_args": {"column": 2},
        }
        for mirror, pin in zip(["a", "b"], pins, strict=True)
    ]
    raw = {
        "name": "toy",
        "task": "regression",
        "shape": {"n_samples": 3, "n_features": 2},
        "sources": sources,
        "prepare": "experiments.data.preprocess.prepare",
        "options": {"test_size": 0.0, "scale": False},
    }
    (directory / "toy.yaml").write_text(yaml.safe_dump(raw))


TABLE = b"1,2,3\n4,5,6\n7,8,9\n"


def test_second_source_is_used_when_the_first_fails(http_server, tmp_path, monkeypatch, data_home):
    http_server.files["b/table.csv"] = TABLE
    toy_entry(tmp_path, monkeypatch, http_server, [hashlib.sha256(TABLE).hexdigest()] * 2)
    data = load("toy")
    np.testing.assert_array_equal(data.y_train, [3, 6, 9])
    assert data.metadata["source"].endswith("b/table.csv")
    assert data.metadata["files"] == {"table.csv": hashlib.sha256(TABLE).hexdigest()}


def test_cached_parse_is_used_without_the_network(http_server, tmp_path, monkeypatch, data_home):
    http_server.files["a/table.csv"] = TABLE
    toy_entry(tmp_path, monkeypatch, http_server, [hashlib.sha256(TABLE).hexdigest()] * 2)
    first = load("toy")
    http_server.files.clear()
    (data_home / "toy" / "table.csv").unlink()
    again = load("toy")
    assert again.content_hash == first.content_hash
    assert len(http_server.requests) == 1


def test_unpinned_file_hash_is_recorded_and_a_later_corruption_refetched(http_server, tmp_path, monkeypatch, data_home):
    http_server.files["a/table.csv"] = TABLE
    toy_entry(tmp_path, monkeypatch, http_server, [None, None])
    load("toy")
    cached = data_home / "toy" / "table.csv"
    assert (data_home / "toy" / "table.csv.sha256").read_text().strip() == hashlib.sha256(TABLE).hexdigest()
    cached.write_bytes(b"1,2,3\n")  # truncated on disk
    for stale in (data_home / "toy").glob("parsed-*.npz"):
        stale.unlink()
    data = load("toy")
    assert len(data.y_train) == 3 and cached.read_bytes() == TABLE
    assert len(http_server.requests) == 2


def test_no_source_raises_one_error_naming_every_attempt(http_server, tmp_path, monkeypatch, data_home):
    http_server.faults["b/table.csv"] = ["500"] * 4
    http_server.files["b/table.csv"] = TABLE
    monkeypatch.setattr("experiments.data.download.time.sleep", lambda s: None)
    toy_entry(tmp_path, monkeypatch, http_server, [None, None])
    with pytest.raises(DatasetUnavailable) as error:
        parsed("toy")
    message = str(error.value)
    assert "a/table.csv: HTTP 404" in message and "b/table.csv: 4 attempts failed (HTTPError: HTTP Error 500" in message
    assert f"put table.csv into {data_home / 'toy'}/" in message
    assert not list(data_home.rglob("table.csv"))


def test_downloads_off_use_only_the_cache(http_server, tmp_path, monkeypatch, data_home):
    http_server.files["a/table.csv"] = TABLE
    toy_entry(tmp_path, monkeypatch, http_server, [None, None])
    with pytest.raises(DatasetUnavailable, match="not in the cache"):
        load("toy", download=False)
    assert http_server.requests == []
    (data_home / "toy").mkdir(parents=True, exist_ok=True)
    (data_home / "toy" / "table.csv").write_bytes(TABLE)  # put there by hand
    assert len(load("toy", download=False).y_train) == 3


def test_command_line_lists_fetches_and_verifies(http_server, tmp_path, monkeypatch, data_home, capsys):
    http_server.files["a/table.csv"] = TABLE
    toy_entry(tmp_path, monkeypatch, http_server, [hashlib.sha256(TABLE).hexdigest(), None])
    assert main(["list"]) == 0
    assert "| toy " in capsys.readouterr().out
    assert main(["verify", "toy"]) == 0
    assert "not cached" in capsys.readouterr().out and http_server.requests == []

    assert main(["fetch", "toy"]) == 0
    assert "a/table.csv" in capsys.readouterr().out
    main(["list", "toy"])
    assert "1 file(s), parsed" in capsys.readouterr().out
    assert main(["verify", "toy"]) == 0
    out = capsys.readouterr().out
    assert "| ok " in out and "n_features=2, n_samples=3" in out

    (data_home / "toy" / "table.csv").write_bytes(b"9,9,9\n")
    assert main(["verify", "toy"]) == 1
    assert "table.csv: mismatch" in capsys.readouterr().out


def test_command_line_verify_reports_a_shape_differing_from_the_catalog(
    http_server, tmp_path, monkeypatch, data_home, capsys
):
    http_server.files["a/table.csv"] = b"1,2,3\n4,5,6\n"
    toy_entry(tmp_path, monkeypatch, http_server, [None, None])
    assert main(["fetch", "toy"]) == 0
    assert main(["verify", "toy"]) == 1
    assert "n_samples: catalog 3, loaded 2" in capsys.readouterr().out


def test_command_line_fetch_fails_with_the_sources_tried(http_server, tmp_path, monkeypatch, data_home, capsys):
    toy_entry(tmp_path, monkeypatch, http_server, [None, None])
    assert main(["fetch", "toy"]) == 1
    err = capsys.readouterr().err
    assert "dataset 'toy' cannot be had" in err and "a/table.csv: HTTP 404" in err and "b/table.csv: HTTP 404" in err


def test_an_unpinned_file_changed_on_the_server_is_refused(http_server, tmp_path, monkeypatch, data_home):
    http_server.files["a/table.csv"] = TABLE
    toy_entry(tmp_path, monkeypatch, http_server, [None, None])
    load("toy")
    (data_home / "toy" / "table.csv").write_bytes(b"0,0,0\n")  # corrupted on disk
    for stale in (data_home / "toy").glob("parsed-*.npz"):
        stale.unlink()
    http_server.files["a/table.csv"] = http_server.files["b/table.csv"] = b"1,1,1\n"  # and changed upstream
    monkeypatch.setattr("experiments.data.download.time.sleep", lambda s: None)
    with pytest.raises(DatasetUnavailable, match="is not the expected"):
        load("toy")
    assert (data_home / "toy" / "table.csv.sha256").read_text().strip() == hashlib.sha256(TABLE).hexdigest()
