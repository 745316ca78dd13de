(** tinygrad's device.py: the device registry ([Device[...]]), Buffer with lazy allocation, allocators (LRU),
    Compiler and Program, and the compile error. *)

(** Host bytes. *)
type bytes_ba = (char, Bigarray.int8_unsigned_elt, Bigarray.c_layout) Bigarray.Array1.t

(** tinygrad's BufferSpec. *)
type buffer_spec = { uncached : bool; cpu_access : bool; host : bool; nolru : bool; zero : bool }

(** All flags false. *)
val default_spec : buffer_spec

(** Device memory as an allocator hands it out; backends add constructors. *)
type opaque = ..

(** Host memory (the CPU device). The CPU allocator's Bigarray does not own its memory, which is reused once the
    Bigarray is unreachable: keep the [Host] value alive while using its data (a sub-array does not). *)
type opaque += Host of bytes_ba

(** A compile failure: the source given to the compiler and the compiler's message. *)
exception Compile_error of { source : string; output : string }

(** tinygrad's Allocator: raw alloc/free, copies from/to host Bigarrays at a byte offset, the raw address a
    kernel sees, and [free_cache] (LRU). [as_host] is tinygrad's [_as_buffer]: a view of [n] bytes at an offset
    of memory the host can write (CPU); [transfer] is tinygrad's [_transfer]: a copy from a buffer of another
    device of the same type, without the host (CUDA's peer copy). *)
type allocator = {
  alloc : int -> buffer_spec -> opaque;
  free : opaque -> int -> buffer_spec -> unit;
  copyin : 'a 'b. opaque -> int -> ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t -> unit;
  copyout : 'a 'b. ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t -> opaque -> int -> unit;
  addr : opaque -> nativeint;
  free_cache : unit -> unit;
  as_host : (opaque -> int -> int -> bytes_ba) option;
  transfer : (dst:opaque -> dst_offset:int -> src:opaque -> src_offset:int -> src_device:string -> int -> unit) option;
}

(** tinygrad's LRUAllocator: freed buffers are kept by (size, spec) and reused (unless [LRU=0], nolru or
    zero); [free_cache] also runs the base's. [size_class] (default the identity, as tinygrad) maps a request
    to the size the base allocates and the cache keys it by: one cached buffer serves its whole class. *)
val lru_allocator : ?size_class:(int -> int) -> allocator -> allocator

(** tinygrad's Compiler: [compile] source to a library (for CPU: a shared object's path), [compile_cached]
    through the disk cache; [cachekey] is [None] when [CCACHE=0]. [compile_many] is BEAM's worker pool
    (tinygrad compiles candidates in [PARALLEL] processes): it fills the cache for many sources at once, so that
    [compile_cached] then finds them; a failure is left for [compile_cached] to raise. [prefetch] (not in
    tinygrad) starts compiling one source into the cache in the background and returns at once, so that the
    compilers run while the next kernels are lowered; [compile_cached] waits for it. *)
type compiler = {
  cachekey : string option;
  compile : string -> string;
  compile_cached : string -> string;
  compile_many : string list -> unit;
  prefetch : string -> unit;
}

(** The argument arrays of a launch (raw buffer addresses, int vars), filled once and reused across calls;
    [keep] holds the memory behind the addresses so the GC cannot free it while the launch is alive. *)
type launch = {
  bufs : (nativeint, Bigarray.nativeint_elt, Bigarray.c_layout) Bigarray.Array1.t;
  vars : (int64, Bigarray.int64_elt, Bigarray.c_layout) Bigarray.Array1.t;
  keep : opaque option array;
}

(** tinygrad's Program: a loaded kernel; [call] launches it (asynchronously on a GPU), [timed_call] (for backends
    that time kernels on the device, e.g. with GPU events) runs it to completion and returns the device time in
    seconds (tinygrad's [Program.__call__(wait=True)]). *)
type program = {
  name : string;
  call : launch -> global_size:int array -> local_size:int array -> unit;
  timed_call : (launch -> global_size:int array -> local_size:int array -> float) option;
}

(** tinygrad's Compiled: a device's allocator, compiler and runtime ([runtime ~name ~lib ~runtimevars] loads a
    kernel; [runtimevars] maps runtime var names such as "core_id" to var slots). *)
type compiled = {
  device : string;
  allocator : allocator;
  compiler : compiler;
  runtime : name:string -> lib:string -> runtimevars:(string * int) list -> program;
  synchronize : unit -> unit;
}

(** tinygrad's ALL_DEVICES, in the order a default device is looked for. *)
val all_devices : string list

(** Registers a device class under its base name ("CPU"); the function opens a device ("CPU", "CUDA:1").
    Optional backend libraries (tinygrad.cuda, tinygrad.metal) call it when they are linked. *)
val register : string -> (string -> compiled) -> unit

(** The registered device names, in ALL_DEVICES order. *)
val registered : unit -> string list

(** Devices this build knows of but cannot open, with the reason, in ALL_DEVICES order: the optional backends
    (tinygrad.backends) record theirs (package not installed, driver or NVRTC missing). *)
val unavailable : unit -> (string * string) list

(** The reason a device (base name) is unavailable, if it is. *)
val unavailable_reason : string -> string option

(** [set_unavailable name reason] unregisters a device class and records why it is unavailable. *)
val set_unavailable : string -> string -> unit

(** [Device.DEFAULT]: DEV's device, else the first registered device that opens (CPU when only CPU is built);
    [Invalid_argument] naming the device and the reason when DEV names a device without a backend, or a GPU that
    cannot start (opened here, so that a missing driver or device is reported when it is selected). *)
val default : unit -> string

(** "cpu:0" -> "CPU", "cuda:1" -> "CUDA:1"; [None] is the default device. *)
val canonicalize : string option -> string

(** [Device[ix]]: opens a device once and returns it; [Invalid_argument] for an unknown device or one without a
    backend (the message names the device and the reason). *)
val get : string -> compiled

(** Registers the renderer of a device class (tinygrad's [Compiled.renderer]); the function gets the device. *)
val register_renderer : string -> (string -> Renderer.t) -> unit

(** The renderer of a device; [Invalid_argument] when none is registered. *)
val renderer : string -> Renderer.t

(** Whether a canonical device name is a CPU device ("CPU", "CPU:1"). *)
val is_cpu : string -> bool

(** tinygrad's Buffer: allocated on first use, views share their base's memory. *)
module Buffer : sig
  (** A buffer: device, size in elements, dtype, spec, byte offset into its base. *)
  type t = {
    device : string;
    size : int;
    dtype : Dtype.t;
    options : buffer_spec option;
    offset : int;
    base_buf : t option;
    mutable opaque : opaque option;
    mutable allocated_views : int;
    mutable uop_refcount : int;
    mutable released : bool;
    counted : int ref;  (** the bytes of this base buffer that [Global_counters] counts as used *)
  }

  (** A buffer on a device (canonicalized), allocated now only with [preallocate]. *)
  val create : ?options:buffer_spec -> ?preallocate:bool -> string -> int -> Dtype.t -> t

  (** The buffer owning the memory (itself unless a view). *)
  val base : t -> t

  (** Size in bytes. *)
  val nbytes : t -> int

  (** Whether the memory exists (the base's for a view). *)
  val is_allocated : t -> bool

  (** Same as [is_allocated] (tinygrad distinguishes mapped copies on other devices). *)
  val is_initialized : t -> bool

  (** Allocates (a view allocates its base); fails if already allocated. *)
  val allocate : t -> t

  (** Allocates unless allocated. *)
  val ensure_allocated : t -> t

  (** Returns the memory to the allocator (the LRU cache keeps it). *)
  val deallocate : t -> unit

  (** Deallocates a base buffer for good (its memory back in the allocator's cache) and marks it released: a
      later allocation, of it or of a view, raises [Invalid_argument]. Not in tinygrad: the tensor layer
      releases a realize's output once no tensor reaches it. *)
  val release : t -> unit

  (** [view b size dtype offset]: [size] elements of [dtype] at byte [offset] of [b]. *)
  val view : t -> int -> Dtype.t -> int -> t

  (** The raw address a kernel sees (allocates if needed). *)
  val addr : t -> nativeint

  (** Copies a host Bigarray of any kind and the same byte size in (allocates if needed). *)
  val copyin : t -> ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t -> unit

  (** Copies the buffer out into a host Bigarray of any kind and the same byte size. *)
  val copyout : t -> ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t -> unit

  (** A copy of the bytes (tinygrad's as_memoryview). *)
  val as_bytes : t -> bytes_ba

  (** [copy_from dst src]: copies the bytes of [src] (same byte size): with the destination allocator's
      [transfer] between devices of one type, through memory the host can write where either side has it (every
      [CPU:n]), else through a host copy of the bytes. *)
  val copy_from : t -> t -> unit

  (** [of_bigarray ?device dtype ba]: a buffer of [dtype] holding the bytes of [ba] (any kind, reinterpreted; its
      byte size must be a multiple of the dtype's itemsize, else [Invalid_argument]), on [device] (the default
      device when absent). Not in tinygrad (whose [Tensor(ndarray)] copies).
      - On CPU, when [ba]'s data are aligned to {!host_view_alignment} bytes, the buffer is a view of the same
        memory, no copy: it is already allocated, keeps [ba] alive as long as the buffer's memory is reachable, and
        writes go both ways (a kernel that writes into the buffer, e.g. an [assign], changes [ba]; changes to [ba]
        are seen by later kernels). Its memory is never reused for another buffer once freed. For a file mapped
        with [Unix.map_file ~shared:false], writes stay in the process's private pages and never reach the file.
      - Otherwise (another device, unaligned data) the bytes are copied once into a fresh buffer.
      Bigarray data from [Bigarray.*.create] are 16-byte aligned (malloc), file mappings page-aligned. *)
  val of_bigarray : ?device:string -> Dtype.t -> ('a, 'b, Bigarray.c_layout) Bigarray.Genarray.t -> t

  (** Whether the buffer is a view of the Bigarray's memory (as {!of_bigarray} makes on CPU). *)
  val shares_memory : t -> ('a, 'b, Bigarray.c_layout) Bigarray.Genarray.t -> bool

  (** The alignment in bytes a CPU kernel assumes of a buffer's address (16: vector types are declared aligned to
      at most a float4); {!of_bigarray} views only memory aligned to it. *)
  val host_view_alignment : unit -> int

  (** Copies floats in, converted to the dtype (floats, half, bfloat16, fp8 as tinygrad's [float_to_fp8], ints
      truncated, bool). *)
  val copyin_floats : t -> float array -> unit

  (** The values as floats (fp8 decoded as tinygrad's [fp8_to_float]). *)
  val to_floats : t -> float array

  (** Copies ints in, wrapped to the dtype. *)
  val copyin_ints : t -> int array -> unit

  (** The values as ints (floats truncated). *)
  val to_ints : t -> int array

  (** tinygrad's repr: ["<buf real:true device:CPU size:4 dtype:dtypes.float>"]. *)
  val to_string : t -> string
end

(** Building the argument arrays of a launch. *)
module Launch : sig
  (** Zeroed arrays for [nbufs] buffers and [nvars] vars. *)
  val create : nbufs:int -> nvars:int -> launch

  (** Stores the buffer's address in slot [i] (allocates the buffer if needed). *)
  val set_buf : launch -> int -> Buffer.t -> unit

  (** Stores an int var in slot [i]. *)
  val set_var : launch -> int -> int -> unit

  (** A launch with these buffers and vars. *)
  val of_buffers : Buffer.t list -> int list -> launch
end

(** Runs a program (global/local size default to 1,1,1); with [wait] returns the wall time in seconds, else 0. *)
val run_program : ?global_size:int array -> ?local_size:int array -> ?wait:bool -> program -> launch -> float
