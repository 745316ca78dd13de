(* The golden corpus end to end (/work/shared/golden/corpus, see its README.md): every first_milestone program
   (manifest.json) is written with the Tensor API in Corpus_programs and run as the harvester ran tinygrad, with
   NOOPT=1: the in_<name>.npy inputs are made into tensors and realized one by one, the global counters are reset,
   the program builds its outputs and ONE realize_all realizes them all, then each output is read back. Checked
   against cpu_noopt.json:
   - the number of kernels run by the realize == counts.kernels (input copies and copies not counted);
   - the kernel names, in order, == those of the build+realize calls (and those of the readback calls);
   - each output's shape, dtype and values (within 1e-5 relative; float16 1e-3; ints/bools exact) == out<i>.npy;
     on the emulator, a program whose GPU kernel computes other values by design is compared exactly with
     tinygrad's own emulator run of it (test/fixtures/emu_corpus, [expected_output]);
   - reported, not failed: how many kernels' scheduled AST has the corpus ast_key and how many C sources equal the
     corpus src (whitespace-normalised); acceptance 2 wants >= 80%.
   Only the programs not in [known_failures] fail the suite; the others are counted in the summary lines
   ("corpus: ..."). CORPUS_VERBOSE=1 prints one line per program, CORPUS_ONLY=id1,id2 selects programs.
   [run_program ~mode:Default] runs a program as a user gets it (the default heuristics, no NOOPT) against
   cpu_default.json: the "corpus default" case at the end of the file. Both modes pin NUM_CPU_THREADS=8 (the
   Helpers.num_cpu_threads context var, ClangRenderer.global_max) as the harvester did. *)

open Tinygrad.Compiler
open Test_util
module T = Tinygrad.Tensor

(* programs known to fail a check, with the reason; every other written program is expected to pass every
   check except the C-source count (which is only reported) and fails the suite if it does not *)
let known_failures : (string * string) list = []

let expected_to_pass id = not (List.mem_assoc id known_failures)

(* ---------- the corpus side ---------- *)

type ckernel = { kname : string; ksrc : string; kkey : string; kopts : string list }

(* the two harvested CPU modes: NOOPT=1 (cpu_noopt.json) and the default heuristics (cpu_default.json) *)
type mode = Noopt | Default

let mode_file = function Noopt -> "cpu_noopt.json" | Default -> "cpu_default.json"

(* the harvester's pinned environment: DEV=CPU NUM_CPU_THREADS=8, plus NOOPT=1 for the noopt mode; the names
   without ANSI colors; tinygrad's CPU kernels (CPU_OPT=tinygrad) *)
let mode_bindings = function
  | Noopt -> Helpers.[ Bind (noopt, 1); Bind (no_color, 1); Bind (num_cpu_threads, 8); Bind (cpu_opt, Cpu_tinygrad) ]
  | Default -> Helpers.[ Bind (noopt, 0); Bind (no_color, 1); Bind (num_cpu_threads, 8); Bind (cpu_opt, Cpu_tinygrad) ]

type expected = {
  inputs : string list;                 (* input names in the order inp() made them *)
  n_kernels : int;                      (* counts.kernels *)
  n_compute : int;                      (* counts.globalcounters_compute: kernels + copies of build+realize *)
  realize_kernels : ckernel list;       (* kernel calls of phases build+realize, in order *)
  readback_kernels : ckernel list;      (* kernel calls of phase readback, in order *)
  n_outputs : int;
}

let dir id = Filename.concat (Golden.corpus_dir ()) id

(* the input names from desc.txt's "inputs" section: lines "  <name> = <dtype> (<shape>) <- ..." *)
let input_names id =
  let ic = open_in (Filename.concat (dir id) "desc.txt") in
  let rec lines acc = match input_line ic with l -> lines (l :: acc) | exception End_of_file -> close_in ic; List.rev acc in
  let ls = lines [] in
  let rec skip = function [] -> [] | l :: r -> if String.length l >= 6 && String.sub l 0 6 = "inputs" then r else skip r in
  let rec take acc = function
    | l :: r when String.length l > 2 && String.sub l 0 2 = "  " ->
      (match String.index_opt l '=' with
       | Some k when String.trim (String.sub l 0 k) <> "(none)" -> take (String.trim (String.sub l 0 k) :: acc) r
       | _ -> take acc r)
    | _ -> List.rev acc in
  take [] (skip ls)

(* the GPU golden file for the default device, when it is CUDA or METAL, or the emulator rendering for one *)
let gpu_file mode =
  let m = match mode with Noopt -> "noopt" | Default -> "default" in
  let target = match Device.default () with "EMU" -> (Ops_emu.renderer ()).Renderer.device | d -> d in
  match target with
  | "CUDA" -> Some ("cuda_" ^ m ^ ".json")
  | "METAL" -> Some ("metal_" ^ m ^ ".json")
  | _ -> None

(* the file the sources are compared with, for the summaries *)
let source_file mode = Option.value (gpu_file mode) ~default:(mode_file mode)

(* the corpus's ast_key is the CPU schedule's; on a GPU target the summary says so instead of counting misses *)
let key_summary key_ok n =
  match gpu_file Noopt with
  | None -> Printf.sprintf "scheduled ASTs with the corpus ast_key: %d/%d" key_ok n
  | Some _ -> "scheduled ASTs not compared (the corpus ast_key is the CPU schedule's)"

let expected ?(mode = Noopt) id =
  let j = Golden.read_file (Filename.concat (dir id) (mode_file mode)) in
  let kernels = Array.of_list (List.map (fun k ->
      { kname = Golden.to_str (Golden.member "name" k); ksrc = Golden.to_str (Golden.member "src" k);
        kkey = Golden.to_str (Golden.member "ast_key" k);
        kopts = List.map Test_opts.corpus_opt (Golden.to_list (Golden.member "opts" k)) })
      (Golden.to_list (Golden.member "kernels" j))) in
  (* on DEV=CUDA / DEV=METAL (make test-gpu) the kernels are those the GPU renderer made of the same ASTs:
     <dev>_<mode>.json, each record naming its CPU kernel (cpu_kernel) *)
  (match gpu_file mode with
   | None -> ()
   | Some f ->
     List.iter (fun k ->
         let i = Golden.to_int (Golden.member "cpu_kernel" k) in
         kernels.(i) <- { (kernels.(i)) with kname = Golden.to_str (Golden.member "name" k);
                                             ksrc = Golden.to_str (Golden.member "src" k);
                                             kopts = List.map Test_opts.corpus_opt (Golden.to_list (Golden.member "opts" k)) })
       (Golden.to_list (Golden.member "kernels" (Golden.read_file (Filename.concat (dir id) f)))));
  let calls phases = List.filter_map (fun c ->
      if Golden.to_str (Golden.member "kind" c) = "kernel" && List.mem (Golden.to_str (Golden.member "phase" c)) phases
      then Some kernels.(Golden.to_int (Golden.member "kernel" c)) else None) (Golden.to_list (Golden.member "calls" j)) in
  { inputs = input_names id;
    n_kernels = Golden.to_int (Golden.member "kernels" (Golden.member "counts" j));
    n_compute = Golden.to_int (Golden.member "globalcounters_compute" (Golden.member "counts" j));
    realize_kernels = calls [ "build"; "realize" ];
    readback_kernels = calls [ "readback" ];
    n_outputs = List.length (Golden.to_list (Golden.member "outputs" j)) }

(* the first_milestone ids of manifest.json, in manifest order *)
let first_milestone () =
  let m = Golden.read_file (Filename.concat (Golden.corpus_dir ()) "manifest.json") in
  List.filter_map (fun p ->
      match Golden.member_opt "first_milestone" p with
      | Some (Golden.Bool true) -> Some (Golden.to_str (Golden.member "id" p))
      | _ -> None) (Golden.to_list (Golden.member "programs" m))

(* ---------- the port side: kernels as they are compiled ---------- *)

type pkernel = { pname : string; psrc : string; pkey : string; popts : string list }

(* the kernel's source; on the emulator, its linearized program rendered by the target's own renderer (CUDA or
   Metal), to compare with the corpus's GPU sources *)
let source_of (prg : Uop.t) =
  if Device.default () <> "EMU" then Codegen.program_source prg
  else match List.find_opt (fun (s : Uop.t) -> s.op == Ops.Linear) (Array.to_list prg.src) with
    | Some lin -> Renderer.render (Ops_emu.target_renderer ()) (Array.to_list lin.src)
    | None -> Codegen.program_source prg

(* a compiled kernel CALL of a LINEAR: (program, scheduled ast) *)
let kernel_of_program ~(ast : Uop.t) (prg : Uop.t) =
  let name = match prg.Uop.arg with Uop.Program_info p -> Helpers.ansistrip p.Uop.pname | _ -> "?" in
  let opts = match prg.Uop.src.(0).Uop.arg with
    | Uop.Kernel_info ki -> List.map Test_opts.our_opt ki.Uop.applied_opts | _ -> [] in
  { pname = name; psrc = source_of prg; pkey = String.sub (Golden.hex (Golden.uop_key ast)) 0 16;
    popts = opts }

(* the kernels of a compiled LINEAR, in call order, with the scheduled AST of the same call *)
let kernels_of ~(sched : Uop.t) (compiled : Uop.t) =
  List.concat (List.mapi (fun i (call : Uop.t) ->
      let fn = call.Uop.src.(0) in
      if fn.Uop.op == Ops.Program then
        let ast = if i < Array.length sched.Uop.src then sched.Uop.src.(i).Uop.src.(0) else fn in
        [ kernel_of_program ~ast fn ]
      else []) (Array.to_list compiled.Uop.src))

(* tinygrad Tensor.realize over several tensors (tensor.py), with the compiled LINEAR observed as the harvester observed
   compile_linear: the same filter, Tensor.linear_with_vars, compile_linear, then run_linear on the compiled
   LINEAR (jit=true: no second compile). Returns the kernels run, in order. *)
let realize_captured (xs : T.t list) =
  let to_realize = List.filter (fun x ->
      not (Buffers.is_virtual (T.uop x)) && not (Buffers.has_buffer_identity (T.uop x))) xs in
  if to_realize = [] then []
  else begin
    let linear, var_vals = T.linear_with_vars to_realize in
    let compiled = Realize.compile_linear linear in
    Realize.run_linear ~var_vals ~jit:true compiled;
    kernels_of ~sched:linear compiled
  end

(* tinygrad Tensor._buffer (what .numpy() realizes): the base-dtype cast, contiguous, realized; device-less
   tensors (consts) are cloned onto the default device first. Returns the realized tensor and the kernels run. *)
let readback_captured (x : T.t) =
  let x = if Dtype.is_weak (T.dtype x) then T.cast x (Dtype.strong_dtype (T.dtype x)) else x in
  let c = T.contiguous x in
  let c = if Buffers.device (T.uop c) = None then T.clone ~device:(Device.default ()) c else c in
  let ks = realize_captured [ c ] in
  (c, ks)

(* ---------- inputs and outputs ---------- *)

let make_input id name =
  let a = Npy.read (Filename.concat (dir id) ("in_" ^ name ^ ".npy")) in
  let shape = Array.of_list a.Npy.shape in
  let t = if Dtype.is_float a.Npy.dtype then T.of_float_array ~dtype:a.Npy.dtype shape (Npy.to_floats a)
    else T.of_int_array ~dtype:a.Npy.dtype shape (Npy.to_ints a) in
  T.realize t

let rtol dt = if dt = Dtype.Float16 || dt = Dtype.Bfloat16 then 1e-3 else 1e-5

let close ~tol e g =
  if Float.is_nan e then Float.is_nan g
  else e = g || Float.abs (g -. e) <= tol *. Float.max 1.0 (Float.abs e)

(* On a GPU device, where a program's GPU kernel computes other values than the CPU kernel of the golden by
   design (CUDA and Metal multiply two halves in half, a rounded product, where clang's __fp16 product is a
   float; a float32 sum split over locals and GROUP reduces adds in another order), the expected values are
   tinygrad 0.14.0's own emulator run of the same GPU program: test/fixtures/emu_corpus, made by
   test/gen_emu_corpus_oracle.py for the targets and modes it lists. The emulator is compared with it exactly
   (each float op rounded to its dtype on both sides). A real GPU contracts a*b+c into one rounding (NVRTC's
   default, as tinygrad compiles), so its values lie between the two models: each element within [rtol] of the
   oracle or of the CPU golden. CUDA reads the sm_80 files: the renderer gives the same programs from sm_80 on
   (the corpus's CUDA sources are equal on an sm_90 device). Elsewhere, the CPU golden. *)
let emu_oracle_dir () =
  List.find_opt Sys.file_exists [ "test/fixtures/emu_corpus"; "fixtures/emu_corpus" ]

let mode_name = function Noopt -> "noopt" | Default -> "default"

(* the oracle's file name part for a device, and whether it is read exactly (and alone) *)
let emu_oracle_target device = match device with
  | "EMU" -> Some ((Helpers.dev_target "EMU").arch, true)
  | "CUDA" -> Some ("sm_80", false)
  | "METAL" -> Some ("METAL", false)
  | _ -> None

(* the files output [k] of program [id] on [device] may match, each with the tolerance it is read with: the
   target's emulator oracle when it has one (alone on the emulator, else beside the golden), else out<k>.npy
   within [rtol] *)
let expected_outputs ?(device = Device.default ()) ~mode id k =
  let golden = (Filename.concat (dir id) (Printf.sprintf "out%d.npy" k), rtol) in
  match emu_oracle_target device, emu_oracle_dir () with
  | None, _ | _, None -> [ golden ]
  | Some (arch, exact), Some d ->
    let f = Filename.concat d (Printf.sprintf "%s.%s.%s.out%d.npy" id arch (mode_name mode) k) in
    if not (Sys.file_exists f) then [ golden ]
    else if exact then [ (f, fun _ -> 0.0) ]
    else [ (f, rtol); golden ]

(* checks one output against its expected files (an element passes when it matches one of them); Error with the
   first difference from the first file *)
let check_output ?(mode = Noopt) id k ~dtype (t : T.t) =
  let expected = List.map (fun (file, tol) -> (Npy.read file, tol)) (expected_outputs ~mode id k) in
  let a = fst (List.hd expected) in
  let shape = Array.to_list (T.shape t) in
  if shape <> a.Npy.shape then
    Error (Printf.sprintf "out%d shape (%s), expected (%s)" k (String.concat "," (List.map string_of_int shape))
             (String.concat "," (List.map string_of_int a.Npy.shape)))
  else if not (Dtype.equal (Dtype.strong_dtype dtype) a.Npy.dtype) then
    Error (Printf.sprintf "out%d dtype %s, expected %s" k (Dtype.to_string dtype) (Dtype.to_string a.Npy.dtype))
  else if Dtype.is_float a.Npy.dtype then begin
    let g = T.to_float_array t in
    let es = List.map (fun (a, tol) -> (Npy.to_floats a, tol a.Npy.dtype)) expected in
    let bad = ref None in
    Array.iteri (fun i x ->
        if !bad = None && not (List.exists (fun (e, tol) -> close ~tol e.(i) x) es) then bad := Some i) g;
    match !bad with
    | None -> Ok ()
    | Some i -> Error (Printf.sprintf "out%d[%d] = %.9g, expected %.9g" k i g.(i) (fst (List.hd es)).(i))
  end else begin
    let e = Npy.to_ints a and g = T.to_int_array t in
    let bad = ref None in
    Array.iteri (fun i x -> if !bad = None && x <> g.(i) then bad := Some i) e;
    match !bad with
    | None -> Ok ()
    | Some i -> Error (Printf.sprintf "out%d[%d] = %d, expected %d" k i g.(i) e.(i))
  end

(* ---------- one program ---------- *)

type result = {
  id : string;
  errors : string list;       (* failed checks (kernel count, names, values, exceptions) *)
  n_src : int;                (* kernels compared *)
  src_ok : int;               (* of which the C source equals the corpus's *)
  key_ok : int;               (* of which the scheduled AST has the corpus ast_key *)
  opts_ok : int;              (* of which the applied opts equal the corpus's *)
  src_bad : string list;      (* the kernels whose C source differs: "name (first difference)" *)
}

(* a known failure that failed is not a pass: the case reports it as skipped, with its reason *)
let skip_known known results =
  List.iter (fun r -> match List.assoc_opt r.id known with
      | Some why when r.errors <> [] -> Test_util.skip "corpus %s: %s" r.id why
      | Some _ | None -> ()) results

let normalise s =
  String.concat " " (List.filter (fun t -> t <> "")
                       (String.split_on_char ' ' (String.map (function '\n' | '\t' | '\r' -> ' ' | c -> c) s)))

let names ks = "[" ^ String.concat "; " ks ^ "]"

let run_program ?(mode = Noopt) id (prog : Corpus_programs.program) =
  let exp = expected ~mode id in
  let errors = ref [] in
  let err fmt = Printf.ksprintf (fun s -> errors := s :: !errors) fmt in
  let pairs = ref [] in
  (match
     Helpers.context (mode_bindings mode) (fun () ->
         let inputs = List.map (fun n -> (n, make_input id n)) exp.inputs in
         let inp n = match List.assoc_opt n inputs with Some t -> t | None -> invalid_arg ("no input " ^ n) in
         Global_counters.reset ();
         let outs = prog inp in
         let ran = realize_captured outs in
         let counted = Global_counters.kernel_and_copy_count () in
         if List.length ran <> exp.n_kernels then
           err "%d kernels run by the realize, expected %d" (List.length ran) exp.n_kernels;
         if counted <> exp.n_compute then
           err "Global_counters.kernel_count %d after the realize, expected %d" counted exp.n_compute;
         let got_names = List.map (fun k -> k.pname) ran and exp_names = List.map (fun k -> k.kname) exp.realize_kernels in
         if got_names <> exp_names then err "kernel names %s, expected %s" (names got_names) (names exp_names);
         if List.length outs <> exp.n_outputs then err "%d outputs, expected %d" (List.length outs) exp.n_outputs;
         let readback = List.concat (List.mapi (fun k t ->
             let c, ks = readback_captured t in
             (match check_output ~mode id k ~dtype:(T.dtype t) c with Error m -> err "%s" m | Ok () -> ());
             ks) outs) in
         let rb_names = List.map (fun k -> k.pname) readback and exp_rb = List.map (fun k -> k.kname) exp.readback_kernels in
         if rb_names <> exp_rb then err "readback kernel names %s, expected %s" (names rb_names) (names exp_rb);
         (ran, readback))
   with
   | ran, readback ->
     let zip a b = let rec go acc = function x :: xs, y :: ys -> go ((x, y) :: acc) (xs, ys) | _ -> List.rev acc in go [] (a, b) in
     pairs := zip ran exp.realize_kernels @ zip readback exp.readback_kernels
   | exception Invalid_argument m -> err "Invalid_argument %s" m
   | exception Failure m -> err "Failure %s" m
   | exception Not_found -> err "Not_found"
   | exception e -> err "exception %s" (Printexc.to_string e));
  let n_src = List.length exp.realize_kernels + List.length exp.readback_kernels in
  let src_ok = List.length (List.filter (fun (p, c) -> normalise p.psrc = normalise c.ksrc) !pairs) in
  let key_ok = List.length (List.filter (fun (p, c) -> p.pkey = c.kkey) !pairs) in
  let opts_ok = List.length (List.filter (fun (p, c) -> p.popts = c.kopts) !pairs) in
  let src_bad = List.filter_map (fun (p, c) ->
      if normalise p.psrc = normalise c.ksrc then None
      else Some (Printf.sprintf "%s (%s)" c.kname (Test_codegen_golden.first_diff p.psrc c.ksrc))) !pairs in
  (* the applied opts are checked in the default mode (NOOPT applies none on either side) *)
  if mode = Default then
    List.iteri (fun i (p, c) -> if p.popts <> c.kopts then
                   errors := Printf.sprintf "kernel %d %s: opts [%s], expected [%s]" i c.kname
                       (String.concat " " p.popts) (String.concat " " c.kopts) :: !errors) !pairs;
  { id; errors = List.rev !errors; n_src; src_ok; key_ok; opts_ok; src_bad }

(* ---------- the suite ---------- *)

let all_programs = Corpus_programs.programs @ Corpus_programs_ops.programs

let selected id = match Sys.getenv_opt "CORPUS_ONLY" with
  | None | Some "" -> true
  | Some l -> List.mem id (String.split_on_char ',' l)

let test_corpus () =
  if not (Sys.file_exists (Filename.concat (Golden.corpus_dir ()) "manifest.json")) then
    Test_util.skip "corpus: absent"
  else begin
    let verbose = Sys.getenv_opt "CORPUS_VERBOSE" <> None in
    let ids = List.filter selected (first_milestone ()) in
    let results = List.filter_map (fun id ->
        match List.assoc_opt id all_programs with
        | None -> None
        | Some prog ->
          let t0 = Helpers.perf_counter_ns () in
          let r = run_program id prog in
          if verbose then
            Printf.printf "  corpus %-24s %s  src %d/%d  ast_key %d/%d  %.2fs\n%!" id
              (if r.errors = [] then "ok  " else "FAIL") r.src_ok r.n_src r.key_ok r.n_src (float_of_int (Helpers.perf_counter_ns () - t0) *. 1e-9);
          Some r) ids in
    let not_written = List.filter (fun id -> not (List.mem_assoc id all_programs)) ids in
    let ok = List.filter (fun r -> r.errors = []) results in
    let sum f = List.fold_left (fun a r -> a + f r) 0 in
    let n_src = sum (fun r -> r.n_src) results and src_ok = sum (fun r -> r.src_ok) results
    and key_ok = sum (fun r -> r.key_ok) results in
    let pct a b = if b = 0 then 0.0 else 100.0 *. float_of_int a /. float_of_int b in
    Printf.printf "corpus: %d first_milestone programs, %d written, %d pass (count, names, values), %d fail, %d not written\n"
      (List.length ids) (List.length results) (List.length ok) (List.length results - List.length ok) (List.length not_written);
    Printf.printf "corpus: C sources equal to %s: %d/%d (%.1f%%, acceptance 2 wants >= 80%%); %s\n%!"
      (source_file Noopt) src_ok n_src (pct src_ok n_src) (key_summary key_ok n_src);
    List.iter (fun id ->
        Printf.printf "  corpus %s: not written: %s\n" id
          (match List.assoc_opt id Corpus_programs.missing with Some m -> m | None -> "(no reason given)")) not_written;
    List.iter (fun r -> if r.errors <> [] then
                  Printf.printf "  corpus %s%s: %s\n" r.id (if expected_to_pass r.id then " (EXPECTED TO PASS)" else "")
                    (let m = String.concat "; " r.errors in if String.length m > 400 then String.sub m 0 400 ^ "..." else m))
      results;
    if n_src > 0 && pct src_ok n_src < 80.0 then
      fail "C sources equal to the corpus: %d/%d, acceptance 2 wants >= 80%%" src_ok n_src;
    let bad = List.filter (fun r -> r.errors <> [] && expected_to_pass r.id) results in
    if bad <> [] then fail "%d expected_to_pass corpus programs failed: %s" (List.length bad)
        (String.concat ", " (List.map (fun r -> r.id) bad));
    skip_known known_failures results
  end

let tests : case list = [ ("first_milestone", test_corpus) ]

(* ==================== G-rand block: the rn_* programs (features "rand": threefry RNG, tier 3) ==================== *)

(* their desc.txt "python source", with the Tensor API; the seed/counter tensors are made from Python lists inside
   tinygrad (two COPY PYTHON->CPU in the realize, counted by Global_counters as the corpus's "copies") *)
let rand_programs : (string * Corpus_programs.program) list = [
  (* Tensor.manual_seed(7); Tensor.randn(16, 16) *)
  ("rn_randn", fun _ -> T.manual_seed 7; [ T.randn [| 16; 16 |] ]);
  (* Tensor.manual_seed(3); [Tensor.randint(10, low=0, high=100), Tensor.rand(5)] *)
  (* the draws are let-bound: OCaml evaluates a list literal's elements right to left, which would draw rand first *)
  ("rn_randint_two", fun _ ->
      T.manual_seed 3;
      let a = T.randint ~low:0 ~high:100 [| 10 |] in
      let b = T.rand [| 5 |] in
      [ a; b ]);
  (* Tensor.manual_seed(1); with Context(TRAINING=1): a.dropout(0.5) *)
  ("rn_dropout", fun i ->
      let a = i "a" in
      T.manual_seed 1;
      [ Helpers.context [ Helpers.Bind (Helpers.training, 1) ] (fun () -> T.dropout ~p:0.5 a) ]);
]

(* rn_* programs known to fail, with the reason (reported, not failed) *)
let rand_known_failures : (string * string) list = []

let test_rand_programs () =
  if not (Sys.file_exists (Filename.concat (Golden.corpus_dir ()) "manifest.json")) then Test_util.skip "corpus rand: absent"
  else begin
    let results = List.map (fun (id, prog) -> run_program id prog) rand_programs in
    let ok = List.filter (fun r -> r.errors = []) results in
    let sum f = List.fold_left (fun a r -> a + f r) 0 results in
    Printf.printf "corpus rand: %d/%d rn_* programs pass (count, names, values); C sources equal %d/%d, %s\n%!"
      (List.length ok) (List.length results) (sum (fun r -> r.src_ok)) (sum (fun r -> r.n_src))
      (key_summary (sum (fun r -> r.key_ok)) (sum (fun r -> r.n_src)));
    List.iter (fun r -> if r.errors <> [] then Printf.printf "  corpus %s: %s\n" r.id (String.concat "; " r.errors)) results;
    let bad = List.filter (fun r -> r.errors <> [] && not (List.mem_assoc r.id rand_known_failures)) results in
    if bad <> [] then fail "rn_* corpus programs failed: %s" (String.concat ", " (List.map (fun r -> r.id) bad))
  end

let tests = tests @ [ ("rand_programs", test_rand_programs) ]
(* ==================== end of G-rand block ==================== *)

(* ==================== default mode: the programs as a user runs them (no NOOPT) vs cpu_default.json ==================== *)

(* every written program (first_milestone and the rn_ ones) again with the default heuristics (hand_coded_optimizations,
   THREAD with core_id) and NUM_CPU_THREADS=8, checked against cpu_default.json: kernel count, names and
   Global_counters as in NOOPT mode, the applied opts of every kernel, the output values (out<i>.npy are from this
   very run) and every kernel's C source. A program fails on any difference, C sources included, unless it is in
   [default_known]. "corpus default: ..." summary lines; CORPUS_VERBOSE / CORPUS_ONLY as above. *)

(* programs known to differ in the default mode, with the reason (reported, not failed) *)
let default_known : (string * string) list = []

let default_programs () =
  List.filter_map (fun id -> Option.map (fun p -> (id, p)) (List.assoc_opt id all_programs)) (first_milestone ())
  @ rand_programs

let test_default_mode () =
  if not (Sys.file_exists (Filename.concat (Golden.corpus_dir ()) "manifest.json")) then
    Test_util.skip "corpus default: absent"
  else begin
    let verbose = Sys.getenv_opt "CORPUS_VERBOSE" <> None in
    let progs = List.filter (fun (id, _) -> selected id) (default_programs ()) in
    let results = List.map (fun (id, prog) ->
        let t0 = Helpers.perf_counter_ns () in
        let r = run_program ~mode:Default id prog in
        let r = if r.src_bad = [] then r
          else { r with errors = r.errors @ List.map (fun m -> "C source of " ^ m) r.src_bad } in
        if verbose then
          Printf.printf "  corpus default %-24s %s  src %d/%d  opts %d/%d  ast_key %d/%d  %.2fs\n%!" id
            (if r.errors = [] then "ok  " else "FAIL") r.src_ok r.n_src r.opts_ok r.n_src r.key_ok r.n_src
            (float_of_int (Helpers.perf_counter_ns () - t0) *. 1e-9);
        r) progs in
    let ok = List.filter (fun r -> r.errors = []) results in
    let sum f = List.fold_left (fun a r -> a + f r) 0 results in
    let n_src = sum (fun r -> r.n_src) and src_ok = sum (fun r -> r.src_ok) and opts_ok = sum (fun r -> r.opts_ok)
    and key_ok = sum (fun r -> r.key_ok) in
    let pct a b = if b = 0 then 0.0 else 100.0 *. float_of_int a /. float_of_int b in
    Printf.printf "corpus default: %d programs (first_milestone + rn_*), %d pass (count, names, opts, values, sources), %d fail (%d known)\n"
      (List.length results) (List.length ok) (List.length results - List.length ok)
      (List.length (List.filter (fun r -> r.errors <> [] && List.mem_assoc r.id default_known)
                      results));
    Printf.printf "corpus default: C sources equal to %s: %d/%d (%.1f%%); applied opts equal: %d/%d; %s\n%!"
      (source_file Default) src_ok n_src (pct src_ok n_src) opts_ok n_src (key_summary key_ok n_src);
    List.iter (fun r -> if r.errors <> [] then
                  Printf.printf "  corpus default %s: %s: %s\n" r.id
                    (match List.assoc_opt r.id default_known with
                     | Some why -> "known (" ^ why ^ ")"
                     | None -> "UNEXPECTED")
                    (let m = String.concat "; " r.errors in if String.length m > 600 then String.sub m 0 600 ^ "..." else m))
      results;
    let known = default_known in
    let bad = List.filter (fun r -> r.errors <> [] && not (List.mem_assoc r.id known)) results in
    if bad <> [] then fail "%d corpus programs failed in the default mode: %s" (List.length bad)
        (String.concat ", " (List.map (fun r -> r.id) bad));
    skip_known known results
  end

let tests = tests @ [ ("default_mode", test_default_mode) ]
(* ==================== end of the default-mode block ==================== *)

(* ==================== N-nn block: the tr_* training programs (autograd + nn.optim) ==================== *)

(* the tr_* programs that are not first_milestone (tr_mlp_forward and tr_sparse_ce are in Corpus_programs_ops),
   their desc.txt python source with the Tensor API and Nn.Optim; run in both modes (NOOPT vs cpu_noopt.json, the
   default heuristics vs cpu_default.json, C sources included) *)
let train_programs : (string * Corpus_programs.program) list =
  let mlp i = T.add (T.matmul (T.relu (T.add (T.matmul (i "x") (i "w1")) (i "b1"))) (i "w2")) (i "b2") in
  let grad t = match T.grad t with Some g -> g | None -> invalid_arg "no grad" in
  let training f = Helpers.context [ Helpers.Bind (Helpers.training, 1) ] f in
  [
    (* loss = (a * b).sum(); loss.backward(); [loss, a.grad, b.grad] *)
    ("tr_grad_simple", fun i ->
        let a = i "a" and b = i "b" in
        let loss = T.sum (T.mul a b) in
        T.backward loss;
        [ loss; grad a; grad b ]);
    (* loss = ((x @ w1 + b1).relu() @ w2 + b2).sparse_categorical_crossentropy(y); loss.backward() *)
    ("tr_mlp_backward", fun i ->
        let loss = T.sparse_categorical_crossentropy (mlp i) (i "y") in
        T.backward loss;
        [ loss; grad (i "w1"); grad (i "b1"); grad (i "w2"); grad (i "b2") ]);
    (* opt = nn.optim.Adam([w1, b1, w2, b2], lr=0.01); with Context(TRAINING=1): opt.zero_grad(); loss = ...;
       loss.backward(); [loss] + opt.schedule_step() *)
    ("tr_adam_step", fun i ->
        let opt = Nn.Optim.adam ~lr:0.01 [ i "w1"; i "b1"; i "w2"; i "b2" ] in
        training (fun () ->
            Nn.Optim.zero_grad opt;
            let loss = T.sparse_categorical_crossentropy (mlp i) (i "y") in
            T.backward loss;
            loss :: Nn.Optim.schedule_step opt));
    (* opt = nn.optim.SGD([w], lr=0.1, momentum=0.9); with Context(TRAINING=1): opt.zero_grad();
       loss = ((x @ w) - y).square().mean(); loss.backward(); [loss] + opt.schedule_step() *)
    ("tr_sgd_momentum", fun i ->
        let w = i "w" in
        let opt = Nn.Optim.sgd ~lr:0.1 ~momentum:0.9 [ w ] in
        training (fun () ->
            Nn.Optim.zero_grad opt;
            let loss = T.mean (T.square (T.sub (T.matmul (i "x") w) (i "y"))) in
            T.backward loss;
            loss :: Nn.Optim.schedule_step opt));
    (* loss = x.conv2d(w, padding=1).relu().mean(); loss.backward(); [loss, x.grad, w.grad] *)
    ("tr_conv_backward", fun i ->
        let x = i "x" and w = i "w" in
        let loss = T.mean (T.relu (T.conv2d ~padding:1 x w)) in
        T.backward loss;
        [ loss; grad x; grad w ]);
  ]

(* tr_* programs known to fail, with the reason (reported, not failed) *)
let train_known_failures : (string * string) list = []

let test_train_programs () =
  if not (Sys.file_exists (Filename.concat (Golden.corpus_dir ()) "manifest.json")) then Test_util.skip "corpus train: absent"
  else begin
    let progs = List.filter (fun (id, _) -> selected id) train_programs in
    let results = List.concat_map (fun (id, prog) ->
        let r1 = run_program ~mode:Noopt id prog in
        let r2 = run_program ~mode:Default id prog in
        let r2 = if r2.src_bad = [] then r2
          else { r2 with errors = r2.errors @ List.map (fun m -> "C source of " ^ m) r2.src_bad } in
        [ ("noopt", r1); ("default", r2) ]) progs in
    let ok = List.filter (fun (_, r) -> r.errors = []) results in
    let sum f = List.fold_left (fun a (_, r) -> a + f r) 0 results in
    Printf.printf "corpus train: %d/%d tr_* program runs pass (NOOPT and default); C sources equal %d/%d, %s\n%!"
      (List.length ok) (List.length results) (sum (fun r -> r.src_ok)) (sum (fun r -> r.n_src))
      (key_summary (sum (fun r -> r.key_ok)) (sum (fun r -> r.n_src)));
    List.iter (fun (m, r) -> if r.errors <> [] then
                  Printf.printf "  corpus train %s (%s): %s\n" r.id m
                    (let s = String.concat "; " r.errors in if String.length s > 600 then String.sub s 0 600 ^ "..." else s))
      results;
    let bad = List.filter (fun (_, r) -> r.errors <> [] && not (List.mem_assoc r.id train_known_failures)) results in
    if bad <> [] then fail "tr_* corpus programs failed: %s" (String.concat ", " (List.map (fun (m, r) -> r.id ^ "/" ^ m) bad))
  end

let tests = tests @ [ ("train_programs", test_train_programs) ]
(* ==================== end of N-nn block ==================== *)

(* which values a device's run is checked against: a GPU reads the emulator oracle of its target where one exists
   (within rtol; exactly on the emulator), the CPU and programs without an oracle the CPU golden *)
let test_oracle_choice () =
  match emu_oracle_dir () with
  | None -> skip "test/fixtures/emu_corpus not found"
  | Some d ->
    let files ~device ~mode id = List.map fst (expected_outputs ~device ~mode id 0) in
    let golden id = Filename.concat (dir id) "out0.npy" in
    let check_files ~what expected got =
      check (expected = got) "%s: [%s], expected [%s]" what (String.concat "; " got) (String.concat "; " expected) in
    check_files ~what:"CUDA noopt mm_half_out"
      [ Filename.concat d "mm_half_out.sm_80.noopt.out0.npy"; golden "mm_half_out" ]
      (files ~device:"CUDA" ~mode:Noopt "mm_half_out");
    check_files ~what:"METAL default red_large_rows"
      [ Filename.concat d "red_large_rows.METAL.default.out0.npy"; golden "red_large_rows" ]
      (files ~device:"METAL" ~mode:Default "red_large_rows");
    check_files ~what:"CPU" [ golden "mm_half_out" ] (files ~device:"CPU" ~mode:Noopt "mm_half_out");
    check_files ~what:"no oracle" [ golden "mm_vecmat" ] (files ~device:"CUDA" ~mode:Noopt "mm_vecmat");
    check (List.for_all (fun (_, tol) -> tol Dtype.Float16 = 1e-3) (expected_outputs ~device:"CUDA" ~mode:Noopt
                                                                        "mm_half_out" 0))
      "CUDA reads both within float16's rtol";
    check (match emu_oracle_target "EMU" with Some (_, exact) -> exact | None -> false) "the emulator reads it exactly";
    (* the reason for the oracle: the GPU program's half products differ from the CPU golden beyond its rtol *)
    let o = Npy.to_floats (Npy.read (Filename.concat d "mm_half_out.sm_80.noopt.out0.npy"))
    and g = Npy.to_floats (Npy.read (golden "mm_half_out")) in
    check (Array.length o = Array.length g) "oracle and golden sizes";
    check (Array.exists2 (fun a b -> not (close ~tol:1e-3 b a)) o g)
      "the sm_80 oracle of mm_half_out is within rtol of the CPU golden everywhere"

let tests = tests @ [ ("gpu_oracle_choice", test_oracle_choice) ]
