(** Committing weak dtypes to concrete widths. tinygrad: [uop/weak.py].

    Python literals carry [Weakint]/[Weakfloat]; these passes decide the width they live at: the width a
    CAST states, a STORE's destination, or the index-lowering defaults (int32, int64 when the bounds
    overflow). *)

(** The width a weak node lowers to: the default float, or int32 / int64 by its bounds. *)
val default_dtype : Uop.t -> Dtype.t

(** [commit_weak s dt]: a CONST commits directly at [dt], anything else is cast to [dt]. *)
val commit_weak : Uop.t -> Dtype.t -> Uop.t

(** [commit_srcs_at u dt]: [u] rebuilt with its weak sources committed at [dt] (its dtype re-derived). *)
val commit_srcs_at : Uop.t -> Dtype.t -> Uop.t

(** tinygrad's [commit_weak_srcs]: commit weak sources at the least upper dtype when it is concrete. *)
val commit_weak_srcs : Uop.t -> Uop.t option

(** tinygrad's [cast_weak_srcs]: a concrete CAST over a weak ALU node commits the node's sources. *)
val cast_weak_srcs : Uop.t -> Uop.t -> Uop.t option

(** A concrete CAST over a weak node or weak CONST states its width. *)
val pm_cast_weak : unit Upat.matcher

(** Weak sources of broadcastable ops and STORE values commit when the result is concrete. *)
val pm_commit_weak : unit Upat.matcher

(** tinygrad's [pm_lower_weak]: lower every weak node to its default width (with a weak CAST on top). *)
val pm_lower_weak : unit Upat.matcher

(** tinygrad's [lower_weak_node]: one node's weak sources lowered and committed, cast back to its dtype. *)
val lower_weak_node : Uop.t -> Uop.t option

(** The context of [lower_weak_srcs]: tinygrad's memo of the lowered weak sources, and (not in tinygrad) the
    [pm_lower_weak] results of the nodes their rewrites met, which a later source's rewrite takes unvisited. *)
type lower_ctx

(** An empty context, for one pass. *)
val lower_ctx : unit -> lower_ctx

(** tinygrad's [lower_weak_srcs]: a concrete consumer lowers its weak sources (memoised in the context). *)
val lower_weak_srcs : lower_ctx -> Uop.t -> Uop.t option

(** tinygrad's [max_numel]: the product of the largest values of the shape. *)
val max_numel : Uop.t -> Z.t

(** [pm_commit_weak + pm_cast_weak + lowering]: the context is the memo of lowered weak sources. *)
val pm_lower_index_dtype : lower_ctx Upat.matcher
