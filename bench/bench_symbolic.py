# The same graph as bench_symbolic.ml, built and simplified by tinygrad 0.14.0, for a side-by-side figure.
# usage: python bench/bench_symbolic.py [N]   (needs tinygrad==0.14.0 installed)
import sys, time
from tinygrad.uop.ops import UOp, graph_rewrite
from tinygrad.uop.symbolic import sym

N = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
seed = 12345
def rand():
  global seed
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed >> 16

def build(target):
  # many kernel-like index expressions: a linear combination of ranges, then a few div/mod/add/mul steps
  vs = [UOp.variable(f"v{i}", 0, 3 + 7*i, param=True) for i in range(8)]
  exprs, seen = [], set()
  while len(seen) < target:
    e = vs[rand() % 8] * (1 + rand() % 64) + vs[rand() % 8] * (1 + rand() % 8) + rand() % 16
    for _ in range(1 + rand() % 4):
      k = rand() % 4
      if k == 0: e = e // (1 + rand() % 16)
      elif k == 1: e = e % (1 + rand() % 32)
      elif k == 2: e = e + vs[rand() % 8]
      else: e = e * (1 + rand() % 4)
    exprs.append(e)
    seen.update(e.toposort())
  return UOp.sink(*exprs)

t0 = time.perf_counter(); g = build(N); t1 = time.perf_counter()
nodes = len(g.toposort())
s = graph_rewrite(g, sym); t2 = time.perf_counter()
s2 = graph_rewrite(s, sym); t3 = time.perf_counter()
print(f"tinygrad: {nodes} nodes  build {1e3*(t1-t0):.1f} ms  sym {1e3*(t2-t1):.1f} ms  second sym {1e3*(t3-t2):.1f} ms  "
      f"out nodes {len(s.toposort())}  fixed point {s2 is s}")
