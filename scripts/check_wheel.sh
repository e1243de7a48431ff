#!/usr/bin/env bash
# The library as a user installs it: build the wheel, install it into a fresh virtual environment with its base
# dependencies only, check that no harness package came with it, import every module of it there, and run the README's
# library example there. The docstrings' Examples run in make test (they import only the library and its base
# dependencies: tests/test_layers.py); running them here again took 101 s of CI's 20 minutes, numba compiling every
# kernel anew for the wheel's files.
set -euo pipefail
cd "$(dirname "$0")/.."
CHECKOUT="$(pwd)"
PYTHON="${PYTHON:-python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$PYTHON" -m pip wheel --quiet --disable-pip-version-check --no-deps . -w "$WORK/dist"
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$WORK"/dist/*.whl
cd "$WORK"  # out of the checkout, whose folders would import
"$WORK/venv/bin/python" - <<'PY'
import importlib.metadata as metadata
import importlib.util

installed = {d.metadata["Name"].lower() for d in metadata.distributions()}
extra = sorted(installed & {"mlflow", "hydra-core", "dask", "distributed", "submitit", "pandas", "matplotlib"})
assert not extra, f"the base install pulled harness packages: {extra}"
assert importlib.util.find_spec("experiments") is None, "the wheel installed a top-level 'experiments'"
print(f"base install: {len(installed)} distributions, none of the harness's")
import pkgutil

import mondrian

modules = [importlib.import_module(m.name) for m in pkgutil.walk_packages(mondrian.__path__, "mondrian.")]
print(f"the wheel's {len(modules) + 1} modules import with the base dependencies alone")
PY
# the first ```python block of the README's "## The library" section
example="$(awk '/^## The library/{f=1} f&&/^```python/{p=1;next} p&&/^```/{exit} p' "$CHECKOUT/README.md")"
"$WORK/venv/bin/python" -c "$example"
echo "README example: ran against the installed wheel"
