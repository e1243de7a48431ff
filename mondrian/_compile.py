"""The first compile, announced. numba compiles a kernel the first time it runs on a machine (5 to 10 s for an
estimator's first fit, about 18 s for the BSP forests, measured by ``make bench``) and loads it from its cache
afterwards; a user waiting for a first ``fit`` is told so once per process, on the ``mondrian`` logger at WARNING
(shown by Python's last-resort handler when logging is not configured; ``logging.getLogger("mondrian").setLevel(
logging.ERROR)`` silences it).
"""

import logging
import os

logger = logging.getLogger("mondrian")
_announced = False


def drives(kernel):
    """Mark a Python function as the driver of ``kernel`` (a numba dispatcher it calls), which its first call compiles:
    ``announce_first_compile`` reads the kernel's state."""

    def mark(driver):
        driver.kernel = kernel
        return driver

    return mark


def _cached(kernel) -> bool:
    """Whether numba has compiled ``kernel`` (or the kernel a driver runs, ``drives``) in this process or has it in its
    cache on disk (its index file)."""
    kernel = getattr(kernel, "kernel", kernel)
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
