(** The signatures of the mixins (tinygrad: mixin/*.py, the mixin classes). A mixin is a functor over a
   [CARRIER]: the carrier's UOp and the way to wrap a UOp result back into the carrier, tinygrad's
   [DTypeMixin._uop] and [_wrap_uop]. Each op is written once over UOps in its mixin file; [Make (C)] gives it
   over the carrier [C.t], naming the op in front of any Invalid_argument. The UOp functions are the instance
   for [Uop.t] itself (for CREATION and RAND they take shape lists and, for RAND, the counter as an
   argument); {!Tensor} includes the instance for its tensors. *)

(** A loss reduction. tinygrad [ReductionStr]. *)
type reduction = [ `Mean | `Sum | `None ]

(** The modes of [interpolate]. tinygrad's [mode] strings "linear", "nearest", "nearest-exact". *)
type interpolate_mode = [ `Linear | `Nearest | `Nearest_exact ]

(** The reductions of [scatter_reduce]. tinygrad's "sum", "prod", "mean", "amax", "amin". *)
type scatter_reduction = [ `Sum | `Prod | `Mean | `Amax | `Amin ]

(** The modes of [pad]. tinygrad's [mode] strings "constant", "reflect", "replicate", "circular". *)
type pad_mode = [ `Constant | `Reflect | `Replicate | `Circular ]

(** An index of [getitem] over a carrier ['a]: an int, a slice [(start, stop, step)], an int tensor of indices, a
    new axis ([None] in Python), [...]. *)
type 'a index = I of int | S of int option * int option * int option | T of 'a | New | Ellipsis

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

(** tinygrad: mixin/creation.py CreationMixin, over a carrier: shapes are concrete ([int array]), fill values floats. *)
module type CREATION = sig
  type t

  (** A buffer filled with the value (float32 unless [dtype]). tinygrad [CreationMixin.full]. *)
  val full : ?dtype:Dtype.t -> ?device:string -> int array -> float -> t

  (** Zeros. tinygrad [CreationMixin.zeros]. *)
  val zeros : ?dtype:Dtype.t -> ?device:string -> int array -> t

  (** Ones. tinygrad [CreationMixin.ones]. *)
  val ones : ?dtype:Dtype.t -> ?device:string -> int array -> t

  (** An uninitialised buffer. tinygrad [CreationMixin.empty]. *)
  val empty : ?dtype:Dtype.t -> ?device:string -> int array -> t

  (** {!full} with [x]'s shape, dtype and device. tinygrad [CreationMixin.full_like]. *)
  val full_like : ?dtype:Dtype.t -> t -> float -> t

  (** Zeros like [x]. tinygrad [CreationMixin.zeros_like]. *)
  val zeros_like : ?dtype:Dtype.t -> t -> t

  (** Ones like [x]. tinygrad [CreationMixin.ones_like]. *)
  val ones_like : ?dtype:Dtype.t -> t -> t

  (** An empty buffer like [x] (its strong dtype and device). tinygrad [UOp.empty_like]. *)
  val empty_like : ?dtype:Dtype.t -> t -> t
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

  (** Clamp to [min] / [max] (at least one). tinygrad [ElementwiseMixin.clip]. *)
  val clip : ?min:float -> ?max:float -> t -> t

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

(** tinygrad: mixin/reduce.py ReduceMixin. Axes may be negative; no [axis] means all axes. *)
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

(** tinygrad: mixin/op.py OpMixin: indexing, linear algebra, softmax and scans, sort, scatter, norms, losses. *)
module type OP = sig
  type t

  (** [scatter x ~dim index src]: [src] written at [index] along [dim] (the last write wins); with [reduce] (scalar
      [src] only) added or multiplied in. tinygrad [OpMixin.scatter]. *)
  val scatter : ?reduce:[ `Add | `Multiply ] -> t -> dim:int -> t -> [ `Tensor of t | `Scalar of float ] -> t

  (** Minimum, as the inverse of the max of the inverse. tinygrad [OpMixin.min]. *)
  val min : ?axis:int list -> ?keepdim:bool -> t -> t

  (** Mean (ints give float32). tinygrad [OpMixin.mean]. *)
  val mean : ?axis:int list -> ?keepdim:bool -> t -> t

  (** Variance with Bessel's [correction] (default 1). tinygrad [OpMixin.var]. *)
  val var : ?axis:int list -> ?keepdim:bool -> ?correction:int -> t -> t

  (** Standard deviation. tinygrad [OpMixin.std]. *)
  val std : ?axis:int list -> ?keepdim:bool -> ?correction:int -> t -> t

  (** Concatenates along [dim] (default 0). tinygrad [OpMixin.cat]. *)
  val cat : ?dim:int -> t list -> t

  (** [arange ?start ?step stop]: [start, start+step, ...] below [stop] (int32 unless [dtype]; int64 when int32
      cannot hold the range), a device-less CONST graph. tinygrad [OpMixin.arange]. *)
  val arange : ?start:int -> ?step:int -> ?dtype:Dtype.t -> int -> t

  (** {!arange} on floats (default float), e.g. [arange_float ~step:0.25 2.]: tinygrad [arange(0, 2, 0.25)]. *)
  val arange_float : ?start:float -> ?step:float -> ?dtype:Dtype.t -> float -> t

  (** [linspace start stop steps], both ends included (default float). tinygrad [OpMixin.linspace]. *)
  val linspace : ?dtype:Dtype.t -> float -> float -> int -> t

  (** [eye ?m n]: an [n x m] (default square) identity (default float). tinygrad [OpMixin.eye]. *)
  val eye : ?m:int -> ?dtype:Dtype.t -> int -> t

  (** [x[1, 2:5:2, idx, None, ...]]: basic and advanced indexing (tensor indices are advanced); out-of-range tensor
      indices give 0. tinygrad [OpMixin._getitem] (setitem is [Tensor.setitem]). *)
  val getitem : t -> t index list -> t

  (** Batch normalisation over [axis] (default [1]) with the given [mean] and [invstd], then [weight] and [bias].
      tinygrad [OpMixin.batchnorm]. *)
  val batchnorm : ?weight:t -> ?bias:t -> ?axis:int list -> t -> mean:t -> invstd:t -> t

  (** Convolution of an (N, C, spatial...) input with (Cout, C/groups, kernel...) weights, any number of spatial
      dims; lists are tinygrad's int-or-tuple arguments (one element is an int; paddings may be one per side);
      [dtype] is the accumulation dtype. tinygrad [OpMixin.conv2d]. *)
  val conv_nd :
    ?bias:t -> ?groups:int -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?dtype:Dtype.t -> t ->
    t -> t

  (** Max pooling over the trailing [kernel_size] axes (kernel default [2; 2], stride default the kernel).
      tinygrad [OpMixin.max_pool2d]. *)
  val max_pool_nd :
    ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?ceil_mode:bool -> t ->
    t

  (** {!max_pool_nd} with the int32 flat spatial argmax. tinygrad [OpMixin.max_pool2d(return_indices=True)]. *)
  val max_pool_nd_with_indices :
    ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?ceil_mode:bool -> t ->
    t * t

  (** Average pooling (padding counted unless [count_include_pad] is false). tinygrad [OpMixin.avg_pool2d]. *)
  val avg_pool_nd :
    ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?ceil_mode:bool ->
    ?count_include_pad:bool -> t -> t

  (** Transposed convolution, weight (cin, cout/groups, *k). tinygrad [OpMixin.conv_transpose2d]. *)
  val conv_transpose2d :
    ?bias:t -> ?groups:int -> ?stride:int list -> ?dilation:int list -> ?padding:int list ->
    ?output_padding:int list -> t -> t -> t

  (** [max_unpool2d x indices]: the partial inverse of {!max_pool_nd_with_indices}. tinygrad
      [OpMixin.max_unpool2d]. *)
  val max_unpool2d :
    ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?output_size:int list ->
    t -> t -> t

  (** The reduction named ["mean"], ["sum"] or ["none"] (tinygrad's [ReductionStr]); others raise. *)
  val reduction_of_string : string -> reduction

  (** tinygrad's scatter_reduce names ("sum", "prod", "mean", "amax", "amin"); others raise. *)
  val scatter_reduction_of_string : string -> scatter_reduction

  (** tinygrad's scatter reduce names ("add", "multiply"); others raise. *)
  val scatter_mode_of_string : string -> [ `Add | `Multiply ]

  (** tinygrad's pad mode names ("constant", "reflect", "replicate", "circular"); others raise. *)
  val pad_mode_of_string : string -> pad_mode

  (** The upper triangle of the last two axes, the rest 0. tinygrad [OpMixin.triu]. *)
  val triu : ?diagonal:int -> t -> t

  (** The lower triangle of the last two axes, the rest 0. tinygrad [OpMixin.tril]. *)
  val tril : ?diagonal:int -> t -> t

  (** [gather x ~dim idx]: [x] picked along [dim] by [idx]. tinygrad [OpMixin.gather]. *)
  val gather : t -> dim:int -> t -> t

  (** [one_hot idx n]: weak-int one-hot of an int tensor. tinygrad [OpMixin.one_hot]. *)
  val one_hot : t -> int -> t

  (** Dot product / matrix product of the last axis of [x] with the second-to-last (or only) axis of [w];
      [dtype] is the accumulation dtype. tinygrad [OpMixin.dot]. *)
  val dot : ?dtype:Dtype.t -> t -> t -> t

  (** [matmul x y] ([y @ x] with [reverse]). tinygrad [OpMixin.matmul]. *)
  val matmul : ?reverse:bool -> ?dtype:Dtype.t -> t -> t -> t

  (** [linear ?bias x weight]: [x @ weight + bias] (elementwise for a 1-d weight). tinygrad [OpMixin.linear]. *)
  val linear : ?bias:t -> ?dtype:Dtype.t -> t -> t -> t

  (** Numerically stable [log(sum(exp x))] over one axis (all axes by default). tinygrad [OpMixin.logsumexp]. *)
  val logsumexp : ?axis:int -> ?keepdim:bool -> t -> t

  (** Softmax over an axis (default -1). tinygrad [OpMixin.softmax]. *)
  val softmax : ?axis:int -> ?dtype:Dtype.t -> t -> t

  (** Log-softmax over an axis (default -1). tinygrad [OpMixin.log_softmax]. *)
  val log_softmax : ?axis:int -> ?dtype:Dtype.t -> t -> t

  (** Index of the (first) maximum, int32 (over the flattened tensor without [axis]). tinygrad [OpMixin.argmax]. *)
  val argmax : ?axis:int -> ?keepdim:bool -> t -> t

  (** Index of the (first) minimum, int32. tinygrad [OpMixin.argmin]. *)
  val argmin : ?axis:int -> ?keepdim:bool -> t -> t

  (** Cumulative sum (default axis 0). tinygrad [OpMixin.cumsum]. *)
  val cumsum : ?axis:int -> t -> t

  (** Cumulative product. tinygrad [OpMixin.cumprod]. *)
  val cumprod : axis:int -> t -> t

  (** Layer normalisation over [axis] (default [-1]), no affine part. tinygrad [OpMixin.layernorm]. *)
  val layernorm : ?axis:int list -> ?eps:float -> t -> t

  (** Binary cross-entropy of probabilities [x] against targets [y]. tinygrad [OpMixin.binary_crossentropy]. *)
  val binary_crossentropy : ?reduction:reduction -> t -> t -> t

  (** Binary cross-entropy of logits. tinygrad [OpMixin.binary_crossentropy_logits]. *)
  val binary_crossentropy_logits : ?reduction:reduction -> ?pos_weight:t -> t -> t -> t

  (** Cross-entropy of logits (class axis -1) against int labels. tinygrad [OpMixin.sparse_categorical_crossentropy]. *)
  val sparse_categorical_crossentropy : ?ignore_index:int -> ?label_smoothing:float -> ?reduction:reduction -> t -> t -> t

  (** Cross-entropy of logits (class axis 1, or 0 for 1-d) against labels or probabilities. tinygrad
      [OpMixin.cross_entropy]. *)
  val cross_entropy : ?reduction:reduction -> ?label_smoothing:float -> t -> t -> t

  (** Negative log-likelihood of log-probabilities against int labels. tinygrad [OpMixin.nll_loss]. *)
  val nll_loss : ?weight:t -> ?ignore_index:int -> ?reduction:reduction -> t -> t -> t

  (** The diagonal of [dim1], [dim2] (defaults 0, 1) moved to the last axis. tinygrad [MovementMixin.diagonal]. *)
  val diagonal : ?offset:int -> ?dim1:int -> ?dim2:int -> t -> t

  (** [einsum formula operands]: Einstein summation (traces, [...] broadcasting, implicit output). tinygrad
      [OpMixin.einsum]. *)
  val einsum : ?dtype:Dtype.t -> string -> t list -> t

  (** [interpolate x size]: resizes the last [List.length size] axes. tinygrad [OpMixin.interpolate]. *)
  val interpolate : ?mode:interpolate_mode -> ?align_corners:bool -> t -> int list -> t

  (** [cummax ?axis x]: the running maximum along [axis] (default 0) and the int32 index of where it was reached. *)
  val cummax : ?axis:int -> t -> t * t

  (** [cummin ?axis x]: the running minimum and its int32 indices. *)
  val cummin : ?axis:int -> t -> t * t

  (** [logcumsumexp ?axis x]: [log(cumsum(exp x))] along [axis] (default 0), numerically stable. *)
  val logcumsumexp : ?axis:int -> t -> t

  (** [sort ?dim ?descending x]: the sorted values along [dim] (default -1) and their indices (a bitonic sort; equal
      elements keep their order). *)
  val sort : ?dim:int -> ?descending:bool -> t -> t * t

  (** The indices of {!sort}. *)
  val argsort : ?dim:int -> ?descending:bool -> t -> t

  (** [topk ?dim ?largest ?sorted_ x k]: the [k] largest (or smallest) values along [dim] and their indices. *)
  val topk : ?dim:int -> ?largest:bool -> ?sorted_:bool -> t -> int -> t * t

  (** [scatter_reduce ?include_self x ~dim index src reduce]: [src] reduced into [x] at [index] along [dim]. *)
  val scatter_reduce : ?include_self:bool -> t -> dim:int -> t -> t -> scatter_reduction -> t

  (** [normalize ?p ?dim ?eps x]: [x] divided by its Lp norm along [dim] (default p=2, dim=1, eps=1e-12). *)
  val normalize : ?p:float -> ?dim:int -> ?eps:float -> t -> t

  (** [softmin ?axis x]: [softmax(-x)]. *)
  val softmin : ?axis:int -> ?dtype:Dtype.t -> t -> t

  (** (var, mean). *)
  val var_mean : ?axis:int list -> ?keepdim:bool -> ?correction:int -> t -> t * t

  (** (std, mean). *)
  val std_mean : ?axis:int list -> ?keepdim:bool -> ?correction:int -> t -> t * t
end

(** tinygrad: RandMixin._next_counter, the per-device RNG state a carrier of random numbers adds (tinygrad's UOp
    raises; Tensor overrides it). *)
module type RAND_CARRIER = sig
  include CARRIER

  (** [next_counter device num]: the device's 2-word uint32 key and its 2-word counter as it was before a draw of
      [num] uint32 words; the counter is advanced by [num]. tinygrad [Tensor._next_counter]. *)
  val next_counter : string -> int -> t * t
end

(** tinygrad: mixin/rand.py RandMixin. Counter-based threefry draws; shapes are concrete ([int array]). *)
module type RAND = sig
  type t

  (** Uniform \[0, 1) (default float; a concrete float dtype). [devices], tinygrad's tuple [device], raises
      [Invalid_argument]: one draw has one device's counter (shard or {!rand_like} a value on several
      devices). tinygrad [RandMixin.rand]. *)
  val rand : ?dtype:Dtype.t -> ?device:string -> ?devices:string list -> ?contiguous:bool -> int array -> t

  (** {!rand} with the shape, device and (unless [dtype]) dtype of [x]; on several devices, one draw per
      device keeping [x]'s axis. [device] / [devices] pass to {!rand}, and raise [Invalid_argument] when [x]
      is on several devices. tinygrad [RandMixin.rand_like]. *)
  val rand_like : ?dtype:Dtype.t -> ?device:string -> ?devices:string list -> ?contiguous:bool -> t -> t

  (** Standard normal (Box-Muller over float32 draws). tinygrad [RandMixin.randn]. *)
  val randn : ?dtype:Dtype.t -> ?device:string -> int array -> t

  (** {!randn} like [x] (a weak dtype needs an explicit [dtype]). tinygrad [RandMixin.randn_like]. *)
  val randn_like : ?dtype:Dtype.t -> t -> t

  (** Uniform integers in \[low, high) (defaults 0 and 10, int32). tinygrad [RandMixin.randint]. *)
  val randint : ?dtype:Dtype.t -> ?device:string -> ?low:int -> ?high:int -> int array -> t

  (** Uniform in \[low, high) (default \[0, 1)). tinygrad [RandMixin.uniform]. *)
  val uniform : ?dtype:Dtype.t -> ?device:string -> ?low:float -> ?high:float -> int array -> t

  (** Normal with [mean] (0) and [std] (1). tinygrad [RandMixin.normal]. *)
  val normal : ?dtype:Dtype.t -> ?device:string -> ?mean:float -> ?std:float -> int array -> t

  (** Uniform in \[-n^-0.5, n^-0.5), n the element count. tinygrad [RandMixin.scaled_uniform]. *)
  val scaled_uniform : ?dtype:Dtype.t -> ?device:string -> int array -> t

  (** Glorot (Xavier) uniform. tinygrad [RandMixin.glorot_uniform]. *)
  val glorot_uniform : ?dtype:Dtype.t -> ?device:string -> int array -> t

  (** Kaiming uniform ([a] 0.01). tinygrad [RandMixin.kaiming_uniform]. *)
  val kaiming_uniform : ?dtype:Dtype.t -> ?device:string -> ?a:float -> int array -> t

  (** Kaiming normal ([a] 0.01). tinygrad [RandMixin.kaiming_normal]. *)
  val kaiming_normal : ?dtype:Dtype.t -> ?device:string -> ?a:float -> int array -> t

  (** [randperm n]: a random permutation of [0 .. n-1] (int32 unless [dtype]). tinygrad [RandMixin.randperm]. *)
  val randperm : ?dtype:Dtype.t -> ?device:string -> int -> t

  (** Indices drawn from a 1-d / 2-d weight tensor (with replacement, or without by Efraimidis-Spirakis).
      tinygrad [RandMixin.multinomial]. *)
  val multinomial : ?num_samples:int -> ?replacement:bool -> t -> t

  (** Zeroes each element with probability [p] (0.5) and scales by [1/(1-p)] when the TRAINING context variable
      ([Helpers.training]) is set, else [x] itself. tinygrad [RandMixin.dropout]. *)
  val dropout : ?p:float -> t -> t

  (** [scaled_dot_product_attention q k v]: [softmax(q k^T / sqrt d + attn_mask) v] (a bool mask selects;
      [is_causal] masks the upper triangle; [dropout_p] applies when training; [enable_gqa] repeats the key/value
      heads). tinygrad [RandMixin.scaled_dot_product_attention]. *)
  val scaled_dot_product_attention :
    ?attn_mask:t -> ?dropout_p:float -> ?is_causal:bool -> ?enable_gqa:bool -> t -> t -> t -> t
end
