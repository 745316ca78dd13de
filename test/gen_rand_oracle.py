# Oracle for test/test_rand.ml: run with DEV=CPU /work/ref/venv/bin/python test/gen_rand_oracle.py (tinygrad 0.14.0).
import numpy as np
from tinygrad import Tensor, dtypes
def bits(t):
  a = t.numpy()
  if a.dtype == np.float32: return "F32", [int(x) for x in a.reshape(-1).view(np.uint32)]
  if a.dtype == np.float16: return "F16", [int(x) for x in a.reshape(-1).view(np.uint16)]
  if a.dtype == np.float64: return "F64", ["0x%016xL" % int(x) for x in a.reshape(-1).view(np.uint64)]
  return "I", [int(x) for x in a.reshape(-1)]
cases = []
def case(name, fn):
  Tensor.manual_seed(42)
  t = fn()
  k, v = bits(t)
  cases.append((name, t.shape, k, v))
case("rand_5", lambda: Tensor.rand(5))
case("rand_2x3", lambda: Tensor.rand(2,3))
case("rand_3x4x5", lambda: Tensor.rand(3,4,5))
case("randn_7", lambda: Tensor.randn(7))
case("randn_2x3", lambda: Tensor.randn(2,3))
case("randn_4x4x2", lambda: Tensor.randn(4,4,2))
case("randint_10_0_100", lambda: Tensor.randint(10, low=0, high=100))
case("randint_3x3_-5_5", lambda: Tensor.randint(3,3, low=-5, high=5))
case("randint_2x2x3", lambda: Tensor.randint(2,2,3))
case("rand_f16_7", lambda: Tensor.rand(7, dtype=dtypes.float16))
case("rand_f64_3", lambda: Tensor.rand(3, dtype=dtypes.float64))
case("uniform_2x3", lambda: Tensor.uniform(2,3, low=2, high=10))
case("normal_2x3", lambda: Tensor.normal(2,3, mean=10, std=2))
case("kaiming_uniform_2x3", lambda: Tensor.kaiming_uniform(2,3))
case("glorot_uniform_2x3", lambda: Tensor.glorot_uniform(2,3))
case("kaiming_normal_2x3", lambda: Tensor.kaiming_normal(2,3))
case("scaled_uniform_2x3", lambda: Tensor.scaled_uniform(2,3))
def seq():
  a = Tensor.rand(3); a.realize()
  b = Tensor.rand(4); return b
case("rand_seq_second", seq)
def seq2():
  a = Tensor.rand(3); b = Tensor.rand(4); return a.cat(b)
case("rand_seq_lazy", seq2)
for name, shape, k, v in cases:
  print('  ("%s", [| %s |], %s [| %s |]);' % (name, "; ".join(map(str, shape)), k, "; ".join(map(str, v))))

# dropout / attention / multinomial values of test_rand.ml

from tinygrad import Tensor, dtypes
from tinygrad.helpers import Context
q = Tensor((np.arange(2*3*4).reshape(2,3,4)*0.1 - 1.0).astype(np.float32))
k = Tensor((np.sin(np.arange(2*3*4)).reshape(2,3,4)).astype(np.float32))
v = Tensor((np.cos(np.arange(2*3*4)).reshape(2,3,4)).astype(np.float32))
print(q.scaled_dot_product_attention(k, v).numpy().reshape(-1).tolist())
print(q.scaled_dot_product_attention(k, v, is_causal=True).numpy().reshape(-1).tolist())
m = Tensor([[True, False, True],[True, True, False],[False, True, True]])
print(q.scaled_dot_product_attention(k, v, attn_mask=m).numpy().reshape(-1).tolist())
Tensor.manual_seed(5)
x = Tensor(np.arange(12, dtype=np.float32).reshape(3,4)+1)
with Context(TRAINING=1): print(x.dropout(0.3).numpy().reshape(-1).tolist())
Tensor.manual_seed(42)
print(Tensor([1.,2.,3.,4.]).multinomial(10, replacement=True).numpy().tolist())
