(** The kernel Scheduler: opt axes after rangeify, kernel naming and opt application.
    tinygrad: [codegen/opt/postrange.py]. The heuristic is in [Heuristic], BEAM in [Search]. *)

(** tinygrad [Scheduler]: the AST being optimized and its opt state. *)
type t = {
  mutable ast : Uop.t;
  ren : Renderer.t;
  mutable loop_opts : bool;
      (** not in tinygrad: [apply_opt] takes SWAP of two CPU loops, BLOCK and OVERLAP (CPU mode opts) *)
  mutable dont_use_locals : bool;
  mutable applied_opts : Opt.t list;
  mutable opt_range : int;  (** the next value of tinygrad's [count] of new range ids *)
  mutable tensor_core : Tc.t option;  (** the tensor core TC picked *)
}

(** [Scheduler(ast, ren)]; [loop_opts] false unless given. *)
val create : ?loop_opts:bool -> Uop.t -> Renderer.t -> t

(** [Scheduler.copy]. *)
val copy : t -> t

(** The opt axes: non-void RANGEs with size > 1 and not DEVICE, sorted by (axis position, ids). *)
val rngs : t -> Uop.t list

(** [len(rngs)]. *)
val shape_len : t -> int

(** The (simplified) sizes of [rngs]. *)
val full_shape : t -> Uop.sint list

(** The axis types of [rngs]. *)
val axis_types : t -> Uop.axis_type list

(** Axis names like ["g0"; "R0"; "u1"]. *)
val shape_str : t -> string list

(** Positions of named axes (raises [Not_found]). *)
val shape_str_to_axis : t -> string list -> int list

(** The REDUCEs of the AST. *)
val reduceops : t -> Uop.t list

(** A copy of the first REDUCE (fresh node), if any. *)
val reduceop : t -> Uop.t option

(** The INDEX nodes, in reverse toposort order. *)
val bufs : t -> Uop.t list

(** tinygrad [_output_rngs]: non-REDUCE ranges closed by the SINK's ENDs. *)
val output_rngs : t -> Uop.t list

(** tinygrad [_globalizable_rngs]: output WEAK ranges present in every STAGE. *)
val globalizable_rngs : t -> Uop.t list

(** tinygrad [convert_loop_to_global]: globalizable ranges become GLOBAL when the renderer has locals. *)
val convert_loop_to_global : t -> unit

(** The color of each axis in kernel names. *)
val colors : t -> string list

(** The colored shape for messages. *)
val colored_shape : t -> string

(** tinygrad [get_optimized_ast]: name the kernel ("E_..."/"r_..." with colors), flatten ranges, tag the SINK. *)
val get_optimized_ast : ?name_override:string -> t -> Uop.t

(** tinygrad [shift_to]: split [rng] by [amount] into a new range of type [new_type]; returns (replaced, new). *)
val shift_to : ?top:bool -> ?input_new_rng:Uop.t -> t -> Uop.t -> int -> Uop.axis_type -> Uop.t * Uop.t

(** The ranges of the given axis types. *)
val ranges_of : t -> Uop.axis_type list -> Uop.t list

(** The axis positions of the given axis types. *)
val axes_of : t -> Uop.axis_type list -> int list

(** Product of the UPCAST/UNROLL sizes. *)
val upcast_size : t -> int

(** Axes that can be upcast (GLOBAL/LOCAL/WEAK, int size > 1). *)
val upcastable_dims : t -> int list

(** Axes that can be unrolled (GROUP_REDUCE/REDUCE, int size > 1). *)
val unrollable_dims : t -> int list

(** [full_shape] with reduce axes set to 1. *)
val output_shape : t -> Uop.sint list

(** Number of UPCAST/UNROLL axes. *)
val upcasted : t -> int

(** Number of GROUP_REDUCE axes. *)
val group_for_reduces : t -> int

(** tinygrad [real_axis]: the axis an opt acts on (-1 for none); raises [Opt.Kernel_opt_error]. *)
val real_axis : t -> Opt.opt_ops -> int option -> int

(** tinygrad [ops.remove_all_tags]. *)
val remove_all_tags : unit Upat.matcher

(** tinygrad [apply_opt]; raises [Opt.Kernel_opt_error] when the opt does not apply (TC: when no tensor core of the renderer applies). *)
val apply_opt : ?append_opt:bool -> t -> Opt.t -> (Uop.t * Uop.t) option

(** [apply_opt] of [Opt(TC, axis, (tc_select, tc_opt, use_tensor_cores))], returning the tensor-core ranges;
    raises [Opt.Kernel_opt_error] (always on renderers without tensor cores). *)
val apply_tc : ?append_opt:bool -> t -> int -> int * int * int -> Uop.t list

(** An int sint, or the max of a symbolic one. *)
val sint_int : Uop.sint -> int

(** [hand_coded ~heuristic ?multiblock k]: a copy of [k] with the heuristic ([hand_coded_optimizations])
    applied, as [apply_opts] applies it; a kernel with a STAGE gets [multiblock]'s opts, none without it
    (tinygrad's heuristic does not support multiblock opts). *)
val hand_coded : heuristic:(t -> t) -> ?multiblock:(t -> t) -> t -> t

(** [beam_search k amt], set by [Search] when linked. tinygrad has the same cycle (postrange.py imports search.py
    inside [apply_opts], search.py imports the codegen that calls it); a hook breaks it here. *)
val beam_search_hook : (t -> int -> t) ref

(** tinygrad [apply_opts ast ren beam]: the NOOPT / opts_to_apply paths, then [get_optimized_ast]. [hand_coded]: the
    heuristic (tinygrad imports [hand_coded_optimizations]); [loop_opts]: the scheduler's (Codegen.passes);
    [multiblock]: the heuristic of a kernel with a STAGE (see [hand_coded]). *)
val apply_opts :
  ?loop_opts:bool -> ?multiblock:(t -> t) -> Uop.t -> Renderer.t -> beam:int -> hand_coded:(t -> t) -> Uop.t
