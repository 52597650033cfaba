# evalsite: two commands on a fresh machine.
#   make site   build the bundled example site into _site/
#   make test   run the whole test suite
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

site: $(STAMP)
	$(BIN)/evalsite build --config site-config.yaml

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/bench_compare.py
	$(BIN)/python bench/bench_ledger.py

examples: $(STAMP)
	$(BIN)/python scripts/make_examples.py

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q -e '.[test,browser]'
	touch $(STAMP)

clean:
	rm -rf _site $(VENV)

.PHONY: site test bench examples clean
