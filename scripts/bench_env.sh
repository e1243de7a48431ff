#!/usr/bin/env bash
# The benchmark environment (`make bench`): a venv of its own, .venv-bench by default, with the project (editable)
# and the two peers of experiments/bench/amf.py. river and onelearn are never dependencies of the project.
# onelearn 0.3.0 goes in with --no-deps: it pins numpy<2, numba 0.51 and scikit-learn 0.22, which do not install on
# Python 3.11; it runs on the project's numpy 2 / numba once experiments/bench/amf.py's import shim is applied.
# It needs nothing beyond what the project already installs (numpy, numba, scipy); its plotting extras are unused.
set -euo pipefail
VENV="${1:-.venv-bench}"
PYTHON="${PYTHON:-python3}"
PIP=(--quiet --disable-pip-version-check)
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install "${PIP[@]}" -e ".[harness]" "river==0.26.1" "pytest>=8"
"$VENV/bin/python" scripts/checkout_on_path.py
"$VENV/bin/python" -m pip install "${PIP[@]}" --no-deps "onelearn==0.3.0"
