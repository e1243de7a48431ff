"""Progress bars that show in a terminal and stay out of logs and of parallel workers."""

from __future__ import annotations

import multiprocessing

from tqdm.auto import tqdm


def progress(iterable=None, **kwargs):
    """tqdm shown only in an interactive terminal, and never inside a sweep's worker process
    (the sweep's own bar already tells how far it is, and bars from several processes interleave)."""
    in_worker = multiprocessing.parent_process() is not None
    return tqdm(iterable, disable=True if in_worker else None, **kwargs)
