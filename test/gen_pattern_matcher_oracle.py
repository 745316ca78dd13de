# generates the Oracle cases of test/test_pattern_matcher.ml from tinygrad 0.14 (run with the reference venv:
#   /work/ref/venv/bin/python test/gen_pattern_matcher_oracle.py  prints the Oracle body).
# Random (pattern, uop) pairs with a fixed seed; the expected value is every match UPat.match returns, in order.
import random
from tinygrad import dtypes
from tinygrad.uop.ops import UOp, UPat, Ops
random.seed(20240614)

OPS = {"ADD": Ops.ADD, "MUL": Ops.MUL, "CMPLT": Ops.CMPLT, "SINK": Ops.SINK, "CONST": Ops.CONST}
VARS = {n: UOp.variable(n, 0, 10) for n in "ab"}

def gen_uop(d):
  r = random.random()
  if d == 0 or r < 0.3:
    if random.random() < 0.4: n = random.choice("ab"); return VARS[n], n
    v = random.randint(0, 2); return UOp.const(v), f"c{v}"
  op = random.choice(["ADD", "MUL", "CMPLT", "SINK"])
  n = random.randint(0, 3) if op == "SINK" else 2
  srcs = [gen_uop(d-1) for _ in range(n)]
  dt = {"ADD": dtypes.weakint, "MUL": dtypes.weakint, "CMPLT": dtypes.bool, "SINK": dtypes.void}[op]
  return UOp(OPS[op], dt, tuple(s[0] for s in srcs)), "(" + " ".join([op] + [s[1] for s in srcs]) + ")"

def sexpr(u):
  if u.op is Ops.CONST: return f"c{u.arg}"
  if u.op is Ops.BUFFER: return u.arg.name
  return "(" + " ".join([u.op.name] + [sexpr(s) for s in u.src]) + ")"

DT = {"bool": dtypes.bool, "weakint": dtypes.weakint, "void": dtypes.void}
def gen_pat(d, like=None):
  """a random pattern; when [like] (a uop) is given, mostly an abstraction of it so that matches are common"""
  if random.random() < 0.12 and d > 0:
    alts = [gen_pat(d-1, like) for _ in range(random.randint(1, 3))]
    return UPat.any(*[a[0] for a in alts]), "(any " + " ".join(a[1] for a in alts) + ")"
  u = like if (like is not None and random.random() < 0.8) else None
  # op
  r = random.random()
  if u is not None and r < 0.6 and u.op in OPS.values(): ops = [u.op.name]
  elif r < 0.75: ops = None
  else: ops = random.sample(list(OPS), random.randint(1, 2))
  name = random.choice([None, None, "x", "y", "z"])
  dts = None
  if random.random() < 0.15: dts = random.sample(list(DT), random.randint(1, 2))
  arg = None
  if ops == ["CONST"] and random.random() < 0.5: arg = random.randint(0, 2)
  allow = random.random() < 0.2
  kind = "none"
  kids = []
  if d > 0 and random.random() < 0.7:
    kind = random.choice(["tuple", "list", "list", "rep", "same"])
    n = len(u.src) if (u is not None and random.random() < 0.8) else random.randint(0, 3)
    if kind == "rep":
      kids = [gen_pat(d-1, u.src[0] if u is not None and len(u.src) else None)]
    elif kind == "same":
      n = max(n, 2)
      kids = [gen_pat(d-1, u.src[0] if u is not None and len(u.src) else None)]
    else:
      kids = [gen_pat(d-1, u.src[i] if u is not None and i < len(u.src) else None) for i in range(n)]
  if kind == "none": src = None
  elif kind == "tuple": src = tuple(k[0] for k in kids)
  elif kind == "list": src = [k[0] for k in kids]
  elif kind == "rep": src = kids[0][0]
  else: src = [kids[0][0]] * n
  p = UPat(None if ops is None else tuple(OPS[o] for o in ops), None if dts is None else tuple(DT[x] for x in dts), src,
           arg, name, allow_any_len=allow)
  s = "(pat " + " ".join([("-" if ops is None else "|".join(ops)), name or "-", ("-" if dts is None else "|".join(dts)),
                          "-" if arg is None else str(arg), "any" if allow else "strict",
                          kind if kind != "same" else f"same{n}"] + [k[1] for k in kids]) + ")"
  return p, s

cases = []
while len(cases) < 300:
  u, us = gen_uop(3)
  p, ps = gen_pat(3, u if random.random() < 0.85 else None)
  ms = p.match(u, {})
  exp = " | ".join(",".join(f"{k}={sexpr(v)}" for k, v in sorted(m.items())) for m in ms)
  if len(ms) < 2 and random.random() < (0.7 if not ms else 0.5): continue  # keep the set match-heavy
  cases.append(f'("{ps}", "{us}", {len(ms)}, "{exp}")')
print("  let cases = [\n    " + ";\n    ".join(cases) + " ]")
