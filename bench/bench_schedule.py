# Schedule-speed micro-benchmark, tinygrad side (compare bench/bench_schedule.ml): build a graph of 2,000 chained
# elementwise/reduce tensor ops on a realized (64, 64) input and schedule it (Tensor.schedule_linear: callify +
# create_linear_with_vars), with nothing executed. Same graph as the OCaml benchmark.
import os, time
os.environ.setdefault("DEV", "CPU")
import numpy as np
from tinygrad import Tensor

N_OPS = 2000

def build(y):
  x = y
  for i in range(N_OPS):
    k = i % 5
    if k == 0: x = x + 1.0
    elif k == 1: x = x * 0.5
    elif k == 2: x = x.sqrt()
    elif k == 3: x = x.sum(axis=1, keepdim=True)
    else: x = x + y
  return x

def main():
  y = Tensor(np.arange(64*64, dtype=np.float32).reshape(64, 64)).realize()
  t0 = time.perf_counter()
  x = build(y)
  t1 = time.perf_counter()
  linear = x.schedule_linear()
  t2 = time.perf_counter()
  print(f"tinygrad bench_schedule: {N_OPS} ops, build {(t1-t0)*1e3:8.1f} ms, schedule {(t2-t1)*1e3:8.1f} ms, "
        f"total {(t2-t0):.3f} s, {len(linear.src)} calls in the LINEAR")

if __name__ == "__main__": main()
