(** The composite tensor ops of tinygrad's [mixin/op.py] ([OpMixin]) as functions over UOps, built from the
    shared mixins ([Mixin_movement], [Mixin_reduce], [Mixin_elementwise], [Mixin_dtype]) with tinygrad's
    algorithms and op order, so the graphs (and UOp keys) are tinygrad's. [Tensor] wraps them.
    Shapes must be concrete (ints). Axes may be negative. Padding / stride / dilation / kernel lists follow
    tinygrad: a one-element list is tinygrad's int. Bad input raises [Invalid_argument] naming the op.
    [min], [mean], [var], [std], [cat] and [_pad_constant] of op.py live in {!Mixin_reduce}. *)

(** {1 Creation} *)

(** [full_const ~dtype shape v]: the broadcast CONST. tinygrad [CreationMixin.full(..., buffer=False)]. *)
val full_const : dtype:Dtype.t -> int list -> Dtype.const -> Uop.t

(** [arange_gen ~start ~stop ~step ()] with Python numbers (a float anywhere gives the default float; an int range too
    big for int32 gives int64). tinygrad [OpMixin.arange]. *)
val arange_gen : ?dtype:Dtype.t -> start:Dtype.const -> stop:Dtype.const -> step:Dtype.const -> unit -> Uop.t

(** [arange ?start ?step stop] on ints. tinygrad [OpMixin.arange]. *)
val arange : ?start:int -> ?step:int -> ?dtype:Dtype.t -> int -> Uop.t

(** [linspace start stop steps], inclusive. tinygrad [OpMixin.linspace]. *)
val linspace : ?dtype:Dtype.t -> float -> float -> int -> Uop.t

(** [eye ?m n]: ones on the diagonal (default float32). tinygrad [OpMixin.eye]. *)
val eye : ?m:int -> ?dtype:Dtype.t -> int -> Uop.t

(** The upper triangle of the last two axes, the rest 0. tinygrad [OpMixin.triu]. *)
val triu : ?diagonal:int -> Uop.t -> Uop.t

(** The lower triangle of the last two axes, the rest 0. tinygrad [OpMixin.tril]. *)
val tril : ?diagonal:int -> Uop.t -> Uop.t

(** [pad_value ?value x pads]: constant-mode pad, one (before, after) pair per axis ([None] = none), negative pads
    crop, [value] defaults to 0.0. tinygrad [OpMixin.pad] (mode "constant", grouped padding). *)
val pad_value : ?value:Dtype.const -> Uop.t -> (int * int) option list -> Uop.t

(** {1 Indexing} *)

(** An index of {!getitem}: an int, a slice [(start, stop, step)], an int tensor of indices, a new axis, [...]. *)
type index = I of int | S of int option * int option * int option | T of Uop.t | New | Ellipsis

(** [one_hot_along_dim ?dim idx n]: [idx == arange(n)] laid along [dim] (default -1). tinygrad
    [OpMixin._one_hot_along_dim]. *)
val one_hot_along_dim : ?dim:int -> Uop.t -> int -> Uop.t

(** Basic and advanced indexing (tensor indices are always advanced, as on a Tensor); out-of-range tensor indices
    give 0. tinygrad [OpMixin._getitem] without setitem. *)
val getitem : Uop.t -> index list -> Uop.t

(** [gather x ~dim idx]: [x] picked along [dim] by [idx]. tinygrad [OpMixin.gather]. *)
val gather : Uop.t -> dim:int -> Uop.t -> Uop.t

(** [one_hot idx n]: weak-int one-hot of an int tensor. tinygrad [OpMixin.one_hot]. *)
val one_hot : Uop.t -> int -> Uop.t

(** {1 Linear algebra} *)

(** Dot product / matrix product of the last axis of [x] with the second-to-last (or only) axis of [w];
    [dtype] is the accumulation dtype. tinygrad [OpMixin.dot]. *)
val dot : ?dtype:Dtype.t -> Uop.t -> Uop.t -> Uop.t

(** [matmul x y] ([y @ x] with [reverse]). tinygrad [OpMixin.matmul]. *)
val matmul : ?reverse:bool -> ?dtype:Dtype.t -> Uop.t -> Uop.t -> Uop.t

(** [linear ?bias x weight]: [x @ weight + bias] (elementwise for a 1-d weight). tinygrad [OpMixin.linear]. *)
val linear : ?bias:Uop.t -> ?dtype:Dtype.t -> Uop.t -> Uop.t -> Uop.t

(** {1 Reductions and normalisation} *)

(** Numerically stable [log(sum(exp x))] over one axis (all axes by default). tinygrad [OpMixin.logsumexp]. *)
val logsumexp : ?axis:int -> ?keepdim:bool -> Uop.t -> Uop.t

(** Softmax over an axis (default -1). tinygrad [OpMixin.softmax]. *)
val softmax : ?axis:int -> ?dtype:Dtype.t -> Uop.t -> Uop.t

(** Log-softmax over an axis (default -1). tinygrad [OpMixin.log_softmax]. *)
val log_softmax : ?axis:int -> ?dtype:Dtype.t -> Uop.t -> Uop.t

(** Index of the (first) maximum, int32 (over the flattened tensor without [axis]). tinygrad [OpMixin.argmax]. *)
val argmax : ?axis:int -> ?keepdim:bool -> Uop.t -> Uop.t

(** Index of the (first) minimum, int32. tinygrad [OpMixin.argmin]. *)
val argmin : ?axis:int -> ?keepdim:bool -> Uop.t -> Uop.t

(** [cumalu x axis op]: cumulative ADD / MAX / MUL as a pooled reduction. tinygrad [OpMixin._cumalu]. *)
val cumalu : Uop.t -> int -> Ops.t -> Uop.t

(** {!cumalu}, two-stage for axes longer than 512. tinygrad [OpMixin._split_cumalu]. *)
val split_cumalu : Uop.t -> int -> Ops.t -> Uop.t

(** Cumulative sum (default axis 0). tinygrad [OpMixin.cumsum]. *)
val cumsum : ?axis:int -> Uop.t -> Uop.t

(** Cumulative product. tinygrad [OpMixin.cumprod]. *)
val cumprod : axis:int -> Uop.t -> Uop.t

(** Layer normalisation over [axis] (default [-1]), no affine part. tinygrad [OpMixin.layernorm]. *)
val layernorm : ?axis:int list -> ?eps:float -> Uop.t -> Uop.t

(** Batch normalisation with given statistics along [axis] (default [1]). tinygrad [OpMixin.batchnorm]. *)
val batchnorm :
  ?axis:int list -> Uop.t -> weight:Uop.t option -> bias:Uop.t option -> mean:Uop.t -> invstd:Uop.t -> Uop.t

(** {1 Pooling and convolution (any number of spatial dims)} *)

(** tinygrad [helpers.resolve_pool_pads]: one pad, one per spatial dim, or one per side, as a flat per-side list. *)
val resolve_pool_pads : int list -> int -> int list

(** tinygrad [helpers.flat_to_grouped]: [(l, r, t, b)] to [[(t, b); (l, r)]]. *)
val flat_to_grouped : int list -> (int * int) list

(** Average pooling (kernel default [2; 2], stride default the kernel). tinygrad [OpMixin.avg_pool2d]. *)
val avg_pool2d :
  ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?ceil_mode:bool ->
  ?count_include_pad:bool -> Uop.t -> Uop.t

(** Max pooling, values only (kernel default [2; 2], stride default the kernel). tinygrad [OpMixin.max_pool2d]. *)
val max_pool2d :
  ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?ceil_mode:bool -> Uop.t ->
  Uop.t

(** [conv2d x weight]: grouped, strided, dilated, padded convolution (NC+spatial layout); [dtype] is the accumulation
    dtype. tinygrad [OpMixin.conv2d] (no IMAGE / WINO paths). *)
val conv2d :
  ?bias:Uop.t -> ?groups:int -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?dtype:Dtype.t ->
  Uop.t -> Uop.t -> Uop.t

(** {1 Losses} *)

(** tinygrad [ReductionStr]. *)
type reduction = [ `Mean | `Sum | `None ]

(** Apply a reduction. tinygrad [OpMixin._do_reduction]. *)
val do_reduction : reduction -> Uop.t -> Uop.t

(** Binary cross-entropy of probabilities [x] against targets [y]. tinygrad [OpMixin.binary_crossentropy]. *)
val binary_crossentropy : ?reduction:reduction -> Uop.t -> Uop.t -> Uop.t

(** Binary cross-entropy of logits. tinygrad [OpMixin.binary_crossentropy_logits]. *)
val binary_crossentropy_logits : ?reduction:reduction -> ?pos_weight:Uop.t -> Uop.t -> Uop.t -> Uop.t

(** Cross-entropy of logits (class axis -1) against int labels. tinygrad [OpMixin.sparse_categorical_crossentropy]. *)
val sparse_categorical_crossentropy :
  ?ignore_index:int -> ?label_smoothing:float -> ?reduction:reduction -> Uop.t -> Uop.t -> Uop.t

(** Cross-entropy of logits (class axis 1, or 0 for 1-d) against labels or probabilities. tinygrad
    [OpMixin.cross_entropy]. *)
val cross_entropy : ?reduction:reduction -> ?label_smoothing:float -> Uop.t -> Uop.t -> Uop.t

(** Negative log-likelihood of log-probabilities against int labels. tinygrad [OpMixin.nll_loss]. *)
val nll_loss : ?weight:Uop.t -> ?ignore_index:int -> ?reduction:reduction -> Uop.t -> Uop.t -> Uop.t

(** {1 Transposed convolution, einsum, interpolation, pooling indices} *)

(** A reduction named as tinygrad's [ReductionStr] (["mean"], ["sum"], ["none"]); others raise. tinygrad
    [OpMixin._do_reduction]'s check. *)
val reduction_of_string : string -> reduction

(** The diagonal of [dim1], [dim2] (defaults 0, 1) moved to the last axis. tinygrad [MovementMixin.diagonal]. *)
val diagonal : ?offset:int -> ?dim1:int -> ?dim2:int -> Uop.t -> Uop.t

(** Transposed convolution ([weight] is (cin, cout/groups, *k)); lists as in {!conv2d}. tinygrad
    [OpMixin.conv_transpose2d]. *)
val conv_transpose2d :
  ?bias:Uop.t -> ?groups:int -> ?stride:int list -> ?dilation:int list -> ?padding:int list ->
  ?output_padding:int list -> Uop.t -> Uop.t -> Uop.t

(** [einsum formula operands]: Einstein summation (traces, [...] broadcasting, implicit output). tinygrad
    [OpMixin.einsum]. *)
val einsum : ?dtype:Dtype.t -> string -> Uop.t list -> Uop.t

(** tinygrad's interpolate modes "linear", "nearest", "nearest-exact". *)
type interpolate_mode = [ `Linear | `Nearest | `Nearest_exact ]

(** [interpolate x size]: resizes the last [List.length size] axes. tinygrad [OpMixin.interpolate]. *)
val interpolate : ?mode:interpolate_mode -> ?align_corners:bool -> Uop.t -> int list -> Uop.t

(** Max pooling returning the values and the int32 flat argmax within the spatial dims. tinygrad
    [OpMixin.max_pool2d(return_indices=True)]. *)
val max_pool2d_with_indices :
  ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?ceil_mode:bool -> Uop.t ->
  Uop.t * Uop.t

(** [max_unpool2d x indices]: scatters [x] to the flat spatial [indices] of {!max_pool2d_with_indices}. tinygrad
    [OpMixin.max_unpool2d]. *)
val max_unpool2d :
  ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?output_size:int list ->
  Uop.t -> Uop.t -> Uop.t
