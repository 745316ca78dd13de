(** The subset of Python's pickle format that PyTorch checkpoints use (protocols 0 to 5: the opcodes torch.save
    writes, with the text opcodes of protocol 0 for old files). tinygrad: [nn/state.py] [torch_load] runs Python's
    own [pickle.Unpickler] with [find_class] and [persistent_load] overridden; here the unpickler is a small stack
    machine whose globals and [REDUCE] calls are left as data ({!Global}, {!Call}) for the caller to interpret. *)

(** A list or dict's items, appended to in place while unpickling (the memo shares the container). *)
type 'a items

(** The items in order. *)
val items : 'a items -> 'a list

(** Items holding the list. *)
val items_of_list : 'a list -> 'a items

(** A Python value. Lists and dicts are mutable (pickle fills them after making them, and the memo shares them). *)
type value =
  | None_
  | Bool of bool
  | Int of Z.t
  | Float of float
  | Str of string  (** a [str], UTF-8 *)
  | Bytes of string
  | Tuple of value list
  | List of value items
  | Dict of (value * value) items  (** in insertion order, as Python's dict *)
  | Set of value list
  | Global of string * string  (** [module], [name]: a class or function named by [GLOBAL] / [STACK_GLOBAL] *)
  | Call of value * value list  (** a callable applied to arguments ([REDUCE], [NEWOBJ]) that {!load} left as is *)
  | Built of value * value  (** [BUILD]: an object and the state given to its [__setstate__] *)
  | Persistent of value  (** what [persistent_load] returned for a persistent id *)

(** [load ?reduce ?persistent_load s pos]: unpickles the object that starts at byte [pos] of [s] (up to its [STOP]);
    returns it and the position after [STOP]. [reduce f args] interprets a call (default: [Call (f, args)]; return
    [None] to keep the call as data); [persistent_load pid] what a persistent id stands for (default
    [Persistent pid]). A malformed or truncated pickle, or an opcode outside the subset, raises [Invalid_argument]
    naming [what] and the position. *)
val load :
  ?what:string -> ?reduce:(value -> value list -> value option) -> ?persistent_load:(value -> value) -> string -> int
  -> value * int

(** A short rendering for error messages (shallow, long sequences cut). *)
val to_string : value -> string

(** [iter_children f v]: [f] on each value [v] holds directly. *)
val iter_children : (value -> unit) -> value -> unit

(** [budget ~what]: a counter to call with the depth at each node a traversal visits; past 4M nodes or 256 levels it
    raises [Invalid_argument] naming [what] (a damaged pickle can share a list within itself). *)
val budget : what:string -> int -> unit
