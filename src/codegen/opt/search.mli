(** tinygrad [codegen/opt/search.py]: BEAM search over kernel opts, each candidate compiled and timed on the CPU
    device, results cached on disk by AST key. Linking this module sets [Postrange.beam_search_hook]. *)

(** tinygrad's BEAM action list. *)
val actions : Opt.t list Lazy.t

(** [get_kernel_actions s]: (index in [actions] + 1, Scheduler after that action) for every action that applies
    within [BEAM_UPCAST_MAX]/[BEAM_LOCAL_MAX]; [(0, s)] first with [include_0]. *)
val get_kernel_actions : ?include_0:bool -> ?max_up:int -> Postrange.t -> (int * Postrange.t) list

(** tinygrad [get_test_global_size]: the global size halved until its product is at most the max, and the factor. *)
val get_test_global_size : Uop.sint list -> int -> (string * Dtype.const) list -> int array * float

(** tinygrad [args_from_ast]: a buffer per PARAM slot and the variables at the middle of their ranges. *)
val args_from_ast : Uop.t -> string -> (int * Device.Buffer.t) list * (string * Dtype.const) list

(** The disk cache file of a search: [cache_path s amt allow_test_size] (under [Helpers.cache_dir ()]/beam_search).
    An entry is ["beam_search v2"], the opts one per line, ["end"]; an entry that cannot be read (truncated,
    garbage) or whose opts do not apply is ignored and searched again ([DEBUG>=1] says so). *)
val cache_path : Postrange.t -> int -> bool -> string

(** The number of searches run so far (not answered from the disk cache). *)
val searches : int ref

(** tinygrad [beam_search s amt]: the best Scheduler found with beam width [amt]; cached on disk when
    [CACHELEVEL >= 1] unless [disable_cache] ([IGNORE_BEAM_CACHE]). *)
val beam_search : ?allow_test_size:bool -> ?disable_cache:bool -> Postrange.t -> int -> Postrange.t
