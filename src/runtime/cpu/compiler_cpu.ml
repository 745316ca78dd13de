(* tinygrad: runtime/support/compiler_cpu.py ClangCompiler, building a shared object per kernel (tinygrad builds an
   ELF object and loads it itself; we let the system linker and dlopen do that). The rendered source is kept as
   tinygrad renders it; the compiled source gets a uniform entry appended:
     void NAME_entry(void **bufs, long long *vars) { NAME((float* )bufs[0], ..., (int)vars[0]); } *)

type t = { cc : string; args : string list; cachekey : string option }

(* sources handed to a compiler in this process (tests check cache hits with it), and the compiler processes
   started for them (a background batch builds several sources in one) *)
let compiles = ref 0
let compile_count () = !compiles
let processes = ref 0
let process_count () = !processes

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

(* the environment of a compiler process: without the preloaded ASan runtime of a sanitized process (the
   compiler is not instrumented, and the runtime only slows it down) *)
let compiler_env t =
  let env = Unix.environment () in
  if not (sanitized t) then env
  else Array.of_list (List.filter (fun e -> not (String.length e >= 11 && String.sub e 0 11 = "LD_PRELOAD="))
                        (Array.to_list env))

let dev_null = lazy (Unix.openfile "/dev/null" [ Unix.O_RDWR; Unix.O_CLOEXEC ] 0)

(* Not in tinygrad (it links the object itself, runtime/support/elf.py): how a kernel's shared object is
   built. clang's driver links a shared object by running its compiler as a process of its own and then the
   linker; compiling to an object (the compiler runs inside the driver's process) and running the system
   linker on it costs about half. The linker gets the compiler's runtime library, as the driver gives it, for
   the helpers a kernel may call (half conversions); C library functions resolve when the object is loaded.
   The driver still links the sanitized objects and those of another compiler than clang. *)
type build = Driver | Compile_then_link of string

(* each compiler's runtime library, asked once ([-print-libgcc-file-name]); None when not a file *)
let runtime_libs : (string, string option) Hashtbl.t = Hashtbl.create 2

let runtime_lib cc =
  match Hashtbl.find_opt runtime_libs cc with
  | Some l -> l
  | None ->
    let l = match Unix.open_process_args_in cc [| cc; "-print-libgcc-file-name" |] with
      | ic ->
        let line = try String.trim (input_line ic) with End_of_file -> "" in
        (match Unix.close_process_in ic with
         | Unix.WEXITED 0 when line <> "" && Sys.file_exists line -> Some line
         | _ -> None)
      | exception Unix.Unix_error _ -> None in
    Hashtbl.replace runtime_libs cc l;
    l

let build_of t =
  if sanitized t || not (is_clang t.cc) || not (List.mem "-shared" t.args) || not (on_path "ld") then Driver
  else match runtime_lib t.cc with Some lib -> Compile_then_link lib | None -> Driver

(* the compiler's flags and output for a build: an object beside the shared object that [ld] links *)
let compile_step build args out =
  match build with
  | Driver -> (args, out)
  | Compile_then_link _ -> (List.map (fun a -> if a = "-shared" then "-c" else a) args, out ^ ".o")

(* starts the compiler on [c_file], writing [out] and its messages to [stderr]; the process is the compiler
   itself (no shell between), and its id is returned *)
let spawn_cc t args c_file out ~stderr =
  (* clang writes crash reproducers to the temp dir unless told not to (the flag changes no output) *)
  let quiet = if is_clang t.cc then [ "-fno-crash-diagnostics" ] else [] in
  let argv = (t.cc :: args) @ quiet @ [ "-x"; "c"; c_file; "-o"; out ] in
  if Helpers.debug.value >= 7 then Printf.printf "%s\n%!" (String.concat " " (List.map Filename.quote argv));
  incr processes;
  let null = Lazy.force dev_null in
  Unix.create_process_env t.cc (Array.of_list argv) (compiler_env t) null null stderr

(* the exit status of a process as a shell reports it *)
let exit_code = function Unix.WEXITED n -> n | Unix.WSIGNALED n | Unix.WSTOPPED n -> 128 + abs n

(* the status of a child process once it exits; a child that cannot be waited for counts as failed *)
let rec wait_pid pid =
  match Unix.waitpid [] pid with
  | _, status -> status
  | exception Unix.Unix_error (Unix.EINTR, _, _) -> wait_pid pid
  | exception Unix.Unix_error _ -> Unix.WEXITED 127

(* links the object [obj] into the shared object [out] and removes [obj]; the linker's exit code *)
let link_object lib obj out ~stderr =
  let argv = [| "ld"; "-shared"; "-o"; out; obj; lib |] in
  if Helpers.debug.value >= 7 then Printf.printf "%s\n%!" (String.concat " " (Array.to_list argv));
  let rc = match Unix.create_process "ld" argv (Lazy.force dev_null) (Lazy.force dev_null) stderr with
    | pid -> exit_code (wait_pid pid)
    | exception Unix.Unix_error _ -> 127 in
  remove_quiet obj;
  rc

(* runs the compiler with [args] on [full] (the source with the entry), writing the shared object to [out] *)
let run_cc_with t args full out =
  if not (cc_available t.cc) then
    raise (Device.Compile_error { source = full; output = Printf.sprintf
                                    "CPU: the C compiler %S was not found (CC, else clang, else gcc on PATH): %s" t.cc install_hint });
  let base = Filename.concat (Filename.get_temp_dir_name ()) ("tinygrad_ml_" ^ unique_suffix ()) in
  let c_file = Option.value ~default:(base ^ ".c") (sanitize_source t full) and err_file = base ^ ".err" in
  write_source c_file full;
  incr compiles;
  let build = build_of t in
  let cargs, target = compile_step build args out in
  let err_fd = Unix.openfile err_file [ Unix.O_WRONLY; Unix.O_CREAT; Unix.O_TRUNC; Unix.O_CLOEXEC ] 0o600 in
  let prog, rc = Fun.protect ~finally:(fun () -> Unix.close err_fd) (fun () ->
      match spawn_cc t cargs c_file target ~stderr:err_fd with
      | exception Unix.Unix_error (e, _, _) ->
        write_file err_file (Printf.sprintf "cannot start %s: %s" t.cc (Unix.error_message e)); (t.cc, 127)
      | pid ->
        match exit_code (wait_pid pid), build with
        | 0, Compile_then_link lib -> ("ld", link_object lib target out ~stderr:err_fd)
        | rc, _ -> if target <> out then remove_quiet target; (t.cc, rc)) in
  let err = try read_file err_file with Sys_error _ -> "" in
  if not (sanitized t) then remove_quiet c_file;
  remove_quiet err_file;
  if rc <> 0 then begin
    remove_quiet out;
    let hint = if Helpers.cc.value = "" && not (on_path "clang") then "\n(clang was not found: " ^ install_hint ^ ")" else "" in
    raise (Device.Compile_error
             { source = full; output = Printf.sprintf "%s exited with %d\n%s%s" prog rc err hint })
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

(* ---------- background compiles ---------- *)

(* Not in tinygrad: [prefetch] queues each kernel's source as it is lowered, and up to [PARALLEL] compiler
   processes build the queue in the background. A process builds one shared object from every kernel queued
   when it starts (up to [max_batch]): a compiler process pays a fixed start (loading LLVM, setting up the
   target) that a batch pays once. Each kernel's cache file is then a hard link to its batch's object, which
   exports every member's kernel and entry under their own names. *)

(* a source waiting for a compiler: its cache file, the compiled source, its kernel's name, the compiler that
   builds it, and whether it is built alone (it failed in a batch) *)
type queued = { path : string; full : string; name : string; compiler : t; alone : bool }

(* a running compiler: its process, the C file and the object it writes, the sources it builds *)
type job = { pid : int; c_file : string; keep_c_file : bool; obj : string; build : build; tmp : string;
             members : queued list }

(* the most kernels one process builds: a batch's first kernel waits for the whole batch *)
let max_batch = 16

(* both newest first *)
let queue : queued list ref = ref []
let running : job list ref = ref []

(* the job building a cache file *)
let job_of path = List.find_opt (fun j -> List.exists (fun q -> q.path = path) j.members) !running
let is_queued path = List.exists (fun q -> q.path = path) !queue

(* the names a C source declares at file scope that a second kernel's source may declare too: its static
   functions (the name before the first parenthesis) and its typedefs (the name before the attribute or the
   semicolon) *)
let file_scope_names src =
  let last_word s =
    match List.rev (words s) with w :: _ when String.for_all is_ident_char w -> Some w | _ -> None in
  let before sub s =
    let n = String.length sub in
    let rec go i =
      if i + n > String.length s then None
      else if String.sub s i n = sub then Some (String.sub s 0 i)
      else go (i + 1) in
    go 0 in
  let prefixed p l = String.length l > String.length p && String.sub l 0 (String.length p) = p in
  List.filter_map (fun line ->
      if prefixed "static " line then Option.bind (before "(" line) last_word
      else if prefixed "typedef " line
           && not (String.contains line '(' && before "__attribute__" line = None) then
        match before " __attribute__" line with
        | Some head -> last_word head
        | None -> Option.bind (before ";" line) last_word
      else None) (String.split_on_char '\n' src)
  |> List.sort_uniq compare

(* the translation unit of a batch: each member's source with its file-scope names renamed by macros of its
   own (its kernel and entry keep their names: they are what the loader looks up) *)
let batch_source = function
  | [ q ] -> q.full
  | members ->
    String.concat "\n" (List.mapi (fun i q ->
        let names = file_scope_names q.full in
        String.concat "" (List.map (fun n -> Printf.sprintf "#define %s %s__tg%d\n" n n i) names)
        ^ q.full ^ "\n"
        ^ String.concat "" (List.map (fun n -> Printf.sprintf "#undef %s\n" n) names)) members)

(* the next batch from the front of the queue: the oldest source, then the sources after it with its compiler
   and other kernel names, [size] at most; a source that failed in a batch is built alone, and so is a
   sanitized one (its kept source is the kernel's own, for the file and line of a report) *)
let take_batch size =
  match List.rev !queue with
  | [] -> []
  | first :: rest ->
    let rec pick acc names n = function
      | [] -> List.rev acc
      | q :: l ->
        if n >= size || first.alone || sanitized first.compiler then List.rev acc
        else if q.alone || q.compiler <> first.compiler || List.mem q.name names then pick acc names n l
        else pick (q :: acc) (q.name :: names) (n + 1) l in
    let batch = pick [ first ] [ first.name ] 1 rest in
    queue := List.filter (fun q -> not (List.memq q batch)) !queue;
    batch

let start_job members =
  let t = (List.hd members).compiler in
  let c_file = match members with
    | [ q ] when sanitized t -> Option.get (sanitize_source t q.full)
    | _ -> Filename.concat (Filename.get_temp_dir_name ()) ("tinygrad_ml_" ^ unique_suffix () ^ ".c") in
  let first = List.hd members in
  if Helpers.debug.value >= 7 then
    Printf.printf "CPU: one compiler for %s\n%!" (String.concat " " (List.map (fun q -> q.name) members));
  write_source c_file (batch_source members);
  let tmp = first.path ^ ".tmp." ^ unique_suffix () in
  let build = build_of t in
  let args, obj = compile_step build t.args tmp in
  match spawn_cc t args c_file obj ~stderr:(Lazy.force dev_null) with
  | pid -> running := { pid; c_file; keep_c_file = sanitized t; obj; build; tmp; members } :: !running
  | exception Unix.Unix_error _ -> remove_quiet c_file

(* installs a whole object as a cache file: a hard link (the batch's members share one object), else a copy;
   a file already there (another process built it) is kept *)
let install obj path =
  if not (Sys.file_exists path) then
    try Unix.link obj path
    with Unix.Unix_error _ ->
      let tmp = path ^ ".tmp." ^ unique_suffix () in
      (try write_file tmp (read_file obj); Sys.rename tmp path with Sys_error _ -> remove_quiet tmp)

(* a finished job: a compiler that succeeded leaves its object sealed in the cache under every member's file;
   a failed batch puts its members back at the front of the queue, each to be built alone, so that one bad
   kernel leaves the others' objects in the cache; a failure alone leaves nothing, for [compile_cached] to
   compile again and report *)
let finish j status =
  running := List.filter (fun r -> r != j) !running;
  if not j.keep_c_file then remove_quiet j.c_file;
  let linked = function
    | Driver -> true
    | Compile_then_link lib -> link_object lib j.obj j.tmp ~stderr:(Lazy.force dev_null) = 0 in
  let ok = status = Unix.WEXITED 0 && linked j.build && Sys.file_exists j.tmp in
  if j.obj <> j.tmp then remove_quiet j.obj;
  if ok then begin
    (try seal j.tmp; List.iter (fun q -> install j.tmp q.path) j.members with Sys_error _ -> ());
    remove_quiet j.tmp
  end else begin
    remove_quiet j.tmp;
    match j.members with
    | [ _ ] -> ()
    | members ->
      if Helpers.debug.value >= 2 then
        Printf.printf "CPU: the batch of %s failed; building each alone\n%!"
          (String.concat " " (List.map (fun q -> q.name) members));
      queue := !queue @ List.rev_map (fun q -> { q with alone = true }) members
  end

(* the jobs whose compiler has exited *)
let reap () =
  List.iter (fun j ->
      match Unix.waitpid [ Unix.WNOHANG ] j.pid with
      | 0, _ -> ()
      | _, status -> finish j status
      | exception Unix.Unix_error (Unix.EINTR, _, _) -> ()
      | exception Unix.Unix_error _ -> finish j (Unix.WEXITED 127)) !running

(* the compilers that may run at once: PARALLEL, and at least one, so that a source queued under a larger
   PARALLEL is still built when it is waited for. While the caller goes on (it lowers the next kernels: one
   core busy) one compiler fewer, so that the compilers and the caller share PARALLEL cores *)
let slots ~waiting = max 1 (if waiting then Helpers.parallel.value else Helpers.parallel.value - 1)

(* starts a compiler on the queue for each free slot, the queue shared among them *)
let rec start_jobs ~waiting =
  let free = slots ~waiting - List.length !running in
  if free > 0 && !queue <> [] then begin
    (match take_batch (min max_batch (Helpers.ceildiv (List.length !queue) free)) with
     | [] -> ()
     | batch -> start_job batch);
    start_jobs ~waiting
  end

let wait_job j = finish j (wait_pid j.pid)

(* waits until no compiler builds or will build [path]; a slot freed meanwhile takes the queue at once *)
let rec await path =
  match job_of path with
  | Some j -> wait_job j; start_jobs ~waiting:true; await path
  | None when is_queued path ->
    if !running <> [] && List.length !running >= slots ~waiting:true then
      wait_job (Helpers.last !running);
    start_jobs ~waiting:true;
    await path
  | None -> ()

(* queues a source for the background compilers and starts those that have a free slot. Nothing without the
   disk cache, with PARALLEL <= 1 or ASSERT_COMPILE=1 *)
let prefetch t src =
  let t = for_context t in
  match t.cachekey with
  | Some key when Helpers.parallel.value > 1 && Helpers.assert_compile.value = 0 && cc_available t.cc ->
    let path = cache_path t key src in
    if not (job_of path <> None || is_queued path || (Sys.file_exists path && intact path)) then begin
      Helpers.mkdir_p (Filename.dirname path);
      incr compiles;
      let full = full_source src in
      queue := { path; full; name = fst (signature src); compiler = t; alone = false } :: !queue
    end;
    reap ();
    start_jobs ~waiting:false
  | _ -> ()

(* the compilers still running when the process exits are waited for (their objects kept in the cache), so no
   compiler outlives it; the sources still queued are dropped *)
let () = at_exit (fun () -> queue := []; List.iter wait_job !running)

(* tinygrad: Compiler.compile_cached; a new object is written to a temp name, sealed and renamed into place, so a
   concurrent process sees either no file or a whole one *)
let compile_cached t src =
  let t = for_context t in
  match t.cachekey with
  | None -> compile t src
  | Some key ->
    let path = cache_path t key src in
    (* a kernel built already: its caller runs what it lowered, and waits next for the kernels still queued,
       which get every slot now rather than when a compile it waits for ends *)
    if job_of path = None && not (is_queued path) then begin reap (); start_jobs ~waiting:true end;
    await path;
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

(* BEAM's worker pool (tinygrad: get_worker_pool, [PARALLEL] processes compiling candidates): the sources not yet
   in the cache go through the background compilers and are waited for. A failure leaves no file, so
   [compile_cached] later compiles that source again and raises with the compiler's message. *)
let compile_many t srcs =
  let t = for_context t in
  match t.cachekey with
  | Some key when Helpers.parallel.value > 1 && Helpers.assert_compile.value = 0 ->
    let srcs = List.sort_uniq compare srcs in
    List.iter (prefetch t) srcs;
    List.iter (fun src -> await (cache_path t key src)) srcs
  | _ -> ()

let as_device_compiler t =
  { Device.cachekey = t.cachekey; compile = compile t; compile_cached = compile_cached t; compile_many = compile_many t;
    prefetch = prefetch t }

(* ---------- the host's vector registers ---------- *)

(* not in tinygrad: the float32 lanes of the widest vector register that [-march=native] targets, from the
   CPU's feature bits: asking the compiler for its predefined macros cost a shell and a compiler process at the
   start of every program *)
external host_vector_width : unit -> int = "tg_host_vector_width"
