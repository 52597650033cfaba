# evalsite: two commands on a fresh machine.
#   make site       build the bundled example site into _site/
#   make test       lint and type gates, then the whole test suite (unit, site, browser)
#   make test-fast  the suite without the browser tests, for everyday work (on every core)
#   make check      ruff and strict mypy only
#   make calibrate  measure every error rate generator.stats states (about 4 minutes; --quick: bench/calibrate.py)
#   make goldens    re-bless the golden files from the reference programs in ../shared
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
TESTING := $(VENV)/.installed-test

site: $(RUNTIME)
	$(BIN)/evalsite build --config site-config.yaml

# Tests run on every core (pytest-xdist; PYTEST_WORKERS=0 runs them in this one process), one test
# file per worker at a time so a module's fixtures are built once; files in collection order, where
# tests/conftest.py puts the files holding a `slow` test first (xdist's default order, most tests
# first, left the one-test files that build a whole site for last, one worker idle meanwhile).
# Bytecode is cached outside the tree even where PYTHONDONTWRITEBYTECODE is set: the suite starts
# about a hundred evalsite child processes, and each would compile generator/ again (and pytest
# rewrite every test module).
# The suite's temporary files (about 60,000 a run, and pytest deletes the run before last) live in
# memory where /dev/shm is a tmpfs with 2 GB free: on a disk mounted with discard one deletion took
# 1.5 ms, and deleting took half the wall time of tests/history and tests/ledger (issue 27).
# TEST_TMPDIR= (empty) keeps the system's; tests find their temporary root with tempfile.gettempdir().
PYTEST_WORKERS ?= auto
TEST_TMPDIR ?= $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && \
	[ "$$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2{print $$4}')" -gt 2000000 ] 2>/dev/null && echo /dev/shm/evalsite-tests)
PYTEST := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX="$${TMPDIR:-/tmp}/evalsite-pycache" \
	$(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR)) $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile \
	--no-loadscope-reorder

test: check
	$(if $(TEST_TMPDIR),mkdir -p $(TEST_TMPDIR))
	$(PYTEST)

test-fast: $(TESTING)
	$(if $(TEST_TMPDIR),mkdir -p $(TEST_TMPDIR))
	$(PYTEST) --ignore=tests/browser -m "not slow"

check: $(TESTING)
	$(BIN)/ruff check generator tests scripts bench
	$(BIN)/ruff format --check generator tests scripts bench
	$(BIN)/mypy

# Generated bench data is cached under /tmp/evalsite-bench (EVALSITE_BENCH_CACHE); bench-full adds
# the 5,000 x 10 memory row, the build with run pages and the site with the 100,000-receipt ledger.
# Every script runs even when one fails (bench_pages needs Chromium); make bench fails at the end then.
bench: $(TESTING)
	@failed=""; \
	for script in "bench_compare.py" "bench_ledger.py" "bench_site.py --no-run-pages" "bench_pages.py" \
	    "bench_leaderboard.py"; do \
	  $(BIN)/python bench/$$script || failed="$$failed $$script"; \
	done; \
	if [ -n "$$failed" ]; then echo "make bench: failed:$$failed" >&2; exit 1; fi

# Simulations of every stated error rate of generator.stats (docs/statistics.md, "Calibration").
calibrate: $(TESTING)
	nice -n 10 $(BIN)/python bench/calibrate.py

bench-full: $(TESTING)
	$(BIN)/python bench/bench_compare.py --full
	$(BIN)/python bench/bench_ledger.py
	$(BIN)/python bench/bench_site.py --with-ledger

# 100,000 runs a side, Comet and Inspect (issue 30): build time, peak memory of all processes, files and
# bytes against GitHub Pages' limits (bench/bench_scale.py; about an hour with the data generated once).
# Then the incremental-rebuild and split-then-merge figures (bench/bench_incremental.py).
bench-scale: $(TESTING)
	$(BIN)/python bench/bench_scale.py
	$(BIN)/python bench/bench_incremental.py

# The golden files of tests/compare and tests/ledger, re-blessed from the reference programs in ../shared.
goldens: $(TESTING)
	$(BIN)/python scripts/make_comet_golden.py
	$(BIN)/python scripts/make_ledger_golden.py

examples: $(RUNTIME)
	$(BIN)/python scripts/make_examples.py
	$(BIN)/python scripts/make_example_ledger.py
	$(BIN)/python scripts/make_example_ledger.py --pilot
# last: the example history's final build must read the inputs written above
	$(BIN)/python scripts/make_example_history.py
# the regenerated history does not extend the head the previous _site recorded: accept it once
	$(BIN)/evalsite build --config site-config.yaml --history-reset

$(BIN)/python:
	$(PY) -m venv $(VENV)

# The runtime alone is enough to build a site; tests add pytest, hypothesis, Playwright and the linters.
$(RUNTIME): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(TESTING): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test,browser,lint]'
	touch $(RUNTIME) $@

clean:
	rm -rf _site $(VENV) test-artifacts

.PHONY: site test test-fast check bench bench-full bench-scale calibrate goldens examples clean
