(* Helpers shared by the symbolic test ports (test_uop_symbolic, test_simplify_valid_idx, test_simplify_ranges):
   Python's operators on UOps, tinygrad's check_uop_against_string, and an evaluator of UOp expressions that
   stands in for z3. *)

open Tinygrad.Compiler

(* Python's operators on UOps (Uop.O without its [b]/[f] literals, so variables named b and f stay visible).
   [land] is Python's [&] (left associative like it; every operand is parenthesised, as Python requires around
   comparisons), [<>] is [!=]. *)
module O = struct
  let ( + ) = Uop.add
  let ( - ) = Uop.sub
  let ( * ) = Uop.mul
  let ( / ) = Uop.idiv
  let ( mod ) = Uop.mod_
  let ( < ) = Uop.lt
  let ( > ) = Uop.gt
  let ( <= ) = Uop.le
  let ( >= ) = Uop.ge
  let ( <> ) = Uop.ne
  let ( land ) = Uop.and_
  let ( lor ) = Uop.or_
  let ( lxor ) = Uop.xor
  let ( lsl ) = Uop.shl
  let ( lsr ) = Uop.shr
  let ( ~- ) = Uop.neg
  let i = Uop.const_int
end

let render u = Render.render ~simplify:false u

(* the names check_uop_against_string gives variables: v.render() of RANGE, SPECIAL and PARAM *)
let var_name (u : Uop.t) =
  match u.op, u.arg with
  | Ops.Param, Uop.Param { name = Some n; _ } -> Some n
  | Ops.Range, _ -> Some ("r" ^ Uop.range_str u)
  | Ops.Special, Uop.Str s -> Some s
  | _ -> None

(* tinygrad: test_uop_symbolic.py check_uop_against_string *)
let check_uop_against_string (v : Uop.t) (s : string) =
  let env = List.filter_map (fun u -> Option.map (fun n -> (n, u)) (var_name u)) (Uop.toposort v) in
  let e = Expr_parser.to_uop (Expr_parser.eval env s) in
  let e = Upat.graph_rewrite ~name:"cannonicalize eval" Symbolic.commutative () e in
  if e != v then Test_util.fail "eval did not match simplified: %s != %s for %s" (render e) (render v) s

(* ---------- the z3 replacement: evaluate an expression at an assignment of its variables ---------- *)

let cast_value (dt : Dtype.t) (c : Dtype.const) : Dtype.const =
  match c with
  | Dtype.Invalid -> Dtype.Invalid
  | _ ->
    if Dtype.is_float dt then Dtype.truncate dt (Dtype.F (Dtype.const_to_float c))
    else if dt == Dtype.Bool then Dtype.B (Dtype.const_truthy c)
    else
      let z = match c with
        | Dtype.F f -> Dtype.I (Z.of_float (Float.trunc f))
        | Dtype.B b -> Dtype.I (if b then Z.one else Z.zero)
        | c -> c in
      Dtype.truncate dt z

let eval_uop ?truncate_output (leaf : Uop.t -> Dtype.const option) (u : Uop.t) : Dtype.const =
  let memo = Uop.Tbl.create 64 in
  let rec ev (x : Uop.t) =
    match leaf x with
    | Some v -> v
    | None ->
      match Uop.Tbl.find_opt memo x with
      | Some v -> v
      | None ->
        let r =
          match x.op with
          | Ops.Const -> Uop.const_val x
          | Ops.After -> ev x.src.(0)
          | Ops.Cast -> cast_value x.dtype (ev x.src.(0))
          | Ops.Bitcast -> Dtype.bitcast (ev x.src.(0)) x.src.(0).dtype x.dtype
          | Ops.Where ->
            (match ev x.src.(0) with
             | Dtype.Invalid -> Dtype.Invalid
             | c -> if Dtype.const_truthy c then ev x.src.(1) else ev x.src.(2))
          | op -> Uop.exec_alu ?truncate_output op x.dtype (Array.to_list (Array.map ev x.src)) in
        Uop.Tbl.replace memo x r;
        r in
  ev u
