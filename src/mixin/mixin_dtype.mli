(** Dtype ops shared by Tensor and UOp. tinygrad: [mixin/dtype.py] ([DTypeMixin]); the carrier of every mixin
    functor is {!Mixin_intf.CARRIER}, tinygrad's [_uop] / [_wrap_uop]. *)

(** The dtype ops over UOps. *)
include Mixin_intf.DTYPE with type t := Uop.t

(** [named op f]: runs [f], putting ["op: "] in front of an [Invalid_argument] message that does not start with
    it, so an error raised below a public op still names it. *)
val named : string -> (unit -> 'a) -> 'a

(** The liftings every mixin functor uses: [liftN op f] applies the UOp function [f] to the carriers' UOps and
    wraps the result, under [named op]. *)
module Lift (C : Mixin_intf.CARRIER) : sig
  val lift1 : string -> (Uop.t -> Uop.t) -> C.t -> C.t
  val lift2 : string -> (Uop.t -> Uop.t -> Uop.t) -> C.t -> C.t -> C.t
  val lift3 : string -> (Uop.t -> Uop.t -> Uop.t -> Uop.t) -> C.t -> C.t -> C.t -> C.t
end

(** The dtype ops over a carrier. *)
module Make (C : Mixin_intf.CARRIER) : Mixin_intf.DTYPE with type t := C.t
