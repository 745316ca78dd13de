(** Movement-op cleanup rules. tinygrad: [uop/movement.py]. *)

(** tinygrad's [mop_cleanup]: merge/remove RESHAPEs and PERMUTEs, fold STACK/INDEX pairs. *)
val mop_cleanup : unit Upat.matcher
