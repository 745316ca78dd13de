(* tinygrad: mixin/dtype.py (DTypeMixin) as functions over UOps *)

(* tinygrad: DTypeMixin.cast *)
let cast (x : Uop.t) dt = Uop.cast dt x

(* tinygrad: DTypeMixin.bitcast *)
let bitcast (x : Uop.t) dt =
  if Dtype.is_weak x.dtype || Dtype.is_weak dt then
    invalid_arg (Printf.sprintf "bitcast: requires concrete dtypes, got %s -> %s" (Dtype.to_string x.dtype)
                   (Dtype.to_string dt));
  Uop.bitcast dt x

(* tinygrad: DTypeMixin.element_size *)
let element_size (x : Uop.t) =
  if Dtype.is_weak x.dtype then
    invalid_arg ("element_size: requires a concrete dtype, got " ^ Dtype.to_string x.dtype);
  Dtype.itemsize x.dtype

(* tinygrad: DTypeMixin.is_floating_point *)
let is_floating_point (x : Uop.t) = Dtype.is_float x.dtype

let float x = cast x Dtype.Float32
let half x = cast x Dtype.Float16
let int x = cast x Dtype.Int32
let bool x = cast x Dtype.Bool
let bfloat16 x = cast x Dtype.Bfloat16
let double x = cast x Dtype.Float64
let long x = cast x Dtype.Int64
let short x = cast x Dtype.Int16
