(* Acceptance item 1 of issue 3: hand-built kernel ASTs (built with the Uop builders, in the form tinygrad's
   scheduler hands to codegen: PARAMs with device='CPU', WEAK/REDUCE ranges, INDEX/STORE/END, a SINK with
   KernelInfo) compiled by the NOOPT pipeline + ClangRenderer and run on the CPU device.
   Inputs come from closed formulas (gen/geni below, exact in float32); the expected outputs were computed with
   numpy in the reference venv by the script in the comment at [expected] (float32 arithmetic like the kernels). *)

open Tinygrad.Compiler
open Test_util
module U = Uop

(* ---------- inputs ---------- *)

(* gen n seed = [((i*37 + seed*11) mod 23 - 11) / 4]: quarters in [-2.75, 2.75] *)
let gen n seed = Array.init n (fun i -> float_of_int ((((i * 37) + (seed * 11)) mod 23) - 11) /. 4.0)
(* geni n seed = [((i*7 + seed*5) mod 19) - 9]: ints in [-9, 9] *)
let geni n seed = Array.init n (fun i -> (((i * 7) + (seed * 5)) mod 19) - 9)

let a_in = gen 20 1            (* A, viewed as 4x5 *)
let b_in = gen 5 2
let a2_in = gen 20 4
let c_in = Array.map (fun x -> Float.abs x +. 0.25) (gen 20 3)   (* positive *)
let i_in = Array.map float_of_int (geni 12 1)
let d_in = Array.init 12 (fun i -> float_of_int [| -3; -2; 2; 3 |].(i mod 4))
let many_in k = gen 8 (k + 5)

(* ---------- expected values ----------
   /work/ref/venv/bin/python gen_kernels.py with
     f32 = np.float32
     def gen(n, seed): return np.array([((i*37 + seed*11) % 23 - 11) / 4.0 for i in range(n)], dtype=f32)
     def geni(n, seed): return np.array([((i*7 + seed*5) % 19) - 9 for i in range(n)], dtype=np.int32)
     A = gen(20, 1); B = gen(5, 2); A2 = gen(20, 4); C = np.abs(gen(20, 3)) + f32(0.25); I = geni(12, 1)
     D = np.array([[-3, -2, 2, 3][i % 4] for i in range(12)], dtype=np.int32); A2d = A.reshape(4, 5)
     ew_broadcast = A2d * B[None, :] + 1;  sum_full = A.sum();  max_full = A.max()
     sum_partial = A2d.sum(1);  max_partial = A2d.max(1);  sum_axis0 = A2d.sum(0)
     fused = np.sqrt((A2d * A2d + 1).sum(1)) * 0.5 + B[:4]
     pad_gated = [B[i-2] * 2 if 2 <= i < 7 else 0 for i in range(9)]
     cast_int_float = I.astype(f32) * 0.5;  cast_float_int = A.astype(np.int32)
     cast_float_uint8 = (C * 10).astype(np.uint8);  cast_bool_float = (A > 0).astype(f32)
     where = np.where(A < A2, A, A2 * 2)
     exp2 = np.exp2(A); log2 = np.log2(C); sin = np.sin(A * 37); sqrt = np.sqrt(C); reciprocal = 1 / A2
     exp = np.exp(A); log = np.log(C)
     floordiv_3 = I // 3; floormod_3 = I % 3; floordiv_m4 = I // -4; floormod_m4 = I % -4
     floordiv_buf = I // D; floormod_buf = I % D
     cdiv_3 = np.fix(I / 3); cmod_3 = np.fmod(I, 3); cdiv_buf = np.fix(I / D); cmod_buf = np.fmod(I, D)
     many_bufs = sum(gen(8, k + 5) * (k + 1) for k in range(12)) + n * m   with n = 3, m = -2 *)
let expected = [
    ("ew_broadcast", [| (1.0); (-0.125); (-1.1875); (-0.75); (-0.25); (1.6875); (0.0); (-1.625); (-0.3125); (-0.375); (2.375); (0.125); (-2.0625); (0.125); (2.375); (3.0625); (0.25); (-2.5); (0.5625); (2.25) |]);
    ("sum_full", [| (-2.0) |]);
    ("max_full", [| (2.75) |]);
    ("sum_partial", [| (0.5); (1.75); (-2.75); (-1.5) |]);
    ("max_partial", [| (2.5); (2.75); (1.75); (2.0) |]);
    ("sum_axis0", [| (1.5); (-7.5); (6.5); (-2.5); (0.0) |]);
    ("fused", [| (4.922268390655518); (2.7043991088867188); (0.44017696380615234); (3.8786733150482178) |]);
    ("pad_gated", [| (0.0); (0.0); (5.5); (1.0); (-3.5); (3.5); (-1.0); (0.0); (0.0) |]);
    ("cast_int_float", [| (-2.0); (1.5); (-4.5); (-1.0); (2.5); (-3.5); (0.0); (3.5); (-2.5); (1.0); (4.5); (-1.5) |]);
    ("cast_float_int", [| (0.0); (-2.0); (1.0); (-1.0); (2.0); (0.0); (-2.0); (1.0); (0.0); (2.0); (0.0); (-1.0); (1.0); (0.0); (-2.0); (0.0); (-1.0); (2.0); (0.0); (-2.0) |]);
    ("cast_float_uint8", [| (5.0); (27.0); (12.0); (15.0); (25.0); (2.0); (25.0); (15.0); (12.0); (27.0); (5.0); (22.0); (17.0); (10.0); (30.0); (7.0); (20.0); (20.0); (7.0); (30.0) |]);
    ("cast_bool_float", [| (0.0); (0.0); (1.0); (0.0); (1.0); (1.0); (0.0); (1.0); (0.0); (1.0); (1.0); (0.0); (1.0); (0.0); (0.0); (1.0); (0.0); (1.0); (0.0); (0.0) |]);
    ("where", [| (0.0); (-2.25); (-4.0); (-1.0); (-1.5); (0.25); (-2.0); (-3.5); (-0.75); (-1.0); (-5.5); (-1.75); (-3.0); (-0.5); (-2.75); (-5.0); (-1.5); (-2.5); (-0.25); (-2.5) |]);
    ("exp2", [| (1.0); (0.21022410690784454); (2.3784141540527344); (0.5); (5.656854152679443); (1.1892070770263672); (0.25); (2.8284270763397217); (0.5946035385131836); (6.727171421051025); (1.4142135381698608); (0.2973017692565918); (3.3635857105255127); (0.7071067690849304); (0.1486508846282959); (1.6817928552627563); (0.3535533845424652); (4.0); (0.8408964276313782); (0.1767766922712326) |]);
    ("log2", [| (-1.0); (1.4594316482543945); (0.32192808389663696); (0.5849624872207642); (1.3219281435012817); (-2.0); (1.3219281435012817); (0.5849624872207642); (0.32192808389663696); (1.4594316482543945); (-1.0); (1.1699249744415283); (0.8073549270629883); (0.0); (1.5849624872207642); (-0.41503751277923584); (1.0); (1.0); (-0.41503751277923584); (1.5849624872207642) |]);
    ("sin", [| (0.0); (-0.9999975562095642); (0.7668313980102539); (0.6435381174087524); (-0.9843792915344238); (0.17388947308063507); (0.9851462841033936); (-0.8667595386505127); (-0.5006365180015564); (0.9387673139572144); (-0.3424805998802185); (-0.9402778744697571); (0.9402778744697571); (0.3424805998802185); (-0.9387673139572144); (0.5006365180015564); (0.8667595386505127); (-0.9851462841033936); (-0.17388947308063507); (0.9843792915344238) |]);
    ("sqrt", [| (0.7071067690849304); (1.658312439918518); (1.1180340051651); (1.2247449159622192); (1.5811388492584229); (0.5); (1.5811388492584229); (1.2247449159622192); (1.1180340051651); (1.658312439918518); (0.7071067690849304); (1.5); (1.3228756189346313); (1.0); (1.7320507764816284); (0.8660253882408142); (1.4142135381698608); (1.4142135381698608); (0.8660253882408142); (1.7320507764816284) |]);
    ("reciprocal", [| (0.4000000059604645); (4.0); (-0.5); (0.6666666865348816); (-1.3333333730697632); (0.3636363744735718); (2.0); (-0.5714285969734192); (0.5714285969734192); (-2.0); (-0.3636363744735718); (1.3333333730697632); (-0.6666666865348816); (0.5); (-4.0); (-0.4000000059604645); (1.0); (-0.800000011920929); (0.4444444477558136); (infinity) |]);
    ("exp", [| (1.0); (0.1053992211818695); (3.490342855453491); (0.3678794205188751); (12.182493209838867); (1.2840255498886108); (0.1353352814912796); (4.481688976287842); (0.4723665416240692); (15.642632484436035); (1.6487212181091309); (0.17377394437789917); (5.754601955413818); (0.6065306663513184); (0.06392786651849747); (2.117000102996826); (0.22313015162944794); (7.3890557289123535); (0.7788007259368896); (0.0820850059390068) |]);
    ("log", [| (-0.6931471824645996); (1.0116009712219238); (0.2231435477733612); (0.40546509623527527); (0.9162907600402832); (-1.3862943649291992); (0.9162907600402832); (0.40546509623527527); (0.2231435477733612); (1.0116009712219238); (-0.6931471824645996); (0.8109302520751953); (0.5596157908439636); (0.0); (1.0986123085021973); (-0.28768208622932434); (0.6931471824645996); (0.6931471824645996); (-0.28768208622932434); (1.0986123085021973) |]);
    ("floordiv_3", [| (-2.0); (1.0); (-3.0); (-1.0); (1.0); (-3.0); (0.0); (2.0); (-2.0); (0.0); (3.0); (-1.0) |]);
    ("floormod_3", [| (2.0); (0.0); (0.0); (1.0); (2.0); (2.0); (0.0); (1.0); (1.0); (2.0); (0.0); (0.0) |]);
    ("floordiv_m4", [| (1.0); (-1.0); (2.0); (0.0); (-2.0); (1.0); (0.0); (-2.0); (1.0); (-1.0); (-3.0); (0.0) |]);
    ("floormod_m4", [| (0.0); (-1.0); (-1.0); (-2.0); (-3.0); (-3.0); (0.0); (-1.0); (-1.0); (-2.0); (-3.0); (-3.0) |]);
    ("floordiv_buf", [| (1.0); (-2.0); (-5.0); (-1.0); (-2.0); (3.0); (0.0); (2.0); (1.0); (-1.0); (4.0); (-1.0) |]);
    ("floormod_buf", [| (-1.0); (-1.0); (1.0); (1.0); (-1.0); (-1.0); (0.0); (1.0); (-2.0); (0.0); (1.0); (0.0) |]);
    ("cdiv_3", [| (-1.0); (1.0); (-3.0); (0.0); (1.0); (-2.0); (0.0); (2.0); (-1.0); (0.0); (3.0); (-1.0) |]);
    ("cmod_3", [| (-1.0); (0.0); (0.0); (-2.0); (2.0); (-1.0); (0.0); (1.0); (-2.0); (2.0); (0.0); (0.0) |]);
    ("cdiv_buf", [| (1.0); (-1.0); (-4.0); (0.0); (-1.0); (3.0); (0.0); (2.0); (1.0); (-1.0); (4.0); (-1.0) |]);
    ("cmod_buf", [| (-1.0); (1.0); (-1.0); (-2.0); (2.0); (-1.0); (0.0); (1.0); (-2.0); (0.0); (1.0); (0.0) |]);
    ("many_bufs", [| (4.25); (30.0); (32.75); (-73.75); (-42.25); (23.75); (32.25); (6.25) |]);
  ]

(* ---------- AST builders (the scheduler's kernel form) ---------- *)

let param slot dt n =
  U.create Ops.Param ~dtype:dt ~src:[| U.const_int ~dtype:Dtype.Weakint n |]
    ~arg:(U.Param { U.default_param with slot; pdtype = dt; device = Some (Uop.One "CPU") })
let rng n axis = U.range (U.Sint n) axis
let rrng n axis = U.range ~axis_type:U.Reduce (U.Sint n) axis
let ld p idx = U.index p [ idx ]
let ci = U.const_int
let cf = U.const_float
let kernel stores = U.sink ~arg:(U.Kernel_info U.default_kernel_info) stores
let store_end p idx v rngs = U.end_ (U.store (U.index p [ idx ]) v) rngs

(* out[i] = f(in[i]) over n elements, one input buffer (slot 1) of dtype [dt] *)
let unary ?(out_dt = Dtype.Float32) ?(dt = Dtype.Float32) n f () =
  let out = param 0 out_dt n and x = param 1 dt n in
  let r = rng n 0 in
  kernel [ store_end out r (f (ld x r)) [ r ] ]

(* out[i] = f(x[i], y[i]), two inputs of dtype [dt] *)
let binary ?(out_dt = Dtype.Float32) ?(dt = Dtype.Float32) n f () =
  let out = param 0 out_dt n and x = param 1 dt n and y = param 2 dt n in
  let r = rng n 0 in
  kernel [ store_end out r (f (ld x r) (ld y r)) [ r ] ]

let ew_broadcast () =
  let out = param 0 Dtype.Float32 20 and a = param 1 Dtype.Float32 20 and b = param 2 Dtype.Float32 5 in
  let i = rng 4 0 and j = rng 5 1 in
  let idx = U.add (U.mul i (ci 5)) j in
  kernel [ store_end out idx (U.add (U.mul (ld a idx) (ld b j)) (cf 1.0)) [ i; j ] ]

let full_reduce op () =
  let out = param 0 Dtype.Float32 1 and a = param 1 Dtype.Float32 20 in
  let r = rrng 20 0 in
  kernel [ U.store (U.index out [ ci 0 ]) (U.reduce ~arg:op (ld a r) [ r ]) ]

let partial_reduce op () =
  let out = param 0 Dtype.Float32 4 and a = param 1 Dtype.Float32 20 in
  let i = rng 4 1 and r = rrng 5 0 in
  kernel [ store_end out i (U.reduce ~arg:op (ld a (U.add (U.mul i (ci 5)) r)) [ r ]) [ i ] ]

let sum_axis0 () =
  let out = param 0 Dtype.Float32 5 and a = param 1 Dtype.Float32 20 in
  let j = rng 5 1 and r = rrng 4 0 in
  kernel [ store_end out j (U.reduce (ld a (U.add (U.mul r (ci 5)) j)) [ r ]) [ j ] ]

(* elementwise before (x*x + 1) and after (sqrt, *0.5, + b[i]) the reduction *)
let fused () =
  let out = param 0 Dtype.Float32 4 and a = param 1 Dtype.Float32 20 and b = param 2 Dtype.Float32 5 in
  let i = rng 4 1 and r = rrng 5 0 in
  let x = ld a (U.add (U.mul i (ci 5)) r) in
  let red = U.reduce (U.add (U.mul x x) (cf 1.0)) [ r ] in
  kernel [ store_end out i (U.add (U.mul (U.sqrt red) (cf 0.5)) (ld b i)) [ i ] ]

(* out[i] = b[i-2]*2 for 2 <= i < 7, else 0: the load index is WHERE(valid, i-2, Invalid) as the scheduler pads *)
let pad_gated () =
  let out = param 0 Dtype.Float32 9 and b = param 1 Dtype.Float32 5 in
  let i = rng 9 0 in
  let valid = U.and_ (U.ge i (ci 2)) (U.lt i (ci 7)) in
  let idx = U.alu Ops.Where [ valid; U.add i (ci (-2)); U.const Dtype.Invalid ] in
  kernel [ store_end out i (U.where valid (U.mul (ld b idx) (cf 2.0)) (cf 0.0)) [ i ] ]

let where_k = binary 20 (fun a a2 -> U.where (U.lt a a2) a (U.mul a2 (cf 2.0)))

(* tinygrad Tensor.exp / Tensor.log: exp2(x * 1/ln 2), log2(x) * ln 2 *)
let exp_k = unary 20 (fun x -> U.exp2 (U.mul x (cf (1.0 /. Float.log 2.0))))
let log_k = unary 20 (fun x -> U.mul (U.log2 x) (cf (Float.log 2.0)))

let int_unary f = unary ~dt:Dtype.Int32 ~out_dt:Dtype.Int32 12 f
let int_binary f = binary ~dt:Dtype.Int32 ~out_dt:Dtype.Int32 12 f

(* 12 input buffers and 2 int vars: out[i] = sum_k in_k[i] * (k+1) + float(n*m) *)
let many_bufs () =
  let out = param 0 Dtype.Float32 8 in
  let ins = List.init 12 (fun k -> param (k + 1) Dtype.Float32 8) in
  let n = U.variable_int ~param:true "n" 1 10 and m = U.variable_int ~param:true "m" (-5) 5 in
  let i = rng 8 0 in
  let terms = List.mapi (fun k p -> U.mul (ld p i) (cf (float_of_int (k + 1)))) ins in
  let s = List.fold_left U.add (List.hd terms) (List.tl terms) in
  kernel [ store_end out i (U.add s (U.cast Dtype.Float32 (U.mul n m))) [ i ] ]

(* ---------- cases: name, AST, inputs by slot (dtype, values), output (dtype, size), vars, tolerance ---------- *)

type case_k = {
  name : string;
  ast : unit -> U.t;
  inputs : (Dtype.t * float array) list;  (* slots 1.. *)
  out : Dtype.t * int;
  vars : (string * int) list;
  tol : float;  (* 0 = exact *)
}

let k ?(vars = []) ?(tol = 0.0) ?(out = (Dtype.Float32, 20)) name ast inputs = { name; ast; inputs; out; vars; tol }
let f32 x = (Dtype.Float32, x)
let i32 x = (Dtype.Int32, x)

let cases = [
  k "ew_broadcast" ew_broadcast [ f32 a_in; f32 b_in ];
  k "sum_full" (full_reduce Ops.Add) [ f32 a_in ] ~out:(Dtype.Float32, 1);
  k "max_full" (full_reduce Ops.Max) [ f32 a_in ] ~out:(Dtype.Float32, 1);
  k "sum_partial" (partial_reduce Ops.Add) [ f32 a_in ] ~out:(Dtype.Float32, 4);
  k "max_partial" (partial_reduce Ops.Max) [ f32 a_in ] ~out:(Dtype.Float32, 4);
  k "sum_axis0" sum_axis0 [ f32 a_in ] ~out:(Dtype.Float32, 5);
  k "fused" fused [ f32 a_in; f32 b_in ] ~out:(Dtype.Float32, 4) ~tol:1e-6;
  k "pad_gated" pad_gated [ f32 b_in ] ~out:(Dtype.Float32, 9);
  k "cast_int_float" (unary ~dt:Dtype.Int32 12 (fun x -> U.mul (U.cast Dtype.Float32 x) (cf 0.5))) [ i32 i_in ]
    ~out:(Dtype.Float32, 12);
  k "cast_float_int" (unary ~out_dt:Dtype.Int32 20 (U.cast Dtype.Int32)) [ f32 a_in ] ~out:(Dtype.Int32, 20);
  k "cast_float_uint8" (unary ~out_dt:Dtype.Uint8 20 (fun x -> U.cast Dtype.Uint8 (U.mul x (cf 10.0)))) [ f32 c_in ]
    ~out:(Dtype.Uint8, 20);
  k "cast_bool_float" (unary 20 (fun x -> U.cast Dtype.Float32 (U.gt x (cf 0.0)))) [ f32 a_in ];
  k "where" where_k [ f32 a_in; f32 a2_in ];
  k "exp2" (unary 20 U.exp2) [ f32 a_in ] ~tol:2e-6;
  k "log2" (unary 20 U.log2) [ f32 c_in ] ~tol:2e-6;
  k "sin" (unary 20 (fun x -> U.sin (U.mul x (cf 37.0)))) [ f32 a_in ] ~tol:2e-6;
  k "sqrt" (unary 20 U.sqrt) [ f32 c_in ] ~tol:2e-7;
  k "reciprocal" (unary 20 U.reciprocal) [ f32 a2_in ] ~tol:2e-7;
  k "exp" exp_k [ f32 a_in ] ~tol:2e-6;
  k "log" log_k [ f32 c_in ] ~tol:2e-6;
  k "floordiv_3" (int_unary (fun x -> U.idiv x (ci 3))) [ i32 i_in ] ~out:(Dtype.Int32, 12);
  k "floormod_3" (int_unary (fun x -> U.mod_ x (ci 3))) [ i32 i_in ] ~out:(Dtype.Int32, 12);
  k "floordiv_m4" (int_unary (fun x -> U.idiv x (ci (-4)))) [ i32 i_in ] ~out:(Dtype.Int32, 12);
  k "floormod_m4" (int_unary (fun x -> U.mod_ x (ci (-4)))) [ i32 i_in ] ~out:(Dtype.Int32, 12);
  k "floordiv_buf" (int_binary U.idiv) [ i32 i_in; i32 d_in ] ~out:(Dtype.Int32, 12);
  k "floormod_buf" (int_binary U.mod_) [ i32 i_in; i32 d_in ] ~out:(Dtype.Int32, 12);
  k "cdiv_3" (int_unary (fun x -> U.cdiv x (ci 3))) [ i32 i_in ] ~out:(Dtype.Int32, 12);
  k "cmod_3" (int_unary (fun x -> U.cmod x (ci 3))) [ i32 i_in ] ~out:(Dtype.Int32, 12);
  k "cdiv_buf" (int_binary U.cdiv) [ i32 i_in; i32 d_in ] ~out:(Dtype.Int32, 12);
  k "cmod_buf" (int_binary U.cmod) [ i32 i_in; i32 d_in ] ~out:(Dtype.Int32, 12);
  k "many_bufs" many_bufs (List.init 12 (fun j -> f32 (many_in j))) ~out:(Dtype.Float32, 8) ~vars:[ ("n", 3); ("m", -2) ];
]

(* cases that must pass; the others are run and reported but do not fail the suite. All 31 passed with
   codegen.ml + a stub decomp_dtype.ml (float32/int32/uint8 only, so the dtype decomps are not exercised). *)
let enabled : string list = List.map (fun c -> c.name) cases

(* ---------- running a kernel AST on the CPU device ---------- *)

let buffer dt xs =
  let b = Device.Buffer.create "CPU" (Array.length xs) dt in
  if Dtype.is_float dt then Device.Buffer.copyin_floats b xs
  else Device.Buffer.copyin_ints b (Array.map int_of_float xs);
  b

(* tinygrad CompiledRunner: to_program (NOOPT=1), compile, load, launch with the buffers in [globals] order *)
let run_ast ~to_program ?(vars = []) ast (bufs : Device.Buffer.t array) =
  let prg = Helpers.context [ Helpers.Bind (Helpers.noopt, 1) ] (fun () -> to_program ast) in
  let info = match prg.U.arg with U.Program_info p -> p | _ -> fail "to_program: no Program_info" in
  let src = Codegen.program_source prg in
  let dev = Device.get "CPU" in
  let lib = dev.compiler.compile_cached src in
  let p = dev.runtime ~name:(Helpers.to_function_name info.pname) ~lib ~runtimevars:[] in
  let var_value v = match List.assoc_opt (U.expr v) vars with Some x -> x | None -> fail "no value for var %s" (U.expr v) in
  let launch = Device.Launch.of_buffers (List.map (fun s -> bufs.(s)) info.globals) (List.map var_value info.vars) in
  let gs = Array.of_list (List.map (function U.Sint i -> i | U.Suop _ -> fail "symbolic global size") info.global_size) in
  ignore (Device.run_program ~global_size:gs p launch)

let close ~tol e g =
  if Float.is_nan e then Float.is_nan g
  else if tol = 0.0 then e = g
  else e = g || Float.abs (g -. e) <= tol *. Float.max 1.0 (Float.abs e)

let run_case ~to_program c =
  let exp = match List.assoc_opt c.name expected with Some e -> e | None -> fail "no expected values for %s" c.name in
  let odt, n = c.out in
  let out = buffer odt (Array.make n (-12345.0)) in
  let ins = List.map (fun (dt, xs) -> buffer dt xs) c.inputs in
  run_ast ~to_program ~vars:c.vars (c.ast ()) (Array.of_list (out :: ins));
  let got = Device.Buffer.to_floats out in
  check (Array.length got = Array.length exp) "%s: %d outputs, expected %d" c.name (Array.length got) (Array.length exp);
  Array.iteri (fun i e -> check (close ~tol:c.tol e got.(i)) "%s[%d]: got %.9g, expected %.9g" c.name i got.(i) e) exp

let test_all () =
  match Golden.to_program with
  | None -> Test_util.skip "kernels: Golden.to_program is None (codegen not in the build)"
  | Some to_program ->
  let results = List.map (fun c ->
      (c.name, match run_case ~to_program c with () -> Ok () | exception Failed m -> Error m | exception e -> Error (Printexc.to_string e)))
      cases in
  let ok = List.length (List.filter (fun (_, r) -> r = Ok ()) results) in
  Printf.printf "kernels: %d/%d hand-built kernels run correctly\n%!" ok (List.length results);
  List.iter (fun (n, r) -> match r with
      | Error m when not (List.mem n enabled) -> Printf.printf "  kernels: %s not enabled yet: %s\n" n
                                                   (if String.length m > 300 then String.sub m 0 300 ^ "..." else m)
      | _ -> ()) results;
  let bad = List.filter_map (fun (n, r) -> match r with Error m when List.mem n enabled -> Some (n ^ ": " ^ m) | _ -> None) results in
  if bad <> [] then fail "%s" (String.concat "\n" bad)

(* the builders give the forms the corpus' scheduled ASTs have (pyrender round trip of one of them) *)
let test_forms () =
  let ast = Pyrender.parse_ast {|c1 = UOp(Ops.PARAM, dtypes.float, (UOp.const(4, dtypes.weakint),), ParamArg(0, dtypes.float, device='CPU'))
c3 = UOp.range(4, 1, AxisType.WEAK)
c5 = UOp(Ops.PARAM, dtypes.float, (UOp.const(20, dtypes.weakint),), ParamArg(1, dtypes.float, device='CPU'))
c7 = UOp.range(5, 0, AxisType.REDUCE)
c10 = c5.index((c3*UOp.const(5, dtypes.weakint)+c7)).reduce(c7, arg=(Ops.ADD, 0))
c12 = c1.index(c3).store(c10).end(c3)
ast = c12.sink(arg=KernelInfo(name='test', axis_types=(), dont_use_locals=False, applied_opts=(), opts_to_apply=None, estimates=None, beam=0))|} in
  check (ast == partial_reduce Ops.Add ()) "partial_reduce builder differs from the pyrender form"

let tests : case list = [ ("forms", test_forms); ("hand_built", test_all) ]
