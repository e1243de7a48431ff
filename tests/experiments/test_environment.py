"""Where a run ran (experiments.environment): the env.* tags of this process, what must agree for runs to be
comparable, and the line that says where a set of runs ran."""

import datetime
import os
import socket
import subprocess
import sys
from importlib import metadata

import numba
import pytest

from experiments import environment
from experiments.provenance import git_commit


def test_the_environment_is_this_process_s():
    tags = environment.environment()
    assert tags["env.cores"] == str(len(os.sched_getaffinity(0)))
    assert tags["env.numba_threads"] == str(numba.config.NUMBA_NUM_THREADS)
    for library in ("numpy", "numba", "scikit-learn", "scipy", "pandas", "mlflow", "hydra-core"):
        assert tags[f"env.{library}"] == metadata.version(library)
    assert tags["env.commit"] == git_commit()
    assert tags["env.date"] == datetime.datetime.now(datetime.UTC).date().isoformat()
    assert tags["env.cpu"] and tags["env.blas_threads"] and tags["env.python"].count(".") == 2
    assert all(isinstance(value, str) for value in tags.values())


def test_the_thread_pools_do_not_depend_on_what_was_imported_before():
    """A process that imported nothing else sees the pools of one that ran scikit-learn (this one)."""
    import sklearn.ensemble  # noqa: F401

    alone = subprocess.run(
        [sys.executable, "-c", "from experiments.environment import blas_threads; print(blas_threads())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert alone == environment.blas_threads() and "openmp" in alone


def test_the_host_name_is_hashed_never_written():
    host = environment.environment()["env.host"]
    assert len(host) == 12 and int(host, 16) >= 0
    assert socket.gethostname() not in host
    assert socket.gethostname() not in " ".join(environment.environment().values())


def test_a_commit_given_is_recorded_as_given():
    assert environment.environment("abc-dirty")["env.commit"] == "abc-dirty"


def test_identity_leaves_out_when_and_which_code_and_every_other_tag():
    tags = {**environment.environment(), "git_commit": "x", "profile": "quick"}
    identity = environment.identity(tags)
    assert "env.date" not in identity and "env.commit" not in identity and "profile" not in identity
    assert "env.cpu" in identity and "env.numpy" in identity
    assert environment.identity({**tags, "env.date": "1999-01-01", "env.commit": "other"}) == identity
    assert environment.identity({**tags, "env.numpy": "0.1"}) != identity


def test_recorded_picks_the_environment_out_of_a_run_s_tags():
    where = environment.environment()
    assert environment.recorded({**where, "trial_hash": "h", "git_commit": "c"}) == where
    assert environment.recorded({"trial_hash": "h"}) == {}


def tags_of(cpu: str = "AMD EPYC", cores: str = "2", numpy: str = "2.4.6", date: str = "2026-12-03") -> dict:
    return {
        **environment.environment("c"),
        "env.cpu": cpu,
        "env.cores": cores,
        "env.numba_threads": "2",
        "env.blas_threads": "openblas:2",
        "env.thread_variables": "none",
        "env.os": "Linux x86_64",
        "env.python": "3.11.7",
        "env.numpy": numpy,
        "env.host": "5bce98f73f3e",
        "env.date": date,
    }


def test_one_environment_reads_as_one_line_with_its_dates():
    line = environment.summary([tags_of(date="2026-12-03"), tags_of(date="2026-12-01"), tags_of(date="2026-12-03")])
    assert line.startswith("AMD EPYC, cores 2, numba threads 2, BLAS openblas:2; Linux x86_64, Python 3.11.7, ")
    assert f"numpy 2.4.6, numba {metadata.version('numba')}, scikit-learn " in line
    assert line.endswith("; host 5bce98f73f3e; 2026-12-01 to 2026-12-03")
    assert "runs" not in line and "\n" not in line


def test_thread_variables_set_are_said():
    line = environment.summary([{**tags_of(), "env.thread_variables": "OMP_NUM_THREADS=1"}])
    assert "BLAS openblas:2 (OMP_NUM_THREADS=1);" in line


def test_several_environments_are_listed_each_with_its_runs_most_first():
    line = environment.summary([tags_of(), tags_of(numpy="2.0.0"), tags_of(numpy="2.0.0"), {"trial_hash": "h"}])
    assert line.startswith("2 environments: AMD EPYC")
    first, second, unrecorded = line.split(" / ")
    assert "numpy 2.0.0" in first and first.endswith("(2 runs)")
    assert "numpy 2.4.6" in second and second.endswith("(1 run)")
    assert unrecorded == "not recorded (1 run)"


def test_runs_that_recorded_none_say_nothing():
    assert environment.summary([{"trial_hash": "h"}, {}]) == ""
    assert environment.summary([]) == ""


@pytest.mark.parametrize("date", ["2026-12-03", "2027-01-01"])
def test_the_date_and_the_commit_never_split_an_environment(date):
    line = environment.summary([tags_of(), {**tags_of(date=date), "env.commit": "other"}])
    assert "environments" not in line and "runs" not in line
