# tinygrad 0.14.0's examples/beautiful_mnist.py on local IDX files (for the side-by-side note with
# examples/beautiful_mnist.ml). Usage: python bench/beautiful_mnist.py [DIR]  (default /usr/share/datasets/fashion-mnist)
# Env as tinygrad's: STEPS (70), BS (512), SEED (tinygrad's default seed when unset).
# Prints one progress line per step and a final "final test_accuracy" line with time per step (steps 2.. so the
# JIT capture of the first two calls is reported apart).
import gzip, os, sys, time
from typing import Callable
from tinygrad import Tensor, TinyJit, nn, GlobalCounters, function, Context
from tinygrad.helpers import getenv

def idx(path:str, header:int) -> Tensor:
  for p in (path, path + ".gz"):
    if os.path.exists(p):
      with (gzip.open(p, "rb") if p.endswith(".gz") else open(p, "rb")) as f: data = f.read()
      return Tensor(data[header:])  # uint8
  raise FileNotFoundError(path)

def mnist(d:str):
  return idx(f"{d}/train-images-idx3-ubyte", 16).reshape(-1,1,28,28), idx(f"{d}/train-labels-idx1-ubyte", 8), \
         idx(f"{d}/t10k-images-idx3-ubyte", 16).reshape(-1,1,28,28), idx(f"{d}/t10k-labels-idx1-ubyte", 8)

class Model:
  def __init__(self):
    self.layers: list[Callable[[Tensor], Tensor]] = [
      nn.Conv2d(1, 32, 5), Tensor.relu,
      nn.Conv2d(32, 32, 5), Tensor.relu,
      nn.BatchNorm(32), Tensor.max_pool2d,
      nn.Conv2d(32, 64, 3), Tensor.relu,
      nn.Conv2d(64, 64, 3), Tensor.relu,
      nn.BatchNorm(64), Tensor.max_pool2d,
      lambda x: x.flatten(1), nn.Linear(576, 10)]

  @function
  def __call__(self, x:Tensor) -> Tensor: return x.sequential(self.layers)

  @TinyJit
  @Context(TRAINING=1)
  def train_step(self, X_train:Tensor, Y_train:Tensor) -> Tensor:
    opt.zero_grad()
    samples = Tensor.randint(getenv("BS", 512), high=X_train.shape[0])
    loss = self(X_train[samples]).sparse_categorical_crossentropy(Y_train[samples]).backward()
    return loss.realize(*opt.schedule_step())

  @TinyJit
  def get_test_acc(self, X_test:Tensor, Y_test:Tensor) -> Tensor: return (self(X_test).argmax(axis=1) == Y_test).mean()*100

if __name__ == "__main__":
  if (seed := getenv("SEED", -1)) >= 0: Tensor.manual_seed(seed)
  X_train, Y_train, X_test, Y_test = mnist(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/datasets/fashion-mnist")
  Tensor.realize(X_train, Y_train, X_test, Y_test)
  model = Model()
  opt = nn.optim.Adam(nn.state.get_parameters(model))
  steps = getenv("STEPS", 70)
  test_acc = float('nan')
  t0 = time.perf_counter(); times, cpu = [], []
  for i in range(steps):
    st, ct = time.perf_counter(), time.process_time()
    GlobalCounters.reset()
    loss = model.train_step(X_train, Y_train)
    lv = loss.item()
    times.append(time.perf_counter() - st); cpu.append(time.process_time() - ct)
    if i%10 == 9: test_acc = model.get_test_acc(X_test, Y_test).item()
    print(f"step {i+1:4d} loss: {lv:6.2f} test_accuracy: {test_acc:5.2f}% {(i+1)/(time.perf_counter()-t0):6.2f} steps/s", flush=True)
  rest, crest = times[2:] or times, cpu[2:] or cpu
  print(f"final test_accuracy: {test_acc:.2f}% steps: {steps} BS: {getenv('BS', 512)} "
        f"step time: {sum(rest)/len(rest)*1000:.1f} ms, cpu {sum(crest)/len(crest)*1000:.1f} ms (steps 3..{steps}; first two: {times[0]*1000:.0f} ms, "
        f"{times[1]*1000 if len(times)>1 else 0:.0f} ms) total: {time.perf_counter()-t0:.1f} s")
