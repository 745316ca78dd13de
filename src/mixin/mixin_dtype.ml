(* tinygrad: mixin/dtype.py (DTypeMixin) as functions over UOps *)

(* tinygrad: DTypeMixin.cast *)
let cast (x : Uop.t) dt =
  if dt == Dtype.Void then invalid_arg "cast: cannot cast to void";
  Uop.cast dt x

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

(* tinygrad: DTypeMixin.float, half, int, bool, bfloat16, double, long, short — casts to a named dtype *)
module Casts (X : sig type t val cast : t -> Dtype.t -> t end) = struct
  let float x = X.cast x Dtype.Float32
  let half x = X.cast x Dtype.Float16
  let int x = X.cast x Dtype.Int32
  let bool x = X.cast x Dtype.Bool
  let bfloat16 x = X.cast x Dtype.Bfloat16
  let double x = X.cast x Dtype.Float64
  let long x = X.cast x Dtype.Int64
  let short x = X.cast x Dtype.Int16
end

include Casts (struct type t = Uop.t let cast = cast end)

(* an Invalid_argument raised below a public op (e.g. "dot: ..." under matmul) gets the public op's name in front,
   so every API error names the op the user called *)
let named op f =
  let p = op ^ ":" in
  try f () with
  | Invalid_argument m when not (String.length m >= String.length p && String.sub m 0 (String.length p) = p) ->
    invalid_arg (op ^ ": " ^ m)

module Lift (C : Mixin_intf.CARRIER) = struct
  let lift1 op f x = named op (fun () -> C.wrap_uop ~op (f (C.uop x)))
  let lift2 op f x y = named op (fun () -> C.wrap_uop ~op (f (C.uop x) (C.uop y)))
  let lift3 op f x y z = named op (fun () -> C.wrap_uop ~op (f (C.uop x) (C.uop y) (C.uop z)))
end

(* each right-hand side is the UOp function of the same name above *)
module Make (C : Mixin_intf.CARRIER) = struct
  include Lift (C)
  let cast x dt = if (C.uop x).dtype == dt then x else lift1 "cast" (fun u -> cast u dt) x
  let bitcast x dt = lift1 "bitcast" (fun u -> bitcast u dt) x
  let element_size x = named "element_size" (fun () -> element_size (C.uop x))
  let is_floating_point x = is_floating_point (C.uop x)
  include Casts (struct type t = C.t let cast = cast end)
end
