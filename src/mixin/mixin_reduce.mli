(** Reductions shared by Tensor and UOp. tinygrad: [mixin/reduce.py] ([ReduceMixin]) and [UOp._rop]; also the
    [mixin/op.py] functions the Tensor API needs at this layer ([min], [mean], [var], [std], [cat],
    [_pad_constant]). Axes may be negative; [None] means all axes. *)

(** [rop x op axes]: REDUCE over the axes (size-1 axes are reshaped away). tinygrad [UOp._rop]. *)
val rop : Uop.t -> Ops.t -> int list -> Uop.t

(** [reduce_ x op]: the reduction in the strong dtype, with [keepdim]; [op_name] names errors. tinygrad [ReduceMixin._reduce]. *)
val reduce_ : ?op_name:string -> ?axis:int list -> ?keepdim:bool -> Uop.t -> Ops.t -> Uop.t

(** Sum, accumulated in [dtype] (default {!Dtype.sum_acc_dtype}). tinygrad [ReduceMixin.sum]. *)
val sum : ?axis:int list -> ?keepdim:bool -> ?dtype:Dtype.t -> Uop.t -> Uop.t

(** Product. tinygrad [ReduceMixin.prod]. *)
val prod : ?axis:int list -> ?keepdim:bool -> ?dtype:Dtype.t -> Uop.t -> Uop.t

(** Maximum. tinygrad [ReduceMixin.max]. *)
val max : ?axis:int list -> ?keepdim:bool -> Uop.t -> Uop.t

(** Whether any element is true. tinygrad [ReduceMixin.any]. *)
val any : ?axis:int list -> ?keepdim:bool -> Uop.t -> Uop.t

(** Whether all elements are true. tinygrad [ReduceMixin.all]. *)
val all : ?axis:int list -> ?keepdim:bool -> Uop.t -> Uop.t

(** Minimum, as the inverse of the max of the inverse. tinygrad [OpMixin.min]. *)
val min : ?axis:int list -> ?keepdim:bool -> Uop.t -> Uop.t

(** Mean (ints give float32). tinygrad [OpMixin.mean]. *)
val mean : ?axis:int list -> ?keepdim:bool -> Uop.t -> Uop.t

(** Variance with Bessel's [correction] (default 1). tinygrad [OpMixin.var]. *)
val var : ?axis:int list -> ?keepdim:bool -> ?correction:int -> Uop.t -> Uop.t

(** Standard deviation. tinygrad [OpMixin.std]. *)
val std : ?axis:int list -> ?keepdim:bool -> ?correction:int -> Uop.t -> Uop.t

(** [pad_constant x pads value]: pad with (before, after) per axis ([None] = none) filled with [value]; negative
    pads crop. tinygrad [OpMixin._pad_constant]. *)
val pad_constant : Uop.t -> (int * int) option list -> Dtype.const -> Uop.t

(** Concatenate along an existing axis (a STACK + flatten when the sizes agree, else pads summed).
    tinygrad [OpMixin.cat]. *)
val cat : ?dim:int -> Uop.t list -> Uop.t
