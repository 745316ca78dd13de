# T-ops value oracle: numpy (float64) results of the mixin/op.py functions on small deterministic inputs.
# Inputs: data(n)[i] = ((i*7) % 11 - 5) * 0.25 (exact in float32); int labels as given. Prints OCaml list entries.
import numpy as np
def data(*shape):
  n = int(np.prod(shape)); return (((np.arange(n) * 7) % 11 - 5) * 0.25).reshape(shape)
def sm(x, ax=-1): e = np.exp(x - x.max(ax, keepdims=True)); return e / e.sum(ax, keepdims=True)
def lsm(x, ax=-1): m = x - x.max(ax, keepdims=True); return m - np.log(np.exp(m).sum(ax, keepdims=True))
def conv(x, w, pad=0, stride=1, groups=1):
  x = np.pad(x, ((0,0),(0,0),(pad,pad),(pad,pad))); N,C,H,W = x.shape; O,Cg,KH,KW = w.shape
  oh, ow = (H-KH)//stride+1, (W-KW)//stride+1; out = np.zeros((N,O,oh,ow)); og = O//groups
  for n in range(N):
    for o in range(O):
      g = o // og
      for i in range(oh):
        for j in range(ow):
          out[n,o,i,j] = (x[n, g*Cg:(g+1)*Cg, i*stride:i*stride+KH, j*stride:j*stride+KW] * w[o]).sum()
  return out
def pool(x, k, s, pad, fn, fill):
  x = np.pad(x, ((0,0),(0,0),(pad,pad),(pad,pad)), constant_values=fill); N,C,H,W = x.shape
  oh, ow = (H-k)//s+1, (W-k)//s+1; out = np.zeros((N,C,oh,ow))
  for i in range(oh):
    for j in range(ow): out[:,:,i,j] = fn(x[:,:,i*s:i*s+k, j*s:j*s+k], axis=(2,3))
  return out
x = data(3, 5)
labels = np.array([4, 0, 2])
cases = {
  "softmax": sm(x), "log_softmax": lsm(x), "logsumexp0": np.log(np.exp(x).sum(0)),
  "matmul": x @ data(5, 4), "matvec": x @ data(5),
  "conv2d": conv(data(1,2,5,5), data(3,2,3,3), pad=1),
  "conv2d_groups_stride": conv(data(1,4,6,6), data(4,2,3,3), stride=2, groups=2),
  "avg_pool2d": pool(data(1,2,7,7), 3, 2, 1, np.mean, 0.0),
  "max_pool2d": pool(data(1,2,6,6), 2, 2, 0, np.max, -np.inf),
  "cumsum_long": np.cumsum(data(600)), "cumsum_axis1": np.cumsum(x, 1),
  "one_hot": np.eye(6)[labels].astype(np.float64), "gather": np.take_along_axis(x, np.array([[0,4],[1,1],[3,2]]), 1),
  "fancy": data(6,2)[np.array([5,0,-1,2])], "slices": data(6,8)[::-1, 1::3],
  "triu_eye": np.triu(data(4,4)) + np.eye(4), "argmax": x.argmax(1).astype(np.float64),
  "argmin": x.argmin(0).astype(np.float64),
  "layernorm": (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5),
  "sparse_ce": np.array(-lsm(x)[np.arange(3), labels].mean()),
  "cross_entropy": np.array(-lsm(x, 1)[np.arange(3), labels].mean()),
  "linspace": np.linspace(-1, 1, 5), "arange_neg": np.arange(10, 0, -3).astype(np.float64),
}
for k, v in cases.items():
  v = np.asarray(v, dtype=np.float64).ravel()
  print(f'  ("{k}", [| {"; ".join(repr(float(f)) for f in v)} |]);')
