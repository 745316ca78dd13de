(** tinygrad's helpers.py: small utilities, the environment knobs (ContextVars) with a [Context] to override
    them, the cache directory and global counters. *)

(** {1 Lists and integers} *)

(** Product of a list, 1 when empty. *)
val prod : int list -> int

(** The strides of a row-major (contiguous) layout of [dims]: each the product of the dims after it
    (tinygrad's [prod(shape[i+1:])], without [strides_for_shape]'s zero stride for a dim of 1). *)
val contiguous_strides : int list -> int list

(** The first [n] elements (all when fewer): Python's [l[:n]]. *)
val take : int -> 'a list -> 'a list

(** All but the first [n] elements: Python's [l[n:]]. *)
val drop : int -> 'a list -> 'a list

(** The last element: Python's [l[-1]]. Raises [Invalid_argument] on an empty list. *)
val last : 'a list -> 'a

(** Python's [itertools.product] over [range(n)] for each [n] of [dims]: every index tuple, the last position fastest. *)
val product : int list -> int list list

(** Removes duplicates, keeping the first occurrence and the order. *)
val dedup : 'a list -> 'a list

(** [dedup] by physical equality (graph nodes, kernels): the first occurrence of each. *)
val dedupq : 'a list -> 'a list

(** True when all elements are equal (and for the empty list). *)
val all_same : 'a list -> bool

(** Concatenates a list of lists. *)
val flatten : 'a list list -> 'a list

(** Indices that sort the list (stable). *)
val argsort : 'a list -> int list

(** Splits into (satisfying, not satisfying), order kept. *)
val partition : ('a -> bool) -> 'a list -> 'a list * 'a list

(** Python's [x // y]; 0 when [y = 0]. *)
val floordiv : int -> int -> int

(** Python's [x % y] for the floor division above. *)
val floormod : int -> int -> int

(** Ceiling division, [-(num // -amt)]. *)
val ceildiv : int -> int -> int

(** Rounds up to a multiple of [amt]. *)
val round_up : int -> int -> int

(** Python's [int.bit_length] of a non-negative int: the bits needed to write it (0 for 0). *)
val bit_length : int -> int

(** Rounds down to a multiple of [amt]. *)
val round_down : int -> int -> int

(** Smallest power of two [>= x] (1 for 0). *)
val next_power2 : int -> int

(** C-style division truncating toward zero; 0 when dividing by 0. *)
val cdiv : int -> int -> int

(** C-style remainder matching [cdiv]. *)
val cmod : int -> int -> int

(** {1 Strings} *)

(** Removes ANSI color escapes. *)
val ansistrip : string -> string

(** Length without ANSI escapes. *)
val ansilen : string -> int

(** Removes one pair of enclosing parentheses when they match each other. *)
val strip_parens : string -> string

(** A C identifier from a kernel name: ANSI stripped, other characters as two hex digits ("E_4" stays). *)
val to_function_name : string -> string

(** ["3 kernels"], ["1 kernel"]. *)
val pluralize : string -> int -> string

(** Human readable byte size ("1.50 KB"). *)
val size_to_str : int -> string

(** Human readable duration in seconds ("   12.00ms"). *)
val time_to_str : ?w:int -> float -> string

(** {1 Internal errors} *)

(** A broken invariant of the compiler: a bug in this library, never a user's mistake (those raise
    [Invalid_argument]); the message says what was being done and shows the UOp graph that broke it. *)
exception Bug of string

(** [bug fmt ...] raises {!Bug}. *)
val bug : ('a, unit, string, 'b) format4 -> 'a

(** [internal_errors_as_bug ~what ~show f]: [f ()], with the exceptions no public function may let out ([Failure],
    [Not_found], [Assert_failure], [Match_failure], [Division_by_zero], the Stdlib's own [Invalid_argument]s such as
    "index out of bounds") turned into {!Bug} naming [what] and showing [show ()]. A user's [Invalid_argument]
    ("op: ...") and every other exception pass through. *)
val internal_errors_as_bug : what:string -> show:(unit -> string) -> (unit -> 'a) -> 'a

(** {1 Environment} *)

(** [getenv key default]: the integer in the environment variable (read once per key) or [default]. *)
val getenv : string -> int -> int

(** [getenv_str key default]: the string in the environment variable (read once per key) or [default]. *)
val getenv_str : string -> string -> string

(** {1 Context variables} *)

(** A knob read once from the environment under [key]; [value] is changed by {!set} and {!context}. *)
type 'a context_var = private { key : string; mutable value : 'a }

(** A new integer knob; fails if the key already has one. *)
val int_var : string -> int -> int context_var

(** A new string knob; fails if the key already has one. *)
val string_var : string -> string -> string context_var

(** A knob and the value it takes inside {!context}. *)
type binding = Bind : 'a context_var * 'a -> binding

(** [set v x]: the knob takes the value [x] from now on (tinygrad: [ContextVar.value = x]). *)
val set : 'a context_var -> 'a -> unit

(** tinygrad's [with Context(DEBUG=4, ...)]: sets the values, runs [f], restores them (also on exceptions). *)
val context : binding list -> (unit -> 'a) -> 'a

(** {1 DEV and targets} *)

(** tinygrad's Target: [interface:indices+DEVICE:RENDERER:arch]. *)
type target = { device : string; renderer : string; arch : string; interface : string; indices : string }

(** Parses one target ("CPU", "CPU:LLVM", "PCI+AMD"). *)
val target_parse : string -> target

(** Prints a target back in the parsed form. *)
val target_to_string : target -> string

(** Parses a DEV value: targets separated by [';']. *)
val dev_of_string : string -> target list

(** [DEV]: the targets asked for (one empty target when unset). *)
val dev : target list context_var

(** The device of the first DEV target ("" when DEV is unset). *)
val dev_device : unit -> string

(** tinygrad's [DEV.target dev]: the target for device [dev], renderer/arch filled where not given. *)
val dev_target : ?renderer:string -> ?arch:string -> string -> target

(** {1 Knobs, with tinygrad's names and defaults} *)

(** [DEBUG] (0): 2 one line per kernel, 4 sources, 5 ASTs, 6 linearized uops, 7 allocations. *)
val debug : int context_var

(** [BEAM] (0): beam search width. *)
val beam : int context_var

(** [NOOPT] (0): no kernel optimizations. *)
val noopt : int context_var

(** [IMAGE] (0). *)
val image : int context_var

(** [FLOAT16] (0). *)
val float16 : int context_var

(** [JIT] (1). *)
val jit : int context_var

(** [JIT_BATCH_SIZE] (32). *)
val jit_batch_size : int context_var

(** [WINO] (0). *)
val wino : int context_var

(** [CAPTURING] (1). *)
val capturing : int context_var

(** [NO_COLOR] (0). *)
val no_color : int context_var

(** [TRAINING] (0). *)
val training : int context_var

(** [TC] (1): use tensor cores. *)
val use_tc : int context_var

(** [TC_SELECT] (-1). *)
val tc_select : int context_var

(** [TC_OPT] (0). *)
val tc_opt : int context_var

(** [TRANSCENDENTAL] (1): 2 forces the polynomial decompositions. *)
val transcendental : int context_var

(** [NOLOCALS] (0). *)
val nolocals : int context_var

(** [RING] (1): ring allreduce over more than 2 devices and [RING_ALLREDUCE_THRESHOLD] elements; 2 always. *)
val ring : int context_var

(** [ALL2ALL] (0): all-to-all allreduce (1: over more than 2 devices and the threshold; 2: always). *)
val all2all : int context_var

(** [ALLREDUCE_CAST] (1): a sum of a half/bfloat16 value cast up is allreduced in the narrow dtype. *)
val allreduce_cast : int context_var

(** [RING_ALLREDUCE_THRESHOLD] (256000): the element count above which RING/ALL2ALL=1 take effect. *)
val ring_allreduce_threshold : int context_var

(** [SPLIT_REDUCEOP] (1). *)
val split_reduceop : int context_var

(** [NO_MEMORY_PLANNER] (0). *)
val no_memory_planner : int context_var

(** [LRU] (1): the allocator caches freed buffers. *)
val lru : int context_var

(** [CACHELEVEL] (2). *)
val cachelevel : int context_var

(** [IGNORE_BEAM_CACHE] (0). *)
val ignore_beam_cache : int context_var

(** [DISABLE_FAST_IDIV] (1). *)
val disable_fast_idiv : int context_var

(** [FUSE_OPTIM] (0). *)
val fuse_optim : int context_var

(** [ALLOW_DEVICE_USAGE] (1). *)
val allow_device_usage : int context_var

(** [MAX_BUFFER_SIZE] (0 = unlimited), in elements. *)
val max_buffer_size : int context_var

(** [MAX_KERNEL_BUFFERS] (0). *)
val max_kernel_buffers : int context_var

(** [EMULATED_DTYPES] (""). *)
val emulated_dtypes : string context_var

(** The CPUs this process may use: cgroup quota, else the affinity mask. *)
val get_cpu_count : unit -> int

(** [NUM_CPU_THREADS] (CPU count): the Clang renderer's [global_max]. *)
val num_cpu_threads : int context_var

(** [VIZ] (0). *)
val viz : int context_var

(** [PARALLEL] (NUM_CPU_THREADS unless VIZ): how many compilers BEAM runs at once on its candidates. *)
val parallel : int context_var

(** [PROFILE] (|VIZ|). *)
val profile : int context_var

(** [SPEC] (1): {!Spec.type_verify} checks the tensor graph, the kernel graph, each kernel AST and each program
    (0 skips it). *)
val spec : int context_var

(** [CHECK_OOB] (0). *)
val check_oob : int context_var

(** [PCONTIG] (0). *)
val pcontig : int context_var

(** [DEBUG_RANGEIFY] (0). *)
val debug_rangeify : int context_var

(** [TUPLE_ORDER] (1): the linearizer breaks priority ties by [UOp.tuplize]. *)
val tuple_order : int context_var

(** [CCACHE] (1): 0 disables the compiler's disk cache. *)
val ccache : int context_var

(** [CUDA_PLUGIN] (""): the CUDA backend plugin (tinygrad_cuda_plugin.cmxs) to load, when it is not beside the
    executable or in the build tree. *)
val cuda_plugin : string context_var

(** [ALLOW_TF32] (0). *)
val allow_tf32 : int context_var

(** [SCACHE] (1). *)
val scache : int context_var

(** [USE_ATOMICS] (0). *)
val use_atomics : int context_var

(** [DISALLOW_BROADCAST] (0). *)
val disallow_broadcast : int context_var

(** [THREADS] (1): the Clang renderer has threads (tinygrad reads it with getenv in cstyle.py). *)
val threads : int context_var

(** tinygrad's [to_program_config]: the integer knobs that change the generated programs ([NO_COLOR] and
    [THREADS] besides tinygrad's), in the order of the program cache key. *)
val to_program_config : int context_var list

(** {1 CPU kernel shape} Not tinygrad knobs. *)

(** How CPU kernels are shaped. [Cpu_tinygrad] renders tinygrad 0.14.0's kernels byte for byte (float4 at most,
    its heuristics); [Cpu_fast] (the default) lets the compiler deviate for speed on the CPU: vectors as wide as
    the host's registers ({!cpu_vec}), and the CPU branches of the heuristics. *)
type cpu_opt = Cpu_tinygrad | Cpu_fast

(** ["tinygrad"] or ["fast"] (also [""]); anything else raises [Invalid_argument]. *)
val cpu_opt_of_string : string -> cpu_opt

(** [CPU_OPT] ([fast]): [tinygrad] or [fast]. *)
val cpu_opt : cpu_opt context_var

(** [CPU_VEC] (0): the float32 vector width of [Cpu_fast] kernels; 0 takes it from the host ISA (16 with AVX-512,
    8 with AVX/AVX2, else 4), 2, 4, 8 or 16 force it. *)
val cpu_vec : int context_var

(** [CPU_POOL] (1), not a tinygrad knob: 0 runs core_id shards in order as tinygrad does, 1 in parallel on at most
    as many threads as CPUs, n >= 2 on at most n threads. *)
val cpu_pool : int context_var

(** [SANITIZE] (0), not a tinygrad knob: 1 compiles every CPU kernel with
    [-fsanitize=address,undefined -fno-sanitize-recover=all] (its own disk cache directory), and the CPU
    device then needs the ASan runtime preloaded ([make test-sanitize] arranges it). A finding stops the
    process, naming the kernel. *)
val sanitize : int context_var

(** [SANITIZE_STATS] (""), not a tinygrad knob: under [SANITIZE=1], a file to which each process appends
    at exit how many kernels it compiled and which sanitized objects it ran ([make test-sanitize] counts
    them). *)
val sanitize_stats : string context_var

(** {2 Knobs tinygrad reads with a plain getenv where it uses them} *)

(** [DEFAULT_FLOAT] (""): the default float dtype by name ([Dtype.default_float]; float32 when empty). *)
val default_float : string context_var

(** [DEFAULT_INT] (""): the default int dtype by name ([Dtype.default_int]; int32 when empty). *)
val default_int : string context_var

(** [SUM_DTYPE] (""): the float accumulator of sums ([Dtype.sum_acc_dtype]; float32 when empty). *)
val sum_dtype : string context_var

(** [EXPAND_SSA] (0): the C renderer gives every value its own variable. *)
val expand_ssa : int context_var

(** [ALIGNED] (1): the C renderer marks global buffers as aligned. *)
val aligned : int context_var

(** [DMC] (0): disables memory coalescing. *)
val dmc : int context_var

(** [ALLOW_HALF8] (0): half loads/stores may coalesce to 8 lanes. *)
val allow_half8 : int context_var

(** [MV] (1): the matrix-vector heuristic on devices with locals. *)
val mv : int context_var

(** [MV_BLOCKSIZE] (4). *)
val mv_blocksize : int context_var

(** [MV_THREADS_PER_ROW] (8). *)
val mv_threads_per_row : int context_var

(** [MV_ROWS_PER_THREAD] (4). *)
val mv_rows_per_thread : int context_var

(** [REDUCEOP_SPLIT_THRESHOLD] (32768): split_reduceop's minimum input/output size ratio. *)
val reduceop_split_threshold : int context_var

(** [REDUCEOP_SPLIT_SIZE] (22): log2 of split_reduceop's largest intermediate. *)
val reduceop_split_size : int context_var

(** [TC_OPT] as BEAM's action list reads it (default 2, where {!tc_opt} defaults to 0, as in tinygrad). *)
val beam_tc_opt : int context_var

(** [BEAM_PADTO] (0): BEAM also tries PADTO. *)
val beam_padto : int context_var

(** [BEAM_UOPS_MAX] (3000): BEAM skips candidates with more uops. *)
val beam_uops_max : int context_var

(** [BEAM_UPCAST_MAX] (256). *)
val beam_upcast_max : int context_var

(** [BEAM_LOCAL_MAX] (1024). *)
val beam_local_max : int context_var

(** [BEAM_LOG_SURPASS_MAX] (0): log candidates skipped for size. *)
val beam_log_surpass_max : int context_var

(** [BEAM_STRICT_MODE] (0): a failing candidate raises instead of being skipped. *)
val beam_strict_mode : int context_var

(** [BEAM_ESTIMATE] (1): BEAM may time candidates on a smaller problem size. *)
val beam_estimate : int context_var

(** [BEAM_DEBUG] (0). *)
val beam_debug : int context_var

(** [BEAM_MIN_PROGRESS] ("0.01"): microseconds a step must gain for BEAM to go on. *)
val beam_min_progress : string context_var

(** [JITBEAM] (-1: BEAM's value): the beam width for kernels compiled by TinyJit. *)
val jitbeam : int context_var

(** [UNSAFE_ALLOW_JIT_BUFFER] (0): allows reading tensor data during a JIT capture. *)
val unsafe_allow_jit_buffer : int context_var

(** [OPTIM_DTYPE] ("float32"): the dtype of optimizer state. *)
val optim_dtype : string context_var

(** [CONST_LR] (0): the learning rate is a constant in the kernels rather than a buffer. *)
val const_lr : int context_var

(** [ASSERT_COMPILE] (0): compiling a kernel fails (tests that everything is cached). *)
val assert_compile : int context_var

(** [CC] (""): the C compiler (clang, else gcc, when empty). *)
val cc : string context_var

(** tinygrad's [REWRITE_STACK_LIMIT] (250000): a graph_rewrite whose stack grows past it fails with
    ["infinite loop in graph_rewrite (stack too big)"]. *)
val rewrite_stack_limit : int context_var

(** {1 Clocks} *)

(** Monotonic clock in nanoseconds. *)
val perf_counter_ns : unit -> int

(** Monotonic clock in seconds. *)
val perf_counter : unit -> float

(** {1 Files} *)

(** This port's cache directory: [$XDG_CACHE_HOME/tinygrad/ocaml] (default [~/.cache/tinygrad/ocaml]). *)
val cache_dir : unit -> string

(** Creates a directory and its parents (no error if it exists). *)
val mkdir_p : string -> unit

(** A path in the temp directory, optionally suffixed with the user name. *)
val temp : ?append_user:bool -> string -> string

(** tinygrad's [colored st color]: [st] in an ANSI color (an upper-case name is the bright variant; [background]
    colors the background); [st] unchanged under [NO_COLOR] or with no color. *)
val colored : ?background:bool -> string -> string option -> string

(** Python's [s.replace(sub, by)]: every occurrence of [sub] in [s], left to right ([s] when [sub] is empty). *)
val replace_all : sub:string -> by:string -> string -> string

(** {1 Garbage collection} *)

(** Runs the finalisers of every value unreachable when called, the values Python's refcount would
    already have freed: it finishes the current major cycle and runs one whole cycle more, as
    [Gc.full_major] does on OCaml 4 (OCaml 5's runs a third, and its pacer counts forced work as done
    ahead of the program, idling while the heap grows by as much garbage). When the heap has more than
    doubled since the last call, it compacts instead, so that the memory of a transient peak goes back to
    the system on OCaml 5 as OCaml 4's own compaction does. *)
val collect_unreachable : unit -> unit

(** {1 All the knobs at once} *)

(** The values of every context variable ({!int_var}, {!string_var}, {!dev}, {!cpu_opt}, ...). *)
type knobs

(** The knobs' current values. *)
val knobs : unit -> knobs

(** Whether every knob still has the value it had in [k] (no allocation). *)
val knobs_current : knobs -> bool
