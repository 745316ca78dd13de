(** tinygrad's runtime/ops_cpu.py: the CPU device (host memory, clang, kernels loaded with dlopen and called
    through their uniform entry). Registered as "CPU" in {!Device} when linked. *)

(** The CPU allocator: 64-byte aligned host memory behind an LRU cache. Each buffer's memory is a Bigarray that
    does not own it: when the GC finds that Bigarray unreachable, the memory goes back to a pool and the next
    allocation of that size reuses it (the young ones soon after they die: a minor collection runs before the next
    tensor is made while that hands memory back). [free_cache] runs a full collection and gives the pool back to
    the system. Buffers of 4 MiB and more are allocated and cached by size class (rounded up to 1/16 of their
    power of two, {!size_class}), unless [exact] (default false) or SANITIZE=1 when the allocator is made. *)
val allocator : ?exact:bool -> unit -> Device.allocator

(** The bytes a request of [n] bytes is allocated and cached as: [n] under 4 MiB, else [n] rounded up to a
    multiple of 2{^ (bit_length n - 4)}. *)
val size_class : int -> int

(** The host memory handed out now (buffers not yet found dead) and the memory kept for reuse, in bytes. *)
val host_memory : unit -> int * int

(** A loaded kernel: library path, entry address, and the slot of its [core_id] var if it has one. *)
type program = { name : string; lib : string; entry : nativeint; core_id : int option }

(** Loads a kernel; [runtimevars] maps var names to var slots. A library is opened once and closed (dlclose)
    after the GC has collected every program loaded from it. *)
val load : name:string -> lib:string -> runtimevars:(string * int) list -> program

(** The libraries open now (after closing those whose programs were all collected). *)
val loaded_libraries : unit -> int


(** Runs a kernel (no allocation); with a core_id, runs [global_size.(0)] shards, in parallel on the thread pool
    (the calling thread takes shards too, each thread has its own copy of the vars, the runtime lock is released
    meanwhile) unless there is one shard or [CPU_POOL=0] (then in order, runtime lock kept). *)
val call : program -> Device.launch -> global_size:int array -> unit

(** tinygrad's CPUProgram.__call__: the core_id shards one after another on this thread, runtime lock kept. *)
val call_sequential : program -> Device.launch -> global_size:int array -> unit

(** Worker threads the shard pool has started so far (the pool grows to the most shards a call needed). *)
val pool_workers : unit -> int

(** Like [call] but releases the OCaml runtime lock while the kernel runs, also with one shard. *)
val call_blocking : program -> Device.launch -> global_size:int array -> unit

(** The CPU device record (tinygrad's CPUDevice). Under [SANITIZE=1] it raises [Invalid_argument] when the
    ASan runtime is not in the process, records each kernel's name before it runs (a finding stops the process
    and names it on stderr) and, with [SANITIZE_STATS], appends its counts to that file at exit. *)
val create : string -> Device.compiled
