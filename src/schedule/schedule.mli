(** The scheduler's driver. tinygrad: [schedule/__init__.py] (create_schedule, lower_sink_to_linear, pm_schedule,
    resolve_linear_call, pm_copy_from_store, create_linear_with_vars). *)

(** tinygrad [_unwrap_src]: down to the AFTER / BUFFER / PARAM / MSELECT / MSTACK a kernel input reads. *)
val unwrap_src : Uop.t -> Uop.t

(** tinygrad [_split_after]: the kernels and the AFTER dependencies of an AFTER. *)
val split_after : Uop.t -> Uop.t list * Uop.t list

(** tinygrad [create_schedule]: a kernel graph (SINK of AFTERs) to a LINEAR of [CALL(kernel, buffers...)] in
    dependency order (read-after-write, write-after-read). *)
val create_schedule : Uop.t -> Uop.t


(** tinygrad [schedule_cache]: function SINK (hash-consed, so its structure) -> LINEAR; the table of the
    current CPU mode (not in tinygrad: {!Rangeify_cpu.enabled} changes the schedule). *)
val schedule_cache : unit -> Uop.t Uop.Tbl.t

(** tinygrad [lower_sink_to_linear]: a function SINK to its LINEAR (cached when SCACHE), with the kernel graph from
    [get_kernel_graph] ([Rangeify.get_kernel_graph]; tests pass hand-built kernel graphs); [None] for kernel SINKs. *)
val lower_sink_to_linear : get_kernel_graph:(Uop.t -> Uop.t) -> Uop.t -> Uop.t option

(** tinygrad [pm_schedule]; the context builds the kernel graph. *)
val pm_schedule : (Uop.t -> Uop.t) Upat.matcher

(** tinygrad [pm_post_sched_cache]: PARAMs to the call's args, internal BUFFERs to fresh ones. *)
val pm_post_sched_cache : (Uop.t Uop.Tbl.t * Uop.t array) Upat.matcher

(** tinygrad [resolve_linear_call]. *)
val resolve_linear_call : ?outer_binds:(string * Uop.t) list -> Uop.t -> Uop.t

(** tinygrad [pm_resolve_linear_call] (with [pm_flatten_linear]). *)
val pm_resolve_linear_call : unit Upat.matcher

(** tinygrad [pm_copy_from_store]: whole-buffer copy kernels across devices become COPY. *)
val pm_copy_from_store : unit Upat.matcher

(** tinygrad [create_linear_with_vars big_call]: the CALL from [Callify.transform_to_call] to the LINEAR to run
    and the Variable values. *)
val create_linear_with_vars :
  ?get_kernel_graph:(Uop.t -> Uop.t) -> Uop.t -> Uop.t * (string * int) list

(** [schedule_with_call ~apply_map big_sink]: tinygrad [Tensor.linear_with_vars] on a big SINK of tensor UOps, with
    the CALL ([transform_to_call]'s, its arguments the buffers the tensors see) and the becomes map: [(call,
    becomes_map, linear, var_vals)]. Fails on a weak dtype with a device, naming [op] (default ["realize"]). *)
val schedule_with_call :
  ?get_kernel_graph:(Uop.t -> Uop.t) -> ?op:string -> apply_map:((Uop.t * Uop.t) list -> unit) -> Uop.t ->
  Uop.t * (Uop.t * Uop.t) list * Uop.t * (string * int) list

(** tinygrad [Tensor.linear_with_vars]: [transform_to_call] of the tensors' UOps, [apply_map] of the buffer map
    (to the live tensors), then {!create_linear_with_vars}. Fails on a weak dtype with a device. *)
val linear_with_vars : ?get_kernel_graph:(Uop.t -> Uop.t) -> apply_map:((Uop.t * Uop.t) list -> unit) -> Uop.t list -> Uop.t * (string * int) list

(** tinygrad [Tensor.realize]'s filter: not virtual and not already a buffer. *)
val needs_realize : Uop.t -> bool
