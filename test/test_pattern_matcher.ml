(* Port of tinygrad test/null/test_pattern_matcher.py (TestPatternMatcher), plus checks of the UPat sugar
   against the pattern trees tinygrad builds (printed with the 0.14 venv). *)

open Tinygrad.Compiler
open Test_util

let show = function None -> "None" | Some u -> Uop.to_string u

(* assertEqual(matcher.rewrite(x), expected): UOps are hash-consed, so equality is identity *)
let check_rw ~what expected actual =
  let ok = match expected, actual with None, None -> true | Some a, Some bb -> a == bb | _ -> false in
  if not ok then fail "%s: expected %s, got %s" what (show expected) (show actual)

let rw pm u = Upat.rewrite pm () u
let c1f = Dtype.F 1.0
let two = Z.of_int 2
let noop ?(src = [||]) () = Uop.create Ops.Noop ~src
let int_of u = match Uop.const_val u with Dtype.I z -> Z.to_int z | _ -> fail "not an int const"

let test_simple_match () =
  let pm = Upat.matcher [ Upat.rule (Upat.pat Ops.Const ~name:"x" ~dtype:[ Dtype.Weakfloat ])
                            (fun c -> Some (Uop.rtag (Upat.get c "x"))) ] in
  let c1 = Uop.const c1f and c2 = Uop.const_int 1 in
  check_rw ~what:"c1" (Some (Uop.rtag c1)) (rw pm c1);
  check_rw ~what:"c2" None (rw pm c2)

let test_upat_any () =
  (* def test(a, x=None, y=None, z=None): if y is not None: return (a+y).rtag() *)
  let pm = Upat.matcher [
      Upat.rule Upat.O.(Upat.var "a" + Upat.any [ Upat.var "x"; Upat.var "y"; Upat.var "z" ])
        (fun c -> match Upat.find c "y" with
           | Some y -> Some (Uop.rtag (Uop.add (Upat.get c "a") y))
           | None -> None) ] in
  let v1 = Uop.variable_int "a" 0 10 and v2 = Uop.variable_int "b" 0 10 in
  let c1 = Uop.add v1 v2 in
  check_rw ~what:"a+b" (Some (Uop.rtag c1)) (rw pm c1)

let test_minimum_len () =
  let t = Uop.const_bool true in
  let p = Upat.pat Ops.Noop ~src:(In_order [ Upat.pat Ops.Noop; Upat.pat Ops.Noop ]) ~allow_any_len:true in
  let pm = Upat.matcher [ Upat.rule p (fun _ -> Some t) ] in
  check_rw ~what:"3 srcs" (Some t) (rw pm (noop ~src:[| noop (); noop (); noop () |] ()));
  check_rw ~what:"2 srcs" (Some t) (rw pm (noop ~src:[| noop (); noop () |] ()));
  check_rw ~what:"1 src" None (rw pm (noop ~src:[| noop () |] ()))

(* skipped in tinygrad only because Python pattern matchers reject closures *)
let test_match_sz_0 () =
  let match_cnt = ref 0 in
  let fxn c =
    incr match_cnt;
    check (Array.length (Upat.get c "x").Uop.src = 0) "len(x.src) == 0";
    Some (Uop.create Ops.Const ~dtype:Dtype.Void ~src:[| Uop.create Ops.Const ~dtype:Dtype.Void |]) in
  let pm = Upat.matcher [ Upat.rule (Upat.pat Ops.Const ~src:(In_order []) ~name:"x") fxn ] in
  let c1 = Uop.create Ops.Const ~dtype:Dtype.Float32 ~arg:(Uop.Const c1f) in
  (* second rewrite shouldn't match anything *)
  let c1 = Option.get (rw pm c1) in
  ignore (rw pm c1);
  check_int ~what:"match_cnt" 1 !match_cnt

let test_match_sz_0_ctx () =
  let fxn ctx c =
    ctx := true :: !ctx;
    let x = Upat.get c "x" in
    check (Array.length x.Uop.src = 0) "len(x.src) == 0";
    Some (Uop.replace ~src:[| noop () |] x) in
  let pm = Upat.matcher [ Upat.rule_ctx (Upat.pat Ops.Noop ~src:(In_order []) ~name:"x") fxn ] in
  let ctx = ref [] in
  let c1 = Option.get (Upat.rewrite pm ctx (noop ())) in
  check_rw ~what:"second rewrite" None (Upat.rewrite pm ctx c1);
  check_int ~what:"len(ctx)" 1 (List.length !ctx)

let rtag_rule p = Upat.rule p (fun c -> Some (Uop.rtag (Upat.get c "x")))

let test_uop () =
  let pm = Upat.matcher [ rtag_rule (Upat.pat Ops.Const ~name:"x") ] in
  let c1 = Uop.const c1f in
  let c2 = Uop.create Ops.Add ~src:[| c1; c1 |] in
  check_rw ~what:"c1" (Some (Uop.rtag c1)) (rw pm c1);
  check_rw ~what:"c2" None (rw pm c2)

let test_uop_set () =
  let pm = Upat.matcher [ rtag_rule (Upat.ops [ Ops.Const; Ops.Cast ] ~name:"x") ] in
  let c1 = Uop.const_bool false in
  let c2 = Uop.create Ops.Cast ~arg:(Uop.Dtype Dtype.Int32) ~src:[| c1 |] in
  let c3 = Uop.const c1f in
  let c4 = Uop.create Ops.Add ~src:[| c3; c3 |] in
  check_rw ~what:"c1" (Some (Uop.rtag c1)) (rw pm c1);
  check_rw ~what:"c2" (Some (Uop.rtag c2)) (rw pm c2);
  check_rw ~what:"c4" None (rw pm c4)

let test_arg () =
  let pm = Upat.matcher [
      rtag_rule (Upat.pat Ops.Const ~arg:(Uop.Const (Dtype.I Z.zero)) ~name:"x");
      rtag_rule (Upat.pat Ops.Const ~arg:(Uop.Const (Dtype.B false)) ~name:"x");
      rtag_rule (Upat.pat Ops.Max ~name:"x") ] in
  let c1 = Uop.const (Dtype.F 0.0) in
  let c2 = Uop.const_bool false in
  let c3 = Uop.create Ops.Max ~src:[| c1; c1 |] in
  let c4 = Uop.create Ops.Mul ~src:[| c1; c1 |] in
  let c5 = Uop.const_int (-1) in
  check_rw ~what:"c1" (Some (Uop.rtag c1)) (rw pm c1);
  check_rw ~what:"c2" (Some (Uop.rtag c2)) (rw pm c2);
  check_rw ~what:"c3" (Some (Uop.rtag c3)) (rw pm c3);
  check_rw ~what:"c4" None (rw pm c4);
  check_rw ~what:"c5" None (rw pm c5)

let test_filter_arg () =
  let pm = Upat.matcher [
      Upat.rule (Upat.pat Ops.Mul ~name:"x"
                   ~src:(Permuted [ Upat.pat Ops.Const ~name:"c"; Upat.const (Dtype.I two) ]))
        (fun c -> let v = int_of (Upat.get c "c") in
          if v = 1 || v = -1 then Some (Uop.rtag (Upat.get c "x")) else None) ] in
  let y1 = Uop.const_int 1 and y2 = Uop.const_int 2 and y3 = Uop.const_int (-1) in
  let mul a bb = Uop.create Ops.Mul ~src:[| a; bb |] in
  let c1 = mul y1 y2 and c2 = mul y2 y2 and c3 = mul y3 y2 and c4 = mul y2 y1 and c5 = mul y2 y3 in
  check_rw ~what:"c1" (Some (Uop.rtag c1)) (rw pm c1);
  check_rw ~what:"c2" None (rw pm c2);
  check_rw ~what:"c3" (Some (Uop.rtag c3)) (rw pm c3);
  check_rw ~what:"c4" (Some (Uop.rtag c4)) (rw pm c4);
  check_rw ~what:"c5" (Some (Uop.rtag c5)) (rw pm c5)

let dup_name_pm () =
  Upat.matcher [
    rtag_rule (Upat.ops Ops.Group.alu ~name:"x"
                 ~src:(In_order [ Upat.pat Ops.Const ~name:"y"; Upat.pat Ops.Const ~name:"y" ])) ]

let test_dup_name () =
  let pm = dup_name_pm () in
  let y1 = Uop.const c1f and y2 = Uop.const c1f in
  let c1 = Uop.create Ops.Add ~src:[| y1; y1 |] and c2 = Uop.create Ops.Add ~src:[| y1; y2 |] in
  check_rw ~what:"c1" (Some (Uop.rtag c1)) (rw pm c1);
  check_rw ~what:"c2" (Some (Uop.rtag c1)) (rw pm c2)

let test_dup_name_different_nodes () =
  (* not in tinygrad's file: a name bound twice must be the same node *)
  let pm = dup_name_pm () in
  check_rw ~what:"1+2" None (rw pm (Uop.create Ops.Add ~src:[| Uop.const c1f; Uop.const (Dtype.F 2.0) |]))

let test_dtype () =
  (* a concrete const dtype lives on the pair's CAST *)
  let pm = Upat.matcher [ rtag_rule (Upat.pat Ops.Cast ~name:"x" ~dtype:[ Dtype.Float32 ]) ] in
  let c1 = Uop.cast Dtype.Float32 (Uop.const c1f) and c2 = Uop.cast Dtype.Float64 (Uop.const c1f) in
  check_rw ~what:"c1" (Some (Uop.rtag c1)) (rw pm c1);
  check_rw ~what:"c2" None (rw pm c2)

let test_dtype_set () =
  let pm = Upat.matcher [ rtag_rule (Upat.pat Ops.Cast ~name:"x" ~dtype:[ Dtype.Float32; Dtype.Float64 ]) ] in
  let c1 = Uop.cast Dtype.Float32 (Uop.const c1f) and c2 = Uop.cast Dtype.Float64 (Uop.const c1f) in
  let c3 = Uop.cast Dtype.Float16 (Uop.const c1f) and c4 = Uop.cast Dtype.Int32 (Uop.const_int 1) in
  check_rw ~what:"c1" (Some (Uop.rtag c1)) (rw pm c1);
  check_rw ~what:"c2" (Some (Uop.rtag c2)) (rw pm c2);
  check_rw ~what:"c3" None (rw pm c3);
  check_rw ~what:"c4" None (rw pm c4)

let test_src_one () =
  let pm = Upat.matcher [
      rtag_rule (Upat.ops Ops.Group.alu ~name:"x"
                   ~src:(In_order [ Upat.pat Ops.Const; Upat.pat Ops.Const ])) ] in
  let c1 = Uop.const c1f and c2 = Uop.const (Dtype.F 2.0) in
  let c3 = Uop.create Ops.Add ~src:[| c1; c2 |] in
  check_rw ~what:"c3" (Some (Uop.rtag c3)) (rw pm c3);
  check_rw ~what:"c2" None (rw pm c2)

let test_src_permutations () =
  let pm = Upat.matcher [
      rtag_rule (Upat.ops Ops.Group.alu ~name:"x"
                   ~src:(Permuted [ Upat.pat Ops.Const; Upat.ops Ops.Group.alu ])) ] in
  let c1 = Uop.const c1f and c2 = Uop.const (Dtype.F 2.0) in
  let add a bb = Uop.create Ops.Add ~src:[| a; bb |] in
  let c3 = add c1 c2 in
  let c4 = add c3 c2 and c5 = add c2 c3 in
  let c6 = add c3 c4 in
  check_rw ~what:"c3" None (rw pm c3);
  check_rw ~what:"c4" (Some (Uop.rtag c4)) (rw pm c4);
  check_rw ~what:"c5" (Some (Uop.rtag c5)) (rw pm c5);
  check_rw ~what:"c6" None (rw pm c6)

let test_src_repeat () =
  let pm = Upat.matcher [ rtag_rule (Upat.ops Ops.Group.alu ~name:"x" ~src:(Repeat (Upat.pat Ops.Const))) ] in
  let c1 = Uop.const c1f and c2 = Uop.const (Dtype.F 2.0) in
  let c3 = Uop.create Ops.Add ~src:[| c1; c2 |] in
  let c4 = Uop.create Ops.Add ~src:[| c2; c3 |] in
  check_rw ~what:"c3" (Some (Uop.rtag c3)) (rw pm c3);
  check_rw ~what:"c4" None (rw pm c4)

let test_allow_len () =
  let pm = Upat.matcher [
      rtag_rule (Upat.pat Ops.Mulacc ~name:"x" ~src:(In_order [ Upat.pat Ops.Const ])
                   ~allow_any_len:true) ] in
  let c1 = Uop.const c1f and c2 = Uop.const (Dtype.F 2.0) and c3 = Uop.const (Dtype.F 3.0) in
  let c4 = Uop.create Ops.Exp2 ~src:[| c1 |] in
  let c5 = Uop.create Ops.Add ~src:[| c1; c2 |] in
  let c6 = Uop.create Ops.Mulacc ~src:[| c1; c2; c3 |] in
  check_rw ~what:"c4" None (rw pm c4);
  check_rw ~what:"c5" None (rw pm c5);
  check_rw ~what:"c6" (Some (Uop.rtag c6)) (rw pm c6)

let test_deep_src_permutations () =
  let c1 = Uop.const c1f and c2 = Uop.const (Dtype.F 2.0) in
  let u1 = Uop.O.((c1 + c2) + c1) and u2 = Uop.O.((c2 + c1) + c1) in
  let pm = Upat.matcher [
      Upat.rule (Upat.ops Ops.Group.alu
                   ~src:(Permuted [ Upat.ops Ops.Group.alu ~src:(Permuted [ Upat.var "a"; Upat.var "b" ]);
                                    Upat.var "b" ]))
        (fun c -> Some (Upat.get c "b")) ] in
  check (rw pm u1 <> None) "u1 should match";
  check (rw pm u2 <> None) "u2 should match"

(* ---- beyond tinygrad's file: match order, callbacks, early reject and the UPat sugar ---- *)

(* tinygrad: UPat(Ops.ADD, src=[var a, var b]).match(c1+c2) == [{a:c1,b:c2}, {a:c2,b:c1}] *)
let test_match_order () =
  let c1 = Uop.const c1f and c2 = Uop.const (Dtype.F 2.0) in
  let ms = Upat.match_ (Upat.pat Ops.Add ~src:(Permuted [ Upat.var "a"; Upat.var "b" ])) (Uop.add c1 c2) in
  check_int ~what:"matches" 2 (List.length ms);
  (match ms with
   | [ m1; m2 ] ->
     check (Upat.get m1 "a" == c1 && Upat.get m1 "b" == c2) "first match a=c1 b=c2";
     check (Upat.get m2 "a" == c2 && Upat.get m2 "b" == c1) "second match a=c2 b=c1"
   | _ -> ());
  (* all_same: the same pattern object twice gives one permutation *)
  let x = Upat.var "x" in
  check_int ~what:"x*x matches" 1 (List.length (Upat.match_ (Upat.alu Ops.Mul [ x; x ]) (Uop.mul c1 c1)))

let test_none_tries_next_match_then_next_rule () =
  (* upat_interpret: a None result tries the next match of the same rule; a result equal to the node
     stops that rule and the matcher goes on to the next rule *)
  let c1 = Uop.const c1f and c2 = Uop.const (Dtype.F 2.0) in
  let seen = ref [] in
  let target = Uop.const (Dtype.F 9.0) in
  let pm = Upat.matcher [
      Upat.rule (Upat.pat Ops.Add ~src:(Permuted [ Upat.var "a"; Upat.var "b" ]) ~name:"x")
        (fun c ->
           seen := ("r1", Upat.get c "a") :: !seen;
           if Upat.get c "a" == c2 then Some (Upat.get c "x") else None);
      Upat.rule (Upat.pat Ops.Add ~name:"x") (fun _ -> seen := ("r2", c1) :: !seen; Some target) ] in
  check_rw ~what:"rewrite" (Some target) (rw pm (Uop.add c1 c2));
  let got = List.rev_map (fun (r, u) -> r ^ (if u == c1 then "c1" else "c2")) !seen in
  check_str ~what:"order" "r1c1,r1c2,r2c1" (String.concat "," got)

let test_early_reject () =
  let c1 = Uop.const c1f in
  let v = Uop.variable_int ~dtype:Dtype.Float32 "a" 0 10 in
  let calls = ref 0 in
  (* src ops {CONST} must be a subset of the node's src ops *)
  let pm = Upat.matcher [ Upat.rule (Upat.pat Ops.Add ~src:(Permuted [ Upat.var "x"; Upat.pat Ops.Const ]))
                            (fun _ -> incr calls; None) ] in
  ignore (rw pm (Uop.create Ops.Add ~src:[| v; v |]));
  check_int ~what:"rejected early" 0 !calls;
  ignore (rw pm (Uop.create Ops.Add ~src:[| v; c1 |]));
  check_int ~what:"tried" 1 !calls;
  (* custom_early_reject overrides: a MUL src is required even though the pattern does not ask for it *)
  let pm2 = Upat.matcher [ Upat.rule (Upat.make ~op:[ Ops.Add ] ~custom_early_reject:[ Ops.Mul ] ())
                             (fun _ -> Some c1) ] in
  check_rw ~what:"custom reject" None (rw pm2 (Uop.create Ops.Add ~src:[| v; v |]));
  let with_mul = Uop.create Ops.Add ~src:[| v; Uop.create Ops.Mul ~src:[| v; v |] |] in
  check_rw ~what:"custom pass" (Some c1) (rw pm2 with_mul)

let test_arg_python_eq () =
  (* CONST args compare as Python ==: 1 == 1.0 == True, nan == nan for ConstFloat, 2 != 2.5 *)
  let pm = Upat.matcher [ Upat.rule Upat.O.(Upat.var "x" * i 1) (fun c -> Some (Upat.get c "x")) ] in
  let v = Uop.variable_int ~dtype:Dtype.Float32 "a" 0 10 in
  let mul_f c = Uop.create Ops.Mul ~src:[| v; Uop.const ~dtype:Dtype.Float32 (Dtype.F c) |] in
  check_rw ~what:"x*1.0" (Some v) (rw pm (mul_f 1.0));
  check_rw ~what:"x*2.0" None (rw pm (mul_f 2.0));
  let pn = Upat.cvar ~arg:(Dtype.F Float.nan) "c" in
  check_int ~what:"nan matches nan" 1 (List.length (Upat.match_ pn (Uop.const (Dtype.F Float.nan))));
  let p2 = Upat.cvar ~arg:(Dtype.I two) "c" in
  check_int ~what:"2 vs 2.5" 0 (List.length (Upat.match_ p2 (Uop.const (Dtype.F 2.5))));
  check_int ~what:"2 vs 2.0" 1 (List.length (Upat.match_ p2 (Uop.const (Dtype.F 2.0))))

let test_sugar_sub () =
  (* tinygrad: UPat.var('x') - UPat.var('y') is ADD[x, MUL[y, CONST(-1)]] *)
  let p = Upat.O.(Upat.var "x" - Upat.var "y") in
  let a = Uop.variable_int "a" 0 10 and bb = Uop.variable_int "b" 0 10 in
  let m1 = Uop.O.(a + (bb * i (-1))) in
  (match Upat.match_ p m1 with
   | m :: _ -> check (Upat.get m "x" == a && Upat.get m "y" == bb) "x=a y=b"
   | [] -> fail "a + b*-1 should match x - y");
  (* commuted forms match too *)
  let m2 = Uop.create Ops.Add ~src:[| Uop.create Ops.Mul ~src:[| Uop.const_int (-1); bb |]; a |] in
  check (Upat.match_ p m2 <> []) "-1*bb + a should match x - y";
  check_int ~what:"Uop.sub is the same tree" 1 (List.length (Upat.match_ p (Uop.sub a bb)))

let test_sugar_neg_bool () =
  (* -UPat.var('bb', bool) is CMPNE[var bb, CONST(True)] (cast is skipped as the dtype is exactly bool) *)
  let p = Upat.O.(-Upat.var ~dtype:[ Dtype.Bool ] "b") in
  let bb = Uop.variable_int ~dtype:Dtype.Bool "b" 0 1 in
  check (Upat.match_ p (Uop.logical_not bb) <> []) "logical_not bb should match -b";
  check (Upat.match_ p (Uop.create Ops.Cmpne ~src:[| Uop.const_bool true; bb |]) <> []) "permuted";
  check_int ~what:"dtype" 0 (compare (Upat.dtype p) Dtype.Bool)

let test_sugar_ge () =
  (* x >= 3 is CMPNE[CMPLT(x, 3), True]; x < 3 keeps the operand order (CMPLT is not commutative) *)
  let x = Uop.variable_int "x" 0 10 in
  let p = Upat.O.(Upat.var "x" >= i 3) in
  check (Upat.match_ p (Uop.ge x (Uop.const_int 3)) <> []) "x >= 3";
  check (Upat.match_ Upat.O.(Upat.var "x" < i 3) (Uop.create Ops.Cmplt ~src:[| Uop.const_int 3; x |]) = [])
    "3 < x is not x < 3";
  check (Upat.match_ Upat.O.(Upat.var "x" > i 3) (Uop.create Ops.Cmplt ~src:[| Uop.const_int 3; x |]) <> [])
    "x > 3 is 3 < x"

let test_sugar_where () =
  (* where takes the dtype of its last src and matches in order *)
  let p = Upat.where (Upat.var "c") (Upat.var "a") (Upat.O.i 0) in
  let c = Uop.variable_int ~dtype:Dtype.Bool "c" 0 1 and a = Uop.variable_int "a" 0 10 in
  check (Upat.match_ p (Uop.where c a (Uop.const_int 0)) <> []) "c.where(a, 0)";
  check (Upat.match_ p (Uop.where c (Uop.const_int 0) a) = []) "c.where(0, a)"

let test_or_casted () =
  let p = Upat.or_casted ~name:"y" (Upat.var "x") in
  let a = Uop.variable_int "a" 0 10 in
  (match Upat.match_ p (Uop.cast Dtype.Int32 a) with
   | [ m1; m2 ] ->
     (* named replaces the name: the first alternative binds only y *)
     check (Upat.get m1 "y" == Uop.cast Dtype.Int32 a && Upat.find m1 "x" = None) "first alternative";
     check (Upat.get m2 "y" == Uop.cast Dtype.Int32 a && Upat.get m2 "x" == a) "second alternative"
   | l -> fail "expected 2 matches, got %d" (List.length l))

let test_matcher_concat () =
  let c1 = Uop.const c1f and c2 = Uop.const (Dtype.F 2.0) in
  let a = Upat.matcher [ Upat.rule (Upat.pat Ops.Const) (fun _ -> Some c1) ] in
  let bb = Upat.matcher [ Upat.rule (Upat.pat Ops.Const) (fun _ -> Some c2) ] in
  check_rw ~what:"a first" (Some c1) (rw Upat.(a @@@ bb) c2);
  check_rw ~what:"b first" (Some c2) (rw Upat.(bb @@@ a) c1);
  check_rw ~what:"a skips itself" (Some c2) (rw Upat.(a @@@ bb) c1);
  check (Upat.(a @@@ bb) == Upat.(a @@@ bb)) "concatenation is cached"

(* ---- differential cases: random (pattern, uop) pairs, every match tinygrad's UPat.match returns, in order.
   Generated with a fixed seed by test/gen_pattern_matcher_oracle.py in the reference venv (it prints the
   Oracle body). Patterns: (any p...) | (pat OPS NAME DTYPES ARG LEN KIND kids...), "-" for None; KIND is
   none/tuple/list/rep or sameN (a list holding one pattern object N times, tinygrad's all_same case). ---- *)

module Oracle = struct
  let cases = [
    ("(pat CONST - - 1 strict none)", "c0", 0, "");
    ("(pat - z - - strict none)", "(CMPLT (ADD (MUL c1 c0) (CMPLT c1 c0)) (ADD (SINK) (MUL c0 c1)))", 1, "z=(CMPLT (ADD (MUL c1 c0) (CMPLT c1 c0)) (ADD (SINK) (MUL c0 c1)))");
    ("(pat CMPLT z bool|weakint - strict none)", "(CMPLT c1 (CMPLT (SINK a c2 c2) c0))", 1, "z=(CMPLT c1 (CMPLT (SINK a c2 c2) c0))");
    ("(pat MUL - - - strict list (pat SINK z - - any tuple (pat SINK - - - strict same2 (pat CONST - void 0 strict none)) (pat ADD x - - strict tuple (pat - - - - strict none) (pat SINK x - - strict none)) (pat - - - - strict rep (pat - x - - strict none))) (pat CMPLT z - - any list (pat - z - - strict none) (pat MUL|CONST y - - strict tuple (pat MUL - - - any none)) (pat - y - - strict tuple (pat CONST z - - strict none) (pat - y bool|weakint - strict none))))", "(MUL (SINK (SINK c0) (ADD c1 c0) a) (MUL b a))", 0, "");
    ("(pat ADD z weakint|bool - strict rep (pat CONST|CMPLT x - - strict none))", "(ADD b (MUL c1 a))", 0, "");
    ("(pat - - - - strict same2 (pat - - weakint|void - strict list))", "a", 0, "");
    ("(pat MUL x - - any list (any (pat CONST - weakint 2 any list (pat CONST|SINK - - - strict none) (pat ADD - - - any none))) (pat - - - - strict none))", "(MUL (CMPLT (SINK a c0 c0) (ADD b c2)) (SINK))", 0, "");
    ("(pat - y - - any list (pat ADD|SINK - void - any rep (any (pat SINK|MUL y bool - strict none) (pat SINK z bool - strict none))) (any (pat CMPLT x - - strict list (pat - x - - strict none) (pat CONST x - - strict none)) (pat CMPLT - - - strict none)))", "(CMPLT (MUL (SINK a) a) (CMPLT a c0))", 0, "");
    ("(pat ADD - - - strict none)", "(ADD (ADD (ADD c1 a) c2) c2)", 1, "");
    ("(pat - x - - strict list (pat ADD|MUL z - - strict none) (pat - x bool|weakint - any list (pat - - bool - strict none)) (pat ADD - - - strict list (any (pat - - - - any none) (pat - y - - strict none)) (pat CMPLT z - - any list) (pat - - - - strict list (pat - - - - strict none) (pat CMPLT|MUL - - - strict none) (pat ADD - - - strict none))))", "(SINK)", 0, "");
    ("(pat CONST - void 0 strict list)", "c0", 0, "");
    ("(pat - y - - strict none)", "(CMPLT (ADD (MUL c2 c1) (CMPLT c0 b)) (MUL (ADD b b) (SINK c0)))", 1, "y=(CMPLT (ADD (MUL c2 c1) (CMPLT c0 b)) (MUL (ADD b b) (SINK c0)))");
    ("(pat SINK z - - strict none)", "(SINK (SINK (ADD c2 c1)))", 1, "z=(SINK (SINK (ADD c2 c1)))");
    ("(pat CONST z void|bool 1 strict tuple)", "c2", 0, "");
    ("(pat - - - - any tuple (pat - z - - strict tuple))", "(SINK c2 c2 (ADD a c0))", 1, "z=c2");
    ("(any (pat - - - - strict list) (pat - x - - strict list))", "c2", 2, " | x=c2");
    ("(pat - z - - strict none)", "(SINK (ADD (CMPLT c1 b) b))", 1, "z=(SINK (ADD (CMPLT c1 b) b))");
    ("(pat SINK z weakint|void - strict none)", "(SINK (SINK c2 (SINK)) (ADD (CMPLT a a) a))", 1, "z=(SINK (SINK c2 (SINK)) (ADD (CMPLT a a) a))");
    ("(pat SINK x - - strict none)", "(SINK (MUL (CMPLT a c2) c0) (CMPLT c1 b) (SINK (CMPLT c2 a) a))", 1, "x=(SINK (MUL (CMPLT a c2) c0) (CMPLT c1 b) (SINK (CMPLT c2 a) a))");
    ("(pat - - - - strict same3 (pat - z bool|void - any none))", "(ADD (ADD a (MUL b b)) (MUL (SINK b c1) (ADD a c0)))", 0, "");
    ("(any (any (any (pat MUL - weakint|bool - strict none) (pat MUL x - - strict none)) (pat MUL z - - strict list (pat ADD x - - strict none) (pat - - - - any none) (pat - - void - any none)) (pat - z - - strict none)) (pat - - - - strict list (pat CONST|CMPLT y - - strict none) (pat - x - - any none)) (pat ADD z - - strict none))", "(MUL (ADD (SINK b c1) (MUL a c0)) (SINK (MUL c2 c2) (MUL c1 a)))", 3, " | x=(MUL (ADD (SINK b c1) (MUL a c0)) (SINK (MUL c2 c2) (MUL c1 a))) | z=(MUL (ADD (SINK b c1) (MUL a c0)) (SINK (MUL c2 c2) (MUL c1 a)))");
    ("(pat - - bool - strict tuple (pat - z - - strict rep (pat - z - - strict none)))", "(SINK (CMPLT c1 (CMPLT b c0)) (ADD a c1))", 0, "");
    ("(pat ADD y - - strict none)", "(ADD (MUL c0 (CMPLT c1 c2)) a)", 1, "y=(ADD (MUL c0 (CMPLT c1 c2)) a)");
    ("(pat MUL y - - any rep (pat - - - - strict list (pat - y bool - strict list (pat - - - - strict none) (pat CONST|SINK - - - strict none)) (pat - x - - any tuple) (pat - - void - strict tuple (pat - - - - strict none))))", "(MUL (CMPLT (ADD c0 b) c0) (SINK (CMPLT a c0)))", 0, "");
    ("(pat CONST x - - strict list)", "c0", 1, "x=c0");
    ("(any (pat - - - - strict list (pat CMPLT|CONST - - - strict list) (pat CMPLT|MUL x - - strict none)) (pat CMPLT - - - any list (pat SINK y - - strict tuple (pat ADD x - - strict none) (pat SINK z - - any none) (pat ADD z - - strict none)) (pat - z - - strict tuple)) (pat CMPLT y - - strict none))", "(CMPLT (SINK (SINK c0 c0) (SINK c0 b) (ADD c0 c2)) (MUL b c0))", 1, "y=(CMPLT (SINK (SINK c0 c0) (SINK c0 b) (ADD c0 c2)) (MUL b c0))");
    ("(pat - y - - strict same2 (pat - - bool - strict list))", "(MUL (MUL (ADD b c1) (SINK c1 b)) (SINK (MUL c0 a) (ADD c0 b)))", 0, "");
    ("(pat CMPLT - - - strict tuple (pat CMPLT z void|weakint - any rep (pat CMPLT y - - strict same2 (pat CONST z weakint|bool 1 any none))))", "(CMPLT (CMPLT (CMPLT c1 c1) (SINK)) c2)", 0, "");
    ("(pat ADD - - - strict list (pat - y - - strict none) (pat - y - - strict list (pat MUL|ADD - - - strict none) (pat CONST x - 1 strict none)))", "(ADD c0 (ADD (SINK b) c0))", 0, "");
    ("(pat SINK - void - strict list (any (pat - x - - strict list (pat ADD|SINK z - - strict none)) (pat ADD z - - strict none)) (pat ADD - - - strict tuple (pat - z bool - strict list (pat CONST z - - any none) (pat MUL y - - strict none)) (pat - - - - strict same2 (pat - - - - strict none))))", "(SINK (ADD (SINK c0 c2) (ADD a a)) (ADD (SINK c2 c1) (CMPLT a a)))", 0, "");
    ("(pat - y - - strict none)", "b", 1, "y=b");
    ("(any (pat SINK z - - strict none) (pat - - - - strict none) (any (pat - - - - strict none) (pat - y weakint - strict same2 (pat - x bool - strict none)) (pat - - - - any list (pat - z - - strict none) (pat - z - - any none))))", "(CMPLT (MUL a c1) (SINK (SINK b)))", 2, " | ");
    ("(pat - x - - strict list (pat - - - - strict list) (any (any (pat CONST|SINK - - - strict none))))", "(SINK (ADD a (SINK c2)) (CMPLT (ADD c0 a) (CMPLT c0 b)))", 0, "");
    ("(pat - z - - strict none)", "a", 1, "z=a");
    ("(any (pat SINK y - - strict rep (pat ADD y - - strict list (pat - x - - strict none) (pat MUL|CONST - - - strict none))) (pat - - - - strict none) (pat CONST|SINK z - - strict rep (any (pat ADD x - - strict none) (pat - y bool - strict none))))", "(SINK (ADD (SINK c0) (CMPLT b a)))", 2, " | x=(ADD (SINK c0) (CMPLT b a)),z=(SINK (ADD (SINK c0) (CMPLT b a)))");
    ("(any (pat SINK - - - strict same2 (pat CMPLT - - - strict none)) (pat SINK x - - strict tuple (pat CONST z - 0 strict list) (pat MUL - void|weakint - any none) (pat - x void|bool - strict rep (pat - - - - strict none))) (pat SINK|CONST y - - any list (any (pat - - - - strict none) (pat - x - - strict none)) (pat CONST z - - strict rep (pat - z - - any none)) (pat - - - - strict none)))", "(SINK c2 (MUL (SINK b a a) (ADD c2 c2)) b)", 4, "y=(SINK c2 (MUL (SINK b a a) (ADD c2 c2)) b),z=c2 | x=(MUL (SINK b a a) (ADD c2 c2)),y=(SINK c2 (MUL (SINK b a a) (ADD c2 c2)) b),z=c2 | y=(SINK c2 (MUL (SINK b a a) (ADD c2 c2)) b),z=c2 | x=b,y=(SINK c2 (MUL (SINK b a a) (ADD c2 c2)) b),z=c2");
    ("(pat - y - - strict none)", "(SINK (ADD a (CMPLT a c1)) (ADD c1 c0) c2)", 1, "y=(SINK (ADD a (CMPLT a c1)) (ADD c1 c0) c2)");
    ("(pat CMPLT z - - any same3 (pat CONST z - 0 strict same2 (pat CONST z - 1 strict list (pat - y - - strict none) (pat - z - - strict none))))", "(CMPLT c1 (CMPLT c2 (SINK c2)))", 0, "");
    ("(pat ADD|SINK x - - strict list (any (pat CONST y - - strict list) (any (pat CONST x - 2 any none) (pat - - weakint|void - strict none) (pat CONST - - 0 strict none)) (pat CONST - - - strict same2 (pat - z - - strict none))))", "(SINK c1)", 2, "x=(SINK c1),y=c1 | x=(SINK c1)");
    ("(pat - z - - strict none)", "(ADD c1 b)", 1, "z=(ADD c1 b)");
    ("(any (pat - - - - any list (pat - - - - any list)) (any (pat - - weakint|void - strict rep (pat MUL - - - strict none)) (pat - - - - strict list (pat - x - - strict none) (pat - y - - strict none))) (pat - y - - strict none))", "b", 2, " | y=b");
    ("(pat - x - - strict none)", "(SINK (SINK a) (MUL (MUL c0 b) (SINK c0)))", 1, "x=(SINK (SINK a) (MUL (MUL c0 b) (SINK c0)))");
    ("(pat - z - - any none)", "(ADD (MUL (CMPLT c1 c1) c2) c2)", 1, "z=(ADD (MUL (CMPLT c1 c1) c2) c2)");
    ("(pat - - - - any rep (pat CONST - - - strict rep (pat - y void - strict same2 (pat - y - - strict none))))", "a", 0, "");
    ("(pat - - - - strict rep (pat - - - - strict rep (pat - y - - strict same3 (pat - z - - strict none))))", "(MUL (ADD (ADD c0 a) (ADD b c1)) (ADD (ADD b a) b))", 0, "");
    ("(pat - x - - strict list (pat - z weakint|bool - any rep (any (pat - - - - strict none))) (pat - - - - strict rep (pat CONST - - - any none)))", "(ADD (CMPLT (MUL c0 a) (CMPLT c0 c0)) (MUL c1 c0))", 1, "x=(ADD (CMPLT (MUL c0 a) (CMPLT c0 c0)) (MUL c1 c0)),z=(CMPLT (MUL c0 a) (CMPLT c0 c0))");
    ("(pat - z - - strict list (pat SINK|MUL x bool - strict tuple))", "b", 0, "");
    ("(pat ADD y bool|void - strict same2 (pat - y - - strict list))", "(ADD c1 (ADD c2 (ADD c1 b)))", 0, "");
    ("(pat - y - - strict same2 (pat - x - - strict tuple (pat - - - - strict list (pat - z - - strict none)) (pat - y - - strict rep (pat - - - - strict none))))", "c0", 0, "");
    ("(pat SINK x - - strict list)", "(SINK (ADD (SINK c2 b) (CMPLT a a)) c0)", 0, "");
    ("(pat ADD z bool - any tuple (pat MUL|SINK - - - any list) (pat CMPLT y - - any list (pat SINK y void - strict tuple (pat CONST x void|weakint 0 strict none) (pat - y - - strict none)) (pat CONST x - 1 strict list)))", "(ADD (ADD c0 b) (CMPLT (SINK c1 b) c2))", 0, "");
    ("(any (pat - z void|weakint - strict none) (any (pat - z void|weakint - any none) (pat ADD - - - strict list (pat ADD y - - strict none) (pat SINK|ADD - - - strict none))) (any (pat ADD - void|bool - strict list (pat ADD x - - strict none) (pat CMPLT y - - strict none)) (pat ADD - - - strict same2 (pat ADD - - - strict none))))", "(ADD (ADD c2 (CMPLT c2 c1)) a)", 2, "z=(ADD (ADD c2 (CMPLT c2 c1)) a) | z=(ADD (ADD c2 (CMPLT c2 c1)) a)");
    ("(pat - x - - strict list (any (pat - z - - strict none) (pat - - - - any list (pat - - - - strict none)) (pat - z - - strict list (pat - z - - strict none) (pat - y - - strict none) (pat - x - - strict none))) (pat - z - - strict list (pat - x - - strict list (pat - - - - strict none)) (pat - z bool - strict list (pat - - void - any none)) (pat - y - - strict tuple)))", "a", 0, "");
    ("(pat - z - - strict none)", "(MUL (SINK) c2)", 1, "z=(MUL (SINK) c2)");
    ("(pat ADD - - - strict list (pat - y - - any rep (pat - - - - strict same2 (pat - z - - strict none))) (pat CONST - void|weakint - strict list))", "(ADD (ADD b (MUL c0 c1)) c0)", 0, "");
    ("(pat SINK|CMPLT y weakint|void - strict list (pat CMPLT - - - any list (pat - - - - strict list) (pat MUL|CMPLT y void|weakint - any list (pat CONST z - - strict none))) (pat SINK x - - any list (pat SINK x - - strict list (pat - z - - strict none) (pat CONST|SINK x - - strict none)) (pat - - - - strict tuple (pat - - - - strict none)) (pat - - - - any tuple (pat - - - - strict none) (pat - z - - strict none) (pat - x - - any none))))", "(CMPLT (CMPLT (MUL c2 a) (SINK c0)) (SINK (SINK a c2) a (CMPLT c0 a)))", 0, "");
    ("(any (pat - - - - any rep (any (pat ADD|MUL x - - strict none) (pat - y - - strict none) (pat - - - - strict none))))", "c1", 1, "");
    ("(pat - - - - any list (pat - y - - strict list))", "(ADD c0 b)", 1, "y=c0");
    ("(pat CONST x - - strict tuple (pat MUL x - - strict list (pat - x - - strict list) (any (pat - x - - strict none) (pat - - - - strict none)) (pat - z - - strict none)) (any (pat CONST|ADD - - - strict none) (any (pat CONST x - 0 strict none) (pat CONST y - - strict none))) (pat CONST|CMPLT y - - strict list (pat - z - - strict list (pat - y - - strict none) (pat CONST - - 1 any none))))", "(ADD (MUL c1 (MUL c1 a)) c2)", 0, "");
    ("(pat - z - - strict list (pat - - - - strict tuple (pat MUL|CMPLT z - - strict same2 (pat - z - - any none)) (pat ADD z - - strict rep (pat - - - - strict none)) (any (pat - z - - strict none) (pat CONST z - 0 strict none) (pat - x - - strict none))) (pat - - - - strict list (pat - z - - any rep (pat - z - - any none))) (pat - z - - strict rep (pat - x weakint - strict rep (pat - - - - any none))))", "(ADD (SINK (ADD c1 c1) c0) (MUL (ADD c0 a) c1))", 0, "");
    ("(pat CMPLT y - - strict none)", "(CMPLT (CMPLT (MUL a c0) (SINK c1)) c1)", 1, "y=(CMPLT (CMPLT (MUL a c0) (SINK c1)) c1)");
    ("(pat - - - - strict none)", "a", 1, "");
    ("(pat MUL x weakint|bool - strict rep (pat - - - - strict list (pat - - - - any tuple (pat CMPLT y - - strict none)) (any (pat CONST z - - strict none) (pat - z - - strict none) (pat - - void - strict none)) (pat - - bool - any none)))", "(MUL (CMPLT c2 c1) (MUL c1 (ADD c2 c0)))", 0, "");
    ("(pat CMPLT - - - strict same2 (pat MUL - - - strict same2 (any (pat CONST y - 0 strict none))))", "(CMPLT (CMPLT a (SINK b)) (MUL (SINK a c0 c1) a))", 0, "");
    ("(pat SINK z weakint - strict none)", "(CMPLT c0 (ADD c0 (MUL c1 a)))", 0, "");
    ("(pat CMPLT y - - any none)", "(CMPLT (SINK (SINK) (ADD c2 c0) c1) c0)", 1, "y=(CMPLT (SINK (SINK) (ADD c2 c0) c1) c0)");
    ("(pat - y - - strict rep (pat - z - - strict none))", "c2", 1, "y=c2");
    ("(pat - x - - strict none)", "(CMPLT (MUL c1 (SINK)) c0)", 1, "x=(CMPLT (MUL c1 (SINK)) c0)");
    ("(any (pat MUL|CMPLT - - - any rep (pat - x - - strict list (pat ADD|CMPLT x weakint - strict none))) (pat MUL x - - strict none))", "(MUL (MUL (CMPLT c2 c0) (ADD c2 a)) (MUL (CMPLT c0 c1) (SINK)))", 1, "x=(MUL (MUL (CMPLT c2 c0) (ADD c2 a)) (MUL (CMPLT c0 c1) (SINK)))");
    ("(pat MUL y - - strict rep (pat MUL z - - any list (pat - y void - strict none)))", "(MUL (SINK c2) (ADD (ADD c2 c1) (MUL c0 a)))", 0, "");
    ("(any (pat CONST - - - strict none) (pat CONST y - - strict list) (any (pat - z - - strict list)))", "c2", 3, " | y=c2 | z=c2");
    ("(pat MUL - - - strict none)", "(MUL c0 b)", 1, "");
    ("(any (pat - x - - strict none))", "b", 1, "x=b");
    ("(pat CMPLT x - - strict none)", "(SINK c2 (MUL (SINK c2 c0 c1) (CMPLT b c1)))", 0, "");
    ("(pat SINK x - - any list)", "(SINK)", 1, "x=(SINK)");
    ("(pat - - - - strict same2 (pat - x - - strict none))", "(ADD (SINK a (CMPLT a c2) b) (ADD (SINK c0 c2) (SINK a c0 c1)))", 0, "");
    ("(pat - x - - strict none)", "(MUL (ADD (SINK c2) (ADD b c0)) (CMPLT (CMPLT b b) c1))", 1, "x=(MUL (ADD (SINK c2) (ADD b c0)) (CMPLT (CMPLT b b) c1))");
    ("(pat MUL y - - any list (pat - - - - strict none) (pat ADD - - - strict rep (pat CMPLT z - - any none)))", "(MUL c0 (ADD (CMPLT c2 c1) c2))", 0, "");
    ("(pat - x - - strict none)", "(CMPLT c2 (SINK))", 1, "x=(CMPLT c2 (SINK))");
    ("(pat CONST - - - strict none)", "c0", 1, "");
    ("(pat - - - - strict tuple (any (pat ADD z - - strict same2 (pat - y - - strict none)) (pat - z - - strict none)) (pat ADD|SINK - - - strict none) (pat - y - - strict tuple (pat - - - - any list (pat - - - - any none) (pat - - - - strict none)) (pat - - - - strict list) (any (pat - z - - strict none))))", "(SINK)", 0, "");
    ("(pat ADD - - - strict none)", "(ADD c1 a)", 1, "");
    ("(pat MUL z - - strict none)", "(MUL (CMPLT c0 (SINK b)) (SINK (ADD b c2) (ADD a c0)))", 1, "z=(MUL (CMPLT c0 (SINK b)) (SINK (ADD b c2) (ADD a c0)))");
    ("(any (pat - y - - any tuple) (pat ADD z - - any none) (any (pat ADD - - - strict list (pat CMPLT - - - strict none) (pat CMPLT|CONST z - - strict none))))", "(ADD (CMPLT (CMPLT a c1) (CMPLT b a)) (ADD (ADD c2 a) b))", 2, "y=(ADD (CMPLT (CMPLT a c1) (CMPLT b a)) (ADD (ADD c2 a) b)) | z=(ADD (CMPLT (CMPLT a c1) (CMPLT b a)) (ADD (ADD c2 a) b))");
    ("(pat SINK y - - strict tuple (any (any (pat CONST - - 1 any none) (pat CMPLT - bool - strict none) (pat - y - - strict none)) (pat - z - - strict none)))", "(SINK (CMPLT (ADD c0 c1) (ADD b c2)))", 2, "y=(SINK (CMPLT (ADD c0 c1) (ADD b c2))) | y=(SINK (CMPLT (ADD c0 c1) (ADD b c2))),z=(CMPLT (ADD c0 c1) (ADD b c2))");
    ("(pat - x - - strict rep (pat - - - - any none))", "(MUL (SINK c0) (CMPLT c0 (MUL b b)))", 1, "x=(MUL (SINK c0) (CMPLT c0 (MUL b b)))");
    ("(pat - - - - strict list (pat - - - - strict same2 (pat MUL z - - strict tuple (pat - z - - strict none) (pat CONST z - 2 any none))) (pat - - - - strict none))", "(ADD (CMPLT (MUL b c0) (ADD c2 c2)) (SINK (SINK) (CMPLT c2 b)))", 0, "");
    ("(pat SINK z - - any rep (pat - - weakint|bool - strict same2 (pat SINK - weakint|bool - any same2 (pat MUL|SINK - - - strict none))))", "(SINK (CMPLT (SINK b) c0) c1 a)", 0, "");
    ("(pat - y - - strict same3 (pat - - - - strict same2 (pat MUL|SINK y - - strict rep (pat - x - - strict none))))", "(CMPLT (CMPLT (MUL a c0) (ADD c2 c1)) (MUL (SINK c0) b))", 0, "");
    ("(pat - y - - strict none)", "(SINK (ADD (ADD b c1) (MUL b c1)))", 1, "y=(SINK (ADD (ADD b c1) (MUL b c1)))");
    ("(any (pat ADD x - - strict same2 (pat - z - - strict none)) (pat ADD x - - strict tuple (pat CMPLT z - - strict rep (pat CMPLT - - - strict none)) (pat - - - - any rep (pat CONST|CMPLT x - - strict none))) (any (any (pat CMPLT - weakint|bool - strict none) (pat ADD z - - strict none) (pat CMPLT z - - strict none)) (pat SINK z bool - strict list (pat CMPLT y - - strict none)) (pat ADD x - - strict list (pat CMPLT x void|bool - strict none) (pat CMPLT y - - strict none))))", "(ADD (CMPLT (CMPLT c1 c2) (MUL a c2)) (CMPLT (ADD a a) c1))", 1, "z=(ADD (CMPLT (CMPLT c1 c2) (MUL a c2)) (CMPLT (ADD a a) c1))");
    ("(pat CONST z - - strict tuple)", "c1", 1, "z=c1");
    ("(pat - - - - strict none)", "(SINK c2 (CMPLT a c2) (SINK c0 (MUL a c1)))", 1, "");
    ("(pat CMPLT - - - strict tuple (any (pat SINK - - - strict none) (any (pat SINK - bool - strict none) (pat SINK x - - strict none) (pat CONST - - - strict none))) (pat CMPLT y - - strict same2 (pat ADD|CONST z - - strict none)))", "(CMPLT (SINK (CMPLT c0 c0)) (CMPLT (CMPLT c2 b) c0))", 0, "");
    ("(pat MUL - - - strict tuple (pat CONST - void|weakint 2 any list (pat SINK x - - any none)) (pat CMPLT z - - strict list (pat - z - - strict same2 (pat - z - - strict none)) (pat - - - - strict same2 (pat MUL z - - strict none))))", "(CMPLT (SINK (SINK c0)) (CMPLT a (SINK b c1)))", 0, "");
    ("(any (pat MUL - - - strict list (any (pat - x - - strict none) (pat - - - - strict none) (pat - y - - strict none)) (pat - x - - strict none)) (pat - - - - strict list))", "(MUL (ADD (SINK c2) c1) (ADD (CMPLT b c2) c0))", 4, "x=(ADD (CMPLT b c2) c0) | x=(ADD (CMPLT b c2) c0),y=(ADD (SINK c2) c1) | x=(ADD (SINK c2) c1) | x=(ADD (SINK c2) c1),y=(ADD (CMPLT b c2) c0)");
    ("(pat ADD z - - strict rep (pat SINK|CMPLT x - - strict tuple (any (pat - - - - any none) (pat - - - - any none))))", "(ADD a c1)", 0, "");
    ("(pat MUL y - - strict list (pat - - - - strict list (pat - - - - strict none) (pat - y - - strict tuple (pat - x - - strict none))) (pat CMPLT - - - strict list (pat - - - - strict list (pat CMPLT z - - strict none) (pat - y - - strict none) (pat - - bool|weakint - any none)) (pat SINK - - - any same3 (pat - z - - strict none))))", "(MUL c0 (CMPLT b (SINK a b b)))", 0, "");
    ("(pat ADD y - - strict rep (pat - x - - strict rep (pat - z - - strict list (pat ADD|SINK - void|weakint - any none))))", "(ADD b (ADD a b))", 0, "");
    ("(pat - y - - strict tuple (pat - - - - any list (any (pat - x - - strict none) (pat CONST y - - strict none) (pat - y - - any none)) (any (pat - - - - any none)) (pat - - - - any list (pat CONST x - 1 any none))) (pat - y - - strict rep (any (pat - - - - strict none) (pat - z - - any none))) (pat - - - - strict tuple))", "(SINK (ADD (MUL c1 b) (CMPLT c2 a)) c1)", 0, "");
    ("(pat CONST|SINK - - - strict same3 (pat CONST|CMPLT x - - strict list (pat ADD x - - strict none) (pat - y weakint - strict list)))", "b", 0, "");
    ("(pat CMPLT z - - strict none)", "(CMPLT (SINK) (MUL c2 (SINK b a)))", 1, "z=(CMPLT (SINK) (MUL c2 (SINK b a)))");
    ("(pat - - - - strict none)", "(ADD c2 (SINK c2 (CMPLT c0 c0) c0))", 1, "");
    ("(pat SINK - - - strict same2 (pat MUL - - - strict list (pat - - - - strict list) (pat - - - - any same2 (pat - - - - strict none))))", "(SINK)", 0, "");
    ("(pat CONST - - 2 strict list (pat - x - - strict same2 (pat - z - - strict list)) (pat SINK|CONST x - - any same3 (pat CMPLT|MUL - weakint|void - strict list (pat CONST|SINK - bool|void - strict none) (pat ADD|MUL y - - strict none))))", "(CMPLT (ADD (CMPLT c2 a) (ADD c1 c0)) (CMPLT (MUL c2 c2) (CMPLT a a)))", 0, "");
    ("(pat - y - - strict none)", "a", 1, "y=a");
    ("(pat - x - - any same2 (pat - - - - strict rep (pat ADD - - - strict none)))", "c1", 0, "");
    ("(pat ADD - - - any tuple (pat - - - - strict same2 (pat ADD y - - any list)) (pat CONST|CMPLT - - - strict list (any (pat - - - - any none) (pat - y - - strict none) (pat MUL x - - any none)) (any (pat CMPLT y - - strict none)) (pat - z - - strict list (pat - x - - any none) (pat CMPLT|MUL z - - strict none))))", "(ADD (CMPLT (CMPLT c0 b) c1) (SINK (MUL a a) (CMPLT b b) (CMPLT b a)))", 0, "");
    ("(pat ADD - - - strict same2 (pat MUL|ADD - - - any none))", "(ADD b (ADD (ADD b c2) (MUL b c2)))", 0, "");
    ("(pat SINK|CMPLT y - - strict none)", "(CMPLT (SINK (ADD c0 c0) c2) (ADD (MUL b a) (CMPLT b c2)))", 1, "y=(CMPLT (SINK (ADD c0 c0) c2) (ADD (MUL b a) (CMPLT b c2)))");
    ("(pat CONST y - 0 strict none)", "(MUL (ADD (SINK c1 a) (ADD c1 a)) (MUL (MUL a a) (SINK c0)))", 0, "");
    ("(pat - - - - strict none)", "(ADD (SINK (CMPLT b b) b) (SINK c0 (ADD a c2) (MUL c2 c2)))", 1, "");
    ("(pat ADD z bool|weakint - strict list (pat - y - - strict same2 (pat ADD x weakint - any list (pat MUL z - - strict none) (pat CONST - void|weakint - strict none))) (any (any (pat ADD z weakint - strict none) (pat MUL x - - strict none))))", "(ADD (MUL (ADD b c2) (CMPLT c2 c1)) (MUL (CMPLT c2 c2) (MUL c0 c0)))", 0, "");
    ("(pat - x - - strict same2 (any (pat - z - - strict none)))", "a", 0, "");
    ("(any (pat CONST|ADD y - - strict same2 (pat CONST x - - strict list (pat - z - - strict none) (pat - - - - strict none))) (pat - - - - any list))", "(CMPLT (SINK (CMPLT c1 c1) (MUL b c0) c2) c2)", 1, "");
    ("(pat - x - - any none)", "c1", 1, "x=c1");
    ("(pat - y - - strict rep (pat - y - - any list (pat - z - - strict tuple) (pat - - - - strict list (pat - x - - strict none)) (pat - x - - strict tuple)))", "(CMPLT c2 (SINK (SINK c1 b) (MUL c2 a) (MUL a a)))", 0, "");
    ("(pat - - - - strict same2 (pat - z - - strict tuple (pat CONST - - - strict list)))", "(ADD c1 (SINK))", 0, "");
    ("(pat SINK - - - any rep (any (pat - y - - strict none) (any (pat ADD|CONST x - - strict none) (pat CONST z - - strict none) (pat MUL|ADD z - - strict none))))", "(SINK c2 c1 (CMPLT c1 b))", 2, "x=c2,y=(CMPLT c1 b),z=c1 | x=c1,y=(CMPLT c1 b),z=c2");
    ("(pat CMPLT - void - any rep (pat SINK|MUL x - - any list (pat MUL - - - any list (pat ADD - weakint - any none) (pat CONST - - 2 any none)) (pat - z - - strict same2 (pat - x - - any none))))", "(CMPLT (MUL (MUL a c1) (ADD c2 c1)) c1)", 0, "");
    ("(pat - y - - strict none)", "(SINK)", 1, "y=(SINK)");
    ("(pat CONST|SINK y - - any tuple (pat - z - - any list (any (pat - z - - strict none) (pat - y bool - strict none)) (pat - - - - strict none)) (pat CMPLT|CONST - - - strict list (pat - z - - strict list (pat - - - - strict none)) (pat - - - - any list (pat - - - - any none))))", "(MUL c0 (MUL a a))", 0, "");
    ("(pat - y void|bool - strict list)", "b", 0, "");
    ("(pat ADD - - - strict same2 (pat CMPLT y - - strict list (pat - y - - strict list (pat CONST|MUL z - - strict none)) (pat SINK - - - any list)))", "(CMPLT (CMPLT b (SINK)) (CMPLT (CMPLT b b) (MUL c0 c0)))", 0, "");
    ("(pat SINK z - - strict none)", "(SINK c1 (MUL (MUL c2 b) (SINK c0)))", 1, "z=(SINK c1 (MUL (MUL c2 b) (SINK c0)))");
    ("(pat - z - - strict tuple (pat - y - - strict tuple))", "(SINK (MUL (ADD c0 c0) (MUL a c0)) (SINK (ADD c0 a)))", 0, "");
    ("(pat SINK|MUL x void - strict list (pat - y void - any list (pat ADD x void|weakint - any tuple)) (any (pat - - - - strict list)))", "(ADD a (SINK a (SINK a c2)))", 0, "");
    ("(pat ADD x - - strict rep (pat MUL|SINK x - - strict none))", "(ADD (ADD (CMPLT c2 c1) (SINK c0 a)) c1)", 0, "");
    ("(any (pat CMPLT|CONST z - - any none) (any (pat - y - - strict none) (any (pat MUL x - - strict none) (pat - x - - strict none))))", "a", 2, "y=a | x=a");
    ("(pat CONST|CMPLT - weakint - strict list (any (pat CMPLT z - - strict same2 (pat - x bool - any none))) (pat ADD - - - any list (pat - z - - any none) (pat - y - - any list (pat ADD y - - strict none))))", "(MUL (SINK a) (ADD c0 (MUL c1 c1)))", 0, "");
    ("(pat MUL x - - strict tuple (pat CMPLT x void|bool - strict tuple (pat CMPLT|SINK x - - strict rep (pat - x - - strict none)) (pat ADD y - - strict none)))", "(MUL (CMPLT a (ADD a c2)) (CMPLT (ADD c2 a) (MUL c1 a)))", 0, "");
    ("(any (pat - z - - strict none) (pat ADD y - - strict same2 (pat MUL z - - strict none)) (any (pat ADD x - - strict same2 (pat MUL x - - strict none)) (pat ADD x - - strict none)))", "(ADD (MUL (MUL c2 b) a) (SINK (SINK a) (ADD c0 c0) b))", 2, "z=(ADD (MUL (MUL c2 b) a) (SINK (SINK a) (ADD c0 c0) b)) | x=(ADD (MUL (MUL c2 b) a) (SINK (SINK a) (ADD c0 c0) b))");
    ("(pat CMPLT x - - any list (pat MUL - - - strict list (pat - z - - strict none) (any (pat MUL y - - strict none))) (pat MUL z bool - strict list (pat - - - - strict none) (pat - x - - strict rep (pat - - - - strict none))))", "(CMPLT (MUL (MUL c1 c2) (ADD c0 b)) (MUL a a))", 0, "");
    ("(pat - z - - strict none)", "b", 1, "z=b");
    ("(pat - x - - strict none)", "(SINK b (MUL b (MUL c0 c0)) (SINK c2))", 1, "x=(SINK b (MUL b (MUL c0 c0)) (SINK c2))");
    ("(pat CONST z - 1 strict rep (pat - - - - strict none))", "c1", 1, "z=c1");
    ("(pat SINK x - - strict none)", "(SINK b)", 1, "x=(SINK b)");
    ("(pat - y - - any rep (pat - - - - any list))", "a", 1, "y=a");
    ("(pat ADD x void|bool - strict none)", "(ADD (SINK (MUL b c0) c1) (CMPLT (CMPLT c1 b) (SINK b b)))", 0, "");
    ("(any (any (pat MUL - void|weakint - strict none) (any (pat MUL x void|weakint - strict none) (pat MUL - - - strict none))) (pat CMPLT|CONST z weakint|bool - any rep (pat - y bool - any tuple (pat - - weakint|bool - strict none) (pat ADD|CONST z - - any none))) (pat MUL - - - strict tuple (pat - y weakint - strict list (pat CMPLT z - - strict none) (pat - x - - strict none) (pat CONST|SINK x weakint - any none)) (pat - z - - strict tuple)))", "(MUL (ADD (CMPLT c2 c1) b) c0)", 3, " | x=(MUL (ADD (CMPLT c2 c1) b) c0) | ");
    ("(pat - - - - any tuple)", "c2", 1, "");
    ("(pat ADD - - - strict same2 (pat ADD - - - strict tuple (pat - - - - strict list (pat - z - - strict none) (pat - z - - any none)) (pat CMPLT|ADD z - - strict tuple (pat CONST x - - strict none) (pat - x - - strict none))))", "(ADD (ADD (CMPLT b a) (ADD b c1)) (ADD (SINK) b))", 0, "");
    ("(pat CONST y - - strict list)", "c2", 1, "y=c2");
    ("(pat CMPLT z - - strict list (pat ADD - - - strict list (pat - z - - any tuple) (pat SINK - - - strict tuple (pat - - - - strict none) (pat - - - - strict none))) (any (pat - x - - strict none)))", "(CMPLT c0 (CMPLT (MUL c1 c0) c0))", 0, "");
    ("(pat CONST y void|bool 0 strict list)", "c2", 0, "");
    ("(pat MUL z - - strict same2 (pat - - - - strict tuple (any (pat - y - - strict none))))", "(MUL b a)", 1, "y=(STACK),z=(MUL b a)");
    ("(any (pat CONST - weakint|void 2 strict tuple (pat CMPLT|ADD x - - any none)) (pat CONST - - 1 strict rep (pat - y - - strict rep (pat - z - - any none))))", "c1", 1, "");
    ("(pat CONST - - - any same2 (any (pat - - - - strict same3 (pat MUL y - - strict none)) (pat CONST z - - strict none) (pat CONST x - - any rep (pat - x bool|weakint - strict none))))", "(CMPLT c0 a)", 0, "");
    ("(pat SINK y - - strict same2 (pat - y - - any list (pat SINK z - - strict list)))", "(SINK b c0 a)", 0, "");
    ("(any (any (any (pat CMPLT - - - strict none) (pat CMPLT y void|bool - strict none) (pat ADD - weakint|void - any none)) (pat - x - - strict tuple (pat - z - - strict none) (pat ADD|CONST z - - strict none)) (pat - - - - strict rep (pat CMPLT - - - strict none))) (any (pat CMPLT - - - strict none) (pat CMPLT y - - strict list (pat - - - - strict none) (pat - - void|weakint - any none)) (pat ADD x - - any none)) (pat - z - - strict same2 (pat CMPLT - - - strict list (pat CMPLT - void - strict none) (pat ADD z - - strict none))))", "(CMPLT (CMPLT (CMPLT c1 a) (MUL c1 c0)) (ADD (ADD c1 c2) (SINK b c1)))", 4, " | y=(CMPLT (CMPLT (CMPLT c1 a) (MUL c1 c0)) (ADD (ADD c1 c2) (SINK b c1))) |  | y=(CMPLT (CMPLT (CMPLT c1 a) (MUL c1 c0)) (ADD (ADD c1 c2) (SINK b c1)))");
    ("(pat - - bool - strict list (pat - z - - any none))", "c2", 0, "");
    ("(any (any (pat CONST|MUL z - - strict rep (pat - - - - strict none)) (pat ADD|CMPLT - - - strict same2 (pat - x - - strict none))) (pat ADD - - - strict none))", "(CMPLT (ADD b (ADD c0 c0)) (ADD (MUL c1 c1) (MUL c0 c1)))", 0, "");
    ("(pat CONST y - 1 strict same2 (pat - z - - strict list (pat - x - - strict rep (pat - z - - strict none))))", "c0", 0, "");
    ("(pat CMPLT y - - any none)", "(CMPLT (MUL b c2) c0)", 1, "y=(CMPLT (MUL b c2) c0)");
    ("(any (pat - x - - strict tuple (any (pat - - - - strict none))) (pat - - - - strict same2 (any (pat ADD y - - strict none) (pat - - weakint|bool - any none))))", "(MUL c2 (SINK c2))", 0, "");
    ("(pat - - - - any list (pat MUL|CMPLT y - - strict list (pat - y - - strict rep (pat CMPLT y - - strict none)) (pat - - - - strict rep (pat ADD - - - any none))) (pat - - - - strict rep (pat CONST z - 2 strict list)))", "(CMPLT (CMPLT (CMPLT c0 c0) (CMPLT c2 c0)) (MUL a a))", 0, "");
    ("(pat MUL z - - any none)", "(MUL (CMPLT (CMPLT c0 a) c2) (MUL (CMPLT b c0) a))", 1, "z=(MUL (CMPLT (CMPLT c0 a) c2) (MUL (CMPLT b c0) a))");
    ("(pat - z - - strict rep (pat ADD - - - strict list))", "(MUL (MUL (ADD b c0) c0) (ADD (SINK c2 b) (SINK)))", 0, "");
    ("(pat CONST - - - any none)", "c2", 1, "");
    ("(pat - x - - strict none)", "(SINK (SINK c2 (MUL b c0)) (CMPLT (SINK c0) c2) (SINK c2))", 1, "x=(SINK (SINK c2 (MUL b c0)) (CMPLT (SINK c0) c2) (SINK c2))");
    ("(pat - z - - strict rep (pat - - - - strict list))", "c1", 1, "z=c1");
    ("(pat CONST - - 1 strict none)", "(ADD a (ADD c0 (CMPLT c1 c1)))", 0, "");
    ("(pat SINK z bool - strict list (pat CMPLT z - - strict tuple (pat CMPLT - - - strict tuple (pat - y - - strict none) (pat CONST - - 1 strict none)) (any (pat - z - - any none) (pat CMPLT|MUL - - - strict none))))", "(SINK (CMPLT (CMPLT c2 c1) (SINK)))", 0, "");
    ("(pat - x - - strict none)", "b", 1, "x=b");
    ("(pat CMPLT - - - strict none)", "(CMPLT c1 (MUL a (CMPLT c2 c1)))", 1, "");
    ("(pat CMPLT|MUL x - - strict list (pat - z void - strict list (pat - - - - strict list (pat - y - - strict none)) (pat - z - - any list (pat - - - - strict none) (pat - - - - any none))) (pat - x - - any list (pat - - - - strict rep (pat - z - - strict none)) (pat - - - - strict none) (pat SINK - - - strict same2 (pat - x - - any none))))", "c0", 0, "");
    ("(pat SINK|CONST - bool|weakint - any none)", "a", 0, "");
    ("(pat - x - - any none)", "c1", 1, "x=c1");
    ("(any (pat MUL - - - strict none) (pat CMPLT|SINK - - - strict rep (pat CMPLT z - - strict rep (pat MUL z - - strict none))) (pat MUL - - - strict none))", "(MUL (CMPLT c0 (SINK a c0)) c2)", 2, " | ");
    ("(pat MUL - - - strict none)", "(MUL c2 (ADD (ADD c2 c2) c0))", 1, "");
    ("(pat CMPLT y - - strict list (pat - y - - strict list (pat - y - - strict none) (pat - z - - any same3 (pat CONST x - 1 strict none))) (pat CMPLT z - - strict rep (pat ADD x - - strict list (pat - - - - strict none))))", "(CMPLT (MUL c0 c2) (CMPLT (MUL c2 c1) (SINK b)))", 0, "");
    ("(pat - z - - strict list (pat MUL x - - strict same3 (pat - x void|bool - any same2 (pat - y - - any none))) (pat - y - - any rep (pat - z - - strict none)))", "(ADD (MUL (SINK c0 b) (CMPLT a c0)) c2)", 0, "");
    ("(pat SINK - - - strict list (pat CONST x - 2 any none))", "(ADD (SINK (SINK)) (SINK (SINK) (SINK b) b))", 0, "");
    ("(pat - - - - strict tuple)", "(SINK)", 1, "");
    ("(pat CONST - void|weakint - strict same2 (pat - - void - strict list (pat - x - - strict tuple (pat - y - - strict none))))", "c0", 0, "");
    ("(pat CMPLT y - - strict none)", "(CMPLT (MUL (MUL c2 c2) c0) (ADD (CMPLT b c0) c1))", 1, "y=(CMPLT (MUL (MUL c2 c2) c0) (ADD (CMPLT b c0) c1))");
    ("(pat CMPLT - - - strict list (pat MUL x - - strict list (pat MUL x - - strict list) (any (pat - - - - any none))) (any (pat - - - - strict none) (pat - z void|bool - any none)))", "(CMPLT (ADD (MUL c0 b) (MUL c0 a)) c0)", 0, "");
    ("(pat - x - - strict list)", "(MUL (CMPLT (MUL c1 c2) (MUL c0 a)) (SINK c2))", 0, "");
    ("(pat CMPLT - - - strict list (pat CMPLT x - - strict none) (pat - y - - strict list (pat - z - - strict none)))", "(CMPLT (CMPLT (CMPLT c1 b) (ADD a c1)) a)", 1, "x=(CMPLT (CMPLT c1 b) (ADD a c1)),y=a,z=(STACK)");
    ("(pat - z weakint - strict rep (pat SINK x bool - strict list (pat ADD - - - strict tuple (pat CONST - - 1 strict none))))", "(ADD (SINK (ADD c0 b)) (ADD (MUL c1 c2) (MUL b c0)))", 0, "");
    ("(any (pat CONST x bool 2 strict none) (pat SINK|CONST z - - strict none))", "(SINK (CMPLT (SINK c1 c2) c0))", 1, "z=(SINK (CMPLT (SINK c1 c2) c0))");
    ("(any (pat - x - - strict list (any (pat - x bool|void - strict none))) (pat - y - - strict list (pat - x void|weakint - any none)) (pat - x - - strict rep (pat SINK - - - strict list (pat - x weakint|bool - strict none))))", "a", 1, "x=(STACK),y=a");
    ("(pat SINK y void - strict tuple (pat - z weakint - any none))", "(SINK c0 (CMPLT c1 (ADD a c0)))", 0, "");
    ("(any (pat - - - - strict tuple (pat CONST y - 0 strict list (pat - - - - strict none) (pat SINK x - - strict none) (pat - x - - strict none)) (pat CMPLT y weakint|void - strict none) (any (pat - x - - strict none))) (pat - - - - strict same3 (pat - z - - strict list (pat - z - - strict none))))", "(SINK (ADD (ADD b c0) (ADD b c0)) (CMPLT b (MUL c2 c0)))", 0, "");
    ("(pat ADD|MUL - - - strict none)", "c2", 0, "");
    ("(pat - - - - strict none)", "a", 1, "");
    ("(pat - - - - strict rep (pat CMPLT y - - strict list))", "(ADD a (CMPLT (ADD a b) (CMPLT c0 a)))", 0, "");
    ("(any (pat SINK|ADD x - - strict same2 (pat MUL x - - strict tuple)) (pat - z - - strict none) (any (pat - y - - strict tuple (pat - - - - any none))))", "a", 2, "z=a | y=a");
    ("(pat CMPLT - - - strict same2 (pat SINK x - - any tuple (pat ADD z - - strict list (pat - y - - strict none) (pat CMPLT - bool - strict none)) (pat CMPLT - - - strict list (pat - - - - any none) (pat ADD|SINK y - - strict none))))", "(CMPLT (SINK (ADD c1 c0) (CMPLT c1 a)) a)", 0, "");
    ("(pat SINK z - - strict list (pat CMPLT - bool|void - any rep (pat - - - - strict none)))", "(SINK (CMPLT a (ADD c2 c0)))", 1, "z=(SINK (CMPLT a (ADD c2 c0)))");
    ("(any (pat CONST y - - any list) (pat CONST - - 1 any none))", "c2", 1, "y=c2");
    ("(pat - z weakint|bool - strict none)", "b", 1, "z=b");
    ("(any (pat CONST z void|bool 1 any none) (pat CONST x bool|void 1 strict rep (pat SINK|ADD x - - strict list (pat - z - - strict none))) (pat - y - - strict list))", "c1", 1, "y=c1");
    ("(pat - x - - strict tuple (pat - z bool - strict tuple))", "a", 0, "");
    ("(pat - y - - any none)", "a", 1, "y=a");
    ("(any (pat - x - - strict rep (pat - - - - any tuple (pat SINK - - - strict none) (pat - y - - strict none))) (pat - y - - strict none))", "(CMPLT (CMPLT c2 b) a)", 1, "y=(CMPLT (CMPLT c2 b) a)");
    ("(any (pat - - - - strict none) (any (pat CONST z - 1 strict list) (pat CONST - - 1 strict list) (pat CONST|ADD - - - strict none)) (pat - - - - strict list (any (pat CONST|CMPLT x - - strict none) (pat - z weakint - strict none) (pat - - weakint|bool - strict none)) (any (pat - x - - strict none) (pat SINK y - - any none) (pat - y - - strict none)) (any (pat SINK y - - strict none) (pat CONST - - 2 strict none))))", "c1", 4, " | z=c1 |  | ");
    ("(any (pat - - - - strict tuple (any (pat ADD x weakint|bool - any none) (pat - - - - strict none))) (pat SINK|MUL - weakint - strict list (pat CMPLT - - - strict rep (pat - y - - strict none))) (any (pat CONST z - - strict list (pat MUL|ADD z bool|weakint - any none) (pat - z - - strict none)) (pat CONST z - 0 strict tuple)))", "c1", 0, "");
    ("(pat - y - - any none)", "(MUL (ADD a (SINK a)) (MUL (ADD c1 b) (CMPLT b c1)))", 1, "y=(MUL (ADD a (SINK a)) (MUL (ADD c1 b) (CMPLT b c1)))");
    ("(pat - y - - strict none)", "(CMPLT (SINK (ADD c1 c2) b (CMPLT c0 b)) b)", 1, "y=(CMPLT (SINK (ADD c1 c2) b (CMPLT c0 b)) b)");
    ("(pat MUL|ADD y - - any rep (pat - z - - strict same3 (pat - x - - strict same3 (pat - - - - strict none))))", "c2", 0, "");
    ("(pat - x - - strict none)", "b", 1, "x=b");
    ("(pat SINK - - - any rep (pat - z - - any same3 (pat SINK - - - strict list (pat - - - - strict none))))", "(SINK)", 1, "");
    ("(pat MUL z - - any same2 (pat - y - - strict none))", "(SINK (SINK (CMPLT c1 c2) (ADD c2 c2) (MUL c0 c0)) (SINK c2 (SINK)) (CMPLT c1 (MUL c1 c0)))", 0, "");
    ("(pat CMPLT - - - strict rep (any (pat - y - - strict list (pat ADD|CMPLT x - - strict none) (pat - z - - strict none) (pat CONST z - 2 any none)) (pat - - - - strict none)))", "(CMPLT (SINK a a c1) c2)", 1, "");
    ("(pat SINK y - - any list (pat CONST - bool|weakint - strict list))", "(SINK c2)", 1, "y=(SINK c2)");
    ("(any (pat - z - - any same2 (pat - x - - strict rep (pat - y bool - strict none))) (pat - y - - strict none) (pat - y - - strict rep (pat MUL z - - strict tuple (pat - y - - strict none) (pat - x - - strict none) (pat - x - - any none))))", "b", 1, "y=b");
    ("(pat - - - - strict same3 (pat - y - - strict rep (pat - y - - strict none)))", "(MUL c2 (MUL (SINK) (ADD c0 c2)))", 0, "");
    ("(pat - z void - strict same2 (pat ADD|CONST - - - strict none))", "(MUL (MUL (CMPLT c1 a) (MUL b b)) c1)", 0, "");
    ("(pat - - - - strict list)", "(CMPLT (MUL (ADD c1 c0) (ADD b c1)) c1)", 0, "");
    ("(pat SINK|ADD - void - strict list)", "(MUL (MUL (SINK c1 c2 a) (MUL c1 b)) (ADD c0 (SINK)))", 0, "");
    ("(pat CMPLT|MUL x - - strict list (pat - x - - strict none) (pat - y - - strict same3 (pat - - - - strict list (pat SINK x bool|void - strict none))) (pat - z void|bool - strict list (pat - - - - strict list (pat SINK|CONST - - - strict none) (pat MUL - void - strict none)) (pat - z - - strict tuple (pat - - - - strict none))))", "c0", 0, "");
    ("(pat SINK - - - strict list (pat SINK x - - strict same2 (pat - y - - strict tuple)) (pat MUL x - - any list (pat - - - - strict none) (pat - z - - strict none) (pat - z void - strict list)) (pat CONST z - 1 strict same2 (pat - - - - strict rep (pat - - - - strict none))))", "(SINK (SINK) (MUL c0 (SINK b)) c2)", 0, "");
    ("(pat MUL|ADD y - - strict list (pat - - void|weakint - strict none) (any (pat - - - - any none)))", "(ADD (MUL (SINK c0 c2) c2) b)", 2, "y=(ADD (MUL (SINK c0 c2) c2) b) | y=(ADD (MUL (SINK c0 c2) c2) b)");
    ("(pat - x - - strict rep (pat CONST x - - strict none))", "(SINK (ADD (SINK) c2))", 0, "");
    ("(any (pat - - - - strict list (pat - x - - any none) (pat SINK - - - strict rep (pat MUL|ADD x - - strict none))))", "(ADD a (SINK (MUL b c1)))", 0, "");
    ("(pat ADD|CONST - - - strict list (pat CONST|CMPLT y void - any list (pat ADD x bool - strict same2 (pat - - - - strict none)) (pat ADD y weakint|void - any rep (pat - - - - strict none))) (pat CMPLT - - - strict none))", "(MUL (ADD c1 a) (CMPLT (ADD c1 c2) a))", 0, "");
    ("(pat - z - - strict none)", "c0", 1, "z=c0");
    ("(pat - - - - strict rep (pat - x - - strict none))", "(SINK)", 1, "");
    ("(pat - x - - strict none)", "(ADD (CMPLT (CMPLT b b) (MUL b c1)) (SINK))", 1, "x=(ADD (CMPLT (CMPLT b b) (MUL b c1)) (SINK))");
    ("(pat - z - - strict none)", "(SINK)", 1, "z=(SINK)");
    ("(pat - - weakint|bool - strict list (pat CONST|MUL y bool|weakint - strict none) (pat - x - - any same2 (any (pat - z - - strict none))))", "a", 0, "");
    ("(any (pat - z - - any none) (pat - y - - strict list (any (pat - y - - strict none) (pat - - - - strict none) (pat - y weakint|bool - strict none)) (any (pat - x bool - strict none) (pat - z - - strict none)) (any (pat - z - - strict none) (pat MUL|SINK x - - strict none))) (pat - x bool - strict none))", "(CMPLT (CMPLT c0 (SINK c0)) (CMPLT (MUL c0 c1) (ADD c0 a)))", 2, "z=(CMPLT (CMPLT c0 (SINK c0)) (CMPLT (MUL c0 c1) (ADD c0 a))) | x=(CMPLT (CMPLT c0 (SINK c0)) (CMPLT (MUL c0 c1) (ADD c0 a)))");
    ("(pat - x - - strict none)", "c1", 1, "x=c1");
    ("(pat CMPLT z void|bool - strict none)", "(CMPLT (SINK (CMPLT c0 c2) c0) (CMPLT (MUL a a) c1))", 1, "z=(CMPLT (SINK (CMPLT c0 c2) c0) (CMPLT (MUL a a) c1))");
    ("(pat ADD|CMPLT x - - strict list (pat - - - - strict list (any (pat CMPLT|CONST z - - any none) (pat - y - - strict none))) (pat CMPLT z - - strict none) (any (pat - - - - strict tuple)))", "(CMPLT a (SINK (MUL c0 c1)))", 0, "");
    ("(pat - y - - strict rep (pat - - - - strict rep (pat SINK|CONST x - - any rep (pat - y - - strict none))))", "(CMPLT (ADD (ADD b b) b) (ADD (MUL c2 c0) a))", 0, "");
    ("(pat - - - - strict list (any (pat - y - - strict rep (pat - - weakint - any none)) (pat - y - - any tuple (pat - z - - any none) (pat - y - - strict none))) (pat - x - - strict tuple (pat - z - - any list) (pat - - - - strict list (pat - z - - strict none)) (pat - z void|weakint - strict rep (pat - - - - strict none))))", "c1", 0, "");
    ("(pat MUL z - - any none)", "(MUL c2 (CMPLT (ADD c1 c2) (ADD c0 a)))", 1, "z=(MUL c2 (CMPLT (ADD c1 c2) (ADD c0 a)))");
    ("(pat - x - - any none)", "(ADD (CMPLT c2 c1) (MUL c1 a))", 1, "x=(ADD (CMPLT c2 c1) (MUL c1 a))");
    ("(pat SINK x - - strict same2 (pat MUL|ADD y - - strict list (pat - x - - strict list)))", "(SINK)", 0, "");
    ("(pat CONST - - - strict tuple)", "c0", 1, "");
    ("(pat CMPLT y - - strict list (pat SINK - - - strict tuple (pat CONST z - - strict list (pat - y - - strict none)) (any (pat SINK x void|bool - strict none) (pat SINK y - - strict none) (pat SINK - void - strict none))) (any (pat CONST z weakint 0 strict rep (pat - z weakint|bool - strict none)) (pat CONST x - - strict rep (pat - y - - strict none)) (pat CONST - - 1 strict none)))", "(CMPLT (SINK b (SINK a c0)) c2)", 0, "");
    ("(pat CMPLT y - - strict none)", "b", 0, "");
    ("(any (pat CONST - void|weakint 0 strict rep (pat - - - - strict list (pat SINK x - - strict none) (pat SINK x - - strict none))))", "(ADD (CMPLT (SINK c1 c1) (SINK)) c1)", 0, "");
    ("(pat CMPLT x - - strict list (pat MUL - - - strict list (pat CONST - - - strict none) (pat - y - - strict same2 (pat - - - - strict none)) (any (pat - - - - strict none))) (pat SINK - - - strict tuple (pat MUL - - - strict same2 (pat - z - - strict none))))", "(CMPLT (MUL c1 a) (ADD (MUL c1 c0) (MUL c1 c0)))", 0, "");
    ("(pat CONST|CMPLT y weakint - strict none)", "c1", 1, "y=c1");
    ("(pat - y - - strict list (any (pat - x - - strict none)) (pat CONST|SINK - bool|void - strict tuple (pat - - void|weakint - strict rep (pat CMPLT|MUL x - - strict none))))", "(MUL b b)", 0, "");
    ("(pat - y - - strict list)", "(MUL (MUL (ADD c1 a) (MUL b a)) (SINK (MUL a c0) (SINK b a a)))", 0, "");
    ("(pat - x - - strict none)", "(CMPLT (ADD (CMPLT c2 c2) (CMPLT c0 b)) (ADD (MUL a c0) c2))", 1, "x=(CMPLT (ADD (CMPLT c2 c2) (CMPLT c0 b)) (ADD (MUL a c0) c2))");
    ("(pat CONST - - 1 strict list)", "c1", 1, "");
    ("(any (pat SINK x - - strict same2 (pat MUL - - - strict none)) (pat - y weakint - strict tuple (any (pat SINK z - - strict none)) (pat - x - - strict none)))", "(SINK (SINK) (SINK (ADD c1 a) c0 c2))", 0, "");
    ("(pat - - weakint|void - strict none)", "(CMPLT (CMPLT (ADD c2 c1) (SINK c2)) (MUL b (ADD b c0)))", 0, "");
    ("(pat CMPLT - - - strict list (pat - x - - strict rep (pat - - - - strict none)) (any (any (pat - - - - strict none)) (any (pat - y - - strict none) (pat - z - - any none)) (pat - - - - any same2 (pat - x - - strict none))))", "(CMPLT (ADD (CMPLT c1 b) a) a)", 6, "x=(ADD (CMPLT c1 b) a) | x=(ADD (CMPLT c1 b) a),y=a | x=(ADD (CMPLT c1 b) a),z=a | x=a | x=a,y=(ADD (CMPLT c1 b) a) | x=a,z=(ADD (CMPLT c1 b) a)");
    ("(pat CONST|CMPLT - - - strict same2 (pat ADD - - - any list (pat CONST - - - strict none) (any (pat SINK y - - strict none) (pat SINK - - - any none) (pat SINK - - - strict none))))", "(MUL (ADD c2 (SINK)) b)", 0, "");
    ("(pat SINK z - - strict rep (pat MUL|SINK - - - strict rep (pat - - - - strict none)))", "(SINK (CMPLT (ADD a b) (ADD b c1)))", 0, "");
    ("(pat - - - - strict none)", "(MUL b (ADD (CMPLT c1 c0) (ADD b a)))", 1, "");
    ("(pat - z - - strict rep (any (pat ADD|CONST - - - any rep (pat - y weakint|bool - strict none)) (pat - y - - strict none)))", "(MUL (CMPLT (ADD c0 a) (SINK c2 c1 c0)) (ADD (ADD a c2) (ADD b c2)))", 0, "");
    ("(pat - - - - strict none)", "(CMPLT (MUL (SINK c1) (ADD c0 c1)) (ADD (MUL b c2) (MUL c0 c2)))", 1, "");
    ("(pat ADD z - - strict none)", "(ADD (ADD (SINK c0) (ADD c1 c0)) (ADD (CMPLT c1 b) (SINK c1 b)))", 1, "z=(ADD (ADD (SINK c0) (ADD c1 c0)) (ADD (CMPLT c1 b) (SINK c1 b)))");
    ("(pat MUL y - - strict none)", "(MUL (CMPLT (CMPLT c1 c2) (ADD c0 a)) (MUL (ADD c2 c1) (MUL c2 a)))", 1, "y=(MUL (CMPLT (CMPLT c1 c2) (ADD c0 a)) (MUL (ADD c2 c1) (MUL c2 a)))");
    ("(pat - - void|weakint - any none)", "(SINK)", 1, "");
    ("(any (pat MUL - - - strict none) (any (pat ADD|CMPLT x - - strict tuple (pat - - void - strict none) (pat CMPLT z - - strict none)) (pat ADD|MUL - - - strict none)))", "(ADD (CMPLT a (ADD a c0)) c0)", 1, "");
    ("(pat CONST y - - any list)", "c0", 1, "y=c0");
    ("(pat SINK z bool|weakint - strict same2 (pat ADD y - - strict same2 (pat MUL z - - any none)))", "(SINK (ADD (MUL c2 c0) c2) (ADD a c0) (SINK))", 0, "");
    ("(pat ADD - weakint - strict none)", "(MUL c2 (MUL (CMPLT c0 c2) (CMPLT c0 c1)))", 0, "");
    ("(pat MUL|CONST - - - strict same3 (pat - - - - strict none))", "(CMPLT c0 (ADD a a))", 0, "");
    ("(pat ADD - - - any list (pat CMPLT y - - strict rep (any (pat CMPLT z - - strict none) (pat CMPLT z - - any none) (pat - z - - strict none))) (pat - z - - strict none))", "(ADD (CMPLT (CMPLT c2 c2) (ADD c2 c1)) (SINK))", 0, "");
    ("(pat - - - - strict none)", "(MUL a c0)", 1, "");
    ("(pat SINK x - - strict tuple (pat SINK z - - strict none) (any (pat SINK x - - any list (pat CMPLT z - - any none)) (pat SINK - - - any none)))", "(SINK (SINK (MUL c1 c1) c2 c0) (SINK c2 (ADD c0 c0)))", 1, "x=(SINK (SINK (MUL c1 c1) c2 c0) (SINK c2 (ADD c0 c0))),z=(SINK (MUL c1 c1) c2 c0)");
    ("(pat - - - - any list (any (pat CMPLT|CONST - bool|void - strict none) (pat CONST x - - strict list (pat ADD|CONST z - - strict none) (pat - x - - strict none)) (pat CMPLT|ADD - bool|void - strict none)))", "(MUL b (ADD (CMPLT c0 c2) (MUL c1 b)))", 0, "");
    ("(pat ADD y - - strict none)", "(ADD (MUL (CMPLT a a) c2) c2)", 1, "y=(ADD (MUL (CMPLT a a) c2) c2)");
    ("(any (pat - - - - strict none))", "(CMPLT (ADD (SINK b c0 b) (MUL a c1)) (MUL (MUL c2 a) (MUL c1 c2)))", 1, "");
    ("(pat SINK - - - strict same2 (pat CMPLT|MUL x - - strict same2 (pat SINK y - - strict none)))", "(SINK (ADD (SINK c0) c0) (CMPLT (MUL c2 a) (SINK b b)))", 0, "");
    ("(pat - y - - strict same3 (pat SINK|MUL - - - any list (pat - - - - strict list)))", "c1", 0, "");
    ("(pat - - - - any none)", "(SINK (SINK) (MUL c0 (CMPLT c0 b)) (ADD (SINK) b))", 1, "");
    ("(pat - y - - strict none)", "(SINK b)", 1, "y=(SINK b)");
    ("(pat MUL y - - strict none)", "b", 0, "");
    ("(pat - z void|weakint - strict rep (any (pat - y - - strict tuple) (pat - y - - strict none) (pat - - - - any none)))", "c0", 1, "z=c0");
    ("(pat MUL - - - strict none)", "(MUL (MUL b (ADD b c2)) c0)", 1, "");
    ("(pat CONST x - - strict none)", "c1", 1, "x=c1");
    ("(pat CMPLT x - - strict list (any (pat SINK y - - strict tuple (pat ADD y - - strict none) (pat ADD z - - any none))) (pat SINK|CONST z - - strict tuple (pat SINK z - - strict same3 (pat CONST x - - any none))))", "(CMPLT (ADD (ADD c2 c1) (ADD c1 c1)) (SINK (SINK c2 c0 c2)))", 0, "");
    ("(any (pat SINK y - - strict list (pat - y - - any none) (pat MUL y - - strict tuple (pat CONST y void|bool 0 strict none) (pat - x - - strict none))) (any (any (pat CMPLT z - - strict none) (pat SINK z - - strict none) (pat - z - - strict none))) (pat CMPLT - - - strict same2 (pat - x - - strict list)))", "(SINK a (MUL c0 (CMPLT a c1)))", 2, "z=(SINK a (MUL c0 (CMPLT a c1))) | z=(SINK a (MUL c0 (CMPLT a c1)))");
    ("(pat - x - - strict none)", "(ADD (SINK (CMPLT a c2) c0 c2) a)", 1, "x=(ADD (SINK (CMPLT a c2) c0 c2) a)");
    ("(pat CMPLT z - - strict tuple)", "(CMPLT c2 (SINK a c1 (MUL b a)))", 0, "");
    ("(pat SINK y - - strict none)", "(SINK (MUL (MUL a a) (ADD b c1)))", 1, "y=(SINK (MUL (MUL a a) (ADD b c1)))");
    ("(any (any (pat CMPLT z - - strict tuple (pat ADD - - - strict none) (pat SINK - - - any none)) (pat CMPLT z - - strict list (pat - y - - any none) (pat - y - - any none))) (pat CMPLT - weakint|bool - strict none))", "(CMPLT (ADD c1 (ADD c1 a)) (SINK (MUL a a) c1 c0))", 2, "z=(CMPLT (ADD c1 (ADD c1 a)) (SINK (MUL a a) c1 c0)) | ");
    ("(pat CMPLT z - - strict none)", "(CMPLT a (MUL c1 (ADD a c2)))", 1, "z=(CMPLT a (MUL c1 (ADD a c2)))");
    ("(pat ADD y - - strict none)", "(ADD (ADD b (ADD a c2)) (MUL (CMPLT c1 a) b))", 1, "y=(ADD (ADD b (ADD a c2)) (MUL (CMPLT c1 a) b))");
    ("(pat - - void - strict none)", "(SINK (ADD (SINK c0) (SINK)) a c1)", 1, "");
    ("(pat - y bool|void - strict tuple (pat - - - - strict none))", "c1", 0, "");
    ("(pat - x void - strict none)", "(SINK)", 1, "x=(SINK)");
    ("(pat - y - - strict list)", "(SINK (MUL b (CMPLT a c0)) (MUL (SINK c0) (SINK c0)) a)", 0, "");
    ("(pat - y - - strict none)", "(CMPLT (CMPLT (SINK c2) c1) (SINK))", 1, "y=(CMPLT (CMPLT (SINK c2) c1) (SINK))");
    ("(pat - - void - strict list (pat ADD x weakint - strict same2 (pat CONST|MUL z - - strict list (pat ADD - - - any none) (pat - - - - strict none))) (pat - z void - strict none))", "(CMPLT (ADD (ADD a c2) (CMPLT a a)) c2)", 0, "");
    ("(pat CONST x - 1 any same3 (any (pat SINK y - - strict list)))", "c1", 0, "");
    ("(pat - z - - any none)", "(ADD a (SINK (SINK c1 b b) (ADD c0 c0) (CMPLT c0 b)))", 1, "z=(ADD a (SINK (SINK c1 b b) (ADD c0 c0) (CMPLT c0 b)))");
    ("(pat MUL y - - strict none)", "(MUL (ADD (SINK b) (ADD c0 a)) c1)", 1, "y=(MUL (ADD (SINK b) (ADD c0 a)) c1)");
    ("(pat CMPLT z - - strict tuple (any (pat CONST y void 2 any list) (pat - x - - strict list (pat SINK x - - strict none))) (pat CMPLT y - - strict same3 (pat SINK - - - strict tuple (pat CONST|ADD x - - strict none))))", "(CMPLT c1 (SINK (SINK c2) c1 (MUL c1 c2)))", 0, "");
    ("(any (pat CONST|CMPLT - - - strict list (pat CMPLT - bool|weakint - any list (pat SINK z - - strict none) (pat SINK x - - strict none)) (any (pat SINK|ADD x - - strict none) (pat - x - - strict none))) (any (pat - z - - strict none) (pat SINK - - - strict tuple (pat - x - - strict none) (pat - y - - any none) (pat SINK - - - strict none))) (any (pat - - - - strict list (pat - z - - strict none) (pat - y - - strict none)) (pat - y - - strict list (pat - - - - any none) (pat - y - - strict none)) (any (pat MUL - - - any none) (pat CMPLT x - - strict none) (pat CMPLT - - - strict none))))", "(CMPLT (CMPLT (SINK b b a) (SINK)) c0)", 5, "z=(CMPLT (CMPLT (SINK b b a) (SINK)) c0) | y=c0,z=(CMPLT (SINK b b a) (SINK)) | y=(CMPLT (SINK b b a) (SINK)),z=c0 | x=(CMPLT (CMPLT (SINK b b a) (SINK)) c0) | ");
    ("(any (pat ADD y - - strict list (pat ADD z - - strict none) (pat - z - - any same2 (pat - y - - strict none))))", "(ADD (ADD (ADD c1 a) a) (ADD (MUL c1 a) a))", 0, "");
    ("(pat - z - - strict list)", "(SINK (MUL (SINK c0 a c1) c0) (CMPLT c1 b) (CMPLT (CMPLT a b) (MUL a a)))", 0, "");
    ("(pat - - - - strict none)", "a", 1, "");
    ("(pat - x - - strict rep (pat CONST|MUL z - - any list (pat - y - - strict tuple (pat - - - - strict none) (pat ADD z - - strict none)) (pat - y - - strict none) (pat - y - - strict none)))", "c2", 1, "x=c2");
    ("(pat - - - - strict rep (pat - - weakint - any none))", "b", 0, "");
    ("(pat - y void - strict tuple)", "(MUL c2 (SINK))", 0, "");
    ("(pat CMPLT y - - strict none)", "(CMPLT (ADD b (MUL b b)) (MUL (CMPLT c2 c0) (CMPLT b c1)))", 1, "y=(CMPLT (ADD b (MUL b b)) (MUL (CMPLT c2 c0) (CMPLT b c1)))");
    ("(pat CONST z void|bool - any rep (pat - z - - strict list))", "c1", 0, "");
    ("(pat CONST x - - strict list (pat - - - - strict tuple (pat SINK|CMPLT x - - strict none) (pat - - - - strict tuple (pat CONST|SINK - void - strict none) (pat - x bool - strict none) (pat - - - - any none))))", "c2", 0, "");
    ("(pat CMPLT y - - strict tuple (any (any (pat ADD - - - strict none)) (pat ADD x - - any none) (pat CONST - - 0 any none)) (pat CONST - - - strict list))", "(CMPLT (ADD (MUL c2 c0) (ADD b a)) c0)", 2, "y=(CMPLT (ADD (MUL c2 c0) (ADD b a)) c0) | x=(ADD (MUL c2 c0) (ADD b a)),y=(CMPLT (ADD (MUL c2 c0) (ADD b a)) c0)") ]
end

type sexp = Atom of string | List of sexp list

let parse_sexp s =
  let n = String.length s in
  let pos = ref 0 in
  let rec skip () = if !pos < n && s.[!pos] = ' ' then (incr pos; skip ()) in
  let rec one () =
    skip ();
    if s.[!pos] = '(' then begin
      incr pos;
      let items = ref [] in
      skip ();
      while s.[!pos] <> ')' do items := one () :: !items; skip () done;
      incr pos;
      List (List.rev !items)
    end else begin
      let st = !pos in
      while !pos < n && s.[!pos] <> ' ' && s.[!pos] <> ')' do incr pos done;
      Atom (String.sub s st (!pos - st))
    end in
  one ()

let op_of = function
  | "ADD" -> Ops.Add | "MUL" -> Ops.Mul | "CMPLT" -> Ops.Cmplt | "SINK" -> Ops.Sink | "CONST" -> Ops.Const
  | s -> fail "unknown op %s" s

let rec uop_of_sexp = function
  | Atom ("a" | "b" as v) -> Uop.variable_int v 0 10
  | Atom c -> Uop.const_int (int_of_string (String.sub c 1 (String.length c - 1)))
  | List (Atom op :: srcs) ->
    let op = op_of op in
    let dtype = match op with Ops.Cmplt -> Dtype.Bool | Ops.Sink -> Dtype.Void | _ -> Dtype.Weakint in
    Uop.create op ~dtype ~src:(Array.of_list (List.map uop_of_sexp srcs))
  | List _ -> fail "bad uop sexp"

let rec uop_to_sexp (u : Uop.t) =
  match u.op with
  | Ops.Const -> "c" ^ string_of_int (int_of u)
  | Ops.Buffer -> Uop.expr u
  | _ -> "(" ^ String.concat " " (Ops.name u.op :: List.map uop_to_sexp (Array.to_list u.src)) ^ ")"

let split_bar s = String.split_on_char '|' s

let rec pat_of_sexp = function
  | List (Atom "any" :: alts) -> Upat.any (List.map pat_of_sexp alts)
  | List (Atom "pat" :: Atom ops :: Atom name :: Atom dts :: Atom arg :: Atom len :: Atom kind :: kids) ->
    let op = if ops = "-" then None else Some (List.map op_of (split_bar ops)) in
    let name = if name = "-" then None else Some name in
    let dtype = if dts = "-" then None else
        Some (List.map (function "bool" -> Dtype.Bool | "weakint" -> Dtype.Weakint | _ -> Dtype.Void)
                (split_bar dts)) in
    let arg = if arg = "-" then None else Some (Uop.Const (Dtype.I (Z.of_string arg))) in
    let kids = List.map pat_of_sexp kids in
    let src = match kind, kids with
      | "none", _ -> None
      | "tuple", l -> Some (Upat.In_order l)
      | "list", l -> Some (Upat.Permuted l)
      | "rep", [ p ] -> Some (Upat.Repeat p)
      | k, [ p ] when String.length k > 4 && String.sub k 0 4 = "same" ->
        Some (Upat.Permuted (List.init (int_of_string (String.sub k 4 (String.length k - 4))) (fun _ -> p)))
      | k, _ -> fail "bad kind %s" k in
    Upat.make ?op ?dtype ?src ?arg ?name ~allow_any_len:(len = "any") ()
  | _ -> fail "bad pattern sexp"

let format_match (c : Upat.captures) =
  let names = List.filter (fun n -> Upat.find c n <> None) [ "x"; "y"; "z" ] in
  String.concat "," (List.map (fun n -> n ^ "=" ^ uop_to_sexp (Upat.get c n)) names)

let test_oracle_matches () =
  List.iteri (fun k (ps, us, n, expected) ->
      let p = pat_of_sexp (parse_sexp ps) and u = uop_of_sexp (parse_sexp us) in
      let ms = Upat.match_ p u in
      let what = Printf.sprintf "case %d: %s on %s" k ps us in
      if List.length ms <> n then fail "%s: expected %d matches, got %d" what n (List.length ms);
      check_str ~what expected (String.concat " | " (List.map format_match ms)))
    Oracle.cases

let tests : Test_util.case list = [
  ("test_simple_match", test_simple_match);
  ("test_upat_any", test_upat_any);
  ("test_minimum_len", test_minimum_len);
  ("test_match_sz_0", test_match_sz_0);
  ("test_match_sz_0_ctx", test_match_sz_0_ctx);
  ("test_uop", test_uop);
  ("test_uop_set", test_uop_set);
  ("test_arg", test_arg);
  ("test_filter_arg", test_filter_arg);
  ("test_dup_name", test_dup_name);
  ("test_dtype", test_dtype);
  ("test_dtype_set", test_dtype_set);
  ("test_src_one", test_src_one);
  ("test_src_permutations", test_src_permutations);
  ("test_src_repeat", test_src_repeat);
  ("test_allow_len", test_allow_len);
  ("test_deep_src_permutations", test_deep_src_permutations);
  (* not in tinygrad's file *)
  ("dup_name_different_nodes", test_dup_name_different_nodes);
  ("match_order", test_match_order);
  ("none_tries_next_match_then_next_rule", test_none_tries_next_match_then_next_rule);
  ("early_reject", test_early_reject);
  ("arg_python_eq", test_arg_python_eq);
  ("sugar_sub", test_sugar_sub);
  ("sugar_neg_bool", test_sugar_neg_bool);
  ("sugar_ge", test_sugar_ge);
  ("sugar_where", test_sugar_where);
  ("or_casted", test_or_casted);
  ("matcher_concat", test_matcher_concat);
  ("oracle_matches", test_oracle_matches);
]
