# generates the Oracle cases of test/test_graph_rewrite.ml from tinygrad 0.14 (run with the reference venv:
#   /work/ref/venv/bin/python test/gen_graph_rewrite_oracle.py  prints the Oracle body).
# Random DAGs with a fixed seed, rewritten by fixed rule sets in every graph_rewrite mode; the expected values
# are the result and the md5 of the log of every callback visit (pm post-order, bpm pre-order).
import random, hashlib
from tinygrad import dtypes
from tinygrad.uop.ops import UOp, UPat, Ops, PatternMatcher, GroupOp, graph_rewrite
random.seed(424242)

def sexpr(u):
  if u.op is Ops.CONST: return f"c{u.arg}"
  if u.op is Ops.BUFFER: return u.arg.name
  return "(" + " ".join([u.op.name] + [sexpr(s) for s in u.src]) + ")"

def add(x, y): return UOp(Ops.ADD, dtypes.weakint, (x, y))
def log(ctx, tag, x): ctx.append(tag + sexpr(x))

pm = PatternMatcher([
  (UPat(GroupOp.All, name="x"), lambda ctx, x: log(ctx, "pm:", x)),
  (UPat(Ops.CONST, arg=1), lambda: UOp.const(2)),
  (UPat(Ops.ADD, src=[UPat.var("x"), UPat(Ops.CONST, arg=0)]), lambda x: x),
  (UPat(Ops.MUL, src=(UPat.var("x"), UPat.var("x"))), lambda x: add(x, x)),
])
bpm = PatternMatcher([
  (UPat(GroupOp.All, name="x"), lambda ctx, x: log(ctx, "bpm:", x)),
  (UPat(Ops.MUL, src=[UPat.var("x"), UPat(Ops.CONST, arg=2)]), lambda x: add(x, x)),
])

def gen():
  spec, nodes = [], []
  for _ in range(random.randint(3, 12)):
    if len(nodes) < 2 or random.random() < 0.3:
      t = random.choice(["a", "b", "c0", "c1", "c2"])
      nodes.append(UOp.variable(t, 0, 10) if t in "ab" else UOp.const(int(t[1])))
      spec.append(t)
    else:
      op = random.choice(["ADD", "MUL", "SINK"])
      k = random.randint(1, 3) if op == "SINK" else 2
      idx = [random.randint(max(0, len(nodes) - 4), len(nodes) - 1) for _ in range(k)]
      dt = dtypes.void if op == "SINK" else dtypes.weakint
      nodes.append(UOp(Ops.SINK if op == "SINK" else Ops.ADD if op == "ADD" else Ops.MUL, dt, tuple(nodes[i] for i in idx)))
      spec.append(" ".join([op] + [str(i) for i in idx]))
  # the root sinks the last three nodes
  idx = list(range(max(0, len(nodes) - 3), len(nodes)))
  spec.append(" ".join(["SINK"] + [str(i) for i in idx]))
  return ";".join(spec), UOp(Ops.SINK, dtypes.void, tuple(nodes[i] for i in idx))

MODES = {"topdown": dict(), "bottomup": dict(bottom_up=True), "both": dict(bpm=bpm), "walk": dict(walk=True),
         "walk_bottomup": dict(walk=True, bottom_up=True), "walk_both": dict(walk=True, bpm=bpm)}
cases = []
for _ in range(60):
  spec, root = gen()
  for mode, kw in MODES.items():
    ctx = []
    ret = graph_rewrite(root, pm, ctx=ctx, **kw)
    cases.append(f'("{spec}", "{mode}", "{sexpr(ret)}", "{hashlib.md5(chr(10).join(ctx).encode()).hexdigest()}")')
print("  let cases = [\n    " + ";\n    ".join(cases) + " ]")
