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
def capture(origin, *ts, symbolic=False):
  ts = [t.cast(dtypes.default_float if dtypes.is_float(t.dtype) else dtypes.int32 if t.dtype != dtypes.bool else dtypes.bool)
        if t.dtype in dtypes.weaks else t for t in ts]
  ts = [t for t in ts if isinstance(t, Tensor)]
  if not ts: return
  lin = ts[0].linear_with_vars(*ts[1:])[0] if symbolic else ts[0].schedule_linear(*ts[1:])
  for c in lin.src:
    if c.op is Ops.CALL and c.src[0].op is Ops.SINK: captured.append((origin, c.src[0]))

def capture_all(progs):
  """capture each (name, fn) whose fn builds tensors; a program tinygrad refuses is reported and skipped"""
  for name, fn in progs:
    try:
      out = fn()
      capture(name, *(out if isinstance(out, (tuple, list)) else (out,)))
    except Exception as e:
      print(f"skip {name}: {type(e).__name__}: {e}", file=sys.stderr)

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
  capture_all(progs)
  # gradients of a few
  for name, fn in [("grad_mm", lambda a, b: (a @ b).relu()), ("grad_conv", lambda a, b: a.conv2d(b).tanh()),
                   ("grad_softmax", lambda a, b: (a * b).softmax()), ("grad_maxpool", lambda a, b: (a + b).max_pool2d())]:
    a, b = (E(8, 8, dt=F), E(8, 8, dt=F)) if name in ("grad_mm", "grad_softmax") else \
      (E(1, 2, 8, 8, dt=F), E(3, 2, 3, 3, dt=F)) if name == "grad_conv" else (E(1, 2, 8, 8, dt=F), E(1, 2, 8, 8, dt=F))
    try: capture(name, *fn(a, b).sum().gradient(a, b))
    except Exception as e: print(f"skip {name}: {type(e).__name__}: {e}", file=sys.stderr)

# more dtypes (float64, int16, uint16/32/64, fp8 casts), larger shapes that reach other heuristic branches (GROUP,
# GROUPTOP, tensor cores with padding, THREAD), nn layers and optimizer steps (with Context(TRAINING=1) where needed)
def harvest_extra():
  from tinygrad import nn
  def E(*s, dt=dtypes.float32): return Tensor.empty(*s, dtype=dt)
  progs = []
  for dt in (dtypes.float64, dtypes.int16, dtypes.uint16, dtypes.uint32, dtypes.uint64):
    n = dt.name
    progs += [(f"{n}_add", lambda dt=dt: E(4, 8, dt=dt) + E(4, 8, dt=dt)), (f"{n}_mul", lambda dt=dt: E(13, dt=dt) * E(13, dt=dt)),
              (f"{n}_sum", lambda dt=dt: E(8, 16, dt=dt).sum(axis=1)), (f"{n}_max", lambda dt=dt: E(300, dt=dt).max()),
              (f"{n}_cmp", lambda dt=dt: E(16, dt=dt) < E(16, dt=dt)), (f"{n}_matmul", lambda dt=dt: E(16, 16, dt=dt) @ E(16, 16, dt=dt)),
              (f"{n}_idiv", lambda dt=dt: E(33, dt=dt) // 7 if not dtypes.is_float(dt) else E(33, dt=dt).exp()),
              (f"{n}_mod", lambda dt=dt: E(33, dt=dt) % 6 if not dtypes.is_float(dt) else E(33, dt=dt).sin()),
              (f"{n}_to_f32", lambda dt=dt: E(3, 7, dt=dt).cast(dtypes.float32)), (f"f32_to_{n}", lambda dt=dt: E(3, 7).cast(dt)),
              (f"{n}_to_f16", lambda dt=dt: E(3, 7, dt=dt).cast(dtypes.float16)), (f"{n}_to_bf16", lambda dt=dt: E(3, 7, dt=dt).cast(dtypes.bfloat16))]
  progs += [("f64_to_i64_bitcast", lambda: E(9, dt=dtypes.float64).bitcast(dtypes.int64)),
            ("f64_sqrt", lambda: E(9, dt=dtypes.float64).sqrt()), ("f64_log", lambda: E(9, dt=dtypes.float64).log2()),
            ("f64_trunc", lambda: E(9, dt=dtypes.float64).trunc()), ("f64_recip", lambda: E(9, dt=dtypes.float64).reciprocal()),
            ("fp8e4m3_to_f32", lambda: E(16, dt=dtypes.fp8e4m3).cast(dtypes.float32)),
            ("f32_to_fp8e5m2", lambda: E(16).cast(dtypes.fp8e5m2)),
            ("f16_to_bf16", lambda: E(16, dt=dtypes.float16).cast(dtypes.bfloat16)),
            ("bf16_to_f16", lambda: E(16, dt=dtypes.bfloat16).cast(dtypes.float16)),
            ("f64_to_f16", lambda: E(16, dt=dtypes.float64).cast(dtypes.float16)),
            ("f64_to_bf16", lambda: E(16, dt=dtypes.float64).cast(dtypes.bfloat16))]
  for (M, N, K) in ((128, 128, 128), (512, 512, 64), (96, 80, 48), (1, 1024, 1024), (1024, 1, 1024), (8, 4096, 256),
                    (33, 65, 129), (2048, 16, 16), (16, 16, 4096)):
    for dt, acc in ((dtypes.float32, None), (dtypes.half, dtypes.float), (dtypes.half, None), (dtypes.bfloat16, dtypes.float)):
      progs.append((f"mm_{M}_{N}_{K}_{dt.name}_{acc}", lambda M=M, N=N, K=K, dt=dt, acc=acc: E(M, K, dt=dt).matmul(E(K, N, dt=dt), dtype=acc)))
  for shp, ax in (((65536,), None), ((4096, 64), 0), ((64, 4096), 1), ((512, 512), 0), ((512, 512), 1), ((3, 1000, 7), 1),
                  ((16, 128, 128), (1, 2)), ((100000,), None), ((7, 9999), 1), ((9999, 7), 0)):
    progs += [(f"sum_{shp}_{ax}", lambda shp=shp, ax=ax: E(*shp).sum(axis=ax)), (f"max_{shp}_{ax}", lambda shp=shp, ax=ax: E(*shp).max(axis=ax)),
              (f"sumhalf_{shp}_{ax}", lambda shp=shp, ax=ax: E(*shp, dt=dtypes.half).sum(axis=ax)),
              (f"sumint_{shp}_{ax}", lambda shp=shp, ax=ax: E(*shp, dt=dtypes.int32).sum(axis=ax))]
  for shp in ((1000000,), (1024, 1024), (3, 255, 257), (2, 3, 4, 5, 6, 7)):
    progs += [(f"ew_{shp}", lambda shp=shp: (E(*shp) * 2 + 1).exp()), (f"ewhalf_{shp}", lambda shp=shp: E(*shp, dt=dtypes.half) + 1),
              (f"perm_{shp}", lambda shp=shp: E(*shp).permute(*reversed(range(len(shp)))).contiguous())]
  progs += [("conv_big", lambda: E(8, 32, 32, 32).conv2d(E(64, 32, 3, 3), padding=1)),
            ("conv_big_half", lambda: E(8, 32, 32, 32, dt=dtypes.half).conv2d(E(64, 32, 3, 3, dt=dtypes.half), padding=1)),
            ("conv_stride2", lambda: E(4, 16, 33, 33).conv2d(E(32, 16, 5, 5), stride=2)),
            ("conv_dilation", lambda: E(2, 8, 20, 20).conv2d(E(8, 8, 3, 3), dilation=2)),
            ("conv_depthwise", lambda: E(2, 32, 28, 28).conv2d(E(32, 1, 3, 3), groups=32, padding=1)),
            ("conv1d", lambda: E(4, 16, 100).conv2d(E(32, 16, 7))),
            ("conv3d", lambda: E(1, 4, 8, 8, 8).conv2d(E(8, 4, 3, 3, 3))),
            ("avgpool_big", lambda: E(8, 64, 32, 32).avg_pool2d(kernel_size=(3, 3), stride=2)),
            ("maxpool_big", lambda: E(8, 64, 32, 32).max_pool2d()),
            ("softmax_big", lambda: E(32, 4096).softmax()),
            ("softmax_half", lambda: E(16, 1000, dt=dtypes.half).softmax()),
            ("argmax_big", lambda: E(64, 10000).argmax(axis=1)),
            ("cumsum_big", lambda: E(4096).cumsum()),
            ("cumsum_2d", lambda: E(64, 512).cumsum(axis=1)),
            ("attention_big", lambda: Tensor.scaled_dot_product_attention(E(2, 4, 64, 32), E(2, 4, 64, 32), E(2, 4, 64, 32), is_causal=True)),
            ("attention_half", lambda: Tensor.scaled_dot_product_attention(E(1, 8, 128, 64, dt=dtypes.half), E(1, 8, 128, 64, dt=dtypes.half),
                                                                            E(1, 8, 128, 64, dt=dtypes.half))),
            ("rand_big", lambda: Tensor.rand(1000, 1000)), ("randn_half", lambda: Tensor.randn(4096, dtype=dtypes.half)),
            ("randint_big", lambda: Tensor.randint(100000, high=1000)),
            ("one_hot_big", lambda: E(4096, dt=dtypes.int32).one_hot(100)),
            ("gather_big", lambda: E(256, 300).gather(1, E(256, 20, dt=dtypes.int32))),
            ("embedding", lambda: nn.Embedding(1000, 64)(E(4, 32, dt=dtypes.int32))),
            ("embedding_small", lambda: nn.Embedding(10, 8)(E(3, 5, dt=dtypes.int32))),
            ("linear", lambda: nn.Linear(128, 64)(E(16, 128))),
            ("layernorm_nn", lambda: nn.LayerNorm(256)(E(8, 256))),
            ("rmsnorm", lambda: nn.RMSNorm(256)(E(8, 256))),
            ("groupnorm", lambda: nn.GroupNorm(4, 16)(E(2, 16, 8, 8))),
            ("instancenorm", lambda: nn.InstanceNorm(16)(E(2, 16, 8, 8))),
            ("batchnorm_train", lambda: train(lambda: nn.BatchNorm(16)(E(4, 16, 8, 8)))),
            ("batchnorm_eval", lambda: nn.BatchNorm(16)(E(4, 16, 8, 8))),
            ("convt_nn", lambda: nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1)(E(2, 8, 7, 7))),
            ("lstm", lambda: nn.LSTMCell(16, 32)(E(4, 16))[0]),
            ("interp_linear", lambda: E(1, 3, 10, 10).interpolate((17, 23), mode="linear")),
            ("interp_nearest", lambda: E(1, 3, 10, 10).interpolate((5, 7), mode="nearest")),
            ("pad_reflect", lambda: E(1, 3, 10, 10).pad((2, 2, 3, 3), mode="reflect")),
            ("pad_replicate", lambda: E(1, 3, 10, 10).pad((2, 2, 3, 3), mode="replicate")),
            ("pad_circular", lambda: E(1, 3, 10, 10).pad((2, 2, 3, 3), mode="circular")),
            ("sort", lambda: E(37).sort()[0]), ("topk", lambda: E(64).topk(5)[0]),
            ("where_int_bool", lambda: (E(64, dt=dtypes.int32) > 3).where(E(64, dt=dtypes.int8), 7)),
            ("mse", lambda: ((E(64, 10) - E(64, 10)) ** 2).mean()),
            ("bce", lambda: E(64).sigmoid().binary_crossentropy(E(64))),
            ("logsumexp", lambda: E(16, 300).logsumexp(axis=1)),
            ("mean_keepdim", lambda: E(3, 4, 5, 6).mean(axis=(1, 3), keepdim=True)),
            ("std_mean", lambda: E(128, 64).std_mean(axis=0)[0]),
            ("cat_many", lambda: Tensor.cat(*[E(3, i + 1) for i in range(6)], dim=1)),
            ("setitem_like", lambda: E(10, 10).shrink(((2, 5), None)).pad(((2, 5), None)) + E(10, 10)),
            ("einsum", lambda: Tensor.einsum("bij,bjk->bik", E(4, 8, 16), E(4, 16, 8))),
            ("outer", lambda: E(100)[:, None] * E(200)[None, :]),
            ("triu_big", lambda: Tensor.ones(256, 256).triu().contiguous()),
            ("eye_big", lambda: Tensor.eye(300)),
            ("arange_big", lambda: Tensor.arange(100000)),
            ("full", lambda: Tensor.full((45, 65), 4)),
            ("zeros_like_half", lambda: Tensor.zeros(33, 7, dtype=dtypes.half).contiguous()),
            ("bool_any", lambda: E(64, 64, dt=dtypes.bool).any(axis=1)),
            ("bool_all", lambda: E(1000, dt=dtypes.bool).all()),
            ("int8_matmul_acc", lambda: E(64, 64, dt=dtypes.int8).matmul(E(64, 64, dt=dtypes.int8), dtype=dtypes.int32)),
            ("uint8_to_f_norm", lambda: E(3, 32, 32, dt=dtypes.uint8).cast(dtypes.float32) / 255.0)]
  capture_all(progs)
  # symbolic shapes (a bound Variable)
  from tinygrad import UOp as U
  for val in (3, 7):
    v = U.variable("i", 1, 10).bind(val)
    w = U.variable("j", 1, 128).bind(val * 9)
    for name, fn in ((f"sym_slice_sum_{val}", lambda: (E(10, 4)[:v] * 2).sum(axis=1)), (f"sym_add_{val}", lambda: E(4, v).contiguous() + 1),
                     (f"sym_sum_{val}", lambda: E(v, 64).sum()), (f"sym_matmul_{val}", lambda: E(w, 64) @ E(64, 32)),
                     (f"sym_softmax_{val}", lambda: E(4, w).softmax()), (f"sym_big_{val}", lambda: E(w, 256).exp() * 3),
                     (f"sym_mean_{val}", lambda: E(32, w).mean(axis=1)), (f"sym_cat_{val}", lambda: E(v, 8).cat(E(3, 8))),
                     (f"sym_half_{val}", lambda: E(w, 16, dt=dtypes.half).sum(axis=0))):
      try: capture(name, fn(), symbolic=True)
      except Exception as e: print(f"skip {name}: {type(e).__name__}: {e}", file=sys.stderr)
  # optimizer steps and training steps
  def opt_step(name, mk_opt, model_fn):
    try:
      Tensor.manual_seed(0)
      with Context(TRAINING=1):
        params, loss = model_fn()
        opt = mk_opt(params)
        opt.zero_grad(); loss.backward()
        capture(name, *opt.schedule_step())
    except Exception as e: print(f"skip {name}: {type(e).__name__}: {e}", file=sys.stderr)
  def mlp():
    l1, l2 = nn.Linear(32, 64), nn.Linear(64, 10)
    loss = l2(l1(E(16, 32)).relu()).sparse_categorical_crossentropy(E(16, dt=dtypes.int32))
    return [l1.weight, l1.bias, l2.weight, l2.bias], loss
  def cnn():
    c, bn, l = nn.Conv2d(3, 8, 3), nn.BatchNorm(8), nn.Linear(8 * 6 * 6, 10)
    loss = l(bn(c(E(4, 3, 8, 8))).relu().flatten(1)).log_softmax().mean()
    return [c.weight, c.bias, l.weight, l.bias, bn.weight, bn.bias], loss
  for oname, mk in (("sgd", lambda p: nn.optim.SGD(p, lr=0.01)), ("sgd_mom", lambda p: nn.optim.SGD(p, lr=0.01, momentum=0.9, nesterov=True)),
                    ("adam", lambda p: nn.optim.Adam(p)), ("adamw", lambda p: nn.optim.AdamW(p)), ("lamb", lambda p: nn.optim.LAMB(p))):
    for mname, mf in (("mlp", mlp), ("cnn", cnn)):
      opt_step(f"{oname}_{mname}", mk, mf)

def train(fn):
  with Context(TRAINING=1): return fn()

def sz(x): return str(x) if isinstance(x, int) else x.render()

def record(ast):
  rec = {}
  for t, m in TARGETS:
    try:
      prg = lower(ast, t, m)
      info = prg.arg
      src = program_source(prg)
      rec[f"{t}_{m}"] = {"name": info.name, "opts": [str(o) for o in prg.src[0].arg.applied_opts],
                         "global_size": [sz(x) for x in info.global_size],
                         "local_size": [sz(x) for x in info.local_size] if info.local_size is not None else None,
                         "src_sha256": hashlib.sha256(normalise(src).encode()).hexdigest()}
    except Exception as e:
      rec[f"{t}_{m}"] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
  return rec

def main():
  t0 = time.time()
  harvest_test_ops()
  n_ops = len(captured)
  harvest_dtypes()
  n_dt = len(captured)
  harvest_extra()
  print(f"captured {n_ops} kernels from test_ops, {n_dt-n_ops} from dtype programs, {len(captured)-n_dt} extra ({time.time()-t0:.0f}s)",
        file=sys.stderr)
  seen, uniq = set(), []
  for origin, ast in captured:
    if ast.key in seen: continue
    seen.add(ast.key); uniq.append((origin, ast))
  print(f"{len(uniq)} unique kernel ASTs", file=sys.stderr)
  if len(uniq) > MAX_KERNELS:
    rng = random.Random(1234)
    keep = sorted(rng.sample(range(len(uniq)), MAX_KERNELS))
    uniq = [uniq[i] for i in keep]
  # records of the existing files are reused (same AST text): regenerating only lowers the new kernels
  cache, c = {}, 0
  while os.path.exists(OUT(c)) and not os.environ.get("NO_CACHE"):
    for k in json.load(open(OUT(c)))["kernels"]: cache[(k["ast_key"], k["ast"])] = k
    c += 1
  kernels = []
  for i, (origin, ast) in enumerate(uniq):
    key, text = ast.key.hex()[:16], pyrender(ast)
    kernels.append({"origin": origin, "ast_key": key, "ast": text, **{t: v for t, v in cache.get((key, text), {}).items() if t not in
                   ("origin", "ast_key", "ast")}} if (key, text) in cache else {"origin": origin, "ast_key": key, "ast": text, **record(ast)})
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
