#!/usr/bin/env bash
# GPU check: one script, under 8 minutes, that measures this project on one CUDA machine and writes
# ONE JSON report.
#
#   bash scripts/gpu_check.sh [REPORT.json]        # default ./gpu_check.json
#
# On a fresh clone it runs `make setup` first (timed; the Makefile picks PyPI's CUDA torch when
# nvidia-smi exists), then the steps of training/gpu_check.py, each with its own timeout so one
# hang cannot eat the budget (a failed step is recorded with its log's tail and the next runs):
#   inference  python -m scripts.bench_inference: eager and compile on CUDA, tiny/small/default, B 64 256 1024
#   search     python -m scripts.bench_search --device cuda --sizes tiny default --batches 64 256 1024
#   selfplay   python -m scripts.bench_selfplay --device cuda: one self-play process's positions/s and
#              its CPU-side ceiling (a network that costs nothing), default network, 256 games
#   train      hive-train experiment=gpu in a temporary run dir, the rest of the budget (about 5 min),
#              nvidia-smi sampling utilisation and memory every second; positions/s and steps/s
#              from the run's train.log and TensorBoard scalars
#   match      hive-arena gauntlet of the run's final.pt (else the shipped network) against greedy, 4 games
# The report holds every figure and each step's status, exit code and seconds; the script exits 0
# once the report is written (read "ok" and the steps in it), 2 on bad usage.
#
# Without CUDA (no nvidia-smi on PATH) it prints one line and exits 0 at once, before any setup;
# when torch, once set up, sees no CUDA device, it prints one line, writes the report (setup and
# torch facts only) and exits 0.
#
# Environment:
#   GPU_CHECK_BUDGET_S  seconds for the whole check, setup included (default 470); the training
#                       run gets what the other steps leave
#   GPU_CHECK_SETUP_S   timeout of `make setup` (default 300)
#   GPU_CHECK_WORKDIR   where logs, the run dir and the arena results go (default a new /tmp/gpu_check.*)
#   GPU_CHECK_DEVICE    cuda (default) or cpu: a dry run of the same steps on the CPU with a tiny
#                       network and short times, no nvidia-smi needed; for checking this script's
#                       plumbing and the report's shape on a machine without a GPU, not a benchmark
set -u

# Nothing but builtins until the CUDA check, so that it answers at once on any machine.
out=${1:-gpu_check.json}
[[ $out == /* ]] || out=$PWD/$out
device=${GPU_CHECK_DEVICE:-cuda}
if [[ $device != cuda && $device != cpu ]]; then
  echo "gpu_check: GPU_CHECK_DEVICE must be cuda or cpu, not '$device'" >&2
  exit 2
fi
if [[ $device == cuda ]] && ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "gpu_check: no CUDA on this machine (nvidia-smi not found); nothing to check"
  exit 0
fi

here=${BASH_SOURCE[0]}
[[ $here == */* ]] || here=./$here
cd "${here%/*}/.." || exit 1
started=$EPOCHREALTIME
work=${GPU_CHECK_WORKDIR:-$(mktemp -d /tmp/gpu_check.XXXXXX)}
mkdir -p "$work" || exit 1
echo "gpu_check: device $device, logs in $work, report $out"

echo "gpu_check: make setup (timeout ${GPU_CHECK_SETUP_S:-300} s)"
timeout -k 20 "${GPU_CHECK_SETUP_S:-300}" make setup >"$work/setup.log" 2>&1
setup_rc=$?
setup_s=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
echo "gpu_check: make setup: exit $setup_rc in $setup_s s"

python=.venv/bin/python
[[ -x $python ]] || python=python3  # the report is still written (training/gpu_check.py: stdlib only)
exec "$python" -m scripts.gpu_check --out "$out" --work "$work" --device "$device" --started "$started" \
  --budget "${GPU_CHECK_BUDGET_S:-470}" --setup-rc "$setup_rc" --setup-seconds "$setup_s"
