"""The peak resident memory of the process running a trial, over the trial only.

Linux keeps each process's high-water mark of resident memory (``VmHWM`` in ``/proc/self/status``) and lets the
process reset it (writing 5 to ``/proc/self/clear_refs``): a worker that runs trials one after another measures each
trial's own peak, not the largest of them so far. Elsewhere the peak is unknown (None). The mark counts everything
the process holds: the interpreter and its imports (a few hundred MB) and the data as well as the model.
"""

from __future__ import annotations

import re
from pathlib import Path

_STATUS, _CLEAR = Path("/proc/self/status"), Path("/proc/self/clear_refs")


def reset() -> bool:
    """Start measuring the process's peak from its current resident memory; False where that cannot be done."""
    try:
        _CLEAR.write_text("5")
    except OSError:
        return False
    return True


def peak_mb() -> float | None:
    """The process's peak resident memory in MB (10^6 bytes) since ``reset``; None where Linux's mark is unreadable."""
    try:
        found = re.search(r"^VmHWM:\s+(\d+) kB", _STATUS.read_text(), re.MULTILINE)
    except OSError:
        return None
    return None if found is None else int(found.group(1)) * 1024 / 1e6
