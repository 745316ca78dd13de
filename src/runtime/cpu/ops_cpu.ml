(* tinygrad: runtime/ops_cpu.py — the CPU device: host memory, the clang compiler, kernels loaded with dlopen and
   called through their uniform entry. tinygrad runs core_id shards one after another; here they run in parallel
   on a persistent C thread pool (cpu_stubs.c), unless CPU_POOL=0. *)
open Bigarray

type bytes_ba = Device.bytes_ba

external host_malloc : int -> bool -> nativeint = "tg_host_malloc"
external host_free : nativeint -> int -> unit = "tg_host_free"
external host_zero : nativeint -> int -> unit = "tg_host_zero"
external host_view : nativeint -> int -> bytes_ba = "tg_host_view"
external ba_addr : ('a, 'b, c_layout) Array1.t -> nativeint = "tg_ba_addr"
external ba_blit : ('a, 'b, c_layout) Array1.t -> int -> ('c, 'd, c_layout) Array1.t -> int -> int -> unit
  = "tg_ba_blit" [@@noalloc]
external dlopen : string -> nativeint = "tg_dlopen"
external dlsym : nativeint -> string -> nativeint = "tg_dlsym"
external dlclose : nativeint -> unit = "tg_dlclose"

external cpu_call :
  (nativeint[@unboxed]) -> (nativeint, nativeint_elt, c_layout) Array1.t -> (int64, int64_elt, c_layout) Array1.t ->
  (int[@untagged]) -> (int[@untagged]) -> unit = "tg_cpu_call_byte" "tg_cpu_call" [@@noalloc]

external cpu_call_blocking :
  (nativeint[@unboxed]) -> (nativeint, nativeint_elt, c_layout) Array1.t -> (int64, int64_elt, c_layout) Array1.t ->
  (int[@untagged]) -> (int[@untagged]) -> unit = "tg_cpu_call_blocking_byte" "tg_cpu_call_blocking"

external cpu_call_pool :
  (nativeint[@unboxed]) -> (nativeint, nativeint_elt, c_layout) Array1.t -> (int64, int64_elt, c_layout) Array1.t ->
  (int[@untagged]) -> (int[@untagged]) -> (int[@untagged]) -> unit = "tg_cpu_call_pool_byte" "tg_cpu_call_pool"

external pool_workers : unit -> int = "tg_cpu_pool_workers"

let pool_cpus = lazy (Helpers.get_cpu_count ())

(* the most threads (the caller included) one call may use; <= 1 means sequential *)
let pool_threads () = match Helpers.cpu_pool.value with 0 -> 1 | 1 -> Lazy.force pool_cpus | n -> n

let ba_nbytes a = Array1.dim a * kind_size_in_bytes (Array1.kind a)

let host = function Device.Host a -> a | _ -> invalid_arg "CPU allocator: not a host buffer"

(* Host memory, reused by size. tinygrad's Buffer.__del__ hands a dead buffer's memory to the LRUAllocator's
   cache at once (refcounting). Here a buffer the engine frees (a realize's internal buffers, an output no
   tensor reaches any more: Tensor_base) goes to the LRU allocator's cache the same way, at once. Any other
   buffer's memory comes back when the GC finds it dead: the allocator owns the memory by address and hands
   out a Bigarray over it that does not own it; Gc.finalise_last on that Bigarray gives the address back when
   the Bigarray is unreachable (from buffers, launches, anything), and the next allocation of that size
   reuses it instead of taking fresh pages (a page fault per 4 KiB, or per 2 MiB with huge pages, and the
   kernel zeroing them). Finalisers only push onto [returned] (atomically: no Hashtbl work inside a
   finaliser); the allocator drains it.
   - Only memory taken from the system counts as dependent memory for the major GC's pace (cpu_stubs.c), so
     reuse costs no GC work (reporting every allocation, reused or not, would run major cycles far more
     often).
   - Past a budget of fresh memory, a full collection (see [fresh_bytes]). *)
let returned : (nativeint * int) list Atomic.t = Atomic.make []

let rec give_back x =
  let l = Atomic.get returned in
  if not (Atomic.compare_and_set returned l (x :: l)) then give_back x

(* free memory by size, and how many of each size are out (not yet found dead): [host_memory] reports the
   bytes out *)
let pool : (int, nativeint list) Hashtbl.t = Hashtbl.create 16
let outstanding : (int, int) Hashtbl.t = Hashtbl.create 16

let count n = Option.value ~default:0 (Hashtbl.find_opt outstanding n)
let add_outstanding n d = let c = count n + d in if c <= 0 then Hashtbl.remove outstanding n else Hashtbl.replace outstanding n c

(* moves the memory handed back into the pool *)
let drain_returned () =
  List.iter (fun (p, n) ->
      add_outstanding n (-1);
      Hashtbl.replace pool n (p :: Option.value ~default:[] (Hashtbl.find_opt pool n)))
    (Atomic.exchange returned [])

let take n = match Hashtbl.find_opt pool n with
  | Some (p :: rest) -> if rest = [] then Hashtbl.remove pool n else Hashtbl.replace pool n rest; Some p
  | Some [] | None -> None

(* the allocator's free_cache: a full collection first hands back every dead buffer, then the whole pool goes
   back to the system. The LRU allocator runs it before its one retry when an allocation fails (tinygrad's
   LRUAllocator.alloc) *)
let free_pool () =
  Helpers.collect_unreachable ();
  drain_returned ();
  Hashtbl.iter (fun n ps -> List.iter (fun p -> host_free p n) ps) pool;
  Hashtbl.reset pool

(* the bytes out now and the bytes kept for reuse *)
let host_memory () =
  drain_returned ();
  let sum t f = Hashtbl.fold (fun n v acc -> acc + n * f v) t 0 in
  (sum outstanding Fun.id, sum pool List.length)

(* fresh host bytes allocated since the last budget check. Past max(64 MiB, twice the OCaml heap) of fresh memory,
   a full collection finds the dead buffers the major GC has not reached yet (on a loop of 16 MiB elementwise
   outputs: a fraction of the page faults of that fresh memory, RSS flat) *)
let fresh_bytes = ref 0
let collect_bytes = 64 * 1024 * 1024

let host_alloc size zero =
  let n = max 1 size in
  drain_returned ();
  let reused = match take n with
    | Some p -> Some p
    | None ->
      fresh_bytes := !fresh_bytes + n;
      if !fresh_bytes >= max collect_bytes (2 * (Gc.quick_stat ()).heap_words * (Sys.word_size / 8)) then begin
        fresh_bytes := 0;
        Helpers.collect_unreachable ();
        drain_returned ();
        take n end
      else None in
  let p = match reused with
    | Some p -> if zero then host_zero p n; p
    | None -> host_malloc n zero (* Out_of_memory: the LRU allocator frees the pool and retries *) in
  let a = host_view p n in
  add_outstanding n 1;
  Gc.finalise_last (fun () -> give_back (p, n)) a;
  a

(* not in tinygrad, whose CPU allocator maps fresh memory for every buffer its LRU cache cannot serve by
   exact size. Buffers of 4 MiB and more are allocated and cached by size class: rounded up to a multiple of
   2^(bit_length - 4), at most 1/8 more memory, so a request a little larger or smaller than a freed one
   reuses its memory. The memory planner's arena is one such buffer per schedule, and the same program
   scheduled again (the JIT's capture after its first run) may plan an arena of nearly the same size, whose
   fresh pages the kernel would zero on first touch. Exact sizes where something checks accesses against the
   memory's own size: the emulator's bounds-checked loads, AddressSanitizer (SANITIZE=1) *)
let class_min = 4 lsl 20

let size_class n = if n < class_min then n else Helpers.round_up n (1 lsl (Helpers.bit_length n - 4))

(* tinygrad: CPUAllocator (64-byte aligned host memory, so vector loads of any width are aligned) *)
let allocator ?(exact = false) () =
  let copyin : 'a 'b. Device.opaque -> int -> ('a, 'b, c_layout) Array1.t -> unit = fun dst off src ->
    let d = host dst and n = ba_nbytes src in
    if off < 0 || off + n > Array1.dim d then invalid_arg "CPU copyin: out of bounds";
    ba_blit src 0 d off n in
  let copyout : 'a 'b. ('a, 'b, c_layout) Array1.t -> Device.opaque -> int -> unit = fun dst src off ->
    let s = host src and n = ba_nbytes dst in
    if off < 0 || off + n > Array1.dim s then invalid_arg "CPU copyout: out of bounds";
    ba_blit s off dst 0 n in
  let size_class = if exact || Helpers.sanitize.value <> 0 then Fun.id else size_class in
  Device.lru_allocator ~size_class
    { alloc = (fun size (spec : Device.buffer_spec) -> Device.Host (host_alloc size spec.zero));
      free = (fun _ _ _ -> ());  (* the GC finds host memory unreachable; its finaliser gives it back for reuse *)
      copyin; copyout;
      addr = (fun o -> ba_addr (host o));
      free_cache = free_pool;
      (* tinygrad: CPUAllocator._as_buffer — host memory is every CPU device's, so copies between them are one blit *)
      as_host = Some (fun o off n -> Array1.sub (host o) off n); transfer = None }

(* a loaded kernel: the entry's address *)
type program = { name : string; lib : string; entry : nativeint; core_id : int option }

(* the handle of each loaded library and how many programs from it are alive: a library is opened once and closed
   when the GC has collected its last program (tinygrad frees a program's code in CPUProgram.__del__; BEAM loads
   thousands of candidates). A finaliser only pushes the library onto [dropped]; the next [load] closes it. *)
let loaded : (string, nativeint * int ref) Hashtbl.t = Hashtbl.create 64
let dropped : string list ref = ref []

let release_dropped () =
  let l = !dropped in
  dropped := [];
  List.iter (fun lib ->
      match Hashtbl.find_opt loaded lib with
      | Some (h, refs) -> decr refs; if !refs = 0 then begin Hashtbl.remove loaded lib; dlclose h end
      | None -> ()) l

let loaded_libraries () = release_dropped (); Hashtbl.length loaded

let load ~name ~lib ~runtimevars =
  release_dropped ();
  let h, refs = match Hashtbl.find_opt loaded lib with
    | Some x -> x
    | None ->
      let h = try dlopen lib with Failure m -> failwith (Printf.sprintf "CPU: cannot load %s: %s" lib m) in
      let x = (h, ref 0) in
      Hashtbl.replace loaded lib x; x in
  let entry = dlsym h (Compiler_cpu.entry_name name) in
  incr refs;
  let p = { name; lib; entry; core_id = List.assoc_opt "core_id" runtimevars } in
  Gc.finalise (fun (p : program) -> dropped := p.lib :: !dropped) p;
  p

(* tinygrad: CPUProgram.__call__; global_size.(0) shards when the kernel has a core_id var. One shard: the noalloc
   stub, runtime lock kept; more: the pool, the runtime lock released while the shards run *)
let call p (l : Device.launch) ~global_size =
  (match p.core_id with
   | None -> cpu_call p.entry l.bufs l.vars (-1) 0
   | Some slot ->
     let n = global_size.(0) in
     if n <= 1 then cpu_call p.entry l.bufs l.vars slot n
     else
       let maxp = pool_threads () in
       if maxp <= 1 then cpu_call p.entry l.bufs l.vars slot n else cpu_call_pool p.entry l.bufs l.vars slot n maxp);
  (* [p] stays reachable until the kernel returns, so its library cannot be closed under it *)
  ignore (Sys.opaque_identity p)

(* tinygrad's CPUProgram.__call__ exactly: the shards one after another on this thread *)
let call_sequential p (l : Device.launch) ~global_size =
  (match p.core_id with
   | None -> cpu_call p.entry l.bufs l.vars (-1) 0
   | Some slot -> cpu_call p.entry l.bufs l.vars slot global_size.(0));
  ignore (Sys.opaque_identity p)

(* the same, letting other OCaml threads run while the kernel does *)
let call_blocking p (l : Device.launch) ~global_size =
  (match p.core_id with
   | None -> cpu_call_blocking p.entry l.bufs l.vars (-1) 0
   | Some slot ->
     let n = global_size.(0) and maxp = pool_threads () in
     if n > 1 && maxp > 1 then cpu_call_pool p.entry l.bufs l.vars slot n maxp
     else cpu_call_blocking p.entry l.bufs l.vars slot n);
  ignore (Sys.opaque_identity p)

(* ---------- SANITIZE=1 (not in tinygrad) ---------- *)

external sanitize_install : unit -> bool = "tg_sanitize_install"
external sanitize_kernel : string -> unit = "tg_sanitize_kernel" [@@noalloc]

(* the sanitized objects this process loaded, for the counts of [make test-sanitize] *)
let sanitized_libs : (string, unit) Hashtbl.t = Hashtbl.create 64

(* appends to the SANITIZE_STATS file one "compiled N" line and one "kernel PATH" line per object loaded *)
let write_sanitize_stats path =
  let oc = open_out_gen [ Open_wronly; Open_append; Open_creat ] 0o644 path in
  Fun.protect ~finally:(fun () -> close_out oc) (fun () ->
      Printf.fprintf oc "compiled %d\n" (Compiler_cpu.compile_count ());
      Hashtbl.iter (fun lib () -> Printf.fprintf oc "kernel %s\n" lib) sanitized_libs)

let asan_runtime_hint =
  "run with LD_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so) ASAN_OPTIONS=detect_leaks=0, as \
   make test-sanitize does"

(* a sanitized kernel only loads into a process that has the ASan runtime; the kernel's name is recorded
   before each call so that a finding, which stops the process, names it *)
let init_sanitize () =
  if not (sanitize_install ()) then
    invalid_arg ("CPU: SANITIZE=1 needs the ASan runtime in the process: " ^ asan_runtime_hint);
  let stats = Helpers.sanitize_stats.value in
  if stats <> "" then at_exit (fun () -> write_sanitize_stats stats)

let runtime ~name ~lib ~runtimevars =
  let p = load ~name ~lib ~runtimevars in
  let call =
    if Helpers.sanitize.value = 0 then fun l ~global_size ~local_size:_ -> call p l ~global_size
    else begin
      Hashtbl.replace sanitized_libs lib ();
      fun l ~global_size ~local_size:_ -> sanitize_kernel name; call p l ~global_size
    end in
  { Device.name; call; timed_call = None }

(* tinygrad: CPUDevice *)
let create device =
  if Helpers.sanitize.value <> 0 then init_sanitize ();
  { Device.device; allocator = allocator ();
    compiler = Compiler_cpu.as_device_compiler (Compiler_cpu.create ());
    runtime; synchronize = (fun () -> ()) }

let () =
  Device.register "CPU" create;
  (* tinygrad: CPUDevice's renderer, the Clang renderer; not in tinygrad: with the host's vector width, found once *)
  Device.register_renderer "CPU" (fun _ -> Cstyle.clang_renderer ~vector_width:(Compiler_cpu.host_vector_width ()) ())
