(** tinygrad's [runtime/ops_cuda.py] over cudajit 0.7.2: NVRTC compiles the CUDA source to PTX for the device's
    compute capability, the PTX is loaded as a module, buffers come from [Deviceptr.mem_alloc] behind the LRU
    cache, kernels are launched on the NULL stream with the arguments in tinygrad's order, timed with CUDA events
    when waited on. Linking this library registers "CUDA" (and its renderer, when the CUDA renderer exists) in
    {!Tinygrad.Device}. *)

(** Device memory. *)
type Tinygrad.Device.opaque += Cuda_mem of Cuda.Deviceptr.t

(** An opened CUDA device. *)
type dev = {
  name : string;  (** "CUDA", "CUDA:1" *)
  ordinal : int;
  cu_device : Cuda.Device.t;
  context : Cuda.Context.t;
  attrs : Cuda.Device.attributes;
  arch : string;  (** tinygrad's arch, "sm_89" *)
  mutable pending : int;  (** launches since the last synchronize (their argument cells are kept by cudajit) *)
}

(** Opens a device ("CUDA" is ordinal 0, "CUDA:1" ordinal 1): cuInit, the primary context, the attributes. *)
val open_device : string -> dev

(** The allocator (raw, without the LRU cache). *)
val raw_allocator : dev -> Tinygrad.Device.allocator

(** NVRTC: CUDA source to PTX (prefixed with the kernel's signature header); raises {!Tinygrad.Device.Compile_error}. *)
val compile : dev -> string -> string

(** Loads a compiled kernel (module load, function lookup) as a Device program. *)
val load : dev -> name:string -> lib:string -> Tinygrad.Device.program

(** Waits for the device (tinygrad's CUDADevice.synchronize). *)
val synchronize : dev -> unit

(** The device record (tinygrad's CUDADevice). *)
val create : string -> Tinygrad.Device.compiled
