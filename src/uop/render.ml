(* tinygrad: uop/render.py (renderer, renderer_infer) and UOp.render in uop/ops.py *)

open Uop

(* tinygrad: helpers.py _is_balanced *)
let is_balanced s =
  let d = ref 0 and ok = ref true in
  String.iter (fun c ->
      if c = '(' then incr d else if c = ')' then decr d;
      if !d < 0 then ok := false) s;
  !ok && !d = 0

(* tinygrad: helpers.py strip_parens *)
let strip_parens s =
  let n = String.length s in
  if n >= 2 && s.[0] = '(' && s.[n - 1] = ')' && is_balanced (String.sub s 1 (n - 2)) then String.sub s 1 (n - 2)
  else s

(* tinygrad: uop/render.py syms (comparisons are chained in python, so they have no precedence) *)
let sym (op : Ops.t) =
  match op with
  | Add -> Some "+" | Sub -> Some "-" | Floordiv -> Some "//" | Floormod -> Some "%" | Shl -> Some "<<"
  | Shr -> Some ">>" | Mul -> Some "*" | Cmplt -> Some "<" | Cmpne -> Some "!=" | And -> Some "&" | Or -> Some "|"
  | Xor -> Some "^"
  | _ -> None

(* tinygrad: uop/render.py precedence *)
let precedence (op : Ops.t) =
  match op with
  | Mul | Floordiv | Floormod -> Some 1
  | Add | Sub -> Some 2
  | Shl | Shr -> Some 3
  | And -> Some 4
  | Xor -> Some 5
  | Or -> Some 6
  | _ -> None

(* tinygrad: uop/render.py strip_binary_parens *)
let strip_binary_parens x left right code_for_op =
  match precedence x.op with
  | None -> code_for_op left right
  | Some p ->
    let prec u = Option.value (precedence u.op) ~default:99 in
    code_for_op
      (if prec x.src.(0) <= p then strip_parens left else left)
      (if prec x.src.(1) < p then strip_parens right else right)

(* Python's str of a tuple of strings already rendered *)
let tuple_str = function [ p ] -> "(" ^ p ^ ",)" | l -> "(" ^ String.concat ", " l ^ ")"

(* the dtype as [str(dtype)[7:]]: "dtypes.float" -> "float" *)
let dtype_body d =
  let s = Dtype.to_string d in
  String.sub s 7 (String.length s - 7)

(* render_marg joins its pieces with "," (no space), unlike python's tuple str *)
let marg_tuple = function [ p ] -> "(" ^ p ^ ",)" | l -> "(" ^ String.concat "," l ^ ")"

type ctx = string Tbl.t

(* tinygrad: uop/render.py marg_str. marg is ssimplify'd, so a bound can be a node this graph never contained *)
let rec marg_str (ctx : ctx) (a : sint) =
  match a with
  | Sint i -> string_of_int i
  | Suop u -> (match Tbl.find_opt ctx u with Some s -> s | None -> render u)

(* tinygrad: uop/render.py render_marg *)
and render_marg ctx x =
  match marg x with
  | `Perm p -> tuple_str (List.map string_of_int p)
  | `Flip f -> tuple_str (List.concat (List.mapi (fun i b -> if b then [ string_of_int i ] else []) f))
  | `Shape s -> marg_tuple (List.map (marg_str ctx) s)
  | `Pairs ps -> marg_tuple (List.map (fun (a, b) -> Printf.sprintf "(%s, %s)" (marg_str ctx a) (marg_str ctx b)) ps)

(* tinygrad: uop/render.py renderer, one node: the rules in the order of the python list *)
and renderer (ctx : ctx) x =
  let c i = Tbl.find ctx x.src.(i) in
  match x.op, x.arg with
  | Ops.Param, Param p -> (match p.name with Some n -> n | None -> "p" ^ string_of_int p.slot)
  | Ops.Buffer, Param { name = Some n; _ } -> n
  | Ops.Buffer, Param p -> "b" ^ string_of_int p.slot
  | Ops.After, _ -> c 0
  | Ops.Special, Str s -> s
  | Ops.Range, Range (i :: _, _) when x.dtype == Dtype.Void -> "loop" ^ string_of_int i
  | Ops.Range, _ -> "r" ^ range_str x
  | Ops.Const, Const v -> Dtype.const_to_string v
  (* CAST states the width, the weak CONST carries the value *)
  | Ops.Cast, _
    when Array.length x.src = 1 && x.src.(0).op == Ops.Const
         && (Dtype.is_weak x.src.(0).dtype || x.src.(0).dtype == Dtype.Bool) ->
    Dtype.const_to_string (const_val x.src.(0))
  | Ops.Cast, _ -> Printf.sprintf "(%s)(%s)" (dtype_body x.dtype) (c 0)
  | Ops.Neg, _ -> Printf.sprintf "(-%s)" (c 0)
  | Ops.Reciprocal, _ -> Printf.sprintf "(1/%s)" (c 0)
  | Ops.Max, _ -> Printf.sprintf "max(%s, %s)" (c 0) (c 1)
  | Ops.Mulacc, _ -> Printf.sprintf "(%s*%s+%s)" (c 0) (c 1) (c 2)
  | Ops.Where, _ -> Printf.sprintf "(%s if %s else %s)" (c 1) (c 0) (c 2)
  | Ops.Cdiv, _ -> Printf.sprintf "cdiv(%s, %s)" (c 0) (c 1)
  | Ops.Cmod, _ -> Printf.sprintf "cmod(%s, %s)" (c 0) (c 1)
  | op, _ when Ops.Group.is_movement op ->
    Printf.sprintf "%s.%s(%s)" (c 0) (String.lowercase_ascii (Ops.name op)) (render_marg ctx x)
  | op, _ when sym op <> None ->
    let s = Option.get (sym op) in
    strip_binary_parens x (c 0) (c 1) (fun a b -> "(" ^ a ^ s ^ b ^ ")")
  | (Ops.Index | Ops.Stage), _ ->
    String.concat "" (List.tl (Array.to_list (Array.map (fun y -> "[" ^ strip_parens (Tbl.find ctx y) ^ "]") x.src)))
  | Ops.Stack, _ -> "{" ^ String.concat "," (Array.to_list (Array.map (Tbl.find ctx) x.src)) ^ "}"
  | _ -> pretty_print x

(* tinygrad: uop/render.py renderer_infer, rules tried before [renderer] *)
and renderer_infer (ctx : ctx) x =
  let c i = Tbl.find ctx x.src.(i) in
  match x.op with
  | Ops.Cmod -> Printf.sprintf "cmod(%s, %s)" (c 0) (c 1)
  | Ops.Cdiv -> Printf.sprintf "cdiv(%s, %s)" (c 0) (c 1)
  | Ops.Floormod -> Printf.sprintf "floormod(%s, %s)" (c 0) (c 1)
  | Ops.Floordiv -> Printf.sprintf "floordiv(%s, %s)" (c 0) (c 1)
  | Ops.Cast ->
    Printf.sprintf "%s(%s)"
      (if Dtype.is_float x.dtype then "float" else if x.dtype == Dtype.Bool then "bool" else "int") (c 0)
  | Ops.Bitcast ->
    Printf.sprintf "bitcast(%s, %s, %s)" (c 0) (Dtype.to_string x.src.(0).dtype) (Dtype.to_string x.dtype)
  | _ -> renderer ctx x

(* tinygrad: UOp.render: simplify, then render every node in toposort order *)
and render_with ?(simplify = true) pm u =
  let ctx : ctx = Tbl.create 32 in
  let s = if simplify then Uop.simplify u else u in
  List.iter (fun n -> Tbl.replace ctx n (pm ctx n)) (toposort s);
  Tbl.find ctx s

and render ?simplify u = render_with ?simplify renderer u

let render_infer ?simplify u = render_with ?simplify renderer_infer u

let () = Uop.render_hook := fun u -> render u
