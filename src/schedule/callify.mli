(** Callify: a tensor graph to a CALL UOp with all state scoped. tinygrad: [tensor.py] (AllocCtx, add_tags,
    pm_early_transform_tensor_graph, finalize_after, pm_finalize_call, pm_replace_buf, transform_to_call,
    _apply_map_to_tensors). Precompiled FUNCTIONs, DISK and multi-device rules are not ported. *)

(** tinygrad [AllocCtx]: numbered uops, the buffer map, realize bases, assigns, call args, buffer views. *)
type alloc_ctx

(** tinygrad [add_tags]: number CONTIGUOUS, AFTER, copies from host and the realize bases. *)
val add_tags : alloc_ctx Upat.matcher

(** tinygrad [pm_contiguous_view_offset] (uop/ops.py); the context is the viewed node. *)
val pm_contiguous_view_offset : Uop.t Upat.matcher

(** tinygrad [UOp.contiguous_view]: the BUFFER and element offset when the node is a contiguous range of it. *)
val contiguous_view : Uop.t -> (Uop.t * int) option

(** The Buffer of a BUFFER, of its reshapes and AFTERs, and of a contiguous view of it (a Buffer view at the
    view's offset, recorded in [Buffers]); [op] (["buffer"]) names the caller when the view is not contiguous.
    tinygrad [UOp.buffer]. *)
val buffer : ?op:string -> Uop.t -> Device.Buffer.t

(** The Buffer of each device of a node: a multi-device BUFFER's (tinygrad [MultiBuffer.bufs]), an MSELECT's
    pick, an MSTACK's per-device buffers, views of those; [[buffer u]] for a single-device node. *)
val device_buffers : ?op:string -> Uop.t -> Device.Buffer.t list

(** tinygrad [pm_early_transform_tensor_graph]: tagged nodes get CONTIGUOUS, CONTIGUOUS becomes STORE+AFTER. *)
val pm_early_transform_tensor_graph : alloc_ctx Upat.matcher

(** tinygrad [pm_finalize_call]: record assigns and the buffer map. *)
val pm_finalize_call : alloc_ctx Upat.matcher

(** tinygrad [pm_replace_buf]: BUFFERs, buffer views and bound Variables become PARAMs (call args). *)
val pm_replace_buf : alloc_ctx Upat.matcher

(** tinygrad [transform_to_call big_sink]: [CALL(SINK(assigns), buffers...)] and the map from as-built tensor
    nodes to their storage. *)
val transform_to_call : Uop.t -> Uop.t * (Uop.t * Uop.t) list

(** tinygrad [_apply_map_to_tensors]: substitute the map into every tensor (read with [get], written with
    [set]) whose graph reaches one of its keys. *)
val apply_map_to_tensors : get:('a -> Uop.t) -> set:('a -> Uop.t -> unit) -> 'a list -> (Uop.t * Uop.t) list -> unit

(** The nodes the walks of {!apply_map_to_tensors} for the tensors in scope visited so far. A node found
    not to reach a key is not walked again while the maps name the same keys. *)
val apply_map_walked : unit -> int
