(** The backend-independent parts of tinygrad's GPU runtimes ([runtime/ops_cuda.py], [runtime/ops_metal.py]): kernel
    signatures (tinygrad's [TinyELF.signature]), argument packing in [encode_args]' order, launch dims
    ([ProgramSpec.launch_dims]), limits, and the compiler's disk cache. Always built; the optional backend
    libraries [tinygrad.cuda] and [tinygrad.metal] use it. *)

(** A kernel parameter: a buffer pointer, or an int var of 32 or 64 bits. *)
type param = Ptr | Int32 | Int64

(** "ptr", "i32", "i64". *)
val param_to_string : param -> string

(** Inverse of [param_to_string]; [Invalid_argument] otherwise. *)
val param_of_string : string -> param

(** [parse_signature ~marker src]: the name and parameters of the last kernel declared with [marker] in a rendered
    source ("__global__" for CUDA, "kernel void" for Metal); [__launch_bounds__(..)] is skipped, Metal's
    [[[...]]] builtins are not parameters, a var is 64-bit when its type mentions long. *)
val parse_signature : marker:string -> string -> string * param list

(** The one-line comment ("// tinygrad-signature: NAME ptr i32") put in front of a compiled library. *)
val signature_header : string -> param list -> string

(** [with_signature ~marker src lib]: [lib] prefixed with the header of [src]'s kernel signature. *)
val with_signature : marker:string -> string -> string -> string

(** A library's signature header taken off: (name, params, the library itself). *)
val split_signature : string -> string * param list * string

(** A buffer argument: the launch slot, the base memory, the address a kernel sees, the byte offset into the base. *)
type buf_arg = { slot : int; mem : Device.opaque; address : nativeint; offset : int }

(** A packed kernel argument. *)
type arg = Buf of buf_arg | Var32 of int32 | Var64 of int64

(** tinygrad [encode_args]: one argument per parameter, in parameter order; the i-th pointer takes the launch's
    i-th buffer, the j-th int its j-th var (truncated to 32 bits for [Int32]); [addr] is the allocator's address of
    a base buffer (to recover a view's offset). [Invalid_argument] naming the kernel when the launch lacks one. *)
val pack_args : addr:(Device.opaque -> nativeint) -> name:string -> param list -> Device.launch -> arg list

(** A size array as 3 dims, missing ones 1; [Invalid_argument] for more than 3 or a negative dim. *)
val dims3 : what:string -> int array -> int * int * int

(** (grid, block) of a launch from its global and local sizes. *)
val launch_dims : global_size:int array -> local_size:int array -> (int * int * int) * (int * int * int)

(** Whether a launch has no threads (a dim is 0): the backends skip it. *)
val is_empty : (int * int * int) * (int * int * int) -> bool

(** tinygrad [ProgramSpec.launch_dims]: global and local sizes of a program with the vars' values substituted. *)
val program_dims : Uop.program_info -> (string * int) list -> int array * int array option

(** [Invalid_argument] (prefixed by [device]) when a launch exceeds the block dims, threads per block or grid dims. *)
val check_limits :
  device:string -> max_block:int * int * int -> max_threads:int -> max_grid:int * int * int ->
  (int * int * int) * (int * int * int) -> unit

(** tinygrad's CUDA arch from the compute capability: "sm_89". *)
val cuda_arch : major:int -> minor:int -> string

(** NVRTC options for PTX of a compute capability: ["--gpu-architecture=compute_89"]. *)
val nvrtc_options : major:int -> minor:int -> string list

(** tinygrad [Compiler.compile_cached]: [compile src] through the disk cache (cache_dir/KEY/MD5.lib, written by
    rename) unless [cachekey] is [None]. *)
val compile_cached : cachekey:string option -> compile:(string -> string) -> string -> string
