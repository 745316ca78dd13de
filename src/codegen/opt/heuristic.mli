(** tinygrad [codegen/opt/heuristic.py]: the hand-coded kernel optimizations, as tinygrad's stages. The CPU mode's
    heuristic ([Heuristic_cpu]) reuses them with its own upcast and threading stages. *)

(** [opt ?axis ?arg op]: the opt [Opt(op, axis, arg)]. *)
val opt : ?axis:int -> ?arg:Opt.opt_arg -> Opt.opt_ops -> Opt.t

(** [index_of_rng k r]: [k.rngs.index(r)]; raises [Opt.Kernel_opt_error] when [r] is not a range of [k]. *)
val index_of_rng : Postrange.t -> Uop.t -> int

(** [in_backward_slice x u]: [x] is in [u]'s backward slice (not [u] itself). *)
val in_backward_slice : Uop.t -> Uop.t -> bool

(** [full_shape_int k i]: axis [i] of [k]'s full shape as an int (a symbolic one at its max). *)
val full_shape_int : Postrange.t -> int -> int

(** tinygrad's "if there are small dims with lots of valid masks, upcast them" stage. *)
val masked_upcasts : Postrange.t -> unit

(** tinygrad's stride-based upcasts of output axes. *)
val output_upcasts : Postrange.t -> unit

(** tinygrad's unroll of a small(ish) last reduce axis. *)
val reduce_unrolls : Postrange.t -> unit

(** tinygrad's default upcast when nothing is upcast: by the first of [widths] (tinygrad's [[4]]) that divides. *)
val default_upcast : ?widths:int list -> Postrange.t -> unit

(** tinygrad's THREAD stage; [ops_per_point] (tinygrad's 1) is what a point of the shape counts for against its
    threshold of ops per thread. *)
val thread_opts : ?ops_per_point:int -> Postrange.t -> unit

(** [hand_coded_optimizations_with ~upcasts ~threads k]: tinygrad's [hand_coded_optimizations] with its
    upcast/unroll stage (returning the kernel to keep) and its threading stage given. *)
val hand_coded_optimizations_with :
  upcasts:(Postrange.t -> Postrange.t) -> threads:(Postrange.t -> unit) -> Postrange.t -> Postrange.t

(** [hand_coded_optimizations k]: a copy of [k] with tinygrad's heuristic opts applied (tensor cores, matvec,
    grouping, masked/stride upcasts, reduce unrolls, locals, THREAD). *)
val hand_coded_optimizations : Postrange.t -> Postrange.t
