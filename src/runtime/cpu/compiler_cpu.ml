(* tinygrad: runtime/support/compiler_cpu.py ClangCompiler, building a shared object per kernel (tinygrad builds an
   ELF object and loads it itself; we let the system linker and dlopen do that). The rendered source is kept as
   tinygrad renders it; the compiled source gets a uniform entry appended:
     void NAME_entry(void **bufs, long long *vars) { NAME((float* )bufs[0], ..., (int)vars[0]); } *)

type t = { cc : string; args : string list; cachekey : string option }

(* times a compiler was actually run in this process (tests check cache hits with it) *)
let compiles = ref 0
let compile_count () = !compiles

let on_path exe =
  let path = Option.value ~default:"/usr/bin:/bin" (Sys.getenv_opt "PATH") in
  List.exists (fun d -> d <> "" && Sys.file_exists (Filename.concat d exe)) (String.split_on_char ':' path)

(* CC as tinygrad reads it, else clang, else gcc (the fallback only compiles scalar kernels: no ext_vector_type) *)
let find_cc () =
  match Helpers.cc.value with
  | "" -> if on_path "clang" then "clang" else if on_path "gcc" then "gcc" else "cc"
  | c -> c

external machine : unit -> string = "tg_machine"

(* tinygrad: ClangCompiler.__init__ arch flags for "<arch>,native" *)
let arch_args () =
  match machine () with
  | "x86_64" -> [ "-march=native" ]
  | "arm64" -> [ "-ffixed-x18"; "-mcpu=native" ]
  | "riscv64" -> [ "-march=rv64g" ]
  | a -> failwith (Printf.sprintf "unsupported arch: %S" a)

(* not in tinygrad: SANITIZE=1 instruments every kernel. A finding is fatal (no recovery), so it cannot
   scroll by in a passing run; the frame pointer keeps ASan's stack traces readable. Two rules of C are left
   unchecked because tinygrad's kernels break them by design and clang gives them the meaning tinygrad wants:
   - a left shift of a negative int (log2 and exp2 build a float's exponent field with one): clang compiles a
     signed left shift to a plain two's-complement shift, with no assumption that it does not overflow;
   - an out-of-range float to int cast (exp2 converts its argument before the select that discards the result
     for large inputs; a cast of an out-of-range value takes the target's conversion). clang's only option
     that defines it saturates, which changes values and slows casts. *)
let sanitize_args =
  [ "-fsanitize=address,undefined"; "-fno-sanitize=shift-base,float-cast-overflow";
    "-fno-sanitize-recover=all"; "-fno-omit-frame-pointer" ]

(* not in tinygrad: a kernel of int64 emulated on int32 words (EMULATED_DTYPES=long, tinygrad's
   codegen/decomp/dtype.py l2i) adds words whose overflow is the carry. The UOp IR's ints wrap around
   (exec_alu truncates every result to its dtype) and the rendered C keeps the words as signed ints, whose
   overflow C leaves undefined: -fwrapv gives the C the IR's meaning. Only those kernels get it (their source
   is left as tinygrad renders it): on every other kernel the flag changes clang's code for signed index
   arithmetic, faster on some kernels and slower on others. *)
let wrap_args () =
  let emulated = List.map String.trim (String.split_on_char ',' Helpers.emulated_dtypes.value) in
  if List.exists (fun n -> Dtype.of_string n = Some Dtype.Int64) emulated then [ "-fwrapv" ] else []

(* the compiler with the flags of the kernels compiled now (read at compile time, as the kernels are
   lowered) *)
let for_context t =
  match List.filter (fun a -> not (List.mem a t.args)) (wrap_args ()) with
  | [] -> t
  | w -> { t with args = t.args @ w }

let create ?(cachekey = "compile_clang_so") () =
  let cc = find_cc () in
  let sanitized = Helpers.sanitize.value <> 0 in
  let args = [ "-shared"; "-O2"; "-fPIC"; "-ffreestanding"; "-fno-math-errno"; "-fno-ident" ] @ arch_args ()
             @ if sanitized then sanitize_args else [] in
  (* instrumented objects get a directory of their own: they only load into a process with the ASan runtime *)
  let key = String.concat "_" ([ cachekey; Filename.basename cc; machine (); "native" ]
                               @ if sanitized then [ "sanitize" ] else []) in
  { cc; args; cachekey = (if Helpers.ccache.value <> 0 then Some key else None) }

(* whether the compiler builds sanitized objects *)
let sanitized t = List.exists (fun a -> List.mem a sanitize_args) t.args

(* the compiler runs without the preloaded ASan runtime of a sanitized process (it is not instrumented, and
   the runtime only slows it down) *)
let shell_prefix t = if sanitized t then "env -u LD_PRELOAD " else ""

(* ---------- the uniform entry ---------- *)

type param = Buf of string | Var of string

let is_ident_char = function 'a' .. 'z' | 'A' .. 'Z' | '0' .. '9' | '_' -> true | _ -> false

(* the last top-level "void NAME(...)": the kernel (tinygrad's C sources hold one function) *)
let find_kernel src =
  let n = String.length src in
  let rec last i acc =
    if i + 5 > n then acc
    else
      let at_line_start = i = 0 || src.[i - 1] = '\n' in
      last (i + 1) (if at_line_start && String.sub src i 5 = "void " then Some i else acc) in
  match last 0 None with
  | None -> invalid_arg "Compiler_cpu: no top-level 'void <kernel>(' in the source"
  | Some i ->
    let j = ref (i + 5) in
    while !j < n && is_ident_char src.[!j] do incr j done;
    let name = String.sub src (i + 5) (!j - i - 5) in
    while !j < n && src.[!j] = ' ' do incr j done;
    if !j >= n || src.[!j] <> '(' || name = "" then invalid_arg "Compiler_cpu: malformed kernel prototype";
    let close = try String.index_from src !j ')' with Not_found -> invalid_arg "Compiler_cpu: unclosed prototype" in
    (name, String.sub src (!j + 1) (close - !j - 1))

let words s = String.split_on_char ' ' s |> List.filter (fun w -> w <> "")

(* "float* restrict data0_4" -> Buf "float* "; "const int core_id" -> Var "int" *)
let parse_param p =
  let p = String.trim p in
  match String.rindex_opt p '*' with
  | Some i ->
    Buf (String.concat " " (List.filter (fun w -> w <> "restrict" && w <> "const") (words (String.sub p 0 (i + 1)))))
  | None ->
    let ws = List.filter (fun w -> w <> "const") (words p) in
    let ty = List.filteri (fun i _ -> i < List.length ws - 1) ws in
    Var (String.concat " " ty)

let signature src =
  let name, params = find_kernel src in
  let params = String.trim params in
  (name, if params = "" || params = "void" then [] else List.map parse_param (String.split_on_char ',' params))

let entry_name name = name ^ "_entry"

(* the wrapper appended to the compiled source: buffers from [bufs], int vars from [vars], in prototype order *)
let entry_wrapper src =
  let name, params = signature src in
  let nb = ref 0 and nv = ref 0 in
  let args = List.map (function
      | Buf ty -> let i = !nb in incr nb; Printf.sprintf "(%s)bufs[%d]" ty i
      | Var ty -> let i = !nv in incr nv; Printf.sprintf "(%s)vars[%d]" ty i) params in
  Printf.sprintf "\nvoid %s(void **bufs, long long *vars) { (void)bufs; (void)vars; %s(%s); }\n"
    (entry_name name) name (String.concat ", " args)

let full_source src = src ^ entry_wrapper src


(* ---------- compiling ---------- *)

let read_file path =
  let ic = open_in_bin path in
  Fun.protect ~finally:(fun () -> close_in ic) (fun () -> really_input_string ic (in_channel_length ic))

let write_file path s =
  let oc = open_out_bin path in
  Fun.protect ~finally:(fun () -> close_out oc) (fun () -> output_string oc s)

let remove_quiet p = try Sys.remove p with Sys_error _ -> ()

external getpid : unit -> int = "tg_getpid"

let getpid_for_tests = getpid

let uniq = ref 0
let rng = lazy (Random.State.make_self_init ())

(* unique among processes (pid) and within one (counter, random bits) *)
let unique_suffix () = incr uniq; Printf.sprintf "%d.%d.%d" (getpid ()) !uniq (Random.State.bits (Lazy.force rng))

(* a kept sanitized source may be compiled by another process at the same time: written under a temp name and
   renamed, a compiler reading it sees a whole file *)
let write_source path s =
  let tmp = path ^ ".tmp." ^ unique_suffix () in
  write_file tmp s;
  Sys.rename tmp path

(* under SANITIZE=1 the compiled source is kept, named by its digest, so that the file and line of a
   sanitizer's report can be read after the run *)
let sanitize_source t full =
  if not (sanitized t) then None
  else begin
    let dir = Filename.concat (Helpers.cache_dir ()) "sanitize_src" in
    Helpers.mkdir_p dir;
    Some (Filename.concat dir (Digest.to_hex (Digest.string full) ^ ".c"))
  end

let is_clang cc = let b = Filename.basename cc in String.length b >= 5 && String.sub b 0 5 = "clang"

let install_hint = "install clang (Debian/Ubuntu: apt-get install clang), or set CC"

(* whether the compiler can be run: a path that exists, or a name on PATH *)
let cc_available cc = if String.contains cc '/' then Sys.file_exists cc else on_path cc

(* runs the compiler with [args] on [full] (the source with the entry), writing the shared object to [out] *)
let run_cc_with t args full out =
  if not (cc_available t.cc) then
    raise (Device.Compile_error { source = full; output = Printf.sprintf
                                    "CPU: the C compiler %S was not found (CC, else clang, else gcc on PATH): %s" t.cc install_hint });
  let base = Filename.concat (Filename.get_temp_dir_name ()) ("tinygrad_ml_" ^ unique_suffix ()) in
  let c_file = Option.value ~default:(base ^ ".c") (sanitize_source t full) and err_file = base ^ ".err" in
  write_source c_file full;
  (* clang writes crash reproducers to the temp dir unless told not to (the flag changes no output) *)
  let quiet = if is_clang t.cc then [ "-fno-crash-diagnostics" ] else [] in
  let argv = (t.cc :: args) @ quiet @ [ "-x"; "c"; c_file; "-o"; out ] in
  let cmd = shell_prefix t ^ String.concat " " (List.map Filename.quote argv)
            ^ " 2> " ^ Filename.quote err_file in
  if Helpers.debug.value >= 7 then Printf.printf "%s\n%!" cmd;
  incr compiles;
  let rc = Sys.command cmd in
  let err = try read_file err_file with Sys_error _ -> "" in
  if not (sanitized t) then remove_quiet c_file;
  remove_quiet err_file;
  if rc <> 0 then begin
    remove_quiet out;
    let hint = if Helpers.cc.value = "" && not (on_path "clang") then "\n(clang was not found: " ^ install_hint ^ ")" else "" in
    raise (Device.Compile_error { source = full; output = Printf.sprintf "%s exited with %d\n%s%s" t.cc rc err hint })
  end

(* the flags of the retry after a failure: without the native-arch flags (clang 14 crashes selecting some AVX-512
   vector broadcasts under -march=native: "Cannot select: v16i8 X86ISD::VBROADCAST") *)
let safe_args t = List.filter (fun a -> a <> "-march=native" && a <> "-mcpu=native") t.args

(* not in tinygrad (a compiler failure reaches the user there): a failed compile is retried once with [safe_args];
   when that fails too, the first error is raised *)
let run_cc t full out =
  try run_cc_with t t.args full out
  with Device.Compile_error { output; _ } as e when safe_args t <> t.args && cc_available t.cc ->
    if Helpers.debug.value >= 1 then begin
      let first = match String.split_on_char '\n' output with _ :: l :: _ -> l | l :: _ -> l | [] -> "" in
      Printf.printf "CPU: %s failed on kernel %s (%s); retrying without %s\n%!" t.cc
        (* the last function of the compiled source is the entry, NAME_entry *)
        (match signature full with
         | e, _ when Filename.check_suffix e "_entry" -> Filename.chop_suffix e "_entry"
         | e, _ -> e
         | exception Invalid_argument _ -> "?") (String.trim first)
        (String.concat " " (List.filter (fun a -> not (List.mem a (safe_args t))) t.args))
    end;
    (try run_cc_with t (safe_args t) full out with Device.Compile_error _ -> raise e)

let temp_libs = ref []
let () = at_exit (fun () -> List.iter remove_quiet !temp_libs)

let assert_no_compile src =
  if Helpers.assert_compile.value <> 0 then failwith ("tried to compile with ASSERT_COMPILE set\n" ^ src)

(* tinygrad: Compiler.compile; the library is the path of a new shared object (removed at exit) *)
let compile t src =
  let t = for_context t in
  assert_no_compile src;
  let out = Filename.concat (Filename.get_temp_dir_name ()) ("tinygrad_ml_" ^ unique_suffix () ^ ".so") in
  run_cc t (full_source src) out;
  temp_libs := out :: !temp_libs;
  out

(* the cache file for a source: named by a hash of compiler, flags and the compiled source *)
let cache_path t key src =
  let h = Digest.to_hex (Digest.string (String.concat "\x00" ((t.cc :: t.args) @ [ full_source src ]))) in
  Filename.concat (Filename.concat (Helpers.cache_dir ()) key) (h ^ ".so")

(* A cache entry is the shared object followed by the MD5 of its bytes (a loader ignores bytes past the ELF's
   segments). An entry whose trailer does not match (truncated, garbage, written by something else) is rebuilt,
   never loaded: dlopen on a damaged object may fail or map garbage code. *)
let digest_len = 16

let seal path =
  let d = Digest.file path in
  let oc = open_out_gen [ Open_wronly; Open_append; Open_binary ] 0o644 path in
  Fun.protect ~finally:(fun () -> close_out oc) (fun () -> output_string oc d)

let intact path =
  match read_file path with
  | s ->
    let n = String.length s in
    n > digest_len && String.equal (Digest.substring s 0 (n - digest_len)) (String.sub s (n - digest_len) digest_len)
  | exception Sys_error _ -> false

(* not in tinygrad: compiles started by [prefetch] and not yet waited for, by cache file: the compiler's process
   (a shell running it), its source file and the temp object it writes *)
type job = { pid : int; c_file : string; keep_c_file : bool; tmp : string }

let jobs : (string, job) Hashtbl.t = Hashtbl.create 16

(* the order the jobs started in, oldest first, for the bound on those running at once *)
let job_order : string Queue.t = Queue.create ()

(* waits for the job compiling [path]: a compiler that succeeded leaves its object sealed in the cache; a failure
   leaves nothing, for [compile_cached] to compile again and report *)
let finish_job path =
  match Hashtbl.find_opt jobs path with
  | None -> ()
  | Some j ->
    Hashtbl.remove jobs path;
    let ok = match snd (Unix.waitpid [] j.pid) with Unix.WEXITED 0 -> true | _ -> false in
    if not j.keep_c_file then remove_quiet j.c_file;
    if ok && Sys.file_exists j.tmp then (try seal j.tmp; Sys.rename j.tmp path with Sys_error _ -> remove_quiet j.tmp)
    else remove_quiet j.tmp

(* the oldest running job is waited for until fewer than [PARALLEL] run *)
let rec make_room () =
  if Hashtbl.length jobs >= Helpers.parallel.value && not (Queue.is_empty job_order) then begin
    finish_job (Queue.pop job_order);
    make_room ()
  end

(* the background compile of [prefetch]: the compiler runs as [compile_many]'s jobs do, its object renamed into
   the cache when [compile_cached] (or the bound on running jobs) waits for it. Nothing without the disk cache,
   with PARALLEL <= 1 or ASSERT_COMPILE=1 *)
let prefetch t src =
  match t.cachekey with
  | Some key when Helpers.parallel.value > 1 && Helpers.assert_compile.value = 0 && cc_available t.cc ->
    let path = cache_path t key src in
    if not (Hashtbl.mem jobs path || (Sys.file_exists path && intact path)) then begin
      make_room ();
      Helpers.mkdir_p (Filename.dirname path);
      let full = full_source src in
      let c_file = Option.value (sanitize_source t full) ~default:(Filename.concat (Filename.get_temp_dir_name ())
                                                                      ("tinygrad_ml_" ^ unique_suffix () ^ ".c")) in
      write_source c_file full;
      let tmp = path ^ ".tmp." ^ unique_suffix () in
      let quiet = if is_clang t.cc then [ "-fno-crash-diagnostics" ] else [] in
      let argv = (t.cc :: t.args) @ quiet @ [ "-x"; "c"; c_file; "-o"; tmp ] in
      let cmd = shell_prefix t ^ String.concat " " (List.map Filename.quote argv) ^ " 2>/dev/null" in
      let pid = Unix.create_process "/bin/sh" [| "/bin/sh"; "-c"; cmd |] Unix.stdin Unix.stdout Unix.stderr in
      incr compiles;
      Hashtbl.replace jobs path { pid; c_file; keep_c_file = sanitized t; tmp };
      Queue.push path job_order
    end
  | _ -> ()

(* the jobs still running when the process exits are waited for (their objects kept in the cache), so no compiler
   outlives it *)
let () = at_exit (fun () -> Queue.iter finish_job job_order)

(* tinygrad: Compiler.compile_cached; a new object is written to a temp name, sealed and renamed into place, so a
   concurrent process sees either no file or a whole one *)
let compile_cached t src =
  let t = for_context t in
  match t.cachekey with
  | None -> compile t src
  | Some key ->
    let path = cache_path t key src in
    finish_job path;
    if Sys.file_exists path && intact path then path
    else begin
      if Sys.file_exists path then begin
        if Helpers.debug.value >= 1 then Printf.printf "CPU: damaged kernel cache entry %s, rebuilding it\n%!" path;
        remove_quiet path
      end;
      assert_no_compile src;
      Helpers.mkdir_p (Filename.dirname path);
      let tmp = path ^ ".tmp." ^ unique_suffix () in
      run_cc t (full_source src) tmp;
      seal tmp;
      Sys.rename tmp path;
      path
    end

(* BEAM's worker pool (tinygrad: get_worker_pool, [PARALLEL] processes compiling candidates): the sources not yet in
   the cache are compiled [PARALLEL] at a time, by one shell running the compilers in the background and renaming
   each object into the cache when its compiler succeeds. A failure leaves no file, so [compile_cached] later
   compiles that source again and raises with the compiler's message. *)
let compile_many t srcs =
  let t = for_context t in
  let workers = Helpers.parallel.value in
  match t.cachekey with
  | Some key when workers > 1 && Helpers.assert_compile.value = 0 ->
    let todo = List.filter (fun s -> let p = cache_path t key s in not (Sys.file_exists p && intact p))
        (List.sort_uniq compare srcs) in
    let rec batches l =
      if l <> [] then begin
        let batch = List.filteri (fun i _ -> i < workers) l and rest = List.filteri (fun i _ -> i >= workers) l in
        let jobs = List.map (fun src ->
            let path = cache_path t key src in
            Helpers.mkdir_p (Filename.dirname path);
            let temp =
              Filename.concat (Filename.get_temp_dir_name ()) ("tinygrad_ml_" ^ unique_suffix () ^ ".c") in
            let c_file = Option.value ~default:temp (sanitize_source t (full_source src)) in
            write_source c_file (full_source src);
            (c_file, path ^ ".tmp." ^ unique_suffix (), path)) batch in
        let q = Filename.quote in
        let quiet = if is_clang t.cc then " -fno-crash-diagnostics" else "" in
        let job (c_file, tmp, _) =
          Printf.sprintf "(%s%s%s -x c %s -o %s 2>/dev/null || rm -f %s) &" (shell_prefix t)
            (String.concat " " (List.map q (t.cc :: t.args))) quiet (q c_file) (q tmp) (q tmp) in
        compiles := !compiles + List.length jobs;
        ignore (Sys.command (String.concat "\n" (List.map job jobs @ [ "wait" ])));
        (* each object the compiler finished is sealed and renamed into the cache *)
        List.iter (fun (c_file, tmp, path) ->
            if not (sanitized t) then remove_quiet c_file;
            if Sys.file_exists tmp then (try seal tmp; Sys.rename tmp path with Sys_error _ -> remove_quiet tmp)) jobs;
        batches rest
      end in
    batches todo
  | _ -> ()

let as_device_compiler t =
  { Device.cachekey = t.cachekey; compile = compile t; compile_cached = compile_cached t; compile_many = compile_many t;
    prefetch = prefetch t }

(* ---------- the host's vector registers ---------- *)

(* not in tinygrad: the float32 lanes of the widest vector register the compiler targets with the flags above,
   read from its predefined macros once (clang/gcc -dM -E): 16 with AVX-512F, 8 with AVX, else 4 *)
let host_vector_width =
  lazy (
    let t = create () in
    let out = Filename.concat (Filename.get_temp_dir_name ()) ("tinygrad_ml_macros_" ^ unique_suffix ()) in
    let flags = List.filter (fun a -> a <> "-shared" && not (List.mem a sanitize_args)) t.args in
    let argv = (t.cc :: flags) @ [ "-dM"; "-E"; "-x"; "c"; "/dev/null"; "-o"; out ] in
    let cmd = String.concat " " (List.map Filename.quote argv) ^ " 2> /dev/null" in
    let macros = if Sys.command cmd = 0 then (try read_file out with Sys_error _ -> "") else "" in
    remove_quiet out;
    let defines m = List.exists (fun l -> match String.split_on_char ' ' l with
        | [ "#define"; n; _ ] -> n = m | _ -> false) (String.split_on_char '\n' macros) in
    if defines "__AVX512F__" then 16 else if defines "__AVX__" then 8 else 4)

let host_vector_width () = Lazy.force host_vector_width
