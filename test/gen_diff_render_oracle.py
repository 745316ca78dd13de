# Differential oracle for test/test_diff_render.ml: kernel ASTs of a broad set of small tinygrad programs, scheduled for
# DEV=CPU, and what tinygrad 0.14.0 generates for each of them with six renderer/mode targets:
#   cpu   : ClangRenderer (x86_64) under NUM_CPU_THREADS=8
#   cuda  : CUDARenderer("sm_89"), tensor_cores=tc.get_cuda("sm_89")
#   metal : MetalRenderer (Apple9), tensor_cores=tc.metal
# each in the default mode and with NOOPT=1. The renderers get the base Compiler (compile = identity), as the golden
# corpus harvester built them (/work/shared/golden/corpus/README.md).
#
# Programs: every helper_test_op call of tinygrad's test/backend/test_ops.py (torch stubbed out; only the tinygrad
# function runs, on Tensor.empty inputs; forward and, unless forward_only, the gradient of .sum() w.r.t. the inputs),
# plus the hand-written dtype programs below (unary/binary ops, casts, bitcasts, reductions over many dtypes).
#
#   /work/ref/venv/bin/python test/gen_diff_render_oracle.py            writes test/diff_render_oracle_<i>.json
#   /work/ref/venv/bin/python test/gen_diff_render_oracle.py src I T M   prints tinygrad's source of kernel I for
#                                                                        target T (cpu|cuda|metal), mode M (default|noopt)
import os, sys, json, hashlib, re, random, time, types, traceback
os.environ["DEV"] = "CPU"
os.environ.setdefault("NUM_CPU_THREADS", "8")
os.environ["CACHELEVEL"] = "0"
os.environ["NO_COLOR"] = "1"
from tinygrad import Tensor, dtypes, Device
from tinygrad.helpers import Target, Context
from tinygrad.renderer import Renderer
from tinygrad.device import Compiler
from tinygrad.renderer.cstyle import CUDARenderer, MetalRenderer, ClangRenderer
from tinygrad.codegen.opt import tc
from tinygrad.codegen import do_to_program
from tinygrad.uop.ops import Ops, UOp
from tinygrad.uop.render import pyrender

HERE = os.path.dirname(os.path.abspath(__file__))
# the kernels are split over several files (each under ~3 MB): diff_render_oracle_<i>.json, CHUNK kernels each
def OUT(i): return os.path.join(HERE, f"diff_render_oracle_{i}.json")
CHUNK = 1100
MAX_KERNELS = int(os.environ.get("MAX_KERNELS", "100000"))

def cpu():
  r = object.__new__(ClangRenderer); Renderer.__init__(r, Device["CPU"].renderer.target); r.compiler = Compiler(); return r
def cuda():
  r = object.__new__(CUDARenderer); Renderer.__init__(r, Target("CUDA","","sm_89")); r.compiler=Compiler(); r.tensor_cores=tc.get_cuda("sm_89"); return r
def metal():
  r = object.__new__(MetalRenderer); Renderer.__init__(r, Target("METAL","","Apple9")); r.compiler=Compiler(); r.tensor_cores=tc.metal; return r
RENDERERS = {"cpu": cpu, "cuda": cuda, "metal": metal}
TARGETS = [(t, m) for t in ("cpu", "cuda", "metal") for m in ("default", "noopt")]

def normalise(s): return " ".join(s.split())

def lower(ast, target, mode):
  with Context(NOOPT=1 if mode == "noopt" else 0, NUM_CPU_THREADS=8):
    return do_to_program(ast, RENDERERS[target]())

def program_source(prg): return [s for s in prg.src if s.op is Ops.SOURCE][0].arg

# ---------------------------------------------------------------- harvesting

captured = []  # (origin, ast)
def capture(origin, *ts):
  ts = [t.cast(dtypes.default_float if dtypes.is_float(t.dtype) else dtypes.int32 if t.dtype != dtypes.bool else dtypes.bool)
        if t.dtype in dtypes.weaks else t for t in ts]
  ts = [t for t in ts if isinstance(t, Tensor)]
  if not ts: return
  lin = ts[0].schedule_linear(*ts[1:])
  for c in lin.src:
    if c.op is Ops.CALL and c.src[0].op is Ops.SINK: captured.append((origin, c.src[0]))

def harvest_test_ops():
  from unittest import mock
  sys.modules["torch"] = mock.MagicMock()
  sys.path.insert(0, "/work/ref/tgrepo/test/backend"); sys.path.insert(0, "/work/ref/tgrepo")
  import test_ops
  cur = {"name": "?", "n": 0}
  def helper_test_op(shps, torch_fxn, tinygrad_fxn=None, forward_only=False, vals=None, low=-2, high=2, **kw):
    if tinygrad_fxn is None: tinygrad_fxn = torch_fxn
    cur["n"] += 1
    origin = f"{cur['name']}#{cur['n']}"
    if shps is None: tst = [Tensor(x) for x in vals]
    else: tst = [Tensor.empty(*s, dtype=dtypes.default_float) if len(s) else Tensor.empty(dtype=dtypes.default_float).reshape(()) for s in shps]
    out = tinygrad_fxn(*tst)
    if isinstance(out, (tuple, list)): capture(origin, *out)
    else: capture(origin, out)
    if not forward_only and tst and isinstance(out, Tensor) and dtypes.is_float(out.dtype):
      try:
        grads = tinygrad_fxn(*tst).sum().gradient(*tst)
        capture(origin + ":grad", *grads)
      except Exception: pass
  test_ops.helper_test_op = helper_test_op
  for cls in (test_ops.TestOps, test_ops.TestOpsUint8):
    for name in sorted(n for n in dir(cls) if n.startswith("test_")):
      if any(s in name for s in ("slow", "large", "big", "huge")): continue
      cur["name"], cur["n"] = name, 0
      t0 = time.time()
      try: getattr(cls(name), name)()
      except BaseException as e:
        if isinstance(e, KeyboardInterrupt): raise
      if time.time() - t0 > 10: print(f"slow: {name} {time.time()-t0:.1f}s", file=sys.stderr)

DTS = [dtypes.float32, dtypes.float16, dtypes.bfloat16, dtypes.int8, dtypes.uint8, dtypes.int32, dtypes.int64, dtypes.bool]
def dropout(x):
  with Context(TRAINING=1): return x.dropout(0.5)

def harvest_dtypes():
  def E(*s, dt): return Tensor.empty(*s, dtype=dt)
  progs = []
  for dt in DTS:
    n = dt.name
    progs += [(f"{n}_add", lambda dt=dt: E(4, 8, dt=dt) + E(4, 8, dt=dt)),
              (f"{n}_mul_const", lambda dt=dt: E(13, dt=dt) * 3),
              (f"{n}_max", lambda dt=dt: E(4, 8, dt=dt).maximum(E(4, 8, dt=dt))),
              (f"{n}_cmplt", lambda dt=dt: E(16, dt=dt) < E(16, dt=dt)),
              (f"{n}_where", lambda dt=dt: (E(16, dt=dtypes.bool)).where(E(16, dt=dt), E(16, dt=dt))),
              (f"{n}_sum", lambda dt=dt: E(8, 16, dt=dt).sum(axis=1)),
              (f"{n}_sum_all", lambda dt=dt: E(300, dt=dt).sum()),
              (f"{n}_max_red", lambda dt=dt: E(8, 16, dt=dt).max(axis=0)),
              (f"{n}_min_red", lambda dt=dt: E(37, dt=dt).min()),
              (f"{n}_cumsum", lambda dt=dt: E(20, dt=dt).cumsum()),
              (f"{n}_contig_T", lambda dt=dt: E(7, 9, dt=dt).T.contiguous()),
              (f"{n}_pad", lambda dt=dt: E(5, 5, dt=dt).pad((1, 2, 0, 1))),
              (f"{n}_flip", lambda dt=dt: E(6, 10, dt=dt).flip(1).contiguous())]
    if dt != dtypes.bool:
      progs += [(f"{n}_sub", lambda dt=dt: E(33, dt=dt) - E(33, dt=dt)),
                (f"{n}_neg", lambda dt=dt: -E(33, dt=dt)),
                (f"{n}_div", lambda dt=dt: E(33, dt=dt) / E(33, dt=dt)),
                (f"{n}_idiv", lambda dt=dt: E(33, dt=dt) // 3 if not dtypes.is_float(dt) else E(33, dt=dt) * 0.5),
                (f"{n}_mod", lambda dt=dt: E(33, dt=dt) % 5 if not dtypes.is_float(dt) else E(33, dt=dt).abs()),
                (f"{n}_prod", lambda dt=dt: E(4, 9, dt=dt).prod(axis=1)),
                (f"{n}_mean", lambda dt=dt: E(4, 9, dt=dt).mean(axis=1)),
                (f"{n}_argmax", lambda dt=dt: E(4, 9, dt=dt).argmax(axis=1)),
                (f"{n}_matmul", lambda dt=dt: E(8, 16, dt=dt) @ E(16, 8, dt=dt)),
                (f"{n}_matmul_big", lambda dt=dt: E(64, 64, dt=dt) @ E(64, 64, dt=dt)),
                (f"{n}_mv", lambda dt=dt: E(256, 128, dt=dt) @ E(128, dt=dt)),
                (f"{n}_relu", lambda dt=dt: E(64, dt=dt).relu()),
                (f"{n}_abs", lambda dt=dt: E(64, dt=dt).abs()),
                (f"{n}_sign", lambda dt=dt: E(64, dt=dt).sign())]
    if dtypes.is_float(dt):
      for f in ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "reciprocal", "exp2", "log2", "trunc", "floor", "ceil", "round",
                "gelu", "softplus", "erf", "rsqrt", "tan", "square", "isnan", "isinf"):
        progs.append((f"{n}_{f}", lambda dt=dt, f=f: getattr(E(3, 11, dt=dt), f)()))
      progs += [(f"{n}_pow", lambda dt=dt: E(24, dt=dt) ** E(24, dt=dt)),
                (f"{n}_softmax", lambda dt=dt: E(4, 33, dt=dt).softmax()),
                (f"{n}_log_softmax", lambda dt=dt: E(4, 33, dt=dt).log_softmax()),
                (f"{n}_var", lambda dt=dt: E(5, 17, dt=dt).var(axis=1)),
                (f"{n}_std", lambda dt=dt: E(50, dt=dt).std()),
                (f"{n}_conv2d", lambda dt=dt: E(1, 4, 9, 9, dt=dt).conv2d(E(8, 4, 3, 3, dt=dt))),
                (f"{n}_conv2d_16", lambda dt=dt: E(2, 16, 12, 12, dt=dt).conv2d(E(16, 16, 3, 3, dt=dt), padding=1)),
                (f"{n}_avgpool", lambda dt=dt: E(1, 3, 8, 8, dt=dt).avg_pool2d()),
                (f"{n}_maxpool", lambda dt=dt: E(1, 3, 8, 8, dt=dt).max_pool2d())]
    else:
      progs += [(f"{n}_and", lambda dt=dt: E(16, dt=dt) & E(16, dt=dt)),
                (f"{n}_or", lambda dt=dt: E(16, dt=dt) | E(16, dt=dt)),
                (f"{n}_xor", lambda dt=dt: E(16, dt=dt) ^ E(16, dt=dt)),
                (f"{n}_not", lambda dt=dt: E(16, dt=dt).logical_not() if dt == dtypes.bool else ~E(16, dt=dt))]
      if dt != dtypes.bool:
        progs += [(f"{n}_shl", lambda dt=dt: E(16, dt=dt) << 2), (f"{n}_shr", lambda dt=dt: E(16, dt=dt) >> 1)]
    for dt2 in DTS:
      if dt2 != dt: progs.append((f"cast_{n}_{dt2.name}", lambda dt=dt, dt2=dt2: E(3, 7, dt=dt).cast(dt2)))
      if dt2 != dt and dt2.itemsize == dt.itemsize and dt != dtypes.bool and dt2 != dtypes.bool:
        progs.append((f"bitcast_{n}_{dt2.name}", lambda dt=dt, dt2=dt2: E(3, 7, dt=dt).bitcast(dt2)))
  # mixed and misc programs
  F = dtypes.float32
  progs += [
    ("one_hot", lambda: E(10, dt=dtypes.int32).one_hot(7)),
    ("gather", lambda: E(5, 6, dt=F).gather(1, E(5, 3, dt=dtypes.int32))),
    ("index_tensor", lambda: E(10, 4, dt=F)[E(6, dt=dtypes.int32)]),
    ("arange", lambda: Tensor.arange(37)),
    ("arange_f", lambda: Tensor.arange(0, 3, 0.25)),
    ("linspace", lambda: Tensor.linspace(0, 1, 17)),
    ("eye", lambda: Tensor.eye(9)),
    ("triu", lambda: E(9, 11, dt=F).triu(1)),
    ("tril", lambda: E(9, 11, dt=F).tril()),
    ("cat", lambda: E(3, 4, dt=F).cat(E(5, 4, dt=F))),
    ("stack", lambda: Tensor.stack(E(3, 4, dt=F), E(3, 4, dt=F), dim=1)),
    ("shrink", lambda: E(9, 9, dt=F).shrink(((1, 7), (2, 5))).contiguous()),
    ("rand", lambda: Tensor.rand(5, 7)),
    ("randn", lambda: Tensor.randn(64)),
    ("randint", lambda: Tensor.randint(33, low=0, high=9)),
    ("dropout", lambda: dropout(E(64, dt=F))),
    ("conv_transpose", lambda: E(1, 4, 6, 6, dt=F).conv_transpose2d(E(4, 2, 3, 3, dt=F))),
    ("conv_t_stride", lambda: E(1, 4, 6, 6, dt=F).conv_transpose2d(E(4, 2, 3, 3, dt=F), stride=2)),
    ("mm_half_float", lambda: E(64, 64, dt=dtypes.half).matmul(E(64, 64, dt=dtypes.half), dtype=dtypes.float)),
    ("mm_bf16_float", lambda: E(64, 64, dt=dtypes.bfloat16).matmul(E(64, 64, dt=dtypes.bfloat16), dtype=dtypes.float)),
    ("mm_odd", lambda: E(17, 33, dt=F) @ E(33, 9, dt=F)),
    ("mm_batched", lambda: E(3, 16, 32, dt=F) @ E(3, 32, 16, dt=F)),
    ("mm_256", lambda: E(256, 256, dt=F) @ E(256, 256, dt=F)),
    ("sum_large", lambda: E(4096, dt=F).sum()),
    ("sum_rows_large", lambda: E(32, 1024, dt=F).sum(axis=1)),
    ("sum_cols_large", lambda: E(1024, 32, dt=F).sum(axis=0)),
    ("layernorm", lambda: E(8, 64, dt=F).layernorm()),
    ("bn_like", lambda: (E(4, 8, 5, 5, dt=F) - E(4, 8, 5, 5, dt=F).mean(axis=(0, 2, 3), keepdim=True)) * 2),
    ("attention", lambda: Tensor.scaled_dot_product_attention(E(1, 2, 8, 16, dt=F), E(1, 2, 8, 16, dt=F), E(1, 2, 8, 16, dt=F))),
    ("cross_entropy", lambda: E(8, 10, dt=F).sparse_categorical_crossentropy(E(8, dt=dtypes.int32))),
    ("int_to_half_mul", lambda: E(16, dt=dtypes.int32).cast(dtypes.half) * E(16, dt=dtypes.half)),
    ("mixed_add", lambda: E(16, dt=dtypes.int8) + E(16, dt=dtypes.float16)),
    ("bool_sum", lambda: E(40, dt=dtypes.bool).sum()),
    ("uint8_mean", lambda: E(40, dt=dtypes.uint8).mean()),
    ("int64_cumsum_big", lambda: E(600, dt=dtypes.int64).cumsum()),
    ("argmin", lambda: E(6, 40, dt=F).argmin(axis=0)),
    ("topk_like_sort", lambda: E(8, dt=F).sort()[0]),
    ("interpolate", lambda: E(1, 2, 5, 5, dt=F).interpolate((9, 9))),
    ("repeat", lambda: E(3, 4, dt=F).repeat(2, 3).contiguous()),
    ("expand_contig", lambda: E(1, 5, dt=F).expand(6, 5).contiguous()),
    ("masked_fill", lambda: E(12, dt=F).masked_fill(E(12, dt=dtypes.bool), 0.0)),
    ("clip", lambda: E(30, dt=F).clip(-1, 1)),
  ]
  for name, fn in progs:
    try:
      out = fn()
      capture(name, *(out if isinstance(out, (tuple, list)) else (out,)))
    except Exception as e:
      print(f"skip {name}: {type(e).__name__}: {e}", file=sys.stderr)
  # gradients of a few
  for name, fn in [("grad_mm", lambda a, b: (a @ b).relu()), ("grad_conv", lambda a, b: a.conv2d(b).tanh()),
                   ("grad_softmax", lambda a, b: (a * b).softmax()), ("grad_maxpool", lambda a, b: (a + b).max_pool2d())]:
    a, b = (E(8, 8, dt=F), E(8, 8, dt=F)) if name in ("grad_mm", "grad_softmax") else \
      (E(1, 2, 8, 8, dt=F), E(3, 2, 3, 3, dt=F)) if name == "grad_conv" else (E(1, 2, 8, 8, dt=F), E(1, 2, 8, 8, dt=F))
    try: capture(name, *fn(a, b).sum().gradient(a, b))
    except Exception as e: print(f"skip {name}: {type(e).__name__}: {e}", file=sys.stderr)

def record(ast):
  rec = {}
  for t, m in TARGETS:
    try:
      prg = lower(ast, t, m)
      info = prg.arg
      src = program_source(prg)
      rec[f"{t}_{m}"] = {"name": info.name, "opts": [str(o) for o in prg.src[0].arg.applied_opts],
                         "global_size": [str(x) for x in info.global_size],
                         "local_size": [str(x) for x in info.local_size] if info.local_size is not None else None,
                         "src_sha256": hashlib.sha256(normalise(src).encode()).hexdigest()}
    except Exception as e:
      rec[f"{t}_{m}"] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
  return rec

def main():
  t0 = time.time()
  harvest_test_ops()
  n_ops = len(captured)
  harvest_dtypes()
  print(f"captured {n_ops} kernels from test_ops, {len(captured)-n_ops} from dtype programs ({time.time()-t0:.0f}s)", file=sys.stderr)
  seen, uniq = set(), []
  for origin, ast in captured:
    if ast.key in seen: continue
    seen.add(ast.key); uniq.append((origin, ast))
  print(f"{len(uniq)} unique kernel ASTs", file=sys.stderr)
  if len(uniq) > MAX_KERNELS:
    rng = random.Random(1234)
    keep = sorted(rng.sample(range(len(uniq)), MAX_KERNELS))
    uniq = [uniq[i] for i in keep]
  kernels = []
  for i, (origin, ast) in enumerate(uniq):
    kernels.append({"origin": origin, "ast_key": ast.key.hex()[:16], "ast": pyrender(ast), **record(ast)})
    if i % 100 == 0: print(f"{i}/{len(uniq)} ({time.time()-t0:.0f}s)", file=sys.stderr)
  for c in range((len(kernels) + CHUNK - 1) // CHUNK):
    with open(OUT(c), "w") as f:
      json.dump({"generator": "test/gen_diff_render_oracle.py", "tinygrad": "0.14.0", "num_cpu_threads": 8, "first_index": c * CHUNK,
                 "targets": [f"{t}_{m}" for t, m in TARGETS], "kernels": kernels[c * CHUNK:(c + 1) * CHUNK]}, f, separators=(",", ":"))
      f.write("\n")
    print(f"wrote {OUT(c)}: {os.path.getsize(OUT(c))} bytes ({time.time()-t0:.0f}s)", file=sys.stderr)

def parse_ast(text):
  from tinygrad.uop.spec import eval_pyrender
  return eval_pyrender(text)

if __name__ == "__main__":
  if len(sys.argv) > 1 and sys.argv[1] == "src":
    idx, t, m = int(sys.argv[2]), sys.argv[3], sys.argv[4]
    k = json.load(open(OUT(idx // CHUNK)))["kernels"][idx % CHUNK]
    ast = parse_ast(k["ast"])
    assert ast.key.hex()[:16] == k["ast_key"], "pyrender round trip changed the AST"
    prg = lower(ast, t, m)
    print(f"// {k['origin']} {prg.arg.name} opts={[str(o) for o in prg.src[0].arg.applied_opts]}")
    print(program_source(prg))
  else: main()
