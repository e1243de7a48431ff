"""The command line's mistakes stop it at once: a host that cannot be resolved is not tried again."""

import pytest

from experiments.data import catalog, download
from experiments.data.download import DownloadError
from experiments.data.fetch import DatasetUnavailable
from experiments.data.sources import SourceError, openml_frame

UNRESOLVABLE = "nonexistent.invalid"  # .invalid never resolves (RFC 2606)


# -- a host that cannot be resolved ---------------------------------------------------------------------------------
@pytest.fixture
def offline(tmp_path, monkeypatch):
    """No proxy (it would answer for the host), an empty data cache, and the waits between attempts recorded."""
    monkeypatch.setenv("no_proxy", "*")
    monkeypatch.setenv("MONDRIAN_DATA", str(tmp_path / "data"))
    waits = []
    monkeypatch.setattr(download.time, "sleep", waits.append)
    return waits


def test_a_host_that_cannot_be_resolved_fails_at_the_first_attempt(offline, tmp_path, monkeypatch):
    attempts = []

    def transfer(*args):
        attempts.append(args)
        return real_transfer(*args)

    real_transfer = download._transfer
    monkeypatch.setattr(download, "_transfer", transfer)
    url = f"http://{UNRESOLVABLE}/data.csv"
    with pytest.raises(DownloadError) as raised:
        download.download(url, tmp_path / "data.csv", retries=4)
    assert str(raised.value).startswith(f"{url}: host {UNRESOLVABLE} cannot be resolved (")
    assert len(attempts) == 1 and offline == []  # not tried again, no wait
    assert not (tmp_path / "data.csv").exists()


def test_openml_does_not_retry_a_server_that_cannot_be_resolved(offline, monkeypatch):
    openml = pytest.importorskip("openml")
    monkeypatch.setattr(openml.config, "server", f"https://{UNRESOLVABLE}/api/v1/xml")
    waits = []
    monkeypatch.setattr(openml._api_calls.time, "sleep", waits.append)
    retries = openml.config.connection_n_retries
    source = catalog.Source(kind="openml", parse="unused", data_id=1590)
    with pytest.raises(SourceError, match=f"openml data_id=1590: .*host {UNRESOLVABLE} cannot be resolved"):
        openml_frame(source)
    assert waits == [] and openml.config.connection_n_retries == retries


def test_the_files_to_put_by_hand_are_alternatives_when_the_sources_differ():
    apartments = str(DatasetUnavailable(catalog.entry("apartments"), [("http ...", "offline")]))
    assert "put one of: pp-2012.csv + ukpostcodes.zip; postcodes.zip + pp-2012.csv into " in apartments
    airline = str(DatasetUnavailable(catalog.entry("airline"), [("http ...", "offline")]))  # two mirrors
    assert "put 2008.csv.bz2, plane-data.csv into " in airline
