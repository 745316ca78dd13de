(** The signatures of the mixins (tinygrad: mixin/*.py, the mixin classes). A mixin is a functor over a
   [CARRIER]: the carrier's UOp and the way to wrap a UOp result back into the carrier, tinygrad's
   [DTypeMixin._uop] and [_wrap_uop]. Each op is written once over UOps in its mixin file; [Make (C)] gives it
   over the carrier [C.t], naming the op in front of any Invalid_argument. The UOp functions are the instance
   for [Uop.t] itself; {!Tensor} includes the instance for its tensors. *)

(** tinygrad: DTypeMixin._uop / _wrap_uop *)
module type CARRIER = sig
  type t

  (** the carrier's UOp (tinygrad [_uop]) *)
  val uop : t -> Uop.t

  (** a carrier around a UOp result of the op [op] (tinygrad [_wrap_uop]) *)
  val wrap_uop : op:string -> Uop.t -> t
end

(** tinygrad: mixin/dtype.py DTypeMixin *)
module type DTYPE = sig
  type t

  (** Casts to [dt]; the same value when the dtype already is [dt]. tinygrad [DTypeMixin.cast]. *)
  val cast : t -> Dtype.t -> t

  (** Reinterprets the bits as [dt] (concrete dtypes only). tinygrad [DTypeMixin.bitcast]. *)
  val bitcast : t -> Dtype.t -> t

  (** The size in bytes of one element (concrete dtypes only). tinygrad [DTypeMixin.element_size]. *)
  val element_size : t -> int

  (** Whether the dtype is a float. tinygrad [DTypeMixin.is_floating_point]. *)
  val is_floating_point : t -> bool

  (** Cast to float32. tinygrad [DTypeMixin.float]. *)
  val float : t -> t

  (** Cast to float16. tinygrad [DTypeMixin.half]. *)
  val half : t -> t

  (** Cast to int32. tinygrad [DTypeMixin.int]. *)
  val int : t -> t

  (** Cast to bool. tinygrad [DTypeMixin.bool]. *)
  val bool : t -> t

  (** Cast to bfloat16. tinygrad [DTypeMixin.bfloat16]. *)
  val bfloat16 : t -> t

  (** Cast to float64. tinygrad [DTypeMixin.double]. *)
  val double : t -> t

  (** Cast to int64. tinygrad [DTypeMixin.long]. *)
  val long : t -> t

  (** Cast to int16. tinygrad [DTypeMixin.short]. *)
  val short : t -> t
end

(** tinygrad: mixin/elementwise.py ElementwiseMixin. Binary ops promote with the weak-dtype rules and broadcast
   shapes implicitly. *)
module type ELEMENTWISE = sig
  type t

  (** tinygrad: ElementwiseMixin.detach. *)
  val detach : t -> t

  (** tinygrad: ElementwiseMixin.logical_not. *)
  val logical_not : t -> t

  (** tinygrad: ElementwiseMixin.contiguous. *)
  val contiguous : t -> t

  (** tinygrad: ElementwiseMixin.contiguous_backward. *)
  val contiguous_backward : t -> t

  (** tinygrad [ElementwiseMixin.neg]. *)
  val neg : t -> t

  (** tinygrad [ElementwiseMixin.add]. *)
  val add : t -> t -> t

  (** tinygrad [ElementwiseMixin.sub]. *)
  val sub : t -> t -> t

  (** tinygrad [ElementwiseMixin.mul]. *)
  val mul : t -> t -> t

  (** tinygrad [ElementwiseMixin.bitwise_not]. *)
  val bitwise_not : t -> t

  (** tinygrad [ElementwiseMixin.bitwise_and]. *)
  val bitwise_and : t -> t -> t

  (** tinygrad [ElementwiseMixin.bitwise_or]. *)
  val bitwise_or : t -> t -> t

  (** tinygrad [ElementwiseMixin.bitwise_xor]. *)
  val bitwise_xor : t -> t -> t

  (** tinygrad [ElementwiseMixin.reciprocal]. *)
  val reciprocal : t -> t

  (** tinygrad [ElementwiseMixin.trunc]. *)
  val trunc : t -> t

  (** tinygrad [ElementwiseMixin.sqrt]. *)
  val sqrt : t -> t

  (** tinygrad [ElementwiseMixin.sin]. *)
  val sin : t -> t

  (** tinygrad [ElementwiseMixin.log2]. *)
  val log2 : t -> t

  (** tinygrad [ElementwiseMixin.exp2]. *)
  val exp2 : t -> t

  (** tinygrad [ElementwiseMixin.lt]. *)
  val lt : t -> t -> t

  (** tinygrad [ElementwiseMixin.gt]. *)
  val gt : t -> t -> t

  (** tinygrad [ElementwiseMixin.ge]. *)
  val ge : t -> t -> t

  (** tinygrad [ElementwiseMixin.le]. *)
  val le : t -> t -> t

  (** tinygrad [ElementwiseMixin.ne]. *)
  val ne : t -> t -> t

  (** tinygrad [ElementwiseMixin.eq]. *)
  val eq : t -> t -> t

  (** tinygrad [ElementwiseMixin.lshift]. *)
  val lshift : t -> t -> t

  (** tinygrad [ElementwiseMixin.rshift]. *)
  val rshift : t -> t -> t

  (** tinygrad [ElementwiseMixin.maximum]. *)
  val maximum : t -> t -> t

  (** tinygrad [ElementwiseMixin.minimum]. *)
  val minimum : t -> t -> t

  (** tinygrad: ElementwiseMixin.where. *)
  val where : t -> t -> t -> t

  (** tinygrad: ElementwiseMixin.floor. *)
  val floor : t -> t

  (** tinygrad: ElementwiseMixin.ceil. *)
  val ceil : t -> t

  (** tinygrad: ElementwiseMixin.div; [rounding_mode] is `Trunc or `Floor. *)
  val div : ?rounding_mode:[ `Trunc | `Floor ] -> t -> t -> t

  (** tinygrad: ElementwiseMixin.__floordiv__. *)
  val idiv : t -> t -> t

  (** tinygrad: ElementwiseMixin.mod. *)
  val mod_ : t -> t -> t

  (** tinygrad: ElementwiseMixin.fmod. *)
  val fmod : t -> t -> t

  (** tinygrad: ElementwiseMixin.cos. *)
  val cos : t -> t

  (** tinygrad: ElementwiseMixin.exp. *)
  val exp : t -> t

  (** tinygrad: ElementwiseMixin.pow; [Invalid_argument] when the result is not a float and an operand is a Python
      constant (weak CONST) other than a non-negative int. *)
  val pow : t -> t -> t

  (** tinygrad: ElementwiseMixin.square. *)
  val square : t -> t

  (** tinygrad: ElementwiseMixin.isnan. *)
  val isnan : t -> t

  (** tinygrad: ElementwiseMixin.isinf. *)
  val isinf : ?detect_positive:bool -> ?detect_negative:bool -> t -> t

  (** tinygrad: ElementwiseMixin.isfinite. *)
  val isfinite : t -> t

  (** tinygrad: ElementwiseMixin.isclose: [|x - other| <= atol + rtol * |other|] for finite values, equal infinities,
      and NaN pairs when [equal_nan] (defaults rtol 1e-5, atol 1e-8). *)
  val isclose : ?rtol:float -> ?atol:float -> ?equal_nan:bool -> t -> t -> t

  (** tinygrad: ElementwiseMixin.relu. *)
  val relu : t -> t

  (** tinygrad: ElementwiseMixin.sigmoid. *)
  val sigmoid : t -> t

  (** tinygrad: ElementwiseMixin.relu6. *)
  val relu6 : t -> t

  (** tinygrad: ElementwiseMixin.hardswish. *)
  val hardswish : t -> t

  (** tinygrad: ElementwiseMixin.hardsigmoid. *)
  val hardsigmoid : ?alpha:float -> ?beta:float -> t -> t

  (** tinygrad: ElementwiseMixin.hardtanh. *)
  val hardtanh : ?min_val:float -> ?max_val:float -> t -> t

  (** tinygrad: ElementwiseMixin.leaky_relu. *)
  val leaky_relu : ?neg_slope:float -> t -> t

  (** tinygrad: ElementwiseMixin.tanh. *)
  val tanh : t -> t

  (** tinygrad: ElementwiseMixin.quick_gelu. *)
  val quick_gelu : t -> t

  (** tinygrad: ElementwiseMixin.rsqrt. *)
  val rsqrt : t -> t

  (** tinygrad: ElementwiseMixin.log. *)
  val log : t -> t

  (** tinygrad: ElementwiseMixin.log10. *)
  val log10 : t -> t

  (** tinygrad: ElementwiseMixin.sign. *)
  val sign : t -> t

  (** tinygrad: ElementwiseMixin.abs. *)
  val abs : t -> t

  (** tinygrad: ElementwiseMixin.erf. *)
  val erf : t -> t

  (** tinygrad: ElementwiseMixin.gelu; [approximate] is [`Tanh] (tinygrad's "tanh", the default) or [`None] (erf). *)
  val gelu : ?approximate:[ `Tanh | `None ] -> t -> t

  (** tinygrad: ElementwiseMixin.swish. *)
  val swish : t -> t

  (** tinygrad: ElementwiseMixin.silu. *)
  val silu : t -> t

  (** tinygrad: ElementwiseMixin.logaddexp. *)
  val logaddexp : t -> t -> t

  (** tinygrad: ElementwiseMixin.copysign. *)
  val copysign : t -> t -> t

  (** tinygrad: ElementwiseMixin.round (half to even). *)
  val round : t -> t

  (** tinygrad: ElementwiseMixin.tan. *)
  val tan : t -> t

  (** tinygrad: ElementwiseMixin.asin. *)
  val asin : t -> t

  (** tinygrad: ElementwiseMixin.acos. *)
  val acos : t -> t

  (** tinygrad: ElementwiseMixin.atan. *)
  val atan : t -> t

  (** tinygrad: ElementwiseMixin.atanh. *)
  val atanh : t -> t

  (** tinygrad: ElementwiseMixin.asinh. *)
  val asinh : t -> t

  (** tinygrad: ElementwiseMixin.acosh. *)
  val acosh : t -> t

  (** tinygrad: ElementwiseMixin.elu. *)
  val elu : ?alpha:float -> t -> t

  (** tinygrad: ElementwiseMixin.celu. *)
  val celu : ?alpha:float -> t -> t

  (** tinygrad: ElementwiseMixin.selu. *)
  val selu : ?alpha:float -> ?gamma:float -> t -> t

  (** tinygrad: ElementwiseMixin.softplus. *)
  val softplus : ?beta:float -> t -> t

  (** tinygrad: ElementwiseMixin.mish. *)
  val mish : t -> t

  (** tinygrad: ElementwiseMixin.logsigmoid. *)
  val logsigmoid : t -> t

  (** tinygrad: ElementwiseMixin.sinh. *)
  val sinh : t -> t

  (** tinygrad: ElementwiseMixin.cosh. *)
  val cosh : t -> t

  (** tinygrad: ElementwiseMixin.softsign. *)
  val softsign : t -> t

  (** tinygrad: ElementwiseMixin.lerp (the uint8 fixed-point path is not ported). *)
  val lerp : t -> t -> t -> t

  (** tinygrad: ElementwiseMixin.masked_fill. *)
  val masked_fill : t -> t -> t -> t
end

(** tinygrad: mixin/reduce.py ReduceMixin, with OpMixin's min/mean/var/std. Axes may be negative; no [axis]
   means all axes. *)
module type REDUCE = sig
  type t

  (** Sum, accumulated in [dtype] (default {!Dtype.sum_acc_dtype}). tinygrad [ReduceMixin.sum]. *)
  val sum : ?axis:int list -> ?keepdim:bool -> ?dtype:Dtype.t -> t -> t

  (** Product. tinygrad [ReduceMixin.prod]. *)
  val prod : ?axis:int list -> ?keepdim:bool -> ?dtype:Dtype.t -> t -> t

  (** Maximum. tinygrad [ReduceMixin.max]. *)
  val max : ?axis:int list -> ?keepdim:bool -> t -> t

  (** Whether any element is true. tinygrad [ReduceMixin.any]. *)
  val any : ?axis:int list -> ?keepdim:bool -> t -> t

  (** Whether all elements are true. tinygrad [ReduceMixin.all]. *)
  val all : ?axis:int list -> ?keepdim:bool -> t -> t

  (** Minimum, as the inverse of the max of the inverse. tinygrad [OpMixin.min]. *)
  val min : ?axis:int list -> ?keepdim:bool -> t -> t

  (** Mean (ints give float32). tinygrad [OpMixin.mean]. *)
  val mean : ?axis:int list -> ?keepdim:bool -> t -> t

  (** Variance with Bessel's [correction] (default 1). tinygrad [OpMixin.var]. *)
  val var : ?axis:int list -> ?keepdim:bool -> ?correction:int -> t -> t

  (** Standard deviation. tinygrad [OpMixin.std]. *)
  val std : ?axis:int list -> ?keepdim:bool -> ?correction:int -> t -> t
end

(** tinygrad: mixin/movement.py MovementMixin, the ops whose arguments are not shapes (the Tensor API takes shapes as int arrays, UOps as symbolic lists). *)
module type MOVEMENT = sig
  type t

  (** Reverse the axes. tinygrad [MovementMixin.flip]. *)
  val flip : t -> int list -> t

  (** Stack along a new axis. tinygrad [MovementMixin.stack]. *)
  val stack : ?dim:int -> t list -> t

  (** Remove size-1 axes (or the given one). tinygrad [MovementMixin.squeeze]. *)
  val squeeze : ?dim:int -> t -> t

  (** Insert a size-1 axis. tinygrad [MovementMixin.unsqueeze]. *)
  val unsqueeze : t -> int -> t

  (** Merge the axes [start_dim..end_dim]. tinygrad [MovementMixin.flatten]. *)
  val flatten : ?start_dim:int -> ?end_dim:int -> t -> t

  (** Split along an axis into chunks of a size or explicit sizes. tinygrad [MovementMixin.split]. *)
  val split : ?dim:int -> t -> [ `Size of int | `Sizes of int list ] -> t list

  (** Split into a number of chunks. tinygrad [MovementMixin.chunk]. *)
  val chunk : ?dim:int -> t -> int -> t list

  (** Repeat each element. tinygrad [MovementMixin.repeat_interleave]. *)
  val repeat_interleave : ?dim:int -> t -> int -> t

  (** Circular shift. tinygrad [MovementMixin.roll]. *)
  val roll : ?dims:int list -> t -> int list -> t

  (** A 1-d tensor as the diagonal of a square matrix. tinygrad [MovementMixin.diag]. *)
  val diag : t -> t

  (** [meshgrid ?indexing tensors]: coordinate grids of 0-d / 1-d tensors ([`Ij] matrix or [`Xy] Cartesian indexing). *)
  val meshgrid : ?indexing:[ `Ij | `Xy ] -> t list -> t list

  (** Overlapping windows along an axis. tinygrad [MovementMixin.unfold]. *)
  val unfold : t -> int -> int -> int -> t
end
