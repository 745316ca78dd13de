(** Elementwise ops shared by Tensor and UOp. tinygrad: [mixin/elementwise.py] ([ElementwiseMixin]).
    Binary ops promote with the weak-dtype rules and broadcast shapes implicitly. *)

(** A weak float CONST (a Python float literal). *)
val cf : float -> Uop.t

(** A weak int CONST (a Python int literal). *)
val ci : int -> Uop.t

(** tinygrad: ElementwiseMixin._broadcasted / _binop. *)
val broadcasted : ?reverse:bool -> Uop.t -> Uop.t -> Uop.t * Uop.t

(** tinygrad [ElementwiseMixin.binop]. *)
val binop : Ops.t -> ?reverse:bool -> Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.usum / uprod. *)
val usum : start:Uop.t -> Uop.t list -> Uop.t

(** tinygrad [ElementwiseMixin.uprod]. *)
val uprod : start:Uop.t -> Uop.t list -> Uop.t

(** tinygrad: ElementwiseMixin._inverse. *)
val inverse : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.clamp. *)
val clamp : ?min_:Uop.t -> ?max_:Uop.t -> Uop.t -> Uop.t

(** [c0*x^(n-1) + ... + cn] by Horner. tinygrad [helpers.polyN]. *)
val poly_n : Uop.t -> float list -> Uop.t

(** tinygrad: ElementwiseMixin.threefry. *)
val threefry : Uop.t -> Uop.t -> Uop.t

(** The elementwise ops over UOps. *)
include Mixin_intf.ELEMENTWISE with type t := Uop.t

(** The elementwise ops over a carrier. *)
module Make (C : Mixin_intf.CARRIER) : Mixin_intf.ELEMENTWISE with type t := C.t
