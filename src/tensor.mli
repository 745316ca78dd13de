(** The Tensor: a holder of a UOp graph, lazy until realized. tinygrad: [tensor.py] (the [Tensor] class;
    callify is {!Callify}, the engine {!Realize}). The ops come from the mixins of [src/mixin], functors over a
    carrier ({!Mixin_intf.CARRIER}, tinygrad's [_uop] / [_wrap_uop]) written once over UOps and included here
    for tensors; this module adds what a Tensor owns: creation from host data, realize and data out, autograd,
    the RNG state. Every binary op broadcasts like numpy and promotes dtypes with tinygrad's weak-dtype rules
    ([scalar 3.] is a weak float, [scalar_int 3] a weak int). Bad input raises [Invalid_argument] whose message
    starts with the name of the op that was called, then the shapes or dtypes.

    Conventions: tinygrad's [dim] parameters are [?dim]/[~dim], its [axis] parameters [?axis]; modes are
    variants; optional tensors are optional arguments. Infix operators are in {!O}: [/] is true division and
    matmul is [( *@ )] ([@] stays list append). *)

(** A tensor: abstract; its UOp is {!uop}. The representation (a record with the UOp, the gradient and the
    parameter flag) and the registry of live tensors are {!Tensor_base}, for the library modules built on
    Tensor (nn, optim, state, the JIT); a user program needs only this module. *)
type t = Tensor_base.t

(** An index of {!getitem} (['a] is {!t}): an int, a slice [(start, stop, step)], a tensor of indices, a new axis,
    [...]. *)
type 'a index = 'a Mixin_intf.index = I of int | S of int option * int option * int option | T of 'a | New | Ellipsis

(** The tensor's UOp graph (read only). tinygrad [Tensor.uop]. *)
val uop : t -> Uop.t

(** {1 Creation} *)

(** [of_uop u]: a tensor of the UOp on its canonical device (or tuple of devices); a UOp whose device is spelled
    otherwise ([CPU:0] for [CPU]) is copied there, a multi-device value gathered onto the canonical devices.
    tinygrad [Tensor(uop)]. *)
val of_uop : Uop.t -> t

(** [of_float_array shape data]: a tensor of the data (C order), default float32 on the default device; fp8 dtypes
    are encoded on the host (round to nearest even, saturating past the largest value as tinygrad). *)
val of_float_array : ?dtype:Dtype.t -> ?device:string -> int array -> float array -> t

(** [of_int_array shape data]: default int32. *)
val of_int_array : ?dtype:Dtype.t -> ?device:string -> int array -> int array -> t

(** A float literal: a device-less constant of weak float dtype unless [dtype]. It takes a float operand's dtype
    and turns an int or bool operand into a (weak) float, as Python's [3.0] does. tinygrad [Tensor(3.0)]. *)
val scalar : ?dtype:Dtype.t -> float -> t

(** An int literal: weak int unless [dtype]; it takes the other operand's dtype. tinygrad [Tensor(3)]. *)
val scalar_int : ?dtype:Dtype.t -> int -> t

(** {1 Inspection and data out} *)

(** The shape; a symbolic shape raises [Invalid_argument] (use {!Sym.shape}). *)
val shape : t -> int array

(** The dtype. *)
val dtype : t -> Dtype.t

(** The device (the default device for a device-less constant); [Invalid_argument] for a tensor on several devices
    ({!devices}). *)
val device : t -> string

(** The element count. *)
val numel : t -> int

(** The number of dimensions. *)
val ndim : t -> int

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

(** {1 Bigarray in and out}

    Every Bigarray kind with a tinygrad dtype converts: float32, float64, int8, uint8 (and [char]), int16, uint16,
    int32, int64, and OCaml's [int]/[nativeint] as int64 (a machine word). Complex kinds raise [Invalid_argument]. *)

(** A tensor of the Bigarray's shape and dtype. On the CPU the tensor's buffer is the Bigarray's memory, no copy,
    when its data are 16-byte aligned (always, for [Bigarray.*.create]): the Bigarray is kept alive by the tensor,
    an [assign] to the tensor writes into it, and changes made to it are seen by kernels that run later. On
    another device, or unaligned, the bytes are copied once. Not in tinygrad (numpy's [Tensor(ndarray)] copies). *)
val of_bigarray : ?device:string -> ('a, 'b, Bigarray.c_layout) Bigarray.Genarray.t -> t

(** [to_bigarray kind x]: the values of [x] (realized) in a fresh Bigarray of [x]'s shape; [kind]'s dtype must be
    [x]'s ([Invalid_argument] otherwise: cast first). Always a copy: the tensor's buffer may be reused. *)
val to_bigarray : ('a, 'b) Bigarray.kind -> t -> ('a, 'b, Bigarray.c_layout) Bigarray.Genarray.t

(** Shape, dtype, device and the values (a symbolic shape shows no values). *)
val to_string : t -> string

(** A Format printer for [#install_printer]: shape, dtype, device and the values, realized; more than 1000
    elements are summarised as numpy does (3 items at each end of every axis around [...]). *)
val pp : Format.formatter -> t -> unit

(** A copy in a fresh buffer (optionally on another device). tinygrad [Tensor.clone]. *)
val clone : ?device:string -> t -> t

(** [assign x v]: writes [v] (broadcast, same dtype) into [x] in place. tinygrad [Tensor.assign]. *)
val assign : t -> t -> t

(** [setitem x indices v]: writes [v] (broadcast to the indexed view; a weak [v] takes [x]'s dtype, another dtype
    raises) into [x] at [indices] (ints, slices with steps, tensor indices, [New], [Ellipsis]); where tensor indices
    repeat, the last write wins. A lazy float tensor takes the merged graph (gradients flow to [v]); a realized one
    is written in place through {!assign}. Raises [Invalid_argument] when another live tensor still reads [x]'s
    unrealized graph, which the write would make stale. tinygrad [Tensor.__setitem__]. *)
val setitem : t -> t index list -> t -> unit

(** [setitem_const x indices c]: {!setitem} of the number [c] made in [x]'s dtype (truncated for ints, [c <> 0] for
    bool), as tinygrad's [t[indices] = 3.5]. *)
val setitem_const : t -> t index list -> float -> unit

(** {1 The mixins: dtype, creation, elementwise, reductions, movement, op}
    The mixins over tensors (see {!Mixin_intf}); an op's [Invalid_argument] starts with its name. *)

(** tinygrad [mixin/dtype.py]. *)
include Mixin_intf.DTYPE with type t := t

(** tinygrad [mixin/creation.py]: full, zeros, ones, empty and their [_like] forms. *)
include Mixin_intf.CREATION with type t := t

(** tinygrad [mixin/elementwise.py]. *)
include Mixin_intf.ELEMENTWISE with type t := t

(** tinygrad [mixin/reduce.py]. *)
include Mixin_intf.REDUCE with type t := t

(** tinygrad [mixin/movement.py], the ops without shape arguments (the others follow). *)
include Mixin_intf.MOVEMENT with type t := t

(** tinygrad [mixin/op.py]: min, mean, var, std, cat, linear algebra, softmax and scans, sort, scatter, norms, losses
    (more follow). *)
include Mixin_intf.OP with type t := t

(** Floor modulo, {!mod_}. *)
val ( mod ) : t -> t -> t

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
val pad : ?mode:Mixin_op.pad_mode -> ?value:float -> t -> (int * int) array -> t

(** Keep [(start, end)] of each axis. *)
val shrink : t -> (int * int) array -> t

(** Swaps axes [dim0] and [dim1] (default 1 and 0, as tinygrad's). tinygrad [transpose]. *)
val transpose : ?dim0:int -> ?dim1:int -> t -> t

(** Split one axis into sizes. *)
val unflatten : t -> int -> int array -> t

(** Tile. *)
val repeat : t -> int array -> t


(** A copy on another device (the tensor itself when already there or device-less). tinygrad [Tensor.to]. *)
val to_device : t -> string -> t

(** {1 Several devices} *)

(** The devices of the tensor: one, or the tuple a sharded or replicated tensor lives on. tinygrad
    [to_tuple(Tensor.device)]. *)
val devices : t -> string list

(** The tensor lives on a tuple of devices. tinygrad [isinstance(Tensor.device, tuple)]. *)
val is_sharded : t -> bool

(** The axis a multi-device tensor is split along; [None] when replicated or on one device. tinygrad
    [Tensor.uop.axis]. *)
val shard_axis : t -> int option

(** [shard ?axis x devices]: [x] on every device of [devices], split along [axis] into equal parts (replicated
    without [axis]); one device is {!to_device}. [Invalid_argument] for a tensor already on several devices or an
    axis that does not split evenly. tinygrad [Tensor.shard]. *)
val shard : ?axis:int -> t -> string list -> t

(** {!shard} in place. tinygrad [Tensor.shard_]. *)
val shard_ : ?axis:int -> t -> string list -> t

(** [shard_like x y]: [x] on [y]'s devices, split along [y]'s axis. tinygrad [Tensor.shard_like]. *)
val shard_like : t -> t -> t

(** A copy on a tuple of devices (replicated). tinygrad [Tensor.to] of a tuple. *)
val to_devices : t -> string list -> t

(** {1 Calls} *)

(** [as_param slot x]: a PARAM standing for [x] in a function body: [x]'s dtype, shape and devices (a sharded
    [x]'s PARAM has its axis), no data. tinygrad [Tensor.as_param]. *)
val as_param : int -> t -> t

(** [call ~fxn args]: the value of [fxn], a body of {!as_param}s, with the PARAM of slot [i] standing for the
    [i]th of [args]: a FUNCTION, inlined when scheduled; a body on several devices is rewritten for one
    shard, and its sharded outputs come back sharded. Its gradient is a backward FUNCTION over the body's
    gradient. tinygrad [Tensor.call] (without [grad_fxn]). *)
val call : fxn:t -> t list -> t

(** {1 Convolution and pooling with int arguments}
    tinygrad's int form of [conv2d], [max_pool2d] and [avg_pool2d]; the tuple forms are {!conv_nd},
    {!max_pool_nd} and {!avg_pool_nd}. *)

(** Convolution of an (N, C, spatial...) input with (Cout, C/groups, kernel...) weights, any number of spatial dims. *)
val conv2d : ?bias:t -> ?stride:int -> ?padding:int -> ?dilation:int -> ?groups:int -> t -> t -> t

(** Max pooling over the last two axes (kernel default 2, stride default the kernel). *)
val max_pool2d : ?kernel_size:int -> ?stride:int -> ?padding:int -> t -> t

(** Average pooling over the last two axes, padding counted (kernel default 2, stride default the kernel). *)
val avg_pool2d : ?kernel_size:int -> ?stride:int -> ?padding:int -> t -> t


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


(** {1 The mode types of mixin/op.py, and the ops that realize a count} *)

(** tinygrad's [ReductionStr]: [`Mean], [`Sum], [`None]. *)
type reduction = Mixin_op.reduction

(** The reductions of {!scatter_reduce}. *)
type scatter_reduction = Mixin_op.scatter_reduction

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

(** Sets the seed and forgets every device's key and counter. tinygrad [Tensor.manual_seed]. *)
val manual_seed : int -> unit

(** tinygrad [mixin/rand.py], drawing from the counter of {!manual_seed}. *)
include Mixin_intf.RAND with type t := t

(** {1 Symbolic shapes}
    tinygrad's shape-taking ops with [sint] arguments: a dimension or offset may be a {!Variable} (bound with
    {!Variable.bind}) or an expression of Variables ({!Sint}). A tensor of symbolic shape computes like any other
    (elementwise ops, reductions, matmul, softmax, attention with or without [is_causal], cat, cumsum, tril/triu,
    gather, int slices with {!getitem}, convolutions and pooling over a symbolic length, assign): its kernels are
    compiled once for the Variables and take their values at run time, so {!Tiny_jit.call_v} replays one capture
    for every value. As in tinygrad, [Invalid_argument] comes from argmax/argmin along a symbolic axis, random
    numbers and dropout, sort and topk over one, tensor indices on one, a symbolic channel dim of a convolution, and
    {!shape}/{!numel}/data out (read a concrete window with {!shrink} first). The int functions above are these
    with int dimensions. *)
module Sym : sig
  (** The shape, its dimensions ints or symbolic. tinygrad [Tensor.shape]. *)
  val shape : t -> Sint.t array

  (** The number of elements. tinygrad [Tensor.numel]. *)
  val numel : t -> Sint.t

  (** Reshape (one [Sint (-1)] inferred). tinygrad [Tensor.reshape]. *)
  val reshape : t -> Sint.t array -> t

  (** Expand size-1 axes; [Sint (-1)] keeps a size. tinygrad [Tensor.expand]. *)
  val expand : t -> Sint.t array -> t

  (** Keep [(start, end)] of each axis. tinygrad [Tensor.shrink]. *)
  val shrink : t -> (Sint.t * Sint.t) array -> t

  (** Pad each axis with (before, after) elements of [value] (default 0); a pad that may be negative raises
      [Invalid_argument] (crop with {!shrink}). tinygrad [Tensor.pad] (constant mode). *)
  val pad : ?value:float -> t -> (Sint.t * Sint.t) array -> t

  (** A buffer of the shape filled with the value (float32 unless [dtype]); its storage has the shape's maximum
      size. tinygrad [Tensor.full]. *)
  val full : ?dtype:Dtype.t -> ?device:string -> Sint.t array -> float -> t

  (** Zeros. tinygrad [Tensor.zeros]. *)
  val zeros : ?dtype:Dtype.t -> ?device:string -> Sint.t array -> t

  (** Ones. tinygrad [Tensor.ones]. *)
  val ones : ?dtype:Dtype.t -> ?device:string -> Sint.t array -> t

  (** An uninitialised buffer of the shape's maximum size, shrunk to the shape. tinygrad [Tensor.empty]. *)
  val empty : ?dtype:Dtype.t -> ?device:string -> Sint.t array -> t

  (** [arange n]: [0, 1, ... n-1] (int32) for a possibly symbolic [n]. tinygrad [Tensor.arange(n)]. *)
  val arange : Sint.t -> t
end

(** Infix operators: [open Tensor.O]. *)
module O : sig
  (** {!add}. *)
  val ( + ) : t -> t -> t

  (** {!sub}. *)
  val ( - ) : t -> t -> t

  (** {!mul}. *)
  val ( * ) : t -> t -> t

  (** {!div}: true division (an int operand gives a float). *)
  val ( / ) : t -> t -> t

  (** {!neg}. *)
  val ( ~- ) : t -> t

  (** {!matmul} (not [@], which stays list append). *)
  val ( *@ ) : t -> t -> t
end
