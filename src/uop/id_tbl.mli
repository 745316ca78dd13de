(** A table keyed by UOp ids, for the graph walks of the rewrite engine and toposort (tinygrad uses a dict
    keyed by the UOp). A UOp's id is never reused in a process, so the id alone identifies the node. Open
    addressing over two flat arrays: no allocation per entry, no functor indirection on the lookup. No removal
    and no iteration: the walks only add, test and read. *)

(** A table from ids to ['a]. *)
type 'a t

(** [create n]: an empty table sized for about [n] entries (it grows). *)
val create : int -> 'a t

(** The value bound to an id, if any. *)
val find_opt : 'a t -> int -> 'a option

(** Whether an id is bound. *)
val mem : 'a t -> int -> bool

(** Binds an id, replacing its previous value. *)
val replace : 'a t -> int -> 'a -> unit

(** The number of bound ids. *)
val length : 'a t -> int
