(** A table keyed by UOp ids, for the graph walks of the rewrite engine and toposort (tinygrad uses a
    dict keyed by the UOp). A UOp's id is never reused in a process, so the id alone identifies the node.
    Open addressing over two flat arrays: no allocation per entry, no functor indirection on the lookup. No
    removal and no iteration: the walks only add, test and read. *)

(** A table from ids to ['a]. *)
type 'a t

(** [create n]: an empty table sized for about [n] entries (it grows). *)
val create : int -> 'a t

(** The value bound to an id, if any. *)
val find_opt : 'a t -> int -> 'a option

(** [find_or t id default]: the value bound to [id], or [default] (no option allocated). *)
val find_or : 'a t -> int -> 'a -> 'a

(** Whether an id is bound. *)
val mem : 'a t -> int -> bool

(** Binds an id, replacing its previous value. *)
val replace : 'a t -> int -> 'a -> unit

(** The number of bound ids. *)
val length : 'a t -> int

(** [clear t filler]: no binding left; every slot no id is bound to holds [filler], so that the table keeps
    no value alive that it no longer binds. Costs the number of bindings, not the capacity, except the first
    clear of a table not taken from a pool, which fills the whole value array. *)
val clear : 'a t -> 'a -> unit

(** Tables kept for reuse between walks: a walk over a large graph grows its tables to many slots, and
    allocating them afresh for every rewrite pass was most of the memory the passes allocated. *)
type 'a pool

(** An empty pool whose tables hold the given value in every slot no id is bound to. *)
val pool : 'a -> 'a pool

(** [with_table p f]: [f] applied to an empty table from [p] (a new one if none is free), which goes back
    to the pool, cleared, when [f] returns (a nested walk takes another). On an exception the table is
    dropped. *)
val with_table : 'a pool -> ('a t -> 'b) -> 'b

(** A set of ids, the keys of a table without its values: for the walks that only ask whether a node was
    seen (no value array to read, write or clear). *)
module Set : sig
  (** A set of ids. *)
  type t

  (** [create n]: an empty set sized for about [n] ids (it grows). *)
  val create : int -> t

  (** Whether an id is in the set. *)
  val mem : t -> int -> bool

  (** Adds an id. *)
  val add : t -> int -> unit

  (** The number of ids in the set. *)
  val length : t -> int

  (** Empties the set, at the cost of its ids, not its capacity. *)
  val clear : t -> unit

  (** Sets kept for reuse between walks, as {!pool}. *)
  type pool

  (** An empty pool. *)
  val pool : unit -> pool

  (** [with_set p f]: [f] applied to an empty set from [p], which goes back to the pool, cleared, when [f]
      returns (on an exception it is dropped). *)
  val with_set : pool -> (t -> 'b) -> 'b
end
