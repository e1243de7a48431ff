"""Hard inputs of a store and of a sweep's processes: a read-only store is read without a lock file, an empty or
corrupt SQLite file stops with one line naming it, local workers exit when their driver is killed, and a wrong
Dask scheduler address stops with one line, before a figure's run is written."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time

import dask
import distributed  # noqa: F401 - its config defaults loaded before dask.config.set (which restores around them)
import psutil
import pytest

from experiments import store
from experiments.launchers import ClusterUnreachable, DaskLauncher
from experiments.store import StoreError, open_client


def test_a_store_this_process_cannot_write_is_read_without_a_lock_file(tmp_path, empty_store, monkeypatch):
    path = tmp_path / "mlflow.db"
    shutil.copy(empty_store, path)
    open_client(f"sqlite:///{path}").create_experiment("kept")
    (tmp_path / "mlflow.db.lock").unlink()
    real_access = os.access
    monkeypatch.setattr(store.os, "access", lambda p, mode: False if mode == os.W_OK else real_access(p, mode))

    def no_lock(lock_file):
        raise OSError(30, "Read-only file system", str(lock_file))

    monkeypatch.setattr(store, "locked", no_lock)  # what creating the lock file does in a read-only folder
    client = open_client(f"sqlite:///{path}")
    assert client.get_experiment_by_name("kept") is not None
    assert not (tmp_path / "mlflow.db.lock").exists()


def test_an_empty_file_is_refused_naming_it(tmp_path):
    path = tmp_path / "mlflow.db"
    path.write_bytes(b"")
    with pytest.raises(StoreError) as error:
        open_client(f"sqlite:///{path}")
    message = str(error.value)
    assert str(path) in message and "empty file" in message and "delete it" in message and "\n" not in message
    assert path.stat().st_size == 0  # left as it was


def test_a_new_file_is_still_created(tmp_path):
    path = tmp_path / "new" / "mlflow.db"
    path.parent.mkdir()
    open_client(f"sqlite:///{path}")
    assert path.stat().st_size > 0


@pytest.mark.parametrize("damage", ["random bytes", "text"])
def test_a_corrupt_file_stops_with_one_line_naming_it(tmp_path, damage):
    path = tmp_path / "mlflow.db"
    path.write_bytes(os.urandom(8192) if damage == "random bytes" else b"not a database\n" * 100)
    with pytest.raises(StoreError) as error:
        open_client(f"sqlite:///{path}")
    message = str(error.value)
    assert str(path) in message and "not a readable MLflow SQLite store" in message and "\n" not in message
    assert "move it aside" in message


def test_a_command_on_a_corrupt_store_prints_one_line_and_no_traceback(tmp_path):
    path = tmp_path / "mlflow.db"
    path.write_bytes(os.urandom(8192))
    code = f"from experiments.tracking import Tracker; Tracker('sqlite:///{path}')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip() and "Warning" not in line]
    assert "Traceback" not in done.stderr and len(lines) == 1 and str(path) in lines[0]


# A driver running two never-ending trials on two local (joblib/loky) processes.
DRIVER = textwrap.dedent("""
    import time
    import experiments.launchers as launchers

    def endless(trial):
        time.sleep(600)

    launchers.run_trial = endless
    for _ in launchers.JoblibLauncher(n_jobs=2).outcomes([{"i": 0}, {"i": 1}]):
        pass
""")


def _workers(driver: psutil.Process) -> list[psutil.Process]:
    return [p for p in driver.children(recursive=True) if "LokyProcess" in " ".join(p.cmdline())]


@pytest.mark.slow
def test_workers_and_their_resource_trackers_exit_when_the_driver_is_killed(tmp_path):
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    process = subprocess.Popen([sys.executable, str(script)], stderr=subprocess.DEVNULL)
    try:
        driver = psutil.Process(process.pid)
        deadline = time.monotonic() + 60
        while len(_workers(driver)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)  # the workers have their trials
        spawned = driver.children(recursive=True)  # the two workers and the resource trackers
        assert len(_workers(driver)) == 2 and len(spawned) >= 3
    except BaseException:
        process.kill()
        raise
    process.send_signal(signal.SIGKILL)
    process.wait()
    _, alive = psutil.wait_procs(spawned, timeout=30)
    for leftover in alive:
        leftover.kill()
    assert alive == [], [" ".join(p.cmdline()) for p in alive]


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:{port}", "tcp://no-such-host.invalid:8786", "nonsense://x"])
def test_a_wrong_scheduler_address_stops_with_one_line(address):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = address.format(port=port)
    launcher = DaskLauncher(address, "sqlite:///unused.db")
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}), pytest.raises(ClusterUnreachable) as error:
        next(launcher.outcomes([{"seed": 0}]))
    message = str(error.value)
    assert message.startswith(f"no Dask scheduler answers at launcher.address={address} (") and "\n" not in message


def test_a_figure_on_an_unreachable_cluster_stops_with_one_line_and_writes_no_run(tmp_path):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        sys.executable, "-m", "experiments.run", "figure=theory-cell", "profile=quick", "launcher=dask",
        f"launcher.address=tcp://127.0.0.1:{port}", f"tracking.uri=sqlite:///{tmp_path}/mlflow.db",
        f"tracking.artifact_root={tmp_path}/artifacts", f"paths.figures={tmp_path}/figures",
        f"paths.tables={tmp_path}/tables", f"hydra.run.dir={tmp_path}/hydra",
    ]  # fmt: skip
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert f"no Dask scheduler answers at launcher.address=tcp://127.0.0.1:{port}" in done.stderr
    client = store.open_client(f"sqlite:///{tmp_path}/mlflow.db")
    assert client.search_runs([e.experiment_id for e in client.search_experiments()]) == []
