"""A damaged cache: a parsed ``.npz`` with flipped bytes or cut short, a raw file cut short under an intact ``.npz``,
and both at once. Each is named, and repaired by parsing again or fetching again, by ``load``, ``fetch`` and
``verify``, never a bare zipfile traceback."""

import hashlib

import numpy as np
import pytest
import yaml

from experiments.data import catalog
from experiments.data.__main__ import main
from experiments.data.fetch import load

TABLE = b"1,2,3\n4,5,6\n7,8,9\n"


def parse_table(files):
    table = np.loadtxt(files["table.csv"], delimiter=",")
    return {"X": table[:, :2], "y": table[:, 2]}


@pytest.fixture
def toy(http_server, tmp_path, monkeypatch, data_home):
    """A catalog of one dataset, 'toy', whose pinned file is served on 127.0.0.1; fetched once. Its cache dir."""
    http_server.files["table.csv"] = TABLE
    directory = tmp_path / "catalog"
    directory.mkdir()
    monkeypatch.setattr(catalog, "CATALOG_DIR", directory)
    spec = {"url": f"{http_server.url}/table.csv", "sha256": hashlib.sha256(TABLE).hexdigest()}
    raw = {
        "name": "toy",
        "task": "regression",
        "shape": {"n_samples": 3, "n_features": 2},
        "sources": [{"kind": "http", "files": {"table.csv": spec}, "parse": f"{__name__}.parse_table"}],
        "prepare": "experiments.data.preprocess.prepare",
        "options": {"test_size": 0.0, "scale": False},
    }
    (directory / "toy.yaml").write_text(yaml.safe_dump(raw))
    assert main(["fetch", "toy"]) == 0
    assert len(http_server.requests) == 1
    return data_home / "toy"


def _npz(cache):
    (path,) = cache.glob("parsed-*.npz")
    return path


def flip(path, where):
    data = bytearray(path.read_bytes())
    start = {"start": 0, "middle": len(data) // 2, "end": len(data) - 8}[where]
    data[start : start + 8] = bytes(b ^ 0xFF for b in data[start : start + 8])
    path.write_bytes(bytes(data))


def truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


DAMAGES = {
    **{
        f"flipped at the {where}": (lambda path, where=where: flip(path, where)) for where in ("start", "middle", "end")
    },
    "truncated": truncate,
}


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("command", ["load", "fetch", "verify"])
def test_a_damaged_parsed_cache_is_named_and_parsed_again(toy, http_server, capsys, damage, command):
    npz = _npz(toy)
    good = npz.read_bytes()
    DAMAGES[damage](npz)
    capsys.readouterr()
    if command == "load":
        assert len(load("toy").y_train) == 3
    else:
        assert main([command, "toy"]) == 0
    out, err = capsys.readouterr()
    assert f"{npz}: unreadable parsed cache" in err and "parsing again" in err
    assert "Traceback" not in out + err
    assert npz.read_bytes() == good  # parsed again from the raw file, which needed no download
    assert len(http_server.requests) == 1


def test_a_truncated_raw_file_under_an_intact_parsed_cache_is_fetched_again(toy, http_server, capsys):
    raw = toy / "table.csv"
    truncate(raw)
    capsys.readouterr()
    assert main(["verify", "toy"]) == 1
    out = capsys.readouterr().out
    assert f"{raw}: mismatch" in out and "MISMATCH" in out and "`fetch` gets it again" in out

    assert main(["fetch", "toy"]) == 0
    err = capsys.readouterr().err
    assert f"{raw}: sha256" in err and "damaged or truncated" in err
    assert raw.read_bytes() == TABLE and len(http_server.requests) == 2
    assert main(["verify", "toy"]) == 0
    assert "MISMATCH" not in capsys.readouterr().out


def test_both_files_damaged_are_named_and_fetch_repairs_both(toy, http_server, capsys):
    raw, npz = toy / "table.csv", _npz(toy)
    good = npz.read_bytes()
    truncate(raw)
    flip(npz, "middle")
    capsys.readouterr()
    assert main(["verify", "toy"]) == 1  # no download: the damaged file is named, the dataset is not loaded
    out, err = capsys.readouterr()
    assert f"{raw}: mismatch" in out and f"{npz}: unreadable parsed cache" in err
    assert "Traceback" not in out + err

    assert main(["fetch", "toy"]) == 0
    assert raw.read_bytes() == TABLE and npz.read_bytes() == good
    assert len(http_server.requests) == 2
    assert main(["verify", "toy"]) == 0
