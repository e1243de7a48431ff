"""Where a run ran: the machine and the software, recorded with every trial and benchmark row so that results from
two commits or two machines can be set side by side, or refused as not comparable (benchopt's environment columns).

``environment()`` gives them as ``env.*`` tags (strings): the CPU model, the cores this process may use, the thread
settings (numba's threads, the BLAS pools' threads, the thread variables set), the versions of Python and the
libraries that compute results, the commit (``-dirty`` with uncommitted changes), a hashed host name and the date.
``identity()`` is what must agree for runs to be compared or merged: everything but the date and the commit.
``recorded()`` picks a run's ``env.*`` tags out of all its tags, ``summary()`` says in one line where a set of runs
ran (the report's line per figure, the benchmarks' line per section).
"""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
import socket
from functools import cache
from importlib import metadata

from experiments.provenance import git_commit

PREFIX = "env."
# The libraries whose versions a result depends on (their distribution names)
LIBRARIES = ("numpy", "numba", "scikit-learn", "scipy", "pandas", "mlflow", "hydra-core")
# The thread variables a run reads, shown when set
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
DATE, COMMIT = f"{PREFIX}date", f"{PREFIX}commit"
# Tags that say when and from which code, not where: left out of ``identity``
NOT_IDENTITY = (DATE, COMMIT)


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo on Linux, else the platform's), "unknown" if neither says."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cores_used() -> int:
    """The cores this process may run on (its affinity where the system tells it, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "absent"


def blas_threads() -> str:
    """The BLAS/OpenMP pools of numpy, scipy and scikit-learn and their threads ("openblas:2,openmp:2"), "none" if
    none. threadpoolctl sees the pools of the libraries loaded only: scikit-learn (which loads numpy's and scipy's) is
    imported first, so that the answer does not depend on what the process imported before asking."""
    import sklearn  # noqa: F401
    from threadpoolctl import threadpool_info

    pools = sorted({f"{pool.get('internal_api', '?')}:{pool.get('num_threads', '?')}" for pool in threadpool_info()})
    return ",".join(pools) or "none"


def numba_threads() -> str:
    import numba

    return str(numba.config.NUMBA_NUM_THREADS)


@cache
def _machine() -> dict[str, str]:
    """What does not change while a process runs (read once)."""
    tags = {
        "cpu": cpu_model(),
        "cores": str(cores_used()),
        "numba_threads": numba_threads(),
        "blas_threads": blas_threads(),
        "thread_variables": ",".join(f"{name}={os.environ[name]}" for name in THREAD_VARIABLES if name in os.environ)
        or "none",
        "os": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
        "host": hashlib.sha256(socket.gethostname().encode()).hexdigest()[:12],
        **{library: version(library) for library in LIBRARIES},
    }
    return {PREFIX + name: value for name, value in tags.items()}


@cache
def _process_commit() -> str:
    """The commit of the checkout when this process first asked: the code it imported (read once)."""
    return git_commit()


def environment(commit: str | None = None) -> dict[str, str]:
    """The ``env.*`` tags of a run made now in this process: the machine's, the commit (``commit``, or the checkout's
    when the process first asked, the code it runs) and today's date (UTC)."""
    return {
        **_machine(),
        COMMIT: _process_commit() if commit is None else commit,
        DATE: datetime.datetime.now(datetime.UTC).date().isoformat(),
    }


def identity(tags: dict) -> dict[str, str]:
    """The ``env.*`` tags among ``tags`` that must agree for two runs to be comparable: all but the date and the
    commit (which ``git_commit`` records on its own)."""
    return {name: value for name, value in sorted(tags.items()) if name.startswith(PREFIX) and name not in NOT_IDENTITY}


def recorded(tags: dict) -> dict[str, str]:
    """The ``env.*`` tags among a run's ``tags`` (none for a run made before environments were recorded)."""
    return {name: value for name, value in tags.items() if name.startswith(PREFIX)}


def described(tags: dict) -> str:
    """One environment in words: the CPU, the cores, the threads; the system and the versions; the hashed host."""

    def tag(name: str) -> str:
        return tags.get(PREFIX + name, "?")

    threads = f"numba threads {tag('numba_threads')}, BLAS {tag('blas_threads')}"
    if tag("thread_variables") != "none":
        threads += f" ({tag('thread_variables')})"
    versions = ", ".join([f"Python {tag('python')}", *(f"{library} {tag(library)}" for library in LIBRARIES)])
    return f"{tag('cpu')}, cores {tag('cores')}, {threads}; {tag('os')}, {versions}; host {tag('host')}"


def run_count(count: int) -> str:
    """'1 run', '3 runs'."""
    return f"{count} run{'s' if count != 1 else ''}"


def summary(runs: list[dict]) -> str:
    """Where runs ran (each run's tags), in one line: each environment (``identity``) with the dates of its runs,
    most runs first, and its number of runs when they are not all of one; runs without one counted apart ("" when
    none has one)."""
    groups: dict[tuple, list[dict]] = {}
    for tags in runs:
        groups.setdefault(tuple(identity(tags).items()), []).append(tags)
    unrecorded = len(groups.pop((), []))
    if not groups:
        return ""
    parts = []
    for key, members in sorted(groups.items(), key=lambda group: (-len(group[1]), group[0])):
        dates = sorted({tags.get(DATE, "?") for tags in members})
        text = f"{described(dict(key))}; {dates[0] if len(dates) == 1 else f'{dates[0]} to {dates[-1]}'}"
        parts.append(text + (f" ({run_count(len(members))})" if len(groups) > 1 or unrecorded else ""))
    if unrecorded:
        parts.append(f"not recorded ({run_count(unrecorded)})")
    return (f"{len(groups)} environments: " if len(groups) > 1 else "") + " / ".join(parts)
