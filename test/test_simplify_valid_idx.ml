(* Port of tinygrad's test/null/test_simplify_valid_idx.py (40 cases).

   Oracles: tinygrad's expected strings (evaluated as Python by Expr_parser, canonicalised with
   [commutative] and compared by identity, as check_uop_against_string does) and its expected renders.

   Deviations:
   - TestValidIdxSimplification.test_valid_becomes_const1_z3 only asks z3 whether two hand-written integer
     expressions agree on the ranges' domain; it uses no tinygrad code. Without z3 it is ported as an
     exhaustive evaluation over that (420-point) domain.
   - TestValidIdxSimplification.test_from_merge_views is @unittest.expectedFailure in tinygrad: it passes
     here when the check fails, and fails on an unexpected success.
   - The cases that call [full_rewrite] (the 8 TestRangeShrink cases and
     TestImageSimplification.test_valid_empty_set) are in [test_full_rewrite]; they use
     [Tg_helpers.full_rewrite_noopt], tinygrad's [full_rewrite(sink)] under [Context(NOOPT=1, SPEC=0)]. *)

open Tinygrad.Compiler
open Test_util
module P = Upat
module E = Expr_parser
open Sym_check

let t_ = Uop.const_bool true

(* ---------- tinygrad's test helpers ---------- *)

(* symbolic-only idx + valid simplification (no late lowering of FLOORDIV/FLOORMOD) *)
let pm_simplify_valid_idx = P.( @@@ ) Symbolic.sym Symbolic.pm_move_where_on_load
let simplify_valid_idx sink = P.graph_rewrite ~name:"simplify_valid_idx" pm_simplify_valid_idx () sink

(* image-aware idx + valid simplification: adds the codegen-layer matcher that drops provably in-bounds gates *)
let pm_simplify_image_idx = P.( @@@ ) pm_simplify_valid_idx Coalesce.indexing_simplify
let simplify_image_idx sink = P.graph_rewrite ~name:"simplify_image_idx" pm_simplify_image_idx () sink

let param slot dt shape = Uop.param ~shape:(List.map (fun n -> Uop.Sint n) shape) slot dt

let get_gated_load_uop (valid : Uop.t) (idx : Uop.t) =
  Uop.load (Uop.index (param 0 Dtype.Float32 [ 1024 ]) [ Uop.valid idx valid ]) []

let get_load_image_uop (image_shape : int list) (valid : Uop.t) ((idx0, idx1) : Uop.t * Uop.t) =
  Uop.load (Uop.index (param 0 Dtype.Float32 image_shape) [ Uop.valid idx1 valid; Uop.valid idx0 valid ]) []

let special expr nmax = Uop.special (Uop.Sint nmax) expr
let variable expr nmin nmax = Uop.variable_int ~param:true expr nmin nmax
let range n nmax = Uop.range (Uop.Sint nmax) n

let check_none ~what = function None -> () | Some u -> fail "%s: expected None, got %s" what (render u)
let check_some ~what = function Some u -> u | None -> fail "%s: expected a result, got None" what
let check_is ~what (a : Uop.t) (b : Uop.t) = if a != b then fail "%s: %s is not %s" what (render a) (render b)

(* itertools.permutations, in its order *)
let rec permutations = function
  | [] -> [ [] ]
  | l ->
    List.concat (List.mapi (fun k x ->
        let rest = List.filteri (fun j _ -> j <> k) l in
        List.map (fun p -> x :: p) (permutations rest)) l)

(* ---------- TestValidIdxSimplification ---------- *)

let check_valid_idx ?(extra = []) load sidx svalid =
  let load = (simplify_valid_idx (Uop.sink (load :: extra))).src.(0) in
  let off = load.src.(0).src.(1) in
  check_uop_against_string (Uop.get_idx off) sidx;
  check_uop_against_string (Uop.get_valid off) svalid

let test_valid_idx_simplification = [
  ("TestValidIdxSimplification.test_cumsum", fun () ->
      let gidx0 = special "gidx0" 5 in
      let lidx0 = special "lidx0" 4 in
      let gate = O.((gidx0 * i 4 + lidx0 < i 19) <> t_) in
      let idx = O.(gidx0 * i 4 + lidx0 - i 19) in
      let load = get_gated_load_uop gate idx in
      check_valid_idx load "0" "(((lidx0+(gidx0*4))<19)!=True)");
  ("TestValidIdxSimplification.test_simplify_within_valid1", fun () ->
      let ridx0 = range 0 4 and ridx1 = range 1 4 and ridx2 = range 2 4 and ridx3 = range 3 4 in
      let valid = O.((ridx0 * i 3 + ridx1 < i 8) land (((ridx0 * i 3 + ridx1) / i 8 + ridx2 * i 3 + ridx3) mod i 4 < i 2)) in
      let idx = O.(ridx0 + ridx1 + ridx2 + ridx3) in
      let load = get_gated_load_uop valid idx in
      check_valid_idx load "(((r0+r1)+r2)+r3)" "((((r0*3)+r1)<8)&((((r2*3)+r3)%4)<2))");
  ("TestValidIdxSimplification.test_simplify_within_valid2", fun () ->
      let gidx0 = special "gidx0" 56 in
      let ridx0 = range 0 3 in
      let alu0 = O.(gidx0 + ridx0) in
      let valid = O.((alu0 < i 57) land (alu0 >= i 1)) in
      check_none ~what:"simplify_valid" (Symbolic.simplify_valid valid));
  ("TestValidIdxSimplification.test_valid_order_matters1", fun () ->
      let ridx0 = range 0 2 in
      let v0 = O.(ridx0 < i 1) in
      let v1 = O.((ridx0 * i 5 + i 1) mod i 6 < i 5) in
      check_str ~what:"v0&v1" "(r0<1)" (Render.render (check_some ~what:"v0&v1" (Symbolic.simplify_valid O.(v0 land v1))));
      check_str ~what:"v1&v0" "(r0<1)" (Render.render (check_some ~what:"v1&v0" (Symbolic.simplify_valid O.(v1 land v0)))));
  ("TestValidIdxSimplification.test_valid_order_matters2", fun () ->
      let gidx0 = special "gidx0" 13 and gidx1 = special "gidx1" 13 in
      let ridx0 = range 0 4 in
      let alu0 = O.(gidx1 + ridx0 * i 13) in
      let v0 = O.((gidx0 + i 11) mod i 14 < i 11) in
      let v1 = O.((alu0 + (gidx0 + i 39) / i 42) mod i 14 < i 11) in
      let v2 = O.(gidx0 < i 3) in
      let v3 = O.(alu0 < i 42) in
      List.iter (fun v ->
          match v with
          | [ a; b; c; d ] ->
            let r = Symbolic.simplify_valid O.(a land b land c land d) in
            check_str ~what:"permutation" "False" (Render.render (check_some ~what:"permutation" r))
          | _ -> assert false) (permutations [ v0; v1; v2; v3 ]));
  ("TestValidIdxSimplification.test_simplify_valid_from_div", fun () ->
      let x = variable "x" (-100) 100 in
      let valid = O.((x < i 0) land Uop.cast Dtype.Bool (i 100 mod x)) in
      (* NOTE: this simplifies the (100%x) part somehow, still has two clauses *)
      ignore (check_some ~what:"simplify_valid" (Symbolic.simplify_valid valid));
      check_int ~what:"clauses" 2 (List.length (Uop.split_uop valid Ops.And)));
  ("TestValidIdxSimplification.test_from_merge_views (expected failure)", fun () ->
      (* @unittest.expectedFailure  # TODO: fix *)
      let ridx0 = range 0 2 and ridx2 = range 2 2 and ridx3 = range 3 2 in
      let idx = O.(ridx0 * i 2 + (ridx2 * i 2 + ridx3 * i 3 + i 3) mod i 4 + i (-2)) in
      let valid = O.(((ridx2 * i 2 + ridx3 * i 3 + i 3) mod i 4 < i 2) <> t_) in
      let load = get_gated_load_uop valid idx in
      match check_valid_idx load "(((r0*2)+(r3*-1))+1)" "(r2<1)" with
      | () -> fail "unexpected success"
      | exception Failed _ -> ());
  ("TestValidIdxSimplification.test_load_in_valid", fun () ->
      (* from FUSE_ARANGE=1 python test/test_ops.py TestOps.test_scatter_add; can lead to OOB *)
      let ridx2 = range 2 4 in
      let lidx0 = special "lidx0" 3 and gidx0 = special "gidx0" 2 in
      let idx = O.(lidx0 + gidx0 * i 3 + ridx2 * i 5 + i 40) in
      let valid = O.(lidx0 + gidx0 * i 3 < i 5) in
      let val7 = get_gated_load_uop valid idx in
      let valid2 = O.(valid land Uop.logical_not (Uop.cast Dtype.Bool val7)) in
      check_none ~what:"simplify_valid" (Symbolic.simplify_valid valid2));
  ("TestValidIdxSimplification.test_valid_becomes_const1", fun () ->
      (* from DSP mobilenetv2 *)
      let ridx0 = range 0 30 and ridx1 = range 1 7 and ridx2 = range 2 2 in
      let alu11 = O.(ridx1 + ridx2) in
      let alu15 = O.((alu11 + i 1) / i 7) in
      let idx = O.(alu15 * i (-31) + ((alu11 + i 218) / i 224 + ridx0) mod i 30 * i 1568) in
      let valid = O.((ridx2 < i 1) land (ridx1 < i 6)) in
      let load = get_gated_load_uop valid idx in
      (* prevent ridx1 and ridx2 from being shrunk *)
      let red = Uop.reduce ~arg:Ops.Add load [ ridx1; ridx2 ] in
      check_valid_idx ~extra:[ red ] load "(r0*1568)" "((r2<1)&(r1<6))");
  ("TestValidIdxSimplification.test_valid_becomes_const1_z3", fun () ->
      (* z3 in tinygrad; here an exhaustive check over 0<=ridx0<30, 0<=ridx1<7, 0<=ridx2<2 (all values
         are non-negative, so z3's integer / and % are floor division and modulo) *)
      let load_at r0 r1 r2 f =
        let alu11 = r1 + r2 in
        let alu15 = (alu11 + 1) / 7 in
        let idx = (alu15 * -31) + ((((alu11 + 218) / 224) + r0) mod 30 * 1568) in
        let valid = r2 < 1 && r1 < 6 in
        (if valid then idx else 0), (if valid then f r0 r1 else 0) in
      let equivalent f =
        let ok = ref true in
        for r0 = 0 to 29 do for r1 = 0 to 6 do for r2 = 0 to 1 do
              let a, b = load_at r0 r1 r2 f in if a <> b then ok := false
            done done done;
        !ok in
      (* correct simplification *)
      check (equivalent (fun r0 _ -> r0 * 1568)) "The expressions are not equivalent.";
      (* a wrong simplified expression *)
      check (not (equivalent (fun r0 r1 -> (r0 * 1567) + r1))) "The expressions are equivalent??");
  ("TestValidIdxSimplification.test_valid_becomes_const2", fun () ->
      let ridx0 = range 0 4 and ridx1 = range 1 4 and ridx2 = range 2 4 and ridx3 = range 3 4 in
      (* TODO: this should also work without the extra nesting *)
      let idx = O.((ridx0 + ridx1 + (ridx2 + ridx3) + i 28) / i 30) in
      let valid = O.((ridx0 + ridx1 < i 1 <> t_) land (ridx2 + ridx3 < i 1 <> t_)) in
      let load = get_gated_load_uop valid idx in
      check_valid_idx load "1" "((((r0+r1)<1)!=True)&(((r2+r3)<1)!=True))");
  ("TestValidIdxSimplification.test_valid_with_non_const_rhs", fun () ->
      let ridx0 = range 0 1024 and ridx1 = range 1 4 and ridx2 = range 2 4 in
      let valid = O.((ridx0 < ridx1 * i 4 + ridx2) land (ridx0 < i (-1) <> t_)) in
      let idx = ridx0 in
      let load = get_gated_load_uop valid idx in
      check_valid_idx load "r0" "(r0<((r1*4)+r2))");
]

(* ---------- TestImageSimplification ---------- *)

let check_image load (svalid : string option) sidx0 sidx1 =
  let load = (simplify_image_idx (Uop.sink [ load ])).src.(0) in
  let off = load.src.(0) in
  check_int ~what:"len(off.src)" 3 (Array.length off.src);
  let idx0, idx1 = (Uop.get_idx off.src.(2), Uop.get_idx off.src.(1)) in
  check_uop_against_string idx0 sidx0;
  check_uop_against_string idx1 sidx1;
  check_is ~what:"valids of both coordinates" (Uop.get_valid off.src.(1)) (Uop.get_valid off.src.(2));
  match svalid with
  | Some s -> check_uop_against_string (Uop.get_valid off.src.(1)) s
  | None ->
    if Uop.get_valid off.src.(1) != t_ then
      fail "svalid is None but valid is not True: %s" (render (Uop.get_valid off.src.(1)))

(* Python's [try: check(a) except AssertionError: check(b)] *)
let check_image_or_else first second =
  match first () with () -> () | exception Failed _ -> second ()

let test_image_simplification = [
  ("TestImageSimplification.test_idx_gt_c", fun () ->
      (* (idx1 < c+1).ne(True) ? (..., idx1-1+c) : 0 can drop the valid *)
      let gidx0 = special "gidx0" 32 and gidx1 = special "gidx1" 32 in
      let shape = [ 10; 10; 4 ] in
      let load = get_load_image_uop shape O.(gidx1 < i 1 <> t_) (gidx0, O.(gidx1 - i 1)) in
      check_image load None "gidx0" "(gidx1+-1)";
      let load = get_load_image_uop shape O.(gidx1 < i 1 <> t_) (gidx0, O.(gidx1 - i 2)) in
      check_image load None "gidx0" "(gidx1+-2)";
      (* should match any one of the AND clause and drop the matched statement from valid *)
      let valid = O.((gidx0 < i 1 <> t_) land (gidx1 < i 1 <> t_)) in
      let load = get_load_image_uop shape valid (O.(gidx0 + i 1), O.(gidx1 - i 1)) in
      check_image load (Some "((gidx0<1)!=True)") "(gidx0+1)" "(gidx1+-1)";
      let valid = O.((gidx0 < i 1 <> t_) land (gidx1 < i 1 <> t_)) in
      let load = get_load_image_uop shape valid (gidx0, O.(gidx1 - i 1)) in
      check_image load (Some "((gidx0<1)!=True)") "gidx0" "(gidx1+-1)");
  ("TestImageSimplification.test_idx_lt_bound", fun () ->
      (* (idx1 < image_bound) ? (..., idx1) : 0 can drop the valid *)
      let gidx0 = special "gidx0" 32 and gidx1 = special "gidx1" 32 in
      let load = get_load_image_uop [ 10; 10; 4 ] O.(gidx1 < i 10) (gidx0, gidx1) in
      check_image load None "gidx0" "gidx1";
      (* same thing, valid has a div *)
      let load = get_load_image_uop [ 10; 10; 4 ] O.(gidx1 / i 2 < i 5) (gidx0, gidx1) in
      check_image load None "gidx0" "gidx1";
      (* 10x20 image, not out of bound *)
      let load = get_load_image_uop [ 20; 10; 4 ] O.(gidx1 < i 10) (gidx0, gidx1) in
      check_image load (Some "(gidx1<10)") "gidx0" "gidx1");
  ("TestImageSimplification.test_generic_idx_lt_bound", fun () ->
      (* (idx1 < image_bound - c) ? (..., idx1 + c) : 0 can drop the valid *)
      let gidx0 = special "gidx0" 32 and gidx1 = special "gidx1" 32 in
      let shape = [ 10; 10; 4 ] in
      let load = get_load_image_uop shape O.(gidx1 < i 8) (gidx0, O.(gidx1 + i 2)) in
      check_image load None "gidx0" "(gidx1+2)";
      let load = get_load_image_uop shape O.(gidx1 < i 5) (gidx0, O.(gidx1 + i 5)) in
      check_image load None "gidx0" "(gidx1+5)");
  ("TestImageSimplification.test_openpilot_conv1", fun () ->
      (* first conv in openpilot *)
      let idx1 = special "idx1" 32 and idx2 = special "idx2" 64 in
      let ridx0 = range 0 6 and ridx1 = range 1 3 and ridx2 = range 2 3 in
      let alu1 = O.(idx2 * i 2 + ridx1) in
      let alu4 = O.(idx1 * i 48 + ridx2 * i 6 + ridx0) in
      let valid = O.((idx2 * i 2 + ridx1 < i 1 <> t_) land (idx1 * i 8 + ridx2 < i 1 <> t_)) in
      let shape = [ 128; 1536; 4 ] in
      let idx = (O.((alu4 + i 1530) mod i 1536), O.(alu1 + (idx1 + (ridx2 + i 7) / i 8 + i 31) / i 32 + i (-2))) in
      let load = get_load_image_uop shape valid idx in
      check_image load None "((((idx1*48)+(r2*6))+r0)+-6)" "(((idx2*2)+r1)+-1)");
  ("TestImageSimplification.test_openpilot_conv2", fun () ->
      (* conv in test/external/external_test_valid_remove.py *)
      let idx1 = special "idx1" 32 and idx2 = special "idx2" 64 in
      let ridx0 = range 0 3 and ridx1 = range 1 3 and ridx2 = range 2 3 in
      let alu1 = O.(idx2 * i 2 + ridx1) in
      let alu3 = O.(idx1 * i 24 + ridx2 * i 3 + ridx0) in
      let valid = O.((idx2 * i 2 + ridx1 < i 1 <> t_) land (idx1 * i 8 + ridx2 < i 1 <> t_)) in
      let shape = [ 128; 768; 4 ] in
      let idx = (O.((alu3 + i 765) mod i 768), O.(alu1 + (idx1 + (ridx2 + i 7) / i 8 + i 31) / i 32 + i (-2))) in
      let load = get_load_image_uop shape valid idx in
      check_image load None "((((idx1*24)+(r2*3))+r0)+-3)" "(((idx2*2)+r1)+-1)");
  ("TestImageSimplification.test_openpilot_conv3", fun () ->
      (* in openpilot 0.9.7 *)
      let idx0 = special "idx0" 64 and idx1 = special "idx1" 2 and idx2 = special "idx2" 4 in
      let ridx0 = range 0 7 and ridx1 = range 1 7 in
      let alu2 = O.(idx2 * i 2 + ridx0) in
      let alu4 = O.(idx1 * i 8 + ridx1) in
      let alu6 = O.(idx1 * i 512 + ridx1 * i 64 + idx0) in
      let valid = O.((alu2 < i 11) land (alu4 < i 3 <> t_)) in
      let shape = [ 8; 1024; 4 ] in
      let idx = (O.((alu6 + i 832) mod i 1024), O.(alu2 + (idx1 + (ridx1 + i 5) / i 8 + i 1) / i 2 + i (-4))) in
      let load = get_load_image_uop shape valid idx in
      check_image load (Some "(((idx2*2)+r0)<11)") "(idx0+(idx1*512+r1*64)+-192)"
        "((((idx2*2)+r0)+(((idx1+((r1+5)//8))+1)//2))+-4)");
  ("TestImageSimplification.test_simplify1", fun () ->
      (* idx has the form (A % m, A // m + k) and valid has (c0 < A) and (A < c1) *)
      let gidx = special "gidx" 512 in
      let valid = O.((gidx < i 488) land (gidx < i 480 <> t_)) in
      let idx = (O.((gidx * i 3 + i 18) mod i 26), O.((gidx * i 3 + i 18) / i 26 - i 56)) in
      let load = get_load_image_uop [ 1; 26; 4 ] valid idx in
      check_image load None "((gidx*3)+-1438)" "0");
  ("TestImageSimplification.test_simplify2", fun () ->
      (* from DEV=CL DEBUG=4 FORWARD_ONLY=1 IMAGE=2 python3 test/test_ops.py TestOps.test_simple_padding_conv2d *)
      let lidx = special "lidx" 4 in
      let valid = O.((lidx < i 3) land (lidx < i 1 <> t_)) in
      let idx = (O.((lidx + i 1) mod i 2), O.((lidx + i 1) / i 2 - i 1)) in
      let load = get_load_image_uop [ 1; 2; 4 ] valid idx in
      check_image load None "(lidx+-1)" "0");
  ("TestImageSimplification.test_simplify3", fun () ->
      (* from openpilot *)
      let idx0 = special "idx0" 265 in
      let valid = O.(idx0 < i 201 <> t_) in
      let idx = (O.((idx0 + i 55) mod i 64), O.((idx0 + i 55) / i 64 - i 4)) in
      let load = get_load_image_uop [ 1; 64; 4 ] valid idx in
      check_image load None "(idx0+-201)" "0");
  ("TestImageSimplification.test_simplify4", fun () ->
      let idx0 = special "idx0" 512 in
      let shape = [ 4; 64; 4 ] in
      let alu2 = O.((idx0 * i 4 + i 1) mod i 32) in
      let alu3 = O.((idx0 * i 4 + i 2) mod i 32) in
      let alu4 = O.((idx0 * i 4 + i 3) mod i 32) in
      let alu5 = O.(idx0 * i 4 mod i 32) in
      let alu8 = O.(idx0 / i 8 mod i 32 / i 4) in
      let alu9 = O.(idx0 < i 256) in
      let load = get_load_image_uop shape alu9 (O.((alu8 + alu2 * i 8) mod i 64), O.(alu2 / i 8)) in
      check_image load (Some "(idx0<256)") "(idx0%2*32+idx0//32+8)" "(idx0//2%4)";
      let load = get_load_image_uop shape alu9 (O.((alu8 + alu3 * i 8) mod i 64), O.(alu3 / i 8)) in
      check_image load (Some "(idx0<256)") "(idx0%2*32+idx0//32+16)" "(idx0//2%4)";
      let load = get_load_image_uop shape alu9 (O.((alu8 + alu4 * i 8) mod i 64), O.(alu4 / i 8)) in
      check_image load (Some "(idx0<256)") "(idx0%2*32+idx0//32+24)" "(idx0//2%4)";
      let load = get_load_image_uop shape alu9 (O.((alu8 + alu5 * i 8) mod i 64), O.(alu5 / i 8)) in
      check_image load (Some "(idx0<256)") "(idx0%2*32+idx0//32)" "(idx0//2%4)");
  ("TestImageSimplification.test_simplify5", fun () ->
      (* openpilot 0.9.7, chunk replacement to simplify *)
      let shape = [ 10; 384; 4 ] in
      let idx0 = special "idx0" 16 and idx1 = special "idx1" 24 in
      let alu0 = O.(idx0 * i 4) in
      let alu1 = O.(idx1 * i 256 + alu0) in
      let alu2 = O.(idx1 / i 3) in
      let alu3 = O.((alu1 + i 1) mod i 768) in
      let idx = (O.(idx0 + ((alu3 / i 640 + alu2) mod i 8) * i 16 + i 128), O.(alu3 / i 64 mod i 10)) in
      let valid = O.(alu3 < i 640) in
      let load = get_load_image_uop shape valid idx in
      check_image load None "((idx0+((idx1//3)*16))+128)" "((idx1%3)*4)");
  ("TestImageSimplification.test_simplify6", fun () ->
      (* from openpilot; the valid implies the numerator of the div/mod is positive and can be simplified
         with floordiv rules *)
      let idx1 = special "idx1" 16 and idx2 = special "idx2" 64 in
      let ridx3 = range 3 3 and ridx4 = range 4 3 and ridx5 = range 5 3 in
      let a = O.(idx2 * i 1536 + ridx4 * i 768 + ridx3 + idx1 * i 24 + ridx5 * i 3 + i (-771)) in
      let alu0 = O.(a mod i 768) in
      let alu1 = O.(a / i 768) in
      let valid = O.((idx2 + ridx4 < i 1 <> i 1) land (idx1 + ridx5 < i 1 <> i 1)) in
      let load = get_load_image_uop [ 128; 768; 4 ] valid (alu0, alu1) in
      check_image load None "((((idx1*24)+(r5*3))+r3)+-3)" "(((idx2*2)+r4)+-1)");
  ("TestImageSimplification.test_simplify7", fun () ->
      (* DEBUG=2 ... IMAGE=2 python examples/openpilot/compile3.py ..., kernel 143 *)
      let gidx0 = special "gidx0" 32 and lidx0 = special "lidx0" 16 and lidx1 = special "lidx1" 8 in
      let r0 = range 0 7 in
      let a () = O.(lidx0 * i 128 + r0 * i 64 + lidx1 * i 8 + i (-183)) in
      let alu0 = O.((gidx0 * i 2 + a () mod i 64 * i 64 + a () / i 64 mod i 32 * i 4096 + i 1) / i 4 mod i 1024) in
      let alu1 = O.((gidx0 * i 2 + a () mod i 64 * i 64 + a () / i 64 mod i 32 * i 4096 + i 1) / i 4096) in
      let valid = O.((lidx1 < i 7) land ((lidx0 * i 2 + r0 < i 3 <> i 1) land (lidx0 * i 2 + r0 < i 35))) in
      let load = get_load_image_uop [ 32; 1024; 4 ] valid (alu0, alu1) in
      check_image load None "(lidx1*128+gidx0//2+144)" "(lidx0*2+r0+-3)";
      (* same idx, written without the inline simplification of the inner div/mod *)
      let alu0 = O.((gidx0 * i 2 + lidx1 * i 512 + (lidx0 * i 8192 + r0 * i 4096) + i (-11711)) / i 4 mod i 1024) in
      let alu1 = O.(lidx0 * i 2 + r0 + i (-3)) in
      let valid = O.((lidx1 < i 7) land ((lidx0 * i 2 + r0 < i 3 <> i 1) land (lidx0 * i 2 + r0 < i 35))) in
      let load = get_load_image_uop [ 32; 1024; 4 ] valid (alu0, alu1) in
      check_image load None "(lidx1*128+gidx0//2+144)" "(lidx0*2+r0+-3)");
  ("TestImageSimplification.test_simplify8", fun () ->
      (* from openpilot compile3, kernel r_4_16_8_16_4_4_3_3n1: valid guarantees A >= 0, so divmod
         simplifies and gate is removed *)
      let gidx0 = special "gidx0" 16 and gidx1 = special "gidx1" 4 in
      let lidx0 = special "lidx0" 8 and lidx1 = special "lidx1" 16 in
      let a = O.(gidx0 + gidx1 * i 8192 + lidx0 * i 1024 + lidx1 * i 64 - i 1040) in
      let valid = O.((lidx1 < i 1 <> t_) land (gidx1 + lidx0 < i 1 <> t_)) in
      let load = get_load_image_uop [ 32; 1024; 4 ] valid (O.(a mod i 1024), O.(a / i 1024)) in
      check_image load None "(gidx0+lidx1*64+-16)" "(lidx0+gidx1*8+-1)");
  ("TestImageSimplification.test_simplify9", fun () ->
      (* from openpilot compile3, kernel r_32_16_8_4_4_7_7 (image 1x16384): valid guarantees A1 >= 0 and
         A1 < 512, gate should be removable *)
      let gidx0 = special "gidx0" 32 and lidx0 = special "lidx0" 16 and lidx1 = special "lidx1" 8 in
      let r0 = range 0 7 in
      let a1 = O.(lidx0 * i 32 + r0 * i 32 + lidx1 * i 4 - i 99) in
      let valid = O.((lidx1 < i 1 <> t_) land (lidx0 + r0 < i 3 <> t_) land (lidx0 + r0 < i 19)) in
      let alu0 = O.(gidx0 + a1 mod i 32 * i 32 + a1 / i 32 mod i 16 * i 1024) in
      let load = get_load_image_uop [ 1; 16384; 4 ] valid (alu0, Uop.const_int 0) in
      check_image_or_else
        (fun () -> check_image load None "(gidx0+lidx0*1024+r0*1024+lidx1*128+-3168)" "0")
        (fun () ->
           (* TODO: fold valid *)
           check_image load (Some "(((lidx1<1)!=True)&((lidx0+r0)<19))")
             "(gidx0+lidx1*128+(lidx0*1024+r0*1024)+-3168)" "0"));
  ("TestImageSimplification.test_simplify10", fun () ->
      (* from openpilot compile3, kernel r_16_8_4_4_4_4_7_7 (image 1x8192): valid guarantees A1 >= 0 and
         A1 < 128, gate should be removable *)
      let gidx0 = special "gidx0" 16 and lidx0 = special "lidx0" 8 in
      let lidx1 = special "lidx1" 4 and lidx2 = special "lidx2" 4 in
      let r0 = range 0 7 in
      let a1 = O.(lidx0 * i 16 + r0 * i 16 + lidx1 * i 4 - i 51) in
      let valid = O.((lidx1 < i 1 <> t_) land (lidx0 + r0 < i 3 <> t_) land (lidx0 + r0 < i 11)) in
      let alu0 = O.(lidx2 + gidx0 * i 4 + a1 mod i 16 * i 64 + a1 / i 16 mod i 8 * i 1024) in
      let load = get_load_image_uop [ 1; 8192; 4 ] valid (alu0, Uop.const_int 0) in
      check_image_or_else
        (fun () -> check_image load None "(lidx2+gidx0*4+lidx0*1024+r0*1024+lidx1*256+-3264)" "0")
        (fun () ->
           (* TODO: fold valid *)
           check_image load (Some "(((lidx1<1)!=True)&((lidx0+r0)<11))")
             "(lidx2+gidx0*4+lidx1*256+(lidx0*1024+r0*1024)+-3264)" "0"));
  ("TestImageSimplification.test_drop_non_monotonic_window", fun () ->
      (* two-sided window valid (645 <= gidx0 < 653) on a non-monotonic index (lane split via %4 and //4):
         gidx0 outside the window pushes idx_x out of the (1, 48) image, so the gate is dropped *)
      let gidx0 = special "gidx0" 1064 in
      let r12 = range 12 3 in
      let valid = O.((gidx0 < i 645 <> t_) land (gidx0 < i 653)) in
      let idx = (O.(r12 * i 4 + (gidx0 + i 3) mod i 4 + (gidx0 + i 3) / i 4 * i 24 - i 3888), Uop.const_int 0) in
      let load = get_load_image_uop [ 1; 48; 4 ] valid idx in
      check_image load None "(r12*4+(gidx0+3)%4+(gidx0+3)//4*24+-3888)" "0");
  ("TestImageSimplification.test_drop_gate_committed_in_the_index_pass", fun () ->
      (* the fused index pass runs without symbolic, so committing a weak src must not leave a CAST that
         symbolic later folds inside the index only: the gate's copy of the expression has to stay the same node *)
      let f = Uop.variable ~dtype:Dtype.Float32 "f" (Dtype.F 0.0) (Dtype.F 9.0) in
      let idx_y = Uop.cast Dtype.Int32 (Uop.add f (Uop.const_float 1.0)) in
      let load = get_load_image_uop [ 10; 10; 4 ]
          O.((Uop.const_int (-1) < idx_y) land (idx_y < Uop.const_int 10)) (special "gidx0" 10, idx_y) in
      let pm = P.( @@@ ) Weak.pm_lower_index_dtype (P.lift Coalesce.indexing_simplify) in
      let off = (P.graph_rewrite pm (Weak.lower_ctx ()) (Uop.sink [ load ])).src.(0).src.(0) in
      check_is ~what:"valid" (Uop.get_valid off.src.(1)) t_);
]

(* ---------- TestDropTrueGate ---------- *)

let test_drop_true_gate = [
  ("TestDropTrueGate.test_drop_true_gate_on_index", fun () ->
      (* test that INDEX with a constant True valid gets simplified to drop the valid *)
      let buf = param 0 Dtype.Int32 [ 1 ] in
      let idx = Uop.const_int 0 in
      let index_with_gate = Uop.index buf [ Uop.valid idx t_ ] in
      (* apply the optimization *)
      let result = P.graph_rewrite (P.( @@@ ) Symbolic.sym Coalesce.indexing_simplify) () index_with_gate in
      (* the True valid should be dropped (INDEX should only have 2 sources) *)
      check_int ~what:"True valid should be dropped from INDEX" 2 (Array.length result.src));
]


(* ---------- cases that call full_rewrite (the codegen pipeline) ---------- *)

(* tinygrad's [full_rewrite(sink)] under [Context(NOOPT=1, SPEC=0)] (test/helpers.py: a SINK without an arg
   gets [KernelInfo()] first) *)
let full_rewrite_noopt sink = Tg_helpers.full_rewrite_noopt sink

let get_ranges sink = List.filter (fun (u : Uop.t) -> u.op == Ops.Range) (Uop.toposort (full_rewrite_noopt sink))

let assert_range_end (ranges : Uop.t list) (end_ : int) =
  check_int ~what:"number of ranges" 1 (List.length ranges);
  let expected = (full_rewrite_noopt (Uop.sink [ Uop.const_int ~dtype:Dtype.Int32 end_ ])).src.(0) in
  check_is ~what:"range end" (List.hd ranges).src.(0) expected

let test_range_shrink = [
  ("TestRangeShrink.test_range_shrink_single_guard", fun () ->
      (* range 0..203 guarded by r < 4 everywhere -> shrink to 0..3 *)
      let r = range 0 204 in
      let load = get_gated_load_uop O.(r < Uop.const_int 4) r in
      assert_range_end (get_ranges (Uop.sink [ load ])) 4);
  ("TestRangeShrink.test_range_shrink_picks_max_guard", fun () ->
      (* two loads guard the same range with r < 4 and r < 8 -> shrink to max(4, 8) = 8 *)
      let r = range 0 204 in
      let load1 = get_gated_load_uop O.(r < Uop.const_int 4) r in
      let load2 = get_gated_load_uop O.(r < Uop.const_int 8) r in
      assert_range_end (get_ranges (Uop.sink [ load1; load2 ])) 8);
  ("TestRangeShrink.test_range_no_shrink_guard_ge_max", fun () ->
      (* guard r < 300 with range max 204 -> no shrink (guard doesn't constrain) *)
      let r = range 0 204 in
      let load = get_gated_load_uop O.(r < Uop.const_int 300) r in
      assert_range_end (get_ranges (Uop.sink [ load ])) 204);
  ("TestRangeShrink.test_range_no_shrink_when_unguarded_elsewhere", fun () ->
      (* one load guards r < 4, but another load uses r without a gate -> no shrink *)
      let r = range 0 204 in
      let load1 = get_gated_load_uop O.(r < Uop.const_int 4) r in
      let load2 = Uop.load (Uop.index (param 1 Dtype.Float32 [ 204 ]) [ r ]) [] in
      assert_range_end (get_ranges (Uop.sink [ load1; load2 ])) 204);
  ("TestRangeShrink.test_range_no_shrink_when_used_in_reduce", fun () ->
      (* range used in both a gated load AND directly in the reduce expression -> no shrink *)
      let r = range 0 204 in
      let gated_load = get_gated_load_uop O.(r < Uop.const_int 4) r in
      let red = Uop.reduce ~arg:Ops.Add O.(Uop.cast Dtype.Float32 r + gated_load) [ r ] in
      assert_range_end (get_ranges (Uop.sink [ red ])) 204);
  ("TestRangeShrink.test_range_shrink_to_single_iteration", fun () ->
      (* guard r < 1 shrinks range to 1 -> single iteration, range eliminated entirely *)
      let r = range 0 204 in
      let load = get_gated_load_uop O.(r < Uop.const_int 1) r in
      check_int ~what:"number of ranges" 0 (List.length (get_ranges (Uop.sink [ load ]))));
  ("TestRangeShrink.test_range_shrink_store_where_invalid", fun () ->
      (* emulates mask.where(x.pad_to(mask.shape), Invalid): range should shrink accordingly *)
      let r = range 0 204 in
      let x = Uop.where O.(r < i 4) (Uop.const_float 1.0) (Uop.invalid ()) in
      let st = Uop.store (Uop.index (param 0 Dtype.Float32 [ 204 ]) [ r ]) (Uop.where O.(r < i 4) x (Uop.invalid ())) in
      assert_range_end (get_ranges (Uop.sink [ st ])) 4);
  ("TestRangeShrink.test_range_shrink_store_where_invalid_flipped", fun () ->
      (* above, but flipped *)
      let r = range 0 204 in
      let x = Uop.where O.(r < i 4) (Uop.const_float 1.0) (Uop.invalid ()) in
      let st = Uop.store (Uop.index (param 0 Dtype.Float32 [ 204 ]) [ r ]) (Uop.where O.(r >= i 4) (Uop.invalid ()) x) in
      assert_range_end (get_ranges (Uop.sink [ st ])) 4);
]

let test_full_rewrite : Test_util.case list =
  ("TestImageSimplification.test_valid_empty_set", fun () ->
      let gidx0 = special "gidx0" 32 and gidx1 = special "gidx1" 32 in
      let shape = [ 32; 32; 4 ] in
      let idx = (O.(gidx0 mod i 2), O.(gidx1 + i 2)) in
      (* not empty *)
      let load = get_load_image_uop shape O.(gidx0 < i 8) idx in
      check_image load (Some "(gidx0<8)") "(gidx0%2)" "(gidx1+2)";
      (* empty -> invalid *)
      let load = get_load_image_uop shape O.((gidx0 < i 8) land (gidx0 < i 8 <> t_)) idx in
      let load = (full_rewrite_noopt (Uop.sink [ load ])).src.(0) in
      check (not (Uop.op_in_backward_slice_with_self load [ Ops.Load ])) "a LOAD is left")
  :: test_range_shrink

let tests : Test_util.case list =
  test_valid_idx_simplification @ test_image_simplification @ test_drop_true_gate @ test_full_rewrite
