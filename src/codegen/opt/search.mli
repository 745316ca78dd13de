(** tinygrad [codegen/opt/search.py]: BEAM search over kernel opts, each candidate compiled and timed on the CPU
    device, results cached on disk by AST key. Linking this module sets [Postrange.beam_search_hook]. *)

(** tinygrad's BEAM action list. *)
val actions : Opt.t list Lazy.t

(** Not in tinygrad: the stages of the search of a kernel for a renderer ([Search_cpu.policy] given tinygrad's
    [actions]). *)
val policy : Renderer.t -> Search_cpu.t

(** Not in tinygrad: the actions searched on kernels of a renderer: tinygrad's [actions], then the policy's
    ([Search_cpu.actions] under CPU_OPT=fast on the CPU). *)
val kernel_actions : Renderer.t -> Opt.t list

(** [get_kernel_actions s]: (index in [kernel_actions s.ren] + 1, Scheduler after that action) for every action that
    applies within [max_up] (default [BEAM_UPCAST_MAX]) and [BEAM_LOCAL_MAX]; [(0, s)] first with [include_0]. *)
val get_kernel_actions : ?include_0:bool -> ?max_up:int -> Postrange.t -> (int * Postrange.t) list

(** tinygrad [get_test_global_size]: the global size halved until its product is at most the max, and the factor. *)
val get_test_global_size : Uop.sint list -> int -> (string * Dtype.const) list -> int array * float

(** tinygrad [args_from_ast]: a buffer per PARAM slot and the variables at the middle of their ranges. Not in
    tinygrad: [zero] (default false) allocates the buffers zeroed (their pages written). *)
val args_from_ast : ?zero:bool -> Uop.t -> string -> (int * Device.Buffer.t) list * (string * Dtype.const) list

(** The disk cache file of a search: [cache_path s amt allow_test_size] (under [Helpers.cache_dir ()]/beam_search).
    An entry is ["beam_search v2"], the opts one per line, ["end"]; an entry that cannot be read (truncated,
    garbage) or whose opts do not apply is ignored and searched again ([DEBUG>=1] says so). *)
val cache_path : Postrange.t -> int -> bool -> string

(** The number of searches run so far (not answered from the disk cache). *)
val searches : unit -> int

(** tinygrad [beam_search s amt]: the best Scheduler found with beam width [amt]; cached on disk when
    [CACHELEVEL >= 1] unless [disable_cache] ([IGNORE_BEAM_CACHE]). Not in tinygrad: under CPU_OPT=fast on
    the CPU ({!Search_cpu}) the beam starts from the hand-coded kernel (timed: the result is never slower
    than it), searches [kernel_actions], times candidates on a slice of their loops
    ([Search_cpu.shrink_loops]), returns the hand-coded kernel unsearched when it runs under [min_time]
    seconds (default 1 ms), goes on only while a level gains 2%, starts no new candidate after 20 seconds of
    search, and keeps a finalist over the hand-coded kernel only when it is 2% faster on the whole kernel. *)
val beam_search : ?allow_test_size:bool -> ?disable_cache:bool -> ?min_time:float -> Postrange.t -> int -> Postrange.t
