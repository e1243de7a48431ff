"""The first compile, announced. numba compiles a kernel the first time it runs on a machine (10 to 50 s for an
estimator's first fit, measured by ``make bench``) and loads it from its cache afterwards; a user waiting for a first
``fit`` is told so once per process, on the ``mondrian`` logger at WARNING (shown by Python's last-resort handler
when logging is not configured; ``logging.getLogger("mondrian").setLevel(logging.ERROR)`` silences it).
"""

import logging
import os

logger = logging.getLogger("mondrian")
_announced = False


def _cached(kernel) -> bool:
    """Whether numba has compiled ``kernel`` in this process or has it in its cache on disk (its index file)."""
    if kernel.signatures:
        return True
    index = getattr(getattr(getattr(kernel, "_cache", None), "_cache_file", None), "_index_path", None)
    return index is None or os.path.exists(index)


def announce_first_compile(kernel, estimator: str) -> None:
    """Log, once per process, that the kernels ``estimator`` runs are about to be compiled, if ``kernel`` (its main
    one) is neither compiled in this process nor cached on disk."""
    global _announced
    if _announced or _cached(kernel):
        return
    _announced = True
    logger.warning(
        "mondrian: compiling the kernels of %s for their first run on this machine (about a minute at most; "
        "numba caches them for the next runs)",
        estimator,
    )
