(* tinygrad: runtime/ops_metal.py — MetalDevice, MetalAllocator, MetalProgram over metal 0.1.1. Differences forced
   by that API: MSL is compiled from source with Library.on_device (tinygrad calls the private MTLCompiler service
   and loads the metallib); the library text is the source behind Gpu_launch's signature header, and the compiled
   Library is kept per source so a kernel is compiled once. *)

open Tinygrad.Compiler

type Device.opaque += Metal_mem of Metal.Buffer.t

type dev = {
  name : string;
  device : Metal.Device.t;
  queue : Metal.CommandQueue.t;
  arch : string;
  mutable in_flight : Metal.CommandBuffer.t list;
  libraries : (string, Metal.Library.t) Hashtbl.t;
}

(* tinygrad: check_family("Apple") or check_family("Mac"), the highest family the device supports *)
let family_arch device =
  let open Metal.Device.GPUFamily in
  let names = [ (Apple9, "Apple9"); (Apple8, "Apple8"); (Apple7, "Apple7"); (Apple6, "Apple6"); (Apple5, "Apple5");
                (Apple4, "Apple4"); (Apple3, "Apple3"); (Apple2, "Apple2"); (Apple1, "Apple1"); (Mac2, "Mac2");
                (Mac1, "Mac1") ] in
  match List.find_opt (fun (f, _) -> Metal.Device.supports_family device f) names with
  | Some (_, n) -> n
  | None -> "Apple1"

(* the most command buffers in flight (tinygrad: newCommandQueueWithMaxCommandBufferCount(1024)) *)
let max_in_flight = 1024

(* tinygrad: MetalDevice.__init__ *)
let open_device name =
  let device = Metal.Device.create_system_default () in
  let queue = Metal.CommandQueue.on_device_with_max_buffer_count device max_in_flight in
  let arch = family_arch device in
  if Helpers.debug.value >= 1 then Printf.printf "METAL: %s (%s) as %s\n%!" (Metal.Device.get_attributes device).name arch name;
  { name; device; queue; arch; in_flight = []; libraries = Hashtbl.create 64 }

(* tinygrad: wait_check *)
let wait_check cb =
  Metal.CommandBuffer.wait_until_completed cb;
  match Metal.CommandBuffer.get_error cb with
  | Some e -> failwith ("METAL: command buffer failed: " ^ e)
  | None -> ()

(* tinygrad: MetalDevice.synchronize *)
let synchronize d =
  let cbs = List.rev d.in_flight in
  d.in_flight <- [];
  List.iter wait_check cbs

let buffer = function Metal_mem b -> b | _ -> invalid_arg "METAL allocator: not Metal memory"

let address b = Ctypes.raw_address_of_ptr (Metal.Buffer.contents b)

(* the bytes of a host Bigarray of any kind, as chars (no copy) *)
let host_bytes (a : ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t) =
  let n = Bigarray.Array1.dim a * Bigarray.kind_size_in_bytes (Bigarray.Array1.kind a) in
  let p = Ctypes.to_voidp (Ctypes.bigarray_start Ctypes.array1 a) in
  Ctypes.bigarray_of_ptr Ctypes.array1 n Bigarray.char (Ctypes.from_voidp Ctypes.char p)

(* the [n] bytes at [off] of a shared buffer (no copy) *)
let buffer_bytes b off n =
  let p = Ctypes.from_voidp Ctypes.char (Metal.Buffer.contents b) in
  Ctypes.bigarray_of_ptr Ctypes.array1 n Bigarray.char (Ctypes.( +@ ) p off)

(* tinygrad: MetalAllocator (shared storage; copies through the CPU pointer after a synchronize) *)
let raw_allocator d : Device.allocator =
  let alloc size (spec : Device.buffer_spec) =
    let b = try Metal.Buffer.on_device d.device ~length:size Metal.ResourceOptions.storage_mode_shared with
      | Failure m -> failwith (Printf.sprintf "Metal OOM while allocating size=%d: %s" size m) in
    if spec.zero then Bigarray.Array1.fill (buffer_bytes b 0 size) '\000';
    Metal_mem b in
  let copyin : 'a 'b. Device.opaque -> int -> ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t -> unit =
    fun dst off src ->
    synchronize d;
    let s = host_bytes src in
    let n = Bigarray.Array1.dim s in
    let b = buffer dst in
    if off < 0 || off + n > Metal.Buffer.length b then invalid_arg "METAL copyin: out of bounds";
    if n > 0 then Bigarray.Array1.blit s (buffer_bytes b off n) in
  let copyout : 'a 'b. ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t -> Device.opaque -> int -> unit =
    fun dst src off ->
    synchronize d;
    let t = host_bytes dst in
    let n = Bigarray.Array1.dim t in
    let b = buffer src in
    if off < 0 || off + n > Metal.Buffer.length b then invalid_arg "METAL copyout: out of bounds";
    if n > 0 then Bigarray.Array1.blit (buffer_bytes b off n) t in
  { alloc; free = (fun _ _ _ -> ());  (* the GC releases the MTLBuffer *)
    copyin; copyout; addr = (fun o -> address (buffer o));
    free_cache = (fun () -> ()); as_host = None; transfer = None }

(* ---------- the compiler ---------- *)

(* MSL 3.1 (bfloat) when the OS has it, else the default; -fno-fast-math as tinygrad *)
let compile_library d src =
  let with_version v =
    let opts = Metal.CompileOptions.init () in
    Metal.CompileOptions.set_fast_math_enabled opts false;
    Option.iter (Metal.CompileOptions.set_language_version opts) v;
    Metal.Library.on_device d.device ~source:src opts in
  try with_version (Some Metal.CompileOptions.LanguageVersion.version_3_1)
  with Failure _ -> with_version None

let library d src =
  match Hashtbl.find_opt d.libraries src with
  | Some l -> l
  | None ->
    let l = try compile_library d src with Failure m -> raise (Device.Compile_error { source = src; output = m }) in
    Hashtbl.replace d.libraries src l;
    l

(* tinygrad: MetalCompiler.compile (the library is the checked source) *)
let compile d src =
  ignore (library d src);
  Gpu_launch.with_signature ~marker:"kernel void" src src

(* ---------- programs ---------- *)

(* tinygrad: MetalProgram *)
let load d ~name ~lib =
  let _, params, src = Gpu_launch.split_signature lib in
  let fn = Metal.Library.new_function_with_name (library d src) name in
  let pso = fst (Metal.ComputePipelineState.on_device_with_function d.device fn) in
  let max_total_threads = Metal.ComputePipelineState.get_max_total_threads_per_threadgroup pso in
  let launch l ~global_size ~local_size ~wait =
    let dims = Gpu_launch.launch_dims ~global_size ~local_size in
    let (gx, gy, gz), (lx, ly, lz) = dims in
    if lx * ly * lz > max_total_threads then
      failwith (Printf.sprintf "local size (%d, %d, %d) bigger than %d with exec width %d memory length %d" lx ly lz
                  max_total_threads (Metal.ComputePipelineState.get_thread_execution_width pso)
                  (Metal.ComputePipelineState.get_static_threadgroup_memory_length pso));
    if Gpu_launch.is_empty dims then 0.0
    else begin
      let args = Gpu_launch.pack_args ~addr:(fun o -> address (buffer o)) ~name params l in
      if List.length d.in_flight >= max_in_flight then synchronize d;
      let cb = Metal.CommandBuffer.on_queue d.queue in
      let enc = Metal.ComputeCommandEncoder.on_buffer cb in
      Metal.ComputeCommandEncoder.set_compute_pipeline_state enc pso;
      List.iteri (fun index (a : Gpu_launch.arg) ->
          match a with
          | Buf { mem; offset; _ } -> Metal.ComputeCommandEncoder.set_buffer enc ~offset ~index (buffer mem)
          | Var32 v ->
            let c = Ctypes.allocate Ctypes.int32_t v in
            Metal.ComputeCommandEncoder.set_bytes enc ~bytes:(Ctypes.to_voidp c) ~length:4 ~index
          | Var64 v ->
            let c = Ctypes.allocate Ctypes.int64_t v in
            Metal.ComputeCommandEncoder.set_bytes enc ~bytes:(Ctypes.to_voidp c) ~length:8 ~index) args;
      Metal.ComputeCommandEncoder.dispatch_threadgroups enc
        ~threadgroups_per_grid:{ Metal.Size.width = gx; height = gy; depth = gz }
        ~threads_per_threadgroup:{ Metal.Size.width = lx; height = ly; depth = lz };
      Metal.ComputeCommandEncoder.end_encoding enc;
      Metal.CommandBuffer.commit cb;
      d.in_flight <- cb :: d.in_flight;
      if wait then begin
        wait_check cb;
        Metal.CommandBuffer.get_gpu_end_time cb -. Metal.CommandBuffer.get_gpu_start_time cb
      end else 0.0
    end in
  { Device.name;
    call = (fun l ~global_size ~local_size -> ignore (launch l ~global_size ~local_size ~wait:false));
    timed_call = Some (fun l ~global_size ~local_size -> launch l ~global_size ~local_size ~wait:true) }

(* ---------- the device ---------- *)

let opened : (string, dev) Hashtbl.t = Hashtbl.create 2

(* tinygrad: MetalDevice *)
let create name =
  let d = match Hashtbl.find_opt opened name with
    | Some d -> d
    | None -> let d = open_device name in Hashtbl.replace opened name d; d in
  { Device.device = name;
    allocator = Device.lru_allocator (raw_allocator d);
    compiler = { cachekey = None; compile = compile d; compile_cached = compile d; compile_many = ignore; prefetch = ignore };
    runtime = (fun ~name ~lib ~runtimevars:_ -> load d ~name ~lib);
    synchronize = (fun () -> synchronize d) }

let () =
  Device.register "METAL" create;
  Device.register_renderer "METAL" (fun name ->
      let d = match Hashtbl.find_opt opened name with Some d -> d | None -> ignore (Device.get name); Hashtbl.find opened name in
      Cstyle.metal_renderer ~arch:d.arch ())
