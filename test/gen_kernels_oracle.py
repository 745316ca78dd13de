# expected values for test/test_kernels.ml, computed with numpy (float32 like the kernels): /work/ref/venv/bin/python test/gen_kernels_oracle.py
import numpy as np
f32 = np.float32
def gen(n, seed): return np.array([((i*37 + seed*11) % 23 - 11) / 4.0 for i in range(n)], dtype=f32)
def geni(n, seed): return np.array([((i*7 + seed*5) % 19) - 9 for i in range(n)], dtype=np.int32)
A = gen(20, 1); B = gen(5, 2); A2 = gen(20, 4); C = np.abs(gen(20, 3)) + f32(0.25); I = geni(12, 1)
D = np.array([[-3, -2, 2, 3][i % 4] for i in range(12)], dtype=np.int32)
A2d = A.reshape(4, 5)
out = {}
out['ew_broadcast'] = (A2d * B[None, :] + f32(1.0)).reshape(-1)
out['sum_full'] = np.array([A.sum(dtype=f32)])
out['max_full'] = np.array([A.max()])
out['sum_partial'] = A2d.sum(axis=1, dtype=f32)
out['max_partial'] = A2d.max(axis=1)
out['sum_axis0'] = A2d.sum(axis=0, dtype=f32)
out['fused'] = np.sqrt((A2d * A2d + f32(1.0)).sum(axis=1, dtype=f32)) * f32(0.5) + B[:4]
out['pad_gated'] = np.array([B[i-2] * f32(2.0) if 2 <= i < 7 else f32(0.0) for i in range(9)], dtype=f32)
out['cast_int_float'] = I.astype(f32) * f32(0.5)
out['cast_float_int'] = A.astype(np.int32)
out['cast_float_uint8'] = (C * f32(10.0)).astype(np.uint8)
out['cast_bool_float'] = (A > 0).astype(f32)
out['where'] = np.where(A < A2, A, A2 * f32(2.0))
with np.errstate(all='ignore'):
  out['exp2'] = np.exp2(A)
  out['log2'] = np.log2(C)
  out['sin'] = np.sin(A * f32(37.0))
  out['sqrt'] = np.sqrt(C)
  out['reciprocal'] = f32(1.0) / A2
  out['exp'] = np.exp(A)
  out['log'] = np.log(C)
out['floordiv_3'] = I // 3
out['floormod_3'] = I % 3
out['floordiv_m4'] = I // -4
out['floormod_m4'] = I % -4
out['floordiv_buf'] = I // D
out['floormod_buf'] = I % D
out['cdiv_3'] = np.fix(I / 3).astype(np.int32)
out['cmod_3'] = np.fmod(I, 3)
out['cdiv_buf'] = np.fix(I / D).astype(np.int32)
out['cmod_buf'] = np.fmod(I, D)
ins = [gen(8, k + 5) for k in range(12)]
n, m = 3, -2
out['many_bufs'] = sum(ins[k] * f32(k + 1) for k in range(12)) + f32(n * m)
def fmt(x):
  x = float(x)
  if np.isnan(x): return "nan"
  if np.isinf(x): return "infinity" if x > 0 else "neg_infinity"
  return repr(x) if x < 0 else repr(x)
for k, v in out.items():
  print('    ("%s", [| %s |]);' % (k, "; ".join("(%s)" % fmt(x) for x in v.reshape(-1))))
