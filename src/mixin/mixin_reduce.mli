(** Reductions shared by Tensor and UOp. tinygrad: [mixin/reduce.py] ([ReduceMixin]) and [UOp._rop]. Axes may be
    negative; [None] means all axes. *)

(** [rop x op axes]: REDUCE over the axes (size-1 axes are reshaped away). tinygrad [UOp._rop]. *)
val rop : Uop.t -> Ops.t -> int list -> Uop.t

(** [reduce_ x op]: the reduction in the strong dtype, with [keepdim]; [op_name] names errors. tinygrad [ReduceMixin._reduce]. *)
val reduce_ : ?op_name:string -> ?axis:int list -> ?keepdim:bool -> Uop.t -> Ops.t -> Uop.t

(** The reductions over UOps. *)
include Mixin_intf.REDUCE with type t := Uop.t

(** The reductions over a carrier. *)
module Make (C : Mixin_intf.CARRIER) : Mixin_intf.REDUCE with type t := C.t
