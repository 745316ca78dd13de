# Gradient values from tinygrad 0.14.0 for test/test_gradient.ml (tinygrad-specific choices at ties and zeros).
# run: /work/ref/venv/bin/python test/gen_gradient_oracle.py
from tinygrad import Tensor

def show(name, *ts):
  print(name, [t.grad.numpy().flatten().tolist() if t.grad is not None else None for t in ts])

x = Tensor([1., 2., 3., 4.]); y = Tensor([1., 3., 3., 0.])
(x.maximum(y) * Tensor([1., 2., 3., 4.])).sum().backward(); show("maximum_ties", x, y)

x = Tensor([1., 2., 3., 4.]); y = Tensor([1., 3., 3., 0.])
(x.minimum(y) * Tensor([1., 2., 3., 4.])).sum().backward(); show("minimum_ties", x, y)

x = Tensor([[1., 3., 3.], [2., 2., 2.]])
((x.max(axis=1) * Tensor([1., 2.])).sum() + x.max()).backward(); show("max_reduce_ties", x)

x = Tensor([[2., 0., 3.], [0., 0., 1.], [1., 2., 3.]])
(x.prod(axis=1) * Tensor([1., 2., 3.])).sum().backward(); show("prod_zeros", x)

b = Tensor([0., 0., 2., 3.]); e = Tensor([2., 0., 0.5, 0.])
b.pow(e).sum().backward(); show("pow_zero", b, e)

x = Tensor([-1., 0., 0.5, 2.])
(x.relu() + x.abs() * 2 + x.clip(0., 0.5) * 3 + (x > 0).where(x, x * 4) * 5).sum().backward(); show("kinks", x)

x = Tensor([0., 1., 4.])
x.sqrt().sum().backward(); show("sqrt_zero", x)

x = Tensor([[1., 2.], [3., 4.]]); w = Tensor([[0.5, -1.], [2., 1.]])
(x @ w).relu().sum().backward(); (x * w).sum().backward(); show("accumulate", x, w)

x = Tensor([1., 2., 3.])
(x * x.detach() + x.detach().exp()).sum().backward(); show("detach", x)

x = Tensor([[1., 2., 3.], [4., 5., 6.]])
(x.cast("float16").cast("float32") * Tensor([1., 2., 3.])).contiguous().sum().backward(); show("cast_contiguous", x)

x = Tensor([1., 2., 3.])
y = x * 2
(y * Tensor([1., 1., 5.])).sum().backward(); show("intermediate", x, y)

x = Tensor([1., 2., 3.]); y = Tensor([4., 5.])
gx, gy = (x * 3).sum().gradient(x, y); print("unreached", [gx.numpy().tolist(), gy.numpy().tolist()])

x = Tensor([1., 2., 3.])
(x * x).backward(Tensor([1., 0.5, 2.])); show("explicit_gradient", x)

# UOp.key of gradient graphs (inputs Tensor.empty, BUFFER slots from 0): test/test_gradient.ml grad_keys
import itertools
from tinygrad import dtypes
from tinygrad.uop.ops import UOp
def E(*s): return Tensor.empty(*s)
def gkeys(name, f):
  UOp.unique_num = itertools.count(0)
  out, ins = f()
  print(f'    ("{name}", [' + "; ".join(f'"{g.uop.key.hex()}"' for g in out.gradient(*ins)) + "]);")
def mk(f, *shapes):
  def g():
    ins = [E(*s) for s in shapes]
    return f(*ins), ins
  return g
gkeys("mul_broadcast", mk(lambda a, b: (a * b).sum(), (2, 3), (3,)))
gkeys("max_axis", mk(lambda a: a.max(axis=1).sum(), (2, 3)))
gkeys("min_all", mk(lambda a: a.min(), (2, 3)))
gkeys("prod_axis", mk(lambda a: a.prod(axis=0).sum(), (2, 3)))
gkeys("pow", mk(lambda a, b: a.pow(b).sum(), (4,), (4,)))
gkeys("maximum_where", mk(lambda a, b: (a > b).where(a, a.maximum(b)).sum(), (4,), (4,)))
gkeys("unary", mk(lambda a: (a.sqrt() + a.exp() + a.log() + a.sin() + a.reciprocal() + a.trunc()).sum(), (4,)))
gkeys("movement", mk(lambda a: a.pad(((1, 0), (0, 2))).flip(0).permute(1, 0).shrink(((1, 4), (0, 2))).reshape(6).sum(), (2, 3)))
gkeys("matmul", mk(lambda a, b: (a @ b).sum(), (2, 3), (3, 4)))
gkeys("softmax", mk(lambda a: a.softmax().sum(), (2, 3)))
gkeys("cast_contiguous", mk(lambda a: a.cast(dtypes.half).contiguous().contiguous_backward().float().sum(), (2, 3)))
gkeys("cumsum", mk(lambda a: a.cumsum(1).sum(), (2, 5)))
gkeys("stack_cat", mk(lambda a, b: (Tensor.stack(a, b).sum() + a.cat(b).max()), (3,), (3,)))

y = Tensor([1., 2., 3.]); x = Tensor([0., 0., 0.]).realize()
x.assign(y * 2)
(x * Tensor([1., 2., 3.])).sum().backward(); show("assign_and_clone (assign)", y, x)
y = Tensor([1., 2., 3.]); c = (y * y).clone(); (c * 3).sum().backward(); show("assign_and_clone (clone)", y)
