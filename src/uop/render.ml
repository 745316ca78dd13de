(* tinygrad: uop/render.py (renderer, renderer_infer) and UOp.render in uop/ops.py *)

open Uop

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
      (if prec x.src.(0) <= p then Helpers.strip_parens left else left)
      (if prec x.src.(1) < p then Helpers.strip_parens right else right)

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
    String.concat "" (List.tl (Array.to_list (Array.map (fun y -> "[" ^ Helpers.strip_parens (Tbl.find ctx y) ^ "]") x.src)))
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

(* ---------- pyrender and print_uops (tinygrad: uop/render.py) ---------- *)

(* Python's repr of a str: single quotes (double when only a single quote is inside), control characters escaped *)
let py_str_repr (s : string) =
  let q = if String.contains s '\'' && not (String.contains s '"') then '"' else '\'' in
  let b = Buffer.create (String.length s + 2) in
  Buffer.add_char b q;
  String.iter (fun c ->
      match c with
      | '\\' -> Buffer.add_string b "\\\\"
      | '\n' -> Buffer.add_string b "\\n"
      | '\r' -> Buffer.add_string b "\\r"
      | '\t' -> Buffer.add_string b "\\t"
      | c when c = q -> Buffer.add_char b '\\'; Buffer.add_char b c
      | c when Char.code c < 0x20 || Char.code c = 0x7f -> Buffer.add_string b (Printf.sprintf "\\x%02x" (Char.code c))
      | c -> Buffer.add_char b c) s;
  Buffer.add_char b q;
  Buffer.contents b

(* Python's repr of a UOp arg as pyrender writes it ([arg_to_string], with KernelInfo's [estimates] field) *)
let rec arg_repr (a : arg) =
  match a with
  | Kernel_info k ->
    let at = String.concat ", " (List.map axis_type_to_string k.axis_types) in
    let opts l = "(" ^ String.concat ", " (List.map Opt.to_string l) ^ (if List.length l = 1 then ",)" else ")") in
    let sint = function Sint i -> string_of_int i | Suop u -> pretty_print u in
    let est = match k.estimates with
      | None -> "None"
      | Some e -> Printf.sprintf "Estimates(ops=%s, lds=%s, mem=%s)" (sint e.ops) (sint e.lds) (sint e.mem) in
    Printf.sprintf
      "KernelInfo(name=%s, axis_types=(%s%s), dont_use_locals=%s, applied_opts=%s, opts_to_apply=%s, estimates=%s, beam=%d)"
      (py_str_repr k.kname) at (if List.length k.axis_types = 1 then "," else "") (if k.dont_use_locals then "True" else "False")
      (opts k.applied_opts) (match k.opts_to_apply with None -> "None" | Some l -> opts l) est k.beam
  | Tuple l -> "(" ^ String.concat ", " (List.map arg_repr l) ^ (if List.length l = 1 then ",)" else ")")
  | Str s -> py_str_repr s
  | a -> arg_to_string a

(* Python's str of an arg (print_uops writes [{u.arg}]): strings without quotes, ConstFloat as the float *)
let arg_str (a : arg) =
  match a with
  | Str s -> s
  | Const c -> Dtype.const_to_string c
  | a -> arg_repr a

(* tinygrad: srcs — the sources as a Python tuple *)
let srcs_str (ctx : ctx) (src : t list) =
  match src with
  | [ x ] -> "(" ^ Tbl.find ctx x ^ ",)"
  | l -> "(" ^ String.concat ", " (List.map (Tbl.find ctx) l) ^ ")"

(* tinygrad: sugar — ops pyrender writes as methods ([x.sink(...)], [x.index(...)], ...) *)
let sugar = Ops.[ Sink; End; Store; Load; Sqrt; Index; Reduce; After; Threefry; Reciprocal; Exp2; Log2; Sin; Contiguous;
                  Barrier; Detach ]

let lower_name op = String.lowercase_ascii (Ops.name op)

(* tinygrad: pm_pyrender_extra then pm_pyrender's catch-all, one node: the first rule that gives a string *)
let pm_pyrender (ctx : ctx) (x : t) : string =
  let c u = Tbl.find ctx u in
  let has_arg = match x.arg with No_arg -> false | _ -> true in
  let nsrc = Array.length x.src in
  let rules : (unit -> string option) list = [
    (fun () -> if x.op == Ops.Const && nsrc = 0 then
         Some (Printf.sprintf "UOp.const(%s, %s)" (Dtype.const_to_string (const_val x)) (Dtype.to_string x.dtype)) else None);
    (fun () -> if (x.op == Ops.Cast || x.op == Ops.Bitcast) && x.dtype != x.src.(0).dtype then
         Some (Printf.sprintf "%s.%s(%s)" (c x.src.(0)) (lower_name x.op) (Dtype.to_string x.dtype)) else None);
    (fun () -> if x.op == Ops.Special && nsrc = 1 && x.src.(0).op == Ops.Const then
         Some (Printf.sprintf "UOp.special(%s, %s, dtype=%s)" (Dtype.const_to_string (const_val x.src.(0))) (arg_repr x.arg)
                 (Dtype.to_string x.dtype)) else None);
    (fun () -> match x.op, x.arg with
       | Ops.Buffer, Param p when nsrc = 1 && addrspace x = Some Dtype.Global ->
         Some (Printf.sprintf "UOp.new_buffer(%s, %d, %s, %d)"
                 (match p.device with Some d -> device_to_string d | None -> "None") (max_numel x) (Dtype.to_string x.dtype) p.slot)
       | _ -> None);
    (fun () -> if x.op == Ops.Copy && nsrc = 1 then
         Some (Printf.sprintf "%s.copy_to_device(%s)" (c x.src.(0)) (arg_repr x.arg)) else None);
    (fun () -> if x.op == Ops.Custom_function then
         Some (Printf.sprintf "UOp(Ops.CUSTOM_FUNCTION, src=%s, arg=%s)" (srcs_str ctx (Array.to_list x.src)) (arg_repr x.arg))
       else None);
    (fun () -> match x.op, x.arg with
       | Ops.Reduce, Reduce_arg (op, n) when n <> 0 ->
         Some (Printf.sprintf "%s._rop(%s, %s)" (c x.src.(0)) (Ops.to_string op) (tuple_str (List.init n string_of_int)))
       | _ -> None);
    (* NOTE: range has srcs sometimes after control flow *)
    (fun () -> match x.op, x.arg with
       | Ops.Range, Range (ids, at) when nsrc >= 1 && x.src.(0).op == Ops.Const ->
         Some ("UOp.range(" ^ String.concat ", " ((Dtype.const_to_string (const_val x.src.(0)) :: List.map string_of_int ids)
                                                 @ [ axis_type_to_string at ])
               ^ (if nsrc > 1 then ", src=" ^ srcs_str ctx (List.tl (Array.to_list x.src)) else "")
               ^ (if x.dtype != Dtype.Weakint then ", dtype=" ^ Dtype.to_string x.dtype else "") ^ ")")
       | _ -> None);
    (* TODO: index shouldn't mismatch dtype *)
    (fun () -> if x.op == Ops.Index && nsrc >= 2 && x.src.(0).dtype != x.dtype then
         Some (Printf.sprintf "%s.index(%s, %sdtype=%s)" (c x.src.(0)) (c x.src.(1))
                 (String.concat "" (List.map (fun u -> c u ^ ", ") (List.tl (List.tl (Array.to_list x.src)))))
                 (Dtype.to_string x.dtype)) else None);
    (* explicit trunc ops: `//` and `%` parse as FLOORDIV/FLOORMOD, so render CDIV/CMOD via .alu() *)
    (fun () -> if x.op == Ops.Cdiv then Some (Printf.sprintf "%s.alu(Ops.CDIV, %s)" (c x.src.(0)) (c x.src.(1))) else None);
    (fun () -> if x.op == Ops.Cmod then Some (Printf.sprintf "%s.alu(Ops.CMOD, %s)" (c x.src.(0)) (c x.src.(1))) else None);
    (* `.where` re-promotes its operands, so render WHERE via .alu() too *)
    (fun () -> if x.op == Ops.Where then
         Some (Printf.sprintf "%s.alu(Ops.WHERE, %s, %s)" (c x.src.(0)) (c x.src.(1)) (c x.src.(2))) else None);
    (* the binary operators re-promote their operands (a weak src meeting a strong one gets a cast), render those via
       .alu() too *)
    (fun () -> match sym x.op with
       | Some s when x.op != Ops.Sub ->
         (* [x.src[0]._broadcasted(x.src[1]) == x.src], read off the sources of the sugar's result *)
         let y = binop x.op x.src.(0) x.src.(1) in
         if y.src.(0) == x.src.(0) && y.src.(1) == x.src.(1) then
           Some (strip_binary_parens x (c x.src.(0)) (c x.src.(1)) (fun a b -> "(" ^ a ^ s ^ b ^ ")"))
         else Some (Printf.sprintf "%s.alu(%s, %s)" (c x.src.(0)) (Ops.to_string x.op) (c x.src.(1)))
       | _ -> None);
    (fun () -> if List.memq x.op sugar && nsrc = 0 then
         Some (Printf.sprintf "UOp.%s(%s)" (lower_name x.op) (if has_arg then "arg=" ^ arg_repr x.arg else "")) else None);
    (fun () -> if List.memq x.op sugar then
         Some (Printf.sprintf "%s.%s(%s)" (c x.src.(0)) (lower_name x.op)
                 (String.concat ", " (List.map c (List.tl (Array.to_list x.src))
                                      @ (if has_arg then [ "arg=" ^ arg_repr x.arg ] else [])))) else None);
    (fun () ->
       Some (Printf.sprintf "UOp(%s, %s, %s%s" (Ops.to_string x.op) (Dtype.to_string x.dtype) (srcs_str ctx (Array.to_list x.src))
               (if has_arg then ", " ^ arg_repr x.arg ^ ")" else ")"))) ] in
  let rec first = function f :: fs -> (match f () with Some s -> s | None -> first fs) | [] -> assert false in
  first rules

(* tinygrad: consumer_map_from_toposort — each node's consumers, in toposort order *)
let consumer_map_from_toposort (lst : t list) : t list Tbl.t =
  let ret = Tbl.create 64 in
  List.iter (fun u ->
      Tbl.replace ret u [];
      Array.iter (fun s -> match Tbl.find_opt ret s with
          | Some l when not (List.memq u l) -> Tbl.replace ret s (l @ [ u ])
          | _ -> ()) u.src) lst;
  ret

(* tinygrad: _render_with_splits — the named lines, in order *)
let render_with_splits ?(split_depth = 100) (lst : t list) (to_render : unit Tbl.t) : (string * string) list =
  let r : ctx = Tbl.create 64 and depth = Tbl.create 64 and ret = ref [] in
  let last = Helpers.last lst in
  List.iteri (fun i u ->
      (* limit inline depth to avoid "too many nested parentheses" in Python parser *)
      let op_depth = 1 + Array.fold_left (fun m s -> max m (Option.value (Tbl.find_opt depth s) ~default:0)) 0 u.src in
      if op_depth > split_depth then Tbl.replace to_render u ();
      Tbl.replace depth u (if Tbl.mem to_render u then 0 else op_depth);
      let ren = pm_pyrender r u in
      let ren = match u.tag with No_arg -> ren | t -> ren ^ ".rtag(" ^ arg_repr t ^ ")" in
      if not (Tbl.mem to_render u) then Tbl.replace r u ren
      else begin
        let name = if u != last then "c" ^ string_of_int i else "ast" in
        Tbl.replace r u name;
        ret := (name, ren) :: !ret
      end) lst;
  List.rev !ret

(* tinygrad: pyrender — Python source that rebuilds [ast] (what DEBUG=5 prints) *)
let pyrender (ast : t) : string =
  let lst = toposort ast in
  let cmap = consumer_map_from_toposort lst in
  let always_rendered = Ops.[ Param; Load; Special; Range; Contiguous; Stack; Buffer; Copy; Call; Function; Where; End ] in
  let to_render : unit Tbl.t = Tbl.create 64 in
  Tbl.replace to_render ast ();
  List.iter (fun u ->
      if u.op == Ops.Sink then Array.iter (fun s -> Tbl.replace to_render s ()) u.src;
      if u.op == Ops.Store then Tbl.replace to_render u.src.(1) ();
      if u.op == Ops.Reduce then Tbl.replace to_render u.src.(0) ();
      if u.op == Ops.Function || (u.op == Ops.Call && u.src.(0).dtype == Dtype.Void) then
        failwith "pyrender: call can't be pyrendered";
      if u.op != Ops.Const then begin
        (* checking the consumers is not enough, you have to make sure it's not used twice by the one consumer *)
        let single = match Tbl.find cmap u with
          | [ cons ] -> Array.fold_left (fun n x -> if x == u then n + 1 else n) 0 cons.src = 1
          | _ -> false in
        if not (single && not (List.memq u.op always_rendered)) then Tbl.replace to_render u ()
      end) lst;
  String.concat "\n" (List.map (fun (k, v) -> k ^ " = " ^ Helpers.strip_parens v) (render_with_splits lst to_render))

(* tinygrad: range_str(u, color=True) *)
let range_str_colored u =
  let s = range_str u in
  let color = match u.arg with
    | Range (_, at) -> (match at with
        | Device -> Some "green" | Global -> Some "blue" | Thread -> Some "BLUE" | Local -> Some "cyan" | Warp -> Some "CYAN"
        | Weak | Loop -> Some "WHITE" | Upcast -> Some "yellow" | Group_reduce -> Some "RED" | Reduce -> Some "red"
        | Unroll -> Some "magenta" | Placeholder -> None)
    | _ -> None in
  Helpers.colored s color

(* tinygrad: multirange_str(rngs, color=True, pad) — sorted by the range arg *)
let multirange_str ?pad (rngs : t list) =
  let key u = match u.arg with Range (ids, _) -> ids | _ -> [] in
  let s = String.concat "," (List.map range_str_colored (List.stable_sort (fun a b -> compare (key a) (key b)) rngs)) in
  match pad with Some p -> s ^ String.make (max 0 (p - Helpers.ansilen s)) ' ' | None -> s

(* Python's f"{s:Ns}": left-justified in N columns *)
let ljust n s = if String.length s >= n then s else s ^ String.make (n - String.length s) ' '

(* tinygrad: print_uops — one line per linearized UOp: index, op, ranges, dtype, sources, arg (the text, without
   printing it) *)
let uops_str (uops : t list) : string =
  let index = Tbl.create 64 in
  List.iteri (fun i u -> Tbl.replace index u i) uops;
  String.concat "" (List.mapi (fun i u ->
      let formatted_srcs = Array.to_list (Array.map (fun x ->
          match Tbl.find_opt index x with
          | Some j -> if x.op != Ops.Const then string_of_int j else "'" ^ Dtype.const_to_string (const_val x) ^ "'"
          | None -> "'--'") u.src) in
      Printf.sprintf "%4d %s: %s %s %s %s\n" i (ljust 20 (Ops.to_string u.op)) (multirange_str ~pad:10 (ranges u))
        (ljust 40 (Dtype.to_string u.dtype)) (ljust 32 ("[" ^ String.concat ", " formatted_srcs ^ "]")) (arg_str u.arg)) uops)

(* tinygrad: print_uops *)
let print_uops (uops : t list) = print_string (uops_str uops); flush stdout
