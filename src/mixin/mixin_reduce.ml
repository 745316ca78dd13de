(* tinygrad: mixin/reduce.py (ReduceMixin) and UOp._rop, as functions over UOps, and [Make], the same ops over a
   carrier. *)

open Uop

let shape = Uop.shape
let range n = List.init n (fun i -> i)

(* python [resolve(s != 1)] (symbolic dims count as != 1) *)
let not_one = function Sint 1 -> false | _ -> true

(* tinygrad: UOp._rop — reduce axes go to the front (a PERMUTE), then REDUCE(op, n) and a RESHAPE back *)
let rop x op (axis : int list) =
  let sh = shape x in
  let axis = List.sort_uniq compare axis in
  let reduce_axis = List.filter (fun a -> not_one (List.nth sh a)) axis in
  let kept_shape = List.filteri (fun i _ -> not (List.mem i axis)) sh in
  if reduce_axis = [] then Mixin_movement.reshape x kept_shape
  else
    let perm = reduce_axis @ List.filter (fun i -> not (List.mem i reduce_axis)) (range (List.length sh)) in
    let ret = Uop.create Ops.Reduce ~src:[| Mixin_movement.permute x perm |] ~arg:(Reduce_arg (op, List.length reduce_axis)) in
    if axis <> reduce_axis then Mixin_movement.reshape ret kept_shape else ret

(* tinygrad: ReduceMixin._reduce *)
let reduce_ ?(op_name = "reduce") ?axis ?(keepdim = false) x op =
  let x = Uop.cast (Dtype.strong_dtype x.dtype) x in
  let n = Mixin_movement.ndim x in
  let axis = List.map (Mixin_movement.resolve_dim ~op:op_name x) (match axis with None -> range n | Some a -> a) in
  let axis = if n = 0 then [] else axis in
  let ret = rop x op axis in
  if keepdim then Mixin_movement.reshape ret (List.mapi (fun i s -> if List.mem i axis then Sint 1 else s) (shape x)) else ret

(* tinygrad: ReduceMixin.sum *)
let sum ?axis ?keepdim ?dtype (x : Uop.t) =
  let acc = match dtype with Some d -> d | None -> Dtype.sum_acc_dtype x.dtype in
  let ret = reduce_ ~op_name:"sum" ?axis ?keepdim (Uop.cast acc x) Ops.Add in
  if dtype = None && (x.dtype == Dtype.Float16 || x.dtype == Dtype.Bfloat16 || List.memq x.dtype Dtype.fp8s)
  then Uop.cast x.dtype ret else ret

(* tinygrad: ReduceMixin.prod *)
let prod ?axis ?keepdim ?dtype (x : Uop.t) =
  reduce_ ~op_name:"prod" ?axis ?keepdim (Uop.cast (Option.value dtype ~default:x.dtype) x) Ops.Mul

(* tinygrad: ReduceMixin.max *)
let max ?axis ?keepdim x = reduce_ ~op_name:"max" ?axis ?keepdim x Ops.Max

(* tinygrad: ReduceMixin.any *)
let any ?axis ?keepdim x = max ?axis ?keepdim (Uop.cast Dtype.Bool x)

(* tinygrad: ReduceMixin.all *)
let all ?axis ?keepdim x = prod ?axis ?keepdim (Uop.cast Dtype.Bool x)

(* each right-hand side is the UOp function of the same name above *)
module Make (C : Mixin_intf.CARRIER) = struct
  include Mixin_dtype.Lift (C)
  let sum ?axis ?keepdim ?dtype x = lift1 "sum" (sum ?axis ?keepdim ?dtype) x
  let prod ?axis ?keepdim ?dtype x = lift1 "prod" (prod ?axis ?keepdim ?dtype) x
  let max ?axis ?keepdim x = lift1 "max" (max ?axis ?keepdim) x
  let any ?axis ?keepdim x = lift1 "any" (any ?axis ?keepdim) x
  let all ?axis ?keepdim x = lift1 "all" (all ?axis ?keepdim) x
end
