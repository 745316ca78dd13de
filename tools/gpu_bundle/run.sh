#!/bin/sh
# The GPU check, run on the GPU machine from the bundle's folder: the GPU runtime tests, the golden op replay and
# the corpus on DEV=CUDA, then the bench workloads on the GPU. Needs glibc, the NVIDIA driver (libcuda.so.1) and
# the NVRTC the plugin was linked against (nvrtc-soname.txt: libnvrtc.so.12 or .13, with its libnvrtc-builtins):
# from the CUDA toolkit (/usr/local/cuda/lib64), or pip's wheel nvidia-cuda-nvrtc unpacked beside the bundle
# (nvidia/cu13/lib, nvidia/cuda_nvrtc/lib) or named by NVRTC_PATH (a folder holding that library).
# Ends with "N passed, N failed, N skipped" (test cases, plus the bench as one case).
B=$(cd "$(dirname "$0")" && pwd)
NVRTC=$(cat "$B/nvrtc-soname.txt" 2>/dev/null); NVRTC=${NVRTC:-libnvrtc.so.13}
found=""
for d in "${NVRTC_PATH:-}" "$B/../nvidia/cu13/lib" "$B/../nvidia/cu12/lib" "$B/../nvidia/cuda_nvrtc/lib" "$B/nvidia/cu13/lib" \
         "$B/nvidia/cuda_nvrtc/lib" /usr/local/cuda/lib64; do
  [ -n "$d" ] && [ -e "$d/$NVRTC" ] && { found=$d; LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; break; }
done
export LD_LIBRARY_PATH
if [ -n "$found" ]; then echo "NVRTC: $NVRTC from $found"
else echo "NVRTC: $NVRTC not beside the bundle, in NVRTC_PATH or /usr/local/cuda/lib64 (the system's library path is tried)"; fi
# whether CUDA starts: the registry test lists the unavailable devices with the reason; selecting DEV=CUDA opens
# the device (cuInit, the context) and raises Invalid_argument with the CUresult and a hint when it cannot
pre=$(DEV=CUDA TEST_FILTER=gpu_runtime.device "$B/test_main.exe" 2>&1)
if ! printf '%s\n' "$pre" | grep -q "^1 passed, 0 failed"; then
  printf '%s\n' "$pre" | grep -E "CUDA unavailable:|^FAIL" | sed 's/^FAIL [^:]*: [^:]*: /CUDA cannot start: /'
  echo "0 passed, 1 failed"
  exit 1
fi
printf '%s\n' "$pre" | grep "DEV device"
mkdir -p "$B/shared" "$B/run"
[ -d "$B/shared/golden" ] || tar xzf "$B/golden.tar.gz" -C "$B/shared" || { echo "run.sh: cannot unpack golden.tar.gz"; echo "0 passed, 1 failed"; exit 1; }
export GOLDEN_OPS="$B/shared/golden/ops"
cd "$B/run"
pass=0; fail=0; skip=0; log="$B/run/log.txt"; : > "$log"
for s in gpu_runtime. ops_golden. corpus.; do
  echo "== DEV=CUDA TEST_FILTER=$s"
  out=$(DEV=CUDA TEST_FILTER=$s "$B/test_main.exe" 2>&1); rc=$?
  printf '%s\n' "$out" >> "$log"
  printf '%s\n' "$out" | grep -E "^FAIL" | head -20
  printf '%s\n' "$out" | grep -E "^suite "
  last=$(printf '%s\n' "$out" | grep -E "^[0-9]+ passed, [0-9]+ failed" | tail -1)
  if [ -n "$last" ]; then
    pass=$((pass + $(echo "$last" | cut -d' ' -f1))); fail=$((fail + $(echo "$last" | cut -d' ' -f3)))
    skip=$((skip + $(echo "$last" | cut -d' ' -f5 | grep -E '^[0-9]+$' || echo 0)))
  else
    echo "$s did not run (exit $rc): $(printf '%s\n' "$out" | tail -2)"; fail=$((fail + 1))
  fi
done
echo "== bench (DEV=CUDA bench_ops.exe)"
if DEV=CUDA "$B/bench_ops.exe" > "$B/run/bench.txt" 2>&1; then cat "$B/run/bench.txt"; pass=$((pass + 1))
else tail -5 "$B/run/bench.txt"; fail=$((fail + 1)); fi
echo "golden files left out of the bundle (over 1 MiB): $(wc -l < "$B/golden-left-out.txt") (golden-left-out.txt)"
echo "log: $log"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
