"""Progress bars that show in a terminal and stay out of logs and of parallel workers, and the writer of every line
printed while one may be on screen."""

from __future__ import annotations

import logging
import multiprocessing
import sys
import warnings
from contextlib import suppress

from tqdm.auto import tqdm


def progress(iterable=None, **kwargs):
    """tqdm shown only in an interactive terminal, and never inside a sweep's worker process
    (the sweep's own bar already tells how far it is, and bars from several processes interleave)."""
    return tqdm(iterable, disable=True if in_worker() else None, **kwargs)


def in_worker() -> bool:
    """Whether this is a worker process of a sweep (joblib's, or any child of multiprocessing)."""
    return multiprocessing.parent_process() is not None


def say(*values, file=None, sep: str = " ") -> None:
    """print(), through the bars' writer: the line goes above the bars on screen, which are drawn again below it.
    A plain print lands after the bar's last character, and the bar's next refresh wrote over its first letters."""
    tqdm.write(sep.join(map(str, values)), file=file)


def say_beside_bars(text: str, file=None) -> None:
    """One line (or several) on ``file`` (stderr by default) that leaves progress bars whole: through the bars' writer
    in the process that draws them; in a worker process, which cannot reach its driver's bar, on lines of their own
    below it (the bar ends the terminal's line: a line written after it would be written over at its next refresh)."""
    file = file or sys.stderr
    if in_worker() and file.isatty():
        file.write(f"\n{text}\n")
        file.flush()
    else:
        say(text, file=file)


class BarSafeHandler(logging.Handler):
    """Log records as plain lines on stderr, written by say_beside_bars."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            say_beside_bars(self.format(record))
        except Exception:
            self.handleError(record)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """warnings.showwarning's display (the same text, on the same file), written by say_beside_bars."""
    text = warnings.formatwarning(message, category, filename, lineno, line)
    with suppress(OSError):  # as the default: a closed or invalid stderr loses the warning
        say_beside_bars(text.rstrip("\n"), file)


def lines_beside_bars() -> None:
    """Send what the library logs (its notice before numba's first compile, given by the process that fits: a sweep's
    worker, or the driver with launcher.n_jobs=1) and Python's warnings (joblib's, the estimators') through
    say_beside_bars, instead of Python's last-resort handler, Hydra's console handler or the warnings' own writer,
    which write after the bar's last character. Called by the commands that draw bars, and by the launcher in each
    worker process before its first trial. Idempotent."""
    logger = logging.getLogger("mondrian")
    if not any(isinstance(handler, BarSafeHandler) for handler in logger.handlers):
        logger.addHandler(BarSafeHandler())
        logger.propagate = False  # Hydra's console handler on the root logger would print it a second time
    warnings.showwarning = _show_warning
