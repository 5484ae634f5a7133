# Quick start: `make train` runs the main job, `make test` runs the test suite.
# Both create .venv on first use (Python 3.11+ and network access to PyPI needed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# torch is installed first, pinned, with TORCH_INDEX as an extra pip index (empty = PyPI only).
# PyPI's Linux x86 torch is the CUDA build (~3 GB of nvidia-* wheels); the CPU index offers
# torch==2.13.0+cpu (~200 MB), which pip prefers when it can reach it (a +cpu local version
# sorts above the plain one). So a machine without nvidia-smi gets the CPU index by default,
# one with nvidia-smi PyPI. Examples:
#   make setup TORCH_INDEX=https://download.pytorch.org/whl/cpu     # CPU build
#   make setup TORCH_INDEX=https://download.pytorch.org/whl/cu126   # CUDA 12.6 build
#   make setup TORCH_INDEX=                                         # PyPI (CUDA build on Linux x86)
# An unreachable index only makes pip warn and fall back to PyPI; the check after the install
# then says so on a machine without nvidia-smi.
TORCH ?= torch==2.13.0
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
HAS_NVIDIA_SMI := $(shell command -v nvidia-smi >/dev/null 2>&1 && echo yes)
TORCH_INDEX ?= $(if $(HAS_NVIDIA_SMI),,$(TORCH_CPU_INDEX))
TORCH_PIP := $(if $(strip $(TORCH_INDEX)),--extra-index-url $(strip $(TORCH_INDEX)))

.PHONY: setup browser train play test test-slow lint bench bench-inference bench-backend ladder clean

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q $(TORCH_PIP) "$(TORCH)"
	@test -n "$(HAS_NVIDIA_SMI)" || $(BIN)/python -c "import torch; torch.version.cuda and print(\
	  f'make setup: torch {torch.__version__} is a CUDA build on a machine without nvidia-smi;', \
	  'for the CPU build: make clean setup TORCH_INDEX=$(TORCH_CPU_INDEX) (needs that index)')"
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $@

# Compiles the engine's numba kernels ahead (about a minute, once per kernel source), so the
# first hive-perft / hive-train / HiveVecEnv starts at once; a second run returns at once.
setup: $(BIN)/.installed
	$(BIN)/python -m scripts.warm_kernels

train: setup
	$(BIN)/hive-train experiment=smoke

# Play against the network shipped with the package in this terminal (models/shipped/MODEL_CARD.md).
play: setup
	$(BIN)/hive-play --opponent alphazero

# Debian's chromium for the hive-web browser tests (tests/web/test_web_browser.py), installed when
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

# The network's forward pass alone: positions/s per backend (eager, compile, onnx, numba), size and
# batch on one CPU core; e.g. `make bench-inference ARGS="--device cuda --backends eager compile"`.
bench-inference: setup
	$(BIN)/python -m pip install -q -e ".[onnx]"
	$(BIN)/python -m scripts.bench_inference $(ARGS)

# Self-play positions/s with backend=local against backend=ray (a local Ray), one run.
bench-backend: setup
	$(BIN)/python -m scripts.bench_backend

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
