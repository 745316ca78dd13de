(** Not in tinygrad: the CPU mode (CPU_OPT=fast on the CPU) as the passes of the kernel pipeline that depart from
    tinygrad's. [Codegen] asks [Renderer.cpu_fast] once per kernel and runs {!fast} or {!tinygrad}. *)

(** [gate_reduce_loops sink]: a sum masked by a condition that its loops do not change, WHERE(g, REDUCE(x, r..), 0),
    becomes a sum whose loops run only where g holds (each RANGE's end is WHERE(g, n, 0)); a sum of several lanes
    runs its loops where any lane's gate holds and keeps the WHERE. *)
val gate_reduce_loops : Uop.t -> Uop.t

(** The CPU mode's knobs ([CPU_VEC], [CPU_OPT]) as a string, for the program cache key. *)
val config : unit -> string

(** The passes in which a kernel's pipeline may depart from tinygrad's. *)
type passes = {
  hand_coded : Postrange.t -> Postrange.t;  (** the heuristic of [apply_opts] *)
  loop_opts : bool;  (** [apply_opt] takes SWAP of two CPU loops and BLOCK *)
  before_reduces : Uop.t -> Uop.t;  (** run before the reduces are removed *)
  vector_acc : int list option;  (** the float32 lengths of vector accumulators, if a reduce may keep them *)
  coalescing : Coalesce.policy option;  (** the policy of [memory_coalescing] *)
}

(** tinygrad's passes. *)
val tinygrad : passes

(** The CPU mode's passes for a renderer, its stages in pipeline order. *)
val fast : Renderer.t -> passes
