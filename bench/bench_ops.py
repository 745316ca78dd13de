# The tinygrad 0.14.0 side of bench/compare.py: the workloads of bench/bench_ops.ml with the same timing method
# (inputs realized first; warm-up runs untimed; median of N timed runs, each building the graph, realizing it and
# synchronizing the device; N = clamp(round(1 s / first run), 5, 200), BENCH_QUICK=1: N = 3).
# Mode from the environment: BEAM, NUM_CPU_THREADS (tinygrad's default: the CPU count). BENCH_ONLY, BENCH_QUICK as
# bench_ops.ml. Output lines as bench_ops.ml: RESULT name ms flops reps; INFO beam_searches n warmup_s s.
import os, time, statistics
from tinygrad import Tensor, TinyJit, nn, Device, dtypes, Context
from tinygrad.helpers import getenv, BEAM, NUM_CPU_THREADS
import tinygrad.codegen.opt.search as search

searches = 0
_put = search.diskcache_put
def _counting_put(table, key, val):
  global searches
  if table == "beam_search": searches += 1
  return _put(table, key, val)
search.diskcache_put = _counting_put  # a BEAM search that ran (not answered from the cache) ends in a put

QUICK = getenv("BENCH_QUICK", 0) != 0
ONLY = [p for p in os.environ.get("BENCH_ONLY", "").split(",") if p]
def selected(name): return not ONLY or any(name.startswith(p) for p in ONLY)

dev = Device[Device.DEFAULT]
def sync(): dev.synchronize()
warmup_s = 0.0

def bench(name, f, flops=0, warmup=2):
  global warmup_s
  if not selected(name): return
  st = time.perf_counter()
  for i in range(warmup):
    f(); sync()
    if i == 0: print(f"INFO\tfirst_call\t{name}\t{(time.perf_counter() - st)*1000:.3f}", flush=True)
  warmup_s += time.perf_counter() - st
  def one():
    st = time.perf_counter(); f(); sync(); return time.perf_counter() - st
  first = one()
  reps = 3 if QUICK else max(5, min(200, round(1.0 / max(first, 1e-9))))
  ts = [one() for _ in range(reps)]
  print(f"RESULT\t{name}\t{statistics.median(ts)*1000:.6f}\t{flops:.0f}\t{reps}", flush=True)

def realized(*shape): return Tensor.rand(*shape).realize()

class MnistModel:
  # tinygrad: examples/beautiful_mnist.py Model (without @function, as examples/beautiful_mnist.ml)
  def __init__(self):
    self.layers = [nn.Conv2d(1, 32, 5), Tensor.relu, nn.Conv2d(32, 32, 5), Tensor.relu, nn.BatchNorm(32), Tensor.max_pool2d,
                   nn.Conv2d(32, 64, 3), Tensor.relu, nn.Conv2d(64, 64, 3), Tensor.relu, nn.BatchNorm(64), Tensor.max_pool2d,
                   lambda x: x.flatten(1), nn.Linear(576, 10)]
  def __call__(self, x): return x.sequential(self.layers)

class MLP:
  def __init__(self): self.l1, self.l2 = nn.Linear(784, 128), nn.Linear(128, 10)
  def __call__(self, x): return self.l2(self.l1(x).relu())

def mnist_step_jit():
  model = MnistModel()
  opt = nn.optim.Adam(nn.state.get_parameters(model))
  x_train = Tensor.randint(60000, 1, 28, 28, high=256).cast(dtypes.uint8).realize()
  y_train = Tensor.randint(60000, high=10).cast(dtypes.uint8).realize()
  @TinyJit
  def mstep(X_train, Y_train):
    with Context(TRAINING=1):
      opt.zero_grad()
      samples = Tensor.randint(512, high=X_train.shape[0])
      loss = model(X_train[samples]).sparse_categorical_crossentropy(Y_train[samples]).backward()
      return loss.realize(*opt.schedule_step())
  return lambda: mstep(x_train, y_train)

def cold_start():
  # as bench_ops.ml's: the first and second beautiful_mnist JIT steps of a fresh process (compare.py points
  # XDG_CACHE_HOME at an empty folder: no cached kernel)
  step = mnist_step_jit()
  for name in ("cold_step1", "cold_step2"):
    st = time.perf_counter(); step(); sync()
    print(f"RESULT\t{name}\t{(time.perf_counter() - st)*1000:.6f}\t0\t1", flush=True)

if __name__ == "__main__":
  Tensor.manual_seed(0)
  if "cold_start" in ONLY: cold_start(); raise SystemExit(0)
  print(f"INFO\tconfig\tBEAM={BEAM.value} NUM_CPU_THREADS={NUM_CPU_THREADS.value} CPUs={os.cpu_count()} quick={QUICK}", flush=True)
  if selected("elementwise"):
    a, b = realized(4*1024*1024), realized(4*1024*1024)
    bench("elementwise", lambda: (a*b+1).relu().realize())
  if selected("sum_axis1"):
    a = realized(4096, 4096)
    bench("sum_axis1", lambda: a.sum(axis=1).realize())
  for n in (256, 512, 1024, 2048):
    if selected(f"matmul_{n}") and not (QUICK and n > 512):
      a, b = realized(n, n), realized(n, n)
      bench(f"matmul_{n}", lambda: (a@b).realize(), flops=2*n*n*n)
  # matmul 4096 in float32 and float16: off the CPU only, or when BENCH_ONLY names them
  for name, dt in (("matmul_4096", dtypes.float32), ("matmul_4096_half", dtypes.half)):
    if selected(name) and (Device.DEFAULT != "CPU" or name in ONLY):
      a, b = Tensor.rand(4096, 4096, dtype=dt).realize(), Tensor.rand(4096, 4096, dtype=dt).realize()
      bench(name, lambda a=a, b=b: (a@b).realize(), flops=2*4096**3)
  # matrix-vector, GPT-2 decode's shapes: x (1, k) @ w, w row-major (k, n) ("kn") or (n, k) used transposed ("nk")
  for k, n in ((768, 2304), (768, 3072), (3072, 768), (768, 50257)):
    for layout in ("kn", "nk"):
      name = f"gemv_{layout}_{k}_{n}"
      if selected(name) and not (QUICK and n > 4096):
        x, w = realized(1, k), (realized(k, n) if layout == "kn" else realized(n, k))
        bench(name, (lambda x=x, w=w: (x @ w).realize()) if layout == "kn" else (lambda x=x, w=w: (x @ w.T).realize()),
              flops=2*k*n)
  # float16 matrix-vector with an epilogue, a Llama feed-forward's up projection in decode: x (1, 1024) @ w, w (4096, 1024)
  # used transposed ("nk") or (1024, 4096) ("kn"), times a float16 gate (1, 4096)
  for layout in ("kn", "nk"):
    name = f"gemv_half_{layout}_1024_4096_gate"
    if selected(name):
      x, g = Tensor.rand(1, 1024, dtype=dtypes.half).realize(), Tensor.rand(1, 4096, dtype=dtypes.half).realize()
      w = Tensor.rand(*((1024, 4096) if layout == "kn" else (4096, 1024)), dtype=dtypes.half).realize()
      bench(name, (lambda x=x, w=w, g=g: ((x @ w) * g).realize()) if layout == "kn" else
            (lambda x=x, w=w, g=g: ((x @ w.T) * g).realize()), flops=2*1024*4096)
  if selected("gemv_kn_768_3072_bias_gelu"):
    x, w, b = realized(1, 768), realized(768, 3072), realized(3072)
    bench("gemv_kn_768_3072_bias_gelu", lambda: (x @ w + b).gelu().realize(), flops=2*768*3072)
  if selected("gemv_nk_768_3072_bias_gelu"):
    x, w, b = realized(1, 768), realized(3072, 768), realized(3072)
    bench("gemv_nk_768_3072_bias_gelu", lambda: (x @ w.T + b).gelu().realize(), flops=2*768*3072)
  # float16 matrix-vector times a float16 gate, a Llama feed-forward's up projection in decode
  for layout in ("kn", "nk"):
    if selected(f"gemv_half_{layout}_1024_4096_gate"):
      half = lambda *shape: Tensor.rand(*shape, dtype=dtypes.half).realize()
      x, g, w = half(1, 1024), half(1, 4096), half(*((1024, 4096) if layout == "kn" else (4096, 1024)))
      y = (lambda: x @ w) if layout == "kn" else (lambda: x @ w.T)
      bench(f"gemv_half_{layout}_1024_4096_gate", lambda: (y() * g).realize(), flops=2*1024*4096)
  if selected("softmax"):
    a = realized(4096, 1024)
    bench("softmax", lambda: a.softmax(axis=-1).realize())
  for cin, cout in ((1, 32), (32, 64)):
    if selected(f"conv2d_{cin}_{cout}"):
      x, w = realized(32, cin, 28, 28), realized(cout, cin, 3, 3)
      bench(f"conv2d_{cin}_{cout}", lambda: x.conv2d(w).realize(), flops=2*32*cout*cin*9*26*26)
  for jit in (False, True):
    name = "mlp_adam_jit" if jit else "mlp_adam_eager"
    if selected(name):
      model = MLP()
      opt = nn.optim.Adam(nn.state.get_parameters(model))
      x, y = realized(128, 784), Tensor.randint(128, high=10).realize()
      def step(x, y, model=model, opt=opt):
        with Context(TRAINING=1):
          opt.zero_grad()
          loss = model(x).sparse_categorical_crossentropy(y).backward()
          return loss.realize(*opt.schedule_step())
      if jit:
        jstep = TinyJit(step)
        bench(name, lambda: jstep(x, y), warmup=3)
      else: bench(name, lambda: step(x, y))
  if selected("mnist_step_jit") and not QUICK:
    bench("mnist_step_jit", mnist_step_jit(), warmup=3)
  if selected("dispatch_eager") or selected("dispatch_jit"):
    a, b = realized(1), realized(1)
    bench("dispatch_eager", lambda: (a+b).realize())
    def adds():
      for _ in range(1000): (a+b).realize()
    bench("dispatch_eager_x1000", adds)
    jadd = TinyJit(lambda a, b: (a+b).realize())
    bench("dispatch_jit", lambda: jadd(a, b), warmup=3)
  print(f"INFO\tbeam_searches\t{searches}\twarmup_s\t{warmup_s:.2f}", flush=True)
