# The PyTorch side of bench/compare.py: the workloads of bench/bench_ops.ml in torch (CPU, eager), with the same
# timing method (inputs made first; warm-up runs untimed; median of N timed runs; N = clamp(round(1 s / first run),
# 5, 200), BENCH_QUICK=1: N = 3). Threads: NUM_CPU_THREADS, else the CPUs this process may use (both frameworks'
# default). torch has no TinyJit: the JIT rows time its eager step; dispatch_jit is left out.
# Output lines as bench_ops.ml: RESULT name ms flops reps.
import os, time, statistics
import torch
import torch.nn as nn
import torch.nn.functional as F

def cpu_count():
  try: return len(os.sched_getaffinity(0))
  except AttributeError: return os.cpu_count() or 1

# BENCH_DEVICE=cuda runs the workloads on the GPU (each timed run then ends with a synchronize)
DEVICE = os.environ.get("BENCH_DEVICE", "cpu")
def sync():
  if DEVICE.startswith("cuda"): torch.cuda.synchronize()
THREADS = int(os.environ.get("NUM_CPU_THREADS", cpu_count()))
torch.set_num_threads(THREADS)
QUICK = int(os.environ.get("BENCH_QUICK", "0")) != 0
ONLY = [p for p in os.environ.get("BENCH_ONLY", "").split(",") if p]
def selected(name): return not ONLY or any(name.startswith(p) for p in ONLY)

def bench(name, f, flops=0, warmup=2):
  if not selected(name): return
  with torch.no_grad() if not name.startswith(("mlp", "mnist")) else torch.enable_grad():
    st = time.perf_counter()
    for i in range(warmup):
      f(); sync()
      if i == 0: print(f"INFO\tfirst_call\t{name}\t{(time.perf_counter() - st)*1000:.3f}", flush=True)
    def one():
      st = time.perf_counter(); f(); sync(); return time.perf_counter() - st
    first = one()
    reps = 3 if QUICK else max(5, min(200, round(1.0 / max(first, 1e-9))))
    ts = [one() for _ in range(reps)]
  print(f"RESULT\t{name}\t{statistics.median(ts)*1000:.6f}\t{flops:.0f}\t{reps}", flush=True)

def rand(*shape, dtype=torch.float32): return torch.rand(*shape, dtype=dtype, device=DEVICE)

class MnistModel(nn.Module):
  # tinygrad: examples/beautiful_mnist.py Model, in torch
  def __init__(self):
    super().__init__()
    self.net = nn.Sequential(nn.Conv2d(1, 32, 5), nn.ReLU(), nn.Conv2d(32, 32, 5), nn.ReLU(), nn.BatchNorm2d(32),
                             nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.Conv2d(64, 64, 3), nn.ReLU(),
                             nn.BatchNorm2d(64), nn.MaxPool2d(2), nn.Flatten(1), nn.Linear(576, 10))
  def forward(self, x): return self.net(x)

def train_step(model, opt, x, y):
  opt.zero_grad()
  loss = F.cross_entropy(model(x), y)
  loss.backward()
  opt.step()
  return loss

def mnist_step():
  model = MnistModel().train().to(DEVICE)
  opt = torch.optim.Adam(model.parameters())
  x_train = torch.randint(0, 256, (60000, 1, 28, 28), dtype=torch.uint8, device=DEVICE)
  y_train = torch.randint(0, 10, (60000,), dtype=torch.uint8, device=DEVICE)
  def mstep():
    samples = torch.randint(0, x_train.shape[0], (512,), device=DEVICE)
    return train_step(model, opt, x_train[samples].float(), y_train[samples].long())
  return mstep

def cold_start():
  # the first and second beautiful_mnist steps of a fresh process (torch compiles nothing: its first step pays
  # its allocator's and thread pool's warm-up)
  step = mnist_step()
  with torch.enable_grad():
    for name in ("cold_step1", "cold_step2"):
      st = time.perf_counter(); step(); sync()
      print(f"RESULT\t{name}\t{(time.perf_counter() - st)*1000:.6f}\t0\t1", flush=True)

if __name__ == "__main__":
  torch.manual_seed(0)
  if "cold_start" in ONLY: cold_start(); raise SystemExit(0)
  print(f"INFO\tconfig\ttorch {torch.__version__} threads={torch.get_num_threads()} quick={QUICK}", flush=True)
  if selected("elementwise"):
    a, b = rand(4*1024*1024), rand(4*1024*1024)
    bench("elementwise", lambda: torch.relu(a*b+1))
  if selected("sum_axis1"):
    a = rand(4096, 4096)
    bench("sum_axis1", lambda: a.sum(dim=1))
  for n in (256, 512, 1024, 2048):
    if selected(f"matmul_{n}") and not (QUICK and n > 512):
      a, b = rand(n, n), rand(n, n)
      bench(f"matmul_{n}", lambda: a @ b, flops=2*n*n*n)
  # matmul 4096 in float32 and float16: off the CPU only, or when BENCH_ONLY names them
  for name, dt in (("matmul_4096", torch.float32), ("matmul_4096_half", torch.float16)):
    if selected(name) and (DEVICE != "cpu" or name in ONLY):
      a, b = rand(4096, 4096, dtype=dt), rand(4096, 4096, dtype=dt)
      bench(name, lambda a=a, b=b: a @ b, flops=2*4096**3)
  for k, n in ((768, 2304), (768, 3072), (3072, 768), (768, 50257)):
    for layout in ("kn", "nk"):
      name = f"gemv_{layout}_{k}_{n}"
      if selected(name) and not (QUICK and n > 4096):
        x, w = rand(1, k), (rand(k, n) if layout == "kn" else rand(n, k))
        bench(name, (lambda x=x, w=w: x @ w) if layout == "kn" else (lambda x=x, w=w: x @ w.T), flops=2*k*n)
  if selected("gemv_kn_768_3072_bias_gelu"):
    x, w, b = rand(1, 768), rand(768, 3072), rand(3072)
    bench("gemv_kn_768_3072_bias_gelu", lambda: F.gelu(x @ w + b, approximate="tanh"), flops=2*768*3072)
  if selected("gemv_nk_768_3072_bias_gelu"):
    x, w, b = rand(1, 768), rand(3072, 768), rand(3072)
    bench("gemv_nk_768_3072_bias_gelu", lambda: F.gelu(x @ w.T + b, approximate="tanh"), flops=2*768*3072)
  for layout in ("kn", "nk"):
    if selected(f"gemv_half_{layout}_1024_4096_gate"):
      half = lambda *shape: rand(*shape, dtype=torch.float16)
      x, g, w = half(1, 1024), half(1, 4096), half(*((1024, 4096) if layout == "kn" else (4096, 1024)))
      y = (lambda: x @ w) if layout == "kn" else (lambda: x @ w.T)
      bench(f"gemv_half_{layout}_1024_4096_gate", lambda: y() * g, flops=2*1024*4096)
  if selected("softmax"):
    a = rand(4096, 1024)
    bench("softmax", lambda: torch.softmax(a, dim=-1))
  for cin, cout in ((1, 32), (32, 64)):
    if selected(f"conv2d_{cin}_{cout}"):
      x, w = rand(32, cin, 28, 28), rand(cout, cin, 3, 3)
      bench(f"conv2d_{cin}_{cout}", lambda: F.conv2d(x, w), flops=2*32*cout*cin*9*26*26)
  for jit in (False, True):
    name = "mlp_adam_jit" if jit else "mlp_adam_eager"
    if selected(name):
      model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)).to(DEVICE)
      opt = torch.optim.Adam(model.parameters())
      x, y = rand(128, 784), torch.randint(0, 10, (128,), device=DEVICE)
      bench(name, lambda: train_step(model, opt, x, y), warmup=3)
  if selected("mnist_step_jit") and not QUICK:
    bench("mnist_step_jit", mnist_step(), warmup=3)
  if selected("dispatch_eager"):
    a, b = rand(1), rand(1)
    bench("dispatch_eager", lambda: a + b)
    def adds():
      for _ in range(1000): a + b
    bench("dispatch_eager_x1000", adds)
