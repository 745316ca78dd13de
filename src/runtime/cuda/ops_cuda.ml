(* tinygrad: runtime/ops_cuda.py — CUDADevice, CUDAAllocator, CUDAProgram and NVRTCCompiler (support/compiler_cuda.py),
   over cudajit 0.7.2 (modules Cuda and Nvrtc). Differences forced by that API:
   - NVRTC output is PTX only (Nvrtc.compile_to_ptx), for the virtual arch compute_XY of the device; the library
     text is the PTX behind Gpu_launch's signature header (a PTX comment), loaded with Module.load_data_ex;
   - launch arguments go through Stream.kernel_param (Tensor = the CUdeviceptr, Int = C int, Size_t = 64 bits), not
     a packed struct; a view at a byte offset is passed as its raw address (Size_t), int64 vars as Size_t;
   - 0.7.2 has no device-side copy offsets: a copy into/out of a view at a non-zero offset goes through a staging
     allocation and a byte-copy kernel;
   - copies are synchronous (cuMemcpyHtoD / DtoH on the NULL stream), not tinygrad's pinned async copyin;
   - the context is the device's primary context (cudajit's recommendation) rather than cuCtxCreate. *)

open Tinygrad.Compiler

type Device.opaque += Cuda_mem of Cuda.Deviceptr.t

type dev = {
  name : string;
  ordinal : int;
  cu_device : Cuda.Device.t;
  context : Cuda.Context.t;
  attrs : Cuda.Device.attributes;
  arch : string;
  mutable pending : int;
}

let initialized = lazy (Cuda.init ())

(* the name of a CUresult / nvrtcResult ("CUDA_ERROR_NO_DEVICE"), from cudajit's converter *)
let status_name sexp = Sexplib0.Sexp.to_string sexp

(* cudajit's exceptions as Gpu_errors' messages: the call, the status, a hint, NVRTC's log *)
let cuda_message = function
  | Cuda.Cuda_error { status; message } ->
    Some (Gpu_errors.driver_error ~call:message ~status:(status_name (Cuda.sexp_of_result status)))
  | Nvrtc.Nvrtc_error { status; message } ->
    Some (Gpu_errors.nvrtc_error ~call:message ~status:(status_name (Nvrtc.sexp_of_result status)))
  | _ -> None

let () = Printexc.register_printer cuda_message

let ordinal_of name =
  match String.index_opt name ':' with
  | None -> 0
  | Some i -> (
      match int_of_string_opt (String.sub name (i + 1) (String.length name - i - 1)) with
      | Some o when o >= 0 -> o
      | _ -> invalid_arg (Printf.sprintf "CUDA: bad device %s" name))

(* tinygrad: CUDADevice.__init__ (cuInit, the device, its context and compute capability) *)
let open_device name =
  Lazy.force initialized;
  let ordinal = ordinal_of name in
  let count = Cuda.Device.get_count () in
  if ordinal >= count then failwith (Printf.sprintf "CUDA: no device %d (%d found)" ordinal count);
  let cu_device = Cuda.Device.get ~ordinal in
  let context = Cuda.Context.get_primary cu_device in
  Cuda.Context.set_current context;
  let attrs = Cuda.Device.get_attributes cu_device in
  let arch = Gpu_launch.cuda_arch ~major:attrs.compute_capability_major ~minor:attrs.compute_capability_minor in
  if Helpers.debug.value >= 1 then Printf.printf "CUDA: %s (%s) as %s\n%!" attrs.name arch name;
  { name; ordinal; cu_device; context; attrs; arch; pending = 0 }

let set_current d = Cuda.Context.set_current d.context

(* tinygrad: CUDADevice.synchronize; Context.synchronize also releases the argument cells of the NULL-stream launches *)
let synchronize d =
  set_current d;
  Cuda.Context.synchronize ();
  d.pending <- 0

let dptr = function Cuda_mem p -> p | _ -> invalid_arg "CUDA allocator: not CUDA memory"

(* the raw device address (Deviceptr.hash is the pointer as an OCaml int) *)
let address p = Nativeint.of_int (Cuda.Deviceptr.hash p)

(* ---------- the byte-copy kernel for copies at an offset (cudajit 0.7.2 has no device-side offsets) ---------- *)

let copy_src =
  "extern \"C\" __global__ void tg_copy_bytes(unsigned char* dst, const unsigned char* src, unsigned long long n) {\n\
  \  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n\
  \  if (i < n) dst[i] = src[i];\n}\n"

let copy_kernels : (int, Cuda.Module.t * Cuda.Module.func) Hashtbl.t = Hashtbl.create 2

let size_t_of_nativeint a = Unsigned.Size_t.of_int64 (Int64.of_nativeint a)

let copy_bytes d ~dst ~src n =
  let _m, f = match Hashtbl.find_opt copy_kernels d.ordinal with
    | Some k -> k
    | None ->
      let major = d.attrs.compute_capability_major and minor = d.attrs.compute_capability_minor in
      let ptx = Nvrtc.compile_to_ptx ~cu_src:copy_src ~name:"tg_copy_bytes.cu" ~options:(Gpu_launch.nvrtc_options ~major ~minor)
          ~with_debug:false in
      let m = Cuda.Module.load_data_ex ptx [] in
      let k = (m, Cuda.Module.get_function m ~name:"tg_copy_bytes") in
      Hashtbl.replace copy_kernels d.ordinal k; k in
  let threads = 256 in
  Cuda.Stream.launch_kernel f ~grid_dim_x:((n + threads - 1) / threads) ~block_dim_x:threads ~shared_mem_bytes:0
    Cuda.Stream.no_stream
    [ Size_t (size_t_of_nativeint dst); Size_t (size_t_of_nativeint src); Size_t (Unsigned.Size_t.of_int n) ];
  synchronize d

(* ---------- the allocator ---------- *)

let ba_nbytes (a : ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t) =
  Bigarray.Array1.dim a * Bigarray.kind_size_in_bytes (Bigarray.Array1.kind a)

let opened : (string, dev) Hashtbl.t = Hashtbl.create 2

(* tinygrad: CUDAAllocator (host=true buffers are device memory too: cudajit 0.7.2 has no cuMemHostAlloc) *)
let raw_allocator d : Device.allocator =
  let alloc size (spec : Device.buffer_spec) =
    set_current d;
    let p = try Cuda.Deviceptr.mem_alloc ~size_in_bytes:size with
      | Cuda.Cuda_error _ as e -> failwith (Printf.sprintf "CUDA: cannot allocate %d bytes: %s" size (Printexc.to_string e)) in
    if spec.zero then Cuda.Deviceptr.memset_d8 p Unsigned.UChar.zero ~length:size;
    Cuda_mem p in
  let free o _size _spec = Cuda.Deviceptr.mem_free (dptr o) in
  let copyin : 'a 'b. Device.opaque -> int -> ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t -> unit =
    fun dst off src ->
    let n = ba_nbytes src in
    if n > 0 then begin
      set_current d;
      let host = Bigarray.genarray_of_array1 src in
      if off = 0 then Cuda.Deviceptr.memcpy_H_to_D ~dst:(dptr dst) ~src:host ()
      else begin
        let tmp = Cuda.Deviceptr.mem_alloc ~size_in_bytes:n in
        Cuda.Deviceptr.memcpy_H_to_D ~dst:tmp ~src:host ();
        copy_bytes d ~dst:(Nativeint.add (address (dptr dst)) (Nativeint.of_int off)) ~src:(address tmp) n;
        Cuda.Deviceptr.mem_free tmp
      end
    end in
  (* tinygrad: _copyout, after CUDADevice.synchronize_system *)
  let copyout : 'a 'b. ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t -> Device.opaque -> int -> unit =
    fun dst src off ->
    let n = ba_nbytes dst in
    synchronize d;
    if n > 0 then begin
      let host = Bigarray.genarray_of_array1 dst in
      if off = 0 then Cuda.Deviceptr.memcpy_D_to_H ~dst:host ~src:(dptr src) ()
      else begin
        let tmp = Cuda.Deviceptr.mem_alloc ~size_in_bytes:n in
        copy_bytes d ~dst:(address tmp) ~src:(Nativeint.add (address (dptr src)) (Nativeint.of_int off)) n;
        Cuda.Deviceptr.memcpy_D_to_H ~dst:host ~src:tmp ();
        Cuda.Deviceptr.mem_free tmp
      end
    end in
  (* tinygrad: CUDAAllocator._transfer — a copy from another CUDA device: cuMemcpyPeer between the two devices'
     contexts (a copy within the device when both are one), after the source's pending work; a view at an offset
     (cudajit 0.7.2's copies take none) goes through the host *)
  let transfer ~dst ~dst_offset ~src ~src_offset ~src_device n =
    let s = match Hashtbl.find_opt opened src_device with
      | Some s -> s
      | None -> invalid_arg (Printf.sprintf "CUDA transfer: %s is not an open CUDA device" src_device) in
    synchronize s;
    if n > 0 then begin
      if dst_offset = 0 && src_offset = 0 then begin
        set_current d;
        if s.ordinal = d.ordinal then Cuda.Deviceptr.memcpy_D_to_D ~size_in_bytes:n ~dst:(dptr dst) ~src:(dptr src) ()
        else Cuda.Deviceptr.memcpy_peer ~size_in_bytes:n ~dst:(dptr dst) ~dst_ctx:d.context ~src:(dptr src)
            ~src_ctx:s.context ()
      end else begin
        let tmp = Bigarray.Array1.create Bigarray.char Bigarray.c_layout n in
        (Device.get src_device).allocator.copyout tmp src src_offset;
        copyin dst dst_offset tmp
      end
    end in
  { alloc; free; copyin; copyout; addr = (fun o -> address (dptr o));
    free_cache = (fun () -> ()); as_host = None; transfer = Some transfer }

(* ---------- the compiler ---------- *)

(* tinygrad: NVRTCCompiler.compile, PTX for the device's compute capability; errors become Compile_error *)
let compile d src =
  set_current d;
  let major = d.attrs.compute_capability_major and minor = d.attrs.compute_capability_minor in
  let ptx = try Nvrtc.compile_to_ptx ~cu_src:src ~name:"<null>" ~options:(Gpu_launch.nvrtc_options ~major ~minor)
      ~with_debug:false with
    | Nvrtc.Nvrtc_error _ as e -> raise (Device.Compile_error { source = src; output = Printexc.to_string e })
    | Failure m -> raise (Device.Compile_error { source = src; output = m }) in
  Gpu_launch.with_signature ~marker:"__global__" src (Nvrtc.string_from_ptx ptx)

(* ---------- programs ---------- *)

(* the launches after which the NULL stream is synchronized, so cudajit's kept argument cells do not pile up *)
let max_pending = 4096

let kernel_param : Gpu_launch.arg -> Cuda.Stream.kernel_param = function
  | Buf { mem = Cuda_mem p; offset = 0; _ } -> Tensor p
  | Buf { address; _ } -> Size_t (size_t_of_nativeint address)
  | Var32 v -> Int (Int32.to_int v)
  | Var64 v -> Size_t (Unsigned.Size_t.of_int64 v)

(* tinygrad: CUDAProgram *)
let load d ~name ~lib =
  let _, params, ptx = Gpu_launch.split_signature lib in
  set_current d;
  if Helpers.debug.value >= 5 then print_endline ptx;
  let text = Ctypes.CArray.of_string ptx in
  let image = { Nvrtc.log = None; ptx = Ctypes.CArray.start text; ptx_length = String.length ptx } in
  let m = try Cuda.Module.load_data_ex image [] with
    | Cuda.Cuda_error _ as e -> failwith (Printf.sprintf "CUDA: module load of %s failed: %s" name (Printexc.to_string e)) in
  ignore (Sys.opaque_identity text);
  let func = Cuda.Module.get_function m ~name in
  let a = d.attrs in
  let launch l ~global_size ~local_size =
    let dims = Gpu_launch.launch_dims ~global_size ~local_size in
    if not (Gpu_launch.is_empty dims) then begin
      Gpu_launch.check_limits ~device:d.name ~max_block:(a.max_block_dim_x, a.max_block_dim_y, a.max_block_dim_z)
        ~max_threads:a.max_threads_per_block ~max_grid:(a.max_grid_dim_x, a.max_grid_dim_y, a.max_grid_dim_z) dims;
      let args = List.map kernel_param (Gpu_launch.pack_args ~addr:(fun o -> address (dptr o)) ~name params l) in
      let (gx, gy, gz), (lx, ly, lz) = dims in
      set_current d;
      Cuda.Stream.launch_kernel func ~grid_dim_x:gx ~grid_dim_y:gy ~grid_dim_z:gz ~block_dim_x:lx ~block_dim_y:ly
        ~block_dim_z:lz ~shared_mem_bytes:0 Cuda.Stream.no_stream args;
      ignore (Sys.opaque_identity m);
      d.pending <- d.pending + 1;
      if d.pending >= max_pending then synchronize d
    end in
  (* tinygrad: cu_time_execution, two events around the launch on the NULL stream; seconds *)
  let timed l ~global_size ~local_size =
    set_current d;
    let st = Cuda.Event.create ~enable_timing:true () and en = Cuda.Event.create ~enable_timing:true () in
    Cuda.Event.record st Cuda.Stream.no_stream;
    launch l ~global_size ~local_size;
    Cuda.Event.record en Cuda.Stream.no_stream;
    Cuda.Event.synchronize en;
    Cuda.Event.elapsed_time ~start:st ~end_:en *. 1e-3 in
  { Device.name; call = launch; timed_call = Some timed }

(* ---------- the device ---------- *)


(* tinygrad: CUDADevice *)
let create name =
  let d = match Hashtbl.find_opt opened name with
    | Some d -> d
    | None -> let d = open_device name in Hashtbl.replace opened name d; d in
  let cachekey = if Helpers.ccache.value <> 0 then Some ("compile_cuda_" ^ d.arch) else None in
  { Device.device = name;
    allocator = Device.lru_allocator (raw_allocator d);
    compiler = { cachekey; compile = compile d; compile_cached = Gpu_launch.compile_cached ~cachekey ~compile:(compile d);
                 compile_many = ignore; prefetch = ignore };
    runtime = (fun ~name ~lib ~runtimevars:_ -> load d ~name ~lib);
    synchronize = (fun () -> synchronize d) }

let () =
  Device.register "CUDA" create;
  Device.register_renderer "CUDA" (fun name ->
      let d = match Hashtbl.find_opt opened name with Some d -> d | None -> ignore (Device.get name); Hashtbl.find opened name in
      Cstyle.cuda_renderer ~arch:d.arch)
