(** Reductions shared by Tensor and UOp. tinygrad: [mixin/reduce.py] ([ReduceMixin]) and [UOp._rop]; also the
    [mixin/op.py] functions the Tensor API needs at this layer ([min], [mean], [var], [std], [cat],
    [_pad_constant]). Axes may be negative; [None] means all axes. *)

(** [rop x op axes]: REDUCE over the axes (size-1 axes are reshaped away). tinygrad [UOp._rop]. *)
val rop : Uop.t -> Ops.t -> int list -> Uop.t

(** [reduce_ x op]: the reduction in the strong dtype, with [keepdim]; [op_name] names errors. tinygrad [ReduceMixin._reduce]. *)
val reduce_ : ?op_name:string -> ?axis:int list -> ?keepdim:bool -> Uop.t -> Ops.t -> Uop.t

(** [pad_constant x pads value]: pad with (before, after) per axis ([None] = none) filled with [value]; negative
    pads crop. tinygrad [OpMixin._pad_constant]. *)
val pad_constant : Uop.t -> (int * int) option list -> Dtype.const -> Uop.t

(** [pad_filled x pads value]: pad with non-negative (before, after) sints per axis ([None] = none) filled with
    [value] (symbolic shapes and pads allowed). The non-cropping part of tinygrad [OpMixin._pad_constant]. *)
val pad_filled : Uop.t -> (Uop.sint * Uop.sint) option list -> Dtype.const -> Uop.t

(** Concatenate along an existing axis (a STACK + flatten when the sizes agree, else pads summed).
    tinygrad [OpMixin.cat]. *)
val cat : ?dim:int -> Uop.t list -> Uop.t

(** The reductions over UOps. *)
include Mixin_intf.REDUCE with type t := Uop.t

(** The reductions over a carrier. *)
module Make (C : Mixin_intf.CARRIER) : Mixin_intf.REDUCE with type t := C.t
