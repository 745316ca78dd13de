(** Not in tinygrad: the CPU mode (CPU_OPT=fast on the CPU) as the passes of the kernel pipeline that depart from
    tinygrad's. [Codegen] asks [Renderer.cpu_fast] once per kernel and runs {!fast} or {!tinygrad}. *)

(** [gate_reduce_loops sink]: a sum masked by a condition that its loops do not change, WHERE(g, REDUCE(x, r..), 0),
    becomes a sum whose loops run only where g holds (each RANGE's end is WHERE(g, n, 0)); a sum of several lanes
    runs its loops where any lane's gate holds and keeps the WHERE. *)
val gate_reduce_loops : Uop.t -> Uop.t

(** [broadcast_gated_loads sink]: in a sum kept where a gate over upcast lanes holds,
    WHERE(g, REDUCE(x, r..), 0), a load gated by clauses of g whose index, folded under its gate, does not
    vary over the gate's lanes loads where its gate holds in any of those lanes (one gate for the lanes: no
    select per lane); one whose folded index varies over them keeps its gate and takes the folded index. *)
val broadcast_gated_loads : Uop.t -> Uop.t

(** How a REDUCE becomes an accumulator, given [accumulate ~vector_acc shape input] (tinygrad's REG
    accumulator of [shape] updated with [input] over the reduce's loops, the buffer marked [vector_acc] when
    asked): [None] leaves it to tinygrad's [reduce_ranges_to_acc]. *)
type reduce_to_acc = accumulate:(vector_acc:bool -> int list -> Uop.t -> Uop.t) -> Uop.t -> Uop.t option

(** [reduce_to_vector_acc lengths]: a reduce over loop ranges with unrolled axes keeps its unrolled lanes in
    vector accumulators (of the float32 [lengths]) and folds them horizontally once, after the loop; a
    register tile (upcast outputs, no unrolled axis) keeps one vector accumulator per row of its unit-stride
    lanes (one axis, or two that make one row whose inner axis is a whole vector: a row upcast as 3 x 8). *)
val reduce_to_vector_acc : int list -> reduce_to_acc

(** [fuse_reciprocal a b]: whether a*(1/b) becomes a/b in the late decompositions: not where b is computed
    outside a loop that a runs in (the reciprocal is then computed once, outside the loop). *)
val fuse_reciprocal : Uop.t -> Uop.t -> bool

(** [decomp_exp2 ops force]: where tinygrad's transcendental rules decompose EXP2 (not in [ops], or [force]),
    float32 EXP2 as {!Transcendental.xexp2_clamped}, to be placed before them; else no rules. *)
val decomp_exp2 : Ops.t list -> bool -> unit Upat.matcher

(** The symbolic pass before coalescing: tinygrad's rules, then [x < c] folded to [x/d < ceil(c/d)] where
    every term of [x] has the factor [d > 1] and none is a constant (tinygrad's [lt_folding] divides only
    where [d] divides [c]), so that the lanes of a tile threaded over a padded axis share their gates. *)
val early_symbolic : unit Upat.matcher Lazy.t

(** The CPU mode's knobs ([CPU_VEC], [CPU_OPT]) as a string, for the program cache key. *)
val config : unit -> string

(** The passes in which a kernel's pipeline may depart from tinygrad's. *)
type passes = {
  hand_coded : Postrange.t -> Postrange.t;  (** the heuristic of [apply_opts] *)
  multiblock : (Postrange.t -> Postrange.t) option;  (** the heuristic of a kernel with a STAGE *)
  loop_opts : bool;  (** [apply_opt] takes SWAP of two CPU loops and BLOCK *)
  before_expander : Uop.t -> Uop.t;  (** run before the expander *)
  before_reduces : Uop.t -> Uop.t;  (** run before the reduces are removed *)
  reduce_to_acc : reduce_to_acc option;  (** the accumulators tried before tinygrad's *)
  fuse_reciprocal : (Uop.t -> Uop.t -> bool) option;  (** whether a*(1/b) becomes a/b (tinygrad: always) *)
  decomps : Ops.t list -> bool -> unit Upat.matcher;  (** rules before tinygrad's transcendental ones *)
  coalescing : Coalesce.policy option;  (** the policy of [memory_coalescing] *)
  early_symbolic : unit Upat.matcher;  (** the rules of the symbolic pass before [memory_coalescing] *)
  before_linearize : Uop.t -> Uop.t;  (** run on the rewritten kernel, before it is linearized *)
}

(** tinygrad's passes. *)
val tinygrad : passes

(** The CPU mode's passes for a renderer, its stages in pipeline order. *)
val fast : Renderer.t -> passes
