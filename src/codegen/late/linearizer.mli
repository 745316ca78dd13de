(** Linearization of the kernel graph. tinygrad: [codegen/late/linearizer.py]. *)

(** tinygrad's [linearize]: a toposort of the sink with priorities (params first, loads early, stores late,
    inner loops later). *)
val linearize : Uop.t -> Uop.t list

(** tinygrad's [CFGContext]: for each RANGE, the END (or RANGE) it must come after. *)
type cfg_context

(** Build the control-flow edges of a sink. *)
val cfg_context : Uop.t -> cfg_context

(** tinygrad's [pm_add_control_flow]: add the control-flow edge as an extra source of each RANGE. *)
val pm_add_control_flow : cfg_context Upat.matcher

(** tinygrad's [do_split_ends]: an END of several ranges becomes nested single-range ENDs (innermost first). *)
val do_split_ends : Uop.t -> Uop.t

(** tinygrad's [pm_split_ends]. *)
val pm_split_ends : unit Upat.matcher
