(** tinygrad: [schedule/rangeify.py] — the tensor graph to the kernel graph: earliest rewrites, movement ops on
    INDEX, removing needless buffers (the cost function), buffers for STAGE, and splitting into kernels
    ([get_kernel_graph]). Range propagation itself is [Indexing.run_rangeify]. Its first step,
    [multi_pm], is {!Multi.get_kernel_graph}'s (Multi builds on this module). Not ported: OPENPILOT_HACKS ([pm_fold_moved_after]), CONTIGUOUS
    args carrying Opts, FUNCTION's CallInfo (never precompiled). *)

(** tinygrad [_mop_index r idx]: push an INDEX through the movement op [r]. *)
val mop_index : Uop.t -> Uop.t -> Uop.t option

(** tinygrad [pm_mops]: movement ops on INDEX, and movement ops/INDEX moved after AFTER and END. *)
val pm_mops : unit Upat.matcher

(** {1 UOp helpers used here} *)

(** tinygrad [UOp.unsharded_base]. *)
val unsharded_base : Uop.t -> Uop.t

(** tinygrad [UOp.device], including STAGE (the device in its BufferizeOpts). *)
val device : Uop.t -> Uop.device option

(** [rop x op axis]: tinygrad [UOp._rop], a REDUCE over [axis] (reduced axes permuted to the front). *)
val rop : Uop.t -> Ops.t -> int list -> Uop.t

(** tinygrad [UOp.copy_to_device]: a COPY to the device; [mselect] copies that device's part of a multi-device
    value. *)
val copy_to_device : ?mselect:int -> Uop.t -> Uop.device -> Uop.t

(** tinygrad [pm_contiguous_view_offset] (uop/ops.py); the context is the viewed node. *)
val pm_contiguous_view_offset : Uop.t Upat.matcher

(** tinygrad [UOp.contiguous_view]: the buffer and element offset when the node is a contiguous range of it. *)
val contiguous_view : Uop.t -> (Uop.t * int) option

(** tinygrad [UOp.contiguous_view_offset]. *)
val contiguous_view_offset : Uop.t -> int option

(** {1 0. cleanup rewrites} *)

(** tinygrad [fix_store_hazard target src]: store a contiguous copy when [src] reads [target] reordered. *)
val fix_store_hazard : Uop.t -> Uop.t -> Uop.t option

(** tinygrad [split_reduceop reduce x]: split a big reduce into two kernels (knobs SPLIT_REDUCEOP and REDUCEOP_SPLIT_THRESHOLD / _SIZE). *)
val split_reduceop : Uop.t -> Uop.t -> Uop.t option

(** tinygrad [pm_gather_params]: collect the PARAMs with a slot into the list. *)
val pm_gather_params : Uop.t list ref Upat.matcher

(** tinygrad [resolve_function c]: inline a FUNCTION's body with its PARAMs replaced by the call's args. *)
val resolve_function : ?allow_param_mismatch:bool -> Uop.t -> Uop.t option

(** tinygrad [expand_bitcast]: a shape-changing BITCAST as shifts and casts through uints. *)
val expand_bitcast : Uop.t -> Uop.t option

(** tinygrad [earliest_rewrites]: mop_cleanup plus the function/copy/store/bitcast/size-0 rules. *)
val earliest_rewrites : unit Upat.matcher

(** {1 3.5 cleanups} *)

(** tinygrad [ALWAYS_RUN_OPS]. *)
val always_run_ops : Ops.t list

(** tinygrad [cleanup_dead_axes b]: drop STAGE axes the source does not use (reshape+expand back). *)
val cleanup_dead_axes : Uop.t -> Uop.t option

(** tinygrad [pm_gate_substitute], [Upat.substitute]'s extra rules: do not descend where none of the substituted
    ranges (the context's keys) is open. *)
val pm_gate_substitute : Uop.t Uop.Tbl.t Upat.matcher

(** tinygrad [remove_bufferize src buf idx]: the cost function; inline the STAGE into its INDEX when cheap. *)
val remove_bufferize : Uop.t -> Uop.t -> Uop.t -> Uop.t option

(** tinygrad [remove_noop_bufferize idx b2]. *)
val remove_noop_bufferize : Uop.t -> Uop.t -> Uop.t option

(** tinygrad [after_all_invalid]: every store of the AFTER writes Invalid over the whole buffer. *)
val after_all_invalid : Uop.t -> bool

(** tinygrad [pm_const_buffer_folding]. *)
val pm_const_buffer_folding : unit Upat.matcher

(** tinygrad [pm_remove_bufferize]. *)
val pm_remove_bufferize : unit Upat.matcher

(** tinygrad [strip_zero_offset_shrink]. *)
val strip_zero_offset_shrink : Uop.t -> Uop.t

(** tinygrad [no_indexing_calls]: strip INDEX / zero-offset SHRINK from CALL args. *)
val no_indexing_calls : Uop.t -> Uop.t option

(** tinygrad [pm_no_indexing_calls]. *)
val pm_no_indexing_calls : unit Upat.matcher

(** tinygrad [DEVICE_MAX_BUFS]. *)
val device_max_bufs : (string * int) list

(** tinygrad [LimitBufsContext]. *)
type limit_bufs_context = { buf_cache : Uop.t list Uop.Tbl.t; mutable range_idx : int }

(** tinygrad [_limit_bufs]: bufferize sources of an op that reads more buffers than the device allows. *)
val limit_bufs : limit_bufs_context -> Uop.t -> Uop.t option

(** tinygrad [pm_limit_bufs]. *)
val pm_limit_bufs : limit_bufs_context Upat.matcher

(** {1 4. buffers for STAGE} *)

(** tinygrad [bufferize_to_store ctx x idx]: a STAGE as BUFFER + STORE + END ([ctx]: the next buffer slot). *)
val bufferize_to_store : ?allow_locals:bool -> int ref -> Uop.t -> Uop.t -> Uop.t option

(** tinygrad [flatten_bufferize]: a STAGE with one flat index. *)
val flatten_bufferize : Uop.t -> Uop.t option

(** tinygrad [pm_flatten_bufferize]. *)
val pm_flatten_bufferize : unit Upat.matcher

(** tinygrad [is_noop_after_dep]. *)
val is_noop_after_dep : Uop.t -> bool

(** tinygrad [remove_noop_afters]. *)
val remove_noop_afters : Uop.t -> Uop.t option

(** tinygrad [pm_add_buffers] (context: the next buffer slot). *)
val pm_add_buffers : int ref Upat.matcher Lazy.t

(** {1 5. split into kernels} *)

(** tinygrad [LocalAddBufferContext]; [map] keeps insertion order in [map_order] (reversed). *)
type local_add_buffer_context = {
  mutable dg : int;
  map : Uop.t Uop.Tbl.t;
  mutable map_order : Uop.t list;
  mutable range : int;
  opts : Opt.t list option;
}

(** A fresh {!local_add_buffer_context}. *)
val new_local_ctx : unit -> local_add_buffer_context

(** tinygrad [debuf]: a buffer becomes a numbered PARAM (reshaped to its shape). *)
val debuf : local_add_buffer_context -> Uop.t -> Uop.t option

(** tinygrad [handle_after]: an AFTER becomes its buffer, remembered as a kernel argument. *)
val handle_after : local_add_buffer_context -> Uop.t -> Uop.t option

(** tinygrad [renumber_range]: tagged ranges renumbered from 0. *)
val renumber_range : local_add_buffer_context -> Uop.t -> Uop.t option

(** tinygrad [find_bufs]: fail on a buffer read through different ops (a cycle). *)
val find_bufs : Uop.t -> Uop.t option

(** tinygrad [to_define_global]. *)
val to_define_global : local_add_buffer_context Upat.matcher

(** tinygrad [get_contiguous]. *)
val get_contiguous : local_add_buffer_context -> Uop.t -> Uop.t option

(** tinygrad [rangeify_codegen]. *)
val rangeify_codegen : local_add_buffer_context Upat.matcher

(** tinygrad [pm_add_param_range_tags]: tag PARAMs and RANGEs with [()]. *)
val pm_add_param_range_tags : unit Upat.matcher

(** tinygrad [split_store]: a closed STORE/END becomes a CALL of a kernel SINK on its buffers. *)
val split_store : Uop.t -> Uop.t option

(** tinygrad [split_kernels]. *)
val split_kernels : unit Upat.matcher

(** tinygrad [convert_copy_to_store ctx copy]: a COPY as a store into a new (or the existing) buffer. *)
val convert_copy_to_store : ?existing_buf:Uop.t -> int ref -> Uop.t -> Uop.t option

(** tinygrad [pm_copy_to_store] (context: the next buffer slot). *)
val pm_copy_to_store : int ref Upat.matcher

(** {1 get_kernel_graph} *)

(** The passes of get_kernel_graph before run_rangeify: earliest rewrites, copy to store. *)
val kernel_graph_before_rangeify : Uop.t -> Uop.t

(** The passes of get_kernel_graph after run_rangeify: debuf, limit buffers, stage to store, split kernels. *)
val kernel_graph_after_rangeify : Uop.t -> Uop.t

(** tinygrad [get_kernel_graph]: the tensor-graph SINK as a SINK of kernel CALLs. *)
val get_kernel_graph : Uop.t -> Uop.t
