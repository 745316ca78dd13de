(** tinygrad's runtime/support/compiler_cpu.py ClangCompiler: C source to a shared object, with a disk cache and
    the uniform entry [void NAME_entry(void **bufs, long long *vars)] appended to the compiled source. *)

(** A C compiler: executable, flags, and the disk cache key ([None] when [CCACHE=0]). *)
type t = { cc : string; args : string list; cachekey : string option }

(** Sources handed to a compiler in this process (cache hits do not count; a background batch counts each of
    its sources once). *)
val compile_count : unit -> int

(** Compiler processes started in this process (a background batch is one, whatever its size). *)
val process_count : unit -> int

(** [CC] from the environment, else clang, else gcc (which lacks [ext_vector_type]: scalar kernels only). *)
val find_cc : unit -> string

(** The machine: "x86_64", "arm64", "riscv64". *)
val machine : unit -> string

(** Not in tinygrad: the flags [SANITIZE=1] adds, [-fsanitize=address,undefined
    -fno-sanitize=shift-base,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer] (a left
    shift of a negative int and an out-of-range float to int cast are tinygrad's by design). *)
val sanitize_args : string list

(** Not in tinygrad: [-fwrapv] while [EMULATED_DTYPES] emulates int64 on int32 words, whose carries are signed
    overflows that wrap in the UOp IR; none otherwise. [compile], [compile_cached] and [compile_many] add them
    to the flags of the kernels they build (the cache path hashes them too). *)
val wrap_args : unit -> string list

(** [-shared -O2 -fPIC -ffreestanding -fno-math-errno -fno-ident -march=native] (arch dependent), then
    {!sanitize_args} under [SANITIZE=1] (the cache key then ends in [_sanitize]); reads [CCACHE]. *)
val create : ?cachekey:string -> unit -> t

(** A kernel parameter: a pointer of the given C type, or an int var of the given C type. *)
type param = Buf of string | Var of string

(** The kernel's name and parameters, from the last top-level [void NAME(...)] in the source. *)
val signature : string -> string * param list

(** The entry's symbol for a kernel name: [NAME_entry]. *)
val entry_name : string -> string

(** The C wrapper defining the entry for the kernel in the source. *)
val entry_wrapper : string -> string

(** The source as compiled: the rendered source followed by the entry wrapper. *)
val full_source : string -> string

(** Compiles to a new temporary shared object (removed at exit) and returns its path. With clang (not under
    [SANITIZE=1]) the compiler builds an object ([-c]: its compiler runs inside the driver's process) that
    the system linker [ld] links with the compiler's runtime library, instead of the driver linking it (which
    runs the compiler as a second process); other compilers link through their driver. A failing compile is
    retried once without [-march=native] / [-mcpu=native] (clang 14 crashes on some AVX-512 broadcasts), said
    at [DEBUG>=1]; when both fail, raises {!Device.Compile_error} with the compiled source and the first
    compiler output. A missing compiler raises {!Device.Compile_error} saying so, with the install hint
    ([apt-get install clang]). *)
val compile : t -> string -> string

(** The process id (tests make unique sources with it). *)
val getpid_for_tests : unit -> int

(** The flags of the retry after a failed compile: [args] without the native-arch flags. *)
val safe_args : t -> string list

(** Whether a cache entry is whole: its trailing MD5 matches its bytes. *)
val intact : string -> bool

(** The cache file a source compiles to. *)
val cache_path : t -> string -> string -> string

(** Like [compile], through the disk cache (written by atomic rename) unless [CCACHE=0]; [ASSERT_COMPILE=1]
    makes a cache miss fail. An entry is the shared object followed by the MD5 of its bytes; one whose digest does
    not match (truncated, garbage) is rebuilt, never loaded ([DEBUG>=1] says so). *)
val compile_cached : t -> string -> string

(** BEAM's worker pool: compiles the sources not in the cache into the cache through the background compilers
    of {!prefetch} and waits for them (nothing when [PARALLEL] <= 1, [CCACHE=0] or [ASSERT_COMPILE=1]); a
    failing source is left out, for [compile_cached] to raise on. *)
val compile_many : t -> string list -> unit

(** Not in tinygrad: queues a source for the background compilers and returns. At most [PARALLEL] - 1 compiler
    processes (at least one) run at once while the caller goes on, the caller's own work taking a core, and
    [PARALLEL] while it waits for one ({!compile_cached}, {!compile_many}); each builds every source queued
    when it starts (up to 16 with distinct kernel names, one under [SANITIZE=1]) into one shared object, and
    each source's cache file is a hard link to it.
    A failed batch's sources are built again one by one, so one bad kernel costs the others nothing.
    {!compile_cached} of a queued source waits for it, and compiles it again to report a failure; of a source
    neither queued nor building, it first starts the queue on every free slot (its caller now runs what it
    lowered, and waits next for the queued kernels). Nothing
    without the cache ([CCACHE=0]), with [PARALLEL] <= 1 or [ASSERT_COMPILE=1]. *)
val prefetch : t -> string -> unit

(** The compiler as the device layer sees it. *)
val as_device_compiler : t -> Device.compiler

(** Not in tinygrad: the float32 lanes of the host's widest vector register as the compiler targets it
    ([-march=native]), read once from its predefined macros: 16 with [__AVX512F__], 8 with [__AVX__], else 4. *)
val host_vector_width : unit -> int
