(** tinygrad's [runtime/ops_metal.py] over metal 0.1.1: MSL compiled with [Library.on_device], a compute pipeline
    state per kernel, shared-storage buffers behind the LRU cache, one command buffer + compute encoder per launch
    ([set_buffer] / [set_bytes], [dispatch_threadgroups]), completion waits and GPU timing from the command
    buffer. Linking this library registers "METAL" (and its renderer) in {!Tinygrad.Device}. *)

(** Device memory: a shared-storage buffer. *)
type Tinygrad.Device.opaque += Metal_mem of Metal.Buffer.t

(** An opened Metal device. *)
type dev = {
  name : string;
  device : Metal.Device.t;
  queue : Metal.CommandQueue.t;
  arch : string;  (** tinygrad's arch: the highest Apple GPU family ("Apple9"), else the Mac family *)
  mutable in_flight : Metal.CommandBuffer.t list;  (** committed, not yet waited for *)
  libraries : (string, Metal.Library.t) Hashtbl.t;  (** compiled sources *)
}

(** Opens the system default device (tinygrad's MetalDevice.__init__). *)
val open_device : string -> dev

(** The allocator (raw, without the LRU cache). *)
val raw_allocator : dev -> Tinygrad.Device.allocator

(** Compiles MSL ([Library.on_device]); returns the source behind the signature header; raises
    {!Tinygrad.Device.Compile_error}. *)
val compile : dev -> string -> string

(** Loads a kernel (function, pipeline state) as a Device program. *)
val load : dev -> name:string -> lib:string -> Tinygrad.Device.program

(** Waits for every command buffer in flight and checks its error (tinygrad's MetalDevice.synchronize). *)
val synchronize : dev -> unit

(** The device record (tinygrad's MetalDevice). *)
val create : string -> Tinygrad.Device.compiled
