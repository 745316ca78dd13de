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
  return seed >> 8

def build(n):
  pool = [UOp.variable(f"v{i}", 0, 3 + 7*i, param=True) for i in range(8)]
  for _ in range(n):
    a = pool[-1 - rand() % min(len(pool), 64)]
    k = rand() % 6
    if k == 0: u = a + pool[-1 - rand() % min(len(pool), 64)]
    elif k == 1: u = a * (1 + rand() % 8)
    elif k == 2: u = a // (1 + rand() % 8)
    elif k == 3: u = a % (1 + rand() % 16)
    elif k == 4: u = a + (rand() % 32)
    else: u = pool[rand() % 8] * (1 + rand() % 4) + a
    pool.append(u)
  return UOp.sink(*pool[8:])

t0 = time.perf_counter(); g = build(N); t1 = time.perf_counter()
nodes = len(g.toposort())
s = graph_rewrite(g, sym); t2 = time.perf_counter()
s2 = graph_rewrite(s, sym); t3 = time.perf_counter()
print(f"tinygrad: {nodes} nodes  build {1e3*(t1-t0):.1f} ms  sym {1e3*(t2-t1):.1f} ms  second sym {1e3*(t3-t2):.1f} ms  "
      f"out nodes {len(s.toposort())}  fixed point {s2 is s}")
