(** The UOp BUFFER -> device Buffer side table (tinygrad's [buffers] WeakKeyDictionary in [uop/ops.py]) and the
    UOp buffer helpers the scheduler and Tensor need. *)

(** The Buffer recorded for a BUFFER (or view) uop, if any. *)
val find : Uop.t -> Device.Buffer.t option

(** Records the Buffer of a uop (the entry lives as long as the uop). *)
val set : Uop.t -> Device.Buffer.t -> unit

(** Forgets the Buffer of a uop. *)
val remove : Uop.t -> unit

(** {1 Owned buffers}
    Not in tinygrad, whose refcount frees a Buffer with its last reference: the BUFFERs a realize made for
    its tensors, which the tensor layer releases once no live tensor reaches them. *)

(** Marks a BUFFER as a realize's output that only tensors hold. *)
val own : Uop.t -> unit

(** Whether the BUFFER is owned (made by a realize for its tensors, not yet released or disowned). *)
val is_owned : Uop.t -> bool

(** Leaves the BUFFER to the GC: something besides tensors holds it (a JIT's captured kernels). *)
val disown : Uop.t -> unit

(** Releases an owned BUFFER's memory into the allocator's cache ({!Device.Buffer.release}), on every device
    of a tuple; a later use of its Buffers raises. Does nothing to a BUFFER that is not owned. *)
val release : Uop.t -> unit

(** The device Buffers made for a BUFFER so far: its Buffer, or one per device of its tuple of devices. *)
val device_buffers : Uop.t -> Device.Buffer.t list

(** tinygrad [UOp.unique_num]: the next BUFFER number. *)
val unique_num : int ref

(** [new_buffer device size dtype]: a fresh BUFFER uop (1-d, [size] elements). tinygrad [UOp.new_buffer]. *)
val new_buffer : ?num:int -> string -> int -> Dtype.t -> Uop.t

(** The device of a node, if the graph determines one. tinygrad [UOp.device]. *)
val device : Uop.t -> string option

(** The whole device of a node (a tuple for a multi-device value). tinygrad [UOp.device]. *)
val mdevice : Uop.t -> Uop.device option

(** The node is on a tuple of devices. *)
val is_multi : Uop.t -> bool

(** No device or a weak dtype: nothing to store. tinygrad [UOp.is_virtual]. *)
val is_virtual : Uop.t -> bool

(** A RESHAPE/UNSHARD/MSELECT (and with [after_ok] AFTER) chain down to a BUFFER/PARAM. tinygrad [has_buffer_identity]. *)
val has_buffer_identity : ?after_ok:bool -> Uop.t -> bool

(** The BUFFER/PARAM a node stores to or reads. tinygrad [UOp.buf_uop]. *)
val buf_uop : Uop.t -> Uop.t

(** A bound Variable: [AFTER(var, STORE(var, CONST))]. tinygrad [UOp.is_bound_var]. *)
val is_bound_var : Uop.t -> bool

(** The Variable and the value of a bound Variable. tinygrad [UOp.unbind]. *)
val unbind : Uop.t -> Uop.t * int

(** [param_like slot u]: the PARAM standing for [u] in a call body. tinygrad [UOp.param_like]. *)
val param_like : int -> Uop.t -> Uop.t

(** [call body srcs]: [CALL(body, srcs...)] for an opaque body (SINK, PROGRAM, LINEAR, COPY, CUSTOM_FUNCTION)
    or with [ret_dtype]; else [FUNCTION(TUPLE(body), srcs...)] (a TUPLE body as it is), whose PARAMs of slot
    [i] stand for [srcs.(i)]. [Invalid_argument] for a range other than DEVICE open in [body]. CallInfo is
    not modelled: the arg is [No_arg]. tinygrad [UOp.call]. *)
val call : ?ret_dtype:Dtype.t -> Uop.t -> Uop.t list -> Uop.t

(** [gettuple u i]: output [i] of a FUNCTION or a TUPLE; [Invalid_argument] for another op.
    tinygrad [UOp.gettuple]. *)
val gettuple : Uop.t -> int -> Uop.t

(** RESHAPE, a no-op to the same shape. tinygrad [MovementMixin.reshape]. *)
val reshape : Uop.t -> Uop.sint list -> Uop.t

(** SHRINK to [(0, size)] on each axis, a no-op to the same shape. tinygrad [shrink_to]. *)
val shrink_to : Uop.t -> Uop.sint list -> Uop.t

(** A fresh BUFFER reshaped (and shrunk) to the shape. tinygrad [CreationMixin.empty]. *)
val empty : ?device:string -> Uop.sint list -> Dtype.t -> Uop.t

(** {!empty} on one device or a tuple of devices (one buffer of the shape on each). *)
val empty_on : Uop.device -> Uop.sint list -> Dtype.t -> Uop.t

(** {!new_buffer} on one device or a tuple of devices. tinygrad [UOp.new_buffer]. *)
val new_mbuffer : ?num:int -> Uop.device -> int -> Dtype.t -> Uop.t

(** {!empty} with the shape, strong dtype (or [dtype]) and device of the node; a sharded node gets an UNSHARD of a buffer of
    its shard's shape on each device. tinygrad [UOp.empty_like]. *)
val empty_like : ?dtype:Dtype.t -> Uop.t -> Uop.t

(** CONTIGUOUS unless already contiguous, virtual or a buffer. tinygrad [ElementwiseMixin.contiguous]. *)
val contiguous : ?tag:Uop.arg -> Uop.t -> Uop.t

(** A fresh BUFFER uop backed by this Buffer. tinygrad [UOp.from_buffer]. *)
val from_buffer : Device.Buffer.t -> Uop.t

(** The Buffer of a BUFFER (created, not allocated, on first use), of its reshapes and AFTERs, and of views already
    resolved by [Callify.buffer] (which resolves the others). tinygrad [UOp.buffer]. *)
val buffer : Uop.t -> Device.Buffer.t

(** The per-device Buffers of a BUFFER on a tuple of devices, made on first use. tinygrad [MultiBuffer.bufs]. *)
val multi_buffers : Uop.t -> Device.Buffer.t list

(** The Buffer of a BUFFER if it is allocated (the first device's of a multi-device BUFFER). tinygrad
    [UOp.realized]. *)
val realized : Uop.t -> Device.Buffer.t option

(** Whether the base of the node is realized. tinygrad [UOp.is_realized]. *)
val is_realized : Uop.t -> bool
