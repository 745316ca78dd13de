(* GPU kernel optimizations against the golden corpus (/work/shared/golden/corpus, see its README.md): every kernel
   of {cuda,metal}_{default,noopt}.json is rebuilt from the CPU kernel AST it was lowered from ([cpu_kernel]) and
   lowered with the CUDA (sm_89) / Metal renderer as the harvester did (NOOPT=1 for *_noopt). The applied opts, the
   kernel name, the global size, the local size and the estimates (ops, lds, mem) are compared with the corpus ("gpu opts <file>: M/N match").
   Kernels not in [known_mismatches] must match. When the real renderers exist the rendered source is compared too
   (reported only: the gpu-render helper owns the source test). *)

open Tinygrad.Compiler
open Test_util

(* kernels ("file:program[index]") known to differ from tinygrad *)
let known_mismatches : string list = []

(* the renderers as the harvester built them: CUDARenderer sm_89 (tensor cores tc.get_cuda("sm_89")) and
   MetalRenderer Apple9 (tc.metal) *)
let cuda_renderer () = Cstyle.cuda_renderer ~arch:"sm_89"
let metal_renderer () = Cstyle.metal_renderer ()

let files = [ "cuda_default.json"; "cuda_noopt.json"; "metal_default.json"; "metal_noopt.json" ]

let renderer_of file = if String.sub file 0 4 = "cuda" then cuda_renderer () else metal_renderer ()
let noopt_of file = if Filename.check_suffix file "_noopt.json" then 1 else 0

(* (program, index, gpu record, cpu record) for every kernel of [file] *)
let kernels = Test_gpu_render.records

let sizes = List.map (function Uop.Sint i -> string_of_int i | Uop.Suop u -> Uop.render u)
let json_sizes j = match j with
  | Golden.Null -> [ "None" ]
  | j -> List.map (function Golden.Num n -> n | _ -> "?") (Golden.to_list j)

let lower file ast =
  let ren = renderer_of file in
  Helpers.context [ Helpers.Bind (Helpers.noopt, noopt_of file); Helpers.Bind (Helpers.no_color, 1) ] (fun () ->
      let sink = Codegen.full_rewrite_to_sink ast ren in
      let prg = try Ok (Codegen.do_to_program ast ren) with e -> Error e in
      (sink, Codegen.program_info_from_sink sink, prg))

(* whitespace-normalised source of the rendered program, or the exception *)
let src_diff prg want =
  match prg with
  | Error e -> Some ("exception " ^ Printexc.to_string e)
  | Ok prg ->
    let src = Codegen.program_source prg in
    if Test_codegen_golden.normalise src = Test_codegen_golden.normalise want then None
    else Some (Test_codegen_golden.first_diff src want)

let src_results : (string * string option) list ref = ref []

(* Ok () or Error with the first difference *)
let check_kernel file (k : Golden.json) (cpu : Golden.json) : (unit, string) result =
  let ast = Pyrender.parse_ast (Golden.to_str (Golden.member "ast" cpu)) in
  let sink, pi, prg = lower file ast in
  src_results := (file, src_diff prg (Golden.to_str (Golden.member "src" k))) :: !src_results;
  let opts = match sink.Uop.arg with Uop.Kernel_info ki -> List.map Test_opts.our_opt ki.applied_opts | _ -> [] in
  let want_opts = List.map Test_opts.corpus_opt (Golden.to_list (Golden.member "opts" k)) in
  let gs = sizes pi.global_size and want_gs = json_sizes (Golden.member "global_size" k) in
  let ls = (match pi.local_size with Some l -> sizes l | None -> [ "None" ])
  and want_ls = json_sizes (Golden.member "local_size" k) in
  let want_name = Golden.to_str (Golden.member "name" k) in
  let j = String.concat in
  if opts <> want_opts then Error (Printf.sprintf "opts [%s], corpus [%s]" (j " " opts) (j " " want_opts))
  else if pi.pname <> want_name then Error (Printf.sprintf "name %s, corpus %s" pi.pname want_name)
  else if gs <> want_gs then Error (Printf.sprintf "global size [%s], corpus [%s]" (j "," gs) (j "," want_gs))
  else if ls <> want_ls then Error (Printf.sprintf "local size [%s], corpus [%s]" (j "," ls) (j "," want_ls))
  else
    match prg with
    | Error _ -> Ok ()  (* rendering failures are counted by the source report *)
    | Ok prg ->
      (* the estimates (ops, lds, mem) of the linearized program *)
      let est = match prg.Uop.src.(0).Uop.arg with Uop.Kernel_info { estimates = Some e; _ } -> Some e | _ -> None in
      let e = Golden.member "estimates" k in
      let want = List.map (fun f -> match Golden.member f e with Golden.Num n -> n | _ -> "?") [ "ops"; "lds"; "mem" ] in
      let got = match est with
        | Some { Uop.ops; lds; mem } -> sizes [ ops; lds; mem ] | None -> [ "None" ] in
      if got <> want then Error (Printf.sprintf "estimates [%s], corpus [%s]" (j "," got) (j "," want)) else Ok ()

let test_file file () =
  let ks = kernels file in
  if ks = [] then Test_util.skip "gpu opts: corpus absent (%s)" file
  else begin
    let verbose = Sys.getenv_opt "GPU_VERBOSE" <> None in
    let only = Sys.getenv_opt "GPU_ONLY" in
    let ks = List.filter (fun (prog, _, _, _) -> match only with None -> true | Some p -> p = prog) ks in
    let results = List.map (fun (prog, i, k, cpu) ->
        let id = Printf.sprintf "%s:%s[%d]" file prog i in
        let r = try check_kernel file k cpu with e -> Error ("exception " ^ Printexc.to_string e) in
        (match r with Error m when verbose -> Printf.printf "gpu opts MISMATCH %s: %s\n%!" id m | _ -> ());
        (match !src_results with
         | (_, Some d) :: _ when verbose && r = Ok () -> Printf.printf "gpu src MISMATCH %s: %s\n%!" id d | _ -> ());
        (id, r)) ks in
    let ok = List.length (List.filter (fun (_, r) -> r = Ok ()) results) in
    let srcs = List.filter (fun (f, _) -> f = file) !src_results in
    let src_ok = List.length (List.filter (fun (_, d) -> d = None) srcs) in
    Printf.printf "gpu opts %s: %d/%d sources match (whitespace-normalised; reported only)\n%!" file src_ok (List.length srcs);
    Printf.printf "gpu opts %s: %d/%d match (opts, name, global/local size, estimates)\n%!" file ok (List.length results);
    let bad = List.filter_map (fun (id, r) -> match r with
        | Error m when not (List.mem id known_mismatches) -> Some (id ^ ": " ^ m) | _ -> None) results in
    if bad <> [] then fail "%d kernels differ:\n%s" (List.length bad) (String.concat "\n" bad)
  end

(* tinygrad's tc.py checks, values from the venv oracle *)
let test_tc () =
  let tc = List.hd Tc.cuda_sm89 in
  check_str ~what:"str" "WMMA_8_16_16_half_float" (Tc.to_string tc);
  check_str ~what:"base_shape_str" "u0 l0 l1 l2 l3 l4 u1 r0 r1 r2 r3" (String.concat " " (Tc.base_shape_str tc));
  check_str ~what:"base_upcast_axes" "u1 u0 r3 r2 r1 r0" (String.concat " " (Tc.base_upcast_axes tc));
  let p0, p1 = Tc.permutes_for_shape_str tc (Tc.base_shape_str tc) in
  let s l = String.concat "," (List.map string_of_int l) in
  check_str ~what:"permutes 0" "6,8,9,3,4,5,10,1,2,0,7" (s p0);
  check_str ~what:"permutes 1" "7,8,9,0,1,2,10,3,4,5,6" (s p1);
  let m = List.hd Tc.metal in
  check_str ~what:"metal str" "WMMA_8_8_8_float_float" (Tc.to_string m);
  let q0, q1 = Tc.permutes_for_shape_str m (Tc.base_shape_str m) in
  check_str ~what:"metal permutes 0" "6,7,2,3,8,5,0,1,4" (s q0);
  check_str ~what:"metal permutes 1" "0,1,6,7,4,8,2,3,5" (s q1);
  check_int ~what:"sm89 count" 8 (List.length Tc.cuda_sm89);
  check_int ~what:"metal count" 5 (List.length Tc.metal)

(* tensor-core kernels beyond the corpus (test/gpu_tc_oracle.ml, from test/gen_gpu_tc_oracle.py): half/bf16/fp8/tf32
   inputs, padding (TC_OPT=2), TC=2 (the TC shape without WMMA), TC_SELECT, convolutions with extra reduces, batched
   matmul. Opts, name, launch dims and the source must all match. *)
let test_tc_oracle () =
  let var = function
    | "TC" -> Helpers.use_tc | "TC_OPT" -> Helpers.tc_opt | "TC_SELECT" -> Helpers.tc_select
    | "ALLOW_TF32" -> Helpers.allow_tf32 | v -> fail "unknown context var %s" v in
  let bad = List.filter_map (fun (name, rn, env, ast, kname, opts, gs, ls, src) ->
      let ren = if rn = "cuda" then cuda_renderer () else metal_renderer () in
      let binds = Helpers.[ Bind (noopt, 0); Bind (no_color, 1) ] @ List.map (fun (k, v) -> Helpers.Bind (var k, v)) env in
      match Helpers.context binds (fun () -> Codegen.do_to_program (Pyrender.parse_ast ast) ren) with
      | exception e -> Some (name ^ ": exception " ^ Printexc.to_string e)
      | prg ->
        let pi = match prg.Uop.arg with Uop.Program_info p -> p | _ -> fail "no ProgramInfo" in
        let got_opts = match prg.Uop.src.(0).Uop.arg with Uop.Kernel_info ki -> List.map Opt.to_string ki.applied_opts | _ -> [] in
        let ints l = String.concat "," (List.map string_of_int l) in
        let want_ls = ints ls and got_ls = match pi.local_size with Some l -> String.concat "," (sizes l) | None -> "None" in
        if got_opts <> opts then Some (Printf.sprintf "%s: opts [%s], tinygrad [%s]" name (String.concat "; " got_opts) (String.concat "; " opts))
        else if pi.pname <> kname then Some (Printf.sprintf "%s: name %s, tinygrad %s" name pi.pname kname)
        else if String.concat "," (sizes pi.global_size) <> ints gs then Some (name ^ ": global size")
        else if got_ls <> want_ls then Some (Printf.sprintf "%s: local size %s, tinygrad %s" name got_ls want_ls)
        else if Test_codegen_golden.normalise (Codegen.program_source prg) <> Test_codegen_golden.normalise src then
          Some (name ^ ": src " ^ Test_codegen_golden.first_diff (Codegen.program_source prg) src)
        else None) Gpu_tc_oracle.cases in
  Printf.printf "gpu tc oracle: %d/%d kernels match (opts, name, dims, source)\n%!"
    (List.length Gpu_tc_oracle.cases - List.length bad) (List.length Gpu_tc_oracle.cases);
  if bad <> [] then fail "%d kernels differ:\n%s" (List.length bad) (String.concat "\n" bad)

let tests : case list =
  ("tc", test_tc) :: ("tc_oracle", test_tc_oracle) :: List.map (fun f -> ("gpu_opts_" ^ f, test_file f)) files
