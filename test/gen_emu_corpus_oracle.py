# Oracle for test_corpus.ml on the emulator (DEV=EMU::sm_80, DEV=EMU::METAL): the corpus programs whose GPU
# kernel computes other values than the CPU kernel of the corpus golden (half products rounded to half,
# float32 sums split over locals and GROUP reduces), run by tinygrad 0.14.0's own emulator, its PYTHON device.
#
# tinygrad selects it with DEV=PYTHON::<arch> (runtime/ops_python.py PythonRenderer: sm_* borrows the CUDA
# tensor cores, METAL Metal's) but keeps the generic Renderer's limits and ops. The port's emulator renders
# with the target's whole renderer (docs/divergences.md), so here each kernel is lowered by tinygrad's
# CUDARenderer (sm_80) or MetalRenderer (Apple9), built as the corpus harvester built its GPU files, and the
# UOp program it lowers is handed to tinygrad's PythonProgram: the very program the port's emulator runs.
# Every kernel's name and applied opts must equal those of the corpus's cuda_<mode>.json / metal_<mode>.json.
#
# One fresh process per (program, target, mode), as the harvester ran them: inputs realized first, one
# Tensor.realize of the outputs, then .numpy(). Writes test/fixtures/emu_corpus/<id>.<arch>.<mode>.out<i>.npy
# and the runs' kernels to test/fixtures/emu_corpus/manifest.json (merged with the runs already there).
# Needs Python >= 3.12, where tinygrad's emulator stores half (memoryview's 'e' format):
#   python3.12 -m venv /work/venv-emu2 && /work/venv-emu2/bin/pip install tinygrad==0.14.0 numpy
#   /work/venv-emu2/bin/python test/gen_emu_corpus_oracle.py [program ...]
import os, sys, json, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.environ.get("GOLDEN_CORPUS", os.path.join(HERE, "../../shared/golden/corpus"))
OUT = os.path.join(HERE, "fixtures", "emu_corpus")
ARCHS = ["sm_80", "METAL"]
# (program, modes): the programs whose GPU values differ from the CPU golden, in the modes where they do
PROGRAMS = [
  ("mm_half_out", ["noopt", "default"]),
  ("cast_half_inputs", ["noopt", "default"]),
  ("red_large_rows", ["default"]),
  ("mm_vecmat", ["default"]),
  ("mm_large", ["default"]),
]

def target_renderer(arch):
  from tinygrad.helpers import Target
  from tinygrad.renderer import Renderer
  from tinygrad.renderer.cstyle import CUDARenderer, MetalRenderer
  from tinygrad.codegen.opt import tc
  from tinygrad.runtime.ops_python import PythonRenderer, PythonCompiler
  if arch == "METAL":
    ren = object.__new__(MetalRenderer)
    Renderer.__init__(ren, Target("METAL", "", "Apple9"))
    ren.tensor_cores = tc.metal
  else:
    ren = object.__new__(CUDARenderer)
    Renderer.__init__(ren, Target("CUDA", "", arch))
    ren.tensor_cores = tc.get_cuda(arch)
  # compiled for tinygrad's emulator: the source is the pickled UOp program
  ren.compiler = PythonCompiler()
  ren.render = lambda uops: PythonRenderer.render(ren, uops)
  return ren

def child(pid, arch, mode):
  import numpy as np
  from tinygrad import Tensor, Device, dtypes, nn
  from tinygrad.helpers import Context
  from tinygrad.engine import realize
  from tinygrad.uop.ops import Ops
  ren = target_renderer(arch)
  type(Device["PYTHON"]).renderer = property(lambda self: ren)

  # the kernels of every compiled LINEAR, as the harvester observed compile_linear
  ran = []
  orig = realize.compile_linear
  def hook(linear, *a, **kw):
    out = orig(linear, *a, **kw)
    for call in out.src:
      if call.src[0].op is Ops.PROGRAM:
        info = call.src[0].src[0].arg
        ran.append({"name": str(info.name), "opts": [repr(o) for o in info.applied_opts]})
    return out
  realize.compile_linear = hook

  progs = []
  def program(*a, **kw):
    def deco(f): progs.append(f); return f
    return deco
  def inp(name, *a, **kw): return Tensor(np.load(f"{CORPUS}/{pid}/in_{name}.npy")).realize()
  src = open(f"{CORPUS}/{pid}/desc.txt").read().split("python source (tinygrad 0.14.0):\n", 1)[1]
  exec(src, {"program": program, "inp": inp, "Tensor": Tensor, "np": np, "dtypes": dtypes, "Context": Context,
             "nn": nn})
  ran.clear()
  outs = progs[0]()
  outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
  Tensor.realize(*outs)
  values = [o.numpy() for o in outs]
  for i, v in enumerate(values): np.save(os.path.join(OUT, f"{pid}.{arch}.{mode}.out{i}.npy"), v)
  print(json.dumps({"kernels": ran, "outputs": len(values)}))

def corpus_kernels(pid, arch, mode):
  # the corpus's GPU kernels for this target, in the order of the CPU run's build, realize and readback calls
  cpu = json.load(open(f"{CORPUS}/{pid}/cpu_{mode}.json"))
  gpu = json.load(open(f"{CORPUS}/{pid}/{'metal' if arch == 'METAL' else 'cuda'}_{mode}.json"))
  by_cpu = {k["cpu_kernel"]: k for k in gpu["kernels"]}
  return [{"name": by_cpu[c["kernel"]]["name"], "opts": by_cpu[c["kernel"]]["opts_str"]}
          for c in cpu["calls"] if c["kind"] == "kernel" and c["phase"] in ("build", "realize", "readback")]

def main(only):
  assert sys.version_info >= (3, 12), "tinygrad's emulator stores half only on Python >= 3.12"
  os.makedirs(OUT, exist_ok=True)
  mpath = os.path.join(OUT, "manifest.json")
  runs = json.load(open(mpath))["runs"] if os.path.exists(mpath) else []
  for pid, modes in PROGRAMS:
    if only and pid not in only: continue
    for arch in ARCHS:
      for mode in modes:
        env = {**os.environ, "DEV": f"PYTHON::{arch}", "NOOPT": "1" if mode == "noopt" else "0",
               "CACHELEVEL": "0", "DEBUG": "0", "PARALLEL": "0", "NO_COLOR": "1"}
        r = subprocess.run([sys.executable, __file__, "--child", pid, arch, mode], env=env,
                           capture_output=True, text=True)
        if r.returncode != 0: sys.exit(f"{pid} {arch} {mode}:\n{r.stderr}")
        got = json.loads(r.stdout.strip().splitlines()[-1])
        want = corpus_kernels(pid, arch, mode)
        if got["kernels"] != want:
          sys.exit(f"{pid} {arch} {mode}: kernels {got['kernels']}, the corpus has {want}")
        runs = [x for x in runs if (x["id"], x["arch"], x["mode"]) != (pid, arch, mode)]
        runs.append({"id": pid, "arch": arch, "mode": mode, "outputs": got["outputs"],
                     "kernels": got["kernels"]})
        print(f"{pid} {arch} {mode}: {[k['name'] for k in got['kernels']]}", file=sys.stderr)
  order = [p for p, _ in PROGRAMS]
  runs.sort(key=lambda x: (order.index(x["id"]), ARCHS.index(x["arch"]), x["mode"] != "noopt"))
  with open(mpath, "w") as f:
    json.dump({"generator": "test/gen_emu_corpus_oracle.py", "tinygrad": "0.14.0", "runs": runs}, f, indent=1)
    f.write("\n")

if __name__ == "__main__":
  if len(sys.argv) == 5 and sys.argv[1] == "--child": child(*sys.argv[2:])
  else: main(sys.argv[1:])
