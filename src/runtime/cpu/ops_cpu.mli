(** tinygrad's runtime/ops_cpu.py: the CPU device (host memory, clang, kernels loaded with dlopen and called
    through their uniform entry). Registered as "CPU" in {!Device} when linked. *)

(** The CPU allocator: 64-byte aligned host Bigarrays behind an LRU cache. *)
val allocator : unit -> Device.allocator

(** A loaded kernel: library path, entry address, and the slot of its [core_id] var if it has one. *)
type program = { name : string; lib : string; entry : nativeint; core_id : int option }

(** Loads a kernel (its library is opened once per process); [runtimevars] maps var names to var slots. *)
val load : name:string -> lib:string -> runtimevars:(string * int) list -> program

(** Runs a kernel (no allocation, runtime lock kept); with a core_id, runs [global_size.(0)] shards in order. *)
val call : program -> Device.launch -> global_size:int array -> unit

(** Like [call] but releases the OCaml runtime lock while the kernel runs. *)
val call_blocking : program -> Device.launch -> global_size:int array -> unit

(** The CPU device record (tinygrad's CPUDevice). *)
val create : string -> Device.compiled
