# evalsite: two commands on a fresh machine.
#   make site   build the bundled example site into _site/
#   make test   run the whole test suite (unit, site, browser)
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
TESTING := $(VENV)/.installed-test

site: $(RUNTIME)
	$(BIN)/evalsite build --config site-config.yaml

test: $(TESTING)
	$(BIN)/python -m pytest

bench: $(RUNTIME)
	$(BIN)/python bench/bench_compare.py
	$(BIN)/python bench/bench_ledger.py
	$(BIN)/python bench/bench_site.py

examples: $(RUNTIME)
	$(BIN)/python scripts/make_examples.py
	$(BIN)/python scripts/make_example_ledger.py
	$(BIN)/python scripts/make_example_ledger.py --pilot

$(BIN)/python:
	$(PY) -m venv $(VENV)

# The runtime alone is enough to build a site; tests add pytest, hypothesis and Playwright.
$(RUNTIME): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(TESTING): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test,browser]'
	touch $(RUNTIME) $@

clean:
	rm -rf _site $(VENV) test-artifacts

.PHONY: site test bench examples clean
