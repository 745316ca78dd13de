(** The UOp: tinygrad's one IR node. tinygrad: [uop/ops.py] (the [UOp] class, its properties and
    [python_alu]/[exec_alu]).

    UOps are hash-consed: {!create} returns the existing node when one with the same op, dtype, sources
    (by identity), arg and tag is alive, so physical equality ([==]) is identity, as [is] is in tinygrad.
    Records are [private]: read and match them freely, build them only with {!create} / {!replace}. *)

(** {1 Types} *)

(** tinygrad [AxisType]: the role of a RANGE. *)
type axis_type =
  | Device | Global | Warp | Local | Weak | Group_reduce | Reduce | Upcast | Unroll | Thread | Placeholder
  | Loop

(** tinygrad's device: a name ([str]), or the tuple of names of a multi-device value. *)
type device = One of string | Multi of string list

(** tinygrad [ParamArg]: the arg of a PARAM / BUFFER (kernel argument or Variable). *)
type param_arg = {
  slot : int;  (** argument position ([-1] for a Variable) *)
  pdtype : Dtype.t;  (** the element dtype *)
  vmin_vmax : (Dtype.const * Dtype.const) option;  (** the bounds of a Variable *)
  multiple_of : int option;  (** a Variable is known to be a multiple of this *)
  name : string option;  (** the Variable name ([expr]) *)
  addrspace : Dtype.addrspace option;  (** [Some Alu] for a Variable *)
  axis : int option;  (** the sharded axis *)
  device : device option;  (** the device of a buffer (a tuple for a multi-device buffer) *)
  volatile : bool;  (** tinygrad [volatile=True] *)
  vector_acc : bool;
  (** not in tinygrad: a REG accumulator of the CPU mode whose lanes stay a vector through the loop
      (Codegen_cpu.reduce_to_vector_acc), loaded and stored whole by the coalescer *)
}

(** The [arg] of a UOp: the Python values tinygrad stores there, as a variant. *)
type arg =
  | No_arg  (** Python [None] *)
  | Const of Dtype.const  (** the value of a CONST *)
  | Dtype of Dtype.t  (** the target of CAST / BITCAST *)
  | Int of int
  | Str of string
  | Range of int list * axis_type  (** RANGE: [(axis_id, *extra, axis_type)] *)
  | Param of param_arg
  | Reduce_arg of Ops.t * int  (** REDUCE: the reduce op and the number of reduced leading axes *)
  | Ints of int list
  | Bools of bool list
  | Op of Ops.t
  | Bool of bool
  | Tuple of arg list
  | Kernel_info of kernel_info
  | Program_info of program_info
  | Bufferize_opts of bufferize_opts  (** the arg of STAGE *)
  | Wmma_arg of wmma_arg  (** the arg of WMMA *)

(** tinygrad [UOp.wmma]'s arg [(dims, dtype_in, device, threads, tc_upcast_axes)]. *)
and wmma_arg = {
  wdims : int * int * int;  (** N, M, K of the tensor core *)
  wdtype_in : Dtype.t;  (** dtype of A and B (kept in the arg: bitcasts change the srcs' dtypes) *)
  wdevice : string;  (** the renderer's device *)
  wthreads : int;  (** threads that make the warp *)
  wupcast_axes : (int * int) list list;  (** for A, B and C: (range number, size) pairs; [[]] once expanded (None) *)
}

(** tinygrad [BufferizeOpts] (schedule/indexing.py): the arg of STAGE. *)
and bufferize_opts = {
  bdevice : bdevice;  (** the device ([Bdev_id]: on LOCAL, the device is an id) *)
  baddrspace : Dtype.addrspace;  (** GLOBAL: a real buffer; LOCAL: a local/register one *)
  removable : bool;  (** whether remove_bufferize may inline it *)
}

(** The [device] field of {!bufferize_opts}: [None], a device name or an id. *)
and bdevice = Bdev_none | Bdev of device | Bdev_id of int

(** tinygrad [KernelInfo]: the arg of a kernel SINK. *)
and kernel_info = {
  kname : string;
  axis_types : axis_type list;
  dont_use_locals : bool;
  applied_opts : Opt.t list;
  opts_to_apply : Opt.t list option;
  estimates : estimates option;
  beam : int;
}

(** tinygrad renderer [Estimates]: flops, bytes loaded/stored, bytes touched. *)
and estimates = { ops : sint; lds : sint; mem : sint }

(** tinygrad [ProgramInfo]: the arg of PROGRAM. *)
and program_info = {
  pname : string;
  global_size : sint list;
  local_size : sint list option;
  vars : t list;
  globals : int list;
  outs : int list;
  ins : int list;
}

(** A UOp. The mutable fields are memo caches owned by this module. *)
and t = private {
  op : Ops.t;
  dtype : Dtype.t;
  src : t array;
  arg : arg;
  tag : arg;
  id : int;  (** creation number, unique among live nodes *)
  hash : int;  (** structural hash used by the hash-consing table *)
  mutable shape_c : shape_cache;  (** cache of {!shape_opt} *)
  mutable minmax_c : (Dtype.const * Dtype.const) option;  (** cache of {!min_max} *)
  mutable ranges_c : t list option;  (** cache of the ranges of the sources *)
  mutable device_c : device option option;  (** cache of [device] *)
  mutable addrspace_c : Dtype.addrspace option option;  (** cache of [addrspace] *)
}

(** The state of a node's shape cache. *)
and shape_cache = Unknown | No_shape | Shape of sint list

(** tinygrad [sint]: a dimension that is an int or a symbolic UOp. *)
and sint = Sint of int | Suop of t

(** {1 Construction and hash-consing} *)

(** Structural equality of args; UOps inside args compare by identity. *)
val equal_arg : arg -> arg -> bool

(** Element-wise {!sint_equal} on two lists of the same length. *)
val equal_sints : sint list -> sint list -> bool

(** The simplifier behind {!simplify}; set by [Symbolic] when linked (the default fails). A hook because tinygrad
    has the same cycle: [UOp.simplify] imports [uop/symbolic.py] inside the method, as symbolic.py imports ops.py. *)
val simplify_hook : (t -> t) ref

(** The renderer behind {!render}; set by [Render] when linked (the default fails). A hook because tinygrad has the
    same cycle: [UOp.render] imports [uop/render.py] inside the method, as render.py imports ops.py. *)
val render_hook : (t -> string) ref

(** The dtype a node of this op gets from its sources and arg, if any. tinygrad [dtype_from_uop]. *)
val dtype_from_uop : Ops.t -> t array -> arg -> Dtype.t option

(** [create ?dtype ?src ?arg ?tag op]: the hash-consed node; [dtype] defaults to {!dtype_from_uop}.
    tinygrad [UOp(...)]. *)
val create : ?dtype:Dtype.t -> ?src:t array -> ?arg:arg -> ?tag:arg -> Ops.t -> t

(** The slot count of the hash-consing table: it grows with the live nodes and, after a major GC cycle found
    most of them dead, shrinks back towards its first size. *)
val intern_size : unit -> int

(** The node with some fields changed. tinygrad [UOp.replace]. *)
val replace : ?op:Ops.t -> ?dtype:Dtype.t -> ?src:t array -> ?arg:arg -> ?tag:arg -> t -> t

(** [f op ?dtype ?arg u]: [op] on the single source [u], [u]'s dtype by default. tinygrad [UOp.f]. *)
val f : Ops.t -> ?dtype:Dtype.t -> ?arg:arg -> t -> t

(** The node with its tag set (default [Bool true]). tinygrad [UOp.rtag]. *)
val rtag : ?tag:arg -> t -> t

(** [rebuild_dtype n new_src]: [n]'s dtype, re-derived only if a source dtype changed.
    tinygrad [_rebuild_dtype]. *)
val rebuild_dtype : t -> t array -> Dtype.t

(** The node under movement ops and DETACH. tinygrad [UOp.base]. *)
val base : t -> t

(** The {!type-param_arg} of a PARAM / BUFFER; [Invalid_argument] otherwise. *)
val param_arg : t -> param_arg

(** Whether the node is a CONST. *)
val is_const : t -> bool

(** The value of a CONST. tinygrad [UOp.val]. *)
val const_val : t -> Dtype.const

(** Whether the node is the CONST [Invalid]. tinygrad [UOp.is_invalid]. *)
val is_invalid : t -> bool

(** {1 Constants} *)

(** A CONST, its value canonicalised to [dtype] (default: the value's weak dtype). tinygrad [UOp.const]. *)
val const : ?dtype:Dtype.t -> Dtype.const -> t

(** {!const} of an int. *)
val const_int : ?dtype:Dtype.t -> int -> t

(** {!const} of a float. *)
val const_float : ?dtype:Dtype.t -> float -> t

(** A bool CONST. *)
val const_bool : bool -> t

(** The CONST [Invalid]. tinygrad [UOp.invalid]. *)
val invalid : unit -> t

(** A CONST with the node's dtype (or [dtype]), expanded to its shape. tinygrad [UOp.const_like]. *)
val const_like : ?dtype:Dtype.t -> t -> Dtype.const -> t

(** {!const_like} of an int. *)
val const_like_int : t -> int -> t

(** The identity of ADD, MUL or MAX in a dtype. tinygrad [identity_element]. *)
val identity_element : Ops.t -> Dtype.t -> Dtype.const

(** {1 Graph walks} *)

(** Hash tables keyed by UOp identity. *)
module Tbl : Hashtbl.S with type key = t

(** Post-order list of the graph, sources first; [gate] stops descent at a node (not emitted); with
    [~enter_calls:false] the bodies of CALL / FUNCTION are skipped. tinygrad [UOp.toposort]. *)
val toposort : ?gate:(t -> bool) -> ?enter_calls:bool -> t -> t list

(** Every node the node depends on, without itself. tinygrad [UOp.backward_slice]. *)
val backward_slice : t -> t list

(** Whether one of the ops occurs in the graph. tinygrad [UOp.op_in_backward_slice_with_self]. *)
val op_in_backward_slice_with_self : t -> Ops.t list -> bool

(** [in_backward_slice_with_self x u]: tinygrad [x in u.backward_slice_with_self]. *)
val in_backward_slice_with_self : t -> t -> bool

(** Python's ordering of two args as in tinygrad's [UOp.tuplize] (a fixed order where Python raises). *)
val compare_arg_py : arg -> arg -> int

(** Three-way comparison of tinygrad [UOp.tuplize], used to order sources canonically. *)
val compare_tuplize : t -> t -> int

(** {1 Builders} *)

(** A SINK of the nodes. tinygrad [UOp.sink]. *)
val sink : ?arg:arg -> t list -> t

(** A GROUP of the nodes (the node itself when there is one). tinygrad [UOp.group]. *)
val group : t list -> t

(** A STACK (vector) of the nodes. *)
val stack : t list -> t

(** [broadcast u n]: a STACK of [n] copies of [u] ([u] when [n = 1]). tinygrad [UOp.broadcast]. *)
val broadcast : t -> int -> t

(** INDEX of a buffer (a constant index into a STACK picks the element). tinygrad [UOp.index]. *)
val index : ?dtype:Dtype.t -> t -> t list -> t

(** LOAD with extra sources. tinygrad [UOp.load]. *)
val load : ?dtype:Dtype.t -> t -> t list -> t

(** [store ?gate dst v]: STORE. tinygrad [UOp.store]. *)
val store : ?gate:t -> t -> t -> t

(** END of the ranges (the node itself when there are none). tinygrad [UOp.end]. *)
val end_ : t -> t list -> t

(** AFTER the nodes (the node itself when there are none). tinygrad [UOp.after]. *)
val after : t -> t list -> t

(** BARRIER. tinygrad [UOp.barrier]. *)
val barrier : t -> t list -> t

(** [alu op srcs]: the node of [op] on [srcs], dtype derived. tinygrad [UOp.alu]. *)
val alu : Ops.t -> t list -> t

(** [range ?dtype ?axis_type ?extra end axis_id]: a RANGE of [end] iterations. tinygrad [UOp.range]. *)
val range : ?dtype:Dtype.t -> ?axis_type:axis_type -> ?extra:int list -> sint -> int -> t

(** [special end name]: a SPECIAL (GPU index) of [end] values. tinygrad [UOp.special]. *)
val special : ?dtype:Dtype.t -> sint -> string -> t

(** [reduce ?arg u rngs]: REDUCE of [u] over the ranges with op [arg] (default ADD). tinygrad [UOp.reduce]. *)
val reduce : ?arg:Ops.t -> t -> t list -> t

(** A [KernelInfo] with tinygrad's defaults and name ["test"]. *)
val default_kernel_info : kernel_info

(** A {!type-param_arg} with defaults (slot -1, GLOBAL, no name), to update with [{ default_param with ... }]. *)
val default_param : param_arg

(** [variable name lo hi]: a Variable (0-d BUFFER in the ALU addrspace); [~param:true] gives the PARAM form.
    tinygrad [UOp.variable]. *)
val variable :
  ?dtype:Dtype.t -> ?multiple_of:int -> ?param:bool -> string -> Dtype.const -> Dtype.const -> t

(** {!variable} with int bounds. *)
val variable_int : ?dtype:Dtype.t -> ?multiple_of:int -> ?param:bool -> string -> int -> int -> t

(** Whether the node is a Variable. tinygrad [UOp.is_variable]. *)
val is_variable : t -> bool

(** The name of a Variable. tinygrad [UOp.expr]. *)
val expr : t -> string

(** [placeholder_param ~slot dtype size]: a 1-d PARAM buffer of [size] elements.
    tinygrad [UOp.placeholder]. *)
val placeholder_param : ?addrspace:Dtype.addrspace -> ?device:device -> slot:int -> Dtype.t -> int -> t

(** [param slot dtype]: a PARAM (kernel argument); weak dtypes are refused. With [axis] and a tuple of
    devices, [shape] is one shard's and the PARAM has the whole value's shape. tinygrad [UOp.param]. *)
val param :
  ?shape:sint list -> ?device:device -> ?vmin_vmax:Dtype.const * Dtype.const -> ?multiple_of:int ->
  ?name:string -> ?addrspace:Dtype.addrspace -> ?axis:int -> ?volatile:bool -> int -> Dtype.t -> t

(** [bind var value]: the Variable bound to [value], as [AFTER(var, STORE(var, value))].
    tinygrad [UOp.bind]. *)
val bind : t -> t -> t

(** The Variables (and ALU PARAMs) of the graph, sorted by name. tinygrad [UOp.variables]. *)
val variables : t -> t list

(** The address space of the node, if the graph determines one. tinygrad [UOp.addrspace]. *)
val addrspace : t -> Dtype.addrspace option

(** {1 Shapes} *)

(** A CONST int as [Sint], anything else as [Suop]. *)
val sint_of_uop : t -> sint

(** The sint as a UOp (a CONST of [dtype], default weakint, for an int). tinygrad [sint_to_uop]. *)
val sint_to_uop : ?dtype:Dtype.t -> sint -> t

(** Equality of sints (UOps by identity). *)
val sint_equal : sint -> sint -> bool

(** The sint as text (UOps rendered). tinygrad [srender]. *)
val sint_to_string : sint -> string

(** Product of two sints, simplified. *)
val sint_mul : sint -> sint -> sint

(** Sum of two sints, simplified. *)
val sint_add : sint -> sint -> sint

(** Product of sints. tinygrad [prod] on a shape. *)
val sprod : sint list -> sint

(** A shape as the UOp that movement ops take (one element, or a STACK). tinygrad [shape_to_shape_arg]. *)
val shape_to_shape_arg : sint list -> t

(** The common shape the shapes broadcast to. tinygrad [_broadcast_shape]. *)
val broadcast_shape : sint list list -> sint list

(** The argument of a movement op, decoded. tinygrad [UOp.marg]. *)
val marg :
  t -> [ `Shape of sint list | `Pairs of (sint * sint) list | `Perm of int list | `Flip of bool list ]

(** [mop op u arg]: the movement op on [u] (no-op for an empty EXPAND / PAD / SHRINK). tinygrad [UOp._mop]. *)
val mop :
  Ops.t -> t ->
  [ `Shape of sint list | `Pairs of (sint * sint) list | `Perm of int list | `Flip of bool list ] -> t

(** A shape as a Python tuple, e.g. ["(3,)"]. *)
val shape_str : sint list -> string

(** The shape, [None] for nodes that have none. tinygrad [UOp._shape]. *)
val shape_opt : t -> sint list option

(** The shape; [Invalid_argument] for nodes that have none. tinygrad [UOp.shape]. *)
val shape : t -> sint list

(** The shape with symbolic dims replaced by their vmax. tinygrad [MovementMixin.max_shape]. *)
val max_shape : t -> int list

(** The element count of {!max_shape}. tinygrad [MovementMixin.max_numel]. *)
val max_numel : t -> int

(** {1 Ranges} *)

(** The index of the first range source of ops that end ranges. tinygrad [range_start]. *)
val range_start : Ops.t -> int option

(** The ranges the node closes. tinygrad [UOp.ended_ranges]. *)
val ended_ranges : t -> t list

(** The open ranges the node depends on (itself first for a RANGE). tinygrad [UOp.ranges]. *)
val ranges : t -> t list

(** {1 vmin / vmax} *)

(** The int in an int or bool constant; [Invalid_argument] otherwise. *)
val zi : Dtype.const -> Z.t

(** Python floor division of ints ([0] for division by zero). *)
val zfloordiv : Z.t -> Z.t -> Z.t

(** Python modulo of ints ([x] for modulo by zero). *)
val zfloormod : Z.t -> Z.t -> Z.t

(** The bounds of the node's value, cached. tinygrad [UOp._min_max]. *)
val min_max : t -> Dtype.const * Dtype.const

(** The lower bound. tinygrad [UOp.vmin]. *)
val vmin : t -> Dtype.const

(** The upper bound. tinygrad [UOp.vmax]. *)
val vmax : t -> Dtype.const

(** The value of a bool node when its simplified bounds agree, else [default] (true). tinygrad [resolve]. *)
val resolve : ?default:bool -> t -> bool

(** Whether the node's bounds exceed the dtype's range. tinygrad [UOp.overflows]. *)
val overflows : t -> Dtype.t -> bool

(** {1 python_alu / exec_alu} *)

(** The op on Python numbers (unbounded ints, doubles). tinygrad [python_alu]. *)
val python_alu : Ops.t -> Dtype.const list -> Dtype.const

(** {!python_alu}, the result truncated to the dtype unless [~truncate_output:false]. tinygrad [exec_alu]. *)
val exec_alu : ?truncate_output:bool -> Ops.t -> Dtype.t -> Dtype.const list -> Dtype.const

(** {1 Symbolic helpers} *)

(** The node run through the symbolic simplifier ({!simplify_hook}). tinygrad [UOp.simplify]. *)
val simplify : t -> t

(** {!simplify}, folding a CAST of a CONST. tinygrad [UOp.ssimplify]. *)
val ssimplify : t -> t

(** The largest known int factor of the node. tinygrad [UOp.const_factor]. *)
val const_factor : t -> Z.t

(** [divides u v]: [u / v] when [v] divides [u] exactly. tinygrad [UOp.divides]. *)
val divides : t -> Z.t -> t option

(** [pop_const ?op u]: [(x, c)] when [u] is [x op c], else [(u, identity)]. tinygrad [UOp.pop_const]. *)
val pop_const : ?op:Ops.t -> t -> t * Dtype.const

(** The operands of a chain of [sep]. tinygrad [UOp.split_uop]. *)
val split_uop : t -> Ops.t -> t list

(** [term_coefficient x idx]: the coefficient of [x] in the sum [idx], from its terms [x] and [x * c] with [c]
    a constant integer; 0 when [x] is no such term. Not in tinygrad. *)
val term_coefficient : t -> t -> int

(** [start] times the nodes ([&] for bools). tinygrad [ElementwiseMixin.uprod]. *)
val uprod : start:t -> t list -> t

(** [start] plus the nodes ([|] for bools). tinygrad [ElementwiseMixin.usum]. *)
val usum : start:t -> t list -> t

(** The common factor of the nodes. tinygrad [UOp.gcd]. *)
val gcd : t list -> t

(** [divide_exact u v]: [u / v] when it is exact. tinygrad [UOp.divide_exact]. *)
val divide_exact : t -> t -> t option

(** The value of the node with Variables bound by name. tinygrad [UOp.sym_infer]. *)
val sym_infer : t -> (string * Dtype.const) list -> Dtype.const

(** The single value of a bool node. tinygrad [UOp.__bool__]. *)
val to_bool : t -> bool

(** The single value of an int node. tinygrad [UOp.__int__]. *)
val to_int : t -> int

(** The single value of a float node. tinygrad [UOp.__float__]. *)
val to_float : t -> float

(** {1 Elementwise sugar}

    tinygrad [mixin/elementwise.py] on UOps: binary ops first promote both operands with the weak-dtype
    rules ([_broadcasted]). *)

(** [cast dt u]: CAST ([u] when already [dt]). tinygrad [UOp.cast]. *)
val cast : Dtype.t -> t -> t

(** [bitcast dt u]: BITCAST between concrete dtypes. tinygrad [UOp.bitcast]. *)
val bitcast : Dtype.t -> t -> t

(** [binop op ?reverse x y]: [op] on the promoted operands. tinygrad [ElementwiseMixin._binop]. *)
val binop : Ops.t -> ?reverse:bool -> t -> t -> t

(** Boolean not. tinygrad [logical_not]. *)
val logical_not : t -> t

(** Negation (logical not for bools). tinygrad [__neg__]. *)
val neg : t -> t

(** [x + y]. tinygrad [__add__]. *)
val add : t -> t -> t

(** [x - y], as [x + -y]. tinygrad [__sub__]. *)
val sub : t -> t -> t

(** [x * y]. tinygrad [__mul__]. *)
val mul : t -> t -> t

(** Floor division of ints. tinygrad [__floordiv__]. *)
val idiv : t -> t -> t

(** Truncating division (CDIV). tinygrad [cdiv]. *)
val cdiv : t -> t -> t

(** Floor modulo of ints. tinygrad [__mod__]. *)
val mod_ : t -> t -> t

(** Truncating modulo (CMOD). tinygrad [cmod]. *)
val cmod : t -> t -> t

(** [x < y]. tinygrad [__lt__]. *)
val lt : t -> t -> t

(** [x > y]. tinygrad [__gt__]. *)
val gt : t -> t -> t

(** [x >= y]. tinygrad [__ge__]. *)
val ge : t -> t -> t

(** [x <= y]. tinygrad [__le__]. *)
val le : t -> t -> t

(** [x != y]. tinygrad [ne]. *)
val ne : t -> t -> t

(** [x == y]. tinygrad [eq]. *)
val eq : t -> t -> t

(** Bitwise / logical and. tinygrad [__and__]. *)
val and_ : t -> t -> t

(** Bitwise / logical or. tinygrad [__or__]. *)
val or_ : t -> t -> t

(** Bitwise / logical xor. tinygrad [__xor__]. *)
val xor : t -> t -> t

(** Left shift. tinygrad [__lshift__]. *)
val shl : t -> t -> t

(** Right shift. tinygrad [__rshift__]. *)
val shr : t -> t -> t

(** Maximum. tinygrad [maximum]. *)
val maximum : t -> t -> t

(** Minimum, via MAX. tinygrad [minimum]. *)
val minimum : t -> t -> t

(** Bitwise not. tinygrad [bitwise_not]. *)
val bitwise_not : t -> t

(** [where c x y]. tinygrad [UOp.where]. *)
val where : t -> t -> t -> t

(** [1 / x]. tinygrad [reciprocal]. *)
val reciprocal : t -> t

(** Square root. tinygrad [sqrt]. *)
val sqrt : t -> t

(** [2 ** x]. tinygrad [exp2]. *)
val exp2 : t -> t

(** Base-2 logarithm. tinygrad [log2]. *)
val log2 : t -> t

(** Sine. tinygrad [sin]. *)
val sin : t -> t

(** Truncation toward zero. tinygrad [trunc]. *)
val trunc : t -> t

(** True division (ints cast to the default float). tinygrad [ElementwiseMixin.div]. *)
val div : t -> t -> t

(** [x ** y]. tinygrad [ElementwiseMixin.pow]. *)
val pow : t -> t -> t

(** [valid u cond]: [u] where [cond], else Invalid. tinygrad [UOp.valid]. *)
val valid : t -> t -> t

(** The index of a [valid] node (the node itself otherwise). tinygrad [UOp.get_idx]. *)
val get_idx : t -> t

(** The condition of a [valid] node (true otherwise). tinygrad [UOp.get_valid]. *)
val get_valid : t -> t

(** {1 Printing} *)

(** The Python repr, e.g. ["AxisType.LOOP"]. *)
val axis_type_to_string : axis_type -> string

(** The one-letter name used in kernel names. tinygrad [axis_letters]. *)
val axis_letter : axis_type -> string

(** The sort position of an axis type. tinygrad [axis_to_pos]. *)
val axis_to_pos : axis_type -> int

(** The axis ids of a RANGE joined by [_]. tinygrad [range_str]. *)
val range_str : t -> string

(** The Python repr of an arg. *)
val arg_to_string : arg -> string

(** The graph as tinygrad prints it, shared nodes named [x<N>:=]. tinygrad [pretty_print]. *)
val pretty_print : t -> string

(** Same as {!pretty_print}. tinygrad [UOp.__repr__]. *)
val to_string : t -> string

(** The node as an expression ({!render_hook}). tinygrad [UOp.render]. *)
val render : t -> string

(** {1 Infix operators}

    [Uop.O.(v + i 3 * x)]: the elementwise sugar as OCaml operators. *)
module O : sig
  (** {!add}. *)
  val ( + ) : t -> t -> t

  (** {!sub}. *)
  val ( - ) : t -> t -> t

  (** {!mul}. *)
  val ( * ) : t -> t -> t

  (** {!idiv}: floor division, spelled as Python's [//] (Stdlib's [/] stays int division). *)
  val ( // ) : t -> t -> t

  (** {!mod_}: floor modulo. *)
  val ( mod ) : t -> t -> t

  (** {!lt}. *)
  val ( < ) : t -> t -> t

  (** {!gt}. *)
  val ( > ) : t -> t -> t

  (** {!le}. *)
  val ( <= ) : t -> t -> t

  (** {!ge}. *)
  val ( >= ) : t -> t -> t

  (** {!ne}. *)
  val ( <> ) : t -> t -> t

  (** {!eq}. *)
  val ( = ) : t -> t -> t

  (** {!and_}. *)
  val ( land ) : t -> t -> t

  (** {!or_}. *)
  val ( lor ) : t -> t -> t

  (** {!xor}. *)
  val ( lxor ) : t -> t -> t

  (** {!shl}. *)
  val ( lsl ) : t -> t -> t

  (** {!shr}. *)
  val ( lsr ) : t -> t -> t

  (** {!neg}. *)
  val ( ~- ) : t -> t

  (** {!const_int}. *)
  val i : int -> t

  (** {!const_float}. *)
  val f : float -> t

  (** {!const_bool}. *)
  val b : bool -> t
end

(** {1 Devices and buffers} *)

(** The whole device of the node: a COPY's or ALLREDUCE's target, an MSELECT's pick of its source's tuple, an
    MSTACK's tuple, else the first source's that has one; [None] for device-less nodes (CONSTs). tinygrad
    [UOp.device]. *)
val mdevice : t -> device option

(** {!mdevice} for single-device code: [Invalid_argument] naming the op when the node is on a tuple of devices. *)
val device : t -> string option

(** The node is on a tuple of devices. tinygrad [isinstance(u.device, tuple)]. *)
val is_multi : t -> bool

(** tinygrad [to_tuple] of a device: its names. *)
val device_list : device -> string list

(** Python's repr of a device: ['CPU'] or [('CPU', 'CPU:1')]. *)
val device_to_string : device -> string

(** The device a COPY's or ALLREDUCE's arg names ([Str] or a [Tuple] of [Str]). *)
val device_of_arg : arg -> device option

(** The arg of a COPY to a device. *)
val arg_of_device : device -> arg

(** No device or a weak dtype: nothing can back it. tinygrad [UOp.is_virtual]. *)
val is_virtual : t -> bool

(** A RESHAPE / UNSHARD / MSELECT chain (and AFTER with [after_ok]) down to a BUFFER or PARAM.
    tinygrad [UOp.has_buffer_identity]. *)
val has_buffer_identity : ?after_ok:bool -> t -> bool

(** The first source of an AFTER, else the node. tinygrad [UOp.without_after]. *)
val without_after : t -> t

(** [broadcasted ?reverse x y]: both operands promoted to their least upper dtype, weak CONSTs kept weak.
    tinygrad [ElementwiseMixin._broadcasted]. *)
val broadcasted : ?reverse:bool -> t -> t -> t * t

(** {1 Multi-device} *)

(** The DEVICE range over [n] devices (one node for every use: hash-consed). tinygrad
    [UOp.range(n, -1, AxisType.DEVICE)]. *)
val device_range : int -> t

(** The number of shards a sharding range makes ([vmax + 1]). *)
val range_count : t -> int

(** [unshard u axes ranges]: the value [u] sharded along [axes], one sharding range each (sorted by axis).
    tinygrad [UOp.unshard]. *)
val unshard : t -> int list -> t list -> t

(** [unshard_devices u axis]: {!unshard} along one axis by the DEVICE range over [u]'s devices. *)
val unshard_devices : t -> int -> t

(** The (axis, range) pairs an UNSHARD is sharded over; [[]] for any other node. tinygrad [UOp.sharding]. *)
val sharding : t -> (int * t) list

(** The sharded axis of a multi-device value, [None] when it is replicated. tinygrad [UOp.axis]. *)
val axis : t -> int option

(** The shape of one device's shard. tinygrad [UOp.shard_shape]. *)
val shard_shape : t -> sint list
