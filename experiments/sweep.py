"""Run a list of trials through a launcher, logging each to MLflow as it finishes, skipping finished ones.

A trial whose hash already has a finished run in the experiment is not run again, so re-running an interrupted or
partly failed sweep runs exactly the missing and the failed trials (a failed run stays, beside the new one). Sweeps
sharing a store claim their trials first (``experiments.leases``): a trial another live sweep runs is waited for, not
run twice.
"""

from __future__ import annotations

import os
import signal
import sys
import warnings
from contextlib import closing, contextmanager
from dataclasses import dataclass, field

from experiments.launchers import JoblibLauncher, Launcher
from experiments.leases import SweepLease
from experiments.progress import progress, say
from experiments.tracking import Tracker
from experiments.trial import run_names, trial_hash


@dataclass
class SweepReport:
    total: int
    skipped: int = 0
    finished: int = 0
    elsewhere: int = 0  # finished meanwhile by another sweep on the same store
    failed: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        others = f", {self.elsewhere} run by another sweep" if self.elsewhere else ""
        text = (
            f"{self.total} trials: {self.skipped} already finished, {self.finished} run now{others}, "
            f"{len(self.failed)} failed"
        )
        if not self.failed:
            return text
        failed = "".join(f"\n  failed: {name}" for name in self.failed)
        return f"{text}{failed}\n(tracebacks in the failed runs' traceback.txt; the same command runs them again)"


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep, holding what it had done by then (its ``report``), for the line the command ends with.
    A KeyboardInterrupt still: whatever does not know it stops as before."""

    def __init__(self, experiment: str, report: SweepReport):
        super().__init__(experiment)
        self.experiment = experiment
        self.report = report

    @property
    def done(self) -> int:
        """Trials of the sweep with a finished run: before it, by it, or meanwhile by another sweep."""
        return self.report.skipped + self.report.finished + self.report.elsewhere


def interrupted_line(what: str, done: int, total: int, resume: str) -> str:
    """The one line a command ends with on Ctrl-C: how far it got, and the command that goes on from there (a sweep
    skips the trials that have a finished run, so running it again resumes it)."""
    then = "resume (finished trials are skipped)" if done < total else "draw it"
    return f"interrupted: {what}: {done} of {total} trials finished; {then}: {resume}"


INTERRUPTED = 130  # the shell's status for a command ended by Ctrl-C (128 + SIGINT)


class CtrlC:
    """SIGINT's handler for a command that stops cleanly on Ctrl-C (``install``). The first Ctrl-C raises
    KeyboardInterrupt, as Python's handler does: the command stops its trials, withdraws its claims and ends with one
    line (``last_line``). A second one while it stops (joblib stopping its workers, the store's last writes, the
    interpreter's exit) ends the process at once with status 130, without a traceback from what it cut short: with
    one line saying so if the command's line was not said yet, else silently. The workers, watching the process,
    exit by themselves; the trials finished are in the store, the same command resumes."""

    def __init__(self):
        self.resume = ""
        self.stopping = False
        self.said = False

    def install(self, resume: str) -> None:
        """Handle SIGINT so for the rest of the process (``resume``: the command that starts it again), unless SIGINT
        is ignored (a command started in the background) or has a handler other than Python's."""
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self.resume = resume
            signal.signal(signal.SIGINT, self)

    def __call__(self, signum, frame) -> None:
        if not self.stopping:
            self.stopping = True
            raise KeyboardInterrupt
        if not self.said:
            say(f"interrupted twice: stopped at once; start again: {self.resume}", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(INTERRUPTED)

    def last_line(self, line: str) -> int:
        """Say the line the command ends with on Ctrl-C (on stderr); its exit status, 130."""
        say(line, file=sys.stderr)
        self.said = True
        return INTERRUPTED


ctrl_c = CtrlC()  # the process's: signals are the process's


def unique_trials(trials: list[dict]) -> list[dict]:
    seen, out = set(), []
    for trial in trials:
        key = trial_hash(trial)
        if key not in seen:
            seen.add(key)
            out.append(trial)
    return out


def pending_trials(trials: list[dict], tracker: Tracker, experiment: str) -> list[dict]:
    """The trials (each once) that have no finished run in ``experiment``: what a sweep of them would run."""
    finished = tracker.finished_runs(experiment)
    return [t for t in unique_trials(trials) if trial_hash(t) not in finished]


def run_sweep(
    trials: list[dict],
    tracker: Tracker,
    experiment: str,
    launcher: Launcher | None = None,
    tags: dict | None = None,
    bar=None,
) -> SweepReport:
    """Run the trials with no finished run in ``experiment`` (in this process unless a ``launcher`` says where);
    a failing trial is logged FAILED, the rest go on. Progress shows on ``bar`` (a tqdm shared by several sweeps)
    if one is given, else on a bar of this sweep's own."""
    trials = unique_trials(trials)
    names = run_names(trials)
    todo = pending_trials(trials, tracker, experiment)
    report = SweepReport(total=len(trials), skipped=len(trials) - len(todo))
    if not todo:
        return report
    shown = bar if bar is not None else progress(total=len(todo), desc=experiment, unit="trial")

    def finished_elsewhere(n: int) -> None:
        report.elsewhere += n
        shown.update(n)

    try:
        with SweepLease(tracker, experiment) as lease:
            while todo:
                mine, elsewhere = lease.claim(todo, names, tags or {})
                _run_claimed(mine, lease, tracker, experiment, launcher, tags or {}, names, report, shown)
                todo = lease.wait(elsewhere, finished_elsewhere)
    except KeyboardInterrupt as interrupt:
        if isinstance(interrupt, SweepInterrupted):
            raise
        raise SweepInterrupted(experiment, report) from None
    finally:
        if bar is None:
            shown.close()
    return report


@contextmanager
def _cancelled_quietly():
    """No warning from joblib when a sweep stopped by Ctrl-C cancels the trials its workers were running."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*tasks which were still being processed", category=UserWarning)
        yield


def _run_claimed(trials, lease, tracker, experiment, launcher, tags, names, report, bar) -> None:
    """Run the trials this sweep claimed, logging each outcome into its claim."""
    if not trials:
        return
    # closed on the way out, so that an interrupt stops the trials still queued (Dask cancels them); quietly: the
    # command's last line says what was left undone, joblib need not warn of the tasks it cancelled
    with _cancelled_quietly(), closing((launcher or JoblibLauncher()).outcomes(trials)) as outcomes:
        for outcome in outcomes:
            name = names[outcome.hash]
            tracker.log_outcome(experiment, outcome, tags, name, run_id=lease.claim_run(outcome.hash))
            if outcome.error is None:
                report.finished += 1
            else:
                report.failed.append(f"{name}: {outcome.reason}")
            bar.update()
