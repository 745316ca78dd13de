#!/bin/sh
# The GPU check, run on the GPU machine from the bundle's folder: the GPU runtime tests, the whole golden op replay
# (OPS_ALL=1) and the corpus on DEV=CUDA, then the bench workloads on the GPU. Needs glibc, the NVIDIA driver
# (libcuda.so.1) and the NVRTC the plugin was linked against (nvrtc-soname.txt: libnvrtc.so.12 or .13, with its
# libnvrtc-builtins): from the CUDA toolkit (/usr/local/cuda/lib64), or pip's wheel nvidia-cuda-nvrtc unpacked
# beside the bundle (nvidia/cu13/lib, nvidia/cuda_nvrtc/lib) or named by NVRTC_PATH (a folder holding that library).
# Knobs: SHARDS=n runs each suite as n processes at once (TEST_SHARD); SUITES the suites (default "gpu_runtime.
# ops_golden. corpus."); BENCH=0 leaves the bench out; GPU_DEV (default CUDA) the device;
# COMPARE_PYTHON, a python with torch (and transformers for GPT-2), runs the same bench workloads in torch on the
# GPU and, with tinygrad 0.14.0 importable (or TINYGRAD_WHL, a wheel installed into a temporary folder), in
# tinygrad; BENCH_ONLY the workloads (default: matmul 4096 in float32 and float16 and the beautiful_mnist step);
# GPT2=1 adds GPT-2 small decode (bench/gpt2_compare.py, a random model made by transformers); LOG_DIR the logs.
# Ends with "N passed, N failed, N skipped" (test cases, plus each bench run as one case).
B=$(cd "$(dirname "$0")" && pwd)
DEVN=${GPU_DEV:-CUDA}
SHARDS=${SHARDS:-1}
LOG=${LOG_DIR:-$B/run}
NVRTC=$(cat "$B/nvrtc-soname.txt" 2>/dev/null); NVRTC=${NVRTC:-libnvrtc.so.13}
found=""
for d in "${NVRTC_PATH:-}" "$B/../nvidia/cu13/lib" "$B/../nvidia/cu12/lib" "$B/../nvidia/cuda_nvrtc/lib" "$B/nvidia/cu13/lib" \
         "$B/nvidia/cuda_nvrtc/lib" /usr/local/cuda/lib64; do
  [ -n "$d" ] && [ -e "$d/$NVRTC" ] && { found=$d; LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; break; }
done
export LD_LIBRARY_PATH
if [ -n "$found" ]; then echo "NVRTC: $NVRTC from $found"
else echo "NVRTC: $NVRTC not beside the bundle, in NVRTC_PATH or /usr/local/cuda/lib64 (the system's library path is tried)"; fi
# whether the device starts: the registry test lists the unavailable devices with the reason; selecting DEV=CUDA
# opens the device (cuInit, the context) and raises Invalid_argument with the CUresult and a hint when it cannot
pre=$(DEV=$DEVN TEST_FILTER=gpu_runtime.device "$B/test_main.exe" 2>&1)
if ! printf '%s\n' "$pre" | grep -qE "^[1-9][0-9]* passed, 0 failed"; then
  printf '%s\n' "$pre" | grep -E "$DEVN unavailable:|^FAIL" | sed "s/^FAIL [^:]*: [^:]*: /$DEVN cannot start: /"
  printf '%s\n' "$pre" | tail -5
  echo "0 passed, 1 failed"
  exit 1
fi
printf '%s\n' "$pre" | grep "DEV device"
mkdir -p "$B/shared" "$B/run" "$LOG"
[ -d "$B/shared/golden" ] || tar xzf "$B/golden.tar.gz" -C "$B/shared" || { echo "run.sh: cannot unpack golden.tar.gz"; echo "0 passed, 1 failed"; exit 1; }
export GOLDEN_OPS="$B/shared/golden/ops"
# the suites look for the corpus's GPU oracle at fixtures/emu_corpus from their folder
[ -e "$B/run/fixtures" ] || ln -s "$B/fixtures" "$B/run/fixtures"
cd "$B/run"
pass=0; fail=0; skip=0
# [count LOG...]: adds the "N passed, N failed, N skipped" lines of the logs; a log without one is a failed run
count() {
  for f in "$@"; do
    last=$(grep -E "^[0-9]+ passed, [0-9]+ failed" "$f" | tail -1)
    if [ -n "$last" ]; then
      pass=$((pass + $(echo "$last" | cut -d' ' -f1))); fail=$((fail + $(echo "$last" | cut -d' ' -f3)))
      skip=$((skip + $(echo "$last" | cut -d' ' -f5 | grep -E '^[0-9]+$' || echo 0)))
    else
      echo "$f: did not finish: $(tail -2 "$f" | tr '\n' ' ')"; fail=$((fail + 1))
    fi
  done
}
for s in ${SUITES:-gpu_runtime. ops_golden. corpus.}; do
  echo "== DEV=$DEVN TEST_FILTER=$s (SHARDS=$SHARDS) $(date +%T)"
  st=$(date +%s); logs=""; i=0
  while [ $i -lt "$SHARDS" ]; do
    l="$LOG/test-$s$i.log"; logs="$logs $l"
    DEV=$DEVN OPS_ALL=1 TEST_FILTER=$s TEST_SHARD=$i/$SHARDS timeout "${SUITE_TIMEOUT:-900}" "$B/test_main.exe" > "$l" 2>&1 &
    i=$((i + 1))
  done
  wait
  cat $logs | grep -E "^FAIL" | cut -c1-400 | head -40
  count $logs
  echo "   $s: $(( $(date +%s) - st )) s"
done
ONLY=${BENCH_ONLY:-matmul_4096,matmul_4096_half,mnist_step_jit}
if [ "${BENCH:-1}" = 1 ]; then
echo "== bench, ours (DEV=$DEVN bench_ops.exe, BENCH_ONLY=$ONLY) $(date +%T)"
if DEV=$DEVN BENCH_ONLY=$ONLY timeout "${BENCH_TIMEOUT:-300}" "$B/bench_ops.exe" > "$LOG/bench-ours.txt" 2>&1; then
  cat "$LOG/bench-ours.txt"; pass=$((pass + 1))
else tail -5 "$LOG/bench-ours.txt"; fail=$((fail + 1)); fi
echo "== cold start, ours (first and second beautiful_mnist step of a fresh process, empty caches) $(date +%T)"
cold=$(mktemp -d)
XDG_CACHE_HOME=$cold DEV=$DEVN BENCH_ONLY=cold_start timeout "${BENCH_TIMEOUT:-300}" "$B/bench_ops.exe" 2>&1 | tee "$LOG/cold-ours.txt"
rm -rf "$cold"
if [ -n "${COMPARE_PYTHON:-}" ]; then
  PY=$COMPARE_PYTHON
  if [ -n "${TINYGRAD_WHL:-}" ]; then
    site=$(mktemp -d)
    "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$site" "$TINYGRAD_WHL" \
      && export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
  fi
  if "$PY" -c "import tinygrad" 2>/dev/null; then
    echo "== bench, tinygrad (DEV=$DEVN bench_ops.py) $(date +%T)"
    DEV=$DEVN BENCH_ONLY=$ONLY timeout "${BENCH_TIMEOUT:-300}" "$PY" "$B/bench/bench_ops.py" 2>&1 | tee "$LOG/bench-tinygrad.txt" | grep -E "^(RESULT|INFO)|Error"
    cold=$(mktemp -d)
    XDG_CACHE_HOME=$cold DEV=$DEVN BENCH_ONLY=cold_start timeout "${BENCH_TIMEOUT:-300}" "$PY" "$B/bench/bench_ops.py" 2>&1 | tee "$LOG/cold-tinygrad.txt" | grep -E "^(RESULT|INFO)|Error"
    rm -rf "$cold"
  else echo "(tinygrad not importable with $PY: no tinygrad rows)"; fi
  echo "== bench, torch (BENCH_DEVICE=cuda bench_torch.py) $(date +%T)"
  BENCH_DEVICE=cuda BENCH_ONLY=$ONLY timeout "${BENCH_TIMEOUT:-300}" "$PY" "$B/bench/bench_torch.py" 2>&1 | tee "$LOG/bench-torch.txt" | grep -E "^(RESULT|INFO)|Error"
  BENCH_DEVICE=cuda BENCH_ONLY=cold_start timeout "${BENCH_TIMEOUT:-300}" "$PY" "$B/bench/bench_torch.py" 2>&1 | tee "$LOG/cold-torch.txt" | grep -E "^(RESULT|INFO)|Error"
  if [ "${GPT2:-0}" = 1 ]; then
    echo "== GPT-2 small decode (bench/gpt2_compare.py --device cuda) $(date +%T)"
    DEV=$DEVN timeout "${GPT2_TIMEOUT:-400}" "$PY" "$B/bench/gpt2_compare.py" --device cuda --python "$PY" --ours "$B/gpt2.exe" \
      --model "${GPT2_MODEL:-/tmp/gpt2-small-random-init02}" --repeat 2 2>&1 | tee "$LOG/gpt2.txt" | tail -12
  fi
fi
fi
echo "golden files left out of the bundle (over 1 MiB): $(wc -l < "$B/golden-left-out.txt") (golden-left-out.txt)"
echo "logs: $LOG $(date +%T)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
