#!/bin/sh
# make gpu-bundle: a folder to copy to a GPU machine that has no OCaml: the test, bench and GPT-2 executables, the CUDA
# backend plugin beside them (src/runtime/backends/backend_cuda.ml finds it there), the golden data the GPU suites
# read (compressed; files over 1 MiB left out and listed), the Python benches and run.sh. Needs the plugin, i.e. cudajit installed.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${GPU_BUNDLE_DIR:-$ROOT/_build/gpu-bundle}
B=$ROOT/_build/default
GOLDEN=${GOLDEN:-$ROOT/../shared/golden}
if ! ocamlfind query cudajit.cuda >/dev/null 2>&1 || [ ! -f "$B/src/runtime/cuda/tinygrad_cuda_plugin.cmxs" ]; then
  echo "make gpu-bundle: the CUDA backend was not built: cudajit >= 0.7.2 is not installed (ocamlfind query cudajit.cuda fails)." >&2
  echo "Install it (opam install cudajit, with the CUDA toolkit at \$CUDA_PATH) and run make gpu-bundle again." >&2
  exit 1
fi
[ -d "$GOLDEN/ops" ] && [ -d "$GOLDEN/corpus" ] || { echo "make gpu-bundle: golden data not found in $GOLDEN (set GOLDEN=...)" >&2; exit 1; }
rm -rf "$OUT"; mkdir -p "$OUT"
cp "$B/test/test_main.exe" "$B/bench/bench_ops.exe" "$B/examples/gpt2.exe" "$B/src/runtime/cuda/tinygrad_cuda_plugin.cmxs" "$OUT/"
# the executables without their symbol tables (a third of their size; backtraces keep OCaml's own tables)
command -v strip >/dev/null && chmod u+w "$OUT"/*.exe && strip "$OUT"/*.exe
cp "$ROOT/tools/gpu_bundle/run.sh" "$OUT/"; chmod +x "$OUT/run.sh"
# the corpus's GPU oracle (tinygrad's emulator run of the programs whose GPU values differ from the CPU golden)
mkdir -p "$OUT/fixtures"; cp -r "$ROOT/test/fixtures/emu_corpus" "$OUT/fixtures/"
# the tinygrad and torch sides of the bench, and the GPT-2 comparison (run.sh's COMPARE_PYTHON, GPT2=1)
mkdir -p "$OUT/bench"
cp "$ROOT/bench/bench_ops.py" "$ROOT/bench/bench_torch.py" "$ROOT/bench/gpt2_compare.py" "$ROOT/bench/gpt2_tinygrad.py" "$OUT/bench/"
# the manifests and the corpus are kept whatever their size; op case files over 1 MiB are left out (their cases fail
# to load: listed)
(cd "$GOLDEN/.." && find golden -type f -size +1024k ! -name manifest.json ! -path 'golden/corpus/*' | sort > "$OUT/golden-left-out.txt"
 { find golden -type f -size -1025k; find golden -name manifest.json; find golden/corpus -type f; } | sort -u |
   tar czf "$OUT/golden.tar.gz" -T -)
echo "gpu bundle in $OUT: $(du -sh "$OUT" | cut -f1) ($(wc -l < "$OUT/golden-left-out.txt") golden files over 1 MiB left out, see golden-left-out.txt)"
# the NVRTC the plugin was linked against (libnvrtc.so.12 / .13): run.sh looks for it
objdump -p "$OUT/tinygrad_cuda_plugin.cmxs" | awk '/NEEDED/ && /libnvrtc/ {print $2}' > "$OUT/nvrtc-soname.txt"
echo "plugin needs: $(ldd "$OUT/tinygrad_cuda_plugin.cmxs" 2>/dev/null | awk '/=>/ {print $1}' | tr '\n' ' ')"
