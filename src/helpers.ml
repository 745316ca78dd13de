(* tinygrad: helpers.py — small utilities, environment knobs (ContextVar) and the cache directory *)

(* ---------- lists and integers ---------- *)

let prod l = List.fold_left ( * ) 1 l

(* each dim's stride in the row-major layout: the product of the dims after it *)
let contiguous_strides dims =
  let rec go = function [] -> [] | _ :: rest -> prod rest :: go rest in
  go dims

(* Python's l[:n] and l[n:] *)
let rec take n l = if n <= 0 then [] else match l with [] -> [] | x :: r -> x :: take (n - 1) r
let rec drop n l = if n <= 0 then l else match l with [] -> [] | _ :: r -> drop (n - 1) r
let rec last = function [ x ] -> x | _ :: r -> last r | [] -> invalid_arg "last: empty list"

(* itertools.product over [0, n) for each n of [dims] *)
let product (dims : int list) : int list list =
  List.fold_right (fun n acc -> List.concat_map (fun i -> List.map (fun rest -> i :: rest) acc) (List.init n (fun i -> i)))
    dims [ [] ]

(* tinygrad: dedup, keeps the first occurrence *)
let dedup l =
  let seen = Hashtbl.create 16 in
  List.filter (fun x -> if Hashtbl.mem seen x then false else (Hashtbl.add seen x (); true)) l

(* dedup by physical equality (nodes, kernels), keeps the first occurrence *)
let dedupq l = List.rev (List.fold_left (fun acc x -> if List.memq x acc then acc else x :: acc) [] l)

let all_same = function [] -> true | x :: rest -> List.for_all (fun y -> y = x) rest
let flatten = List.concat

let argsort l =
  List.mapi (fun i x -> (i, x)) l |> List.stable_sort (fun (_, a) (_, b) -> compare a b) |> List.map fst

let partition = List.partition

(* Python floor division and modulo; 0 when dividing by 0 as in tinygrad *)
let floordiv x y = if y = 0 then 0 else if (x mod y <> 0) && ((x < 0) <> (y < 0)) then x / y - 1 else x / y
let floormod x y = x - floordiv x y * y
(* tinygrad: ceildiv on ints, -(num // -amt) *)
let ceildiv num amt = - (floordiv num (- amt))
let round_up num amt = (num + amt - 1) / amt * amt
let round_down num amt = - (round_up (- num) amt)
(* Python's int.bit_length, for n >= 0 *)
let bit_length n = let rec go n acc = if n = 0 then acc else go (n lsr 1) (acc + 1) in go n 0

let next_power2 x =
  if x = 0 then 1 else begin
    let r = ref 1 in
    while !r < x do r := !r lsl 1 done;
    !r
  end

(* C-style division (truncates toward zero), 0 when dividing by 0 as in tinygrad *)
let cdiv x y = if y = 0 then 0 else x / y
let cmod x y = x - cdiv x y * y

(* ---------- strings ---------- *)

(* tinygrad: ansistrip, re.sub('\x1b\\[(K|.*?m)', '', s): removes '\x1b[K' and '\x1b[' ... 'm' (the '.*?' does not
   cross a newline) *)
let ansistrip s =
  let n = String.length s and b = Buffer.create (String.length s) in
  (* the first 'm' from [j] before any newline *)
  let rec find_m j = if j >= n || s.[j] = '\n' then None else if s.[j] = 'm' then Some j else find_m (j + 1) in
  let rec go i =
    if i >= n then ()
    else if s.[i] = '\x1b' && i + 1 < n && s.[i + 1] = '[' then begin
      if i + 2 < n && s.[i + 2] = 'K' then go (i + 3)
      else match find_m (i + 2) with
        | Some j -> go (j + 1)
        | None -> Buffer.add_char b s.[i]; go (i + 1)
    end else (Buffer.add_char b s.[i]; go (i + 1)) in
  go 0;
  Buffer.contents b

let ansilen s = String.length (ansistrip s)

let is_balanced s =
  let d = ref 0 and ok = ref true in
  String.iter (fun c ->
      if c = '(' then incr d else if c = ')' then decr d;
      if !d < 0 then ok := false) s;
  !ok && !d = 0

let strip_parens s =
  let n = String.length s in
  if n >= 2 && s.[0] = '(' && s.[n - 1] = ')' && is_balanced (String.sub s 1 (n - 2)) then String.sub s 1 (n - 2)
  else s

let to_function_name s =
  let b = Buffer.create (String.length s) in
  String.iter (fun c ->
      match c with
      | 'a' .. 'z' | 'A' .. 'Z' | '0' .. '9' | '_' -> Buffer.add_char b c
      | c -> Buffer.add_string b (Printf.sprintf "%02X" (Char.code c))) (ansistrip s);
  Buffer.contents b

let pluralize st cnt = Printf.sprintf "%d %s%s" cnt st (if cnt = 1 then "" else "s")

let size_to_str s =
  let f d = float_of_int s /. float_of_int d in
  if s >= 1 lsl 30 then Printf.sprintf "%.2f GB" (f (1 lsl 30))
  else if s >= 1 lsl 20 then Printf.sprintf "%.2f MB" (f (1 lsl 20))
  else if s >= 1 lsl 10 then Printf.sprintf "%.2f KB" (f (1 lsl 10))
  else Printf.sprintf "%d B" s

let time_to_str ?(w = 8) t =
  if t > 10. then Printf.sprintf "%*.2fs " w t
  else if t > 10e-3 then Printf.sprintf "%*.2fms" w (t *. 1e3)
  else Printf.sprintf "%*.2fus" w (t *. 1e6)

(* ---------- environment ---------- *)

(* tinygrad's getenv is functools.cache'd: each key is read once *)
let env_cache : (string, string option) Hashtbl.t = Hashtbl.create 32

let env_raw key =
  match Hashtbl.find_opt env_cache key with
  | Some v -> v
  | None -> let v = Sys.getenv_opt key in Hashtbl.replace env_cache key v; v

(* ---------- internal errors ---------- *)

exception Bug of string

let () =
  Printexc.register_printer (function
    | Bug m -> Some ("tinygrad internal error (a bug in the library, please report it): " ^ m)
    | _ -> None)

let bug fmt = Printf.ksprintf (fun s -> raise (Bug s)) fmt

let internal_errors_as_bug ~what ~show f =
  let as_bug e =
    let g = show () in
    let g = if String.length g > 4000 then String.sub g 0 4000 ^ "\n..." else g in
    raise (Bug (Printf.sprintf "%s failed with %s on\n%s" what (Printexc.to_string e) g))
  in
  try f () with
  | (Failure _ | Not_found | Assert_failure _ | Match_failure _ | Division_by_zero) as e -> as_bug e
  (* a user's mistake is "op: ..."; the Stdlib's own (index out of bounds, List.nth, String.sub / Bytes.sub) are not *)
  | Invalid_argument m as e when not (String.contains m ':') -> as_bug e

let getenv key default =
  match env_raw key with
  | None -> default
  | Some v -> (
      match int_of_string_opt (String.trim v) with
      | Some i -> i
      | None -> invalid_arg (Printf.sprintf "getenv: %s=%S is not an int" key v))

let getenv_str key default = match env_raw key with None -> default | Some v -> v

(* ---------- context variables ---------- *)

type 'a context_var = { key : string; mutable value : 'a }

let registry : (string, unit) Hashtbl.t = Hashtbl.create 64

let register key =
  if Hashtbl.mem registry key then failwith (Printf.sprintf "attempt to recreate ContextVar %s" key);
  Hashtbl.replace registry key ()

type binding = Bind : 'a context_var * 'a -> binding

type saved = Saved : 'a context_var * 'a -> saved

type any_var = Any : 'a context_var -> any_var

(* every context variable, for [knobs] *)
let all_vars : any_var list ref = ref []

(* bumped by every change of a knob's value or of the set of knobs: [knobs_current] of a setting that matched
   at the current generation needs no comparison *)
let generation = ref 0

let tracked v = all_vars := Any v :: !all_vars; incr generation; v
let register_var v = register v.key; tracked v

let int_var key default = register_var { key; value = getenv key default }
let string_var key default = register_var { key; value = getenv_str key default }

(* a second variable for a key that tinygrad reads with two defaults in two places (TC_OPT: 0 in helpers.py,
   2 in search.py's action list) *)
let int_var_alias key default = tracked { key; value = getenv key default }

let set v x = v.value <- x; incr generation

(* tinygrad: Context *)
let context bindings f =
  let old = List.map (fun (Bind (v, _)) -> Saved (v, v.value)) bindings in
  List.iter (fun (Bind (v, x)) -> set v x) bindings;
  Fun.protect f ~finally:(fun () -> List.iter (fun (Saved (v, x)) -> set v x) old)

(* ---------- DEV and Target ---------- *)

type target = { device : string; renderer : string; arch : string; interface : string; indices : string }

let empty_target = { device = ""; renderer = ""; arch = ""; interface = ""; indices = "" }

(* tinygrad: Target.parse *)
let target_parse s =
  let iface, indices, s =
    match String.split_on_char '+' s with
    | [ f; rest ] -> (
        match String.rindex_opt f ':' with
        | Some i -> (String.sub f 0 i, String.sub f (i + 1) (String.length f - i - 1), rest)
        | None -> (f, "", rest))
    | [ _ ] -> ("", "", s)
    | _ -> failwith (Printf.sprintf "too many '+' in target string: %S" s) in
  let parts = List.mapi (fun i x -> if i < 2 then String.uppercase_ascii x else x) (String.split_on_char ':' s) in
  let t = { empty_target with interface = iface; indices } in
  match parts with
  | [ dev; ren; arch ] -> { t with device = dev; renderer = ren; arch }
  | [ dev; ren ] -> { t with device = dev; renderer = ren }
  | [ dev ] -> { t with device = dev }
  | _ -> failwith (Printf.sprintf "too many ':' in target string: %S" s)

let strip_trailing_colons s =
  let n = ref (String.length s) in
  while !n > 0 && s.[!n - 1] = ':' do decr n done;
  String.sub s 0 !n

let target_to_string t =
  let fst = strip_trailing_colons (t.interface ^ ":" ^ t.indices)
  and snd = strip_trailing_colons (String.concat ":" [ t.device; t.renderer; t.arch ]) in
  (if fst <> "" then fst ^ "+" else "") ^ snd

let dev_of_string s = List.map target_parse (String.split_on_char ';' s)

let dev = register_var { key = "DEV"; value = dev_of_string (getenv_str "DEV" "") }

let dev_device () = match dev.value with t :: _ -> t.device | [] -> ""

(* tinygrad: _DEV.target, the target for a device with defaults filled where not already specified *)
let dev_target ?(renderer = "") ?(arch = "") d =
  let t = match List.find_opt (fun t -> t.device = "" || t.device = d) dev.value with
    | Some t -> t | None -> { empty_target with device = d } in
  { t with device = d; renderer = (if t.renderer = "" then renderer else t.renderer);
           arch = (if t.arch = "" then arch else t.arch) }

(* ---------- garbage collection ---------- *)

(* the major heap's size right after the last [collect_unreachable] *)
let heap_after_collect = ref 0

(* a value unreachable now was either left unmarked by the cycle under way or is found by the next one.
   When the heap has more than doubled since the last call, the collection compacts: OCaml 5 keeps the
   memory of a heap's peak mapped until a compaction (OCaml 4 compacts by itself when most of the heap is
   free) *)
let collect_unreachable () =
  let heap () = (Gc.quick_stat ()).heap_words in
  if !heap_after_collect > 0 && heap () > 2 * !heap_after_collect then Gc.compact ()
  else begin Gc.major (); Gc.major () end;
  heap_after_collect := heap ()

(* ---------- the knobs (tinygrad names and defaults) ---------- *)

let debug = int_var "DEBUG" 0
let beam = int_var "BEAM" 0
let noopt = int_var "NOOPT" 0
let image = int_var "IMAGE" 0
let float16 = int_var "FLOAT16" 0
let jit = int_var "JIT" 1
let jit_batch_size = int_var "JIT_BATCH_SIZE" 32
let wino = int_var "WINO" 0
let capturing = int_var "CAPTURING" 1
let no_color = int_var "NO_COLOR" 0
let training = int_var "TRAINING" 0
let use_tc = int_var "TC" 1
let tc_select = int_var "TC_SELECT" (-1)
let tc_opt = int_var "TC_OPT" 0
let transcendental = int_var "TRANSCENDENTAL" 1
let nolocals = int_var "NOLOCALS" 0
let split_reduceop = int_var "SPLIT_REDUCEOP" 1
let no_memory_planner = int_var "NO_MEMORY_PLANNER" 0
let lru = int_var "LRU" 1
let cachelevel = int_var "CACHELEVEL" 2
let ignore_beam_cache = int_var "IGNORE_BEAM_CACHE" 0
let disable_fast_idiv = int_var "DISABLE_FAST_IDIV" 1
let fuse_optim = int_var "FUSE_OPTIM" 0
let allow_device_usage = int_var "ALLOW_DEVICE_USAGE" 1
let max_buffer_size = int_var "MAX_BUFFER_SIZE" 0
let max_kernel_buffers = int_var "MAX_KERNEL_BUFFERS" 0
let ring = int_var "RING" 1
let all2all = int_var "ALL2ALL" 0
let allreduce_cast = int_var "ALLREDUCE_CAST" 1
let ring_allreduce_threshold = int_var "RING_ALLREDUCE_THRESHOLD" 256_000
let emulated_dtypes = string_var "EMULATED_DTYPES" ""

external cpu_count_stub : unit -> int = "tg_cpu_count"

(* tinygrad: _get_cpu_count (cgroup quota first, then the affinity mask) *)
let get_cpu_count () =
  let from_cgroup =
    match open_in "/sys/fs/cgroup/cpu.max" with
    | exception Sys_error _ -> None
    | ic ->
      let line = try Some (input_line ic) with End_of_file -> None in
      close_in ic;
      match Option.map (fun l -> String.split_on_char ' ' (String.trim l)) line with
      | Some [ q; p ] when q <> "max" -> (
          match (int_of_string_opt q, int_of_string_opt p) with
          | Some q, Some p when p > 0 -> Some (max 1 (q / p))
          | _ -> None)
      | _ -> None in
  match from_cgroup with Some c -> c | None -> max 1 (cpu_count_stub ())

let num_cpu_threads = int_var "NUM_CPU_THREADS" (get_cpu_count ())
let viz = int_var "VIZ" 0
let parallel = int_var "PARALLEL" (if viz.value = 0 then num_cpu_threads.value / max 1 (getenv "PYTEST_XDIST_WORKER_COUNT" 1) else 0)
let profile = int_var "PROFILE" (abs viz.value)
let spec = int_var "SPEC" 1
let check_oob = int_var "CHECK_OOB" 0
let pcontig = int_var "PCONTIG" 0
let debug_rangeify = int_var "DEBUG_RANGEIFY" 0
let tuple_order = int_var "TUPLE_ORDER" 1
let ccache = int_var "CCACHE" 1
let cuda_plugin = string_var "CUDA_PLUGIN" ""
let allow_tf32 = int_var "ALLOW_TF32" 0
let scache = int_var "SCACHE" 1
let use_atomics = int_var "USE_ATOMICS" 0
let disallow_broadcast = int_var "DISALLOW_BROADCAST" 0

(* renderer/cstyle.py reads getenv("THREADS", 1) for has_threads; a ContextVar here so tests can flip it *)
let threads = int_var "THREADS" 1

(* tinygrad: codegen/__init__.py to_program_config — the integer knobs that change the generated programs
   (also NO_COLOR and THREADS, which the C renderer reads), so they are part of the program cache key *)
let to_program_config =
  [ noopt; nolocals; use_tc; image; disable_fast_idiv; transcendental; tc_select; tc_opt; no_color;
    allow_tf32; num_cpu_threads; threads ]

(* ---------- CPU kernel shape (not in tinygrad) ---------- *)

(* how CPU kernels are shaped: tinygrad 0.14.0's kernels byte for byte, or this port's faster ones *)
type cpu_opt = Cpu_tinygrad | Cpu_fast

let cpu_opt_of_string = function
  | "tinygrad" -> Cpu_tinygrad
  | "" | "fast" -> Cpu_fast
  | s -> invalid_arg (Printf.sprintf "CPU_OPT=%S: expected tinygrad or fast" s)

let cpu_opt = register_var { key = "CPU_OPT"; value = cpu_opt_of_string (getenv_str "CPU_OPT" "fast") }

(* the float32 vector width of fast CPU kernels: 0 takes it from the host ISA, else 2, 4, 8 or 16 *)
let cpu_vec = int_var "CPU_VEC" 0

(* not in tinygrad: THREAD shards on the CPU's thread pool (0: one after another, as tinygrad runs them) *)
let cpu_pool = int_var "CPU_POOL" 1

(* not in tinygrad: CPU kernels built with clang's AddressSanitizer and UndefinedBehaviorSanitizer *)
let sanitize = int_var "SANITIZE" 0
let sanitize_stats = string_var "SANITIZE_STATS" ""

(* the knobs tinygrad reads with a plain getenv where it uses them; here they are context variables too *)
let default_float = string_var "DEFAULT_FLOAT" ""
let default_int = string_var "DEFAULT_INT" ""
let sum_dtype = string_var "SUM_DTYPE" ""
let expand_ssa = int_var "EXPAND_SSA" 0
let aligned = int_var "ALIGNED" 1
let dmc = int_var "DMC" 0
let allow_half8 = int_var "ALLOW_HALF8" 0
let mv = int_var "MV" 1
let mv_blocksize = int_var "MV_BLOCKSIZE" 4
let mv_threads_per_row = int_var "MV_THREADS_PER_ROW" 8
let mv_rows_per_thread = int_var "MV_ROWS_PER_THREAD" 4
let reduceop_split_threshold = int_var "REDUCEOP_SPLIT_THRESHOLD" 32768
let reduceop_split_size = int_var "REDUCEOP_SPLIT_SIZE" 22
let beam_tc_opt = int_var_alias "TC_OPT" 2
let beam_padto = int_var "BEAM_PADTO" 0
let beam_uops_max = int_var "BEAM_UOPS_MAX" 3000
let beam_upcast_max = int_var "BEAM_UPCAST_MAX" 256
let beam_local_max = int_var "BEAM_LOCAL_MAX" 1024
let beam_log_surpass_max = int_var "BEAM_LOG_SURPASS_MAX" 0
let beam_strict_mode = int_var "BEAM_STRICT_MODE" 0
let beam_estimate = int_var "BEAM_ESTIMATE" 1
let beam_debug = int_var "BEAM_DEBUG" 0
let beam_min_progress = string_var "BEAM_MIN_PROGRESS" "0.01"
let jitbeam = int_var "JITBEAM" (-1)
let unsafe_allow_jit_buffer = int_var "UNSAFE_ALLOW_JIT_BUFFER" 0
let optim_dtype = string_var "OPTIM_DTYPE" "float32"
let const_lr = int_var "CONST_LR" 0
let assert_compile = int_var "ASSERT_COMPILE" 0
let cc = string_var "CC" ""
let rewrite_stack_limit = int_var "REWRITE_STACK_LIMIT" 250000

(* ---------- clocks ---------- *)

external time_ns : unit -> (int [@untagged]) = "tg_time_ns_byte" "tg_time_ns" [@@noalloc]

let perf_counter_ns () = time_ns ()
let perf_counter () = float_of_int (time_ns ()) *. 1e-9

(* ---------- cache directory ---------- *)

let home () = match Sys.getenv_opt "HOME" with Some h -> h | None -> Filename.get_temp_dir_name ()

let is_osx = lazy (Sys.os_type = "Unix" && Sys.file_exists "/System/Library/CoreServices/SystemVersion.plist")

(* tinygrad: cache_dir = $XDG_CACHE_HOME/tinygrad (~/.cache, ~/Library/Caches on macOS); this port keeps its own
   files under an "ocaml" subfolder so they never mix with tinygrad's *)
let cache_dir () =
  let base = getenv_str "XDG_CACHE_HOME"
      (Filename.concat (home ()) (if Lazy.force is_osx then "Library/Caches" else ".cache")) in
  Filename.concat (Filename.concat base "tinygrad") "ocaml"

let rec mkdir_p d =
  if not (Sys.file_exists d) then begin
    mkdir_p (Filename.dirname d);
    try Sys.mkdir d 0o755 with Sys_error _ when Sys.file_exists d -> ()
  end

let temp ?(append_user = false) x =
  let user = match Sys.getenv_opt "USER" with Some u -> u | None -> "user" in
  Filename.concat (Filename.get_temp_dir_name ()) (if append_user then x ^ "." ^ user else x)

(* tinygrad: helpers.py colored — ANSI color [color] (upper case: the bright variant), plain under NO_COLOR *)
let colored ?(background = false) st (color : string option) =
  match color with
  | _ when no_color.value <> 0 -> st
  | None -> st
  | Some c ->
    let colors = [ "black"; "red"; "green"; "yellow"; "blue"; "magenta"; "cyan"; "white" ] in
    let rec idx i = function
      | x :: xs -> if x = String.lowercase_ascii c then i else idx (i + 1) xs
      | [] -> invalid_arg ("colored: unknown color " ^ c) in
    let code = (if background then 10 else 0) + (if String.uppercase_ascii c = c then 60 else 0) + 30 + idx 0 colors in
    Printf.sprintf "\027[%dm%s\027[0m" code st

(* Python's str.replace(sub, by): every occurrence, left to right *)
let replace_all ~sub ~by s =
  let ls = String.length sub and n = String.length s in
  if ls = 0 then s
  else begin
    let b = Buffer.create n in
    let i = ref 0 in
    while !i < n do
      if !i + ls <= n && String.sub s !i ls = sub then (Buffer.add_string b by; i := !i + ls)
      else (Buffer.add_char b s.[!i]; incr i)
    done;
    Buffer.contents b
  end

(* ---------- the settings of every knob at once ---------- *)

(* the variables as they were listed (variables are only ever added, so the same list means the same set) and
   their values *)
type knobs = { vars : any_var list; values : saved array; mutable matched : int (* a generation *) }

let knobs () =
  let vars = !all_vars in
  { vars; values = Array.of_list (List.map (fun (Any v) -> Saved (v, v.value)) vars); matched = !generation }

(* compared knob by knob, without allocating, only when a knob was set since the setting last matched: this
   runs on every realize the realize cache serves *)
let knobs_current (k : knobs) =
  k.matched = !generation
  || (k.vars == !all_vars && Array.for_all (fun (Saved (v, x)) -> v.value == x || v.value = x) k.values
      && (k.matched <- !generation; true))
