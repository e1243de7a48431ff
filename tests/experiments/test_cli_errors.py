"""The command line's mistakes stop it at once, in one line, before any trial runs: a mistyped setting ("did you
mean"), a value trials cannot take, a protocol the figure does not run, a host that cannot be resolved (no retries),
and a second Ctrl-C while the command stops (one line, status 130, no traceback)."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_command_line import one_line_error

from experiments import regenerate
from experiments.config import check_figure_choices, check_settings
from experiments.data import catalog, download
from experiments.data.download import DownloadError
from experiments.data.fetch import DatasetUnavailable
from experiments.data.sources import SourceError, openml_frame

REPO_ROOT = Path(__file__).resolve().parents[2]
SHELL_ENV = {key: value for key, value in os.environ.items() if key not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
UNRESOLVABLE = "nonexistent.invalid"  # .invalid never resolves (RFC 2606)


# -- settings: names and values --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "overrides, expected",
    [
        (["launcher.njobs=2"], "unknown setting 'launcher.njobs'; did you mean launcher.n_jobs?"),
        (["n_jobs=2"], "unknown setting 'n_jobs'; did you mean model.estimator.n_jobs or launcher.n_jobs?"),
        (["protocol.run.shufle=false"], "unknown setting 'protocol.run.shufle'; did you mean protocol.run.shuffle?"),
        (["~seeds"], "unknown setting 'seeds'; did you mean seed?"),
        (["launcher.foo=1"], "unknown setting 'launcher.foo'; the settings of launcher are: _target_, n_jobs"),
        (["seed=abc"], "seed=abc: expected a non-negative integer"),
        (["seed=-1"], "seed=-1: expected a non-negative integer"),
        (["seed=1.5"], "seed=1.5: expected a non-negative integer"),
        (["--multirun", "seed=0,1,x"], "seed=x: expected a non-negative integer"),  # each value of a sweep
        (["launcher.n_jobs=-3"], "launcher.n_jobs=-3: expected -1 (one per core) or a positive integer"),
        (["launcher.n_jobs=0"], "launcher.n_jobs=0: expected -1 (one per core) or a positive integer"),
        (["model.estimator.n_estimators=0"], "model.estimator.n_estimators=0: expected a positive integer"),
        (["protocol=leaf_count", "protocol.run.replicates=-5"], "protocol.run.replicates=-5: expected a positive"),
        (["+protocol.run.n_points=0"], "protocol.run.n_points=0: expected a positive integer"),  # added: no default
        (["allow_missing=yes"], "allow_missing=yes: expected true or false"),
        (["model.estimator.lifetime=.inf"], "model.estimator.lifetime=.inf: expected a number"),  # Hydra's is inf
        (
            ["figure=theory-leaves", "protocol.run.replicates=100"],
            "'protocol.run.replicates' is a setting of protocol leaf_count, which figure theory-leaves runs: add "
            "protocol=leaf_count",
        ),
    ],
)
def test_a_setting_that_is_not_there_or_a_value_it_cannot_take_is_one_line(overrides, expected):
    error = check_settings(overrides)
    assert error is not None and error.startswith(expected) and "\n" not in error


def test_good_settings_and_what_only_hydra_knows_pass():
    good = [
        "seed=3", "launcher.n_jobs=-1", "launcher.n_jobs=2", "model.estimator.n_jobs=null", "dataset.load.n_samples=10",
        "protocol.run.log_every=null", "protocol.run.shuffle=false", "+protocol.run.final_passes=2", "hydra.run.dir=/x",
        "hydra/launcher=basic", "tracking.uri=sqlite:///x.db", "seed=${oc.env:SEED,0}", "seed=range(3)", "-m",
    ]  # fmt: skip
    assert check_settings(good) is None
    assert check_settings(["figure=theory-leaves", "protocol=leaf_count", "protocol.run.replicates=100"]) is None
    assert check_settings(["launcher=dask", "launcher.address=tcp://127.0.0.1:8786"]) is None
    assert check_settings(["~dataset", "~model", "protocol=leaf_count", "protocol.run.dim=3"]) is None


@pytest.mark.parametrize(
    "overrides, expected",
    [
        (["figure=theory-leaves", "protocol=online"], "figure theory-leaves runs protocol leaf_count, not online: "),
        (["figure=bsp-fig2", "protocol=online"], "figure bsp-fig2 runs protocol bsp_online or bsp_order, not online"),
        (["figure=theory-leaves", "dataset=adult"], "figure theory-leaves runs no dataset: leave out dataset=adult"),
    ],
)
def test_a_protocol_the_figure_does_not_run_is_one_line(overrides, expected):
    assert check_figure_choices(overrides).startswith(expected)


def test_the_figures_own_choices_pass():
    assert check_figure_choices(["figure=theory-leaves", "protocol=leaf_count"]) is None
    assert check_figure_choices(["figure=bsp-fig2", "protocol=bsp_order"]) is None
    assert check_figure_choices(["figure=amf-fig10", "dataset=adult", "model=amf_classifier"]) is None
    assert check_figure_choices(["protocol=online"]) is None  # an ad-hoc trial runs any protocol


@pytest.mark.parametrize(
    "overrides, expected",
    [
        (["launcher.njobs=2"], "unknown setting 'launcher.njobs'; did you mean launcher.n_jobs?"),
        (["seed=abc"], "seed=abc: expected a non-negative integer"),
        (["protocol=online"], "figure theory-leaves runs protocol leaf_count, not online: leave out protocol=online"),
    ],
)
def test_the_command_stops_before_hydra_and_any_trial(overrides, expected, tmp_path):
    store = [f"tracking.uri=sqlite:///{tmp_path}/mlflow.db", f"hydra.run.dir={tmp_path}/hydra"]
    done = subprocess.run(
        [sys.executable, "-m", "experiments.run", "figure=theory-leaves", "profile=quick", *overrides, *store],
        cwd=REPO_ROOT, env=SHELL_ENV, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert one_line_error(done) == f"python -m experiments.run: error: {expected}"
    assert not (tmp_path / "hydra").exists() and not (tmp_path / "mlflow.db").exists()  # nothing ran, nothing stored


def test_regenerate_checks_the_settings_too(capsys):
    for argv, expected in [
        (["theory-leaves", "launcher.njobs=2"], "unknown setting 'launcher.njobs'; did you mean launcher.n_jobs?"),
        (["theory-leaves", "seed=abc"], "seed=abc: expected a non-negative integer"),
    ]:
        with pytest.raises(SystemExit) as stopped:
            regenerate.main(argv)
        assert stopped.value.code == 2
        out, err = capsys.readouterr()
        assert out == "" and err == f"python -m experiments.regenerate: error: {expected}\n"


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


# -- a second Ctrl-C ------------------------------------------------------------------------------------------------
# A command that stops slowly on Ctrl-C (as one whose joblib workers are being stopped), with the harness's handler:
# it says "stopping" once the first Ctrl-C reached it, and "said" after its last line.
STOPPING_SLOWLY = textwrap.dedent(
    """
    import sys, time
    from experiments.sweep import ctrl_c
    ctrl_c.install("the same command")
    try:
        print("ready", flush=True)
        time.sleep(60)
    except KeyboardInterrupt:
        print("stopping", flush=True)
        time.sleep(float(sys.argv[1]))
        status = ctrl_c.last_line("interrupted: 3 of 9 trials finished; resume: the same command")
        print("said", flush=True)
        time.sleep(60)  # what lingers after it: joblib's workers joined at the interpreter's exit
        sys.exit(status)
    """
)


def _as_in_a_terminal() -> None:
    """SIGINT as a terminal's foreground job has it (a suite started in the background runs with it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted_twice(stop_after: float, second_when: str) -> subprocess.CompletedProcess:
    """STOPPING_SLOWLY sent Ctrl-C, then again once it printed ``second_when``."""
    process = subprocess.Popen(
        [sys.executable, "-c", STOPPING_SLOWLY, str(stop_after)], cwd=REPO_ROOT, env=SHELL_ENV, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_as_in_a_terminal,
    )  # fmt: skip
    try:
        for line in ("ready", second_when):
            assert f"{line}\n" in iter(process.stdout.readline, ""), process.stderr.read()
            process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def test_a_second_ctrl_c_while_the_command_stops_ends_it_at_once_with_one_line():
    done = interrupted_twice(60, "stopping")
    assert done.returncode == 130 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == ["interrupted twice: stopped at once; start again: the same command"]


def test_a_second_ctrl_c_after_the_last_line_adds_nothing():
    done = interrupted_twice(0, "said")
    assert done.returncode == 130 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == ["interrupted: 3 of 9 trials finished; resume: the same command"]
