(* tinygrad: mixin/reduce.py (ReduceMixin) and UOp._rop, as functions over UOps; at the end the few
   mixin/op.py reductions and joins the Tensor API needs from this layer (min, mean, var, std, cat,
   _pad_constant). *)

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

(* ---- from tinygrad mixin/op.py (OpMixin) ---- *)

(* tinygrad: OpMixin.min *)
let min ?axis ?keepdim x =
  Mixin_elementwise.inverse (max ?axis ?keepdim (Mixin_elementwise.inverse x))

(* the product of the dims that a keepdim reduction changes, as a UOp (python int -> weak CONST) *)
let reduced_count x (keep : Uop.t) =
  let changed = List.filter_map (fun (si, so) -> if Uop.sint_equal si so then None else Some si)
      (List.combine (shape x) (shape keep)) in
  Uop.sprod changed

(* tinygrad: OpMixin.mean *)
let mean ?axis ?(keepdim = false) (x : Uop.t) =
  let output_dtype = if Dtype.is_float x.dtype then x.dtype else Dtype.Float32 in
  let numerator = sum ?axis ~keepdim (Uop.cast (Dtype.sum_acc_dtype x.dtype) x) in
  let denominator = reduced_count x (sum ?axis ~keepdim:true x) in
  Uop.cast output_dtype (Mixin_elementwise.div numerator (Uop.sint_to_uop denominator))

(* tinygrad: OpMixin.var *)
let var ?axis ?(keepdim = false) ?(correction = 1) (x : Uop.t) =
  let output_dtype = if Dtype.is_float x.dtype then x.dtype else Dtype.Float32 in
  let squares = Mixin_elementwise.square (Mixin_elementwise.sub x (mean ?axis ~keepdim:true x)) in
  let n = reduced_count x (sum ?axis ~keepdim:true squares) in
  let numerator = sum ?axis ~keepdim (Uop.cast (Dtype.sum_acc_dtype x.dtype) squares) in
  let d = match n with
    | Sint n -> Uop.const_int (Stdlib.max (n - correction) 0)
    | Suop u -> Mixin_elementwise.maximum (Mixin_elementwise.sub u (Uop.const_int correction)) (Uop.const_int 0) in
  Uop.cast output_dtype (Mixin_elementwise.div numerator d)

(* tinygrad: OpMixin.std *)
let std ?axis ?keepdim ?correction x = Mixin_elementwise.sqrt (var ?axis ?keepdim ?correction x)

(* tinygrad: OpMixin._pad_constant for non-negative (possibly symbolic) pads: the PAD, and where [value] is not
   zero, a WHERE over the padded-true mask *)
let pad_filled x (pads : (sint * sint) option list) (value : Dtype.const) =
  let base = Mixin_movement.pad x pads in
  let is_zero = match value with
    | Dtype.I z -> Z.equal z Z.zero | Dtype.F f -> f = 0.0 | Dtype.B b -> not b | Dtype.Invalid -> false in
  if is_zero then base
  else Mixin_elementwise.where (Mixin_movement.pad (Uop.const_like ~dtype:Dtype.Bool x (Dtype.B true)) pads) base (Uop.const value)

(* tinygrad: OpMixin._pad_constant (int pads; negative pads crop) *)
let pad_constant x (px : (int * int) option list) (value : Dtype.const) =
  let sh = shape x in
  if List.length px <> List.length sh then
    invalid_arg (Printf.sprintf "pad: padding length is improper, %d pairs for shape %s" (List.length px) (Uop.shape_str (shape x)));
  let px = List.map (function None -> (0, 0) | Some p -> p) px in
  let has_neg = not (List.for_all (fun (b, a) -> b >= 0 && a >= 0) px) in
  let xx = if has_neg then
      Mixin_movement.shrink x (List.map2 (fun (pb, pa) s -> Some (Sint (- (Stdlib.min pb 0)), Uop.sint_add s (Sint (Stdlib.min pa 0)))) px sh)
    else x in
  let pads = if has_neg then List.map (fun (pb, pa) -> (Stdlib.max pb 0, Stdlib.max pa 0)) px else px in
  pad_filled xx (List.map (fun (b, a) -> Some (Sint b, Sint a)) pads) value

(* tinygrad: OpMixin.cat *)
let cat ?(dim = 0) (tensors : Uop.t list) =
  match tensors with
  | [] -> invalid_arg "cat: needs at least one tensor"
  | x :: args ->
    if List.exists (fun t -> shape t = []) tensors then
      invalid_arg (Printf.sprintf "cat: zero-dimensional tensors cannot be concatenated (shapes %s)"
                     (String.concat ", " (List.map (fun t -> Uop.shape_str (shape t)) tensors)));
    let dim = Mixin_movement.resolve_dim ~op:"cat" x dim in
    let sx = shape x in
    List.iter (fun a ->
        let sa = shape a in
        if List.length sa <> List.length sx
        || not (List.for_all2 (fun (i, ti) ai -> i = dim || Uop.sint_equal ti ai) (List.mapi (fun i s -> (i, s)) sx) sa) then
          invalid_arg (Printf.sprintf "cat: shapes %s must match except in dim %d" (String.concat ", "
                                                                                      (List.map (fun t -> Uop.shape_str (shape t)) tensors)) dim))
      args;
    if List.for_all (fun t -> Uop.sint_equal (List.nth (shape t) dim) (List.nth sx dim)) args then
      Mixin_movement.flatten ~start_dim:dim ~end_dim:(dim + 1) (Mixin_movement.stack ~dim tensors)
    else begin
      (* the offsets are sints (a symbolic dim gives symbolic offsets); the pads are never negative, so the zero
         pad is the PAD itself *)
      let sizes = List.map (fun t -> List.nth (shape t) dim) tensors in
      let total = List.fold_left Uop.sint_add (Sint 0) sizes in
      let sub a b = Uop.sint_add a (Uop.sint_mul (Sint (-1)) b) in
      let _, padded = List.fold_left2 (fun (off, acc) t sz ->
          let p = Mixin_movement.pad t (List.mapi (fun j _ -> if j = dim then Some (off, sub (sub total off) sz) else None) (shape t)) in
          (Uop.sint_add off sz, p :: acc)) (Sint 0, []) tensors sizes in
      (* not tinygrad's usum, which ORs when the first tensor is bool: a bool first and a float after would OR
         floats, which its UOp spec rejects; the parts are disjoint, so ADD gives the same values *)
      match List.rev padded with
      | p0 :: rest when List.for_all (fun t -> t.Uop.dtype == Dtype.Bool) tensors -> Uop.usum ~start:p0 rest
      | p0 :: rest -> List.fold_left Uop.add p0 rest
      | [] -> assert false
    end

(* each right-hand side is the UOp function of the same name above *)
module Make (C : Mixin_intf.CARRIER) = struct
  include Mixin_dtype.Lift (C)
  let sum ?axis ?keepdim ?dtype x = lift1 "sum" (sum ?axis ?keepdim ?dtype) x
  let prod ?axis ?keepdim ?dtype x = lift1 "prod" (prod ?axis ?keepdim ?dtype) x
  let max ?axis ?keepdim x = lift1 "max" (max ?axis ?keepdim) x
  let any ?axis ?keepdim x = lift1 "any" (any ?axis ?keepdim) x
  let all ?axis ?keepdim x = lift1 "all" (all ?axis ?keepdim) x
  let min ?axis ?keepdim x = lift1 "min" (min ?axis ?keepdim) x
  let mean ?axis ?keepdim x = lift1 "mean" (mean ?axis ?keepdim) x
  let var ?axis ?keepdim ?correction x = lift1 "var" (var ?axis ?keepdim ?correction) x
  let std ?axis ?keepdim ?correction x = lift1 "std" (std ?axis ?keepdim ?correction) x
end
