(* Differential test of the codegen and the renderers against tinygrad 0.14.0, beyond the golden corpus: the kernel
   ASTs of a broad set of small programs (every helper_test_op call of tinygrad's test_ops.py, forward and gradient,
   plus dtype programs: ALU ops, casts, bitcasts, reductions over float32/float16/bfloat16/int8/uint8/int32/int64/bool),
   scheduled for DEV=CPU, stored in pyrender form in test/diff_render_oracle_<i>.json with what tinygrad generated
   for six targets: ClangRenderer (NUM_CPU_THREADS=8), CUDARenderer sm_89 and MetalRenderer Apple9, each in the
   default mode and with NOOPT=1 (test/gen_diff_render_oracle.py writes the files).
   For each kernel and target the rebuilt AST (its key checked against tinygrad's) is lowered with Codegen.do_to_program
   and the kernel name, the applied opts, the global/local size and the sha256 of the whitespace-normalised source are
   compared ("diff <target> <mode>: M/N").
   The default run checks a deterministic sample (every [stride]-th kernel); DIFF_RENDER_ALL=1 checks all of them,
   DIFF_RENDER_ONLY=<index> one kernel, DIFF_RENDER_VERBOSE=1 prints our source on a mismatch and the command that
   prints tinygrad's. A kernel/target pair not listed in [known_mismatches] fails the suite. *)

open Tinygrad.Compiler
open Test_util

let targets = [ ("cpu", "default"); ("cpu", "noopt"); ("cuda", "default"); ("cuda", "noopt"); ("metal", "default"); ("metal", "noopt") ]

(* "<target>_<mode>:<kernel index>" pairs known to differ from tinygrad, with the reason. Every other pair matches
   (DIFF_RENDER_ALL=1: 2522/2522 for every target, in both modes). *)
let known_mismatches : (string * string) list = []

(* the default run checks kernels whose index is a multiple of [stride] *)
let stride = 6

(* the oracle files, found from the cwd or the test executable upwards *)
let oracle_files () =
  let rec up d n =
    let p = Filename.concat d "test/diff_render_oracle_0.json" in
    if Sys.file_exists p then Some (Filename.concat d "test")
    else if n = 0 || Filename.dirname d = d then None else up (Filename.dirname d) (n - 1) in
  let exe = if Filename.is_relative Sys.executable_name then Filename.concat (Sys.getcwd ()) Sys.executable_name
    else Sys.executable_name in
  match (match up (Sys.getcwd ()) 6 with Some d -> Some d | None -> up (Filename.dirname exe) 6) with
  | None -> []
  | Some dir ->
    let rec go i =
      let p = Filename.concat dir (Printf.sprintf "diff_render_oracle_%d.json" i) in
      if Sys.file_exists p then p :: go (i + 1) else [] in
    go 0

(* (global index, kernel record) of every oracle kernel *)
let load () =
  List.concat_map (fun f ->
      let j = Golden.read_file f in
      let first = Golden.to_int (Golden.member "first_index" j) in
      List.mapi (fun i k -> (first + i, k)) (Golden.to_list (Golden.member "kernels" j))) (oracle_files ())

let renderer = function
  | "cpu" -> Device.renderer "CPU"
  | "cuda" -> Cstyle.cuda_renderer ~arch:"sm_89"
  | "metal" -> Cstyle.metal_renderer ()
  | t -> fail "unknown target %s" t

let lower ast (t, m) =
  Helpers.context Helpers.[ Bind (noopt, if m = "noopt" then 1 else 0); Bind (no_color, 1); Bind (num_cpu_threads, 8);
                            Bind (cpu_opt, Cpu_tinygrad) ]
    (fun () -> Codegen.do_to_program ast (renderer t))

let sizes = List.map (function Uop.Sint i -> string_of_int i | Uop.Suop u -> Uop.render u)
let strs j = List.map Golden.to_str (Golden.to_list j)

(* Ok () or Error (what differs, our source if we got that far) *)
let check_target ast (k : Golden.json) (t, m) : (unit, string * string option) result =
  let want = Golden.member (t ^ "_" ^ m) k in
  match Golden.member_opt "error" want, (try Ok (lower ast (t, m)) with e -> Error e) with
  | Some e, Ok _ -> Error ("tinygrad raised " ^ Golden.to_str e ^ ", we did not", None)
  | Some _, Error _ -> Ok ()
  | None, Error e -> Error ("exception " ^ Printexc.to_string e, None)
  | None, Ok prg ->
    let pi = match prg.Uop.arg with Uop.Program_info p -> p | _ -> fail "no ProgramInfo" in
    let src = Codegen.program_source prg in
    let opts = match prg.Uop.src.(0).Uop.arg with Uop.Kernel_info ki -> List.map Opt.to_string ki.applied_opts | _ -> [] in
    let want_opts = strs (Golden.member "opts" want) in
    let gs = sizes pi.global_size and want_gs = strs (Golden.member "global_size" want) in
    let ls = (match pi.local_size with Some l -> sizes l | None -> [ "None" ]) in
    let want_ls = match Golden.member "local_size" want with Golden.Null -> [ "None" ] | j -> strs j in
    let want_name = Golden.to_str (Golden.member "name" want) in
    let c = String.concat in
    let err = if opts <> want_opts then Some (Printf.sprintf "opts [%s], tinygrad [%s]" (c "; " opts) (c "; " want_opts))
      else if pi.pname <> want_name then Some (Printf.sprintf "name %s, tinygrad %s" pi.pname want_name)
      else if gs <> want_gs then Some (Printf.sprintf "global size [%s], tinygrad [%s]" (c "," gs) (c "," want_gs))
      else if ls <> want_ls then Some (Printf.sprintf "local size [%s], tinygrad [%s]" (c "," ls) (c "," want_ls))
      else if Golden.hex (Golden.sha256 (Test_codegen_golden.normalise src)) <> Golden.to_str (Golden.member "src_sha256" want)
      then Some "source differs" else None in
    match err with None -> Ok () | Some e -> Error (e, Some src)

let test_diff_render () =
  let all = load () in
  if all = [] then Test_util.skip "diff render: test/diff_render_oracle_0.json absent"
  else begin
    let verbose = Sys.getenv_opt "DIFF_RENDER_VERBOSE" = Some "1" in
    let only = Option.map int_of_string (Sys.getenv_opt "DIFF_RENDER_ONLY") in
    let full = Sys.getenv_opt "DIFF_RENDER_ALL" = Some "1" in
    let ks = List.filter (fun (i, _) -> match only with Some j -> i = j | None -> full || i mod stride = 0) all in
    let key_bad = ref [] in
    let ok = Hashtbl.create 8 and tot = Hashtbl.create 8 in
    let bad = ref [] in
    List.iter (fun (i, k) ->
        match Pyrender.parse_ast (Golden.to_str (Golden.member "ast" k)) with
        | exception e -> key_bad := Printf.sprintf "[%d] parse: %s" i (Printexc.to_string e) :: !key_bad
        | ast ->
          let key = String.sub (Golden.hex (Golden.uop_key ast)) 0 16 in
          if key <> Golden.to_str (Golden.member "ast_key" k) then key_bad := Printf.sprintf "[%d] ast key %s" i key :: !key_bad
          else
            List.iter (fun (t, m) ->
                let tm = t ^ "_" ^ m in
                Hashtbl.replace tot tm (1 + Option.value ~default:0 (Hashtbl.find_opt tot tm));
                match check_target ast k (t, m) with
                | Ok () -> Hashtbl.replace ok tm (1 + Option.value ~default:0 (Hashtbl.find_opt ok tm))
                | Error (e, src) ->
                  let id = Printf.sprintf "%s:%d" tm i in
                  let origin = Golden.to_str (Golden.member "origin" k) in
                  if not (List.mem_assoc id known_mismatches) then bad := Printf.sprintf "%s (%s): %s" id origin e :: !bad;
                  if verbose then begin
                    Printf.printf "diff MISMATCH %s (%s): %s\n" id origin e;
                    (match src with Some s -> Printf.printf "--- ours:\n%s\n" s | None -> ());
                    Printf.printf "--- tinygrad: /work/ref/venv/bin/python test/gen_diff_render_oracle.py src %d %s %s\n%!" i t m
                  end) targets) ks;
    List.iter (fun (t, m) ->
        let tm = t ^ "_" ^ m in
        let g h = Option.value ~default:0 (Hashtbl.find_opt h tm) in
        Printf.printf "diff %s %s: %d/%d\n%!" t m (g ok) (g tot)) targets;
    Printf.printf "diff render: %d kernels checked of %d (%s), %d ASTs not rebuilt\n%!" (List.length ks) (List.length all)
      (if full then "all" else if only <> None then "one" else Printf.sprintf "every %dth; DIFF_RENDER_ALL=1 for all" stride)
      (List.length !key_bad);
    if !key_bad <> [] then fail "ASTs not rebuilt:\n%s" (String.concat "\n" (List.rev !key_bad));
    if !bad <> [] then fail "%d unexpected mismatches:\n%s" (List.length !bad) (String.concat "\n" (List.rev !bad))
  end

let tests : case list = [ ("diff_render", test_diff_render) ]
