(** Gates of Invalid-indexed loads and stores. tinygrad: [codegen/late/gater.py]. *)

(** tinygrad's [UOp.vconst_like]: a CONST of the node's dtype broadcast (STACK) to its element count. *)
val vconst_like : Uop.t -> Dtype.const -> Uop.t

(** tinygrad's [pm_move_gates_from_index]: [INDEX(buf, gate.where(idx, Invalid))] loads become gated loads
    with a 0 alt value, stores become gated stores, and a WHERE around a gated load folds into its alt. *)
val pm_move_gates_from_index : unit Upat.matcher
