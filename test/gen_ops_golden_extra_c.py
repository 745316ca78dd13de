# Builds a small golden set (the README's format, the fields test/ops_harness.ml reads) for test functions of
# tinygrad's test_ops.py outside the development set, by running their tinygrad lambdas under tinygrad 0.14.0 with
# torch stubbed out (only the tinygrad side of each helper call runs; grads are tinygrad's d(sum(out))/d(in)).
# Usage: /work/ref/venv/bin/python test/gen_ops_golden_extra_c.py [OUTDIR] TestOps::test_gemm ...
#   then GOLDEN_OPS=OUTDIR OPS_ALL=1 TEST_FILTER=ops_golden. ./_build/default/test/test_main.exe
# Default test ids: the matmul_conv / pooling / interpolate / loss tests translated in test/ops_cases_c.ml that are
# not in /work/shared/golden/ops.
import sys, os, json, types, unittest, inspect
from unittest import mock
import numpy as np
sys.modules['torch'] = mock.MagicMock()
sys.path.insert(0, '/work/ref/tgrepo/test/backend')
os.environ.setdefault('DEV', 'CPU')
import test_ops as TO
from tinygrad import Tensor, dtypes
args = sys.argv[1:]
OUT = args.pop(0) if args and '::' not in args[0] else '/tmp/ops_golden_extra'
os.makedirs(OUT, exist_ok=True)
cases = []
cur = {}
def enc(v):
  if isinstance(v, bool): return {"type": "bool", "value": v}
  if isinstance(v, int): return {"type": "int", "value": v}
  if isinstance(v, float): return {"type": "float", "value": v if np.isfinite(v) else str(v)}
  if isinstance(v, str): return {"type": "str", "value": v}
  if isinstance(v, (list, tuple)):
    def conv(x):
      if isinstance(x, (list, tuple)): return [conv(y) for y in x]
      if isinstance(x, float) and not np.isfinite(x): return str(x)
      return x
    return {"type": type(v).__name__, "value": conv(v)}
  if isinstance(v, dict): return {"type": "dict", "value": v}
  return {"type": type(v).__name__, "repr": repr(v)}
def closure_of(f):
  d = {}
  if f is None or not hasattr(f, '__code__') or f.__closure__ is None: return d
  for name, cell in zip(f.__code__.co_freevars, f.__closure__):
    try: d[name] = enc(cell.cell_contents)
    except ValueError: pass
  return d
def prep(shps, vals, low, high):
  if shps is None:
    arrs = [np.array(x) for x in vals]
    arrs = [a.astype(np.int32) if a.dtype == np.int64 else (a.astype(np.float32) if a.dtype == np.float64 else a) for a in arrs]
  else:
    np.random.seed(0)
    arrs = [np.random.uniform(low=low, high=high, size=s).astype(np.float32) for s in shps]
  return arrs
def new_case(kind, arrs, f, **kw):
  tid = cur['test_id']; ci = cur['ci']; cur['ci'] += 1
  cls, name = tid.split('::')
  cid = f"{name}__{ci}" if cls == 'TestOps' else f"{cls}__{name}__{ci}"
  d = os.path.join(OUT, cid); os.makedirs(d, exist_ok=True)
  ins = []
  for i, a in enumerate(arrs):
    np.save(os.path.join(d, f"in{i}.npy"), a)
    ins.append({"file": f"in{i}.npy", "shape": list(a.shape), "dtype": str(a.dtype), "requires_grad": a.dtype == np.float32})
  c = {"case_id": cid, "test_id": tid, "call_index": ci, "category": "holdout_c", "kind": kind, "status": "recorded",
       "inputs": ins, "closure": {"tinygrad": closure_of(f)}}
  c.update(kw)
  return c, d
def helper_test_op(shps, torch_fxn, tinygrad_fxn=None, atol=1e-6, rtol=1e-3, grad_atol=1e-4, grad_rtol=1e-3,
                   forward_only=False, vals=None, low=-2, high=2):
  f = tinygrad_fxn if tinygrad_fxn is not None else torch_fxn
  arrs = prep(shps, vals, low, high)
  c, d = new_case("op", arrs, f, atol=atol, rtol=rtol, grad_atol=grad_atol, grad_rtol=grad_rtol, forward_only=forward_only)
  tst = [Tensor(a) for a in arrs]
  out = f(*tst).realize()
  np.save(os.path.join(d, "out.npy"), out.numpy())
  c["output"] = {"file": "out.npy", "shape": list(out.shape), "tinygrad_dtype": str(out.dtype)}
  c["grads_computed"] = False
  if not forward_only and tst:
    tst = [Tensor(a) for a in arrs]
    gs = f(*tst).sum().gradient(*tst)
    c["grads"] = []
    for i, g in enumerate(gs):
      np.save(os.path.join(d, f"grad{i}.npy"), g.numpy()); c["grads"].append({"file": f"grad{i}.npy", "wrt": f"in{i}"})
    c["grads_computed"] = True
  cases.append(c)
def helper_test_exception(self, shps, torch_fxn, tinygrad_fxn=None, expected=None, forward_only=False, exact=False, vals=None, low=-1.5, high=1.5):
  f = tinygrad_fxn if tinygrad_fxn is not None else torch_fxn
  arrs = prep(shps, vals, low, high)
  c, d = new_case("exception", arrs, f)
  try:
    f(*[Tensor(a) for a in arrs]).realize(); raised = False
  except Exception: raised = True
  if raised: cases.append(c)
  else: print("NOT RAISED", c["case_id"])
TO.helper_test_op = helper_test_op
TO.TestOps.helper_test_exception = helper_test_exception
DEFAULT = """test_dot test_gemm_fp16 test_gemm test_big_gemm test_gemm_with_zeros_shape test_simple_conv2d_bias
test_simple_conv2d_1x1_m4 test_nested_conv2d test_simple_padding_conv1d test_asymmetric_padding_conv1d test_conv2d
test_conv2d_errors test_strided_conv2d_simple test_negative_padding_conv2d test_asymmetric_padding_conv2d test_max_pool2d
test_max_pool2d_smaller_stride test_max_pool2d_dilation test_max_pool2d_ceil_mode_output_size_reduce_by_one
test_avg_pool2d_ceil_mode_padding_not_counted test_global_avg_pool2d test_interpolate_linear_corners_aligned
test_interpolate_bilinear test_scaled_dot_product_attention_causal test_scaled_dot_product_attention_gqa_errors
test_cross_entropy_class_indices test_cross_entropy_reductions test_sparse_categorical_crossentropy_reductions
test_nll_loss""".split()
names = args or ["TestOps::" + n for n in DEFAULT] + ["TestOpsUint8::test_interpolate_bilinear"]
for tid in names:
  cls, name = tid.split('::')
  inst = getattr(TO, cls)(name)
  cur.update(test_id=tid, ci=0)
  try:
    getattr(inst, name)()
    print("ok", tid, cur['ci'])
  except unittest.SkipTest as e: print("skip", tid, e)
  except Exception as e: print("ERR", tid, type(e).__name__, str(e)[:200])
json.dump({"cases": cases}, open(os.path.join(OUT, "manifest.json"), "w"))
