(** The movement ops on index ranges. tinygrad: [schedule/indexing.py] (only [apply_movement_op] and
    [_apply_reshape] for now; run_rangeify comes with the scheduler, issue 4). *)

(** A movement op's argument, as {!Uop.marg} returns it. *)
type marg = [ `Shape of Uop.sint list | `Pairs of (Uop.sint * Uop.sint) list | `Perm of int list | `Flip of bool list ]

(** tinygrad [_apply_reshape in_shape out_shape urngs]: the input indices (a SINK) of a reshape given the output ones. *)
val apply_reshape : Uop.sint list -> Uop.sint list -> Uop.t -> Uop.t

(** tinygrad [apply_movement_op op in_shape arg rngs]: the source indices of a movement op given its output indices. *)
val apply_movement_op : Ops.t -> Uop.sint list -> marg -> Uop.t list -> Uop.t list
