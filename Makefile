# Quick start: `make train` runs the main job, `make test` runs the test suite.
# Both create .venv on first use (Python 3.11+ and network access to PyPI needed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# torch is installed first and pinned so pip does not pull a multi-GB build by surprise;
# override on a GPU machine, e.g. `make TORCH=torch==2.13.0 ...` from the CUDA index.
TORCH ?= torch==2.13.0

.PHONY: setup browser train test test-slow lint bench ladder clean

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "$(TORCH)"
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $@

setup: $(BIN)/.installed

train: setup
	$(BIN)/hive-train experiment=smoke

# Debian's chromium for the hive-web browser tests (tests/test_web_browser.py), installed when
# missing; outside CI a failed install only warns (those tests then skip), under CI=true it fails.
browser:
	@test -x /usr/bin/chromium || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -q && $$SUDO apt-get install -y -q chromium; } || \
	  { [ "$$CI" != true ] && echo "make browser: chromium not installed, the browser tests will skip"; }

test: setup browser
	$(BIN)/python -m pytest -q

test-slow: setup
	$(BIN)/python -m pytest -q -m slow

lint: setup
	$(BIN)/ruff check .
	$(BIN)/lint-imports

bench: setup
	$(BIN)/python -m pip install -q -e ".[bench]"
	$(BIN)/python -m scripts.bench_engine

# The ladder (arena/ladder.py): a checkpoint against random, greedy and alphabeta depths 1-4,
# e.g. `make ladder CKPT=runs/cpu/checkpoints/best.pt SIMS=200 GAMES=100 WORKERS=2`.
SIMS ?= 64
GAMES ?= 100
WORKERS ?= 2
ladder: setup
	@test -n "$(CKPT)" || { echo "make ladder: set CKPT=path/to/ckpt.pt"; exit 2; }
	$(BIN)/hive-arena ladder "alphazero:ckpt=$(CKPT),sims=$(SIMS)" --games-per-pairing $(GAMES) --workers $(WORKERS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
