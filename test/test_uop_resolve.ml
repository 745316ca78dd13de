(* Port of tinygrad test/null/test_uop_resolve.py (all cases). python's int(u)/float(u)/bool(u) are
   Uop.to_int/to_float/to_bool; its ValueError is Invalid_argument here. *)

open Tinygrad.Compiler
open Test_util

let i = Uop.O.i
let f = Uop.O.f
let var ?dtype name lo hi = Uop.variable_int ?dtype name lo hi
let bvar name = Uop.variable ~dtype:Dtype.Bool name (Dtype.B false) (Dtype.B true)
let check_true ~what u = check_bool ~what true (Uop.to_bool u)
let check_false ~what u = check_bool ~what false (Uop.to_bool u)
let check_raises ~what u = check_invalid_arg ~what (fun () -> Uop.to_bool u)
let check_float ~what e a = check_eq ~pp:Dtype.float_repr ~eq:Float.equal ~what e a

(* python: 9 / UOp.const(4, dtypes.float) is MUL(weakfloat 9.0, RECIPROCAL(4.0)) (ElementwiseMixin.div) *)
let rtruediv (x : float) d = Uop.alu Ops.Mul [ f x; Uop.reciprocal d ]

open Uop.O

let tests : case list = [
  ("simple_int", fun () -> check_int ~what:"int" 4 (Uop.to_int (Uop.const_int ~dtype:Dtype.Int32 4)));
  ("weak_const", fun () ->
      check_int ~what:"int" 5 (Uop.to_int (i 5));
      check_float ~what:"float" 1.5 (Uop.to_float (f 1.5)));
  ("int_add", fun () -> check_int ~what:"int" 11 (Uop.to_int (Uop.const_int ~dtype:Dtype.Int32 4 + i 7)));
  ("lt", fun () -> check_true ~what:"4 < 7" (i 4 < i 7));
  ("rfloordiv", fun () -> check_int ~what:"8 // 4" 2 (Uop.to_int (i 8 // Uop.const_int ~dtype:Dtype.Int32 4)));
  ("rtruediv", fun () ->
      check_float ~what:"9 / 4.0" 2.25 (Uop.to_float (rtruediv 9.0 (Uop.const_float ~dtype:Dtype.Float32 4.0))));
  ("leq", fun () -> check_true ~what:"4 <= 4" (i 4 <= i 4));
  ("ne", fun () -> check_true ~what:"4 != 7" (i 4 <> i 7));
  ("ne_f", fun () -> check_false ~what:"4 != 4" (i 4 <> i 4));
  ("ngt", fun () -> check_false ~what:"4 > 7" (i 4 > i 7));
  ("ssimplify", fun () ->
      let is_const_int n u =
        u.Uop.op == Ops.Const && (match u.Uop.arg with Uop.Const (Dtype.I z) -> Z.equal z (Z.of_int n) | _ -> false) in
      let u = Uop.ssimplify (i 8 mod i 4) in
      check (is_const_int 0 u) "8 %% 4 should ssimplify to 0, got %s" (Uop.pretty_print u);
      let u = Uop.ssimplify (i 8 * i 4) in
      check (is_const_int 32 u) "8 * 4 should ssimplify to 32, got %s" (Uop.pretty_print u));
  ("ambiguous_less_than", fun () ->
      let u = var "i" 1 10 in
      check_bool ~what:"resolve(u < 4)" true (Uop.resolve (u < i 4));
      check_bool ~what:"resolve(u < 4, False)" false (Uop.resolve ~default:false (u < i 4));
      check_bool ~what:"resolve(u < 11, False)" true (Uop.resolve ~default:false (u < i 11));
      check_bool ~what:"resolve(u < -1, False)" false (Uop.resolve ~default:false (u < i (-1)));
      check_bool ~what:"resolve(u < -1, True)" false (Uop.resolve ~default:true (u < i (-1))));
  ("float_direct", fun () ->
      check_float ~what:"4.5 + 7" 11.5 (Uop.to_float (Uop.const_float ~dtype:Dtype.Float32 4.5 + i 7)));
  ("var_cmp_t", fun () -> check_true ~what:"i < 20" (var "i" 1 10 < i 20));
  ("var_cmp_t2", fun () -> check_true ~what:"i//2 < 20" ((var "i" 1 10 // i 2) < i 20));
  ("var_cmp_f", fun () -> check_false ~what:"i < 1" (var "i" 1 10 < i 1));
  ("var_cmp_f2", fun () -> check_false ~what:"i > 11" (var "i" 1 10 > i 11));
  ("or_true", fun () -> check_true ~what:"b | True" (bvar "b" lor b true));
  ("or_false", fun () -> check_raises ~what:"b | False" (bvar "b" lor b false));
  ("and_false", fun () -> check_false ~what:"b & False" (bvar "b" land b false));
  ("max", fun () ->
      let x = var "x" 1 10 and y = var "y" 5 10 in
      let u = Uop.maximum x y in
      check_true ~what:"max < 20" (u < i 20);
      check_false ~what:"max < 3" (u < i 3));
  ("x_lt_x", fun () -> let x = var "i" 1 10 in check_false ~what:"x < x" (x < x));
  ("x_lt_xp1", fun () ->
      let x = var "i" 1 10 in
      (* TODO upstream: improve *)
      check_raises ~what:"x < x+1" (x < x + i 1));
  ("and_true", fun () -> check_raises ~what:"b & True" (bvar "b" land b true));
  ("var_cmp_range", fun () ->
      let v = var "i" 1 10 in
      (* TODO upstream: improve *)
      check_raises ~what:"(v > 4) | (v < 6)" ((v > i 4) lor (v < i 6)));
  ("var_cmp_assert", fun () -> check_raises ~what:"i < 5" (var "i" 1 10 < i 5));
  ("plus_ordering_lt", fun () ->
      let i_ = var "i" 1 10 and j = var "j" 1 10 in
      check_false ~what:"(i+j) < (j+i)" ((i_ + j) < (j + i_)));
]
