(** tinygrad [mixin/op.py] (OpMixin), the ops beyond {!Mixin_op}: scans with indices, sort, scatter, the pad modes,
    normalize, softmin, var_mean / std_mean. Functions over UOps; user mistakes raise [Invalid_argument]. *)

(** [pre_scatter x ~dim index src]: [src] and the one-hot mask of [index], both padded to [x]'s shape plus the
    index axis last. tinygrad [_pre_scatter]. *)
val pre_scatter : ?op:string -> Uop.t -> dim:int -> Uop.t -> Uop.t -> Uop.t * Uop.t

(** The reductions of {!scatter_reduce}. *)
type scatter_reduction = Mixin_intf.scatter_reduction

(** tinygrad's reduce names (["sum"], ["prod"], ["mean"], ["amax"], ["amin"]); others raise. *)
val scatter_reduction_of_string : string -> scatter_reduction

(** [masked_merge x values mask axes]: [values] where [mask] (the last of repeated indices along [axes]) else [x]. *)
val masked_merge : Uop.t -> Uop.t -> Uop.t -> int list -> Uop.t

(** The source of {!scatter}: a tensor or a scalar. *)
type scatter_src = [ `Tensor of Uop.t | `Scalar of Dtype.const ]

(** tinygrad's scatter reduce names (["add"], ["multiply"]); others raise. *)
val scatter_mode_of_string : string -> [ `Add | `Multiply ]

(** [scatter ?reduce x ~dim index src]: [src] written into [x] at [index] along [dim] (the last write wins), or
    added / multiplied in with [reduce] (scalar [src] only). *)
val scatter : ?reduce:[ `Add | `Multiply ] -> Uop.t -> dim:int -> Uop.t -> scatter_src -> Uop.t

(** Circular padding (one (before, after) pair per dim; negative pads crop). tinygrad [_pad_circular]. *)
val pad_circular : Uop.t -> (int * int) list -> Uop.t

(** Reflect or replicate padding. tinygrad [_pad_reflect_replicate]. *)
val pad_reflect_replicate : Uop.t -> (int * int) list -> [ `Reflect | `Replicate ] -> Uop.t

(** The modes of {!pad}. *)
type pad_mode = [ `Constant | `Reflect | `Replicate | `Circular ]

(** [pad ?mode ?value x pads]: one (before, after) pair per dim ([None]: none); [value] fills the constant mode. *)
val pad : ?mode:pad_mode -> ?value:Dtype.const -> Uop.t -> (int * int) option list -> Uop.t

(** tinygrad's pad mode names ("constant", "reflect", "replicate", "circular"); others raise. *)
val pad_mode_of_string : string -> pad_mode

(** [masked_select ?size ?fill_value ~count x mask]: the elements of [x] where [mask] (broadcast), flattened; with
    [size] padded with [fill_value] or truncated, else as many as [count] (which realizes its 0-d int UOp) says. *)
val masked_select : ?size:int -> ?fill_value:Dtype.const -> count:(Uop.t -> int) -> Uop.t -> Uop.t -> Uop.t

(** [nonzero ?size ?fill_value ~count x]: the (n, ndim) int32 indices of the non-zero elements (see {!masked_select}). *)
val nonzero : ?size:int -> ?fill_value:Dtype.const -> count:(Uop.t -> int) -> Uop.t -> Uop.t

(** The mixin/op.py ops over UOps that {!Mixin_intf.OP_EXT} lists. *)
include Mixin_intf.OP_EXT with type t := Uop.t

(** The same ops over a carrier. *)
module Make (C : Mixin_intf.CARRIER) : Mixin_intf.OP_EXT with type t := C.t
