(** Folding of floor division and modulo on index expressions. tinygrad: [uop/divandmod.py]. *)

(** tinygrad's [fold_divmod_general]: the general FLOORDIV/FLOORMOD folder (constant quotient, nested
    div/mod, congruences, gcd factoring, nesting by factor, variable-denominator gcd and remainder).
    Memoised per node. Raises [Division_by_zero] when the denominator is always 0. *)
val fold_divmod_general : Uop.t -> Uop.t option

(** tinygrad's [div_and_mod_symbolic]: the fast inline div/mod rules, then [fold_divmod_general]. *)
val div_and_mod_symbolic : unit Upat.matcher

(** CPython's iteration order of a small set of non-negative ints inserted in the given order (used where
    tinygrad iterates a set comprehension). *)
val py_int_set_order : Z.t list -> Z.t list
