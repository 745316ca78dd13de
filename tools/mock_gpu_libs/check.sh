#!/bin/sh
# make check-gpu-backends: type-checks the optional GPU backends (src/runtime/cuda, src/runtime/metal and the
# (select) of src/runtime/backends; CUDA is loaded there as a plugin, tinygrad_cuda_plugin.cmxs, whose link
# needs the real cudajit) against MOCK interfaces of cudajit 0.7.2 and metal 0.1.1 (generated from
# their published .mli files by gen_mocks.py: same modules, types, labels and optional arguments), in a separate
# dune workspace: ROOT/_build_mockgpu/ws with symlinks to src/ and to the mock packages. The real build never sees
# the mocks (tools/dune marks them data-only) and uses the real packages when they are installed.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WS=${MOCK_GPU_WS:-$ROOT/_build_mockgpu/ws}
mkdir -p "$WS/mock"
cp "$ROOT/dune-project" "$ROOT/tinygrad.opam" "$WS/"
ln -sfn "$ROOT/src" "$WS/src"
ln -sfn "$ROOT/tools/mock_gpu_libs/cudajit" "$WS/mock/cudajit"
ln -sfn "$ROOT/tools/mock_gpu_libs/metal" "$WS/mock/metal"
ln -sfn "$ROOT/tools/mock_gpu_libs/sexplib0" "$WS/mock/sexplib0"
cd "$WS"
# the libraries are available against the mocks, so the backends' (select)s pick the real modules
dune build --root . @src/runtime/cuda/check @src/runtime/metal/check @src/runtime/backends/check 2>&1
for f in src/runtime/cuda/.tinygrad_cuda.objs/byte/tinygrad_cuda__Ops_cuda.cmt \
         src/runtime/metal/.tinygrad_metal.objs/byte/tinygrad_metal__Ops_metal.cmt \
         src/runtime/backends/backend_metal.ml; do
  test -e "_build/default/$f" || { echo "check-gpu-backends: missing _build/default/$f"; exit 1; }
done
grep -q Tinygrad_metal _build/default/src/runtime/backends/backend_metal.ml || { echo "check-gpu-backends: select did not pick backend_metal.on.ml"; exit 1; }
echo "check-gpu-backends: tinygrad.cuda, tinygrad.metal and tinygrad.backends type-check against cudajit 0.7.2 / metal 0.1.1 (mock interfaces)"
