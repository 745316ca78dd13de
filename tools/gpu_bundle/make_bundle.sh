#!/bin/sh
# make gpu-bundle: a folder to copy to a GPU machine that has no OCaml: the test and bench executables, the CUDA
# backend plugin beside them (src/runtime/backends/backend_cuda.ml finds it there), the golden data the GPU suites
# read (compressed; files over 1 MiB left out and listed) and run.sh. Needs the plugin, i.e. cudajit installed.
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
cp "$B/test/test_main.exe" "$B/bench/bench_ops.exe" "$B/src/runtime/cuda/tinygrad_cuda_plugin.cmxs" "$OUT/"
cp "$ROOT/tools/gpu_bundle/run.sh" "$OUT/"; chmod +x "$OUT/run.sh"
# the manifests are kept whatever their size; case files over 1 MiB are left out (their cases fail to load: listed)
(cd "$GOLDEN/.." && find golden -type f -size +1024k ! -name manifest.json | sort > "$OUT/golden-left-out.txt"
 { find golden -type f -size -1025k; find golden -name manifest.json; } | sort -u | tar czf "$OUT/golden.tar.gz" -T -)
echo "gpu bundle in $OUT: $(du -sh "$OUT" | cut -f1) ($(wc -l < "$OUT/golden-left-out.txt") golden files over 1 MiB left out, see golden-left-out.txt)"
# the NVRTC the plugin was linked against (libnvrtc.so.12 / .13): run.sh looks for it
objdump -p "$OUT/tinygrad_cuda_plugin.cmxs" | awk '/NEEDED/ && /libnvrtc/ {print $2}' > "$OUT/nvrtc-soname.txt"
echo "plugin needs: $(ldd "$OUT/tinygrad_cuda_plugin.cmxs" 2>/dev/null | awk '/=>/ {print $1}' | tr '\n' ' ')"
