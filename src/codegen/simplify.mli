(** Range simplification and reduce collapsing on kernel ASTs. tinygrad: [codegen/simplify.py]. *)

(** tinygrad [flatten_range]: the ranges a REDUCE/END closes become the flat list of RANGEs they depend on. *)
val flatten_range : Uop.t -> Uop.t option

(** tinygrad [pm_flatten_range]: [flatten_range] on REDUCE and END. *)
val pm_flatten_range : unit Upat.matcher

(** [pm_flatten_range] lifted (once) to passes whose context is a range table. *)
val pm_flatten_range_tbl : Uop.t Uop.Tbl.t Upat.matcher

(** tinygrad [count_divmod]: the number of FLOORDIV/FLOORMOD nodes in the backward slice. *)
val count_divmod : Uop.t -> int

(** tinygrad [simplify_merge_adjacent]: merge same-type ranges of an END/REDUCE when that does not add div/mods. *)
val simplify_merge_adjacent : Uop.t -> Uop.t option

(** tinygrad [mark_gated]: record in the table the size each range can shrink to given the INDEX gates. *)
val mark_gated : Uop.t Uop.Tbl.t -> Uop.t -> Uop.t option

(** tinygrad [do_substitute]: apply [sub_fxn key value] for every table entry at the SINK, clear the table, simplify. *)
val do_substitute : Uop.t Uop.Tbl.t -> Uop.t -> (Uop.t -> Uop.t -> Uop.t) -> Uop.t option

(** tinygrad [pm_simplify_ranges]: merge adjacent ranges and shrink gated ranges (ctx: a fresh empty table). *)
val pm_simplify_ranges : Uop.t Uop.Tbl.t Upat.matcher

(** tinygrad [mark_range_mod]: remember a range used as [r % c] with [c] dividing its size. *)
val mark_range_mod : Uop.t Uop.Tbl.t -> Uop.t -> Uop.t -> Uop.t option

(** tinygrad [pm_split_ranges]: split [RANGE(n)] used with [% c] into [RANGE(n/c)*c + RANGE(c)] (ctx: an empty table). *)
val pm_split_ranges : Uop.t Uop.Tbl.t Upat.matcher

(** tinygrad [no_range]: no RANGE in the backward slice (self included). *)
val no_range : Uop.t -> bool

(** tinygrad [reduce_unparented]: drop REDUCE ranges the source does not use (ADD multiplies, MUL powers). *)
val reduce_unparented : Uop.t -> Uop.t option

(** tinygrad [pm_reduce_unparented]. *)
val pm_reduce_unparented : unit Upat.matcher

(** tinygrad [pm_reduce_collapse]: algebraic rules that remove a range from a REDUCE, then [symbolic]. *)
val pm_reduce_collapse : unit Upat.matcher

(** tinygrad [pm_reduce_load_collapse]: [pm_reduce_collapse] plus the gated-load rules. *)
val pm_reduce_load_collapse : unit Upat.matcher

(** tinygrad [reduce_collapse red u]: remove every range of [red] from [u] with [pm], or [None]. *)
val reduce_collapse : ?pm:unit Upat.matcher -> Uop.t -> Uop.t -> Uop.t option

(** tinygrad [reduce_load_collapse]: [reduce_collapse] with [pm_reduce_load_collapse]. *)
val reduce_load_collapse : Uop.t -> Uop.t -> Uop.t option

(** tinygrad [pm_reduce_simplify]: remove REDUCEs without loads (arange / indexing). *)
val pm_reduce_simplify : unit Upat.matcher

(** tinygrad [no_load]: no INDEX in the backward slice (self included). *)
val no_load : Uop.t -> bool

(** tinygrad [pm_load_collapse]: remove a REDUCE over a gated load (indexing a tensor with a tensor). *)
val pm_load_collapse : unit Upat.matcher
