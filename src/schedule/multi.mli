(** tinygrad: [schedule/multi.py] — the multi-device rewrite ([multi_pm]): UNSHARD values pushed through
    elementwise ops, reduces (an allreduce along the sharded axis), movement ops, copies and stores,
    broadcast copies expanded into MSTACKs, MSELECT/MSTACK resolved, a FUNCTION's body rewritten on its own
    ([rewrite_into_function], never precompiled); and the multi-device helpers tinygrad keeps on [UOp]. Not
    ported: [index_multi] (in-kernel fragments); ALLREDUCE is lowered by {!Allreduce.handle_allreduce} inside
    [multi_pm] (tinygrad's [LATE_ALLREDUCE=0]). *)

(** [mselect u i]: device [i]'s part of a multi-device value. tinygrad [UOp.mselect]. *)
val mselect : Uop.t -> int -> Uop.t

(** One value per device, as a multi-device value (the node itself for one source). tinygrad [UOp.mstack]. *)
val mstack : Uop.t list -> Uop.t

(** [allreduce u op device]: the reduction by [op] of every device's [u], on [device]. tinygrad [UOp.allreduce]. *)
val allreduce : Uop.t -> Ops.t -> Uop.device -> Uop.t

(** [shard_axis u axis rng]: the shard of [rng]'s device along [axis], a SHRINK whose offset depends on [rng];
    [Invalid_argument] when the axis does not divide evenly. tinygrad [UOp._shard]. *)
val shard_axis : Uop.t -> int -> Uop.t -> Uop.t

(** [shard u devices axis]: [u] copied to the devices, and split along [axis] (replicated when [None]).
    tinygrad [UOp.shard]. *)
val shard : Uop.t -> string list -> int option -> Uop.t

(** [copy_multi multi device]: a sharded value copied to one device (its shards concatenated) or to a tuple of
    devices (allreduced from its padded shards). tinygrad [copy_multi]. *)
val copy_multi : Uop.t -> Uop.device -> Uop.t

(** tinygrad [replace_allreduce]: broadcast copies to MSTACKs, a copy to one device from its first device, MSELECT
    through MSTACK and movement ops, SHRINK before MSTACK. *)
val replace_allreduce : unit Upat.matcher

(** tinygrad [multi_pm] (with [_early_allreduce] and [replace_allreduce] after it). *)
val multi_pm : unit Upat.matcher

(** [graph_rewrite sink multi_pm] (the graph itself when it holds no multi-device node). *)
val run : Uop.t -> Uop.t

(** tinygrad [get_kernel_graph]: {!run}, then {!Rangeify.get_kernel_graph}. *)
val get_kernel_graph : Uop.t -> Uop.t
