(* tinygrad: uop/ops.py sint ([int | UOp]) with the Python operators, ssimplify, sym_infer and srender *)

type t = Uop.sint = Sint of int | Suop of Uop.t

let of_int i = Sint i
let of_uop u = Uop.sint_of_uop (Uop.ssimplify u)
let to_uop s = Uop.sint_to_uop s
let to_int = function Sint i -> Some i | Suop _ -> None
let to_int_exn = function
  | Sint i -> i
  | Suop u -> invalid_arg ("Sint.to_int_exn: symbolic value " ^ Uop.render u)
let is_symbolic = function Sint _ -> false | Suop _ -> true

let ( + ) = Uop.sint_add
let ( * ) = Uop.sint_mul
let ( - ) a b = a + (Sint (-1) * b)

(* tinygrad: sint // sint — floor division (Python's on ints, FLOORDIV on UOps) *)
let ( / ) a b =
  if b = Sint 0 then invalid_arg ("Sint.( / ): division by zero of " ^ Uop.sint_to_string a);
  match a, b with
  | Sint x, Sint y -> Sint (Helpers.floordiv x y)
  | _ -> of_uop (Uop.alu Ops.Floordiv [ to_uop a; to_uop b ])

let zint c = Z.to_int (Uop.zi c)
let bounds = function Sint i -> (i, i) | Suop u -> (zint (Uop.vmin u), zint (Uop.vmax u))
let equal = Uop.sint_equal

(* tinygrad: sym_infer; bound Variables not in [var_vals] take their bound value *)
let eval ?(var_vals = []) = function
  | Sint i -> i
  | Suop u ->
    let bound = List.filter_map (fun x ->
        if Buffers.is_bound_var x then
          let v, n = Buffers.unbind x in
          if List.mem_assoc (Uop.expr v) var_vals then None else Some (Uop.expr v, n)
        else None) (Uop.toposort u) in
    let vals = List.map (fun (k, v) -> (k, Dtype.I (Z.of_int v))) (var_vals @ bound) in
    zint (Uop.sym_infer u vals)

let to_string = Uop.sint_to_string
let pp fmt s = Format.pp_print_string fmt (to_string s)
