(** tinygrad: [schedule/rangeify.py]. For now only [pm_mops], which the kernel pipeline uses; the scheduler part
    of rangeify.py comes with issue 4. *)

(** tinygrad [_mop_index r idx]: push an INDEX through the movement op [r]. *)
val mop_index : Uop.t -> Uop.t -> Uop.t option

(** tinygrad [pm_mops]: movement ops on INDEX, and movement ops/INDEX moved after AFTER and END. *)
val pm_mops : unit Upat.matcher
