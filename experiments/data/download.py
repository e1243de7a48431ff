"""HTTP(S) downloads that resume, retry, show progress, verify sha256 and never leave a partial file in place; a host
that cannot be resolved fails at once (no network, or a mistyped name: waiting would not help)."""

from __future__ import annotations

import hashlib
import http.client
import os
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from experiments.progress import progress

USER_AGENT = "mondrian-forests-datasets/0.1 (+https://github.com/)"
CHUNK = 1 << 20


class DownloadError(RuntimeError):
    """A file could not be had from one source (the message says why)."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()


def unresolved_host(url: str, error: socket.gaierror) -> str:
    """Why ``url`` cannot be had when its host cannot be resolved, in one line."""
    reason = error.strerror or str(error)
    return f"{url}: host {urlsplit(url).hostname} cannot be resolved ({reason}): offline, or a wrong name"


def unresolvable(url: str) -> str | None:
    """``unresolved_host``'s line if the host of ``url`` cannot be resolved now, else None."""
    try:
        socket.getaddrinfo(urlsplit(url).hostname, None)
    except socket.gaierror as error:
        return unresolved_host(url, error)
    return None


def _request(url: str, offset: int, timeout: float):
    headers = {"User-Agent": USER_AGENT}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    return urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout)


def _transfer(url: str, part: Path, timeout: float) -> None:
    """Append the rest of ``url`` to ``part`` (resuming where it stops); raise if the body ends early."""
    offset = part.stat().st_size if part.exists() else 0
    try:
        response = _request(url, offset, timeout)
    except urllib.error.HTTPError as error:
        if error.code == 416 and offset:  # the range starts at the end: the partial file is already whole
            return
        raise
    with response:
        resumed = offset > 0 and response.status == 206
        if not resumed:
            offset = 0
        length = response.headers.get("Content-Length")
        total = offset + int(length) if length is not None else None
        with (
            open(part, "ab" if resumed else "wb") as out,
            progress(total=total, initial=offset, unit="B", unit_scale=True, desc=part.name[:-5], leave=False) as bar,
        ):
            while block := response.read(CHUNK):
                out.write(block)
                bar.update(len(block))
    if total is not None and part.stat().st_size != total:
        raise http.client.IncompleteRead(b"", total - part.stat().st_size)


def download(
    url: str,
    dest: Path,
    sha256: str | None = None,
    retries: int = 4,
    timeout: float = 60.0,
    backoff: float = 1.0,
) -> str:
    """Fetch ``url`` into ``dest`` atomically and return its sha256.

    The body goes to ``dest.part``; a dropped connection is resumed with an HTTP Range request (or started again
    when the server ignores ranges). Only a complete file whose sha256 matches (when one is given) is renamed to
    ``dest``; a mismatch discards the partial file and tries again from scratch, up to ``retries`` attempts. After
    transient failures the partial file stays, so that the next call resumes it. A host that cannot be resolved, and
    HTTP 403, 404 and 410, are not tried again.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    reasons = []
    for attempt in range(retries):
        if attempt:
            time.sleep(backoff * 2 ** (attempt - 1))
        try:
            _transfer(url, part, timeout)
        except (OSError, http.client.HTTPException) as error:  # URLError, timeouts and resets are OSErrors
            if isinstance(error, urllib.error.HTTPError) and error.code in (403, 404, 410):
                part.unlink(missing_ok=True)
                raise DownloadError(f"{url}: HTTP {error.code} {error.reason}") from error
            unresolved = error if isinstance(error, socket.gaierror) else getattr(error, "reason", None)  # URLError's
            if isinstance(unresolved, socket.gaierror):
                raise DownloadError(unresolved_host(url, unresolved)) from error
            reasons.append(f"{type(error).__name__}: {error}")
            continue
        digest = sha256_file(part)
        if sha256 is not None and digest != sha256:
            part.unlink()
            reasons.append(f"sha256 {digest[:12]}... is not the expected {sha256[:12]}...")
            continue
        os.replace(part, dest)
        return digest
    raise DownloadError(f"{url}: {retries} attempts failed ({'; '.join(reasons)})")
