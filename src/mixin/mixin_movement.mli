(** Movement ops shared by Tensor and UOp. tinygrad: [mixin/movement.py] ([MovementMixin]).
    Shapes are [Uop.sint list]; tinygrad's [None] entries are [option]s. Errors raise [Invalid_argument]
    naming the op and the shapes. *)

(** The shape. *)
val shape : Uop.t -> Uop.sint list

(** The int shape; a symbolic shape raises [Invalid_argument] naming [op] (default ["shape"]). *)
val ishape : ?op:string -> Uop.t -> int list

(** Number of dimensions. tinygrad [MovementMixin.ndim]. *)
val ndim : Uop.t -> int

(** Number of elements. tinygrad [MovementMixin.numel]. *)
val numel : Uop.t -> Uop.sint

(** The shape, or the one dim as a singleton. tinygrad [MovementMixin.size]. *)
val size : ?dim:int -> Uop.t -> Uop.sint list

(** A possibly negative dim as an index ([extra] allows one past the end). tinygrad [MovementMixin._resolve_dim]. *)
val resolve_dim : ?op:string -> ?extra:bool -> Uop.t -> int -> int

(** Shapes padded with leading 1s to the same length. tinygrad [_align_left]. *)
val align_left : Uop.sint list list -> Uop.sint list list

(** Output axes that are added or expanded. tinygrad [broadcast_axes]. *)
val broadcast_axes : Uop.sint list -> Uop.sint list -> int list

(** Permute the axes. tinygrad [MovementMixin.permute]. *)
val permute : Uop.t -> int list -> Uop.t

(** Reshape; one [Sint (-1)] is inferred. tinygrad [MovementMixin.reshape]. *)
val reshape : Uop.t -> Uop.sint list -> Uop.t

(** Broadcast to a shape (left-EXPAND then permute). tinygrad [MovementMixin._broadcast_to]. *)
val broadcast_to : Uop.t -> Uop.sint list -> Uop.t

(** Expand; [Sint (-1)] keeps a dim. tinygrad [MovementMixin.expand]. *)
val expand : Uop.t -> Uop.sint list -> Uop.t

(** Zero-pad with (before, after) pairs. tinygrad [MovementMixin.pad]. *)
val pad : Uop.t -> (Uop.sint * Uop.sint) option list -> Uop.t

(** Shrink to (start, end) pairs. tinygrad [MovementMixin.shrink]. *)
val shrink : Uop.t -> (Uop.sint * Uop.sint) option list -> Uop.t

(** The STACK movement op: the sources in their common dtype. tinygrad [UOp._mop(Ops.STACK)]. *)
val stack_mop : Uop.t -> Uop.t list -> Uop.t

(** Shrink each axis to [(0, n)]. tinygrad [MovementMixin.shrink_to]. *)
val shrink_to : Uop.t -> Uop.sint option list -> Uop.t

(** Pad each axis at the end to a size. tinygrad [MovementMixin.pad_to]. *)
val pad_to : Uop.t -> Uop.sint option list -> Uop.t

(** Alias of {!reshape}. tinygrad [MovementMixin.view]. *)
val view : Uop.t -> Uop.sint list -> Uop.t

(** Swap two axes (defaults 1 and 0, as tinygrad's mixin). tinygrad [MovementMixin.transpose]. *)
val transpose : ?dim0:int -> ?dim1:int -> Uop.t -> Uop.t

(** Split one axis into sizes. tinygrad [MovementMixin.unflatten]. *)
val unflatten : Uop.t -> int -> Uop.sint list -> Uop.t

(** Tile the tensor. tinygrad [MovementMixin.repeat]. *)
val repeat : Uop.t -> Uop.sint list -> Uop.t

(** [pool ?stride ?dilation x k]: the sliding windows of the last [len k] axes, window axes last.
    tinygrad [MovementMixin._pool]. *)
val pool : ?stride:int list -> ?dilation:int list -> Uop.t -> int list -> Uop.t

(** [sle ?default ~op a b]: [a <= b] on sints, decided by the Variables' bounds; when they do not decide it,
    [default] (tinygrad [resolve(a <= b, default)]), or [Invalid_argument] naming [op] without one. *)
val sle : ?default:bool -> op:string -> Uop.sint -> Uop.sint -> bool

(** {!pool} with kernel sizes that may be symbolic (tinygrad's [_pool] takes sints: a cumsum over a symbolic axis). *)
val pool_sint : ?stride:int list -> ?dilation:int list -> Uop.t -> Uop.sint list -> Uop.t

(** A parsed basic index: result size, (start, end) boundary, stride, whether the axis goes away. *)
type view_index = { vsize : Uop.sint; boundary : Uop.sint * Uop.sint; stride : int; collapse_dim : bool }

(** Parses None / an int / a slice against an axis size. tinygrad [MovementMixin._parse_view_index]. *)
val parse_view_index :
  [ `None | `Int of Uop.sint | `Slice of int option * int option * int option ] -> Uop.sint -> view_index

(** Applies shrink, flip and stride of parsed indices. tinygrad [MovementMixin._apply_view_ops]. *)
val apply_view_ops : Uop.t -> view_index list -> Uop.t

(** The mixin/movement.py ops over UOps that {!Mixin_intf.MOVEMENT} lists. *)
include Mixin_intf.MOVEMENT with type t := Uop.t

(** The same ops over a carrier. *)
module Make (C : Mixin_intf.CARRIER) : Mixin_intf.MOVEMENT with type t := C.t
