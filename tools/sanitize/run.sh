#!/bin/sh
# make test-sanitize: the golden op suite (OPS_ALL=1), the default `make test` suites (the corpus among them) and
# the differential fuzzer with every CPU kernel built by clang with -fsanitize=address,undefined (SANITIZE=1), in
# each CPU mode. The ASan runtime is preloaded into the uninstrumented OCaml executables that dlopen the kernels.
# Before each mode, a planted out-of-bounds read must stop a run, so that a sanitizer that is not active cannot
# pass silently. Prints the kernels compiled and run, the cases run, the findings; exits 1 on any failure.
#   MODES (default "fast tinygrad"), STEPS (default "ops tests fuzz"), FUZZ_N (500), PYTHON (tinygrad 0.14.0)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
EXE=${TEST_EXE:-_build/default/test/test_main.exe}
RUNNER=${FUZZ_RUNNER:-_build/default/test/fuzz/fuzz_runner.exe}
MODES=${MODES:-fast tinygrad}
STEPS=${STEPS:-ops tests fuzz}
FUZZ_N=${FUZZ_N:-500}
export PYTHON=${PYTHON:-python3}
LOGDIR=${SANITIZE_LOGDIR:-_build/sanitize}
mkdir -p "$LOGDIR"

CC_=${CC:-clang}
case $(uname -m) in aarch64|arm64) ARCH=aarch64 ;; *) ARCH=$(uname -m) ;; esac
RT=$("$CC_" -print-file-name=libclang_rt.asan-$ARCH.so 2>/dev/null)
if [ ! -f "$RT" ]; then
  echo "test-sanitize: the ASan runtime libclang_rt.asan-$ARCH.so was not found (got '$RT'); install clang"
  exit 1
fi

# leaks are not findings here (the OCaml runtime keeps its heap to the end); a UBSan finding halts as ASan's do
export LD_PRELOAD="$RT" SANITIZE=1
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

status=0
total_cases=0
summary=""

# the "N passed, N failed[, N skipped]" line of a log (the test runner adds the skips, the fuzzer does not)
counts() { grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$1" | tail -1; }

for mode in $MODES; do
  export CPU_OPT=$mode
  stats="$LOGDIR/stats-$mode"
  rm -f "$stats"
  export SANITIZE_STATS="$stats"
  findings=0; cases=0; failed=0; skipped=0

  # the sanitizer must be live: a planted read one float past a buffer stops the process, naming the kernel
  log="$LOGDIR/planted-$mode.log"
  if TG_TEST_SANITIZE_CHILD=oob "$EXE" > "$log" 2>&1; then
    echo "test-sanitize [$mode]: the planted out-of-bounds read ran to the end: the sanitizer is not active"
    status=1; continue
  fi
  if ! grep -q "heap-buffer-overflow" "$log" || ! grep -q "in kernel E_planted_oob" "$log"; then
    echo "test-sanitize [$mode]: the planted out-of-bounds read was not reported as expected (see $log)"
    status=1; continue
  fi
  echo "test-sanitize [$mode]: the planted out-of-bounds read is caught (heap-buffer-overflow in E_planted_oob)"

  for step in $STEPS; do
    log="$LOGDIR/$step-$mode.log"
    start=$(date +%s)
    case $step in
      ops) OPS_ALL=1 TEST_FILTER=ops_golden. "$EXE" > "$log" 2>&1 ;;
      tests) "$EXE" > "$log" 2>&1 ;;
      fuzz) "$PYTHON" test/fuzz/fuzz.py --runner "$RUNNER" --n "$FUZZ_N" --seed 0 > "$log" 2>&1 ;;
      *) echo "test-sanitize: unknown step $step"; status=1; continue ;;
    esac
    rc=$?
    line=$(counts "$log")
    f=$(grep -c "SANITIZE: the finding above is in kernel" "$log")
    findings=$((findings + f))
    p=$(echo "$line" | sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*$/\1/')
    n=$(echo "$line" | sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*$/\2/')
    k=$(echo "$line" | sed -nE 's/^.*, ([0-9]+) skipped$/\1/p')
    cases=$((cases + ${p:-0} + ${n:-0})); failed=$((failed + ${n:-0})); skipped=$((skipped + ${k:-0}))
    echo "test-sanitize [$mode] $step: ${line:-no result line} (exit $rc, $f findings, $(( $(date +%s) - start )) s; $log)"
    if [ "$f" -gt 0 ]; then grep -B2 "SANITIZE: the finding above" "$log" | head -20; fi
    if [ "$rc" -ne 0 ] || [ -z "$line" ]; then status=1; fi
  done

  compiled=$(awk '$1 == "compiled" { s += $2 } END { print s + 0 }' "$stats" 2>/dev/null || echo 0)
  kernels=$(awk '$1 == "kernel" { print $2 }' "$stats" 2>/dev/null | sort -u | wc -l)
  summary="$summary
test-sanitize [$mode]: $kernels sanitized kernels run ($compiled compiled by this run), $cases cases run, $failed failed, $skipped skipped, $findings findings"
  total_cases=$((total_cases + cases))
done

echo "$summary"
echo "test-sanitize: $total_cases cases run in all; $( [ $status -eq 0 ] && echo OK || echo FAILED )"
exit $status
