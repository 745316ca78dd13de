(* tinygrad: device.py — the device registry, Buffer, allocators (LRU), Compiler and Program *)
open Bigarray

type bytes_ba = (char, int8_unsigned_elt, c_layout) Array1.t

(* ---------- buffer specs and opaque device memory ---------- *)

(* tinygrad: BufferSpec *)
type buffer_spec = { uncached : bool; cpu_access : bool; host : bool; nolru : bool; zero : bool }

let default_spec = { uncached = false; cpu_access = false; host = false; nolru = false; zero = false }

(* what an allocator hands out; each backend adds its constructor *)
type opaque = ..
type opaque += Host of bytes_ba

(* tinygrad: CompileError; carries the source that failed and the compiler's message *)
exception Compile_error of { source : string; output : string }

let () =
  Printexc.register_printer (function
    | Compile_error { source; output } ->
      Some (Printf.sprintf "Compile_error:\n%s\n--- source ---\n%s" output source)
    | _ -> None)

(* ---------- allocators ---------- *)

type allocator = {
  alloc : int -> buffer_spec -> opaque;
  free : opaque -> int -> buffer_spec -> unit;
  copyin : 'a 'b. opaque -> int -> ('a, 'b, c_layout) Array1.t -> unit;
  copyout : 'a 'b. ('a, 'b, c_layout) Array1.t -> opaque -> int -> unit;
  addr : opaque -> nativeint;
  free_cache : unit -> unit;
  as_host : (opaque -> int -> int -> bytes_ba) option;
  transfer : (dst:opaque -> dst_offset:int -> src:opaque -> src_offset:int -> src_device:string -> int -> unit) option;
}

(* [size_class] maps a request to the size it is allocated and cached under (the base allocator gets that
   size): the identity in tinygrad *)
let lru_allocator ?(size_class = Fun.id) (base : allocator) =
  let cache : (int * buffer_spec, opaque list) Hashtbl.t = Hashtbl.create 16 in
  let free_cache () =
    Hashtbl.iter (fun (sz, spec) l -> List.iter (fun o -> base.free o sz spec) l) cache;
    Hashtbl.reset cache;
    (* the base allocator's own cache (CPU: the memory the GC found dead) *)
    base.free_cache () in
  (* tinygrad: LRUAllocator.alloc, reuse a cached buffer of this size, free the cache and retry on failure *)
  let alloc size spec =
    let size = size_class size in
    match Hashtbl.find_opt cache (size, spec) with
    | Some (o :: rest) -> Hashtbl.replace cache (size, spec) rest; o
    | Some [] | None -> (
        (* tinygrad catches RuntimeError/MemoryError: here Out_of_memory, or Failure from a GPU backend *)
        try base.alloc size spec with Out_of_memory | Failure _ -> free_cache (); base.alloc size spec) in
  let free o size spec =
    let size = size_class size in
    if Helpers.lru.value <> 0 && not (spec.nolru || spec.zero) then
      Hashtbl.replace cache (size, spec) (o :: Option.value ~default:[] (Hashtbl.find_opt cache (size, spec)))
    else base.free o size spec in
  { base with alloc; free; free_cache }

(* ---------- compilers and programs ---------- *)

(* tinygrad: Compiler; [compile_cached] returns the library ([compile] output), from the disk cache when possible *)
type compiler = {
  cachekey : string option;
  compile : string -> string;
  compile_cached : string -> string;
  compile_many : string list -> unit;
  prefetch : string -> unit;
}

(* the argument arrays of a launch: raw buffer addresses and int vars, filled once and reused; [keep] holds the
   memory behind the addresses so the GC cannot free it while the launch exists *)
type launch = {
  bufs : (nativeint, nativeint_elt, c_layout) Array1.t;
  vars : (int64, int64_elt, c_layout) Array1.t;
  keep : opaque option array;
}

(* tinygrad: Program; [timed_call] is Program.__call__(wait=True): runs to completion and returns the seconds the
   device measured (GPU events), for backends that can time kernels *)
type program = {
  name : string;
  call : launch -> global_size:int array -> local_size:int array -> unit;
  timed_call : (launch -> global_size:int array -> local_size:int array -> float) option;
}

(* tinygrad: Compiled *)
type compiled = {
  device : string;
  allocator : allocator;
  compiler : compiler;
  runtime : name:string -> lib:string -> runtimevars:(string * int) list -> program;
  synchronize : unit -> unit;
}

(* ---------- the registry ---------- *)

(* tinygrad: ALL_DEVICES, the order in which a default device is looked for *)
let all_devices = [ "METAL"; "AMD"; "NV"; "CUDA"; "QCOM"; "CL"; "CPU"; "DSP"; "WEBGPU" ]

let classes : (string, string -> compiled) Hashtbl.t = Hashtbl.create 8
let opened : (string, compiled) Hashtbl.t = Hashtbl.create 8

(* devices this build knows of but cannot open, with the reason: the optional backends (tinygrad.backends) record
   their own reason (package missing, driver missing); registering a device removes its entry *)
let not_built : (string, string) Hashtbl.t = Hashtbl.create 4

let register name make =
  let name = String.uppercase_ascii name in
  Hashtbl.remove not_built name;
  Hashtbl.replace classes name make

let set_unavailable name reason =
  let name = String.uppercase_ascii name in
  Hashtbl.remove classes name;
  Hashtbl.replace not_built name reason

let registered () = List.filter (Hashtbl.mem classes) all_devices

let unavailable () =
  List.filter_map (fun d -> Option.map (fun r -> (d, r)) (Hashtbl.find_opt not_built d)) all_devices

let unavailable_reason name = Hashtbl.find_opt not_built (String.uppercase_ascii name)

(* tinygrad: _Device._select_device, the first device in ALL_DEVICES that opens *)
let select_device = lazy (
  let rec go = function
    | [] -> failwith "no usable devices"
    | d :: rest -> (match (Hashtbl.find classes d) d with _ -> d | exception _ -> go rest) in
  go (registered ()))

let base_name ix = match String.index_opt ix ':' with Some i -> String.sub ix 0 i | None -> ix

(* the message for a device that cannot be opened because no backend for it is linked *)
let no_backend what ix =
  let b = base_name ix in
  match Hashtbl.find_opt not_built b with
  | Some reason -> Printf.sprintf "%s: %s: %s" what b reason
  | None -> Printf.sprintf "%s: no device %s (built: %s)" what ix (String.concat ", " (registered ()))

(* a name [canonical_name] leaves as it is: no lower case letter before its first ':' and no ":0" at its end.
   Every Buffer made canonicalizes its device's name, and a name that is canonical already is returned itself,
   without allocating *)
let is_canonical device =
  let n = String.length device in
  let colon = Option.value ~default:n (String.index_opt device ':') in
  let rec upper i = i >= colon || ((device.[i] < 'a' || device.[i] > 'z') && upper (i + 1)) in
  upper 0 && not (n >= 2 && device.[n - 2] = ':' && device.[n - 1] = '0')

(* "cpu:0" -> "CPU", "cuda:1" -> "CUDA:1" *)
let canonical_name device =
  if is_canonical device then device else
  let d, rest = match String.index_opt device ':' with
    | Some i -> (String.sub device 0 i, String.sub device i (String.length device - i))
    | None -> (device, "") in
  let s = String.uppercase_ascii d ^ rest in
  let n = String.length s in
  if n >= 2 && String.sub s (n - 2) 2 = ":0" then String.sub s 0 (n - 2) else s

(* DEV names a device: it must be one this build has a backend for, and (a GPU) it must open: a driver or device
   missing is reported here, when the device is selected, not at its first use *)
let default () = match Helpers.dev_device () with
  | "" -> Lazy.force select_device
  | d ->
    let b = String.uppercase_ascii (base_name d) in
    (match Hashtbl.find_opt classes b with
     | None -> invalid_arg (no_backend ("DEV=" ^ d) b)
     | Some make when b <> "CPU" && not (Hashtbl.mem opened (canonical_name d)) ->
       (match make (canonical_name d) with
        | dev -> Hashtbl.replace opened (canonical_name d) dev
        | exception (Invalid_argument _ as e) -> raise e
        | exception e -> invalid_arg (Printf.sprintf "DEV=%s: %s cannot start: %s" d b (Printexc.to_string e)))
     | Some _ -> ());
    d

(* tinygrad: _Device._canonicalize, "cpu:0" -> "CPU", "cuda:1" -> "CUDA:1" *)
let canonicalize device =
  let device = match device with Some d -> d | None -> default () in
  canonical_name device

(* tinygrad: Device[ix] *)
let open_device ix =
  let ix = canonicalize (Some ix) in
  if Helpers.allow_device_usage.value = 0 && not (List.mem (base_name ix) [ "DISK"; "NPY"; "PYTHON" ]) then
    failwith (Printf.sprintf "usage of device %s disallowed" ix);
  match Hashtbl.find_opt opened ix with
  | Some d -> d
  | None ->
    let make = match Hashtbl.find_opt classes (base_name ix) with
      | Some m -> m
      | None -> invalid_arg (no_backend "Device.get" ix) in
    let d = make ix in
    if Helpers.debug.value >= 1 then Printf.printf "opened device %s\n%!" ix;
    Hashtbl.replace opened ix d;
    d

(* the last name [get] found opened, and its device: a device stays opened under its name, and the buffers of
   a program pass the same name string again and again (each Buffer keeps the one it was made with) *)
let last_got : (string * compiled) option ref = ref None

(* the name of a device already opened is canonical, so it is looked up first as given (every buffer's address goes
   through here) *)
let get ix =
  match !last_got with
  | Some (name, d) when name == ix && Helpers.allow_device_usage.value <> 0 -> d
  | Some _ | None ->
    match Hashtbl.find_opt opened ix with
    | Some d when Helpers.allow_device_usage.value <> 0 -> last_got := Some (ix, d); d
    | Some _ | None -> open_device ix

(* tinygrad: Compiled.renderer — the renderer of each device class; a backend registers it with its device class,
   the function gets the device ("CUDA:1") *)
let renderers : (string, string -> Renderer.t) Hashtbl.t = Hashtbl.create 4

let register_renderer name f = Hashtbl.replace renderers (String.uppercase_ascii name) f

let renderer ix =
  let ix = canonicalize (Some ix) in
  match Hashtbl.find_opt renderers (base_name ix) with
  | Some f -> f ix
  | None ->
    if Hashtbl.mem classes (base_name ix) then invalid_arg (Printf.sprintf "Device.renderer: no renderer for device %s" ix)
    else invalid_arg (no_backend "Device.renderer" ix)

(* ---------- Buffer ---------- *)

let is_cpu device = match String.split_on_char ':' device with "CPU" :: _ -> true | _ -> false

module Buffer = struct
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
    counted : int ref;
  }

  let base b = match b.base_buf with Some x -> x | None -> b
  let nbytes b = b.size * Dtype.itemsize b.dtype
  let spec b = Option.value ~default:default_spec b.options
  let allocator b = (get b.device).allocator

  let is_allocated b = match b.base_buf with Some x -> x.opaque <> None | None -> b.opaque <> None
  let is_initialized b = is_allocated b

  (* tinygrad counts a Buffer's memory from its allocation to its deallocation, which its __del__ runs when
     the last reference goes: the memory of a Buffer the GC finds unreachable while allocated stops counting
     then (the allocator's own finaliser takes the memory back) *)
  let count_memory b =
    let n = nbytes b and device = b.device and counted = b.counted in
    Global_counters.add_mem_used device n;
    counted := n;
    Gc.finalise_last (fun () -> if !counted > 0 then Global_counters.add_mem_used device (- !counted)) b

  let allocate b =
    if b.base_buf = None && b.opaque <> None then failwith "can't allocate already allocated buffer";
    if (base b).released then
      invalid_arg (Printf.sprintf "Buffer.allocate: the memory of this %d-byte %s buffer went back to the \
                                   allocator when the last tensor over it was dropped"
                     (nbytes (base b)) b.device);
    if Helpers.debug.value >= 7 then Printf.printf "buffer: allocate %d bytes on %s\n%!" (nbytes b) b.device;
    if b.size > Helpers.max_buffer_size.value && Helpers.max_buffer_size.value > 0 then
      failwith (Printf.sprintf "buffer of size %.2fM is too large" (float_of_int b.size /. 1e6));
    (match b.base_buf with
     | Some bs ->
       if bs.opaque = None then begin
         bs.opaque <- Some ((allocator bs).alloc (max 1 (nbytes bs)) (spec bs));
         count_memory bs
       end;
       bs.allocated_views <- bs.allocated_views + 1
     | None ->
       b.opaque <- Some ((allocator b).alloc (max 1 (nbytes b)) (spec b));
       count_memory b);
    b

  let ensure_allocated b = if is_allocated b then b else allocate b

  let create ?options ?(preallocate = false) device size dtype =
    if size < 0 then invalid_arg (Printf.sprintf "Buffer.create: negative size %d" size);
    let b = { device = canonicalize (Some device); size; dtype; options; offset = 0; base_buf = None; opaque = None;
              allocated_views = 0; uop_refcount = 0; released = false;
              counted = ref 0 } in
    if preallocate then ignore (allocate b);
    b

  (* tinygrad: Buffer.view, a window of [size] elements of [dtype] at byte [offset] of the base *)
  let view b size dtype offset =
    if offset >= nbytes b then invalid_arg (Printf.sprintf "Buffer.view: offset %d must be less than nbytes %d" offset (nbytes b));
    let bs = base b in
    { bs with size; dtype; offset = b.offset + offset; base_buf = Some bs; opaque = None; allocated_views = 0;
              counted = ref 0 }

  let deallocate b =
    if not (is_allocated b) then failwith "buffer must be allocated to deallocate";
    if Helpers.debug.value >= 7 then Printf.printf "buffer: deallocate %d bytes on %s\n%!" (nbytes b) b.device;
    match b.base_buf with
    | Some bs -> bs.allocated_views <- bs.allocated_views - 1
    | None ->
      Global_counters.add_mem_used b.device (- (nbytes b));
      b.counted := 0;
      (match b.opaque with Some o -> (allocator b).free o (max 1 (nbytes b)) (spec b) | None -> ());
      b.opaque <- None

  (* not in tinygrad, whose Buffer lives while anything refers to it: the tensor layer hands back a
     realize's output once no tensor reaches it (Tensor_base), and a later use must fail rather than
     allocate fresh memory *)
  let release b =
    if b.base_buf <> None then invalid_arg "Buffer.release: a view does not own its memory";
    if is_allocated b then deallocate b;
    b.released <- true

  let opaque_of b =
    match (ensure_allocated b |> base).opaque with Some o -> o | None -> assert false

  (* the raw address a kernel sees *)
  let addr b = Nativeint.add ((allocator b).addr (opaque_of b)) (Nativeint.of_int b.offset)

  let check_bytes what b n =
    if n <> nbytes b then invalid_arg (Printf.sprintf "%s: size mismatch, buffer has %d bytes, host array %d" what (nbytes b) n)

  let ba_nbytes (a : ('a, 'b, c_layout) Array1.t) = Array1.dim a * Bigarray.kind_size_in_bytes (Array1.kind a)

  (* copy a host Bigarray (any kind, same byte size) into the buffer *)
  let copyin b (src : ('a, 'b, c_layout) Array1.t) =
    check_bytes "Buffer.copyin" b (ba_nbytes src);
    (allocator b).copyin (opaque_of b) b.offset src

  (* copy the buffer into a host Bigarray (any kind, same byte size) *)
  let copyout b (dst : ('a, 'b, c_layout) Array1.t) =
    check_bytes "Buffer.copyout" b (ba_nbytes dst);
    (allocator b).copyout dst (opaque_of b) b.offset

  (* tinygrad: as_memoryview, a copy of the bytes *)
  let as_bytes b =
    let a = Array1.create char c_layout (nbytes b) in
    copyout b a; a

  (* tinygrad: exec_copy's paths — between two devices of one type that can transfer, the transfer; into memory
     the host can write (the CPU's: every CPU:n shares the process's memory), the source copies out into it; from
     such memory, the destination copies in from it; else through a host copy of the bytes *)
  let copy_from dst src =
    let n = nbytes dst in
    if n <> nbytes src then invalid_arg (Printf.sprintf "copy size mismatch, %d != %d" n (nbytes src));
    let da = allocator dst and sa = allocator src in
    match da.transfer, da.as_host, sa.as_host with
    | Some transfer, _, _ when base_name dst.device = base_name src.device ->
      transfer ~dst:(opaque_of dst) ~dst_offset:dst.offset ~src:(opaque_of src) ~src_offset:src.offset
        ~src_device:src.device n
    | _, Some view, _ -> sa.copyout (view (opaque_of dst) dst.offset n) (opaque_of src) src.offset
    | _, None, Some view -> da.copyin (opaque_of dst) dst.offset (view (opaque_of src) src.offset n)
    | _ -> copyin dst (as_bytes src)

  (* ---- buffers over memory the caller owns ---- *)

  external ba_addr : ('a, 'b, c_layout) Genarray.t -> nativeint = "tg_ba_addr"
  (* a char Bigarray over the same memory, not owning it (CAML_BA_EXTERNAL) *)
  external ba_bytes_alias : ('a, 'b, c_layout) Genarray.t -> int -> bytes_ba = "tg_ba_bytes_alias"

  (* a CPU kernel's vector types are declared aligned to at most 16 bytes (ClangRenderer's render_vector_prefix:
     float4 in tinygrad's kernels; wider vectors of CPU_OPT=fast keep 16) *)
  let host_view_alignment () = 16

  (* not in tinygrad (its Tensor(np.ndarray) copies; DISK buffers map files): a buffer holding a host Bigarray's
     bytes; on CPU a view of the same memory when aligned, else one copy *)
  let of_bigarray ?device dtype (ba : ('a, 'b, c_layout) Genarray.t) =
    let device = canonicalize device in
    let n = Genarray.size_in_bytes ba and isz = Dtype.itemsize dtype in
    if isz <= 0 || n mod isz <> 0 then
      invalid_arg (Printf.sprintf "Buffer.of_bigarray: %d bytes do not hold a whole number of %s" n (Dtype.to_string dtype));
    let size = n / isz in
    let addr = ba_addr ba in
    if n > 0 && is_cpu device && Nativeint.(rem addr (of_int (host_view_alignment ()))) = 0n then begin
      let bytes = ba_bytes_alias ba n in
      (* the alias does not keep [ba] alive: its finaliser's closure does, until the alias is unreachable *)
      Gc.finalise (fun _ -> ignore (Sys.opaque_identity ba)) bytes;
      Global_counters.add_mem_used device n;
      (* nolru: when freed, this memory must never be handed to another buffer *)
      { device; size; dtype; options = Some { default_spec with nolru = true }; offset = 0; base_buf = None;
        opaque = Some (Host bytes); allocated_views = 0; uop_refcount = 0; released = false; counted = ref n }
    end else begin
      let b = create device size dtype in
      if n > 0 then begin
        let flat = reshape_1 ba (Array.fold_left ( * ) 1 (Genarray.dims ba)) in
        copyin b flat
      end;
      b
    end

  (* whether the buffer's memory is the Bigarray's (a view made by [of_bigarray]) *)
  let shares_memory b (ba : ('a, 'b, c_layout) Genarray.t) =
    is_cpu b.device && is_allocated b && Genarray.size_in_bytes ba > 0 && Nativeint.equal (addr b) (ba_addr ba)

  (* ---- conversions between OCaml arrays and the buffer's dtype ---- *)

  let f16_bits_of_float x =
    (* x is already rounded to a float16 value by Dtype.float_to_fp16 *)
    let x = Dtype.float_to_fp16 x in
    let sign = if Float.sign_bit x then 0x8000 else 0 in
    let a = Float.abs x in
    if Float.is_nan a then sign lor 0x7e00
    else if a = Float.infinity then sign lor 0x7c00
    else if a = 0.0 then sign
    else
      let m, e = Float.frexp a in  (* a = m * 2^e, m in [0.5,1) *)
      let e16 = e - 1 + 15 in
      if e16 <= 0 then sign lor int_of_float (Float.round (a *. Float.pow 2.0 24.0))
      else sign lor (e16 lsl 10) lor (int_of_float (Float.round ((m *. 2.0 -. 1.0) *. 1024.0)) land 0x3ff)

  let float_of_f16_bits h =
    let sign = if h land 0x8000 <> 0 then -1.0 else 1.0 in
    let e = (h lsr 10) land 0x1f and m = h land 0x3ff in
    if e = 0 then sign *. float_of_int m *. Float.pow 2.0 (-24.0)
    else if e = 31 then (if m = 0 then sign *. Float.infinity else Float.nan)
    else sign *. (1.0 +. float_of_int m /. 1024.0) *. Float.pow 2.0 (float_of_int (e - 15))

  let bf16_bits_of_float x = Int32.to_int (Int32.shift_right_logical (Int32.bits_of_float (Dtype.float_to_bf16 x)) 16) land 0xffff
  let float_of_bf16_bits h = Int32.float_of_bits (Int32.shift_left (Int32.of_int h) 16)

  let unsupported what b = invalid_arg (Printf.sprintf "%s: dtype %s not supported" what (Dtype.to_string b.dtype))

  (* copy OCaml floats in, converted to the buffer's dtype (ints truncate, bool is x <> 0) *)
  let copyin_floats b (xs : float array) =
    if Array.length xs <> b.size then
      invalid_arg (Printf.sprintf "Buffer.copyin_floats: %d values for a buffer of %d" (Array.length xs) b.size);
    let n = b.size in
    let fill kind f = let a = Array1.create kind c_layout n in Array.iteri (fun i x -> a.{i} <- f x) xs; copyin b a in
    let ti = Float.to_int in
    match b.dtype with
    | Dtype.Float32 -> fill float32 Fun.id
    | Float64 -> fill float64 Fun.id
    | Float16 -> fill int16_unsigned f16_bits_of_float
    | Bfloat16 -> fill int16_unsigned bf16_bits_of_float
    | Int8 -> fill int8_signed ti
    | Uint8 -> fill int8_unsigned (fun x -> ti x land 0xff)
    | Bool -> fill int8_unsigned (fun x -> if x <> 0.0 then 1 else 0)
    | Int16 -> fill int16_signed ti
    | Uint16 -> fill int16_unsigned (fun x -> ti x land 0xffff)
    | Int32 | Uint32 -> fill int32 (fun x -> Int64.to_int32 (Int64.of_float x))
    | Int64 | Uint64 -> fill int64 Int64.of_float
    | Fp8e4m3 | Fp8e5m2 | Fp8e4m3fnuz | Fp8e5m2fnuz -> fill int8_unsigned (fun x -> Dtype.float_to_fp8 x b.dtype)
    | _ -> unsupported "Buffer.copyin_floats" b

  (* the buffer's values as OCaml floats (unsigned ints read as unsigned) *)
  let to_floats b =
    let n = b.size in
    let read kind f = let a = Array1.create kind c_layout n in copyout b a; Array.init n (fun i -> f a.{i}) in
    let fi = float_of_int in
    match b.dtype with
    | Dtype.Float32 -> read float32 Fun.id
    | Float64 -> read float64 Fun.id
    | Float16 -> read int16_unsigned float_of_f16_bits
    | Bfloat16 -> read int16_unsigned float_of_bf16_bits
    | Int8 -> read int8_signed fi
    | Uint8 | Bool -> read int8_unsigned fi
    | Int16 -> read int16_signed fi
    | Uint16 -> read int16_unsigned fi
    | Int32 -> read int32 Int32.to_float
    | Uint32 -> read int32 (fun x -> Int64.to_float (Int64.logand (Int64.of_int32 x) 0xffffffffL))
    | Int64 -> read int64 Int64.to_float
    | Uint64 -> read int64 (fun x -> if Int64.compare x 0L >= 0 then Int64.to_float x else Int64.to_float x +. 18446744073709551616.0)
    | Fp8e4m3 | Fp8e5m2 | Fp8e4m3fnuz | Fp8e5m2fnuz -> read int8_unsigned (fun x -> Dtype.fp8_to_float x b.dtype)
    | _ -> unsupported "Buffer.to_floats" b

  (* copy OCaml ints in, wrapped to the buffer's dtype; floats are converted *)
  let copyin_ints b (xs : int array) =
    match b.dtype with
    | Dtype.Int32 | Uint32 ->
      if Array.length xs <> b.size then invalid_arg "Buffer.copyin_ints: length mismatch";
      let a = Array1.create int32 c_layout b.size in
      Array.iteri (fun i x -> a.{i} <- Int32.of_int x) xs; copyin b a
    | Int64 | Uint64 ->
      if Array.length xs <> b.size then invalid_arg "Buffer.copyin_ints: length mismatch";
      let a = Array1.create int64 c_layout b.size in
      Array.iteri (fun i x -> a.{i} <- Int64.of_int x) xs; copyin b a
    | _ -> copyin_floats b (Array.map float_of_int xs)

  (* the buffer's values as OCaml ints (floats truncate) *)
  let to_ints b =
    match b.dtype with
    | Dtype.Int64 | Uint64 ->
      let a = Array1.create int64 c_layout b.size in
      copyout b a; Array.init b.size (fun i -> Int64.to_int a.{i})
    | _ -> Array.map Float.to_int (to_floats b)

  let to_string b =
    Printf.sprintf "<buf real:%b device:%s size:%d dtype:%s%s>" (is_allocated b) b.device b.size
      (Dtype.to_string b.dtype) (if b.base_buf <> None then Printf.sprintf " offset:%d" b.offset else "")
end

(* ---------- launches ---------- *)

module Launch = struct
  type t = launch

  let create ~nbufs ~nvars =
    let bufs = Array1.create nativeint c_layout (max 1 nbufs) and vars = Array1.create int64 c_layout (max 1 nvars) in
    Array1.fill bufs 0n; Array1.fill vars 0L;
    { bufs; vars; keep = Array.make (max 1 nbufs) None }

  let set_buf (l : t) i b =
    l.bufs.{i} <- Buffer.addr b;
    l.keep.(i) <- (Buffer.base b).opaque
  let set_var (l : t) i v = l.vars.{i} <- Int64.of_int v

  (* a launch for these buffers and vars *)
  let of_buffers bufs vars =
    let l = create ~nbufs:(List.length bufs) ~nvars:(List.length vars) in
    List.iteri (set_buf l) bufs;
    List.iteri (set_var l) vars;
    l
end

let default_size = [| 1; 1; 1 |]

(* runs a program; with [wait] the device-measured time in seconds when the backend times kernels, else the wall
   time; 0 without [wait] *)
let run_program ?(global_size = default_size) ?(local_size = default_size) ?(wait = false) (p : program) l =
  match p.timed_call with
  | Some timed when wait -> timed l ~global_size ~local_size
  | _ ->
  if wait then begin
    let st = Helpers.perf_counter_ns () in
    p.call l ~global_size ~local_size;
    float_of_int (Helpers.perf_counter_ns () - st) *. 1e-9
  end else (p.call l ~global_size ~local_size; 0.0)
