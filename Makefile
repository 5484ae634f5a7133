# Quick start: `make train` runs the main job, `make test` runs the test suite.
# Both create .venv on first use (Python 3.11+ and network access to PyPI needed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# torch is installed first and pinned so pip does not pull a multi-GB build by surprise;
# override on a GPU machine, e.g. `make TORCH=torch==2.13.0 ...` from the CUDA index.
TORCH ?= torch==2.13.0

.PHONY: setup train test test-slow lint bench clean

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "$(TORCH)"
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $@

setup: $(BIN)/.installed

train: setup
	$(BIN)/hive-train experiment=smoke

test: setup
	$(BIN)/python -m pytest -q

test-slow: setup
	$(BIN)/python -m pytest -q -m slow

lint: setup
	$(BIN)/ruff check .
	$(BIN)/lint-imports

bench: setup
	$(BIN)/python -m pip install -q -e ".[bench]"
	$(BIN)/python -m scripts.bench_engine

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
