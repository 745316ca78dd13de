(* Tests for the UOp core (uop.ml) and its renderer (render.ml). Expected values come from tinygrad 0.14
   run in the reference venv (the scripts are in the comments next to each table). *)

open Tinygrad.Compiler
open Test_util

let a = Uop.variable_int "a" 0 10
let vb = Uop.variable_int "b" 0 10
let c = Uop.variable_int "c" 0 10
let r ?(simplify = false) u = Render.render ~simplify u
let ri u = Render.render_infer ~simplify:false u
let k = Uop.O.i

(* p0.reshape((4,6)) as tinygrad's UOp.placeholder((4,6), dtypes.float, 0) builds it *)
let p0 = Uop.mop Ops.Reshape (Uop.placeholder_param ~slot:0 Dtype.Float32 24) (`Shape [ Uop.Sint 4; Uop.Sint 6 ])

(* python: x.render(simplify=False) for each expression *)
let render_cases =
  let open Uop.O in
  [ ("lt", a < k 4, "(a<4)");
    ("ne_not", Uop.logical_not (a < k 8), "((a<8)!=True)");
    ("muladd", (a * k 4) + vb, "(a*4+b)");
    ("max", Uop.maximum a vb, "max(a, b)");
    ("where", Uop.where (a < k 3) vb c, "(b if (a<3) else c)");
    ("add_mul", (a + vb) * c, "((a+b)*c)");
    ("mul_add2", a * (vb + c), "(a*(b+c))");
    ("sub", a - vb, "(a+b*-1)");
    ("floordiv", a // k 3, "(a//3)");
    ("floormod", (a + vb) mod k 3, "((a+b)%3)");
    ("neg", -a, "(a*-1)");
    ("shl", a lsl k 2, "(a<<2)");
    ("and", a land vb, "(a&b)");
    ("or_xor", (a lor vb) lxor c, "((a|b)^c)");
    ("nested", (a + vb) + (c + a), "(a+b+(c+a))");
    ("left", a + (vb + c), "(a+(b+c))");
    ("cdiv", Uop.cdiv a (k 3), "cdiv(a, 3)");
    ("cmod", Uop.cmod a (k 3), "cmod(a, 3)");
    ("cast", Uop.cast Dtype.Float32 a, "(float)(a)");
    ("castconst", Uop.cast Dtype.Int32 (k 3), "3");
    ("float", Uop.O.f 1.5 + Uop.cast Dtype.Float32 a, "(1.5+(float)(a))");
    ("range", Uop.range (Uop.Sint 10) 0, "r0");
    ("range_neg", Uop.range ~extra:[] (Uop.Sint 10) (-3), "rm3");
    ("range_void", Uop.range ~dtype:Dtype.Void (Uop.Sint 10) 2, "loop2");
    ("special", Uop.special (Uop.Sint 8) "gidx0", "gidx0");
    ("recip", Uop.reciprocal (Uop.cast Dtype.Float32 a), "(1/(float)(a))");
    ("const_bool", Uop.const_bool true, "True");
    ("eq", a = vb, "((a!=b)!=True)");
    ("stack", Uop.stack [ a; vb ], "{a,b}");
    ("float_const", Uop.O.f 1e-5, "1e-05");
    ("inf", Uop.O.f infinity, "inf");
    ("bigf", Uop.O.f 1e20, "1e+20");
    ("mul_sub", a * (vb - c), "(a*(b+c*-1))");
    ("sub_sub", a - (vb - c), "(a+(b+c*-1)*-1)");
    ("div_mul", (a * vb) // c, "(a*b//c)");
    ("mod2", a mod (vb mod c), "(a%(b%c))");
    ("lt_add", (a + k 1) < (vb * k 2), "((a+1)<(b*2))");
    ("negconst", a + k (-3), "(a+-3)");
    ("shr_add", (a + vb) lsr k 1, "(a+b>>1)");
    ("xor_and", (a land vb) lxor (c land a), "(a&b^c&a)");
    ("param", p0, "p0.reshape((4,6))");
    ("reshape", Uop.mop Ops.Reshape p0 (`Shape [ Uop.Sint 2; Uop.Sint 12 ]), "p0.reshape((4,6)).reshape((2,12))");
    ("reshape1", Uop.mop Ops.Reshape p0 (`Shape [ Uop.Sint 24 ]), "p0.reshape((4,6)).reshape((24,))");
    ("permute", Uop.mop Ops.Permute p0 (`Perm [ 1; 0 ]), "p0.reshape((4,6)).permute((1, 0))");
    ("flip", Uop.mop Ops.Flip p0 (`Flip [ true; false ]), "p0.reshape((4,6)).flip((0,))");
    ("shrink", Uop.mop Ops.Shrink p0 (`Pairs [ (Uop.Sint 0, Uop.Sint 2); (Uop.Sint 1, Uop.Sint 4) ]),
     "p0.reshape((4,6)).shrink(((0, 2),(1, 4)))");
    ("pad", Uop.mop Ops.Pad p0 (`Pairs [ (Uop.Sint 0, Uop.Sint 6); (Uop.Sint 1, Uop.Sint 12) ]),
     "p0.reshape((4,6)).pad(((0, 6),(1, 12)))");
    ("expand_var", Uop.mop Ops.Expand p0 (`Shape [ Uop.Suop (Uop.variable_int "a" 1 10) ]),
     "p0.reshape((4,6)).expand((a,))");
    ("index", Uop.index p0 [ k 1; Uop.range (Uop.Sint 6) 0 ], "[1][r0]");
    ("cast_half", Uop.cast Dtype.Float16 p0, "(half)(p0.reshape((4,6)))");
    ("cast_int32_const", Uop.cast Dtype.Float32 (Uop.const_int ~dtype:Dtype.Int32 2), "(float)(2)");
    ("cast_bool_const", Uop.cast Dtype.Float32 (Uop.const_bool true), "True");
    ("const_int32", Uop.const_int ~dtype:Dtype.Int32 2, "2");
    ("const_negzero", Uop.O.f (-0.0), "-0.0");
    ("const_nan", Uop.O.f nan, "nan");
    ("invalid", Uop.invalid (), "Invalid");
    ("neg_op", Uop.alu Ops.Neg [ p0 ], "(-p0.reshape((4,6)))");
    ("mulacc", Uop.alu Ops.Mulacc [ a; a; a ], "(a*a+a)");
  ]

let render_tests =
  List.map (fun (name, u, expected) -> ("render_" ^ name, fun () -> check_str ~what:name expected (r u))) render_cases
  @ [ ("render_infer", fun () ->
        let open Uop.O in
        check_str ~what:"bitcast" "bitcast(p0.reshape((4,6)), dtypes.float, dtypes.int)" (ri (Uop.bitcast Dtype.Int32 p0));
        check_str ~what:"floordiv" "floordiv(a, 3)" (ri (a // k 3));
        check_str ~what:"cast" "float(a)" (ri (Uop.cast Dtype.Float32 a));
        check_str ~what:"floormod" "floormod(a, 3)" (ri (a mod k 3));
        check_str ~what:"cast_int" "int((a<3))" (ri (Uop.cast Dtype.Int32 (a < k 3))));
      ("render_fallback_pretty_print", fun () ->
        let a = Uop.variable_int "a" 1 10 in
        check_str ~what:"sink"
          "UOp(Ops.SINK, dtypes.void, arg=None, src=(\n  UOp(Ops.BUFFER, dtypes.weakint, arg=ParamArg(-1, dtypes.weakint, vmin_vmax=(1, 10), multiple_of=1, name='a', addrspace=AddrSpace.ALU), src=(\n    UOp(Ops.STACK, dtypes.void, arg=None, src=()),)),))"
          (r (Uop.sink [ a ]));
        check_str ~what:"cmpeq"
          "UOp(Ops.CMPEQ, dtypes.bool, arg=None, src=(\n  x0:=UOp(Ops.BUFFER, dtypes.weakint, arg=ParamArg(-1, dtypes.weakint, vmin_vmax=(1, 10), multiple_of=1, name='a', addrspace=AddrSpace.ALU), src=(\n    UOp(Ops.STACK, dtypes.void, arg=None, src=()),)),\n  x0,))"
          (r (Uop.alu Ops.Cmpeq [ a; a ])));
      ("render_hook_installed", fun () -> check_str ~what:"Uop.render" "(a<4)" (Uop.render Uop.O.(a < k 4)));
      ("strip_parens", fun () ->
        check_str ~what:"balanced" "a+b" (Helpers.strip_parens "(a+b)");
        check_str ~what:"unbalanced" "(a)+(b)" (Helpers.strip_parens "(a)+(b)");
        check_str ~what:"empty" "" (Helpers.strip_parens "");
        check_str ~what:"nested" "(a)" (Helpers.strip_parens "((a))")) ]


(* ---------- hash-consing ---------- *)

let hash_consing_tests = [
  ("hash_cons_same_key", fun () ->
      check (Uop.const_int 3 == Uop.const_int 3) "const 3 twice";
      check Uop.O.(a + k 1 == a + k 1) "a+1 twice";
      check (Uop.variable_int "a" 0 10 == a) "variable a twice";
      let x = Uop.O.(a * vb) in
      check (Uop.replace x == x) "replace with nothing changed";
      check (Uop.replace ~src:[| a; vb |] x == x) "replace with equal src");
  ("hash_cons_different_keys", fun () ->
      check (Uop.const_int 3 != Uop.const_int ~dtype:Dtype.Int32 3) "dtype is part of the key";
      check (Uop.const_int 3 != Uop.const_int 4) "arg is part of the key";
      check (Uop.rtag (Uop.const_int 3) != Uop.const_int 3) "tag is part of the key";
      check (Uop.rtag ~tag:(Uop.Int 1) (Uop.const_int 3) == Uop.rtag ~tag:(Uop.Int 1) (Uop.const_int 3)) "same tag";
      check (Uop.variable_int "a" 0 11 != a) "variable bounds are part of the key";
      check Uop.O.(a + vb != vb + a) "src order is part of the key");
  ("hash_cons_float_consts", fun () ->
      (* tinygrad ConstFloat: -0.0 and 0.0 are distinct, nan == nan *)
      check (Uop.const_float 0.0 != Uop.const_float (-0.0)) "-0.0 vs 0.0 must be distinct nodes";
      check (Uop.const_float ~dtype:Dtype.Float32 0.0 != Uop.const_float ~dtype:Dtype.Float32 (-0.0)) "float32 -0.0";
      check (Uop.const_float nan == Uop.const_float nan) "nan == nan";
      check (Uop.const_float nan == Uop.const_float (-.nan)) "nan of either sign is canonical";
      check (Uop.const_float ~dtype:Dtype.Float32 nan == Uop.const_float ~dtype:Dtype.Float32 (Float.of_string "nan"))
        "float32 nan";
      check (Uop.const_float 1.0 != Uop.const_int 1) "1.0 and 1 differ (weakfloat vs weakint)";
      (* the value is truncated to the dtype before it is used as a key *)
      check (Uop.const_float ~dtype:Dtype.Float32 0.1 == Uop.const_float ~dtype:Dtype.Float32 0.10000000149011612)
        "float32 0.1 canonical");
  ("hash_cons_ids_distinct", fun () ->
      let x = Uop.const_int 12345 and y = Uop.const_int 12346 in
      check (x.Uop.id <> y.Uop.id) "ids differ");
  ("hash_cons_table_shrinks", fun () ->
      (* the table grows with the live nodes and, once a major cycle found them dead, shrinks; the nodes still
         alive keep their identity through both rebuilds *)
      let start = Uop.intern_size () in
      let key i = 1_000_000_007 + i in
      let n = 2 * start in
      let nodes = Array.init n (fun i -> Uop.const_int (key i)) in
      let grown = Uop.intern_size () in
      check (grown >= 4 * start) "%d live nodes grow the table: %d -> %d slots" n start grown;
      check (Array.for_all (fun i -> Uop.const_int (key i) == nodes.(i)) [| 0; n / 2; n - 1 |])
        "a live node is found again in the grown table";
      let kept = nodes.(n / 3) in
      let nodes = ref (Some nodes) in
      nodes := None;
      let cycles = ref 0 in
      while Uop.intern_size () >= grown && !cycles < 3 do
        Gc.full_major ();
        ignore (Sys.opaque_identity (Uop.const_int (key (-1))));
        incr cycles
      done;
      check (Uop.intern_size () < grown) "the table shrinks once its nodes died: %d -> %d slots" grown
        (Uop.intern_size ());
      check (Uop.const_int (key (n / 3)) == kept) "a surviving node keeps its identity";
      check (Uop.const_int (key (n / 3 + 1)) != kept) "a new node is a new node";
      ignore (Sys.opaque_identity !nodes));
]

(* ---------- toposort ---------- *)

(* python: g = (a+b)*(a+c) + (a+b); [(u.op, name) for u in g.toposort()] *)
let toposort_tests = [
  ("toposort_order", fun () ->
      let g = Uop.O.(((a + vb) * (a + c)) + (a + vb)) in
      let got = List.map (fun u ->
          Ops.name u.Uop.op ^ (match u.Uop.arg with Uop.Param { name = Some n; _ } -> ":" ^ n | _ -> ""))
          (Uop.toposort g) in
      check_str ~what:"toposort" "STACK BUFFER:a BUFFER:b ADD BUFFER:c ADD MUL ADD" (String.concat " " got));
  ("toposort_gate", fun () ->
      let ab = Uop.O.(a + vb) in
      let g = Uop.O.(ab * c) in
      let got = Uop.toposort ~gate:(fun u -> u != ab) g in
      check (not (List.memq ab got)) "gated node is not emitted";
      check (not (List.memq a got)) "nothing below a gated node";
      (* python toposort: a gated node is neither emitted nor entered: STACK c MUL *)
      check_int ~what:"len" 3 (List.length got));
  ("toposort_deep_chain", fun () ->
      (* iterative: a long chain does not overflow the stack *)
      let rec build n u = if n = 0 then u else build (n - 1) Uop.O.(u + k 1) in
      let g = build 100000 a in
      check_int ~what:"len" 100003 (List.length (Uop.toposort g)));
]

(* ---------- shapes: python u.shape, rendered with srender ---------- *)

let si n = Uop.Sint n
let shp l = `Shape (List.map si l)
let pparam = Uop.placeholder_param ~slot:0 Dtype.Float32 24
let x46 = Uop.mop Ops.Reshape pparam (shp [ 4; 6 ])
let va1 = Uop.variable_int "a" 1 10
let rng ?(axis_type = Uop.Weak) n id = Uop.range ~axis_type (si n) id
let shape_str u = match Uop.shape_opt u with Some s -> Uop.shape_str s | None -> "None"

let shape_cases () =
  let mop = Uop.mop in
  [ ("param", pparam, "(24,)");
    ("reshape46", x46, "(4, 6)");
    ("reshape234", mop Ops.Reshape pparam (shp [ 2; 3; 4 ]), "(2, 3, 4)");
    ("reshape1241", mop Ops.Reshape pparam (shp [ 1; 24; 1 ]), "(1, 24, 1)");
    ("expand", mop Ops.Expand x46 (shp [ 3 ]), "(3, 4, 6)");
    ("expand_var", mop Ops.Expand x46 (`Shape [ Uop.Suop va1 ]), "(a, 4, 6)");
    ("expand_none", mop Ops.Expand x46 (shp []), "(4, 6)");
    ("permute", mop Ops.Permute x46 (`Perm [ 1; 0 ]), "(6, 4)");
    ("permute3", mop Ops.Permute (mop Ops.Reshape pparam (shp [ 2; 3; 4 ])) (`Perm [ 2; 0; 1 ]), "(4, 2, 3)");
    ("pad", mop Ops.Pad x46 (`Pairs [ (si 0, si 6); (si 1, si 12) ]), "(6, 12)");
    ("shrink", mop Ops.Shrink x46 (`Pairs [ (si 0, si 2); (si 1, si 4) ]), "(2, 4)");
    ("flip", mop Ops.Flip x46 (`Flip [ true; false ]), "(4, 6)");
    ("reduce1", Uop.create Ops.Reduce ~dtype:Dtype.Float32 ~src:[| x46; rng ~axis_type:Uop.Reduce 4 0 |]
       ~arg:(Uop.Reduce_arg (Ops.Add, 1)), "(6,)");
    ("reduce0", Uop.create Ops.Reduce ~dtype:Dtype.Float32 ~src:[| x46 |] ~arg:(Uop.Reduce_arg (Ops.Add, 0)), "(4, 6)");
    ("reduce2", Uop.create Ops.Reduce ~dtype:Dtype.Float32 ~src:[| x46 |] ~arg:(Uop.Reduce_arg (Ops.Max, 2)), "()");
    ("index1", Uop.index x46 [ k 1 ], "(6,)");
    ("index2", Uop.index x46 [ k 1; rng 6 0 ], "()");
    ("index_stack", Uop.index x46 [ Uop.stack [ k 0; k 1; k 3 ] ], "(3, 6)");
    ("stack", Uop.stack [ x46; x46; x46 ], "(3, 4, 6)");
    ("stack_scalar", Uop.stack [ va1; va1 ], "(2,)");
    ("stack_empty", Uop.create Ops.Stack, "()");
    ("bcast", Uop.alu Ops.Add [ mop Ops.Reshape pparam (shp [ 4; 1; 6 ]);
                                mop Ops.Reshape (Uop.placeholder_param ~slot:1 Dtype.Float32 3) (shp [ 3; 1 ]) ], "(4, 3, 6)");
    ("bcast_scalar", Uop.alu Ops.Add [ x46; Uop.const_float 1.0 ], "(4, 6)");
    ("bcast_var", Uop.alu Ops.Add [ mop Ops.Expand x46 (`Shape [ Uop.Suop va1 ]);
                                    Uop.placeholder_param ~slot:2 Dtype.Float32 6 ], "(a, 4, 6)");
    ("bitcast_half", Uop.bitcast Dtype.Float16 x46, "(4, 12)");
    ("bitcast_u8", Uop.bitcast Dtype.Uint8 x46, "(4, 24)");
    ("bitcast_f32", Uop.bitcast Dtype.Float32 (Uop.bitcast Dtype.Float16 x46), "(4, 6)");
    ("cast", Uop.cast Dtype.Float16 x46, "(4, 6)");
    ("where", Uop.alu Ops.Where [ Uop.const_bool true; x46; Uop.const_float 0.0 ], "(4, 6)");
    ("const", k 3, "()");
    ("range", rng 4 0, "()");
    ("sink", Uop.sink [ x46 ], "None");
    ("load", Uop.create Ops.Load ~dtype:Dtype.Float32 ~src:[| x46 |], "(4, 6)");
    ("sqrt", Uop.create Ops.Sqrt ~dtype:Dtype.Float32 ~src:[| x46 |], "(4, 6)");
    ("var", va1, "()") ]

let shape_error_cases () =
  let mop = Uop.mop in
  [ ("bcast_mismatch", fun () -> Uop.alu Ops.Add [ x46; Uop.placeholder_param ~slot:3 Dtype.Float32 5 ]);
    ("bad_reshape", fun () -> mop Ops.Reshape x46 (shp [ 5; 5 ]));
    ("bad_permute", fun () -> mop Ops.Permute x46 (`Perm [ 0; 0 ]));
    ("neg_reshape", fun () -> mop Ops.Reshape x46 (shp [ -4; -6 ]));
    ("bad_pad", fun () -> mop Ops.Pad x46 (`Pairs [ (si 0, si 3); (si 0, si 6) ]));
    ("bad_shrink", fun () -> mop Ops.Shrink x46 (`Pairs [ (si 2, si 3); (si 0, si 6) ]));
    ("bad_flip", fun () -> mop Ops.Flip x46 (`Flip [ true ]));
    ("bad_reduce", fun () -> Uop.create Ops.Reduce ~dtype:Dtype.Float32 ~src:[| x46 |] ~arg:(Uop.Reduce_arg (Ops.Add, 3)));
    ("sink", fun () -> Uop.sink [ x46 ]) ]

let shape_tests =
  List.map (fun (name, u, e) -> ("shape_" ^ name, fun () -> check_str ~what:name e (shape_str u))) (shape_cases ())
  @ List.map (fun (name, mk) ->
      ("shape_error_" ^ name, fun () -> check_invalid_arg ~what:name (fun () -> Uop.shape (mk ())))) (shape_error_cases ())

(* ---------- dtype_from_uop: python UOp(op, src=..., arg=...).dtype ---------- *)

let v ?(name = "v") dt =
  if dt == Dtype.Bool then Uop.variable ~dtype:dt name (Dtype.B false) (Dtype.B true) else Uop.variable_int ~dtype:dt name 0 10

let dtype_cases () =
  let open Dtype in
  let mk ?arg op src = Uop.create ?arg op ~src:(Array.of_list src) in
  [ ("cmplt", (fun () -> mk Ops.Cmplt [ v Int32; v ~name:"w" Int32 ]), Some Bool);
    ("add_i8_u8", (fun () -> mk Ops.Add [ v Int8; v Uint8 ]), Some Int16);
    ("add_weak_half", (fun () -> mk Ops.Add [ k 1; v Float16 ]), Some Float16);
    ("where_mixed", (fun () -> mk Ops.Where [ v Bool; v Int32; Uop.const_float 1.5 ]), Some Weakfloat);
    ("where_badcond", (fun () -> mk Ops.Where [ v Int32; v Int32; v Int32 ]), None);
    ("sqrt_i32", (fun () -> mk Ops.Sqrt [ v Int32 ]), Some Float32);
    ("sqrt_weak", (fun () -> mk Ops.Sqrt [ k 4 ]), Some Weakfloat);
    ("sqrt_half", (fun () -> mk Ops.Sqrt [ v Float16 ]), Some Float16);
    ("sqrt_invalid", (fun () -> mk Ops.Sqrt [ Uop.invalid () ]), Some Bool);
    ("shl", (fun () -> mk Ops.Shl [ v Int32; k 2 ]), Some Int32);
    ("shl_float", (fun () -> mk Ops.Shl [ v Float32; k 2 ]), None);
    ("stack", (fun () -> mk Ops.Stack [ v Int8; v Int16 ]), Some Int16);
    ("stack_empty", (fun () -> mk Ops.Stack []), Some Void);
    ("index", (fun () -> mk Ops.Index [ Uop.placeholder_param ~slot:0 Float32 4; k 1 ]), Some Float32);
    ("cast", (fun () -> mk ~arg:(Uop.Dtype Float16) Ops.Cast [ v Int32 ]), Some Float16);
    ("max_bool", (fun () -> mk Ops.Max [ v Bool; v ~name:"w" Bool ]), Some Bool);
    ("mul_bool_i8", (fun () -> mk Ops.Mul [ v Bool; v Int8 ]), Some Int8);
    ("neg_i8", (fun () -> mk Ops.Neg [ v Int8 ]), Some Int8);
    ("mulacc", (fun () -> mk Ops.Mulacc [ v Int8; v Int8; v Int16 ]), Some Int16);
    ("range", (fun () -> mk ~arg:(Uop.Range ([ 0 ], Uop.Weak)) Ops.Range [ k 4 ]), Some Weakint);
    ("special", (fun () -> mk ~arg:(Uop.Str "gidx0") Ops.Special [ v Int32 ]), Some Int32);
    ("const_int", (fun () -> mk ~arg:(Uop.Const (I Z.one)) Ops.Const []), Some Weakint);
    ("const_float", (fun () -> mk ~arg:(Uop.Const (F 3.0)) Ops.Const []), Some Weakfloat);
    ("const_bool", (fun () -> mk ~arg:(Uop.Const (B true)) Ops.Const []), Some Bool);
    ("const_invalid", (fun () -> mk ~arg:(Uop.Const Invalid) Ops.Const []), Some Bool);
    ("sink", (fun () -> mk Ops.Sink [ v Int32 ]), Some Void);
    ("load", (fun () -> mk Ops.Load [ v Int16 ]), Some Int16);
    ("reduce", (fun () -> mk ~arg:(Uop.Reduce_arg (Ops.Add, 0)) Ops.Reduce [ v Int16 ]), Some Int16);
    ("cmpne_float", (fun () -> mk Ops.Cmpne [ v Float32; Uop.const_float 1.0 ]), Some Bool);
    ("fdiv", (fun () -> mk Ops.Fdiv [ v Float32; v Float16 ]), Some Float32);
    ("add_u64_i64", (fun () -> mk Ops.Add [ v Uint64; v Int64 ]), Some Weakfloat);
    ("add_u32_i8", (fun () -> mk Ops.Add [ v Uint32; v Int8 ]), Some Int64);
    ("add_bf16_half", (fun () -> mk Ops.Add [ v Bfloat16; v Float16 ]), Some Float32);
    ("reciprocal_bool", (fun () -> mk Ops.Reciprocal [ v Bool ]), Some Float32);
    ("trunc_i32", (fun () -> mk Ops.Trunc [ v Int32 ]), Some Int32);
    ("getaddr", (fun () -> mk Ops.Getaddr [ Uop.placeholder_param ~slot:0 Float32 4 ]), Some Uint64);
    ("after", (fun () -> mk Ops.After [ v Int16; v Int32 ]), Some Int16) ]

let dtype_tests =
  List.map (fun (name, mk, e) ->
      ("dtype_from_uop_" ^ name, fun () ->
          match e with
          | Some d -> check_eq ~pp:Dtype.to_string ~eq:Dtype.equal ~what:name d (mk ()).Uop.dtype
          | None -> check_invalid_arg ~what:name (fun () -> mk ()))) (dtype_cases ())

(* ---------- exec_alu: python exec_alu(op, dtype, operands) ---------- *)

module Alu_oracle = struct
  open Dtype
  let _ = Invalid
  let exec_alu_table = [
    (Ops.Add, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "9"));
    (Ops.Add, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "9"));
    (Ops.Add, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "9"));
    (Ops.Add, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "9"));
    (Ops.Add, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-5"));
    (Ops.Add, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "251"));
    (Ops.Add, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-5"));
    (Ops.Add, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-5"));
    (Ops.Add, Int8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "5"));
    (Ops.Add, Uint8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "5"));
    (Ops.Add, Int32, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "5"));
    (Ops.Add, Weakint, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "5"));
    (Ops.Add, Int8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-9"));
    (Ops.Add, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "247"));
    (Ops.Add, Int32, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-9"));
    (Ops.Add, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-9"));
    (Ops.Add, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Add, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Add, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Add, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Add, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Add, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Add, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Add, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Add, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Add, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Add, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Add, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Add, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-97"));
    (Ops.Add, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "159"));
    (Ops.Add, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-97"));
    (Ops.Add, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-97"));
    (Ops.Add, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Add, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Add, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "-2147483648"));
    (Ops.Add, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483648"));
    (Ops.Add, Int8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-1"));
    (Ops.Add, Uint8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "255"));
    (Ops.Add, Int32, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "2147483647"));
    (Ops.Add, Weakint, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-2147483649"));
    (Ops.Add, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Add, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Add, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "256"));
    (Ops.Add, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "256"));
    (Ops.Add, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "51"));
    (Ops.Add, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "51"));
    (Ops.Add, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "307"));
    (Ops.Add, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "307"));
    (Ops.Add, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "32"));
    (Ops.Add, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "32"));
    (Ops.Add, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "32"));
    (Ops.Add, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "32"));
    (Ops.Add, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Add, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Add, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Add, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Sub, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "5"));
    (Ops.Sub, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "5"));
    (Ops.Sub, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "5"));
    (Ops.Sub, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "5"));
    (Ops.Sub, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-9"));
    (Ops.Sub, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "247"));
    (Ops.Sub, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-9"));
    (Ops.Sub, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-9"));
    (Ops.Sub, Int8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "9"));
    (Ops.Sub, Uint8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "9"));
    (Ops.Sub, Int32, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "9"));
    (Ops.Sub, Weakint, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "9"));
    (Ops.Sub, Int8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-5"));
    (Ops.Sub, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "251"));
    (Ops.Sub, Int32, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-5"));
    (Ops.Sub, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-5"));
    (Ops.Sub, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Sub, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Sub, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Sub, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Sub, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "-5"));
    (Ops.Sub, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "251"));
    (Ops.Sub, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "-5"));
    (Ops.Sub, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "-5"));
    (Ops.Sub, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "97"));
    (Ops.Sub, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "97"));
    (Ops.Sub, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "97"));
    (Ops.Sub, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "97"));
    (Ops.Sub, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-103"));
    (Ops.Sub, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "153"));
    (Ops.Sub, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-103"));
    (Ops.Sub, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-103"));
    (Ops.Sub, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "-2"));
    (Ops.Sub, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "254"));
    (Ops.Sub, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483646"));
    (Ops.Sub, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483646"));
    (Ops.Sub, Int8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "1"));
    (Ops.Sub, Uint8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "1"));
    (Ops.Sub, Int32, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-2147483647"));
    (Ops.Sub, Weakint, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-2147483647"));
    (Ops.Sub, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "-2"));
    (Ops.Sub, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "254"));
    (Ops.Sub, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "254"));
    (Ops.Sub, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "254"));
    (Ops.Sub, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "37"));
    (Ops.Sub, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "37"));
    (Ops.Sub, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "293"));
    (Ops.Sub, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "293"));
    (Ops.Sub, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "-30"));
    (Ops.Sub, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "226"));
    (Ops.Sub, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "-30"));
    (Ops.Sub, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "-30"));
    (Ops.Sub, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "-1"));
    (Ops.Sub, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "255"));
    (Ops.Sub, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "-1"));
    (Ops.Sub, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "-1"));
    (Ops.Mul, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "14"));
    (Ops.Mul, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "14"));
    (Ops.Mul, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "14"));
    (Ops.Mul, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "14"));
    (Ops.Mul, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-14"));
    (Ops.Mul, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "242"));
    (Ops.Mul, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-14"));
    (Ops.Mul, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-14"));
    (Ops.Mul, Int8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-14"));
    (Ops.Mul, Uint8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "242"));
    (Ops.Mul, Int32, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-14"));
    (Ops.Mul, Weakint, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-14"));
    (Ops.Mul, Int8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "14"));
    (Ops.Mul, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "14"));
    (Ops.Mul, Int32, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "14"));
    (Ops.Mul, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "14"));
    (Ops.Mul, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Mul, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Mul, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Mul, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Mul, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Mul, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Mul, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Mul, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Mul, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "44"));
    (Ops.Mul, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "44"));
    (Ops.Mul, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "300"));
    (Ops.Mul, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "300"));
    (Ops.Mul, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-44"));
    (Ops.Mul, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "212"));
    (Ops.Mul, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-300"));
    (Ops.Mul, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-300"));
    (Ops.Mul, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "-1"));
    (Ops.Mul, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Mul, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483647"));
    (Ops.Mul, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483647"));
    (Ops.Mul, Int8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Mul, Uint8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Mul, Int32, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-2147483648"));
    (Ops.Mul, Weakint, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "2147483648"));
    (Ops.Mul, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "-1"));
    (Ops.Mul, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Mul, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Mul, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Mul, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "52"));
    (Ops.Mul, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "52"));
    (Ops.Mul, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "2100"));
    (Ops.Mul, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "2100"));
    (Ops.Mul, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Mul, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Mul, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Mul, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Mul, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "12"));
    (Ops.Mul, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "12"));
    (Ops.Mul, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "12"));
    (Ops.Mul, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "12"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "3"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "3"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "3"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "3"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-3"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "253"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-3"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-3"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-3"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "253"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-3"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-3"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "3"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "3"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "3"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "3"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "33"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "33"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "33"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "33"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-33"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "223"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-33"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-33"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "-1"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483647"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483647"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-2147483648"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "2147483648"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "-1"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "42"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "42"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "42"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "42"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Cdiv, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Cdiv, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Cdiv, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Cdiv, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Cmod, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Cmod, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Cmod, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-1"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "255"));
    (Ops.Cmod, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-1"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-1"));
    (Ops.Cmod, Int8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "1"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "1"));
    (Ops.Cmod, Int32, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "1"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "1"));
    (Ops.Cmod, Int8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "255"));
    (Ops.Cmod, Int32, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Cmod, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Cmod, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Cmod, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Cmod, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Cmod, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "1"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "1"));
    (Ops.Cmod, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "1"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "1"));
    (Ops.Cmod, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-1"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "255"));
    (Ops.Cmod, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-1"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-1"));
    (Ops.Cmod, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Cmod, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Cmod, Int8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Cmod, Int32, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Cmod, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Cmod, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Cmod, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "6"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "6"));
    (Ops.Cmod, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "6"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "6"));
    (Ops.Cmod, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.Cmod, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.Cmod, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "3"));
    (Ops.Cmod, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "3"));
    (Ops.Cmod, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "3"));
    (Ops.Cmod, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "3"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "3"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "3"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "3"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "3"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-4"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "252"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-4"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-4"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-4"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "252"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-4"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-4"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "3"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "3"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "3"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "3"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "33"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "33"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "33"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "33"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-34"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "222"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-34"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-34"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "-1"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483647"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483647"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-2147483648"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "2147483648"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "-1"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "42"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "42"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "42"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "42"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Floordiv, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Floordiv, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Floordiv, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Floordiv, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Floormod, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Floormod, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Floormod, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Floormod, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Floormod, Int8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "255"));
    (Ops.Floormod, Int32, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Floormod, Int8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "255"));
    (Ops.Floormod, Int32, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Floormod, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Floormod, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Floormod, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Floormod, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Floormod, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "1"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "1"));
    (Ops.Floormod, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "1"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "1"));
    (Ops.Floormod, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "2"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "2"));
    (Ops.Floormod, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "2"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "2"));
    (Ops.Floormod, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Floormod, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Floormod, Int8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Floormod, Int32, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.Floormod, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Floormod, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "0"));
    (Ops.Floormod, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "6"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "6"));
    (Ops.Floormod, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "6"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "6"));
    (Ops.Floormod, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.Floormod, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.Floormod, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "3"));
    (Ops.Floormod, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "3"));
    (Ops.Floormod, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "3"));
    (Ops.Floormod, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "3"));
    (Ops.Shl, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "28"));
    (Ops.Shl, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "28"));
    (Ops.Shl, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "28"));
    (Ops.Shl, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "28"));
    (Ops.Shl, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-28"));
    (Ops.Shl, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "228"));
    (Ops.Shl, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-28"));
    (Ops.Shl, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-28"));
    (Ops.Shl, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Shl, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Shl, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Shl, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Shl, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Shl, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Shl, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Shl, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Shl, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "32"));
    (Ops.Shl, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "32"));
    (Ops.Shl, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "800"));
    (Ops.Shl, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "800"));
    (Ops.Shl, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-32"));
    (Ops.Shl, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "224"));
    (Ops.Shl, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-800"));
    (Ops.Shl, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-800"));
    (Ops.Shl, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "-2"));
    (Ops.Shl, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "254"));
    (Ops.Shl, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "-2"));
    (Ops.Shl, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "4294967294"));
    (Ops.Shl, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "-2"));
    (Ops.Shl, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "254"));
    (Ops.Shl, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "510"));
    (Ops.Shl, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "510"));
    (Ops.Shl, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "0"));
    (Ops.Shl, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "0"));
    (Ops.Shl, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "38400"));
    (Ops.Shl, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "38400"));
    (Ops.Shl, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Shl, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Shl, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "-2147483648"));
    (Ops.Shl, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "2147483648"));
    (Ops.Shl, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "48"));
    (Ops.Shl, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "48"));
    (Ops.Shl, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "48"));
    (Ops.Shl, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "48"));
    (Ops.Shr, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Shr, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Shr, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Shr, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "1"));
    (Ops.Shr, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-2"));
    (Ops.Shr, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "254"));
    (Ops.Shr, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-2"));
    (Ops.Shr, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-2"));
    (Ops.Shr, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Shr, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Shr, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Shr, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Shr, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Shr, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Shr, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Shr, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.Shr, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "12"));
    (Ops.Shr, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "12"));
    (Ops.Shr, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "12"));
    (Ops.Shr, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "12"));
    (Ops.Shr, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-13"));
    (Ops.Shr, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "243"));
    (Ops.Shr, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-13"));
    (Ops.Shr, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-13"));
    (Ops.Shr, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "-1"));
    (Ops.Shr, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Shr, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "1073741823"));
    (Ops.Shr, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "1073741823"));
    (Ops.Shr, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "127"));
    (Ops.Shr, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "127"));
    (Ops.Shr, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "127"));
    (Ops.Shr, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "127"));
    (Ops.Shr, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "2"));
    (Ops.Shr, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "2"));
    (Ops.Shr, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "2"));
    (Ops.Shr, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "2"));
    (Ops.Shr, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Shr, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Shr, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Shr, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "0"));
    (Ops.Shr, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Shr, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Shr, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Shr, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Max, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "7"));
    (Ops.Max, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "7"));
    (Ops.Max, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "7"));
    (Ops.Max, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "7"));
    (Ops.Max, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "2"));
    (Ops.Max, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "2"));
    (Ops.Max, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "2"));
    (Ops.Max, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "2"));
    (Ops.Max, Int8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "7"));
    (Ops.Max, Uint8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "7"));
    (Ops.Max, Int32, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "7"));
    (Ops.Max, Weakint, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "7"));
    (Ops.Max, Int8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-2"));
    (Ops.Max, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "254"));
    (Ops.Max, Int32, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-2"));
    (Ops.Max, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-2"));
    (Ops.Max, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Max, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Max, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Max, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Max, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Max, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Max, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Max, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Max, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "100"));
    (Ops.Max, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "100"));
    (Ops.Max, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "100"));
    (Ops.Max, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "100"));
    (Ops.Max, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "3"));
    (Ops.Max, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "3"));
    (Ops.Max, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "3"));
    (Ops.Max, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "3"));
    (Ops.Max, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "-1"));
    (Ops.Max, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Max, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483647"));
    (Ops.Max, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483647"));
    (Ops.Max, Int8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-1"));
    (Ops.Max, Uint8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "255"));
    (Ops.Max, Int32, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-1"));
    (Ops.Max, Weakint, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-1"));
    (Ops.Max, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "-1"));
    (Ops.Max, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Max, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Max, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Max, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "44"));
    (Ops.Max, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "44"));
    (Ops.Max, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "300"));
    (Ops.Max, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "300"));
    (Ops.Max, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Max, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Max, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Max, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Max, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "4"));
    (Ops.Max, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "4"));
    (Ops.Max, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "4"));
    (Ops.Max, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "4"));
    (Ops.Cmplt, Bool, [ I (Z.of_string "7"); I (Z.of_string "2") ], B false);
    (Ops.Cmplt, Bool, [ I (Z.of_string "-7"); I (Z.of_string "2") ], B true);
    (Ops.Cmplt, Bool, [ I (Z.of_string "7"); I (Z.of_string "-2") ], B false);
    (Ops.Cmplt, Bool, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], B true);
    (Ops.Cmplt, Bool, [ I (Z.of_string "7"); I (Z.of_string "0") ], B false);
    (Ops.Cmplt, Bool, [ I (Z.of_string "0"); I (Z.of_string "5") ], B true);
    (Ops.Cmplt, Bool, [ I (Z.of_string "100"); I (Z.of_string "3") ], B false);
    (Ops.Cmplt, Bool, [ I (Z.of_string "-100"); I (Z.of_string "3") ], B true);
    (Ops.Cmplt, Bool, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], B false);
    (Ops.Cmplt, Bool, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], B true);
    (Ops.Cmplt, Bool, [ I (Z.of_string "255"); I (Z.of_string "1") ], B false);
    (Ops.Cmplt, Bool, [ I (Z.of_string "300"); I (Z.of_string "7") ], B false);
    (Ops.Cmplt, Bool, [ I (Z.of_string "1"); I (Z.of_string "31") ], B true);
    (Ops.Cmplt, Bool, [ I (Z.of_string "3"); I (Z.of_string "4") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "7"); I (Z.of_string "2") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "-7"); I (Z.of_string "2") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "7"); I (Z.of_string "-2") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "7"); I (Z.of_string "0") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "0"); I (Z.of_string "5") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "100"); I (Z.of_string "3") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "-100"); I (Z.of_string "3") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "255"); I (Z.of_string "1") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "300"); I (Z.of_string "7") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "1"); I (Z.of_string "31") ], B true);
    (Ops.Cmpne, Bool, [ I (Z.of_string "3"); I (Z.of_string "4") ], B true);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "7"); I (Z.of_string "2") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "-7"); I (Z.of_string "2") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "7"); I (Z.of_string "-2") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "7"); I (Z.of_string "0") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "0"); I (Z.of_string "5") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "100"); I (Z.of_string "3") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "-100"); I (Z.of_string "3") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "255"); I (Z.of_string "1") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "300"); I (Z.of_string "7") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "1"); I (Z.of_string "31") ], B false);
    (Ops.Cmpeq, Bool, [ I (Z.of_string "3"); I (Z.of_string "4") ], B false);
    (Ops.And, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "2"));
    (Ops.And, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "2"));
    (Ops.And, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "2"));
    (Ops.And, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "2"));
    (Ops.And, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "0"));
    (Ops.And, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "0"));
    (Ops.And, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "0"));
    (Ops.And, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "0"));
    (Ops.And, Int8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "6"));
    (Ops.And, Uint8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "6"));
    (Ops.And, Int32, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "6"));
    (Ops.And, Weakint, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "6"));
    (Ops.And, Int8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-8"));
    (Ops.And, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "248"));
    (Ops.And, Int32, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-8"));
    (Ops.And, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-8"));
    (Ops.And, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.And, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.And, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.And, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "0"));
    (Ops.And, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.And, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.And, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.And, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "0"));
    (Ops.And, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "0"));
    (Ops.And, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "0"));
    (Ops.And, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "0"));
    (Ops.And, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "0"));
    (Ops.And, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "0"));
    (Ops.And, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "0"));
    (Ops.And, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "0"));
    (Ops.And, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "0"));
    (Ops.And, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "1"));
    (Ops.And, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "1"));
    (Ops.And, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "1"));
    (Ops.And, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "1"));
    (Ops.And, Int8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.And, Uint8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "0"));
    (Ops.And, Int32, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-2147483648"));
    (Ops.And, Weakint, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-2147483648"));
    (Ops.And, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "1"));
    (Ops.And, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "1"));
    (Ops.And, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "1"));
    (Ops.And, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "1"));
    (Ops.And, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "4"));
    (Ops.And, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "4"));
    (Ops.And, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "4"));
    (Ops.And, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "4"));
    (Ops.And, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.And, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.And, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.And, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "1"));
    (Ops.And, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.And, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.And, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.And, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "0"));
    (Ops.Or, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "7"));
    (Ops.Or, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "7"));
    (Ops.Or, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "7"));
    (Ops.Or, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "7"));
    (Ops.Or, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-5"));
    (Ops.Or, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "251"));
    (Ops.Or, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-5"));
    (Ops.Or, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-5"));
    (Ops.Or, Int8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Or, Uint8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "255"));
    (Ops.Or, Int32, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Or, Weakint, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Or, Int8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Or, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "255"));
    (Ops.Or, Int32, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Or, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "-1"));
    (Ops.Or, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Or, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Or, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Or, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Or, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Or, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Or, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Or, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Or, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Or, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Or, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Or, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Or, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-97"));
    (Ops.Or, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "159"));
    (Ops.Or, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-97"));
    (Ops.Or, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-97"));
    (Ops.Or, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "-1"));
    (Ops.Or, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Or, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483647"));
    (Ops.Or, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483647"));
    (Ops.Or, Int8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-1"));
    (Ops.Or, Uint8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "255"));
    (Ops.Or, Int32, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-1"));
    (Ops.Or, Weakint, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-1"));
    (Ops.Or, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "-1"));
    (Ops.Or, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Or, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Or, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "255"));
    (Ops.Or, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "47"));
    (Ops.Or, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "47"));
    (Ops.Or, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "303"));
    (Ops.Or, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "303"));
    (Ops.Or, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Or, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Or, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Or, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "31"));
    (Ops.Or, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Or, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Or, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Or, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Xor, Int8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "5"));
    (Ops.Xor, Uint8, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "5"));
    (Ops.Xor, Int32, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "5"));
    (Ops.Xor, Weakint, [ I (Z.of_string "7"); I (Z.of_string "2") ], I (Z.of_string "5"));
    (Ops.Xor, Int8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-5"));
    (Ops.Xor, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "251"));
    (Ops.Xor, Int32, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-5"));
    (Ops.Xor, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "2") ], I (Z.of_string "-5"));
    (Ops.Xor, Int8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-7"));
    (Ops.Xor, Uint8, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "249"));
    (Ops.Xor, Int32, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-7"));
    (Ops.Xor, Weakint, [ I (Z.of_string "7"); I (Z.of_string "-2") ], I (Z.of_string "-7"));
    (Ops.Xor, Int8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "7"));
    (Ops.Xor, Uint8, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "7"));
    (Ops.Xor, Int32, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "7"));
    (Ops.Xor, Weakint, [ I (Z.of_string "-7"); I (Z.of_string "-2") ], I (Z.of_string "7"));
    (Ops.Xor, Int8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Xor, Uint8, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Xor, Int32, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Xor, Weakint, [ I (Z.of_string "7"); I (Z.of_string "0") ], I (Z.of_string "7"));
    (Ops.Xor, Int8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Xor, Uint8, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Xor, Int32, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Xor, Weakint, [ I (Z.of_string "0"); I (Z.of_string "5") ], I (Z.of_string "5"));
    (Ops.Xor, Int8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Xor, Uint8, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Xor, Int32, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Xor, Weakint, [ I (Z.of_string "100"); I (Z.of_string "3") ], I (Z.of_string "103"));
    (Ops.Xor, Int8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-97"));
    (Ops.Xor, Uint8, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "159"));
    (Ops.Xor, Int32, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-97"));
    (Ops.Xor, Weakint, [ I (Z.of_string "-100"); I (Z.of_string "3") ], I (Z.of_string "-97"));
    (Ops.Xor, Int8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "-2"));
    (Ops.Xor, Uint8, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "254"));
    (Ops.Xor, Int32, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483646"));
    (Ops.Xor, Weakint, [ I (Z.of_string "2147483647"); I (Z.of_string "1") ], I (Z.of_string "2147483646"));
    (Ops.Xor, Int8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "-1"));
    (Ops.Xor, Uint8, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "255"));
    (Ops.Xor, Int32, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "2147483647"));
    (Ops.Xor, Weakint, [ I (Z.of_string "-2147483648"); I (Z.of_string "-1") ], I (Z.of_string "2147483647"));
    (Ops.Xor, Int8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "-2"));
    (Ops.Xor, Uint8, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "254"));
    (Ops.Xor, Int32, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "254"));
    (Ops.Xor, Weakint, [ I (Z.of_string "255"); I (Z.of_string "1") ], I (Z.of_string "254"));
    (Ops.Xor, Int8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "43"));
    (Ops.Xor, Uint8, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "43"));
    (Ops.Xor, Int32, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "299"));
    (Ops.Xor, Weakint, [ I (Z.of_string "300"); I (Z.of_string "7") ], I (Z.of_string "299"));
    (Ops.Xor, Int8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "30"));
    (Ops.Xor, Uint8, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "30"));
    (Ops.Xor, Int32, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "30"));
    (Ops.Xor, Weakint, [ I (Z.of_string "1"); I (Z.of_string "31") ], I (Z.of_string "30"));
    (Ops.Xor, Int8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Xor, Uint8, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Xor, Int32, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Xor, Weakint, [ I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "7"));
    (Ops.Add, Float32, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.3000000000000p+3"));
    (Ops.Add, Float64, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.3000000000000p+3"));
    (Ops.Add, Float16, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.3000000000000p+3"));
    (Ops.Add, Float32, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "-0x1.6000000000000p+2"));
    (Ops.Add, Float64, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "-0x1.6000000000000p+2"));
    (Ops.Add, Float16, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "-0x1.6000000000000p+2"));
    (Ops.Add, Float32, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "0x1.6000000000000p+2"));
    (Ops.Add, Float64, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "0x1.6000000000000p+2"));
    (Ops.Add, Float16, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "0x1.6000000000000p+2"));
    (Ops.Add, Float32, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Add, Float64, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Add, Float16, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Add, Float32, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "0x1.3333340000000p-2"));
    (Ops.Add, Float64, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "0x1.3333333333334p-2"));
    (Ops.Add, Float16, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "0x1.3340000000000p-2"));
    (Ops.Add, Float32, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "0x1.93e5940000000p+100"));
    (Ops.Add, Float64, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "0x1.93e5939a08ceap+100"));
    (Ops.Add, Float16, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "inf"));
    (Ops.Add, Float32, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Add, Float64, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Add, Float16, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Add, Float32, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F nan);
    (Ops.Add, Float64, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F nan);
    (Ops.Add, Float16, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F nan);
    (Ops.Add, Float32, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Add, Float64, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Add, Float16, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Add, Float32, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Add, Float64, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Add, Float16, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Sub, Float32, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.6000000000000p+2"));
    (Ops.Sub, Float64, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.6000000000000p+2"));
    (Ops.Sub, Float16, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.6000000000000p+2"));
    (Ops.Sub, Float32, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "-0x1.3000000000000p+3"));
    (Ops.Sub, Float64, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "-0x1.3000000000000p+3"));
    (Ops.Sub, Float16, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "-0x1.3000000000000p+3"));
    (Ops.Sub, Float32, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "0x1.3000000000000p+3"));
    (Ops.Sub, Float64, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "0x1.3000000000000p+3"));
    (Ops.Sub, Float16, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "0x1.3000000000000p+3"));
    (Ops.Sub, Float32, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Sub, Float64, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Sub, Float16, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Sub, Float32, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "-0x1.99999a0000000p-4"));
    (Ops.Sub, Float64, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "-0x1.999999999999ap-4"));
    (Ops.Sub, Float16, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "-0x1.9980000000000p-4"));
    (Ops.Sub, Float32, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "0x0.0p+0"));
    (Ops.Sub, Float64, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "0x0.0p+0"));
    (Ops.Sub, Float16, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "0x0.0p+0"));
    (Ops.Sub, Float32, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Sub, Float64, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Sub, Float16, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Sub, Float32, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F nan);
    (Ops.Sub, Float64, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F nan);
    (Ops.Sub, Float16, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F nan);
    (Ops.Sub, Float32, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Sub, Float64, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Sub, Float16, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Sub, Float32, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Sub, Float64, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Sub, Float16, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Mul, Float32, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.e000000000000p+3"));
    (Ops.Mul, Float64, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.e000000000000p+3"));
    (Ops.Mul, Float16, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.e000000000000p+3"));
    (Ops.Mul, Float32, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "-0x1.e000000000000p+3"));
    (Ops.Mul, Float64, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "-0x1.e000000000000p+3"));
    (Ops.Mul, Float16, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "-0x1.e000000000000p+3"));
    (Ops.Mul, Float32, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "-0x1.e000000000000p+3"));
    (Ops.Mul, Float64, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "-0x1.e000000000000p+3"));
    (Ops.Mul, Float16, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "-0x1.e000000000000p+3"));
    (Ops.Mul, Float32, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Mul, Float64, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Mul, Float16, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Mul, Float32, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "0x1.47ae140000000p-6"));
    (Ops.Mul, Float64, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "0x1.47ae147ae147cp-6"));
    (Ops.Mul, Float16, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "0x1.47c0000000000p-6"));
    (Ops.Mul, Float32, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "inf"));
    (Ops.Mul, Float64, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "0x1.3e9e4e4c2f345p+199"));
    (Ops.Mul, Float16, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "inf"));
    (Ops.Mul, Float32, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Mul, Float64, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Mul, Float16, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Mul, Float32, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F nan);
    (Ops.Mul, Float64, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F nan);
    (Ops.Mul, Float16, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F nan);
    (Ops.Mul, Float32, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Mul, Float64, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Mul, Float16, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Mul, Float32, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Mul, Float64, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Mul, Float16, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Max, Float32, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.e000000000000p+2"));
    (Ops.Max, Float64, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.e000000000000p+2"));
    (Ops.Max, Float16, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.e000000000000p+2"));
    (Ops.Max, Float32, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.0000000000000p+1"));
    (Ops.Max, Float64, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.0000000000000p+1"));
    (Ops.Max, Float16, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], F (float_of_string "0x1.0000000000000p+1"));
    (Ops.Max, Float32, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "0x1.e000000000000p+2"));
    (Ops.Max, Float64, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "0x1.e000000000000p+2"));
    (Ops.Max, Float16, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], F (float_of_string "0x1.e000000000000p+2"));
    (Ops.Max, Float32, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Max, Float64, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Max, Float16, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Max, Float32, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "0x1.99999a0000000p-3"));
    (Ops.Max, Float64, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "0x1.999999999999ap-3"));
    (Ops.Max, Float16, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], F (float_of_string "0x1.9980000000000p-3"));
    (Ops.Max, Float32, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "0x1.93e5940000000p+99"));
    (Ops.Max, Float64, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "0x1.93e5939a08ceap+99"));
    (Ops.Max, Float16, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], F (float_of_string "inf"));
    (Ops.Max, Float32, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Max, Float64, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Max, Float16, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], F nan);
    (Ops.Max, Float32, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Max, Float64, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Max, Float16, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Max, Float32, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Max, Float64, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Max, Float16, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Max, Float32, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Max, Float64, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Max, Float16, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "inf"));
    (Ops.Cmplt, Bool, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], B false);
    (Ops.Cmplt, Bool, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], B true);
    (Ops.Cmplt, Bool, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], B false);
    (Ops.Cmplt, Bool, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], B false);
    (Ops.Cmplt, Bool, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], B true);
    (Ops.Cmplt, Bool, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], B false);
    (Ops.Cmplt, Bool, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], B false);
    (Ops.Cmplt, Bool, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], B false);
    (Ops.Cmplt, Bool, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], B false);
    (Ops.Cmplt, Bool, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], B false);
    (Ops.Cmpne, Bool, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], B true);
    (Ops.Cmpne, Bool, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], B true);
    (Ops.Cmpne, Bool, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], B true);
    (Ops.Cmpne, Bool, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], B true);
    (Ops.Cmpne, Bool, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], B true);
    (Ops.Cmpne, Bool, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], B false);
    (Ops.Cmpne, Bool, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], B true);
    (Ops.Cmpne, Bool, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], B true);
    (Ops.Cmpne, Bool, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], B false);
    (Ops.Cmpne, Bool, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], B true);
    (Ops.Cmpeq, Bool, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], B false);
    (Ops.Cmpeq, Bool, [ F (float_of_string "-0x1.e000000000000p+2"); F (float_of_string "0x1.0000000000000p+1") ], B false);
    (Ops.Cmpeq, Bool, [ F (float_of_string "0x1.e000000000000p+2"); F (float_of_string "-0x1.0000000000000p+1") ], B false);
    (Ops.Cmpeq, Bool, [ F (float_of_string "0x1.0000000000000p+0"); F (float_of_string "0x0.0p+0") ], B false);
    (Ops.Cmpeq, Bool, [ F (float_of_string "0x1.999999999999ap-4"); F (float_of_string "0x1.999999999999ap-3") ], B false);
    (Ops.Cmpeq, Bool, [ F (float_of_string "0x1.93e5939a08ceap+99"); F (float_of_string "0x1.93e5939a08ceap+99") ], B true);
    (Ops.Cmpeq, Bool, [ F nan; F (float_of_string "0x1.0000000000000p+0") ], B false);
    (Ops.Cmpeq, Bool, [ F (float_of_string "0x1.0000000000000p+0"); F nan ], B false);
    (Ops.Cmpeq, Bool, [ F (float_of_string "-0x0.0p+0"); F (float_of_string "0x0.0p+0") ], B true);
    (Ops.Cmpeq, Bool, [ F (float_of_string "inf"); F (float_of_string "0x1.0000000000000p+0") ], B false);
    (Ops.Neg, Float32, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Neg, Float64, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Neg, Float32, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Neg, Float64, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Neg, Float32, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "-0x1.0000000000000p+0"));
    (Ops.Neg, Float64, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "-0x1.0000000000000p+0"));
    (Ops.Neg, Float32, [ F (float_of_string "-0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Neg, Float64, [ F (float_of_string "-0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Neg, Float32, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "-0x1.4000000000000p+1"));
    (Ops.Neg, Float64, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "-0x1.4000000000000p+1"));
    (Ops.Neg, Float32, [ F (float_of_string "-0x1.4000000000000p+1") ], F (float_of_string "0x1.4000000000000p+1"));
    (Ops.Neg, Float64, [ F (float_of_string "-0x1.4000000000000p+1") ], F (float_of_string "0x1.4000000000000p+1"));
    (Ops.Neg, Float32, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "-0x1.9000000000000p+6"));
    (Ops.Neg, Float64, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "-0x1.9000000000000p+6"));
    (Ops.Neg, Float32, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "-0x1.0624de0000000p-10"));
    (Ops.Neg, Float64, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "-0x1.0624dd2f1a9fcp-10"));
    (Ops.Neg, Float32, [ F (float_of_string "inf") ], F (float_of_string "-inf"));
    (Ops.Neg, Float64, [ F (float_of_string "inf") ], F (float_of_string "-inf"));
    (Ops.Neg, Float32, [ F (float_of_string "-inf") ], F (float_of_string "inf"));
    (Ops.Neg, Float64, [ F (float_of_string "-inf") ], F (float_of_string "inf"));
    (Ops.Neg, Float32, [ F nan ], F nan);
    (Ops.Neg, Float64, [ F nan ], F nan);
    (Ops.Neg, Float32, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "-0x1.2a05f20000000p+33"));
    (Ops.Neg, Float64, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "-0x1.2a05f20000000p+33"));
    (Ops.Neg, Float32, [ F (float_of_string "-0x1.9000000000000p+7") ], F (float_of_string "0x1.9000000000000p+7"));
    (Ops.Neg, Float64, [ F (float_of_string "-0x1.9000000000000p+7") ], F (float_of_string "0x1.9000000000000p+7"));
    (Ops.Sqrt, Float32, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Sqrt, Float64, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Sqrt, Float32, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Sqrt, Float64, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Sqrt, Float32, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Sqrt, Float64, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Sqrt, Float32, [ F (float_of_string "-0x1.0000000000000p+0") ], F nan);
    (Ops.Sqrt, Float64, [ F (float_of_string "-0x1.0000000000000p+0") ], F nan);
    (Ops.Sqrt, Float32, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.94c5840000000p+0"));
    (Ops.Sqrt, Float64, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.94c583ada5b53p+0"));
    (Ops.Sqrt, Float32, [ F (float_of_string "-0x1.4000000000000p+1") ], F nan);
    (Ops.Sqrt, Float64, [ F (float_of_string "-0x1.4000000000000p+1") ], F nan);
    (Ops.Sqrt, Float32, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "0x1.4000000000000p+3"));
    (Ops.Sqrt, Float64, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "0x1.4000000000000p+3"));
    (Ops.Sqrt, Float32, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "0x1.030dc40000000p-5"));
    (Ops.Sqrt, Float64, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "0x1.030dc4ea03a72p-5"));
    (Ops.Sqrt, Float32, [ F (float_of_string "inf") ], F (float_of_string "inf"));
    (Ops.Sqrt, Float64, [ F (float_of_string "inf") ], F (float_of_string "inf"));
    (Ops.Sqrt, Float32, [ F (float_of_string "-inf") ], F nan);
    (Ops.Sqrt, Float64, [ F (float_of_string "-inf") ], F nan);
    (Ops.Sqrt, Float32, [ F nan ], F nan);
    (Ops.Sqrt, Float64, [ F nan ], F nan);
    (Ops.Sqrt, Float32, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "0x1.86a0000000000p+16"));
    (Ops.Sqrt, Float64, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "0x1.86a0000000000p+16"));
    (Ops.Sqrt, Float32, [ F (float_of_string "-0x1.9000000000000p+7") ], F nan);
    (Ops.Sqrt, Float64, [ F (float_of_string "-0x1.9000000000000p+7") ], F nan);
    (Ops.Log2, Float32, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "-inf"));
    (Ops.Log2, Float64, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "-inf"));
    (Ops.Log2, Float32, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "-inf"));
    (Ops.Log2, Float64, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "-inf"));
    (Ops.Log2, Float32, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Log2, Float64, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Log2, Float32, [ F (float_of_string "-0x1.0000000000000p+0") ], F nan);
    (Ops.Log2, Float64, [ F (float_of_string "-0x1.0000000000000p+0") ], F nan);
    (Ops.Log2, Float32, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.5269e20000000p+0"));
    (Ops.Log2, Float64, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.5269e12f346e3p+0"));
    (Ops.Log2, Float32, [ F (float_of_string "-0x1.4000000000000p+1") ], F nan);
    (Ops.Log2, Float64, [ F (float_of_string "-0x1.4000000000000p+1") ], F nan);
    (Ops.Log2, Float32, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "0x1.a934f00000000p+2"));
    (Ops.Log2, Float64, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "0x1.a934f0979a371p+2"));
    (Ops.Log2, Float32, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "-0x1.3ee7b40000000p+3"));
    (Ops.Log2, Float64, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "-0x1.3ee7b471b3a95p+3"));
    (Ops.Log2, Float32, [ F (float_of_string "inf") ], F (float_of_string "inf"));
    (Ops.Log2, Float64, [ F (float_of_string "inf") ], F (float_of_string "inf"));
    (Ops.Log2, Float32, [ F (float_of_string "-inf") ], F nan);
    (Ops.Log2, Float64, [ F (float_of_string "-inf") ], F nan);
    (Ops.Log2, Float32, [ F nan ], F nan);
    (Ops.Log2, Float64, [ F nan ], F nan);
    (Ops.Log2, Float32, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "0x1.09c1160000000p+5"));
    (Ops.Log2, Float64, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "0x1.09c1165ec0627p+5"));
    (Ops.Log2, Float32, [ F (float_of_string "-0x1.9000000000000p+7") ], F nan);
    (Ops.Log2, Float64, [ F (float_of_string "-0x1.9000000000000p+7") ], F nan);
    (Ops.Exp2, Float32, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Exp2, Float64, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Exp2, Float32, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Exp2, Float64, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Exp2, Float32, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p+1"));
    (Ops.Exp2, Float64, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p+1"));
    (Ops.Exp2, Float32, [ F (float_of_string "-0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p-1"));
    (Ops.Exp2, Float64, [ F (float_of_string "-0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p-1"));
    (Ops.Exp2, Float32, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.6a09e60000000p+2"));
    (Ops.Exp2, Float64, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.6a09e667f3bcdp+2"));
    (Ops.Exp2, Float32, [ F (float_of_string "-0x1.4000000000000p+1") ], F (float_of_string "0x1.6a09e60000000p-3"));
    (Ops.Exp2, Float64, [ F (float_of_string "-0x1.4000000000000p+1") ], F (float_of_string "0x1.6a09e667f3bcdp-3"));
    (Ops.Exp2, Float32, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "0x1.0000000000000p+100"));
    (Ops.Exp2, Float64, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "0x1.0000000000000p+100"));
    (Ops.Exp2, Float32, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "0x1.002d720000000p+0"));
    (Ops.Exp2, Float64, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "0x1.002d711c79a96p+0"));
    (Ops.Exp2, Float32, [ F (float_of_string "inf") ], F (float_of_string "inf"));
    (Ops.Exp2, Float64, [ F (float_of_string "inf") ], F (float_of_string "inf"));
    (Ops.Exp2, Float32, [ F (float_of_string "-inf") ], F (float_of_string "0x0.0p+0"));
    (Ops.Exp2, Float64, [ F (float_of_string "-inf") ], F (float_of_string "0x0.0p+0"));
    (Ops.Exp2, Float32, [ F nan ], F nan);
    (Ops.Exp2, Float64, [ F nan ], F nan);
    (Ops.Exp2, Float32, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "inf"));
    (Ops.Exp2, Float64, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "inf"));
    (Ops.Exp2, Float32, [ F (float_of_string "-0x1.9000000000000p+7") ], F (float_of_string "0x0.0p+0"));
    (Ops.Exp2, Float64, [ F (float_of_string "-0x1.9000000000000p+7") ], F (float_of_string "0x1.0000000000000p-200"));
    (Ops.Reciprocal, Float32, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "inf"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "inf"));
    (Ops.Reciprocal, Float32, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "-inf"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "-inf"));
    (Ops.Reciprocal, Float32, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Reciprocal, Float32, [ F (float_of_string "-0x1.0000000000000p+0") ], F (float_of_string "-0x1.0000000000000p+0"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "-0x1.0000000000000p+0") ], F (float_of_string "-0x1.0000000000000p+0"));
    (Ops.Reciprocal, Float32, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.99999a0000000p-2"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.999999999999ap-2"));
    (Ops.Reciprocal, Float32, [ F (float_of_string "-0x1.4000000000000p+1") ], F (float_of_string "-0x1.99999a0000000p-2"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "-0x1.4000000000000p+1") ], F (float_of_string "-0x1.999999999999ap-2"));
    (Ops.Reciprocal, Float32, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "0x1.47ae140000000p-7"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "0x1.47ae147ae147bp-7"));
    (Ops.Reciprocal, Float32, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "0x1.f400000000000p+9"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "0x1.f400000000000p+9"));
    (Ops.Reciprocal, Float32, [ F (float_of_string "inf") ], F (float_of_string "0x0.0p+0"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "inf") ], F (float_of_string "0x0.0p+0"));
    (Ops.Reciprocal, Float32, [ F (float_of_string "-inf") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "-inf") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Reciprocal, Float32, [ F nan ], F nan);
    (Ops.Reciprocal, Float64, [ F nan ], F nan);
    (Ops.Reciprocal, Float32, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "0x1.b7cdfe0000000p-34"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "0x1.b7cdfd9d7bdbbp-34"));
    (Ops.Reciprocal, Float32, [ F (float_of_string "-0x1.9000000000000p+7") ], F (float_of_string "-0x1.47ae140000000p-8"));
    (Ops.Reciprocal, Float64, [ F (float_of_string "-0x1.9000000000000p+7") ], F (float_of_string "-0x1.47ae147ae147bp-8"));
    (Ops.Sin, Float32, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Sin, Float64, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Sin, Float32, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Sin, Float64, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "-0x0.0p+0"));
    (Ops.Sin, Float32, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x1.aed5480000000p-1"));
    (Ops.Sin, Float64, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x1.aed548f090ceep-1"));
    (Ops.Sin, Float32, [ F (float_of_string "-0x1.0000000000000p+0") ], F (float_of_string "-0x1.aed5480000000p-1"));
    (Ops.Sin, Float64, [ F (float_of_string "-0x1.0000000000000p+0") ], F (float_of_string "-0x1.aed548f090ceep-1"));
    (Ops.Sin, Float32, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.326af00000000p-1"));
    (Ops.Sin, Float64, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.326af0dcfcab1p-1"));
    (Ops.Sin, Float32, [ F (float_of_string "-0x1.4000000000000p+1") ], F (float_of_string "-0x1.326af00000000p-1"));
    (Ops.Sin, Float64, [ F (float_of_string "-0x1.4000000000000p+1") ], F (float_of_string "-0x1.326af0dcfcab1p-1"));
    (Ops.Sin, Float32, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "-0x1.03425c0000000p-1"));
    (Ops.Sin, Float64, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "-0x1.03425b78c4db8p-1"));
    (Ops.Sin, Float32, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "0x1.0624da0000000p-10"));
    (Ops.Sin, Float64, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "0x1.0624da5218a62p-10"));
    (Ops.Sin, Float32, [ F (float_of_string "inf") ], F nan);
    (Ops.Sin, Float64, [ F (float_of_string "inf") ], F nan);
    (Ops.Sin, Float32, [ F (float_of_string "-inf") ], F nan);
    (Ops.Sin, Float64, [ F (float_of_string "-inf") ], F nan);
    (Ops.Sin, Float32, [ F nan ], F nan);
    (Ops.Sin, Float64, [ F nan ], F nan);
    (Ops.Sin, Float32, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "-0x1.f334c80000000p-2"));
    (Ops.Sin, Float64, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "-0x1.f334c7896a4e3p-2"));
    (Ops.Sin, Float32, [ F (float_of_string "-0x1.9000000000000p+7") ], F (float_of_string "0x1.bf20d20000000p-1"));
    (Ops.Sin, Float64, [ F (float_of_string "-0x1.9000000000000p+7") ], F (float_of_string "0x1.bf20d2c67047fp-1"));
    (Ops.Trunc, Float32, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Trunc, Float64, [ F (float_of_string "0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Trunc, Float32, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Trunc, Float64, [ F (float_of_string "-0x0.0p+0") ], F (float_of_string "0x0.0p+0"));
    (Ops.Trunc, Float32, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Trunc, Float64, [ F (float_of_string "0x1.0000000000000p+0") ], F (float_of_string "0x1.0000000000000p+0"));
    (Ops.Trunc, Float32, [ F (float_of_string "-0x1.0000000000000p+0") ], F (float_of_string "-0x1.0000000000000p+0"));
    (Ops.Trunc, Float64, [ F (float_of_string "-0x1.0000000000000p+0") ], F (float_of_string "-0x1.0000000000000p+0"));
    (Ops.Trunc, Float32, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.0000000000000p+1"));
    (Ops.Trunc, Float64, [ F (float_of_string "0x1.4000000000000p+1") ], F (float_of_string "0x1.0000000000000p+1"));
    (Ops.Trunc, Float32, [ F (float_of_string "-0x1.4000000000000p+1") ], F (float_of_string "-0x1.0000000000000p+1"));
    (Ops.Trunc, Float64, [ F (float_of_string "-0x1.4000000000000p+1") ], F (float_of_string "-0x1.0000000000000p+1"));
    (Ops.Trunc, Float32, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "0x1.9000000000000p+6"));
    (Ops.Trunc, Float64, [ F (float_of_string "0x1.9000000000000p+6") ], F (float_of_string "0x1.9000000000000p+6"));
    (Ops.Trunc, Float32, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "0x0.0p+0"));
    (Ops.Trunc, Float64, [ F (float_of_string "0x1.0624dd2f1a9fcp-10") ], F (float_of_string "0x0.0p+0"));
    (Ops.Trunc, Float32, [ F (float_of_string "inf") ], F (float_of_string "inf"));
    (Ops.Trunc, Float64, [ F (float_of_string "inf") ], F (float_of_string "inf"));
    (Ops.Trunc, Float32, [ F (float_of_string "-inf") ], F (float_of_string "-inf"));
    (Ops.Trunc, Float64, [ F (float_of_string "-inf") ], F (float_of_string "-inf"));
    (Ops.Trunc, Float32, [ F nan ], F nan);
    (Ops.Trunc, Float64, [ F nan ], F nan);
    (Ops.Trunc, Float32, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "0x1.2a05f20000000p+33"));
    (Ops.Trunc, Float64, [ F (float_of_string "0x1.2a05f20000000p+33") ], F (float_of_string "0x1.2a05f20000000p+33"));
    (Ops.Trunc, Float32, [ F (float_of_string "-0x1.9000000000000p+7") ], F (float_of_string "-0x1.9000000000000p+7"));
    (Ops.Trunc, Float64, [ F (float_of_string "-0x1.9000000000000p+7") ], F (float_of_string "-0x1.9000000000000p+7"));
    (Ops.Where, Int32, [ B true; I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "3"));
    (Ops.Where, Int32, [ B false; I (Z.of_string "3"); I (Z.of_string "4") ], I (Z.of_string "4"));
    (Ops.Where, Int32, [ I (Z.of_string "1"); I (Z.of_string "25"); I (Z.of_string "35") ], I (Z.of_string "25"));
    (Ops.Mulacc, Int8, [ I (Z.of_string "3"); I (Z.of_string "4"); I (Z.of_string "5") ], I (Z.of_string "17"));
    (Ops.Mulacc, Int8, [ I (Z.of_string "-3"); I (Z.of_string "4"); I (Z.of_string "5") ], I (Z.of_string "-7"));
    (Ops.Mulacc, Int8, [ I (Z.of_string "100"); I (Z.of_string "100"); I (Z.of_string "1") ], I (Z.of_string "17"));
    (Ops.And, Bool, [ B true; B false ], B false);
    (Ops.Or, Bool, [ B true; B false ], B true);
    (Ops.Xor, Bool, [ B true; B false ], B true);
    (Ops.Cmpne, Bool, [ B true; B false ], B true);
    (Ops.Cmplt, Bool, [ B true; B false ], B false);
    (Ops.Max, Bool, [ B true; B false ], B true);
    (Ops.Add, Bool, [ B true; B false ], B true);
    (Ops.And, Bool, [ B true; B true ], B true);
    (Ops.Or, Bool, [ B true; B true ], B true);
    (Ops.Xor, Bool, [ B true; B true ], B false);
    (Ops.Cmpne, Bool, [ B true; B true ], B false);
    (Ops.Cmplt, Bool, [ B true; B true ], B false);
    (Ops.Max, Bool, [ B true; B true ], B true);
    (Ops.Add, Bool, [ B true; B true ], B true);
    (Ops.And, Bool, [ B false; B false ], B false);
    (Ops.Or, Bool, [ B false; B false ], B false);
    (Ops.Xor, Bool, [ B false; B false ], B false);
    (Ops.Cmpne, Bool, [ B false; B false ], B false);
    (Ops.Cmplt, Bool, [ B false; B false ], B false);
    (Ops.Max, Bool, [ B false; B false ], B false);
    (Ops.Add, Bool, [ B false; B false ], B false);
    (Ops.Add, Int32, [ Invalid; I (Z.of_string "1") ], Invalid) ]

end

let pp_c = function Dtype.F f -> Printf.sprintf "F %s" (Dtype.float_repr f) | c -> Dtype.const_to_string c

let exec_alu_tests = [
  ("exec_alu_table", fun () ->
      List.iter (fun (op, dt, operands, e) ->
          let what = Printf.sprintf "exec_alu(%s, %s, [%s])" (Ops.to_string op) (Dtype.to_string dt)
              (String.concat ", " (List.map pp_c operands)) in
          match Uop.exec_alu op dt operands with
          | r -> check_eq ~pp:pp_c ~eq:Dtype.equal_const ~what e r
          | exception ex -> fail "%s raised %s" what (Printexc.to_string ex)) Alu_oracle.exec_alu_table);
  ("exec_alu_no_truncate", fun () ->
      let r = Uop.exec_alu ~truncate_output:false Ops.Add Dtype.Int8 [ Dtype.I (Z.of_int 100); Dtype.I (Z.of_int 100) ] in
      check_eq ~pp:pp_c ~eq:Dtype.equal_const ~what:"100+100 untruncated" (Dtype.I (Z.of_int 200)) r);
]

(* ---------- pretty_print: python repr(u) ---------- *)

let param46 =
  Uop.create Ops.Param ~src:[| Uop.shape_to_shape_arg [ si 4; si 6 ] |]
    ~arg:(Uop.Param { Uop.default_param with slot = 0; pdtype = Dtype.Float32 })

let pretty_cases () =
  let open Uop.O in
  let a = Uop.variable_int "a" 0 10 in
  [ ("var_add", a + k 1,
     "UOp(Ops.ADD, dtypes.weakint, arg=None, src=(\n  UOp(Ops.BUFFER, dtypes.weakint, arg=ParamArg(-1, dtypes.weakint, vmin_vmax=(0, 10), multiple_of=1, name='a', addrspace=AddrSpace.ALU), src=(\n    UOp(Ops.STACK, dtypes.void, arg=None, src=()),)),\n  UOp(Ops.CONST, dtypes.weakint, arg=1, src=()),))");
    ("float_const", f 1.5 * f (-0.0),
     "UOp(Ops.MUL, dtypes.weakfloat, arg=None, src=(\n  UOp(Ops.CONST, dtypes.weakfloat, arg=ConstFloat(1.5), src=()),\n  UOp(Ops.CONST, dtypes.weakfloat, arg=ConstFloat(-0.0), src=()),))");
    ("shared", (a + a) * (a + a),
     "UOp(Ops.MUL, dtypes.weakint, arg=None, src=(\n  x0:=UOp(Ops.ADD, dtypes.weakint, arg=None, src=(\n    x1:=UOp(Ops.BUFFER, dtypes.weakint, arg=ParamArg(-1, dtypes.weakint, vmin_vmax=(0, 10), multiple_of=1, name='a', addrspace=AddrSpace.ALU), src=(\n      UOp(Ops.STACK, dtypes.void, arg=None, src=()),)),\n    x1,)),\n  x0,))");
    ("range", rng 4 0 + rng ~axis_type:Uop.Reduce 8 1,
     "UOp(Ops.ADD, dtypes.weakint, arg=None, src=(\n  UOp(Ops.RANGE, dtypes.weakint, arg=(0, AxisType.WEAK), src=(\n    UOp(Ops.CONST, dtypes.weakint, arg=4, src=()),)),\n  UOp(Ops.RANGE, dtypes.weakint, arg=(1, AxisType.REDUCE), src=(\n    UOp(Ops.CONST, dtypes.weakint, arg=8, src=()),)),))");
    ("reduce", Uop.create Ops.Reduce ~dtype:Dtype.Float32 ~src:[| param46; rng ~axis_type:Uop.Reduce 4 0 |]
       ~arg:(Uop.Reduce_arg (Ops.Add, 1)),
     "UOp(Ops.REDUCE, dtypes.float, arg=(Ops.ADD, 1), src=(\n  UOp(Ops.PARAM, dtypes.float, arg=ParamArg(0, dtypes.float), src=(\n    UOp(Ops.STACK, dtypes.weakint, arg=None, src=(\n      x2:=UOp(Ops.CONST, dtypes.weakint, arg=4, src=()),\n      UOp(Ops.CONST, dtypes.weakint, arg=6, src=()),)),)),\n  UOp(Ops.RANGE, dtypes.weakint, arg=(0, AxisType.REDUCE), src=(\n    x2,)),))");
    ("cast_tag", Uop.rtag ~tag:(Uop.Int 1) (Uop.cast Dtype.Int32 a),
     "UOp(Ops.CAST, dtypes.int, arg=dtypes.int, tag=1, src=(\n  UOp(Ops.BUFFER, dtypes.weakint, arg=ParamArg(-1, dtypes.weakint, vmin_vmax=(0, 10), multiple_of=1, name='a', addrspace=AddrSpace.ALU), src=(\n    UOp(Ops.STACK, dtypes.void, arg=None, src=()),)),))");
    ("special", Uop.special (si 8) "gidx0",
     "UOp(Ops.SPECIAL, dtypes.weakint, arg='gidx0', src=(\n  UOp(Ops.CONST, dtypes.weakint, arg=8, src=()),))");
    ("permute", Uop.create Ops.Permute ~dtype:Dtype.Float32 ~src:[| param46 |] ~arg:(Uop.Ints [ 1; 0 ]),
     "UOp(Ops.PERMUTE, dtypes.float, arg=(1, 0), src=(\n  UOp(Ops.PARAM, dtypes.float, arg=ParamArg(0, dtypes.float), src=(\n    UOp(Ops.STACK, dtypes.weakint, arg=None, src=(\n      UOp(Ops.CONST, dtypes.weakint, arg=4, src=()),\n      UOp(Ops.CONST, dtypes.weakint, arg=6, src=()),)),)),))");
    ("bool_inv", Uop.alu Ops.Where [ Uop.const_bool true; k 1; Uop.invalid () ],
     "UOp(Ops.WHERE, dtypes.weakint, arg=None, src=(\n  UOp(Ops.CONST, dtypes.bool, arg=True, src=()),\n  UOp(Ops.CONST, dtypes.weakint, arg=1, src=()),\n  UOp(Ops.CONST, dtypes.bool, arg=Invalid, src=()),))");
    ("fvar", Uop.variable ~dtype:Dtype.Float32 "f" (Dtype.F (-1.5)) (Dtype.F 2.5),
     "UOp(Ops.BUFFER, dtypes.float, arg=ParamArg(-1, dtypes.float, vmin_vmax=(-1.5, 2.5), multiple_of=1, name='f', addrspace=AddrSpace.ALU), src=(\n  UOp(Ops.STACK, dtypes.void, arg=None, src=()),))");
    ("param_named", Uop.create Ops.Param ~src:[| k 1 |]
       ~arg:(Uop.Param { Uop.default_param with slot = 3; pdtype = Dtype.Int32; name = Some "n"; multiple_of = Some 4 }),
     "UOp(Ops.PARAM, dtypes.int, arg=ParamArg(3, dtypes.int, multiple_of=4, name='n'), src=(\n  UOp(Ops.CONST, dtypes.weakint, arg=1, src=()),))") ]

let pretty_tests =
  List.map (fun (name, u, e) -> ("pretty_print_" ^ name, fun () -> check_str ~what:name e (Uop.pretty_print u)))
    (pretty_cases ())

let tests : case list =
  render_tests @ hash_consing_tests @ toposort_tests @ shape_tests @ dtype_tests @ exec_alu_tests @ pretty_tests
