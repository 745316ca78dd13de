(** The Tensor: a mutable holder of a UOp graph, lazy until realized. tinygrad: [tensor.py] (the [Tensor] class;
    callify is {!Callify}, the engine {!Realize}) with the mixins of [src/mixin] wrapped. Every binary op
    broadcasts like numpy and promotes dtypes with tinygrad's weak-dtype rules ([scalar 3.] adopts the other
    operand's dtype). Bad input raises [Invalid_argument] naming the op and the shapes. *)

(** A tensor: its UOp (replaced when realized), its gradient, whether it is a parameter. *)
type t = { mutable uop : Uop.t; mutable grad : t option; mutable is_param : bool }

(** An index of {!getitem}: an int, a slice [(start, stop, step)], a tensor of indices, a new axis, [...]. *)
type index = I of int | S of int option * int option * int option | T of t | New | Ellipsis

(** {1 Live tensors} *)

(** The live (not yet collected) tensors, in creation order. tinygrad [all_tensors]. *)
val all_tensors : unit -> t list

(** A registered tensor around a UOp; its shape is computed so a broadcast mismatch raises now, naming [op].
    tinygrad [Tensor._apply_uop]. *)
val wrap : ?op:string -> Uop.t -> t

(** Substitutes the map into every live tensor that reaches one of its keys. tinygrad [_apply_map_to_tensors]. *)
val apply_map_to_tensors : (Uop.t * Uop.t) list -> unit

(** The tensor's UOp. tinygrad [Tensor.uop]. *)
val uop : t -> Uop.t

(** A tensor around a UOp. tinygrad [Tensor(uop)]. *)
val of_uop : Uop.t -> t

(** {1 Creation} *)

(** [of_float_array shape data]: a tensor of the data (C order), default float32 on the default device. *)
val of_float_array : ?dtype:Dtype.t -> ?device:string -> int array -> float array -> t

(** [of_int_array shape data]: default int32. *)
val of_int_array : ?dtype:Dtype.t -> ?device:string -> int array -> int array -> t

(** A device-less constant, weak unless [dtype]: it adopts the other operand's dtype. tinygrad [Tensor(3.0)]. *)
val scalar : ?dtype:Dtype.t -> float -> t

(** An int constant (weak int unless [dtype]). tinygrad [Tensor(3)]. *)
val scalar_int : ?dtype:Dtype.t -> int -> t

(** A buffer filled with the value (float32 unless [dtype]). tinygrad [Tensor.full]. *)
val full : ?dtype:Dtype.t -> ?device:string -> int array -> float -> t

(** Zeros. tinygrad [Tensor.zeros]. *)
val zeros : ?dtype:Dtype.t -> ?device:string -> int array -> t

(** Ones. tinygrad [Tensor.ones]. *)
val ones : ?dtype:Dtype.t -> ?device:string -> int array -> t

(** An uninitialised buffer. tinygrad [Tensor.empty]. *)
val empty : ?dtype:Dtype.t -> ?device:string -> int array -> t

(** {!full} with the tensor's shape, dtype and device. tinygrad [full_like]. *)
val full_like : ?dtype:Dtype.t -> t -> float -> t

(** Zeros like the tensor. tinygrad [zeros_like]. *)
val zeros_like : ?dtype:Dtype.t -> t -> t

(** Ones like the tensor. tinygrad [ones_like]. *)
val ones_like : ?dtype:Dtype.t -> t -> t

(** An empty buffer like the tensor. tinygrad [empty_like]. *)
val empty_like : ?dtype:Dtype.t -> t -> t

(** {1 Inspection and data out} *)

(** The shape (symbolic shapes raise). *)
val shape : t -> int array

(** The dtype. *)
val dtype : t -> Dtype.t

(** The device (the default device for a device-less constant). *)
val device : t -> string

(** The element count. *)
val numel : t -> int

(** The number of dimensions. *)
val ndim : t -> int

(** Bytes per element. tinygrad [element_size]. *)
val element_size : t -> int

(** Whether the dtype is a float. tinygrad [is_floating_point]. *)
val is_floating_point : t -> bool

(** The values as floats, C order (realizes). tinygrad [Tensor.numpy]. *)
val to_float_array : t -> float array

(** The values of an int or bool tensor (realizes); floats raise. *)
val to_int_array : t -> int array

(** The single value. tinygrad [Tensor.item]. *)
val item : t -> float

(** The LINEAR schedule and Variable values that realize the tensors (their UOps are replaced by their
    buffers). tinygrad [Tensor.linear_with_vars]. *)
val linear_with_vars : t list -> Uop.t * (string * int) list

(** Computes the tensor; returns it. tinygrad [Tensor.realize]. *)
val realize : t -> t

(** Computes all the tensors in one schedule. tinygrad [Tensor.realize] with several tensors. *)
val realize_all : t list -> unit

(** Shape, dtype, device and the values. *)
val to_string : t -> string

(** A copy in a fresh buffer (optionally on another device). tinygrad [Tensor.clone]. *)
val clone : ?device:string -> t -> t

(** [assign x v]: writes [v] (broadcast, same dtype) into [x] in place. tinygrad [Tensor.assign]. *)
val assign : t -> t -> t

(** {1 dtype} *)

(** Cast. tinygrad [cast]. *)
val cast : t -> Dtype.t -> t

(** Reinterpret the bits (concrete dtypes). tinygrad [bitcast]. *)
val bitcast : t -> Dtype.t -> t

(** Cast to float32. *)
val float : t -> t

(** Cast to float16. *)
val half : t -> t

(** Cast to int32. *)
val int : t -> t

(** Cast to bool. *)
val bool : t -> t

(** {1 Elementwise} *)

(** [x + y]. *)
val add : t -> t -> t

(** [x - y]. *)
val sub : t -> t -> t

(** [x * y]. *)
val mul : t -> t -> t

(** True division (ints give float); with [rounding_mode] the quotient is truncated ([`Trunc]) or floored
    ([`Floor]), staying int for int operands. *)
val div : ?rounding_mode:[ `Trunc | `Floor ] -> t -> t -> t

(** Floor division. *)
val idiv : t -> t -> t

(** Floor modulo. *)
val ( mod ) : t -> t -> t

(** C remainder (sign of the dividend). tinygrad [fmod]. *)
val fmod : t -> t -> t

(** Power. *)
val pow : t -> t -> t

(** Elementwise maximum. *)
val maximum : t -> t -> t

(** Elementwise minimum. *)
val minimum : t -> t -> t

(** [x < y]. *)
val lt : t -> t -> t

(** [x > y]. *)
val gt : t -> t -> t

(** [x <= y]. *)
val le : t -> t -> t

(** [x >= y]. *)
val ge : t -> t -> t

(** [x == y]. *)
val eq : t -> t -> t

(** [x != y]. *)
val ne : t -> t -> t

(** Bitwise / logical and. *)
val bitwise_and : t -> t -> t

(** Bitwise / logical or. *)
val bitwise_or : t -> t -> t

(** Bitwise / logical xor. *)
val bitwise_xor : t -> t -> t

(** Left shift. *)
val lshift : t -> t -> t

(** Right shift. *)
val rshift : t -> t -> t

(** [log(exp x + exp y)]. *)
val logaddexp : t -> t -> t

(** Magnitude of [x], sign of [y]. *)
val copysign : t -> t -> t

(** Negation. *)
val neg : t -> t

(** [1 / x]. *)
val reciprocal : t -> t

(** Square root. *)
val sqrt : t -> t

(** [1 / sqrt x]. *)
val rsqrt : t -> t

(** Exponential. *)
val exp : t -> t

(** [2 ** x]. *)
val exp2 : t -> t

(** Natural log. *)
val log : t -> t

(** Base-2 log. *)
val log2 : t -> t

(** Base-10 log. *)
val log10 : t -> t

(** Sine. *)
val sin : t -> t

(** Cosine. *)
val cos : t -> t

(** Tangent. *)
val tan : t -> t

(** Arcsine. *)
val asin : t -> t

(** Arccosine. *)
val acos : t -> t

(** Arctangent. *)
val atan : t -> t

(** Hyperbolic sine. *)
val sinh : t -> t

(** Hyperbolic cosine. *)
val cosh : t -> t

(** Inverse hyperbolic tangent. *)
val atanh : t -> t

(** Inverse hyperbolic sine. *)
val asinh : t -> t

(** Inverse hyperbolic cosine. *)
val acosh : t -> t

(** Error function (polynomial approximation). *)
val erf : t -> t

(** Absolute value. *)
val abs : t -> t

(** Sign (-1, 0, 1). *)
val sign : t -> t

(** [x * x]. *)
val square : t -> t

(** Round toward zero. *)
val trunc : t -> t

(** Round down. *)
val floor : t -> t

(** Round up. *)
val ceil : t -> t

(** Round half to even. *)
val round : t -> t

(** [max(x, 0)]. *)
val relu : t -> t

(** [min(max(x, 0), 6)]. *)
val relu6 : t -> t

(** Logistic sigmoid. *)
val sigmoid : t -> t

(** [log(sigmoid x)]. *)
val logsigmoid : t -> t

(** Hard swish. *)
val hardswish : t -> t

(** Hard sigmoid. *)
val hardsigmoid : t -> t

(** Hyperbolic tangent. *)
val tanh : t -> t

(** GELU; [approximate] is "tanh" (default) or "none" (the erf form). *)
val gelu : ?approximate:string -> t -> t

(** [x * sigmoid(1.702 x)]. *)
val quick_gelu : t -> t

(** [x * sigmoid x]. *)
val silu : t -> t

(** Same as {!silu}. *)
val swish : t -> t

(** [x * tanh(softplus x)]. *)
val mish : t -> t

(** [x / (1 + |x|)]. *)
val softsign : t -> t

(** Leaky ReLU (default slope 0.01). *)
val leaky_relu : ?neg_slope:float -> t -> t

(** ELU (default alpha 1). *)
val elu : ?alpha:float -> t -> t

(** CELU. *)
val celu : ?alpha:float -> t -> t

(** SELU. *)
val selu : ?alpha:float -> ?gamma:float -> t -> t

(** [log(1 + exp(beta x)) / beta]. *)
val softplus : ?beta:float -> t -> t

(** Clip to [[min_val, max_val]] (default [-1, 1]). *)
val hardtanh : ?min_val:float -> ?max_val:float -> t -> t

(** Boolean not. *)
val logical_not : t -> t

(** Bitwise not. *)
val bitwise_not : t -> t

(** [x != x]. *)
val isnan : t -> t

(** Whether infinite. *)
val isinf : t -> t

(** Whether finite. *)
val isfinite : t -> t

(** Clamp to [min] / [max] (at least one). tinygrad [clip]. *)
val clip : ?min:float -> ?max:float -> t -> t

(** [where cond x y]. *)
val where : t -> t -> t -> t

(** [masked_fill x mask value]: [value] where [mask]. *)
val masked_fill : t -> t -> t -> t

(** [lerp x end_ weight]: [x + (end_ - x) * weight]. *)
val lerp : t -> t -> t -> t

(** Marks the tensor to be materialised in its own buffer. tinygrad [contiguous]. *)
val contiguous : t -> t

(** CONTIGUOUS_BACKWARD. *)
val contiguous_backward : t -> t

(** Cut from the autograd graph. *)
val detach : t -> t

(** {1 Reductions} *)

(** Sum. *)
val sum : ?axis:int list -> ?keepdim:bool -> t -> t

(** Product. *)
val prod : ?axis:int list -> ?keepdim:bool -> t -> t

(** Maximum. *)
val max : ?axis:int list -> ?keepdim:bool -> t -> t

(** Minimum. *)
val min : ?axis:int list -> ?keepdim:bool -> t -> t

(** Mean. *)
val mean : ?axis:int list -> ?keepdim:bool -> t -> t

(** Variance (default correction 1). *)
val var : ?axis:int list -> ?keepdim:bool -> ?correction:int -> t -> t

(** Standard deviation. *)
val std : ?axis:int list -> ?keepdim:bool -> ?correction:int -> t -> t

(** Whether any element is true. *)
val any : ?axis:int list -> ?keepdim:bool -> t -> t

(** Whether all elements are true. *)
val all : ?axis:int list -> ?keepdim:bool -> t -> t

(** {1 Movement} *)

(** Reshape (one -1 allowed). *)
val reshape : t -> int array -> t

(** Same as {!reshape}. *)
val view : t -> int array -> t

(** Permute the axes. *)
val permute : t -> int array -> t

(** Expand size-1 axes (and add leading ones); -1 keeps a size. *)
val expand : t -> int array -> t

(** Pad with one (before, after) pair per axis, filled with [value] (default 0) in the default [`Constant] mode, or
    [`Reflect], [`Replicate], [`Circular]; negative pads crop. tinygrad [Tensor.pad] (grouped padding). *)
val pad : ?mode:Mixin_op_ext.pad_mode -> ?value:float -> t -> (int * int) array -> t

(** Keep [(start, end)] of each axis. *)
val shrink : t -> (int * int) array -> t

(** Reverse the axes. *)
val flip : t -> int list -> t

(** Swap two axes (default -2 and -1). *)
val transpose : ?dim0:int -> ?dim1:int -> t -> t

(** Merge axes [start_dim..end_dim]. *)
val flatten : ?start_dim:int -> ?end_dim:int -> t -> t

(** Split one axis into sizes. *)
val unflatten : t -> int -> int array -> t

(** Remove size-1 axes (all, or [axis]). *)
val squeeze : ?axis:int -> t -> t

(** Insert a size-1 axis. *)
val unsqueeze : t -> int -> t

(** Tile. *)
val repeat : t -> int array -> t

(** Repeat each element. *)
val repeat_interleave : ?dim:int -> t -> int -> t

(** Circular shift ([dims] default: flattened). *)
val roll : ?dims:int list -> t -> int list -> t

(** Split along an axis into chunks of a size or explicit sizes. *)
val split : ?dim:int -> t -> [ `Size of int | `Sizes of int list ] -> t list

(** Split into a number of chunks. *)
val chunk : ?dim:int -> t -> int -> t list

(** Concatenate along an axis. *)
val cat : ?axis:int -> t list -> t

(** Stack along a new axis. *)
val stack : ?axis:int -> t list -> t

(** A 1-d tensor as the diagonal of a square matrix. *)
val diag : t -> t


(** A copy on another device (the tensor itself when already there or device-less). tinygrad [Tensor.to]. *)
val to_device : t -> string -> t

(** {1 Creation helpers, indexing, linear algebra and nn functions}
    tinygrad [mixin/op.py] (see {!Mixin_op}). *)

(** [arange ?start ?step stop]: [start, start+step, ...] below [stop] (int32 unless [dtype]). [device] is accepted for
    the API; the result is a device-less CONST graph, as tinygrad's. *)
val arange : ?start:int -> ?step:int -> ?dtype:Dtype.t -> ?device:string -> int -> t

(** {!arange} on floats (default float32), e.g. [arange_float ~step:0.25 2.]: tinygrad [Tensor.arange(0, 2, 0.25)]. *)
val arange_float : ?start:float -> ?step:float -> ?dtype:Dtype.t -> float -> t

(** [linspace start stop steps], both ends included. *)
val linspace : ?dtype:Dtype.t -> float -> float -> int -> t

(** [eye ?m n]: an [n x m] (default square) identity, float32 by default. *)
val eye : ?m:int -> ?dtype:Dtype.t -> int -> t

(** The upper triangle of the last two axes ([diagonal] default 0), the rest 0. *)
val triu : ?diagonal:int -> t -> t

(** The lower triangle of the last two axes ([diagonal] default 0), the rest 0. *)
val tril : ?diagonal:int -> t -> t

(** [x[1, 2:5:2, idx_tensor, None, ...]]; out-of-range tensor indices give 0. *)
val getitem : t -> index list -> t

(** [gather x ~axis idx]: [x] picked along [axis] by the int tensor [idx] (same ndim). *)
val gather : t -> axis:int -> t -> t

(** [one_hot idx n]: one-hot of an int tensor (a weak int result, as tinygrad's). *)
val one_hot : t -> int -> t

(** Dot / matrix product (1-d and batched operands as numpy). *)
val dot : t -> t -> t

(** Matrix product ({!dot}). *)
val matmul : t -> t -> t

(** [linear ?bias x weight]: [x @ weight + bias], weight is (in, out). *)
val linear : ?bias:t -> t -> t -> t

(** [log(sum(exp x))] over one axis (all by default), numerically stable. *)
val logsumexp : ?axis:int -> ?keepdim:bool -> t -> t

(** Softmax over an axis (default -1). *)
val softmax : ?axis:int -> t -> t

(** Log-softmax over an axis (default -1). *)
val log_softmax : ?axis:int -> t -> t

(** Index of the first maximum (int32), over the flattened tensor without [axis]. *)
val argmax : ?axis:int -> ?keepdim:bool -> t -> t

(** Index of the first minimum (int32). *)
val argmin : ?axis:int -> ?keepdim:bool -> t -> t

(** Cumulative sum along [axis] (default 0). *)
val cumsum : ?axis:int -> t -> t

(** Cumulative product along [axis]. *)
val cumprod : axis:int -> t -> t

(** Layer normalisation over [axis] (default [-1]) with [eps] (default 1e-5), no affine part. *)
val layernorm : ?axis:int list -> ?eps:float -> t -> t

(** Batch normalisation over axis 1 with the given [mean] and [invstd]. *)
val batchnorm : t -> weight:t option -> bias:t option -> mean:t -> invstd:t -> t

(** Convolution of an (N, C, spatial...) input with (Cout, C/groups, kernel...) weights, any number of spatial dims. *)
val conv2d : ?bias:t -> ?stride:int -> ?padding:int -> ?dilation:int -> ?groups:int -> t -> t -> t

(** Max pooling over the last two axes (kernel default 2, stride default the kernel). *)
val max_pool2d : ?kernel_size:int -> ?stride:int -> ?padding:int -> t -> t

(** Average pooling over the last two axes, padding counted (kernel default 2, stride default the kernel). *)
val avg_pool2d : ?kernel_size:int -> ?stride:int -> ?padding:int -> t -> t

(** Cross-entropy of logits (class axis 1) against int labels or class probabilities (mean by default). *)
val cross_entropy : ?reduction:Mixin_op.reduction -> ?label_smoothing:float -> t -> t -> t

(** Cross-entropy of logits (class axis -1) against int labels (mean over the non-ignored by default). *)
val sparse_categorical_crossentropy :
  ?ignore_index:int -> ?label_smoothing:float -> ?reduction:Mixin_op.reduction -> t -> t -> t

(** Binary cross-entropy of probabilities against targets (mean by default). *)
val binary_crossentropy : ?reduction:Mixin_op.reduction -> t -> t -> t

(** Binary cross-entropy of logits against targets (mean by default), positives weighted by [pos_weight]. *)
val binary_crossentropy_logits : ?reduction:Mixin_op.reduction -> ?pos_weight:t -> t -> t -> t


(** {1 Autograd}
    tinygrad [tensor.py] backward and [mixin/op.py] gradient. *)

(** [gradient y targets]: d(y)/d(target) for each target ([y] a float scalar; zeros for unreached targets).
    tinygrad [Tensor.gradient]. *)
val gradient : t -> t list -> t list

(** {!gradient} with an explicit output gradient [gradient] (then [y] need not be a scalar).
    tinygrad [Tensor.gradient] with its [gradient] keyword. *)
val gradient_with : ?gradient:t -> t -> t list -> t list

(** The gradient stored by {!backward}, if any. tinygrad [Tensor.grad]. *)
val grad : t -> t option

(** [backward ?gradient y]: fills (or accumulates into) [grad] of every live float tensor with a device that
    [y]'s graph reaches ([y] a scalar unless [gradient] is given). DETACH stops the flow. tinygrad
    [Tensor.backward]. *)
val backward : ?gradient:t -> t -> unit


(** {1 Convolutions, pooling, einsum, interpolation and losses}
    More of tinygrad [mixin/op.py] (see {!Mixin_op}). Lists are tinygrad's int-or-tuple arguments: a
    one-element list is tinygrad's int; paddings may also be one per side ([left; right; top; bottom ...]). *)

(** tinygrad's [ReductionStr]: [`Mean], [`Sum], [`None]. *)
type reduction = Mixin_op.reduction

(** The reduction named ["mean"], ["sum"] or ["none"]; others raise [Invalid_argument]. *)
val reduction_of_string : string -> reduction

(** {!conv2d} with tinygrad's tuple arguments (any number of spatial dims). tinygrad [Tensor.conv2d]. *)
val conv_nd :
  ?bias:t -> ?groups:int -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> t -> t -> t

(** {!max_pool2d} with tinygrad's tuple arguments and [ceil_mode]. tinygrad [Tensor.max_pool2d]. *)
val max_pool_nd :
  ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?ceil_mode:bool -> t -> t

(** Max pooling with the int32 flat spatial argmax. tinygrad [Tensor.max_pool2d(return_indices=True)]. *)
val max_pool_nd_with_indices :
  ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?ceil_mode:bool -> t ->
  t * t

(** {!avg_pool2d} with tinygrad's tuple arguments, [ceil_mode], [count_include_pad]. tinygrad [Tensor.avg_pool2d]. *)
val avg_pool_nd :
  ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?ceil_mode:bool ->
  ?count_include_pad:bool -> t -> t

(** Transposed convolution, weight (cin, cout/groups, *k). tinygrad [Tensor.conv_transpose2d]. *)
val conv_transpose2d :
  ?bias:t -> ?groups:int -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?output_padding:int list ->
  t -> t -> t

(** [max_unpool2d x indices]: partial inverse of {!max_pool_nd_with_indices}. tinygrad [Tensor.max_unpool2d]. *)
val max_unpool2d :
  ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?output_size:int list ->
  t -> t -> t

(** [einsum formula operands]. tinygrad [Tensor.einsum]. *)
val einsum : ?dtype:Dtype.t -> string -> t list -> t

(** [interpolate x size]: resize the last axes (default mode [`Linear]). tinygrad [Tensor.interpolate]. *)
val interpolate : ?mode:Mixin_op.interpolate_mode -> ?align_corners:bool -> t -> int list -> t

(** The diagonal of two axes, as the last axis. tinygrad [Tensor.diagonal]. *)
val diagonal : ?offset:int -> ?dim1:int -> ?dim2:int -> t -> t

(** Negative log-likelihood of log-probabilities (class axis 1) against int labels. tinygrad [Tensor.nll_loss]. *)
val nll_loss : ?weight:t -> ?ignore_index:int -> ?reduction:reduction -> t -> t -> t


(** {1 More elementwise functions}
    tinygrad [mixin/elementwise.py] (see {!Mixin_elementwise}). *)

(** [isclose x other]: [|x - other| <= atol + rtol * |other|] elementwise (bool), infinities close when equal, NaNs
    close only with [equal_nan] (defaults rtol 1e-5, atol 1e-8). tinygrad [Tensor.isclose]. *)
val isclose : ?rtol:float -> ?atol:float -> ?equal_nan:bool -> t -> t -> t

(** [named op f]: [f ()], with ["op: "] put in front of the message of an [Invalid_argument] it raises that does not
    already start with it (errors from the mixins name the public op). *)
val named : string -> (unit -> 'a) -> 'a


(** {1 Scans, sort, scatter, more movement}
    See {!Mixin_op_ext} and {!Mixin_movement}. *)

(** [cummax ?axis x]: running maximum along [axis] (default 0) and its int32 indices. tinygrad [Tensor.cummax]. *)
val cummax : ?axis:int -> t -> t * t

(** [cummin ?axis x]: running minimum and its int32 indices. tinygrad [Tensor.cummin]. *)
val cummin : ?axis:int -> t -> t * t

(** [log(cumsum(exp x))] along [axis] (default 0). tinygrad [Tensor.logcumsumexp]. *)
val logcumsumexp : ?axis:int -> t -> t

(** Sorted values along [dim] (default -1) and their int32 indices (stable). tinygrad [Tensor.sort]. *)
val sort : ?dim:int -> ?descending:bool -> t -> t * t

(** The indices that sort along [dim]. tinygrad [Tensor.argsort]. *)
val argsort : ?dim:int -> ?descending:bool -> t -> t

(** [topk x k]: the [k] largest (smallest unless [largest]) values along [dim] and their indices. tinygrad [Tensor.topk]. *)
val topk : ?dim:int -> ?largest:bool -> ?sorted_:bool -> t -> int -> t * t

(** The reductions of {!scatter_reduce}. *)
type scatter_reduction = Mixin_op_ext.scatter_reduction

(** tinygrad's reduce names ("sum", "prod", "mean", "amax", "amin"); others raise [Invalid_argument]. *)
val scatter_reduction_of_string : string -> scatter_reduction

(** [scatter_reduce x ~dim index src reduce]: [src] reduced into [x] at [index] along [dim] ([include_self] default
    true). tinygrad [Tensor.scatter_reduce]. *)
val scatter_reduce : ?include_self:bool -> t -> dim:int -> t -> t -> scatter_reduction -> t

(** tinygrad's scatter reduce names ("add", "multiply"); others raise [Invalid_argument]. *)
val scatter_mode_of_string : string -> [ `Add | `Multiply ]

(** [scatter x ~dim index src]: [src] written at [index] along [dim] (the last write wins); with [reduce] (scalar
    [src] only) added or multiplied in. tinygrad [Tensor.scatter]. *)
val scatter : ?reduce:[ `Add | `Multiply ] -> t -> dim:int -> t -> [ `Tensor of t | `Scalar of float ] -> t

(** Lp normalisation along [dim] (default p=2, dim=1, eps=1e-12). tinygrad [Tensor.normalize]. *)
val normalize : ?p:float -> ?dim:int -> ?eps:float -> t -> t

(** [softmax(-x)] over [axis] (default -1). tinygrad [Tensor.softmin]. *)
val softmin : ?axis:int -> t -> t

(** (var, mean). tinygrad [Tensor.var_mean]. *)
val var_mean : ?axis:int list -> ?keepdim:bool -> ?correction:int -> t -> t * t

(** (std, mean). tinygrad [Tensor.std_mean]. *)
val std_mean : ?axis:int list -> ?keepdim:bool -> ?correction:int -> t -> t * t

(** [unfold x dim size step]: sliding windows of [size] with [step] along [dim], as a new last axis. tinygrad
    [Tensor.unfold]. *)
val unfold : t -> int -> int -> int -> t

(** Coordinate grids of 0-d / 1-d tensors (default [`Ij]). tinygrad [Tensor.meshgrid]. *)
val meshgrid : ?indexing:[ `Ij | `Xy ] -> t list -> t list

(** tinygrad's pad mode names ("constant", "reflect", "replicate", "circular"); others raise [Invalid_argument]. *)
val pad_mode_of_string : string -> Mixin_op_ext.pad_mode

(** The elements where the (broadcast) bool mask is true, flattened; with [size] padded with [fill_value] (default
    0) or truncated, else realizes the count first. tinygrad [Tensor.masked_select]. *)
val masked_select : ?size:int -> ?fill_value:float -> t -> t -> t

(** The (n, ndim) int32 indices of the non-zero elements; with [size] padded with [fill_value] or truncated.
    tinygrad [Tensor.nonzero]. *)
val nonzero : ?size:int -> ?fill_value:int -> t -> t


(** {1 Random numbers}
    tinygrad [tensor.py] RNG state and [mixin/rand.py] (see {!Mixin_rand}).
    Counter-based threefry: the same seed gives tinygrad's values bit for bit. Each device gets a 2-word uint32 key
    and a 2-word counter, created on first use as small tensors copied from the PYTHON device (two COPYs). *)

(** [Tensor(list, device, dtype)] for small library tensors: a PYTHON-device buffer copied lazily to [device]. *)
val from_py_ints : device:string -> Dtype.t -> int array -> t

(** [Tensor(list, device, dtype)] of floats, as {!from_py_ints} (nn/optim.py's learning-rate tensor). *)
val from_py_floats : device:string -> Dtype.t -> float array -> t

(** Sets the seed and forgets every device's key and counter. tinygrad [Tensor.manual_seed]. *)
val manual_seed : int -> unit

(** The device's (key, counter) for a draw of [num] words, advancing its counter. tinygrad [Tensor._next_counter]. *)
val next_counter : string -> int -> Uop.t * Uop.t

(** Uniform \[0, 1) (default float32; a concrete float dtype). tinygrad [Tensor.rand]. *)
val rand : ?dtype:Dtype.t -> ?device:string -> ?contiguous:bool -> int array -> t

(** {!rand} with the shape, device and (unless [dtype]) dtype of a tensor. tinygrad [rand_like]. *)
val rand_like : ?dtype:Dtype.t -> ?contiguous:bool -> t -> t

(** Standard normal (Box-Muller). tinygrad [Tensor.randn]. *)
val randn : ?dtype:Dtype.t -> ?device:string -> int array -> t

(** {!randn} like a tensor. tinygrad [randn_like]. *)
val randn_like : ?dtype:Dtype.t -> t -> t

(** Uniform integers in \[low, high) (low default 0, int32). tinygrad [Tensor.randint]. *)
val randint : ?dtype:Dtype.t -> ?device:string -> ?low:int -> high:int -> int array -> t

(** Uniform in \[low, high) (default \[0, 1)). tinygrad [Tensor.uniform]. *)
val uniform : ?dtype:Dtype.t -> ?device:string -> ?low:float -> ?high:float -> int array -> t

(** Normal with [mean] (0) and [std] (1). tinygrad [Tensor.normal]. *)
val normal : ?dtype:Dtype.t -> ?device:string -> ?mean:float -> ?std:float -> int array -> t

(** Uniform in \[-n^-0.5, n^-0.5), n the element count. tinygrad [Tensor.scaled_uniform]. *)
val scaled_uniform : ?dtype:Dtype.t -> ?device:string -> int array -> t

(** Glorot uniform. tinygrad [Tensor.glorot_uniform]. *)
val glorot_uniform : ?dtype:Dtype.t -> ?device:string -> int array -> t

(** Kaiming uniform ([a] 0.01). tinygrad [Tensor.kaiming_uniform]. *)
val kaiming_uniform : ?dtype:Dtype.t -> ?device:string -> ?a:float -> int array -> t

(** Kaiming normal ([a] 0.01). tinygrad [Tensor.kaiming_normal]. *)
val kaiming_normal : ?dtype:Dtype.t -> ?device:string -> ?a:float -> int array -> t

(** Indices drawn from a 1-d / 2-d weight tensor (with replacement, or one sample). tinygrad [multinomial]. *)
val multinomial : ?num_samples:int -> ?replacement:bool -> t -> t

(** Zeroes each element with probability [p] (0.5) and scales by [1/(1-p)] when the TRAINING context variable
    ([Helpers.training]) is set, else the identity. tinygrad [dropout]. *)
val dropout : ?p:float -> t -> t

(** [scaled_dot_product_attention q k v]: [softmax(q k^T / sqrt d + mask) v] (a bool [mask] selects; [is_causal]
    masks the upper triangle; [dropout_p] applies when training). tinygrad [scaled_dot_product_attention]. *)
val scaled_dot_product_attention :
  ?mask:t -> ?dropout_p:float -> ?is_causal:bool -> ?enable_gqa:bool -> t -> t -> t -> t


(** Infix operators: [open Tensor.O]. *)
module O : sig
  (** {!add}. *)
  val ( + ) : t -> t -> t

  (** {!sub}. *)
  val ( - ) : t -> t -> t

  (** {!mul}. *)
  val ( * ) : t -> t -> t

  (** {!div}. *)
  val ( / ) : t -> t -> t

  (** {!neg}. *)
  val ( ~- ) : t -> t

  (** {!matmul}. *)
  val ( @ ) : t -> t -> t
end
