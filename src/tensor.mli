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

(** True division (ints give float). *)
val div : t -> t -> t

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

(** GELU (tanh approximation). *)
val gelu : t -> t

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

(** Pad with one (before, after) pair per axis, filled with [value] (default 0); negative pads crop. *)
val pad : ?value:float -> t -> (int * int) array -> t

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

(** Whether dropout and friends are active. tinygrad [Tensor.training]. *)
val training : bool ref

(** {1 T-ops block: tinygrad mixin/op.py ({!Mixin_op})} *)

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

(** Mean cross-entropy of logits (class axis 1) against int labels or class probabilities. *)
val cross_entropy : ?label_smoothing:float -> t -> t -> t

(** Mean cross-entropy of logits (class axis -1) against int labels. *)
val sparse_categorical_crossentropy : ?ignore_index:int -> ?label_smoothing:float -> t -> t -> t

(** Mean binary cross-entropy of probabilities against targets. *)
val binary_crossentropy : t -> t -> t

(** Mean binary cross-entropy of logits against targets. *)
val binary_crossentropy_logits : t -> t -> t

(** (end of the T-ops block) *)

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
