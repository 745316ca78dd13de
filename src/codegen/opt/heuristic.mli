(** tinygrad [codegen/opt/heuristic.py]: the hand-coded kernel optimizations. Linking this module sets
    [Postrange.hand_coded_optimizations_hook]. *)

(** [hand_coded_optimizations k]: a copy of [k] with tinygrad's heuristic opts applied (tensor cores, matvec, grouping,
    masked/stride upcasts, reduce unrolls, locals, THREAD). *)
val hand_coded_optimizations : Postrange.t -> Postrange.t
