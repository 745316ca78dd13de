(** The Tensor's representation and the live-tensor registry, for the library modules that build on Tensor
    ({!Nn}, {!Optim}, {!State}, {!Tiny_jit}, {!Datasets}, the tests). Users see {!Tensor.t}, which is this
    abstract [t]; the accessors that change a tensor in place live here, not in {!Tensor}.
    tinygrad: [tensor.py] ([Tensor.__init__], [all_tensors], [_apply_uop], [_apply_map_to_tensors]). *)

(** A tensor: its UOp (replaced when realized), its gradient, whether an optimizer treats it as a parameter. *)
type t

(** {1 Fields} *)

(** The tensor's UOp. tinygrad [Tensor.uop]. *)
val uop : t -> Uop.t

(** Replaces the tensor's UOp (realize, assign, state loading). *)
val set_uop : t -> Uop.t -> unit

(** The gradient filled by [backward]. tinygrad [Tensor.grad]. *)
val grad : t -> t option

(** Sets (or clears) the gradient. tinygrad [t.grad = ...]. *)
val set_grad : t -> t option -> unit

(** Whether an optimizer updates it (true unless marked a buffer, e.g. BatchNorm's running statistics). *)
val is_param : t -> bool

(** Marks the tensor as a parameter or a buffer. *)
val set_is_param : t -> bool -> unit

(** {1 Live tensors} *)

(** The live tensors, in creation order: handles on them, new ones or the program's own (a tensor's handles
    share its UOp, gradient and flags). A tensor leaves when the GC has found every handle on it unreachable.
    tinygrad [all_tensors]. *)
val all_tensors : unit -> t list

(** The live tensors whose UOp satisfies the predicate, in creation order (handles, as {!all_tensors}).
    *)
val live_tensors_with : (Uop.t -> bool) -> t list

(** Whether two handles are on one tensor (Python's [is] on tensors): {!all_tensors} may give new handles, so
    physical equality does not tell. *)
val same : t -> t -> bool

(** A registered tensor around a UOp; its shape is computed so a broadcast mismatch raises now, naming [op].
    tinygrad [Tensor._apply_uop]. *)
val wrap : ?op:string -> Uop.t -> t

(** Substitutes the map into every live tensor that reaches one of its keys. tinygrad [_apply_map_to_tensors]. *)
val apply_map_to_tensors : (Uop.t * Uop.t) list -> unit

(** {1 Buffer lifetimes}
    Not in tinygrad, whose refcount frees a buffer with its last reference: a realize's outputs are owned by
    the tensors ({!Buffers.own}) and released into the allocator's cache by the realize after the last
    tensor over them was dropped or replaced, not when the GC finds their memory. *)

(** Releases the owned BUFFERs that tensors let go of (dropped handles, UOps replaced by a realize or an
    assign) and that no live tensor reaches. Run before a realize schedules. *)
val release_unreached : unit -> unit

(** [own_outputs ~big_sink xs]: the BUFFERs under the realized tensors [xs] that the realize of [big_sink]
    made become owned; a big one, or a quarter of the minor heap allocated since the registry's last minor
    collection, has the next {!wrap} run a minor collection first, which finds the handles dropped young
    since. *)
val own_outputs : big_sink:Uop.t -> t list -> unit

(** [named op f]: runs [f], putting ["op: "] in front of an [Invalid_argument] message that does not start with
    it, so an error raised below the public op still names it. *)
val named : string -> (unit -> 'a) -> 'a

(** {1 Small library tensors} *)

(** A lazy COPY of a UOp to [device], padded to its max shape and shrunk back. tinygrad [UOp.copy_to_device]. *)
val copy_to_device : Uop.t -> string -> Uop.t

(** [Tensor(list, device, dtype)] for small library tensors: a PYTHON-device buffer copied lazily to [device]. *)
val from_py_ints : device:string -> Dtype.t -> int array -> t

(** [Tensor(list, device, dtype)] of floats, as {!from_py_ints} (nn/optim.py's learning-rate tensor). *)
val from_py_floats : device:string -> Dtype.t -> float array -> t
