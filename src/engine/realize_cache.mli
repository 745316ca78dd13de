(** The realize cache (not in tinygrad): a realize whose tensor graph has the structure of an earlier one, buffers
    aside, reuses that realize's compiled LINEAR, becomes map and Variable values, skipping callify, scheduling,
    memory planning and lowering. Keyed by the big SINK's structure, its buffers described by dtype, device and size
    only, its bound Variables by Variable and value (however the binding was made), and by the knobs; it holds no
    buffer. Used by [Tensor.realize] outside the JIT's capture, with
    DEBUG=0 and SCACHE on. *)

(** A cached realize. *)
type entry

(** A big SINK walked: its key, its buffers in walk order and its nodes. *)
type walk

(** The entries of one setting of the knobs. *)
type table

(** What the cache knows of a big SINK: a hit, a miss to {!record} (in the table it missed in) once it ran, or a
    graph it does not serve. *)
type lookup = Hit of entry * walk | Miss of walk * table | Not_cached

(** The entry for a big SINK of tensor UOps. *)
val lookup : Uop.t -> lookup

(** [record walk table ~big_sink ~call ~becomes_map ~linear ~var_vals] files a realize that ran: [call] and
    [becomes_map] from [Callify.transform_to_call], [linear] compiled, [var_vals] its Variable values. A realize
    whose buffers are not all the graph's or made by it is filed as one the cache does not serve. *)
val record :
  walk -> table -> big_sink:Uop.t -> call:Uop.t -> becomes_map:(Uop.t * Uop.t) list -> linear:Uop.t ->
  var_vals:(string * int) list -> unit

(** Runs a hit on the walk's buffers and new ones: applies the becomes map
    ([apply_map], over the live tensors), runs the LINEAR (its calls prepared once when they all run on one
    device, {!Realize.prepare}) and frees its internal buffers. *)
val run : entry -> walk -> apply_map:((Uop.t * Uop.t) list -> unit) -> unit

(** The number of realize structures filed (served or not). *)
val length : unit -> int

(** The number of realizes served from the cache so far. *)
val hits : unit -> int

(** Empties the cache. *)
val clear : unit -> unit
