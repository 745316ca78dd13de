(** Symbolic simplification rules. tinygrad: [uop/symbolic.py].

    Phase 1 ([symbolic_simple]) holds the generic folding rules, phase 2 ([symbolic]) the deeper index
    rules and div/mod folding, phase 3 ([sym]) adds valid simplification, load/store folding and the
    opinionated term rewrites. Linking this module sets [Uop.simplify_hook] to a [symbolic] rewrite,
    as tinygrad's [UOp.simplify] does. *)

(** tinygrad's [xpow] (from codegen/decomp/transcendental.py): [base ** exponent] through exp2/log2 with
    the sign, nan and zero-exponent cases. *)
val xpow : Uop.t -> Uop.t -> Uop.t

(** tinygrad's [simplify_pow]: [x ** c] for a constant exponent, as reciprocals, sqrt and products. *)
val simplify_pow : Uop.t -> Uop.t -> Uop.t option

(** tinygrad's [fold_const_alu]: evaluate an ALU over CONSTs (and STACKs of CONSTs) with [exec_alu]. *)
val fold_const_alu : Uop.t -> Uop.t option

(** tinygrad's [fold_add_divmod_recombine]: [(x%c)*m + (x//c)*(c*m)] and its partial forms recombine. *)
val fold_add_divmod_recombine : Uop.t -> Uop.t option

(** tinygrad's [pm_data_invalid]: Invalid poisons values; ALUs move inside the valid gate. *)
val pm_data_invalid : unit Upat.matcher

(** tinygrad's [pm_remove_invalid]: replace Invalid by 0 once the gates are consumed. *)
val pm_remove_invalid : unit Upat.matcher

(** Phase 1: the most generic folding rules (with [pm_data_invalid] first and [mop_cleanup] last). *)
val symbolic_simple : unit Upat.matcher

(** tinygrad's [lt_folding]: [x < c] divided through by the gcd of the non-unit terms. *)
val lt_folding : Uop.t -> Z.t -> Uop.t option

(** tinygrad's [canonicalize_simplex]: drop positive coefficients from a sum of non-negative irreducibles. *)
val canonicalize_simplex : Uop.t -> Uop.t option

(** Canonical operand order of commutative index ops, by tinygrad's [UOp.tuplize]. *)
val commutative : unit Upat.matcher

(** tinygrad's [fold_where_closure]: inside [cond.where(t, f)], cond is True in [t] and False in [f]. *)
val fold_where_closure : Uop.t -> Uop.t -> Uop.t -> Uop.t option

(** Phase 2: [symbolic_simple + commutative + ... + div_and_mod_symbolic]; what [UOp.simplify] uses. *)
val symbolic : unit Upat.matcher

(** [with_simplify_cache f] runs [f] with the results of [Uop.simplify] kept from one call to the next (not in
    tinygrad, same results): [symbolic] is a pure rewrite, so a node simplified once takes its known form when a
    later call meets it again. Nested scopes share the outer one's results; they are dropped when [f] returns. *)
val with_simplify_cache : (unit -> 'a) -> 'a

(** tinygrad's [parse_valid]: [X <= c] is [(X, true, c)], [X >= c] is [(X, false, c)]. *)
val parse_valid : Uop.t -> (Uop.t * bool * Z.t) option

(** Not in tinygrad: [hiding_computed_ranges rngs f u] is [f u] with each RANGE among [rngs] whose end depends on other
    ranges (Codegen.gate_reduce_loops) standing in as the plain loop of its axis over its largest count, put back after:
    a rewrite that knows a fact at one use must not rewrite such a loop's end (a second RANGE of the axis, a loop
    rendered twice). [f u] when there is none. *)
val hiding_computed_ranges : Uop.t list -> (Uop.t -> Uop.t) -> Uop.t -> Uop.t

(** tinygrad's [uop_given_valid]: simplify a UOp knowing that [valid] holds (bounds become fake variables). Not in
    tinygrad: a RANGE whose end depends on other ranges (Codegen.gate_reduce_loops) keeps its end, which the valid
    does not rewrite (it stands in as the plain loop of its axis meanwhile); tinygrad's range ends depend on no
    range. *)
val uop_given_valid : ?try_simplex:bool -> Uop.t -> Uop.t -> Uop.t

(** tinygrad's [simplify_valid]: simplify each clause of an AND given the others. *)
val simplify_valid : Uop.t -> Uop.t option

(** tinygrad's [reduce_mul_chain]: factors that do not depend on the reduce ranges move after the REDUCE. *)
val reduce_mul_chain : Uop.t -> Uop.t option

(** tinygrad's [drop_and_clauses]: drop gate clauses whose ranges the gated value does not use. *)
val drop_and_clauses : Uop.t -> Uop.t -> Uop.t -> Uop.t option

(** [invalid_gate] rewritten with [drop_and_clauses]. *)
val pm_drop_and_clauses : unit Upat.matcher

(** tinygrad's [where_on_load]: move where-conditions into the load's valid. *)
val where_on_load : Uop.t -> Uop.t -> Uop.t -> Uop.t -> Uop.t option

(** tinygrad's [pm_move_where_on_load]. *)
val pm_move_where_on_load : unit Upat.matcher

(** tinygrad's [gated_given_valid]: simplify gated index math given its gate. *)
val gated_given_valid : Uop.t -> Uop.t -> Uop.t -> Uop.t option

(** tinygrad's [pm_simplify_valid]: [simplify_valid] on ANDs and [gated_given_valid] on valid gates. *)
val pm_simplify_valid : unit Upat.matcher

(** tinygrad's [pm_clean_up_group_sink]: flatten NOOP/STACK/SINK/GROUP sources of SINK and GROUP. *)
val pm_clean_up_group_sink : unit Upat.matcher

(** Phase 3, the complete symbolic: [symbolic + pm_simplify_valid + ... + pm_clean_up_group_sink]. *)
val sym : unit Upat.matcher
