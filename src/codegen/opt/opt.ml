(* tinygrad: codegen/opt/__init__.py *)

type opt_ops = TC | UPCAST | UNROLL | LOCAL | THREAD | GROUP | GROUPTOP | NOLOCALS | PADTO | SWAP
             | BLOCK  (* not in tinygrad: a cache block of an output loop on the CPU (Postrange.apply_opt) *)
             | OVERLAP  (* not in tinygrad: an output loop in overlapping tiles of lanes on the CPU *)

type opt_arg = No_arg | Int of int | Tc of int * int * int  (* TC args: (tc_select, tc_opt, use_tensor_cores) *)

type t = { op : opt_ops; axis : int option; arg : opt_arg }

exception Kernel_opt_error of string

let check cond msg = if not cond then raise (Kernel_opt_error msg)

let opt_ops_to_string = function
  | TC -> "OptOps.TC" | UPCAST -> "OptOps.UPCAST" | UNROLL -> "OptOps.UNROLL" | LOCAL -> "OptOps.LOCAL"
  | THREAD -> "OptOps.THREAD" | GROUP -> "OptOps.GROUP" | GROUPTOP -> "OptOps.GROUPTOP" | NOLOCALS -> "OptOps.NOLOCALS"
  | PADTO -> "OptOps.PADTO" | SWAP -> "OptOps.SWAP" | BLOCK -> "OptOps.BLOCK"
  | OVERLAP -> "OptOps.OVERLAP"

let to_string o =
  let axis = match o.axis with None -> "None" | Some a -> string_of_int a in
  let arg = match o.arg with No_arg -> "None" | Int i -> string_of_int i
                           | Tc (a, b, c) -> Printf.sprintf "(%d, %d, %d)" a b c in
  Printf.sprintf "Opt(op=%s, axis=%s, arg=%s)" (opt_ops_to_string o.op) axis arg

let compare = Stdlib.compare

(* tinygrad: search.py's comprehensions of actions,
   [Opt(op, axis, amt) for amt in amts for axis in range(naxes)] *)
let on_axes op amts naxes =
  List.concat_map (fun amt -> List.init naxes (fun axis -> { op; axis = Some axis; arg = Int amt })) amts
