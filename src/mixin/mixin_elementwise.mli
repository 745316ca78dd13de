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

(** tinygrad: ElementwiseMixin.detach. *)
val detach : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.logical_not. *)
val logical_not : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.contiguous. *)
val contiguous : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.contiguous_backward. *)
val contiguous_backward : Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.neg]. *)
val neg : Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.add]. *)
val add : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.sub]. *)
val sub : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.mul]. *)
val mul : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.bitwise_not]. *)
val bitwise_not : Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.bitwise_and]. *)
val bitwise_and : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.bitwise_or]. *)
val bitwise_or : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.bitwise_xor]. *)
val bitwise_xor : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.reciprocal]. *)
val reciprocal : Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.trunc]. *)
val trunc : Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.sqrt]. *)
val sqrt : Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.sin]. *)
val sin : Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.log2]. *)
val log2 : Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.exp2]. *)
val exp2 : Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.lt]. *)
val lt : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.gt]. *)
val gt : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.ge]. *)
val ge : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.le]. *)
val le : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.ne]. *)
val ne : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.eq]. *)
val eq : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.lshift]. *)
val lshift : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.rshift]. *)
val rshift : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.maximum]. *)
val maximum : Uop.t -> Uop.t -> Uop.t

(** tinygrad [ElementwiseMixin.minimum]. *)
val minimum : Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.where. *)
val where : Uop.t -> Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.floor. *)
val floor : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.ceil. *)
val ceil : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.div; [rounding_mode] is `Trunc or `Floor. *)
val div : ?rounding_mode:[ `Trunc | `Floor ] -> Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.__floordiv__. *)
val idiv : Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.mod. *)
val mod_ : Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.fmod. *)
val fmod : Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin._inverse. *)
val inverse : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.cos. *)
val cos : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.exp. *)
val exp : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.pow; [Invalid_argument] when the result is not a float and an operand is a Python
    constant (weak CONST) other than a non-negative int. *)
val pow : Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.square. *)
val square : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.clamp. *)
val clamp : ?min_:Uop.t -> ?max_:Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.clip. *)
val clip : ?min_:Uop.t -> ?max_:Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.isnan. *)
val isnan : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.isinf. *)
val isinf : ?detect_positive:bool -> ?detect_negative:bool -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.isfinite. *)
val isfinite : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.isclose: [|x - other| <= atol + rtol * |other|] for finite values, equal infinities,
    and NaN pairs when [equal_nan] (defaults rtol 1e-5, atol 1e-8). *)
val isclose : ?rtol:float -> ?atol:float -> ?equal_nan:bool -> Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.relu. *)
val relu : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.sigmoid. *)
val sigmoid : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.relu6. *)
val relu6 : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.hardswish. *)
val hardswish : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.hardsigmoid. *)
val hardsigmoid : ?alpha:float -> ?beta:float -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.hardtanh. *)
val hardtanh : ?min_val:float -> ?max_val:float -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.leaky_relu. *)
val leaky_relu : ?neg_slope:float -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.tanh. *)
val tanh : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.quick_gelu. *)
val quick_gelu : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.rsqrt. *)
val rsqrt : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.log. *)
val log : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.log10. *)
val log10 : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.sign. *)
val sign : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.abs. *)
val abs : Uop.t -> Uop.t

(** [c0*x^(n-1) + ... + cn] by Horner. tinygrad [helpers.polyN]. *)
val poly_n : Uop.t -> float list -> Uop.t

(** tinygrad: ElementwiseMixin.erf. *)
val erf : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.gelu; [approximate] is [`Tanh] (tinygrad's "tanh", the default) or [`None] (erf). *)
val gelu : ?approximate:[ `Tanh | `None ] -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.swish. *)
val swish : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.silu. *)
val silu : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.logaddexp. *)
val logaddexp : Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.copysign. *)
val copysign : Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.round (half to even). *)
val round : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.tan. *)
val tan : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.asin. *)
val asin : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.acos. *)
val acos : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.atan. *)
val atan : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.atanh. *)
val atanh : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.asinh. *)
val asinh : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.acosh. *)
val acosh : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.elu. *)
val elu : ?alpha:float -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.celu. *)
val celu : ?alpha:float -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.selu. *)
val selu : ?alpha:float -> ?gamma:float -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.softplus. *)
val softplus : ?beta:float -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.mish. *)
val mish : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.logsigmoid. *)
val logsigmoid : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.sinh. *)
val sinh : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.cosh. *)
val cosh : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.softsign. *)
val softsign : Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.lerp (the uint8 fixed-point path is not ported). *)
val lerp : Uop.t -> Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.masked_fill. *)
val masked_fill : Uop.t -> Uop.t -> Uop.t -> Uop.t

(** tinygrad: ElementwiseMixin.threefry. *)
val threefry : Uop.t -> Uop.t -> Uop.t
