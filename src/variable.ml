(* tinygrad: uop/ops.py Variable (UOp.variable, bind, unbind, expr, is_bound_var, variables) *)

type t = Uop.t

let of_uop (u : Uop.t) =
  if not (Uop.is_variable u) then invalid_arg ("Variable.of_uop: not a Variable: " ^ Ops.to_string u.op);
  u

(* tinygrad: UOp.variable (weakint, as tinygrad's default) *)
let create name lo hi =
  if name = "" then invalid_arg "Variable.create: empty name";
  if lo > hi then invalid_arg (Printf.sprintf "Variable.create: %s has min %d > max %d" name lo hi);
  Uop.variable_int name lo hi

let name = Uop.expr
let uop v = v
let zint c = Z.to_int (Uop.zi c)
let bounds v = (zint (Uop.vmin v), zint (Uop.vmax v))

(* tinygrad: UOp.bind with an int *)
let bind v n =
  let lo, hi = bounds v in
  if n < lo || n > hi then
    invalid_arg (Printf.sprintf "Variable.bind: %s=%d not in range [%d, %d]" (name v) n lo hi);
  Sint.Suop (Uop.bind v (Uop.const_like v (Dtype.I (Z.of_int n))))

let is_bound = function Sint.Sint _ -> false | Sint.Suop u -> Buffers.is_bound_var u

(* tinygrad: UOp.unbind *)
let unbind = function
  | Sint.Suop u when Buffers.is_bound_var u -> Buffers.unbind u
  | s -> invalid_arg ("Variable.unbind: not a bound Variable: " ^ Sint.to_string s)

let value s = snd (unbind s)
let to_sint v = Sint.Suop v

(* tinygrad: UOp.variables, bound Variables included *)
let variables = function
  | Sint.Sint _ -> []
  | Sint.Suop u ->
    let vs = List.filter_map (fun x -> if Uop.is_variable x then Some x else None) (Uop.toposort u) in
    List.sort_uniq (fun a b -> compare (name a) (name b)) vs

let equal = ( == )
let pp fmt v = let lo, hi = bounds v in Format.fprintf fmt "%s[%d, %d]" (name v) lo hi
