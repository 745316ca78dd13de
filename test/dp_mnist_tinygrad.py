# tinygrad 0.14.0's side of test/test_multitensor.ml data_parallel_beautiful_mnist_float32_given_batches:
# beautiful_mnist in float32 on Fashion-MNIST, seed 42, the parameters realized when drawn, Adam, batches of 512
# given as index tensors ((s * 512 + i) * 7919 mod 60000), 20 JIT steps on one device and with the batch split on
# CPU:0/CPU:1 (parameters replicated); also the first batch's gradient from the initial weights. Prints the lines
# the OCaml test prints, so that the two runs can be read side by side.
# Run: PARALLEL=0 DEV=CPU /work/venv/bin/python test/dp_mnist_tinygrad.py
import os, gzip, numpy as np
from tinygrad import Tensor, TinyJit, nn, Context
from tinygrad.nn.state import get_parameters
STEPS, BS = int(os.getenv("STEPS", "20")), int(os.getenv("BS", "512"))
D = os.getenv("MNIST_DIR", "/usr/share/datasets/fashion-mnist")

def load(name, offset):
  p = os.path.join(D, name)
  data = open(p, "rb").read() if os.path.exists(p) else gzip.open(p + ".gz").read()
  return np.frombuffer(data, dtype=np.uint8)[offset:].copy()

X = Tensor(load("train-images-idx3-ubyte", 16).reshape(-1, 1, 28, 28)).realize()
Y = Tensor(load("train-labels-idx1-ubyte", 8)).realize()
N = X.shape[0]
def batch(s): return Tensor(np.array([((s * BS + i) * 7919) % N for i in range(BS)], dtype=np.int32)).realize()

class Model:
  def __init__(self):
    self.layers = [nn.Conv2d(1, 32, 5), Tensor.relu, nn.Conv2d(32, 32, 5), Tensor.relu, nn.BatchNorm(32),
                   Tensor.max_pool2d, nn.Conv2d(32, 64, 3), Tensor.relu, nn.Conv2d(64, 64, 3), Tensor.relu,
                   nn.BatchNorm(64), Tensor.max_pool2d, lambda x: x.flatten(1), nn.Linear(576, 10)]
  def __call__(self, x): return x.sequential(self.layers)

def run(devs):
  Tensor.manual_seed(42)
  m = Model()
  params = get_parameters(m)
  Tensor.realize(*params)
  if devs:
    for p in params: p.shard_(devs).realize()
  opt = nn.optim.Adam(params)
  shard = (lambda t: t.shard(devs, axis=0)) if devs else (lambda t: t)
  def loss_of(s): return m(shard(X[s])).sparse_categorical_crossentropy(shard(Y[s]))
  with Context(TRAINING=1):
    opt.zero_grad()
    loss = loss_of(batch(0)).backward()
    grads = [p.grad.to("CPU").numpy().astype(np.float64).reshape(-1) for p in params if p.grad is not None]
    first = loss.item()
    opt.zero_grad()
  @TinyJit
  def step(s):
    with Context(TRAINING=1):
      opt.zero_grad()
      loss = loss_of(s).backward()
      # beautiful_mnist's train_step: the loss realized with the step, so it is the loss before the update
      return loss.realize(*opt.schedule_step())
  return [step(batch(s)).item() for s in range(STEPS)], first, grads

def report(one, dp):
  (losses1, l1, g1), (losses2, l2, g2) = one, dp
  print(f"  first batch loss from the initial weights: one device {l1:.9g}, data parallel {l2:.9g}")
  for i, (a, b) in enumerate(zip(g1, g2)):
    print(f"  grad {i}: sum|g| one {np.abs(a).sum():.9g} dp {np.abs(b).sum():.9g}, max |one - dp| "
          f"{np.abs(a - b).max():.3g}, g[0..2] {a[0]:.9g} {a[1]:.9g} {a[2]:.9g}")
  for i, (a, b) in enumerate(zip(losses1, losses2)):
    print(f"  step {i+1:2d} one {a:.9f} dp {b:.9f} rel {abs(a - b) / abs(a):.2e}")

if __name__ == "__main__":
  report(run(None), run(("CPU", "CPU:1")))
