# make run   - create/refresh .venv, install what is missing, open PrivPlan on the built-in example
# make test  - the whole check: import contracts, ruff, mypy on core and on gui (both clean: any
#              error fails), the user guide (mkdocs --strict),
#              docs/claims.md's tables against the saved runs (bench/claims.py --check),
#              core tests WITHOUT Qt (.venv-core), GUI tests offscreen, the JAX tests
# make test-slow - the long studies make test leaves out (tests marked slow; CI runs them)
# make docs  - the user guide as HTML in build/docs-site/ (Help ▸ User Guide and F1 open it)
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
             command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
             && { echo $$p; break; }; done)
VENV      := .venv
CORE_VENV := .venv-core
PY        := $(VENV)/bin/python
CORE_PY   := $(CORE_VENV)/bin/python
PIP_FLAGS := -q --disable-pip-version-check
ARGS      ?=
# pytest-xdist workers: one per CPU this process may use. (`-n auto` counts *physical* cores
# through psutil, which is 1 on a 2-vCPU machine with hyper-threading.)
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
# Compiled bytecode is kept (in the __pycache__ folders git ignores), as an installed app keeps
# it: with PYTHONDONTWRITEBYTECODE (which some shells set) every test worker and every command
# a test runs compiled the project's modules from source again, and pytest re-rewrote the
# asserts of every test module: about a tenth of the suites' CPU.
unexport PYTHONDONTWRITEBYTECODE


.PHONY: run test test-slow checks ruff docs claims-check test-core test-gui test-deep lint-imports lint typecheck typecheck-gui bench bench-scale bench-storm screenshot examples report-pages clean check-python package smoke-if-built

check-python:
	@test -n "$(PYTHON)" || { echo "PrivPlan needs Python 3.11 or newer (python3.11+ not found)"; exit 1; }

$(VENV)/.installed: pyproject.toml | check-python
	@bash tools/ensure-debs.sh venv
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install $(PIP_FLAGS) --upgrade pip
	$(PY) -m pip install $(PIP_FLAGS) -e '.[gui,test,gui-test,cluster,gym,deep,docs]'
	@touch $@

# The headless environment: the core and its tests, and no PySide6 (and no JAX) at all.
$(CORE_VENV)/.installed: pyproject.toml | check-python
	@bash tools/ensure-debs.sh venv
	$(PYTHON) -m venv $(CORE_VENV)
	$(CORE_PY) -m pip install $(PIP_FLAGS) --upgrade pip
	$(CORE_PY) -m pip install $(PIP_FLAGS) -e '.[test,cluster,gym]'
	@$(CORE_PY) -m pip install $(PIP_FLAGS) -e '.[interop]' 2>/dev/null \
	  || echo "stormpy (the optional interop extra) does not install here: the interop tests use PrivPlan's own round trip"
	@touch $@

run: $(VENV)/.installed
	@bash tools/ensure-debs.sh run
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then $(PY) app.py $(ARGS); \
	else echo "No display found: PrivPlan opens on a virtual X display (xvfb-run)."; \
	     echo "Use 'make screenshot' to see it as a PNG."; xvfb-run -a -s "-screen 0 1600x1000x24" $(PY) app.py $(ARGS); fi

screenshot: $(VENV)/.installed
	@bash tools/ensure-debs.sh run
	xvfb-run -a -s "-screen 0 1366x768x24" $(PY) app.py --screenshot docs/screenshot-main.png --size 1366x768 $(ARGS)

lint-imports: $(VENV)/.installed
	$(VENV)/bin/lint-imports

# ruff (with C901: McCabe at most 15), then every function at most 15 and 120 lines or named
# in tools/complexity.py's exception list, which only shrinks
lint: ruff
	$(CORE_PY) tools/complexity.py

ruff: $(CORE_VENV)/.installed
	$(CORE_VENV)/bin/ruff check .

typecheck: $(CORE_VENV)/.installed
	$(CORE_PY) -m mypy

# mypy on the GUI (needs PySide6): strict less the checks its override in pyproject.toml
# turns off; clean, any error fails (its own cache: `make checks` runs it beside the core's
# mypy, another venv)
typecheck-gui: $(VENV)/.installed
	$(PY) -m mypy -p gui --cache-dir .mypy_cache/gui

# docs/claims.md's generated claims tables against the saved runs in bench/data/ (a family
# without saved runs is a warning line)
claims-check: $(CORE_VENV)/.installed
	$(CORE_PY) bench/claims.py --check

test-core: $(CORE_VENV)/.installed
	@$(CORE_PY) -c "import importlib.util, sys; sys.exit('PySide6 must not be installed in $(CORE_VENV)' if importlib.util.find_spec('PySide6') else 0)"
	@$(CORE_PY) -c "import importlib.util, sys; sys.exit('JAX (the deep extra) must not be installed in $(CORE_VENV)' if importlib.util.find_spec('jax') else 0)"
	$(CORE_PY) -m pytest -q -p no:cacheprovider -n $(JOBS) --dist worksteal -m "not slow" --durations=10 tests/core --doctest-modules core --ignore=core/deep

# The long studies (marked slow) make test leaves out, ~7 min of CPU; .ci/run runs them after
# make test. In tests/core: every pair of recorders at once, the fuzz campaign's mutants and
# slice, the advising thesis protocol and its workers/chunking check, the advising claims
# scripts, VDN on teams of 4. In tests/deep and tests/gui (JAX and Qt: .venv): the PPO
# recorder against the others as real processes, the network runs in the window (DQN, PPO),
# the defenses comparison (1,000 trainings) and the nine-analysis report.
test-slow: $(CORE_VENV)/.installed $(VENV)/.installed
	$(CORE_PY) -m pytest -q -p no:cacheprovider -n $(JOBS) -m slow tests/core
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider -n $(JOBS) -m slow tests/deep tests/gui

# The networks on JAX (the deep extra, installed in .venv only): a small suite, ~1-2 min (its
# slow tests run in make test-slow).
# core tests that need the deep extra (gymnasium, JAX) are skipped by test-core; they run here
CORE_NEEDS_DEEP := $(shell grep -rlE 'importorskip\("(jax|equinox)"\)' tests/core)

test-deep: $(VENV)/.installed
	$(PY) -m pytest -q -p no:cacheprovider -n $(JOBS) -m "not slow" --durations=10 tests/deep --doctest-modules core/deep
	$(PY) -m pytest -q -p no:cacheprovider -n $(JOBS) -m "needs_deep and not slow" $(CORE_NEEDS_DEEP)

test-gui: $(VENV)/.installed
	@bash tools/ensure-debs.sh test
	@bash tools/ensure-debs.sh report
	@# a real X server and window manager for the screen-fit test (skipped, saying so, without)
	@bash tools/ensure-debs.sh wm || echo "warning: no Xvfb/openbox: the window-manager fit test is skipped"
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider -n $(JOBS) -m "not slow" --durations=10 tests/gui

# The quick checks run side by side, two at a time (each is one process; --output-sync keeps
# each one's output together), then the three test suites one after another (each already
# uses every CPU). bench/claims.py --check and tools/complexity.py are not repeated here: the
# core suite runs both on the repository (tests/core/study/test_claims_check.py,
# tests/core/test_complexity.py) and fails with the same diff or list.
test: checks test-core test-gui test-deep smoke-if-built

checks: $(VENV)/.installed $(CORE_VENV)/.installed
	@$(MAKE) --no-print-directory -j2 --output-sync=target typecheck typecheck-gui docs lint-imports ruff

# The user guide: docs/guide/ and the pages beside it, HTML in build/docs-site/. --strict fails on
# a broken link or anchor; the command-line reference is generated from the parsers
# (tools/cli_reference.py). tests/core/test_docs_commands.py runs the guide's shell blocks.
docs: $(VENV)/.installed
	$(PY) -m mkdocs build --strict --quiet

# The one-folder app (PyInstaller): dist/privplan/privplan; the smoke test runs it as a user would.
package: $(VENV)/.installed
	PY=$(PY) bash packaging/build.sh
	PY=$(PY) bash packaging/smoke_test.sh

smoke-if-built: $(VENV)/.installed
	@if [ -x dist/privplan/privplan ]; then PY=$(PY) bash packaging/smoke_test.sh; \
	else echo "no bundle in dist/privplan ('make package' builds one): smoke test skipped"; fi

bench: $(VENV)/.installed
	$(PY) bench/bounds.py

# sparse models of 10^5 and 10^6 states; PrivPlan's bounds against Storm's (stormpy: core venv)
bench-scale: $(VENV)/.installed
	$(PY) bench/scale.py

bench-storm: $(CORE_VENV)/.installed
	$(CORE_PY) bench/storm.py

report-pages: $(VENV)/.installed
	@bash tools/ensure-debs.sh report
	$(PY) tools/make_report_pages.py

examples: $(VENV)/.installed
	$(PY) tools/make_examples.py

clean:
	rm -rf $(VENV) $(CORE_VENV) *.egg-info .pytest_cache build dist
