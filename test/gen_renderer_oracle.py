# Generates the hand-built linearized programs of test/test_renderer.ml from tinygrad 0.14.0 itself:
# each corpus kernel AST (cpu_noopt.json) goes through tinygrad's codegen (NOOPT=1, ClangRenderer) and the
# LINEAR uops are printed as OCaml builders, with the C source tinygrad renders from them.
# usage: NOOPT=1 NUM_CPU_THREADS=8 DEV=CPU /work/ref/venv/bin/python test/gen_renderer_oracle.py prog:idx ...
import json, sys, os, struct
os.environ.setdefault("NOOPT", "1"); os.environ.setdefault("NUM_CPU_THREADS", "8"); os.environ.setdefault("DEV", "CPU")
from tinygrad import Device
from tinygrad.uop.ops import UOp, Ops, AxisType, KernelInfo, ParamArg
from tinygrad.dtype import dtypes, AddrSpace, DType, ConstFloat, Invalid
from tinygrad.codegen import to_program
from tinygrad.renderer import Estimates

DT = {getattr(dtypes, n): c for n, c in [("void","Void"),("weakint","Weakint"),("bool","Bool"),("int8","Int8"),("uint8","Uint8"),
  ("int16","Int16"),("uint16","Uint16"),("int32","Int32"),("uint32","Uint32"),("int64","Int64"),("uint64","Uint64"),
  ("weakfloat","Weakfloat"),("float16","Float16"),("bfloat16","Bfloat16"),("float32","Float32"),("float64","Float64"),
  ("fp8e4m3","Fp8e4m3"),("fp8e5m2","Fp8e5m2")]}
def dt(d): return "Dtype." + DT[d]
def cap(n): return n.lower().capitalize()
def ostr(s): return "\"" + "".join(c if 32 <= ord(c) < 127 and c not in "\"\\" else ("\\n" if c == "\n" else f"\\{ord(c):03d}") for c in s) + "\""
def fconst(v): return f"(Int64.float_of_bits ({struct.unpack('<q', struct.pack('<d', v))[0]}L))"
def const(v):
  if v is Invalid: return "Invalid"
  if isinstance(v, bool): return f"B {'true' if v else 'false'}"
  if isinstance(v, int): return f'I (Z.of_string "{v}")'
  return f"F {fconst(float(v))}"
def arg(u, a):
  if a is None: return "No_arg"
  if u.op is Ops.CONST: return f"Const ({const(a)})"
  if isinstance(a, DType): return f"Dtype {dt(a)}"
  if isinstance(a, ParamArg):
    f = [f"slot = {a.slot}", f"pdtype = {dt(a.dtype)}", f"addrspace = {'None' if a.addrspace is None else 'Some Dtype.'+cap(a.addrspace.name)}",
         f"volatile = {'true' if a.volatile else 'false'}"]
    if a.vmin_vmax is not None: f.append(f"vmin_vmax = Some (({const(a.vmin_vmax[0])}), ({const(a.vmin_vmax[1])}))")
    if a.name is not None: f.append(f"name = Some {ostr(a.name)}")
    if a.device is not None: f.append(f"device = Some {ostr(a.device)}")
    return "Param { Uop.default_param with " + "; ".join(f) + " }"
  if u.op is Ops.RANGE: return f"Range ([{'; '.join(str(x) for x in a[:-1])}], Uop.{cap(a[-1].name)})"
  if isinstance(a, KernelInfo): return f"Kernel_info {{ Uop.default_kernel_info with kname = {ostr(a.name)} }}"
  if isinstance(a, str): return f"Str {ostr(a)}"
  if isinstance(a, int): return f"Int {a}"
  raise NotImplementedError(f"{u.op} {a!r}")

ren = Device["CPU"].renderer
out = []
for spec in sys.argv[1:]:
  prog, ki = spec.split(":"); ki = int(ki)
  k = json.load(open(f"/work/shared/golden/corpus/{prog}/cpu_noopt.json"))["kernels"][ki]
  ns = {}
  exec("from tinygrad.uop.ops import *\nfrom tinygrad.dtype import *\nfrom math import inf, nan\n", ns)
  exec(k["ast"], ns)
  prg = to_program(ns["ast"], ren)
  lin = list(prg.src[1].src)
  src = prg.src[2].arg
  assert src == k["src"], spec
  est = Estimates.from_uops(tuple(lin), ignore_indexing=True)
  nodes = list(UOp.sink(*lin).toposort())[:-1]
  idx = {u: i for i, u in enumerate(nodes)}
  name = f"{prog}_{ki}"
  out.append(f"(* {spec}: {k['name']} *)")
  out.append(f"let prog_{name} () =")
  for u in nodes:
    tag = "" if u.tag is None else f" ~tag:(Int {u.tag})"
    srcs = "; ".join(f"u{idx[s]}" for s in u.src)
    out.append(f"  let u{idx[u]} = Uop.create Ops.{cap(u.op.name)} ~dtype:{dt(u.dtype)} ~src:[| {srcs} |] ~arg:({arg(u, u.arg)}){tag} in")
  out.append(f"  [ {'; '.join(f'u{idx[u]}' for u in lin)} ]")
  out.append(f"let src_{name} = {ostr(src)}")
  out.append(f"let est_{name} = ({est.ops}, {est.lds}, {est.mem})")
  out.append("")
print("\n".join(out))
