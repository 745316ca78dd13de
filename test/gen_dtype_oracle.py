# generates the oracle tables of test/test_dtype.ml from tinygrad 0.14 (run with the reference venv)
import random, struct, math
from tinygrad.dtype import (dtypes, least_upper_dtype, promo_lattice, can_lossless_cast, sum_acc_dtype, truncate,
                            bitcast, float_to_fp8, fp8_to_float)
random.seed(1234)
CON = {dtypes.void:"Void", dtypes.weakint:"Weakint", dtypes.bool:"Bool", dtypes.int8:"Int8", dtypes.uint8:"Uint8",
  dtypes.int16:"Int16", dtypes.uint16:"Uint16", dtypes.int32:"Int32", dtypes.uint32:"Uint32", dtypes.int64:"Int64",
  dtypes.uint64:"Uint64", dtypes.weakfloat:"Weakfloat", dtypes.fp8e4m3:"Fp8e4m3", dtypes.fp8e5m2:"Fp8e5m2",
  dtypes.fp8e4m3fnuz:"Fp8e4m3fnuz", dtypes.fp8e5m2fnuz:"Fp8e5m2fnuz", dtypes.float16:"Float16", dtypes.bfloat16:"Bfloat16",
  dtypes.float32:"Float32", dtypes.float64:"Float64"}
def c(d): return CON[d]
def fh(x): return '"-nan"' if math.isnan(x) and math.copysign(1, x) < 0 else f'"{float(x).hex()}"'
out = []
lat = list(promo_lattice) + [dtypes.float64]
out.append("let lattice_dtypes = [ " + "; ".join(c(d) for d in lat) + " ]")
out.append("(* least_upper_dtype a b for every ordered pair of lattice_dtypes, row-major *)")
out.append("let least_upper_table = [|")
for a in lat: out.append("  [| " + "; ".join(c(least_upper_dtype(a, b)) for b in lat) + " |];")
out.append("|]")
out.append("(* least_upper_dtype of triples *)")
trip = []
for _ in range(60):
  t = [random.choice(lat) for _ in range(3)]
  trip.append(f"([ {'; '.join(c(x) for x in t)} ], {c(least_upper_dtype(*t))})")
out.append("let least_upper_triples = [ " + ";\n  ".join(trip) + " ]")
alld = list(dtypes.all) + [dtypes.weakint, dtypes.weakfloat]
out.append("let cast_dtypes = [ " + "; ".join(c(d) for d in alld) + " ]")
out.append("(* can_lossless_cast a b, row a, column b, as '1'/'0' *)")
out.append("let lossless_table = [|")
for a in alld: out.append('  "' + "".join("1" if can_lossless_cast(a, b) else "0" for b in alld) + '";')
out.append("|]")
out.append("let sum_acc_table = [ " + "; ".join(f"({c(d)}, {c(sum_acc_dtype(d))})" for d in alld) + " ]")
# floats for truncation
vals = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 65504.0, 65519.0, 65519.99, 65520.0, 65536.0, -65520.0, 1e5, -1e5, 6e-8, 3e-8,
        2.98e-8, 5.96e-8, 1e-10, 1e38, 3.4e38, 3.5e38, 1e39, -1e39, 1e-45, 1.4e-45, 7e-46, 1e-40, 448.0, 464.0, 480.0,
        57344.0, 61440.0, 240.0, 0.0009765625, 0.001953125, 1/3, 2/3, 0.1, 0.2, 0.3, 3.14159, -2.71828, 123456.789,
        16777217.0, 16777219.0, 1e300, -1e300, 5e-324, math.inf, -math.inf]
for _ in range(150):
  e = random.randint(-30, 20)
  vals.append(random.choice([1, -1]) * random.random() * 2.0 ** e)
for _ in range(50):
  vals.append(struct.unpack('d', struct.pack('Q', random.getrandbits(64)))[0])
vals = [v for v in vals if not math.isnan(v)]
fdts = [dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64] + list(dtypes.fp8s)
rows = []
for v in vals:
  rs = []
  for d in fdts:
    r = truncate[d](v)
    rs.append(fh(r))
  rows.append(f"({fh(v)}, [| {'; '.join(rs)} |])")
out.append("let float_trunc_dtypes = [| " + "; ".join(c(d) for d in fdts) + " |]")
out.append("(* (input, [| truncate[d](input) for d in float_trunc_dtypes |]) as float.hex() *)")
out.append("let float_trunc_table = [\n  " + ";\n  ".join(rows) + " ]")
# nan through each float dtype stays nan
# fp8 encodings of every byte and float_to_fp8 of the values above
f8rows = []
for d in dtypes.fp8s:
  f8rows.append(f"({c(d)}, [| " + "; ".join(fh(fp8_to_float(b, d)) for b in range(256)) + " |])")
out.append("(* fp8_to_float of every byte 0..255 *)")
out.append("let fp8_decode_table = [\n  " + ";\n  ".join(f8rows) + " ]")
enc = []
for v in vals + [math.nan, -math.nan]:
  enc.append(f"({fh(v)}, [| " + "; ".join(str(float_to_fp8(v, d)) for d in dtypes.fp8s) + " |])")
out.append("(* float_to_fp8 v d for d in fp8s (e4m3, e5m2, e4m3fnuz, e5m2fnuz) *)")
out.append("let fp8_encode_table = [\n  " + ";\n  ".join(enc) + " ]")
# int truncation
ivals = [0, 1, -1, 127, 128, 255, 256, -128, -129, 32767, 32768, 65535, 65536, -32768, -32769, 2**31-1, 2**31, 2**32-1, 2**32,
         -2**31, -2**31-1, 2**63-1, 2**63, 2**64-1, 2**64, -2**63, -2**63-1, 2**70+5, -(2**70)-5, 10**30]
for _ in range(80): ivals.append(random.randint(-2**70, 2**70))
for _ in range(40): ivals.append(random.randint(-2**20, 2**20))
idts = list(dtypes.sints) + list(dtypes.uints)
out.append("let int_trunc_dtypes = [| " + "; ".join(c(d) for d in idts) + " |]")
out.append("(* (input, [| truncate[d](input) |]) as decimal strings *)")
out.append("let int_trunc_table = [\n  " + ";\n  ".join(f'"{v}", [| ' + "; ".join(f'"{truncate[d](v)}"' for d in idts) + " |]" for v in ivals) + " ]")
# bitcast
bc = []
pairs = [(dtypes.float32, dtypes.int32), (dtypes.float32, dtypes.uint32), (dtypes.int32, dtypes.float32), (dtypes.uint32, dtypes.float32),
         (dtypes.float16, dtypes.int16), (dtypes.float16, dtypes.uint16), (dtypes.uint16, dtypes.float16), (dtypes.int16, dtypes.float16),
         (dtypes.bfloat16, dtypes.uint16), (dtypes.uint16, dtypes.bfloat16), (dtypes.bfloat16, dtypes.int16),
         (dtypes.float64, dtypes.int64), (dtypes.float64, dtypes.uint64), (dtypes.int64, dtypes.float64), (dtypes.uint64, dtypes.float64),
         (dtypes.int32, dtypes.uint32), (dtypes.uint32, dtypes.int32), (dtypes.int8, dtypes.uint8), (dtypes.uint8, dtypes.int8),
         (dtypes.int64, dtypes.uint64), (dtypes.uint64, dtypes.int64), (dtypes.float16, dtypes.bfloat16), (dtypes.bfloat16, dtypes.float16)]
pairs += [(f, dtypes.uint8) for f in dtypes.fp8s] + [(dtypes.uint8, f) for f in dtypes.fp8s] + [(dtypes.int8, dtypes.fp8e4m3)]
def cv(x, d):
  if isinstance(x, bool): return f"B {'true' if x else 'false'}"
  if isinstance(x, int): return f'I (Z.of_string "{x}")'
  return f"F (float_of_string {fh(x)})"
def inputs(d):
  if dtypes.is_float(d):
    xs = [0.0, -0.0, 1.0, -1.0, 0.5, 3.14159, -2.5, 1e-3, 65504.0, 1e30 if d in (dtypes.float32, dtypes.float64, dtypes.bfloat16) else 100.0, math.inf, -math.inf]
    xs += [random.uniform(-100, 100) for _ in range(6)]
    return [truncate[d](x) for x in xs]
  lo, hi = d.min, d.max
  return [lo, hi, 0, 1, -1 if lo < 0 else 2, 12345 % (hi + 1)] + [random.randint(lo, hi) for _ in range(6)]
for a, b in pairs:
  for x in inputs(a):
    r = bitcast(x, a, b)
    if isinstance(r, float) and math.isnan(r): rs = "F nan"
    else: rs = cv(r, b)
    bc.append(f"({c(a)}, {c(b)}, {cv(x, a)}, {rs})")
out.append("(* (in dtype, out dtype, x, bitcast(x, in, out)) *)")
out.append("let bitcast_table = [\n  " + ";\n  ".join(bc) + " ]")
# float repr
fr = [0.0, -0.0, 1.0, -1.0, 0.1, 1e-4, 1e-5, 0.0001234, 0.00001234, 1e15, 1e16, 1e17, 1234567890123456.0, 12345678901234567.0,
      9007199254740993.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1/3, 2/3, 100.0, 1e22, 1e23, 123.456, 0.3,
      2.5, 1e-7, 3.4028234663852886e+38, 16777216.0, 0.000999, 9.999999999999999e15, 1e-300]
for _ in range(300):
  x = struct.unpack('d', struct.pack('Q', random.getrandbits(64)))[0]
  if not math.isnan(x) and not math.isinf(x): fr.append(x)
for _ in range(150):
  fr.append(round(random.uniform(-1000, 1000), random.randint(0, 6)) * 10.0 ** random.randint(-12, 20))
for _ in range(50):
  fr.append(struct.unpack('f', struct.pack('f', random.uniform(-1e6, 1e6)))[0])
out.append("(* (x, repr(x)) *)")
out.append("let float_repr_table = [\n  " + ";\n  ".join(f'({fh(x)}, "{x!r}")' for x in fr) + " ]")
print("\n".join(out))
props = []
for d in list(CON):
  mn, mx = (d.min, d.max) if d != dtypes.void else (None, None)
  def cs(x):
    if x is None: return "Invalid"
    if isinstance(x, bool): return f"B {'true' if x else 'false'}"
    if isinstance(x, int): return f'I (Z.of_string "{x}")'
    return f"F {'infinity' if x > 0 else 'neg_infinity'}"
  props.append(f'({c(d)}, "{d!r}", {d.itemsize}, {d.priority}, {cs(mn)}, {cs(mx)}, {str(dtypes.is_float(d)).lower()}, '
               f'{str(dtypes.is_int(d)).lower()}, {str(dtypes.is_unsigned(d)).lower()})')
print("(* (dtype, repr, itemsize, priority, min, max, is_float, is_int, is_unsigned) *)")
print("let props_table = [\n  " + ";\n  ".join(props) + " ]")
srt = sorted(CON, key=lambda d: (d.priority, d.bitsize, d.name, d.fmt or ""))
print("(* all dtypes sorted by DType.__lt__ *)")
print("let sorted_dtypes = [ " + "; ".join(c(d) for d in srt) + " ]")
