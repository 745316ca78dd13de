"""Differential fuzzer: random tensor programs run in this port and in tinygrad 0.14.0, compared.

    python3 test/fuzz/fuzz.py --runner _build/default/test/fuzz/fuzz_runner.exe [--n 100] [--seed 0] [--modes default,noopt]
                              [--grad]

A program is JSON: a list of instructions, each giving one value: an input tensor (shape, dtype, values) or an
op over earlier values (by index); and the indices of its outputs. The same program is interpreted here with tinygrad and by fuzz_runner.exe with the
port, in each mode (NOOPT=0 and NOOPT=1 in both); the outputs' shapes, dtypes, values and kernel counts, and
whether an error was raised, must agree. Some ops are illegal on purpose (bad shapes, bad axes): both sides must
raise. A failing program is minimised and printed as a tinygrad and an OCaml reproducer. Differences listed in
EXPLAINED (with their reason) are reported but not counted as failures. With --grad, each program also runs
backward on a weighted sum of its float outputs, and the gradients of its float32 inputs must agree too.
The last line is `N passed, N failed`; the exit code is 1 when a difference is unexplained.
"""
import argparse, json, math, os, random, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ensure_tinygrad():
  """Re-runs this script under a python with tinygrad 0.14.0 (bench/compare.py's: $PYTHON, else bench/.venv)."""
  try:
    import importlib.metadata as m, numpy, tinygrad  # noqa: F401
    if m.version("tinygrad") == "0.14.0": return
  except ImportError: pass
  sys.path.insert(0, os.path.join(ROOT, "bench"))
  from compare import tinygrad_python
  py = tinygrad_python()
  os.execv(py, [py] + sys.argv)


if __name__ == "__main__": ensure_tinygrad()
# PYTHON is also tinygrad's PYTHON device flag, and NOOPT/DEBUG would change tinygrad's side: modes are set per run
for _k in ("PYTHON", "NOOPT", "DEBUG", "BEAM"): os.environ.pop(_k, None)

import numpy as np

DTYPES = ["float32", "int32", "bool"]
CASTS = ["float32", "int32", "bool", "uint8", "int8", "int64", "float16"]

# ---------- the op table: name -> (arity, how the port and tinygrad call it) ----------

UNARY_F = ["neg", "relu", "exp", "log", "sqrt", "sigmoid", "abs", "sin", "tanh", "reciprocal", "square", "floor",
           "ceil", "trunc", "sign", "exp2", "log2", "gelu", "silu", "softplus"]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "lt", "eq", "ne"]
BINARY_PY = {"add": lambda a, b: a.add(b), "sub": lambda a, b: a.sub(b), "mul": lambda a, b: a.mul(b),
             "div": lambda a, b: a.div(b), "maximum": lambda a, b: a.maximum(b), "minimum": lambda a, b: a.minimum(b),
             "lt": lambda a, b: a < b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}
BINARY_SRC = {"lt": "{} < {}", "eq": "{} == {}", "ne": "{} != {}"}
REDUCE = ["sum", "max", "min", "mean", "prod"]


def tg_dtype(name):
  from tinygrad import dtypes
  return {"float32": dtypes.float32, "int32": dtypes.int32, "bool": dtypes.bool, "uint8": dtypes.uint8,
          "int8": dtypes.int8, "int64": dtypes.int64, "float16": dtypes.float16}[name]


def tg_apply(T, op, vals, a):
  """tinygrad's call for one op of a program (vals: the Tensors so far, a: the op record)."""
  x = [vals[i] for i in a["src"]]
  n = op
  if n == "input":
    arr = np.array(a["data"], dtype=np.float64).astype(a["dtype"])
    return T(arr).realize().reshape(tuple(a["shape"]))
  if n in UNARY_F: return getattr(x[0], n)()
  if n in BINARY: return BINARY_PY[n](x[0], x[1])
  if n == "where": return x[0].where(x[1], x[2])
  if n in REDUCE: return getattr(x[0], n)(axis=a["axis"], keepdim=a["keepdim"])
  if n == "reshape": return x[0].reshape(tuple(a["shape"]))
  if n == "permute": return x[0].permute(tuple(a["order"]))
  if n == "expand": return x[0].expand(tuple(a["shape"]))
  if n == "pad": return x[0].pad(tuple(tuple(p) for p in a["pads"]), value=a["value"])
  if n == "shrink": return x[0].shrink(tuple(tuple(p) for p in a["bounds"]))
  if n == "flip": return x[0].flip(tuple(a["axes"]))
  if n == "transpose": return x[0].transpose(a["dim0"], a["dim1"])
  if n == "squeeze": return x[0].squeeze(a["dim"])
  if n == "unsqueeze": return x[0].unsqueeze(a["dim"])
  if n == "matmul": return x[0].matmul(x[1])
  if n == "cumsum": return x[0].cumsum(a["dim"])
  if n == "cat": return x[0].cat(*x[1:], dim=a["dim"])
  if n == "stack": return x[0].stack(*x[1:], dim=a["dim"])
  if n == "cast": return x[0].cast(tg_dtype(a["dtype"]))
  if n == "contiguous": return x[0].contiguous()
  if n == "softmax": return x[0].softmax(a["dim"])
  if n == "add_scalar": return x[0] + a["value"]
  if n == "mul_int_scalar": return x[0] * a["value"]
  raise ValueError(n)


def loss_weights(n):
  """The weights of an output's elements in the gradient mode's loss (fuzz_runner.ml makes the same): varied,
  so that a gradient does not vanish the way d(sum softmax)/dx does, and exact in float32."""
  return [((i % 7) - 3) * 0.25 for i in range(n)]


def outcome_of(t):
  values = [float(e) for e in t.numpy().astype(np.float64).reshape(-1)]
  return {"shape": list(t.shape), "dtype": t.dtype.name, "values": values}


def tinygrad_gradients(prog, vals, outs):
  """The gradient mode: loss = sum over the float outputs o of sum(float(o) * loss_weights), backward, and the
  .grad of each float32 input (None when backward gave it none): {"grads": [...]} or {"grad_error": msg}."""
  from tinygrad import Tensor, dtypes
  try:
    weights = lambda o: Tensor(np.array(loss_weights(o.numel()), dtype=np.float32).reshape(o.shape))
    terms = [(o.cast(dtypes.float32) * weights(o)).sum() for o in outs if dtypes.is_float(o.dtype)]
    if terms:
      loss = terms[0]
      for t in terms[1:]: loss = loss + t
      loss.backward()
    ins = [vals[i] for i, a in enumerate(prog["ops"]) if a["op"] == "input" and a["dtype"] == "float32"]
    grads = [t.grad for t in ins]
    if any(g is not None for g in grads): Tensor.realize(*[g for g in grads if g is not None])
    return {"grads": [None if g is None else outcome_of(g) for g in grads]}
  except Exception as e:
    return {"grad_error": f"{type(e).__name__}: {e}"[:300]}


def run_tinygrad(prog, grad=False):
  """The program's outcome in tinygrad: {"error": msg} or {"outputs": [...], "kernels": n}, with the gradient
  mode's "grads" or "grad_error" when [grad]."""
  from tinygrad import Tensor, GlobalCounters
  try:
    vals = []
    for a in prog["ops"]:
      vals.append(tg_apply(Tensor, a["op"], vals, a))
    outs = [vals[i] for i in prog["outputs"]]
    GlobalCounters.reset()
    Tensor.realize(*outs)
    kernels = GlobalCounters.kernel_count
    res = [outcome_of(o) for o in outs]
  except Exception as e:  # any error: the port must raise as well
    return {"error": f"{type(e).__name__}: {e}"[:300]}
  return dict({"outputs": res, "kernels": kernels}, **(tinygrad_gradients(prog, vals, outs) if grad else {}))

# ---------- generation ----------

class Gen:
  def __init__(self, rng): self.rng = rng

  def shape(self, rank=None):
    r = self.rng
    rank = r.choice([0, 1, 1, 2, 2, 2, 3, 3, 4]) if rank is None else rank
    return [r.choice([0, 1, 1, 2, 3, 3, 4, 5]) if r.random() < 0.08 else r.choice([1, 2, 3, 4, 5]) for _ in range(rank)]

  def data(self, shape, dtype):
    n = int(np.prod(shape)) if shape else 1
    r = self.rng
    if dtype == "float32": return [round(r.uniform(-3, 3), 2) for _ in range(n)]
    if dtype == "int32": return [r.randint(-5, 5) for _ in range(n)]
    return [r.randint(0, 1) for _ in range(n)]


def gen_program(rng, n_ops=None):
  """A random program; shapes are tracked with tinygrad's lazy shape inference (nothing is realized)."""
  from tinygrad import Tensor
  g = Gen(rng)
  prog = {"ops": [], "outputs": []}
  vals = []
  def add_input(sh, dt):
    prog["ops"].append({"op": "input", "src": [], "shape": sh, "dtype": dt, "data": g.data(sh, dt)})
    vals.append(Tensor.empty(*sh, dtype=tg_dtype(dt)) if sh else Tensor(0, dtype=tg_dtype(dt)))
  for _ in range(rng.randint(1, 3)):
    add_input(g.shape(), rng.choice(["float32", "float32", "float32", "int32", "bool"]))
  n_ops = len(prog["ops"]) + (n_ops or rng.randint(1, 8))
  tries = 0
  while len(prog["ops"]) < n_ops and tries < 200:
    tries += 1
    a = random_op(rng, g, vals)
    if a is None: continue
    if a["op"] == "_broadcast_partner":
      add_input(a["suffix"], "float32")
      a = {"op": a["binop"], "src": [a["src"][0], len(vals) - 1]}
    illegal = a.pop("illegal", False)
    try:
      v = tg_apply(Tensor, a["op"], vals, a); _ = v.shape; _ = v.dtype
    except Exception:
      if illegal or rng.random() < 0.05:   # keep a few illegal calls: both sides must raise
        prog["ops"].append(a); prog["outputs"] = [len(vals)]; vals.append(None); break
      continue
    prog["ops"].append(a); vals.append(v)
  live = [i for i, v in enumerate(vals) if v is not None]
  if not prog["outputs"]:
    k = len(vals) - 1
    prog["outputs"] = sorted(set([k] + ([rng.choice(live)] if rng.random() < 0.3 else [])))
  return prog


def random_op(rng, g, vals):
  cand = [i for i, v in enumerate(vals) if v is not None]
  i = rng.choice(cand); x = vals[i]
  sh = list(x.shape); nd = len(sh)
  illegal = rng.random() < 0.06
  a = random_op_kind(rng, g, vals, i, x, sh, nd, cand, illegal)
  if a is not None and illegal: a["illegal"] = True
  return a


def random_op_kind(rng, g, vals, i, x, sh, nd, cand, illegal):
  kind = rng.random()
  def ax():
    return rng.randint(-nd - (1 if illegal else 0), nd - 1 + (1 if illegal else 0)) if nd else 0
  if kind < 0.2:
    return {"op": rng.choice(UNARY_F), "src": [i]}
  if kind < 0.4:
    j = rng.choice(cand); y = vals[j]
    if rng.random() < 0.5 and not illegal:   # a broadcastable partner: a suffix of the shape with some 1s
      k = rng.randint(0, nd)
      return {"op": "_broadcast_partner", "src": [i], "suffix": [d if rng.random() < 0.7 else 1 for d in sh[nd - k:]],
              "binop": rng.choice(BINARY)}
    return {"op": rng.choice(BINARY), "src": [i, j]}
  if kind < 0.5:
    if nd == 0: return {"op": rng.choice(REDUCE), "src": [i], "axis": None, "keepdim": rng.random() < 0.5}
    axis = None if rng.random() < 0.3 else ax()
    return {"op": rng.choice(REDUCE), "src": [i], "axis": axis, "keepdim": rng.random() < 0.5}
  if kind < 0.6:
    n = int(np.prod(sh)) if sh else 1
    if illegal: return {"op": "reshape", "src": [i], "shape": [n + 1]}
    shapes = [[n], [1, n], [n, 1]] + ([[sh[0], -1]] if nd >= 1 and sh[0] != 0 else []) + ([list(reversed(sh))] if nd else [])
    return {"op": "reshape", "src": [i], "shape": rng.choice(shapes)}
  if kind < 0.66:
    order = list(range(nd)); rng.shuffle(order)
    if illegal and nd: order[0] = order[-1] if nd > 1 else nd
    return {"op": "permute", "src": [i], "order": order}
  if kind < 0.7:
    if 1 in sh and not illegal:
      return {"op": "expand", "src": [i], "shape": [rng.randint(1, 4) if d == 1 else d for d in sh]}
    return {"op": "expand", "src": [i], "shape": [d + 1 for d in sh] if sh else [3]}
  if kind < 0.75:
    pads = [(rng.randint(0, 2), rng.randint(0, 2)) for _ in sh]
    if illegal: pads = [(-1 - d, 0) for d in sh] or [(1, 1)]
    return {"op": "pad", "src": [i], "pads": pads, "value": rng.choice([0.0, 1.5, -2.0])}
  if kind < 0.8:
    bounds = []
    for d in sh:
      lo = rng.randint(0, d); hi = rng.randint(lo, d); bounds.append((lo, hi))
    if illegal: bounds = [(0, d + 1) for d in sh] or [(0, 1)]
    return {"op": "shrink", "src": [i], "bounds": bounds}
  if kind < 0.83:
    if nd == 0: return None
    return {"op": "flip", "src": [i], "axes": sorted(set(ax() for _ in range(rng.randint(1, nd))))}
  if kind < 0.86:
    if nd < 2 and not illegal: return None
    return {"op": "transpose", "src": [i], "dim0": ax(), "dim1": ax()}
  if kind < 0.88:
    return {"op": "unsqueeze", "src": [i], "dim": rng.randint(-nd - 1, nd)}
  if kind < 0.9:
    if nd == 0: return None
    return {"op": "squeeze", "src": [i], "dim": ax()}
  if kind < 0.93:
    # matmul with a fresh-enough partner: another value whose shape fits, else an illegal pair
    j = rng.choice(cand); return {"op": "matmul", "src": [i, j]}
  if kind < 0.95:
    if nd == 0 and not illegal: return None
    return {"op": "cumsum", "src": [i], "dim": ax()}
  if kind < 0.97:
    j = rng.choice(cand)
    same = [k for k in cand if list(vals[k].shape) == sh]
    srcs = [i, rng.choice(same)] if same and rng.random() < 0.8 else [i, j]
    return {"op": rng.choice(["cat", "stack"]), "src": srcs, "dim": ax()}
  if kind < 0.99:
    return {"op": "cast", "src": [i], "dtype": rng.choice(CASTS)}
  if kind < 0.995:
    return {"op": "softmax", "src": [i], "dim": ax() if nd else -1}
  return {"op": "contiguous", "src": [i]}


# ---------- comparison ----------

def unsigned_cast_as_scalar(prog, ours, theirs):
  """A float cast to an unsigned dtype is undefined in C for negative values: tinygrad's vectorised kernels give
  lanes that vary from run to run, where the port wraps modulo 2^n. Accepted when the port's outcome equals
  tinygrad's scalar (NOOPT) kernels', which wrap as numpy does."""
  if not any(a["op"] == "cast" and a["dtype"] == "uint8" for a in prog["ops"]): return False
  grad = "grads" in ours or "grad_error" in ours
  return compare(prog, ours, with_noopt(True, run_tinygrad, prog, grad)) is None

EXPLAINED = [(unsigned_cast_as_scalar, "negative float to unsigned cast: undefined in C; the port equals tinygrad's NOOPT")]


def compare_error(what, ours, theirs, key):
  """The difference of two outcomes in whether [key] (an error) is present, or None."""
  if (key in ours) != (key in theirs):
    return f"{what} outcome: port {'raised ' + ours[key] if key in ours else 'ran'}; " \
           f"tinygrad {'raised ' + theirs[key] if key in theirs else 'ran'}"
  # the port's contract: a user's mistake is an Invalid_argument, never a stray Failure/Not_found/assert
  if key in ours and not ours[key].startswith("Invalid_argument"):
    return f"port raised a stray exception: {ours[key]}"
  return None


def compare_tensors(what, ours, theirs):
  """The difference of two lists of tensor outcomes (None for an absent gradient), or None."""
  if len(ours) != len(theirs): return f"{what}s: port gave {len(ours)}, tinygrad {len(theirs)}"
  for k, (o, t) in enumerate(zip(ours, theirs)):
    if (o is None) != (t is None):
      return f"{what} {k}: port {'none' if o is None else 'one'}, tinygrad {'none' if t is None else 'one'}"
    if o is None: continue
    if o["shape"] != t["shape"]: return f"{what} {k} shape: port {o['shape']}, tinygrad {t['shape']}"
    if o["dtype"] != t["dtype"]: return f"{what} {k} dtype: port {o['dtype']}, tinygrad {t['dtype']}"
    a = np.array(o["values"], dtype=np.float64); b = np.array(t["values"], dtype=np.float64)
    tol = 1e-2 if t["dtype"] == "half" else 1e-4
    if a.shape != b.shape or not np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True):
      bad = np.nonzero(~np.isclose(a, b, rtol=tol, atol=tol, equal_nan=True))[0][:3] if a.shape == b.shape else []
      return (f"{what} {k} values differ at {list(bad)}: port {[a[i] for i in bad]}, "
              f"tinygrad {[b[i] for i in bad]}")
  return None


def compare(prog, ours, theirs):
  """None when the outcomes agree, else a one-line description of the difference."""
  if (d := compare_error("error", ours, theirs, "error")) is not None or "error" in ours: return d
  if ours["kernels"] != theirs["kernels"]:
    return f"kernel count: port {ours['kernels']}, tinygrad {theirs['kernels']}"
  if (d := compare_tensors("output", ours["outputs"], theirs["outputs"])) is not None: return d
  if (d := compare_error("backward", ours, theirs, "grad_error")) is not None or "grad_error" in ours:
    return d
  return compare_tensors("grad", ours.get("grads", []), theirs.get("grads", []))

# ---------- the port's side ----------

def run_port(runner, progs, noopt, grad=False):
  env = dict(os.environ, NOOPT="1" if noopt else "0")
  inp = "\n".join(json.dumps(p) for p in progs) + "\n"
  r = subprocess.run([runner] + (["--grad"] if grad else []), input=inp, capture_output=True, text=True,
                     env=env, timeout=3600)
  lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
  if len(lines) != len(progs):
    raise SystemExit(f"fuzz_runner.exe gave {len(lines)} results for {len(progs)} programs (exit {r.returncode}):\n"
                     + r.stderr[-2000:])
  return [json.loads(l) for l in lines]


def with_noopt(noopt, f, *args):
  from tinygrad.helpers import Context
  with Context(NOOPT=int(noopt)):
    return f(*args)

# ---------- minimisation and reproducers ----------

def prune(prog):
  """Drops the instructions the outputs do not reach, renumbering."""
  need = set(prog["outputs"])
  for idx in range(len(prog["ops"]) - 1, -1, -1):
    if idx in need: need.update(prog["ops"][idx]["src"])
  keep = sorted(need)
  new_index = {old: new for new, old in enumerate(keep)}
  ops = [dict(prog["ops"][i], src=[new_index[s] for s in prog["ops"][i]["src"]]) for i in keep]
  return {"ops": ops, "outputs": [new_index[o] for o in prog["outputs"]]}


def minimise(prog, still_fails):
  """Greedy: one failing output, unreachable ops dropped, then ops bypassed (replaced by their first source)."""
  best = prog
  for o in prog["outputs"]:
    cand = prune(dict(best, outputs=[o]))
    if still_fails(cand): best = cand; break
  changed = True
  while changed:
    changed = False
    for idx, a in enumerate(best["ops"]):
      for src in a["src"]:
        ops = [dict(b, src=[src if x == idx else x for x in b["src"]]) for b in best["ops"]]
        outs = [src if x == idx else x for x in best["outputs"]]
        cand = prune({"ops": ops, "outputs": outs})
        if len(cand["ops"]) < len(best["ops"]) and still_fails(cand):
          best = cand; changed = True; break
      if changed: break
  return best


def py_args(a):
  n = a["op"]
  if n in REDUCE: return f"axis={a['axis']}, keepdim={a['keepdim']}"
  return {"reshape": lambda: repr(tuple(a["shape"])), "permute": lambda: repr(tuple(a["order"])),
          "expand": lambda: repr(tuple(a["shape"])), "pad": lambda: f"{tuple(map(tuple, a['pads']))}, value={a['value']}",
          "shrink": lambda: repr(tuple(map(tuple, a["bounds"]))), "flip": lambda: repr(tuple(a["axes"])),
          "transpose": lambda: f"{a['dim0']}, {a['dim1']}", "squeeze": lambda: str(a["dim"]),
          "unsqueeze": lambda: str(a["dim"]), "cumsum": lambda: str(a["dim"]), "softmax": lambda: str(a["dim"]),
          "cast": lambda: f"dtypes.{a['dtype']}"}.get(n, lambda: "")()


def reproducer_python(prog, grad=False):
  lines = ["import numpy as np", "from tinygrad import Tensor, dtypes"]
  for idx, a in enumerate(prog["ops"]):
    s = [f"v{i}" for i in a["src"]]; n = a["op"]
    if n == "input":
      e = f"Tensor(np.array({a['data']}, dtype=np.float64).astype('{a['dtype']}')).realize().reshape({tuple(a['shape'])})"
    elif n in BINARY: e = BINARY_SRC.get(n, "{}." + n + "({})").format(s[0], s[1])
    elif n == "where": e = f"{s[0]}.where({s[1]}, {s[2]})"
    elif n in ("cat", "stack"): e = f"{s[0]}.{n}({', '.join(s[1:])}, dim={a['dim']})"
    elif n == "matmul": e = f"{s[0]}.matmul({s[1]})"
    else: e = f"{s[0]}.{n}({py_args(a)})"
    lines.append(f"v{idx} = {e}")
  lines.append("print(" + ", ".join(f"v{o}.numpy()" for o in prog["outputs"]) + ")")
  if grad:
    ins = [f"v{i}" for i, a in enumerate(prog["ops"]) if a["op"] == "input" and a["dtype"] == "float32"]
    lines += [f"outs = [{', '.join(f'v{o}' for o in prog['outputs'])}]",
              "w = lambda o: Tensor(np.array([((i % 7) - 3) * 0.25 for i in range(o.numel())],",
              "                              dtype=np.float32).reshape(o.shape))",
              "sum((o.cast(dtypes.float32) * w(o)).sum()",
              "    for o in outs if dtypes.is_float(o.dtype)).backward()",
              f"print([None if v.grad is None else v.grad.numpy() for v in [{', '.join(ins)}]])"]
  return "\n".join(lines)


def reproducer_ocaml(runner, prog, grad=False):
  r = subprocess.run([runner, "--ocaml"] + (["--grad"] if grad else []), input=json.dumps(prog) + "\n",
                     capture_output=True, text=True)
  return r.stdout.strip() or r.stderr.strip()

# ---------- driver ----------

def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("--runner", required=True)
  ap.add_argument("--n", type=int, default=100)
  ap.add_argument("--seed", type=int, default=0)
  ap.add_argument("--modes", default="default,noopt")
  ap.add_argument("--batch", type=int, default=200)
  ap.add_argument("--grad", action="store_true", help="also compare backward's gradients of the float inputs")
  args = ap.parse_args()
  sys.stdout.reconfigure(line_buffering=True)
  import tinygrad
  os.environ.setdefault("CPU_LLVM", "0")
  rng = random.Random(args.seed)
  progs = [gen_program(rng) for _ in range(args.n)]
  passed = failed = explained = grads = 0
  for mode in args.modes.split(","):
    noopt = mode == "noopt"
    for b in range(0, len(progs), args.batch):
      batch = progs[b:b + args.batch]
      ours = run_port(args.runner, batch, noopt, args.grad)
      for k, (p, o) in enumerate(zip(batch, ours)):
        t = with_noopt(noopt, run_tinygrad, p, args.grad)
        grads += sum(g is not None for g in t.get("grads", []))
        diff = compare(p, o, t)
        if diff is None: passed += 1; continue
        why = next((reason for pred, reason in EXPLAINED if pred(p, o, t)), None)
        if why is not None:
          explained += 1; passed += 1
          print(f"explained [{mode} #{b + k}]: {diff} ({why})"); continue
        failed += 1
        fails = lambda q: compare(q, run_port(args.runner, [q], noopt, args.grad)[0],
                                  with_noopt(noopt, run_tinygrad, q, args.grad)) is not None
        small = minimise(p, fails)
        print(f"FAIL [{mode} #{b + k}] {diff}\n--- tinygrad:\n{reproducer_python(small, args.grad)}\n"
              f"--- OCaml:\n"
              f"{reproducer_ocaml(args.runner, small, args.grad)}\n--- program: {json.dumps(small)}\n")
  backward = f", with backward ({grads} gradients compared)" if args.grad else ""
  n_modes = len(args.modes.split(','))
  print(f"fuzz: {args.n} programs x {n_modes} modes{backward}, {explained} explained differences")
  print(f"{passed} passed, {failed} failed")
  sys.exit(1 if failed else 0)


if __name__ == "__main__":
  main()
