"""The LIBSVM multiclass datasets (LRT14, MGS17, BSP): small files in the real format served by a local server and
loaded through the real catalog entries, parser, cache and preparation."""

import bz2

import numpy as np
import pytest
import yaml

from experiments.config import compose
from experiments.data import catalog, load_dataset
from experiments.data.__main__ import main
from experiments.data.download import sha256_file
from experiments.data.fetch import DatasetUnavailable, load
from experiments.data.libsvm import parse

# name -> (n_features, label set in the files, {part: {file: rows}}), as the brief and LRT14's Fig. 3 describe them.
SPECS = {
    "usps": (256, list(range(1, 11)), {"train": {"usps.bz2": 30}, "test": {"usps.t.bz2": 20}}),
    "satimage": (
        36,
        [1, 2, 3, 4, 5, 6],
        {"train": {"satimage.scale.tr": 24}, "val": {"satimage.scale.val": 12}, "test": {"satimage.scale.t": 18}},
    ),
    "letter": (
        16,
        list(range(1, 27)),
        {"train": {"letter.scale.tr": 30, "letter.scale.val": 26}, "test": {"letter.scale.t": 20}},
    ),
    "dna": (180, [1, 2, 3], {"train": {"dna.scale.tr": 30}, "val": {"dna.scale.val": 12}, "test": {"dna.scale.t": 18}}),
}
SPECS["dna61_120"] = SPECS["dna"]
MISSING_IN_TEST = 4  # a label absent from every test file: the codes of the labels after it must not shift


def libsvm_text(X: np.ndarray, labels: np.ndarray) -> bytes:
    """LIBSVM's sparse format: zeros omitted, so a row whose last features are 0 stops early."""
    lines = []
    for row, label in zip(X, labels, strict=True):
        items = [f"{j + 1}:{float(v)!r}" for j, v in enumerate(row) if v != 0]
        lines.append(" ".join([str(int(label)), *items]))
    return ("\n".join(lines) + "\n").encode()


def make_files(name: str, seed: int = 0) -> tuple[dict[str, bytes], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Files for a catalog entry and the arrays they hold: part -> (X, raw labels), rows in the files' order.

    Training labels cycle through every class; test files lack label MISSING_IN_TEST and reach beyond the
    training range in the first feature; dna's test file never mentions its last 5 features."""
    n_features, labels, parts = SPECS[name]
    rng = np.random.default_rng(seed)
    files, expected = {}, {}
    for part, part_files in parts.items():
        Xs, ys = [], []
        for file_name, rows in part_files.items():
            if name.startswith("dna"):
                X = rng.integers(0, 2, size=(rows, n_features)).astype(np.float64)
            else:
                X = rng.choice([-0.5, -0.25, 0.0, 0.0, 0.25, 0.5], size=(rows, n_features))
            pool = [label for label in labels if part != "test" or label != MISSING_IN_TEST]
            y = np.resize(pool, rows)
            if part == "test":
                X[0, 0], X[1, 0] = -1.0, 1.0
                if name.startswith("dna"):
                    X[:, -5:] = 0.0
            body = libsvm_text(X, y)
            files[file_name] = bz2.compress(body) if file_name.endswith(".bz2") else body
            Xs.append(X)
            ys.append(y)
        expected[part] = (np.vstack(Xs), np.concatenate(ys))
    return files, expected


def codes(name: str, raw: np.ndarray) -> np.ndarray:
    return np.array([SPECS[name][1].index(label) for label in raw])


@pytest.mark.parametrize("name", list(SPECS))
def test_each_dataset_loads_with_its_features_classes_and_label_codes(name, local_catalog):
    n_features, labels, _ = SPECS[name]
    files, expected = make_files(name)
    local_catalog(name, files)
    data = load(name, scale=False)
    columns = slice(60, 120) if name == "dna61_120" else slice(None)
    X_train, raw_train = expected["train"]
    X_test, raw_test = expected["test"]
    np.testing.assert_array_equal(data.X_train, X_train[:, columns])
    np.testing.assert_array_equal(data.X_test, X_test[:, columns])
    np.testing.assert_array_equal(data.y_train, codes(name, raw_train))
    np.testing.assert_array_equal(data.y_test, codes(name, raw_test))
    assert data.n_features == (60 if name == "dna61_120" else n_features)
    assert sorted(np.unique(data.y_train)) == list(range(len(labels)))
    assert data.feature_names[0] == ("x61" if name == "dna61_120" else "x1")
    assert data.metadata["predefined_split"] and data.y_train.dtype == np.int64


def test_a_class_missing_from_the_test_file_shifts_no_label(local_catalog):
    files, _ = make_files("satimage")
    local_catalog("satimage", files)
    data = load("satimage")
    assert set(data.y_test) == {0, 1, 2, 4, 5}  # label 4 absent: label 5 is still class 4, label 6 class 5
    assert set(data.y_train) == set(range(6))


def test_letter_trains_on_tr_followed_by_val(local_catalog, tmp_path):
    files, _ = make_files("letter")
    local_catalog("letter", files)
    data = load("letter", scale=False)
    tr_file = tmp_path / "tr"
    tr_file.write_bytes(files["letter.scale.tr"])
    tr = parse({"f": tr_file}, n_features=16, labels=SPECS["letter"][1], parts=_parts("f"))
    assert len(data.y_train) == 30 + 26 and len(data.y_test) == 20
    np.testing.assert_array_equal(data.X_train[:30], tr["X_train"])
    np.testing.assert_array_equal(data.y_train[:30], tr["y_train"])


def test_dna61_120_is_columns_60_to_120_of_dna(local_catalog):
    files, _ = make_files("dna")
    local_catalog("dna", files)
    dna = load("dna", fit_scaler_on="all")
    local_catalog("dna61_120", files)
    dagger = load("dna61_120", fit_scaler_on="all")
    np.testing.assert_array_equal(dagger.X_train, dna.X_train[:, 60:120])
    np.testing.assert_array_equal(dagger.X_test, dna.X_test[:, 60:120])
    assert dagger.feature_names == dna.feature_names[60:120]


def test_dna_rows_lacking_trailing_features_keep_180_columns(local_catalog):
    files, _ = make_files("dna")
    assert b"180:" not in files["dna.scale.t"] and b"176:" not in files["dna.scale.t"]
    local_catalog("dna", files)
    data = load("dna", scale=False)
    assert data.X_test.shape == (18, 180) and not data.X_test[:, -5:].any()


def test_scaler_fitted_on_train_or_on_train_and_test(local_catalog):
    files, expected = make_files("satimage")
    local_catalog("satimage", files)
    on_train = load("satimage")  # the catalog's default
    on_all = load("satimage", fit_scaler_on="all")
    assert on_train.metadata["fit_scaler_on"] == "train" and on_all.metadata["fit_scaler_on"] == "all"
    X_train, X_test = expected["train"][0], expected["test"][0]
    low, high = X_train.min(axis=0), X_train.max(axis=0)
    np.testing.assert_allclose(on_train.X_train, (X_train - low) / (high - low))
    np.testing.assert_allclose(on_train.X_test, (X_test - low) / (high - low))
    assert on_train.X_test[:, 0].min() < 0 and on_train.X_test[:, 0].max() > 1  # test reaches beyond train
    both = np.vstack([on_all.X_train, on_all.X_test])
    np.testing.assert_allclose(both.min(axis=0), 0.0)
    np.testing.assert_allclose(both.max(axis=0), 1.0)
    assert on_all.X_train[:, 0].min() > 0  # train's own minimum is not 0 once test widens the range


@pytest.mark.parametrize(("name", "pooled"), [("usps", 30), ("satimage", 36), ("letter", 56), ("dna", 42)])
def test_bsp_pca4_configs_split_the_training_file_fit_pca_on_train_and_rescale_to_the_unit_cube(
    name, pooled, local_catalog
):
    from sklearn.decomposition import PCA

    files, _ = make_files(name)
    local_catalog(name, files)
    cfg = compose([f"dataset={name}_pca4", "seed=1"])
    data = load_dataset(cfg.dataset)
    assert data.n_features == 4 and data.feature_names == ("pc1", "pc2", "pc3", "pc4")
    assert len(data.y_train) + len(data.y_test) == pooled and len(data.y_test) == pooled // 2
    assert not data.metadata["predefined_split"] and data.metadata["pool"] == list(cfg.dataset.load.pool)
    np.testing.assert_allclose(data.X_train.min(axis=0), 0.0, atol=1e-12)  # BSP's features in [0, 1]^d
    np.testing.assert_allclose(data.X_train.max(axis=0), 1.0)
    scaled = load(name, pool=list(cfg.dataset.load.pool), test_size=0.5, seed=1)
    model = PCA(n_components=4).fit(scaled.X_train)
    components, test_components = model.transform(scaled.X_train), model.transform(scaled.X_test)
    low, width = components.min(axis=0), np.ptp(components, axis=0)
    np.testing.assert_allclose(data.X_test, (test_components - low) / width, atol=1e-12)
    other = load_dataset(compose([f"dataset={name}_pca4", "seed=2"]).dataset)
    assert other.content_hash != data.content_hash


def test_corrupted_download_of_a_pinned_file_is_detected_and_fetched_again(local_catalog, http_server, data_home):
    files, _ = make_files("usps")
    local_catalog("usps", files, pin=True)
    http_server.faults["usps/usps.bz2"] = ["corrupt"]
    data = load("usps")
    assert [path for path, _ in http_server.requests].count("usps/usps.bz2") == 2
    assert (data_home / "usps" / "usps.bz2").read_bytes() == files["usps.bz2"]
    assert len(data.y_train) == 30


def test_unpinned_file_is_recorded_then_a_corrupted_cache_is_fetched_again(local_catalog, http_server, data_home):
    files, _ = make_files("dna")
    local_catalog("dna", files, pin=False)
    first = load("dna")
    cached = data_home / "dna" / "dna.scale.t"
    recorded = cached.with_name("dna.scale.t.sha256").read_text().strip()
    assert recorded == sha256_file(cached)
    body = bytearray(cached.read_bytes())
    body[0] ^= 0xFF  # same size, one byte flipped
    cached.write_bytes(bytes(body))
    for parsed in (data_home / "dna").glob("parsed-*.npz"):
        parsed.unlink()
    again = load("dna")
    assert [path for path, _ in http_server.requests].count("dna/dna.scale.t") == 2
    assert sha256_file(cached) == recorded and again.content_hash == first.content_hash


def test_unreachable_source_names_url_reason_and_manual_folder(local_catalog, http_server, data_home):
    files, _ = make_files("dna")
    local_catalog("dna", files)
    del http_server.files["dna/dna.scale.t"]
    with pytest.raises(DatasetUnavailable) as raised:
        load("dna")
    message = str(raised.value)
    assert f"{http_server.url}/dna/dna.scale.t: HTTP 404" in message
    assert str(data_home / "dna") in message and "dna.scale.val" in message


def test_parse_rejects_labels_and_indices_outside_the_catalog(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"1 1:0.5\n7 2:1\n")
    with pytest.raises(ValueError, match=r"labels \[7\.0\] are not in the catalog's label set"):
        parse({"f": path}, n_features=2, labels=[1, 2, 3, 4, 5, 6], parts=_parts("f"))
    with pytest.raises(ValueError, match="f: not a LIBSVM file with 1 features"):
        parse({"f": path}, n_features=1, labels=[1, 7], parts=_parts("f"))
    with pytest.raises(ValueError, match="repeated"):
        parse({"f": path}, n_features=2, labels=[1, 1.0], parts=_parts("f"))
    with pytest.raises(ValueError, match="parts must name train and test"):
        parse({"f": path}, n_features=2, labels=[1, 7], parts={"train": ["f"], "dev": ["f"]})


def test_pool_needs_existing_parts_and_a_test_size(local_catalog):
    files, _ = make_files("letter")
    local_catalog("letter", files)
    with pytest.raises(ValueError, match=r"letter has no part \['val'\] to pool; it has \['train', 'test'\]"):
        load("letter", pool=["train", "val"], test_size=0.5)
    with pytest.raises(ValueError, match="needs a test_size"):
        load("letter", pool=["train"])


def _parts(file_name: str) -> dict[str, list[str]]:
    return {"train": [file_name], "test": [file_name]}


def test_verify_labels_a_hand_placed_unpinned_file_not_yet_pinned_and_names_the_command(
    local_catalog, http_server, data_home, capsys
):
    """A file put into the cache by hand, whose catalog line has no sha256 and which no download recorded, is
    neither ok nor a mismatch: verify says it is not yet pinned (exit 0), gives its hash and the command that records
    it; the derived entry that reads the same files says the same; from then on it is checked (ok, unpinned)."""
    files, _ = make_files("dna")
    local_catalog("dna61_120", files, pin=False)
    for name, shape in (("dna", {"n_train": 30, "n_test": 18}), ("dna61_120", {"n_train": 30, "n_test": 18})):
        path = catalog.CATALOG_DIR / f"{name}.yaml"
        raw = yaml.safe_load(path.read_text())
        raw["shape"] |= shape  # the small files' shape: verify's shape check passes, only the hashes are in question
        path.write_text(yaml.safe_dump(raw))
    catalog._read.cache_clear()
    folder = data_home / "dna"
    folder.mkdir(parents=True)
    for name, body in files.items():
        (folder / name).write_bytes(body)
    capsys.readouterr()
    assert main(["verify", "dna", "dna61_120"]) == 0
    out = capsys.readouterr().out
    assert "MISMATCH" not in out and "mismatch" not in out
    for name in ("dna", "dna61_120"):
        line = next(row for row in out.splitlines() if row.startswith(f"| {name} "))
        assert "| not yet pinned " in line and "python -m experiments.data fetch dna`" in line
        assert "datasets/dna.yaml" in line
        assert sha256_file(folder / "dna.scale.t") in line
    assert http_server.requests == []
    assert main(["verify", "dna"]) == 0
    out = capsys.readouterr().out
    line = next(row for row in out.splitlines() if row.startswith("| dna "))
    assert "not yet pinned" not in out and line.split("|")[2].strip() == "ok"
