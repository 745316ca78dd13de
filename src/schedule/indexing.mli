(** Range propagation: the definition of the movement ops on index ranges and [run_rangeify], which gives
    every node of the tensor graph its loop ranges (consumer to producer) and decides what is realized.
    tinygrad: [schedule/indexing.py]. *)

(** A movement op's argument, as {!Uop.marg} returns it. *)
type marg =
  [ `Shape of Uop.sint list | `Pairs of (Uop.sint * Uop.sint) list | `Perm of int list | `Flip of bool list ]

(** tinygrad [_apply_reshape in_shape out_shape urngs]: the input indices (a SINK) of a reshape given the
    output ones. *)
val apply_reshape : Uop.sint list -> Uop.sint list -> Uop.t -> Uop.t

(** tinygrad [apply_movement_op op in_shape arg rngs]: the source indices of a movement op given its output
    indices. *)
val apply_movement_op : Ops.t -> Uop.sint list -> marg -> Uop.t list -> Uop.t list

(** Empties the caches of {!apply_reshape} and {!apply_movement_op} (tinygrad's [functools.cache]s; their
    entries also die with the index UOps they are keyed by). *)
val clear_caches : unit -> unit

(** {1 run_rangeify} *)

(** tinygrad [PCONTIG] (partial contiguous in rangeify, default 0). *)
val pcontig : int Helpers.context_var

(** tinygrad [DEBUG_RANGEIFY] (print the range of every node in run_rangeify, default 0). *)
val debug_rangeify : int Helpers.context_var

(** tinygrad [IndexingContext]: what to realize ([None]: not decided; [Some axes]: the realized axes), the
    realizes that must not be removed, each node's (input ranges, output ranges), and the range counter. *)
type indexing_context = {
  realize_map : int list option Uop.Tbl.t;
  non_removable : unit Uop.Tbl.t;
  range_map : (Uop.t list * Uop.t list) Uop.Tbl.t;
  mutable range_idx : int;
}

(** An empty {!indexing_context}. *)
val create_context : unit -> indexing_context

(** tinygrad [IndexingContext.new_range s axistype]: a new RANGE over [s] (a RANGE [s] itself; CONST 0 when
    [s] is 1). *)
val new_range : ?axis_type:Uop.axis_type -> indexing_context -> Uop.sint -> Uop.t

(** tinygrad [ALWAYS_CONTIGUOUS]: ops whose value is already in memory. *)
val always_contiguous : Ops.t list

(** tinygrad [broadcast_axes src_shape out_shape]: the out axes that are added or expanded. *)
val broadcast_axes : Uop.sint list -> Uop.sint list -> int list

(** tinygrad [gate_kernel_sink]: false on LINEAR and kernel SINKs (toposort does not enter them). *)
val gate_kernel_sink : Uop.t -> bool

(** tinygrad [realize ctx tr]: mark [tr] to be realized. *)
val realize : indexing_context -> Uop.t -> unit

(** tinygrad [realize_srcs ctx rb]: mark the sources of [rb] that are not always contiguous. *)
val realize_srcs : indexing_context -> Uop.t -> unit

(** tinygrad [realize_store_after_src ctx dest src]: realize the stored value if it reads the destination. *)
val realize_store_after_src : indexing_context -> Uop.t -> Uop.t -> unit

(** tinygrad [realize_custom_kernel_srcs ctx c]: realize (not removably) the inputs of a custom kernel
    CALL. *)
val realize_custom_kernel_srcs : indexing_context -> Uop.t -> unit

(** tinygrad [pm_generate_realize_map]: fills the context's realize map (never rewrites). *)
val pm_generate_realize_map : indexing_context Upat.matcher

(** tinygrad [broadcast_rngs x src rngs]: the ranges [src] sees when [x] broadcasts it (broadcast axes
    become 0). *)
val broadcast_rngs : Uop.t -> Uop.t -> Uop.t list -> Uop.t list

(** tinygrad [data_srcs op src]: the sources that carry data (not shapes, bounds or ranges). *)
val data_srcs : Ops.t -> Uop.t array -> Uop.t list

(** tinygrad [create_bufferize_and_index_srcs ctx x]: [x]'s sources, buffers indexed and realized ones
    wrapped in STAGE (or END for a STORE) and indexed. *)
val create_bufferize_and_index_srcs : indexing_context -> Uop.t -> Uop.t list

(** tinygrad [create_bufferize_and_index_based_on_ranges ctx x]: [x] with those sources (not for
    STAGE/INDEX). *)
val create_bufferize_and_index_based_on_ranges : indexing_context -> Uop.t -> Uop.t option

(** tinygrad [convert_pad_to_where_to_keep_behavior_local]: a ranged PAD becomes a WHERE on its valids. *)
val convert_pad_to_where_to_keep_behavior_local : indexing_context -> Uop.t -> Uop.t option

(** tinygrad [convert_reduce_to_reduce_with_ranges]: REDUCE(op, n axes) becomes REDUCE(op, 0) over ranges. *)
val convert_reduce_to_reduce_with_ranges : indexing_context -> Uop.t -> Uop.t option

(** tinygrad [convert_stack_to_where]: a data STACK becomes a WHERE chain on its leading range. *)
val convert_stack_to_where : indexing_context -> Uop.t -> Uop.t option

(** tinygrad [remove_movement_op_after_rangeify]: drops a movement op once its ranges are applied. *)
val remove_movement_op_after_rangeify : indexing_context -> Uop.t -> Uop.t option

(** tinygrad [pm_apply_rangeify]: rewrites the tensor graph to ranges, STAGEs and INDEXes (bottom up). *)
val pm_apply_rangeify : indexing_context Upat.matcher

(** tinygrad [pm_fix_deviceless]: a GLOBAL STAGE without a device gets the context device. *)
val pm_fix_deviceless : Uop.device option Upat.matcher

(** tinygrad [render_ranges *rngs_list realized]: the debug text of lists of ranges, realized axes in
    yellow. *)
val render_ranges : ?realized:int list -> Uop.t list list -> string

(** tinygrad [run_rangeify tsink debug]: the tensor graph with movement ops replaced by ranges and the
    realized nodes wrapped in STAGE (the fusion decision). [~debug:true] prints every node's ranges. *)
val run_rangeify : ?debug:bool -> Uop.t -> Uop.t
