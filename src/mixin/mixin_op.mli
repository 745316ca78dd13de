(** The composite tensor ops of tinygrad's [mixin/op.py] ([OpMixin]) as functions over UOps, built from the
    shared mixins ([Mixin_movement], [Mixin_reduce], [Mixin_elementwise], [Mixin_dtype]) with tinygrad's
    algorithms and op order, so the graphs (and UOp keys) are tinygrad's. [Tensor] wraps them.
    Shapes must be concrete (ints). Axes may be negative. Padding / stride / dilation / kernel lists follow
    tinygrad: a one-element list is tinygrad's int. Bad input raises [Invalid_argument] naming the op. *)

(** {1 Creation} *)

(** [full_const ~dtype shape v]: the broadcast CONST. tinygrad [CreationMixin.full(..., buffer=False)]. *)
val full_const : dtype:Dtype.t -> int list -> Dtype.const -> Uop.t

(** [arange_gen ~start ~stop ~step ()] with Python numbers (a float anywhere gives the default float; an int range too
    big for int32 gives int64). tinygrad [OpMixin.arange]. *)
val arange_gen : ?dtype:Dtype.t -> start:Dtype.const -> stop:Dtype.const -> step:Dtype.const -> unit -> Uop.t

(** [pad_filled x pads value]: pad with non-negative (before, after) sints per axis ([None] = none) filled with
    [value] (symbolic shapes and pads allowed). The non-cropping part of tinygrad [OpMixin._pad_constant]. *)
val pad_filled : Uop.t -> (Uop.sint * Uop.sint) option list -> Dtype.const -> Uop.t

(** [pad_constant x pads value]: pad with (before, after) per axis ([None] = none) filled with [value]; negative
    pads crop. tinygrad [OpMixin._pad_constant]. *)
val pad_constant : Uop.t -> (int * int) option list -> Dtype.const -> Uop.t

(** [arange_sint n]: [0, 1, ... n-1] in the default int for a possibly symbolic [n]. tinygrad [OpMixin.arange(n)]. *)
val arange_sint : Uop.sint -> Uop.t

(** [pad_value ?value x pads]: constant-mode pad, one (before, after) pair per axis ([None] = none), negative pads
    crop, [value] defaults to 0.0. tinygrad [OpMixin.pad] (mode "constant", grouped padding). *)
val pad_value : ?value:Dtype.const -> Uop.t -> (int * int) option list -> Uop.t

(** {1 Indexing} *)

(** An index of [getitem]. *)
type 'a index = 'a Mixin_intf.index = I of int | S of int option * int option * int option | T of 'a | New | Ellipsis

(** [one_hot_along_dim ?dim idx n]: [idx == arange(n)] laid along [dim] (default -1). tinygrad
    [OpMixin._one_hot_along_dim]. *)
val one_hot_along_dim : ?dim:int -> Uop.t -> int -> Uop.t

(** [getitem_gen ~v x indices]: [x] with [v] (broadcast to the indexed view) written where [indices] select, as a
    new graph (last write wins where tensor indices repeat); without [v], {!getitem}. tinygrad
    [OpMixin._getitem(indices, v)]. *)
val getitem_gen : ?v:Uop.t -> Uop.t -> Uop.t index list -> Uop.t

(** {1 Linear algebra} *)

(** {1 Reductions and normalisation} *)

(** [cumalu x axis op]: cumulative ADD / MAX / MUL as a pooled reduction. tinygrad [OpMixin._cumalu]. *)
val cumalu : Uop.t -> int -> Ops.t -> Uop.t

(** {!cumalu}, two-stage for axes longer than 512. tinygrad [OpMixin._split_cumalu]. *)
val split_cumalu : Uop.t -> int -> Ops.t -> Uop.t

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
type reduction = Mixin_intf.reduction

(** Apply a reduction. tinygrad [OpMixin._do_reduction]. *)
val do_reduction : reduction -> Uop.t -> Uop.t

(** {1 Transposed convolution, einsum, interpolation, pooling indices} *)

(** tinygrad's interpolate modes "linear", "nearest", "nearest-exact". *)
type interpolate_mode = Mixin_intf.interpolate_mode

(** Max pooling returning the values and the int32 flat argmax within the spatial dims. tinygrad
    [OpMixin.max_pool2d(return_indices=True)]. *)
val max_pool2d_with_indices :
  ?kernel_size:int list -> ?stride:int list -> ?dilation:int list -> ?padding:int list -> ?ceil_mode:bool -> Uop.t ->
  Uop.t * Uop.t

(** {1 Scans with indices, sort, scatter, pad modes} *)

(** [pre_scatter x ~dim index src]: [src] and the one-hot mask of [index], both padded to [x]'s shape plus the
    index axis last. tinygrad [_pre_scatter]. *)
val pre_scatter : ?op:string -> Uop.t -> dim:int -> Uop.t -> Uop.t -> Uop.t * Uop.t

(** The reductions of {!scatter_reduce}. *)
type scatter_reduction = Mixin_intf.scatter_reduction

(** [masked_merge x values mask axes]: [values] where [mask] (the last of repeated indices along [axes]) else [x]. *)
val masked_merge : Uop.t -> Uop.t -> Uop.t -> int list -> Uop.t

(** Circular padding (one (before, after) pair per dim; negative pads crop). tinygrad [_pad_circular]. *)
val pad_circular : Uop.t -> (int * int) list -> Uop.t

(** Reflect or replicate padding. tinygrad [_pad_reflect_replicate]. *)
val pad_reflect_replicate : Uop.t -> (int * int) list -> [ `Reflect | `Replicate ] -> Uop.t

(** The modes of {!pad}. *)
type pad_mode = Mixin_intf.pad_mode

(** [pad ?mode ?value x pads]: one (before, after) pair per dim ([None]: none); [value] fills the constant mode. *)
val pad : ?mode:pad_mode -> ?value:Dtype.const -> Uop.t -> (int * int) option list -> Uop.t

(** [masked_select ?size ?fill_value ~count x mask]: the elements of [x] where [mask] (broadcast), flattened; with
    [size] padded with [fill_value] or truncated, else as many as [count] (which realizes its 0-d int UOp) says. *)
val masked_select : ?size:int -> ?fill_value:Dtype.const -> count:(Uop.t -> int) -> Uop.t -> Uop.t -> Uop.t

(** [nonzero ?size ?fill_value ~count x]: the (n, ndim) int32 indices of the non-zero elements (see {!masked_select}). *)
val nonzero : ?size:int -> ?fill_value:Dtype.const -> count:(Uop.t -> int) -> Uop.t -> Uop.t

(** The mixin/op.py ops over UOps that {!Mixin_intf.OP} lists. *)
include Mixin_intf.OP with type t := Uop.t

(** The same ops over a carrier. *)
module Make (C : Mixin_intf.CARRIER) : Mixin_intf.OP with type t := C.t
