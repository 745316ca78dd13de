(* tinygrad: runtime/ops_cpu.py — the CPU device: host memory, the clang compiler, kernels loaded with dlopen and
   called through their uniform entry. tinygrad runs core_id shards one after another; here they run in parallel
   on a persistent C thread pool (cpu_stubs.c), unless CPU_POOL=0. *)
open Bigarray

type bytes_ba = Device.bytes_ba

external alloc_aligned : int -> bool -> bytes_ba = "tg_alloc_aligned"
external host_pressure : int -> unit = "tg_host_pressure"
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

(* Host memory the GC found unreachable, kept for reuse by size. tinygrad's Buffer.__del__ hands a dead buffer's
   memory to the LRUAllocator's cache at once (refcounting); here a finaliser on the host Bigarray does it when the
   GC finds the memory unreachable (from buffers, launches, anything), so the next allocation of that size reuses
   it instead of mapping fresh pages (a page fault per 4 KiB on first touch). Finalisers only push onto [returned]
   (no Hashtbl work inside a finaliser); [alloc] drains it. *)
let returned : bytes_ba list ref = ref []
let reuse : (int, bytes_ba list) Hashtbl.t = Hashtbl.create 16

let drain_returned () =
  let l = !returned in
  returned := [];
  List.iter (fun a -> let n = Array1.dim a in
              Hashtbl.replace reuse n (a :: Option.value ~default:[] (Hashtbl.find_opt reuse n))) l

let reclaim a = returned := a :: !returned

(* fresh host bytes allocated since the last budget check. Buffers a schedule made for itself come back at once
   (Realize.free_internal_buffers, through the LRU cache); a dead tensor's buffer only through its finaliser, which
   needs the GC to finish a cycle in which the buffer was already dead. Past max(64 MiB, twice the OCaml heap) of
   fresh memory, a full collection finds them: measured on a loop of 16 MiB elementwise outputs, it costs a
   fraction of the page faults of that fresh memory (2.9 ms/step, RSS flat), where a major slice or one finished
   cycle (Gc.major) left the first hundred steps 3-4x slower and resident memory higher *)
let fresh_bytes = ref 0
let collect_bytes = 64 * 1024 * 1024

let host_alloc size zero =
  (* the GC counts no outside memory for a Bigarray made from a pointer: tell it, for fresh and reused memory *)
  host_pressure size;
  drain_returned ();
  let n = max 1 size in
  let a = match Hashtbl.find_opt reuse n with
    | Some (a :: rest) ->
      if rest = [] then Hashtbl.remove reuse n else Hashtbl.replace reuse n rest;
      if zero then Array1.fill a '\000';
      a
    | Some [] | None ->
      (* a miss: when the fresh memory taken since the last check passes the budget, a full collection (see
         [fresh_bytes]) hands the dead tensors' buffers back, and look again *)
      fresh_bytes := !fresh_bytes + n;
      if !fresh_bytes >= max collect_bytes (2 * (Gc.quick_stat ()).heap_words * (Sys.word_size / 8)) then begin
        fresh_bytes := 0;
        Gc.full_major ();
        drain_returned () end;
      (match Hashtbl.find_opt reuse n with
       | Some (a :: rest) ->
         if rest = [] then Hashtbl.remove reuse n else Hashtbl.replace reuse n rest;
         if zero then Array1.fill a '\000';
         a
       | Some [] | None ->
      (try alloc_aligned size zero
       with Out_of_memory ->
         (* tinygrad's LRUAllocator.alloc: free the cache and retry (two collections: the first finds dead memory,
            whose finalisers put it in [returned]; dropped from there, the second frees it) *)
         Hashtbl.reset reuse; Gc.full_major (); drain_returned (); Hashtbl.reset reuse; Gc.full_major ();
         alloc_aligned size zero)) in
  Gc.finalise reclaim a;
  a

(* tinygrad: CPUAllocator (64-byte aligned host memory, so vector loads of any width are aligned) *)
let allocator () =
  let copyin : 'a 'b. Device.opaque -> int -> ('a, 'b, c_layout) Array1.t -> unit = fun dst off src ->
    let d = host dst and n = ba_nbytes src in
    if off < 0 || off + n > Array1.dim d then invalid_arg "CPU copyin: out of bounds";
    ba_blit src 0 d off n in
  let copyout : 'a 'b. ('a, 'b, c_layout) Array1.t -> Device.opaque -> int -> unit = fun dst src off ->
    let s = host src and n = ba_nbytes dst in
    if off < 0 || off + n > Array1.dim s then invalid_arg "CPU copyout: out of bounds";
    ba_blit s off dst 0 n in
  Device.lru_allocator
    { alloc = (fun size (spec : Device.buffer_spec) -> Device.Host (host_alloc size spec.zero));
      free = (fun _ _ _ -> ());  (* the GC finds host memory unreachable; [reclaim] keeps it for reuse *)
      copyin; copyout;
      addr = (fun o -> ba_addr (host o));
      free_cache = (fun () -> drain_returned (); Hashtbl.reset reuse) }

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

let runtime ~name ~lib ~runtimevars =
  let p = load ~name ~lib ~runtimevars in
  { Device.name; call = (fun l ~global_size ~local_size:_ -> call p l ~global_size); timed_call = None }

(* tinygrad: CPUDevice *)
let create device =
  { Device.device; allocator = allocator ();
    compiler = Compiler_cpu.as_device_compiler (Compiler_cpu.create ());
    runtime; synchronize = (fun () -> ()) }

let () =
  Device.register "CPU" create;
  (* tinygrad: CPUDevice's renderer, the Clang renderer *)
  Device.register_renderer "CPU" (fun _ -> Cstyle.clang_renderer ())
