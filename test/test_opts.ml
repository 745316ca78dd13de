(* Kernel optimizations (codegen/opt): tinygrad's hand_coded_optimizations against the golden corpus's DEFAULT mode
   (/work/shared/golden/corpus/*/cpu_default.json, harvested by tinygrad 0.14.0 with NUM_CPU_THREADS=8 and the
   default ClangRenderer). For every kernel the rebuilt AST goes through the pipeline with the default opts and the
   applied opts, the kernel name, the global size and the C source (whitespace-normalised) are compared with the
   corpus ("golden default: M/N match"). Every kernel not in [known_mismatches] must match. *)

open Tinygrad.Compiler
open Test_util

(* every kernel of cpu_default.json: (program, index, json record) *)
let kernels () =
  List.concat_map (fun prog ->
      let j = Golden.read_file (Filename.concat (Filename.concat (Golden.corpus_dir ()) prog) "cpu_default.json") in
      List.mapi (fun i k -> (prog, i, k)) (Golden.to_list (Golden.member "kernels" j)))
    (Golden.programs ~file:"cpu_default.json")

(* the corpus's opts record {"op": "UPCAST", "axis": 0, "arg": 4} as "UPCAST:0:4" *)
let corpus_opt (j : Golden.json) =
  let num k = match Golden.member_opt k j with
    | Some (Golden.Num n) -> n | Some Golden.Null | None -> "None"
    | Some (Golden.Arr l) -> "(" ^ String.concat ", " (List.map (function Golden.Num n -> n | _ -> "?") l) ^ ")"
    | Some _ -> "?" in
  Printf.sprintf "%s:%s:%s" (Golden.to_str (Golden.member "op" j)) (num "axis") (num "arg")

let our_opt (o : Opt.t) =
  let op = Opt.opt_ops_to_string o.op in
  let op = String.sub op 7 (String.length op - 7) in
  let axis = match o.axis with None -> "None" | Some a -> string_of_int a in
  let arg = match o.arg with Opt.No_arg -> "None" | Opt.Int i -> string_of_int i
                           | Opt.Tc (a, b, c) -> Printf.sprintf "(%d, %d, %d)" a b c in
  Printf.sprintf "%s:%s:%s" op axis arg

(* kernels ("program[index]") known to differ from tinygrad's default mode; every other corpus kernel must match
   exactly. Empty: all 196 kernels match (opts, name, global size and source). *)
let known_mismatches : string list = []
let expected_to_match id = not (List.mem id known_mismatches)

let normalise = Test_codegen_golden.normalise

let program_of ast =
  (* the corpus was harvested with NUM_CPU_THREADS=8 (ClangRenderer.global_max) *)
  Helpers.context [ Helpers.Bind (Helpers.noopt, 0); Helpers.Bind (Helpers.no_color, 1);
                    Helpers.Bind (Helpers.num_cpu_threads, 8); Helpers.Bind (Helpers.cpu_opt, Helpers.Cpu_tinygrad) ]
    (fun () ->
      Codegen.to_program ast (Device.renderer "CPU"))

(* compare one kernel: Ok () or Error with the first difference *)
let check_kernel (k : Golden.json) : (unit, string) result =
  let ast = Pyrender.parse_ast (Golden.to_str (Golden.member "ast" k)) in
  let prg = program_of ast in
  let sink = prg.Uop.src.(0) in
  let opts = match sink.Uop.arg with Uop.Kernel_info ki -> List.map our_opt ki.applied_opts | _ -> [] in
  let want_opts = List.map corpus_opt (Golden.to_list (Golden.member "opts" k)) in
  let pi = match prg.Uop.arg with Uop.Program_info p -> p | _ -> failwith "no ProgramInfo" in
  let gs = List.map (function Uop.Sint i -> string_of_int i | Uop.Suop u -> Uop.render u) pi.global_size in
  let want_gs = List.map (function Golden.Num n -> n | _ -> "?") (Golden.to_list (Golden.member "global_size" k)) in
  let src = Codegen.program_source prg and want_src = Golden.to_str (Golden.member "src" k) in
  let want_name = Golden.to_str (Golden.member "name" k) in
  if opts <> want_opts then
    Error (Printf.sprintf "opts [%s], corpus [%s]" (String.concat " " opts) (String.concat " " want_opts))
  else if pi.pname <> want_name then Error (Printf.sprintf "name %s, corpus %s" pi.pname want_name)
  else if gs <> want_gs then Error (Printf.sprintf "global size [%s], corpus [%s]" (String.concat "," gs) (String.concat "," want_gs))
  else if normalise src <> normalise want_src then Error ("src " ^ Test_codegen_golden.first_diff src want_src)
  else Ok ()

let test_default_sources () =
  let ks = kernels () in
  if ks = [] then Test_util.skip "golden default: corpus absent"
  else begin
    let verbose = Sys.getenv_opt "GOLDEN_VERBOSE" <> None in
    let only = Sys.getenv_opt "GOLDEN_ONLY" in
    let ks = List.filter (fun (prog, _, _) -> match only with None -> true | Some p -> p = prog) ks in
    let results = List.map (fun (prog, i, k) ->
        let id = Printf.sprintf "%s[%d]" prog i in
        let r = try check_kernel k with e -> Error ("exception " ^ Printexc.to_string e) in
        (match r with Error m when verbose -> Printf.printf "golden default MISMATCH %s: %s\n" id m | _ -> ());
        (id, r)) ks in
    let ok = List.length (List.filter (fun (_, r) -> r = Ok ()) results) in
    Printf.printf "golden default: %d/%d match\n%!" ok (List.length results);
    if Sys.getenv_opt "GOLDEN_LIST" <> None then
      print_endline (String.concat "; " (List.filter_map (fun (id, r) -> if r = Ok () then Some (Printf.sprintf "%S" id) else None) results));
    let bad = List.filter_map (fun (id, r) -> match r with
        | Error m when expected_to_match id -> Some (id ^ ": " ^ m) | _ -> None) results in
    if bad <> [] then fail "%d expected kernels differ:\n%s" (List.length bad) (String.concat "\n" bad)
  end


(* ---------- results with opts equal results without ---------- *)

(* Every corpus kernel is compiled with NOOPT=1 and with the default opts and both run on the same inputs (floats
   from a closed formula, ints in [0, 3), so gathers stay in bounds); every buffer must come out the same (floats
   within 1e-5 relative: upcasts and unrolls reassociate sums). THREAD kernels run their core_id shards. *)

let gen_input dt n slot =
  if Dtype.is_float dt then Array.init n (fun i -> float_of_int ((((i * 37) + (slot * 11)) mod 23) - 11) /. 4.0)
  else if dt = Dtype.Bool then Array.init n (fun i -> float_of_int ((i + slot) mod 2))
  else Array.init n (fun i -> float_of_int (((i * 7) + (slot * 5)) mod 3))

(* the global PARAMs of an AST: slot -> (dtype, size) *)
let params (ast : Uop.t) =
  List.filter_map (fun (u : Uop.t) ->
      if u.op == Ops.Param && (Uop.param_arg u).slot >= 0 then
        let n = match u.src with [| c |] when c.op == Ops.Const -> Z.to_int (Uop.zi (Uop.const_val c)) | _ -> 1 in
        Some ((Uop.param_arg u).slot, ((Uop.param_arg u).pdtype, n))
      else None) (Uop.toposort ast)
  |> List.sort_uniq compare

let run_with ?(vec = Helpers.cpu_vec.value) ~noopt:no ast =
  let prg = Helpers.context Helpers.[ Bind (noopt, no); Bind (no_color, 1); Bind (cpu_vec, vec) ] (fun () ->
      Codegen.to_program ast (Device.renderer "CPU")) in
  let info = match prg.Uop.arg with Uop.Program_info p -> p | _ -> fail "to_program: no Program_info" in
  let dev = Device.get "CPU" in
  let lib = dev.compiler.compile_cached (Codegen.program_source prg) in
  let vnames = List.map Uop.expr info.vars in
  let runtimevars = List.concat (List.mapi (fun i v -> if v = "core_id" then [ (v, i) ] else []) vnames) in
  if List.exists (fun v -> v <> "core_id") vnames then fail "vars other than core_id: %s" (String.concat "," vnames);
  let p = dev.runtime ~name:(Helpers.to_function_name info.pname) ~lib ~runtimevars in
  let bufs = List.map (fun (slot, (dt, n)) ->
      let b = Device.Buffer.create "CPU" n dt in
      Device.Buffer.copyin_floats b (gen_input dt n slot);
      (slot, b)) (params ast) in
  let launch = Device.Launch.of_buffers (List.map (fun s -> List.assoc s bufs) info.globals) (List.map (fun _ -> 0) vnames) in
  let gs = Array.of_list (List.map (function Uop.Sint i -> i | Uop.Suop _ -> fail "symbolic global size") info.global_size) in
  ignore (Device.run_program ~global_size:gs p launch);
  List.map (fun (slot, b) -> (slot, Device.Buffer.to_floats b)) bufs

let close a b = (Float.is_nan a && Float.is_nan b) || a = b || Float.abs (a -. b) <= 1e-5 *. Float.max 1.0 (Float.abs a)

let test_default_equals_noopt () =
  let ks = kernels () in
  if ks = [] then Test_util.skip "opts results: corpus absent"
  else begin
    let bad = List.filter_map (fun (prog, i, k) ->
        let id = Printf.sprintf "%s[%d]" prog i in
        match
          let ast = Pyrender.parse_ast (Golden.to_str (Golden.member "ast" k)) in
          let a = run_with ~noopt:1 ast and b = run_with ~noopt:0 ast in
          List.concat (List.map2 (fun (slot, x) (_, y) ->
              match List.find_opt (fun j -> not (close x.(j) y.(j))) (List.init (Array.length x) (fun j -> j)) with
              | Some j -> [ Printf.sprintf "%s: buffer %d [%d]: noopt %.9g, default %.9g" id slot j x.(j) y.(j) ]
              | None -> []) a b)
        with
        | [] -> None
        | m :: _ -> Some m
        | exception e -> Some (id ^ ": exception " ^ Printexc.to_string e)) ks in
    Printf.printf "opts results: %d/%d kernels give the same buffers with and without opts\n%!"
      (List.length ks - List.length bad) (List.length ks);
    if bad <> [] then fail "%d kernels differ:\n%s" (List.length bad) (String.concat "\n" bad)
  end

(* ---------- BEAM ---------- *)

(* BEAM=2 on red_sum_axis1[0] (sum over axis 1 of 8x16): the search runs (cache disabled) and stores its opts; a
   second search, and apply_opts with beam=2, are answered from the disk cache with the same opts; the kernel with
   the found opts gives the NOOPT result *)
(* the buffers of the NOOPT kernel [a] and of an optimized one [b] agree ([close]) *)
let same_buffers ~what a b =
  List.iter2 (fun (slot, x) (_, y) ->
      Array.iteri (fun j v -> check (close v y.(j)) "%s kernel buffer %d [%d]: noopt %g, %s %g" what slot j v what y.(j)) x) a b

(* the AST of kernel [i] of corpus program [prog] and a CPU renderer, or a note that the corpus is absent *)
let with_corpus_kernel ~what prog i f =
  match List.find_opt (fun (p, j, _) -> p = prog && j = i) (kernels ()) with
  | None -> Test_util.skip "opts %s: corpus absent" what
  | Some (_, _, k) -> f (Pyrender.parse_ast (Golden.to_str (Golden.member "ast" k))) (Device.renderer "CPU")

let test_beam () =
  with_corpus_kernel ~what:"beam" "red_sum_axis1" 0 @@ fun ast ren ->
    let sched () = let s = Postrange.create ast ren in Postrange.convert_loop_to_global s; s in
    let n0 = (Search.searches ()) in
    let r1 = Search.beam_search ~disable_cache:true (sched ()) 2 in
    check_int ~what:"searches run by BEAM with the cache disabled" (n0 + 1) (Search.searches ());
    let found = List.map our_opt r1.applied_opts in
    Printf.printf "opts beam: BEAM=2 picked [%s]\n" (String.concat " " found);
    let r2 = Search.beam_search (sched ()) 2 in
    check_int ~what:"searches run by the second BEAM (disk cache)" (n0 + 1) (Search.searches ());
    check (List.map our_opt r2.applied_opts = found) "cached opts differ";
    let opt_ast = Postrange.apply_opts ast ren ~beam:2 ~hand_coded:Codegen.hand_coded_optimizations in
    check_int ~what:"searches run by apply_opts ~beam:2 (disk cache)" (n0 + 1) (Search.searches ());
    (match opt_ast.Uop.arg with
     | Uop.Kernel_info ki -> check (List.map our_opt ki.applied_opts = found) "apply_opts: opts differ"
     | _ -> fail "apply_opts: no KernelInfo");
    same_buffers ~what:"beam" (run_with ~noopt:1 ast) (run_with ~noopt:0 opt_ast)

(* BEAM=2 through the user path (Tensor.realize -> Realize.compile_linear -> pm_beam -> to_program): with the disk
   cache ignored the kernel is searched; a fresh program with the same kernel AST, cache allowed, does no search
   (the AST key is what the cache keys on); both give numpy's values (sum over rows of 0..41, hand-derived) *)
let test_beam_realize () =
  let module T = Tensor in
  let run () =
    let x = T.reshape (T.arange 42) [| 6; 7 |] in
    T.to_float_array (T.cast (T.sum ~axis:[ 1 ] x) Dtype.Float32) in
  let expect = Array.init 6 (fun r -> float_of_int (7 * 7 * r + 21)) in
  let n0 = (Search.searches ()) in
  let a = Helpers.context Helpers.[ Bind (beam, 2); Bind (ignore_beam_cache, 1) ] run in
  check ((Search.searches ()) > n0) "BEAM=2 realize ran no search";
  let n1 = (Search.searches ()) in
  Codegen.clear_program_cache ();
  let b = Helpers.context Helpers.[ Bind (beam, 2) ] run in
  check_int ~what:"searches run by the second BEAM=2 realize (disk cache)" n1 (Search.searches ());
  Array.iteri (fun i e -> check (a.(i) = e && b.(i) = e) "row %d: %g / %g, expected %g" i a.(i) b.(i) e) expect

(* CPU_VEC (not a tinygrad knob) forces the float32 vector width of CPU_OPT=fast kernels: mm_large's matmul with a
   4x16 register tile loads and stores float<w> for each forced width w (and nothing wider), whatever the host's
   ISA (clang splits vectors wider than its registers); the buffers equal the NOOPT kernel's. Under CPU_OPT=tinygrad
   the same opts stop at float4, as tinygrad 0.14.0's CPU kernels do. *)
let test_cpu_vector_widths () =
  with_corpus_kernel ~what:"cpu_vector_widths" "mm_large" 0 @@ fun ast ren ->
    let opts = Opt.[ { op = UPCAST; axis = Some 1; arg = Int 16 }; { op = UPCAST; axis = Some 0; arg = Int 4 };
                     { op = THREAD; axis = Some 1; arg = Int 2 } ] in
    let optimized mode vec = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (cpu_vec, vec); Bind (no_color, 1) ]
        (fun () ->
           let s = Postrange.create ast ren in
           Postrange.convert_loop_to_global s;
           List.iter (fun o -> ignore (Postrange.apply_opt s o)) opts;
           let opt_ast = Postrange.get_optimized_ast s in
           (opt_ast, Codegen.program_source (Codegen.to_program opt_ast ren))) in
    let has s sub = let n = String.length sub in
      let rec go i = i + n <= String.length s && (String.sub s i n = sub || go (i + 1)) in go 0 in
    let noopt = run_with ~noopt:1 ast in
    List.iter (fun w ->
        let ast_w, src = optimized Helpers.Cpu_fast w in
        check (has src (Printf.sprintf "*((float%d*)" w)) "CPU_VEC=%d: no float%d load/store in\n%s" w w src;
        List.iter (fun wider -> check (not (has src (Printf.sprintf "float%d " wider)))
                      "CPU_VEC=%d rendered float%d:\n%s" w wider src) (List.filter (fun x -> x > w) [ 8; 16 ]);
        Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
            same_buffers ~what:(Printf.sprintf "CPU_VEC=%d" w) noopt (run_with ~vec:w ~noopt:0 ast_w))) [ 4; 8; 16 ];
    let _, src_tg = optimized Helpers.Cpu_tinygrad 16 in
    check (has src_tg "*((float4*)" && not (has src_tg "float8") && not (has src_tg "float16"))
      "CPU_OPT=tinygrad rendered vectors wider than float4:\n%s" src_tg

(* CPU_OPT=fast on red_sum_axis1 (sum over the contiguous axis of 8x16) with CPU_VEC=8: the heuristic unrolls the
   reduce by 8 (one float8 load per iteration) and the accumulator keeps its 8 lanes through the loop, folded once
   after it (buf0 lane 0 plus lane 1 plus ...); under CPU_OPT=tinygrad the lanes of each load are folded inside the loop.
   Both give the NOOPT buffers. *)
let test_cpu_vector_reduce () =
  with_corpus_kernel ~what:"cpu_vector_reduce" "red_sum_axis1" 0 @@ fun ast ren ->
    let source mode = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (cpu_vec, 8); Bind (no_color, 1); Bind (noopt, 0) ]
        (fun () -> Codegen.program_source (Codegen.to_program ast ren)) in
    let has s sub = let n = String.length sub in
      let rec go i = i + n <= String.length s && (String.sub s i n = sub || go (i + 1)) in go 0 in
    let fast = source Helpers.Cpu_fast and tg = source Helpers.Cpu_tinygrad in
    check (has fast "*((float8*)" && has fast "(*(buf0+0))+(*(buf0+1))") "CPU_OPT=fast: no float8 load or lane fold in\n%s" fast;
    check (not (has tg "float8") && not (has tg "(*(buf0+0))+(*(buf0+1))")) "CPU_OPT=tinygrad: fast kernel\n%s" tg;
    let noopt = run_with ~noopt:1 ast in
    List.iter (fun mode -> Helpers.context Helpers.[ Bind (cpu_opt, mode) ] (fun () ->
        same_buffers ~what:"vector reduce" noopt (run_with ~vec:8 ~noopt:0 ast))) Helpers.[ Cpu_fast; Cpu_tinygrad ]

(* the reduce kernels (ASTs with a REDUCE) of the schedule that realizes [t] *)
let reduce_kernels t =
  let linear, _ = Tensor.linear_with_vars [ t ] in
  List.filter (fun (u : Uop.t) ->
      u.op == Ops.Sink && (match u.arg with Uop.Kernel_info _ -> true | _ -> false)
      && List.exists (fun (v : Uop.t) -> v.op == Ops.Reduce) (Uop.toposort u)) (Uop.toposort linear)

let has s sub = let n = String.length sub in
  let rec go i = i + n <= String.length s && (String.sub s i n = sub || go (i + 1)) in go 0

let source_with mode vec ast = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (cpu_vec, vec); Bind (no_color, 1); Bind (noopt, 0) ]
    (fun () -> Codegen.program_source (Codegen.to_program ast (Device.renderer "CPU")))

(* CPU_OPT=fast on x (1, 64) @ w (64, n), w row-major (a matrix-vector product along the contiguous axis of w): with
   CPU_VEC=16 the output axis is upcast by 16 and by 8 vectors (float16 loads of a row of w), padded to a multiple of
   128 under a gate where 16 does not divide n (300); the buffers equal the NOOPT kernel's *)
let test_cpu_matvec () =
  List.iter (fun n ->
      let x = Tensor.rand [| 1; 64 |] and w = Tensor.rand [| 64; n |] in
      ignore (Tensor.realize x); ignore (Tensor.realize w);
      match reduce_kernels (Tensor.matmul x w) with
      | [ ast ] ->
        let src = source_with Helpers.Cpu_fast 16 ast in
        check (has src "*((float16*)((data2_") "n=%d: no float16 load of w in\n%s" n src;
        check (n mod 16 = 0 || has src "?*((float16*)") "n=%d: no gated float16 load in\n%s" n src;
        check (not (has (source_with Helpers.Cpu_tinygrad 16 ast) "float16")) "n=%d: CPU_OPT=tinygrad rendered float16" n;
        Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
            same_buffers ~what:(Printf.sprintf "matvec n=%d" n) (run_with ~noopt:1 ast) (run_with ~vec:16 ~noopt:0 ast))
      | l -> fail "n=%d: %d reduce kernels, expected 1" n (List.length l)) [ 256; 300 ];
  (* a plain sum over the rows of (64, 256) (a bias gradient) takes the same tile *)
  let x = Tensor.realize (Tensor.rand [| 64; 256 |]) in
  match reduce_kernels (Tensor.sum ~axis:[ 0 ] x) with
  | [ ast ] ->
    let src = source_with Helpers.Cpu_fast 16 ast in
    check (has src "*((float16*)((data1_") "column sum: no float16 load of a row in\n%s" src;
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
        same_buffers ~what:"column sum" (run_with ~noopt:1 ast) (run_with ~vec:16 ~noopt:0 ast))
  | l -> fail "column sum: %d reduce kernels, expected 1" (List.length l)

(* the opts that CPU_OPT=fast with CPU_VEC=16 applies to [ast], as "UPCAST:0:16" *)
let fast_opts ast =
  Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (cpu_vec, 16); Bind (noopt, 0) ] (fun () ->
    match (Codegen.to_program ast (Device.renderer "CPU")).Uop.src.(0).Uop.arg with
    | Uop.Kernel_info ki -> List.map our_opt ki.applied_opts
    | _ -> fail "to_program: no Kernel_info")

(* CPU_OPT=fast on x (32, 256) @ w (24, 256).T, both float32 operands contiguous along the reduce: the kernel is
   left rolled (no UNROLL), its reduce loop marked for clang's vectorizer; the matrix-vector x (1, 256) @ w.T keeps
   the unroll by the vector width (float16 loads). Both give the NOOPT buffers *)
let test_cpu_rolled_dot_products () =
  let w = Tensor.realize (Tensor.rand [| 24; 256 |]) in
  let kernel rows = match reduce_kernels (Tensor.matmul (Tensor.realize (Tensor.rand [| rows; 256 |]))
                                              (Tensor.transpose w)) with
    | [ ast ] -> ast
    | l -> fail "rows=%d: %d reduce kernels, expected 1" rows (List.length l) in
  let mm = kernel 32 and mv = kernel 1 in
  let unrolled ast = List.exists (fun o -> String.length o > 6 && String.sub o 0 6 = "UNROLL") (fast_opts ast) in
  check (not (unrolled mm)) "x @ w.T: unrolled (%s)" (String.concat " " (fast_opts mm));
  let src = source_with Helpers.Cpu_fast 16 mm in
  check (has src "clang loop vectorize(enable)" && not (has src "float16"))
    "x @ w.T: no marked rolled reduce loop in\n%s" src;
  check (unrolled mv) "x (1, 256) @ w.T: not unrolled (%s)" (String.concat " " (fast_opts mv));
  List.iter (fun (what, ast) -> Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
      same_buffers ~what (run_with ~noopt:1 ast) (run_with ~vec:16 ~noopt:0 ast))) [ ("x @ w.T", mm); ("matvec", mv) ]

(* CPU_OPT=fast, CPU_VEC=16, 2 threads, on x (1, 64) @ w (64, 4100), w row-major: the matrix-vector tile of
   128 outputs leaves 33 tiles, which 2 threads do not divide, so the output axis is padded to a multiple of
   256 (34 tiles, the last loading nothing) and threaded. Each lane's gate varies with the thread's index
   and is folded to one of two comparisons (t*17 + i < 33 and < 32), where tinygrad's symbolic leaves a
   differently scaled one per lane; the buffers equal the NOOPT kernel's. Opts and gates are checked by
   hand: 4100 = 32*128 + 4 *)
let test_cpu_matvec_thread_pad () =
  let x = Tensor.realize (Tensor.rand [| 1; 64 |]) and w = Tensor.realize (Tensor.rand [| 64; 4100 |]) in
  match reduce_kernels (Tensor.matmul x w) with
  | [ ast ] ->
    Helpers.context Helpers.[ Bind (num_cpu_threads, 2) ] (fun () ->
        let opts = fast_opts ast in
        let want = [ "PADTO:0:256"; "UPCAST:0:16"; "UPCAST:0:8"; "THREAD:0:2" ] in
        check (opts = want) "opts [%s], expected [%s]" (String.concat " " opts) (String.concat " " want);
        let src = source_with Helpers.Cpu_fast 16 ast in
        let gates = List.filter (fun l -> has l "_Bool alu") (String.split_on_char '\n' src) in
        check (List.length gates = 2) "%d gates, expected 2 in\n%s" (List.length gates) src;
        Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
            same_buffers ~what:"threaded padded matvec" (run_with ~noopt:1 ast)
              (run_with ~vec:16 ~noopt:0 ast)))
  | l -> fail "%d reduce kernels, expected 1" (List.length l)

(* CPU_OPT=fast on gelu(x @ w + b), w (64, 256) row-major (GPT-2's c_fc: x (1, 64) in decode, x (16, 64)
   for a prompt): the bias and the tanh-GELU (exp2's polynomial) run once per output after the reduce, so they
   keep the tile of the plain product, where the polynomial had kept the kernel rolled (its inner loop
   striding a row of w): the matrix-vector tile (the output axis upcast by 16 and by 8 vectors) and the
   register tile (w's rows as 16 lanes, 8 rows of x broadcast), the same opts as the plain product's.
   With w used transposed (x @ w.T, contiguous along the reduce) the kernel stays rolled for clang's
   vectorizer. The buffers equal the NOOPT kernel's. *)
let test_cpu_matvec_epilogue () =
  let x = Tensor.realize (Tensor.rand [| 1; 64 |]) and xs = Tensor.realize (Tensor.rand [| 16; 64 |]) in
  let w = Tensor.realize (Tensor.rand [| 64; 256 |]) and w_nk = Tensor.realize (Tensor.rand [| 256; 64 |]) in
  let b = Tensor.realize (Tensor.rand [| 256 |]) in
  let one what t = match reduce_kernels t with
    | [ ast ] -> ast | l -> fail "%s: %d reduce kernels, expected 1" what (List.length l) in
  List.iter (fun (what, y, want) ->
      let ast = one what (Tensor.gelu (Tensor.add (y ()) b)) in
      let opts = fast_opts ast in
      check (List.filter (fun o -> not (has o "THREAD")) opts = want)
        "%s: opts [%s], expected [%s] and THREADs" what (String.concat " " opts) (String.concat " " want);
      if want <> [] then
        (let plain = fast_opts (one what (y ())) in
         check (plain = opts) "%s: opts [%s], the plain product's [%s]" what (String.concat " " opts)
           (String.concat " " plain));
      Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
          same_buffers ~what (run_with ~noopt:1 ast) (run_with ~vec:16 ~noopt:0 ast)))
    [ ("gelu (x @ w + b)", (fun () -> Tensor.matmul x w), [ "UPCAST:0:16"; "UPCAST:0:8" ]);
      ("gelu (xs @ w + b)", (fun () -> Tensor.matmul xs w), [ "UPCAST:1:16"; "UPCAST:0:8" ]);
      ("gelu (x @ w.T + b)", (fun () -> Tensor.matmul x (Tensor.transpose w_nk)), []) ]

(* CPU_OPT=fast, CPU_VEC=16: the tanh-GELU after the matrix-vector tile of gelu(x @ w + b), x (1, 64), w
   (64, 256), renders exp2's NaN select with both sides computed first ([({float ta=...; float tb=...;
   c?ta:tb;})]), so that clang's SLP vectorizer takes the 128 output lanes together; the select of a guarded
   integer division, where(b != 0, float(a // b), 0) on 1024 int32 (upcast lanes), keeps tinygrad's [c?a:b]:
   computed first, the division would run on the zero divisors (gen_input's divisors are 0, 1 and 2). Both
   kernels' buffers equal the NOOPT kernels'. *)
let test_cpu_select () =
  let x = Tensor.realize (Tensor.rand [| 1; 64 |]) and w = Tensor.realize (Tensor.rand [| 64; 256 |]) in
  let b = Tensor.realize (Tensor.rand [| 256 |]) in
  (match reduce_kernels (Tensor.gelu (Tensor.add (Tensor.matmul x w) b)) with
   | [ ast ] ->
     let src = source_with Helpers.Cpu_fast 16 ast in
     check (has src "({float ta=") "gelu: no select with its sides computed first in\n%s" src;
     check (not (has (source_with Helpers.Cpu_tinygrad 16 ast) "ta="))
       "gelu: CPU_OPT=tinygrad rendered the select";
     Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
         same_buffers ~what:"gelu select" (run_with ~noopt:1 ast) (run_with ~vec:16 ~noopt:0 ast))
   | l -> fail "gelu: %d reduce kernels, expected 1" (List.length l));
  let ints () = Tensor.realize (Tensor.cast (Tensor.rand [| 1024 |]) Dtype.Int32) in
  let a = ints () and d = ints () in
  let q = Tensor.where (Tensor.ne d (Tensor.scalar 0.)) (Tensor.cast (Tensor.idiv a d) Dtype.Float32)
      (Tensor.scalar 0.) in
  let linear, _ = Tensor.linear_with_vars [ q ] in
  let selects (u : Uop.t) = List.exists (fun (v : Uop.t) -> v.op == Ops.Where) (Uop.toposort u) in
  let kernel (u : Uop.t) = u.op == Ops.Sink && (match u.arg with Uop.Kernel_info _ -> true | _ -> false) in
  match List.filter (fun u -> kernel u && selects u) (Uop.toposort linear) with
  | [ ast ] ->
    let src = source_with Helpers.Cpu_fast 16 ast in
    check (List.exists (has src) [ "int16"; "int8"; "int4" ]) "guarded division: no upcast lanes in\n%s" src;
    check (not (has src "ta=")) "guarded division: the select computes the division first in\n%s" src;
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
        same_buffers ~what:"guarded division" (run_with ~noopt:1 ast) (run_with ~vec:16 ~noopt:0 ast))
  | l -> fail "guarded division: %d kernels with a select, expected 1" (List.length l)

(* CPU_OPT=fast on float16 matrix-vector products with epilogues, x (1, 1024) @ w.T with w (4096, 1024) (a
   linear layer's weight, contiguous along the reduce) multiplied by a float16 vector (a feed-forward's up
   projection times its silu gate), and with a silu epilogue: the heuristic leaves the reduce rolled (no half
   vector in the source, the loop marked for clang's vectorizer with 4 interleaved accumulators) where it
   unrolled the float16 loads, and the
   buffers equal the NOOPT kernel's (the inputs are multiples of 1/4, so the float32 sums are exact in any
   order) *)
let test_cpu_half_matvec () =
  let half shape = Tensor.realize (Tensor.rand ~dtype:Dtype.Float16 shape) in
  let x = half [| 1; 1024 |] and w = half [| 4096; 1024 |] and g = half [| 1; 4096 |] in
  let y = Tensor.matmul x (Tensor.transpose w) in
  List.iter (fun (what, t) ->
      match reduce_kernels t with
      | [ ast ] ->
        let src = source_with Helpers.Cpu_fast 16 ast in
        let half_vector = List.exists (fun d -> has src (Printf.sprintf "__fp16%d" d)) [ 1; 2; 4; 8 ] in
        check (not half_vector && has src "clang loop vectorize(enable) interleave_count(4)")
          "%s: not a rolled loop marked with interleaved accumulators:\n%s" what src;
        Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
            same_buffers ~what (run_with ~noopt:1 ast) (run_with ~vec:16 ~noopt:0 ast))
      | l -> fail "%s: %d reduce kernels, expected 1" what (List.length l))
    [ ("(x @ w.T) * g", Tensor.mul y g); ("silu (x @ w.T)", Tensor.silu y) ]

(* CPU_OPT=fast on silu((x * g) @ W.T), W (64, 256) a Q8_0 weight dequantized where the kernel reads it (blocks of
   34 bytes: a float16 scale, 0.25 here, and 32 int8 values in -3..3) and g a float16 vector (a norm's weight): the
   reduce over the int8 bytes is unrolled by 16 (16 accumulators, no loop left for clang's vectorizer, where the
   silu's polynomial had kept it rolled), and g loads as one 16-lane float16 vector. The values equal the sums
   derived here from the bytes (x and g multiples of 1/4 and 1/2: every product and sum is exact in float32), the
   silu computed in double. *)
let test_cpu_byte_matvec () =
  let rows = 64 and cols = 256 in
  let q i j = ((i * i) + (j * 3) + (i * j)) mod 7 - 3 and xv j = float_of_int ((j mod 9) - 4) /. 4.0
  and gv j = if j mod 3 = 0 then 0.5 else 1.0 in
  let bytes = Array.concat (List.init (rows * cols / 32) (fun b ->
      let i = b * 32 / cols and j0 = b * 32 mod cols in
      (* 0.25 is float16 0x3400, little-endian *)
      Array.append [| 0x00; 0x34 |] (Array.init 32 (fun k -> q i (j0 + k) land 0xff)))) in
  let raw = Tensor.realize (Tensor.of_int_array ~dtype:Dtype.Uint8 [| Array.length bytes |] bytes) in
  let w = Tensor.reshape (Tinygrad_llm.Gguf.ggml_data_to_tensor raw (rows * cols) Tinygrad_llm.Gguf.Q8_0)
      [| rows; cols |] in
  let x = Tensor.realize (Tensor.of_float_array [| 1; cols |] (Array.init cols xv)) in
  let g = Tensor.realize (Tensor.of_float_array ~dtype:Dtype.Float16 [| cols |] (Array.init cols gv)) in
  let silu_matvec () = Tensor.silu (Tensor.matmul (Tensor.mul x g) (Tensor.transpose w)) in
  (match reduce_kernels (silu_matvec ()) with
   | [ ast ] ->
     let src = source_with Helpers.Cpu_fast 16 ast in
     check (not (has src "clang loop vectorize") && has src "float buf0[16]")
       "the int8 reduce is not unrolled by 16:\n%s" src;
     check (has src "__fp1616") "g is not loaded as a 16-lane float16 vector:\n%s" src
   | l -> fail "%d reduce kernels, expected 1" (List.length l));
  (* a graph of its own: linear_with_vars scheduled y's, which is left to its caller to run *)
  let got = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () -> Tensor.to_float_array (silu_matvec ())) in
  Array.iteri (fun i v ->
      let s = ref 0.0 in
      for j = 0 to cols - 1 do s := !s +. (xv j *. gv j *. 0.25 *. float_of_int (q i j)) done;
      let want = !s /. (1.0 +. exp (-. !s)) in
      check (Float.abs (v -. want) <= 1e-5 *. Float.max 1.0 (Float.abs want)) "row %d: %g, expected %g" i v want) got

(* CPU_OPT=fast on a batch taken from a uint8 dataset of 60000 rows as beautiful_mnist takes it (x[samples], a
   one-hot over the rows that the scheduler splits into 10 runs of 6000, each gating its loads): the kernel that
   gathers the bytes loads each gated run of 4 as one uint8 vector; CPU_OPT=tinygrad keeps a scalar load per
   byte. The gathered values equal the bytes of the closed formula at the sampled rows, in both modes. *)
let test_cpu_gated_byte_loads () =
  let rows = 60000 and cols = 16 in
  let byte i j = ((i * 7) + (j * 13) + (i / 256)) land 0xff in
  let x = Tensor.realize (Tensor.of_int_array ~dtype:Dtype.Uint8 [| rows; cols |]
                            (Array.init (rows * cols) (fun k -> byte (k / cols) (k mod cols)))) in
  let picks = [| 0; 59999; 6000; 5999; 31337; 12; 47000; 6001 |] in
  let samples = Tensor.realize (Tensor.of_int_array [| Array.length picks |] picks) in
  let gather () = Tensor.getitem x [ Tensor.T samples ] in
  let gathers mode = Helpers.context Helpers.[ Bind (cpu_opt, mode) ] (fun () ->
      let linear, _ = Tensor.linear_with_vars [ gather () ] in
      List.filter_map (fun (u : Uop.t) ->
          if u.op == Ops.Sink && (match u.arg with Uop.Kernel_info _ -> true | _ -> false) then
            Some (source_with mode 16 u) else None) (Uop.toposort linear)) in
  let vector_load src = has src "unsigned_char4*" in
  check (List.exists vector_load (gathers Helpers.Cpu_fast)) "CPU_OPT=fast: no gated uint8 vector load:\n%s"
    (String.concat "\n" (gathers Helpers.Cpu_fast));
  check (not (List.exists vector_load (gathers Helpers.Cpu_tinygrad))) "CPU_OPT=tinygrad: a uint8 vector load";
  List.iter (fun mode ->
      let got = Helpers.context Helpers.[ Bind (cpu_opt, mode) ] (fun () -> Tensor.to_float_array (gather ())) in
      Array.iteri (fun k v ->
          let want = float_of_int (byte picks.(k / cols) (k mod cols)) in
          check (v = want) "element %d: %g, expected %g" k v want) got) Helpers.[ Cpu_fast; Cpu_tinygrad ]

(* the kernel's CPU_VEC=16 sources under CPU_OPT=fast and CPU_OPT=tinygrad pass [fast] and [tinygrad] (a predicate, and
   what a failure means), and both kernels' buffers equal the NOOPT kernel's *)
let check_both_modes ~what ast ~fast:(fast_ok, fast_msg) ~tinygrad:(tg_ok, tg_msg) =
  let fast = source_with Helpers.Cpu_fast 16 ast and tg = source_with Helpers.Cpu_tinygrad 16 ast in
  check (fast_ok fast) "%s: CPU_OPT=fast: %s\n%s" what fast_msg fast;
  check (tg_ok tg) "%s: CPU_OPT=tinygrad: %s\n%s" what tg_msg tg;
  let noopt = run_with ~noopt:1 ast in
  List.iter (fun mode -> Helpers.context Helpers.[ Bind (cpu_opt, mode) ] (fun () ->
      same_buffers ~what noopt (run_with ~vec:16 ~noopt:0 ast))) Helpers.[ Cpu_fast; Cpu_tinygrad ]

(* CPU_OPT=fast on sum(exp(x), axis 1) of 16x256: exp2 is decomposed into a polynomial, so the kernel gets no upcast
   nor unroll and its reduce loop is marked for clang's loop vectorizer, with 8 interleaved accumulators (the
   polynomial's chain is long); CPU_OPT=tinygrad keeps tinygrad's kernel.
   Both give the NOOPT buffers (the values of exp are checked against numpy by the ops suite). *)
let test_cpu_rolled_transcendental () =
  let x = Tensor.realize (Tensor.rand [| 16; 256 |]) in
  match reduce_kernels (Tensor.sum ~axis:[ 1 ] (Tensor.exp x)) with
  | [ ast ] ->
    check_both_modes ~what:"exp sum" ast
      ~fast:((fun src -> has src "_Pragma(\"clang loop vectorize(enable) interleave_count(8)\")"
                         && not (has src "float4")), "not a rolled loop marked with interleaved accumulators")
      ~tinygrad:((fun src -> not (has src "_Pragma")), "marked loop")
  | l -> fail "%d reduce kernels, expected 1" (List.length l)

(* CPU_OPT=fast on softmax of 16x256 rows: the normalize kernel, exp(x - max) * (1 / sum) with no reduce,
   is left rolled (its exp2 is a polynomial) and its loop over the row is marked to interleave vectors, whose
   float chains (about 20 operations deep) then overlap; CPU_OPT=tinygrad keeps tinygrad's kernel. Both give
   the NOOPT buffers, and rows of equal values give 1/256 exactly (exp(0) = 1 and a sum of 256 ones). Rows of
   64 are not marked *)
let test_cpu_interleaved_chain () =
  let elementwise cols =
    let x = Tensor.realize (Tensor.rand [| 16; cols |]) in
    let linear, _ = Tensor.linear_with_vars [ Tensor.softmax ~axis:(-1) x ] in
    let kernel (u : Uop.t) = u.op == Ops.Sink && (match u.arg with Uop.Kernel_info _ -> true | _ -> false) in
    let reduces ast = List.exists (fun (v : Uop.t) -> v.op == Ops.Reduce) (Uop.toposort ast) in
    List.filter (fun u -> kernel u && not (reduces u)) (Uop.toposort linear) in
  (* rows of 64 are too short for 8 vectors of 16 lanes twice over: not marked *)
  (match elementwise 64 with
   | [ ast ] -> let src = source_with Helpers.Cpu_fast 16 ast in
     check (not (has src "interleave_count")) "softmax of rows of 64: a short loop marked:\n%s" src
   | l -> fail "%d elementwise kernels in softmax, expected 1" (List.length l));
  (match elementwise 256 with
   | [ ast ] ->
     check_both_modes ~what:"softmax normalize" ast
       ~fast:((fun src -> has src "_Pragma(\"clang loop interleave_count(8)\") for (int Lidx1"),
              "the loop over the row is not marked to interleave")
       ~tinygrad:((fun src -> not (has src "_Pragma")), "marked loop")
   | l -> fail "%d elementwise kernels in softmax, expected 1" (List.length l));
  let rows = Tensor.realize (Tensor.of_float_array [| 16; 256 |]
                                (Array.init (16 * 256) (fun i -> float_of_int (i / 256) *. 0.5))) in
  let got = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (cpu_vec, 16) ] (fun () ->
      Tensor.to_float_array (Tensor.softmax ~axis:(-1) rows)) in
  Array.iteri (fun i v -> check (v = 1.0 /. 256.0) "softmax of equal values [%d]: %g, expected 1/256" i v) got

(* CPU_OPT=fast register tile on small matmuls, CPU_VEC=16: a (32, 16) @ b (16, 64) (a reduce of 16 over 2,048
   outputs) gets the tile (b's rows loaded as float16, 8 rows of a broadcast into 8 float16 accumulators); in
   x (32, 64) @ w.T + bias (w (48, 64), Linear's forward) no operand is contiguous along the output, and the bias,
   which is, is not taken for one: no float16 load of the bias. Both give the NOOPT buffers. *)
let test_cpu_register_tile_small () =
  let a = Tensor.realize (Tensor.rand [| 32; 16 |]) and b = Tensor.realize (Tensor.rand [| 16; 64 |]) in
  let x = Tensor.realize (Tensor.rand [| 32; 64 |]) and w = Tensor.realize (Tensor.rand [| 48; 64 |])
  and bias = Tensor.realize (Tensor.rand [| 48 |]) in
  let one t = match reduce_kernels t with [ ast ] -> ast | l -> fail "%d reduce kernels, expected 1" (List.length l) in
  let mm = one (Tensor.matmul a b) and lin = one (Tensor.add (Tensor.matmul x (Tensor.transpose w)) bias) in
  let src_mm = source_with Helpers.Cpu_fast 16 mm and src_lin = source_with Helpers.Cpu_fast 16 lin in
  check (has src_mm "float16 val" && has src_mm "float buf7[16]" && not (has src_mm "buf8"))
    "small matmul: no 8x16 tile in\n%s" src_mm;
  check (not (has src_lin "float16*)((data3_48")) "Linear forward: the bias loaded as a tile operand in\n%s" src_lin;
  List.iter (fun (what, ast) -> Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
      same_buffers ~what (run_with ~noopt:1 ast) (run_with ~vec:16 ~noopt:0 ast))) [ ("small matmul", mm); ("linear", lin) ]

(* a max over rows of log2 (a transcendental) with negative inputs: tinygrad's kernel folds each row from its first
   element with max(a, b) = a < b ? b : a, which keeps a NaN in first place and drops a later one, so a row is NaN
   exactly where its first element is negative (hand-derived; tinygrad 0.14 gives these NaNs). CPU_OPT=fast keeps
   that order (a rolled loop from -inf, or one the vectorizer reorders, dropped them). *)
let test_cpu_max_keeps_order () =
  let rows = [| [| -0.36; -1.07; 0.89; -0.03; 2.86 |]; [| 0.74; -1.37; 0.18; 0.99; -0.63 |];
                [| -1.3; -0.44; -2.55; 1.89; 2.39 |]; [| 1.7; 1.54; 1.72; -0.0; 1.5 |] |] in
  let expected = Array.map (fun r ->
      if r.(0) < 0. then Float.nan
      else Array.fold_left (fun m v -> if v > 0. then Float.max m (Float.log2 v) else m) neg_infinity r) rows in
  List.iter (fun mode ->
      let got = Helpers.context Helpers.[ Bind (cpu_opt, mode) ] (fun () ->
          let x = Tensor.of_float_array [| 4; 5 |] (Array.concat (Array.to_list rows)) in
          Tensor.to_float_array (Tensor.max ~axis:[ 1 ] (Tensor.log2 x))) in
      Array.iteri (fun i e ->
          check ((Float.is_nan e && Float.is_nan got.(i)) || Float.abs (e -. got.(i)) < 1e-5)
            "row %d: expected %g, got %g" i e got.(i)) expected) Helpers.[ Cpu_fast; Cpu_tinygrad ]

(* CPU_OPT=fast on Adam's update of a 64x48 weight, p - lr * m / (sqrt v + eps) with m, v and p realized: an
   elementwise kernel that divides and takes a square root stays rolled (E_3072: clang vectorizes the loop at full
   width); CPU_OPT=tinygrad upcasts it (E_1024_3). Both give the NOOPT buffers. *)
let test_cpu_rolled_divide () =
  let p = Tensor.realize (Tensor.rand [| 64; 48 |]) and m = Tensor.realize (Tensor.rand [| 64; 48 |])
  and v = Tensor.realize (Tensor.rand [| 64; 48 |]) in
  let upd = Tensor.sub p (Tensor.mul (Tensor.scalar 0.01) (Tensor.div m (Tensor.add (Tensor.sqrt v) (Tensor.scalar 1e-8)))) in
  let linear, _ = Tensor.linear_with_vars [ upd ] in
  match List.filter (fun (u : Uop.t) -> u.op == Ops.Sink && (match u.arg with Uop.Kernel_info _ -> true | _ -> false))
          (Uop.toposort linear) with
  | [ ast ] ->
    check_both_modes ~what:"adam update" ast
      ~fast:((fun src -> has src "void E_3072(" && not (has src "float4")), "not a rolled loop")
      ~tinygrad:((fun src -> not (has src "void E_3072(")), "no upcast")
  | l -> fail "%d kernels, expected 1" (List.length l)

(* CPU_OPT=fast on conv2d (3x3 window) of x (4, 4, h, h) with w (8, 4, 3, 3): the kernel gets the
   direct-convolution tile. With CPU_VEC=16, no padding and h = 28, the 26 output columns are two
   overlapping tiles of 16 lanes (Opt.OVERLAP), each window offset loading float16 of the image and no
   narrower vector, the 8 output channels rows of 4, and the batch is threaded over 2 cores; with h = 8
   the 6 columns (float4 + float2) take two output rows; with padding 1 and h = 56 the lanes are 28 of
   the 56 columns, the image loads gated lane by lane at the borders (under a mask of lanes, or one gate
   where the lanes share it); h = 19 leaves 17 columns (a prime), padded to 20 under a gate (the padded
   lanes fold away: float16 and one float). CPU_OPT=tinygrad keeps tinygrad's kernel (no vector wider
   than float4). The buffers equal the NOOPT kernel's, with CPU_VEC=16 and 8. *)
let test_cpu_conv_tile () =
  List.iter (fun (h, padding) ->
      let x = Tensor.realize (Tensor.rand [| 4; 4; h; h |]) and w = Tensor.realize (Tensor.rand [| 8; 4; 3; 3 |]) in
      match reduce_kernels (Tensor.conv2d ~padding x w) with
      | [ ast ] ->
        let fast = Helpers.context Helpers.[ Bind (num_cpu_threads, 2) ] (fun () -> source_with Helpers.Cpu_fast 16 ast) in
        let loads = match h with 28 -> [ 16 ] | 8 -> [ 4; 2 ] | 19 -> [ 16 ] | _ -> [ 16; 8 ] in
        List.iter (fun l -> check (has fast (Printf.sprintf "*((float%d*)((data1_" l)
                                   || (padding > 0 && has fast (Printf.sprintf "tg_maskload%d((float*)(data1_" l)))
                                    "h=%d: no float%d load of the image in\n%s" h l fast) loads;
        check (h <> 28 || has fast "const int data3_)") "h=%d: not threaded (no core id parameter)\n%s" h fast;
        let narrow = List.exists (fun l -> has fast (Printf.sprintf "*((float%d*)((data1_" l)) [ 8; 4; 2 ] in
        check (h <> 28 || not narrow)
          "h=%d: narrower loads than float16 in\n%s" h fast;
        check (not (has (source_with Helpers.Cpu_tinygrad 16 ast) "float8")) "h=%d: CPU_OPT=tinygrad rendered float8" h;
        Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (num_cpu_threads, 2) ] (fun () ->
            let noopt = run_with ~noopt:1 ast in
            List.iter (fun vec -> same_buffers ~what:(Printf.sprintf "conv h=%d CPU_VEC=%d" h vec) noopt (run_with ~vec ~noopt:0 ast))
              [ 16; 8 ])
      | l -> fail "h=%d: %d reduce kernels, expected 1" h (List.length l)) [ (28, 0); (8, 0); (56, 1); (19, 0) ]

(* CPU_OPT=fast on max_pool2d (2x2) of x (4, 4, h, h) and its backward (loss = sum (y * y)): tinygrad's
   unrolls take the window whole, and the output row becomes the lanes. With h = 20, the forward kernel's 10
   output columns load their two input rows as float16 + float16 + float8 (and store float8 + float2), the
   backward's 20 columns (gated by the window) as float16 + float4; with h = 40 the backward's 40 columns take
   the widest vector that divides them (8). CPU_OPT=tinygrad keeps tinygrad's scalar kernels (no float8). The
   buffers equal the NOOPT kernel's, with CPU_VEC=16 and 8. *)
let test_cpu_window_lanes () =
  List.iter (fun h ->
      let x = Tensor.realize (Tensor.rand [| 4; 4; h; h |]) in
      let y = Tensor.max_pool2d x in
      let gx = match Tensor.gradient (Tensor.sum (Tensor.mul y y)) [ x ] with
        | [ g ] -> g | _ -> fail "one gradient expected" in
      let fwd = match reduce_kernels y with
        | [ ast ] -> ast | l -> fail "h=%d: %d forward kernels" h (List.length l) in
      let bwd = match List.rev (reduce_kernels gx) with
        | ast :: _ -> ast | [] -> fail "h=%d: no backward kernel" h in
      List.iter (fun (what, ast, loads) ->
          let fast = source_with Helpers.Cpu_fast 16 ast in
          List.iter (fun l -> check (has fast (Printf.sprintf "*((float%d*)((data" l)
                                     || has fast (Printf.sprintf "tg_maskload%d((float*)(data" l))
                                 "h=%d %s: no float%d load in\n%s" h what l fast) loads;
          check (not (has (source_with Helpers.Cpu_tinygrad 16 ast) "float8"))
            "h=%d %s: CPU_OPT=tinygrad rendered float8" h what;
          Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
              let noopt = run_with ~noopt:1 ast in
              List.iter (fun vec -> same_buffers ~what:(Printf.sprintf "h=%d %s CPU_VEC=%d" h what vec) noopt
                            (run_with ~vec ~noopt:0 ast)) [ 16; 8 ]))
        ((if h = 20 then [ ("max pool", fwd, [ 16; 8 ]) ] else []) @
         [ ("max pool backward", bwd, if h = 20 then [ 16; 4 ] else [ 8 ]) ])) [ 20; 40 ]

(* the UPCAST, UNROLL and SWAP opts that Heuristic picks for [ast] under [mode] with CPU_VEC=16 *)
let heuristic_opts mode ast = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (cpu_vec, 16) ] (fun () ->
    let s = Postrange.create ast (Device.renderer "CPU") in
    Postrange.convert_loop_to_global s;
    List.filter_map (fun (o : Opt.t) -> match o.op, o.arg with
        | (Opt.UPCAST | Opt.UNROLL | Opt.SWAP), Opt.Int n -> Some (o.op, n) | _ -> None)
      (Codegen.hand_coded_optimizations s).applied_opts)

(* CPU_OPT=fast on the window sum of a 3x3 convolution's input gradient, as beautiful_mnist's second block
   schedules it: x (4, 32, 20, 20) max-pooled, conv2d with w (64, 32, 3, 3), relu, conv2d with
   w2 (64, 64, 3, 3), loss = sum (y * y), gradient of x. The first convolution's channel reduce is a kernel of
   its own, and the window sum of _pool's backward (a sum of gated loads over 4x4 points, no product)
   another, which tinygrad's unrolls take by one axis of 4 and upcast nothing. The fast mode unrolls the other
   axis and upcasts the output row of 10 whole: its opts are UNROLL 0, UNROLL 0, UPCAST 0 (tinygrad's:
   UNROLL 0 alone), its source has no reduce loop, and its columns' modulos fold (one per row offset of the
   window is left). The buffers equal the NOOPT kernel's, with CPU_VEC=16 and 8. *)
let test_cpu_window_rest () =
  let x = Tensor.realize (Tensor.rand [| 4; 32; 20; 20 |]) in
  let w = Tensor.realize (Tensor.rand [| 64; 32; 3; 3 |]) in
  let w2 = Tensor.realize (Tensor.rand [| 64; 64; 3; 3 |]) in
  let y = Tensor.conv2d (Tensor.relu (Tensor.conv2d (Tensor.max_pool2d x) w)) w2 in
  let gx = match Tensor.gradient (Tensor.sum (Tensor.mul y y)) [ x ] with
    | [ g ] -> g | _ -> fail "one gradient expected" in
  (* the window sum: one REDUCE of Add of loaded values, whose source computes no float op but a select and
     casts nothing (the max pool's count of maxima sums compared values) *)
  let window_sum (ast : Uop.t) =
    match List.filter (fun (u : Uop.t) -> u.op == Ops.Reduce) (Uop.toposort ast) with
    | [ r ] ->
      let computed (u : Uop.t) =
        u.op == Ops.Cast || (Ops.Group.is_alu u.op && u.op != Ops.Where && Dtype.is_float u.dtype) in
      (match r.arg with Uop.Reduce_arg (Ops.Add, _) -> true | _ -> false)
      && not (List.exists computed (Uop.toposort r.src.(0)))
    | _ -> false in
  match List.filter window_sum (reduce_kernels gx) with
  | [ ast ] ->
    let opts mode = heuristic_opts mode ast in
    check (opts Helpers.Cpu_fast = Opt.[ (UNROLL, 0); (UNROLL, 0); (UPCAST, 0) ])
      "CPU_OPT=fast: opts are not the window unrolled whole and the row of 10 upcast: %s"
      (String.concat " " (List.map (fun (o, n) -> Printf.sprintf "%s:%d" (Opt.opt_ops_to_string o) n)
                            (opts Helpers.Cpu_fast)));
    check (opts Helpers.Cpu_tinygrad = Opt.[ (UNROLL, 0) ])
      "CPU_OPT=tinygrad: opts are not tinygrad's one unroll";
    let count s sub = let n = String.length sub in
      let rec go i acc = if i + n > String.length s then acc
        else go (i + 1) (if String.sub s i n = sub then acc + 1 else acc) in go 0 0 in
    let fast = source_with Helpers.Cpu_fast 16 ast and tg = source_with Helpers.Cpu_tinygrad 16 ast in
    (* no reduce loop, and one modulo per row offset of the window (4): the columns' fold per lane *)
    check (not (has fast "Ridx") && count fast "%11" <= 4)
      "CPU_OPT=fast: a reduce loop or more than 4 modulos in\n%s" fast;
    check (has tg "for (int Ridx0 = 0; Ridx0 < 4;") "CPU_OPT=tinygrad: no reduce loop of 4 in\n%s" tg;
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
        let noopt = run_with ~noopt:1 ast in
        List.iter (fun vec -> same_buffers ~what:(Printf.sprintf "window sum CPU_VEC=%d" vec) noopt
                      (run_with ~vec ~noopt:0 ast)) [ 16; 8 ])
  | l -> fail "%d window-sum kernels, expected 1" (List.length l)

(* CPU_OPT=fast on a BatchNorm statistic: the sum of x (512, 32, 20, 20) over axes 0, 2 and 3, which the
   scheduler splits into partial sums per channel and pair of images and a sum of those. The partial sums'
   kernel reads runs of 800 floats; tinygrad's loop order has the channels outer (400 floats apart) and the
   pairs of images inner (25,600 apart). The fast mode swaps the two loops (one SWAP among the opts of the
   pipeline, none under CPU_OPT=tinygrad), and its buffers equal the NOOPT kernel's, with CPU_VEC=16 and 8. *)
let test_cpu_stream_order () =
  let x = Tensor.realize (Tensor.rand [| 512; 32; 20; 20 |]) in
  match reduce_kernels (Tensor.sum ~axis:[ 0; 2; 3 ] x) with
  | partial :: _ :: _ ->
    (* the opts of the whole pipeline (the kernel's ranges split and simplified before the heuristic) *)
    let swaps mode = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (cpu_vec, 16); Bind (noopt, 0) ]
        (fun () ->
          let prg = Codegen.to_program partial (Device.renderer "CPU") in
          match prg.Uop.src.(0).Uop.arg with
          | Uop.Kernel_info ki ->
            List.length (List.filter (fun (o : Opt.t) -> o.op = Opt.SWAP) ki.applied_opts)
          | _ -> fail "no Kernel_info") in
    check (swaps Helpers.Cpu_fast = 1) "CPU_OPT=fast: %d SWAPs, expected 1" (swaps Helpers.Cpu_fast);
    check (swaps Helpers.Cpu_tinygrad = 0) "CPU_OPT=tinygrad: a SWAP";
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
        let noopt = run_with ~noopt:1 partial in
        List.iter (fun vec -> same_buffers ~what:(Printf.sprintf "partial sums CPU_VEC=%d" vec) noopt
                      (run_with ~vec ~noopt:0 partial)) [ 16; 8 ])
  | l -> fail "%d reduce kernels, expected the partial sums and their sum" (List.length l)

(* the kernels of the input gradient of conv2d x w (loss = sum (y * y)) that hold a reduce inside a reduce *)
let input_grad_nested_kernels x w =
  let y = Tensor.conv2d x w in
  let gx = match Tensor.gradient (Tensor.sum (Tensor.mul y y)) [ x ] with [ g ] -> g | _ -> fail "one gradient expected" in
  List.filter (fun (ast : Uop.t) ->
      List.length (List.filter (fun (u : Uop.t) -> u.op == Ops.Reduce) (Uop.toposort ast)) >= 2) (reduce_kernels gx)

(* CPU_OPT=fast on the input gradient of a 3x3 convolution (x (8, 8, 10, 10), w (8, 8, 3, 3)): tinygrad's _pool
   backward is a reduce over the window of the gated product reduced over the output channels. The heuristic upcasts
   by 8 the batch (which the weight does not depend on) and the input channel (which the output gradient does not
   depend on), unrolls nothing, and the window-gated loads render branch-free; CPU_OPT=tinygrad keeps tinygrad's
   upcasts and gated loads. The opt'd buffers equal those of tinygrad's NOOPT kernel (the reference). *)
let test_cpu_nested_reduce_tile () =
  let x = Tensor.realize (Tensor.rand [| 8; 8; 10; 10 |]) and w = Tensor.realize (Tensor.rand [| 8; 8; 3; 3 |]) in
  match input_grad_nested_kernels x w with
  | [ ast ] ->
    let ren = Device.renderer "CPU" in
    let opts mode = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (cpu_vec, 16) ] (fun () ->
        let s = Postrange.create ast ren in
        Postrange.convert_loop_to_global s;
        List.filter_map (fun (o : Opt.t) -> match o.op, o.arg with
            | (Opt.UPCAST | Opt.UNROLL), Opt.Int n -> Some (o.op, n) | _ -> None)
          (Codegen.hand_coded_optimizations s).applied_opts) in
    check (opts Helpers.Cpu_fast = Opt.[ (UPCAST, 8); (UPCAST, 8) ]) "CPU_OPT=fast: opts are not two upcasts by 8";
    check (opts Helpers.Cpu_tinygrad <> opts Helpers.Cpu_fast) "CPU_OPT=tinygrad: the fast tile";
    let fast = source_with Helpers.Cpu_fast 16 ast and tg = source_with Helpers.Cpu_tinygrad 16 ast in
    check (has fast "({float t=*(") "CPU_OPT=fast: no branch-free gated load in\n%s" fast;
    check (not (has tg "({float")) "CPU_OPT=tinygrad: branch-free gated load in\n%s" tg;
    let reference = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_tinygrad) ] (fun () -> run_with ~noopt:1 ast) in
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
        same_buffers ~what:"conv input gradient" reference (run_with ~vec:16 ~noopt:0 ast))
  | l -> fail "%d kernels with a nested reduce, expected 1" (List.length l)

(* CPU_OPT=fast renders a gated load branch-free (renderer/cstyle.ml cpu_gated_load: the address is clamped and
   the value selected), tinygrad as a ternary; x (64) padded by one on each side, times 2, gives 0, 2x, 0 in both modes *)
let test_cpu_gated_load () =
  let x = Tensor.realize (Tensor.rand [| 64 |]) in
  let xs = Tensor.to_float_array x in
  let padded () = Tensor.mul (Tensor.pad x [| (1, 1) |]) (Tensor.scalar 2.) in
  let linear, _ = Tensor.linear_with_vars [ padded () ] in
  match List.filter (fun (u : Uop.t) -> u.op == Ops.Sink && (match u.arg with Uop.Kernel_info _ -> true | _ -> false))
          (Uop.toposort linear) with
  | [ ast ] ->
    let fast = source_with Helpers.Cpu_fast 16 ast and tg = source_with Helpers.Cpu_tinygrad 16 ast in
    check (has fast "({float t=*(") "CPU_OPT=fast: no branch-free gated load in\n%s" fast;
    check (not (has tg "({float")) "CPU_OPT=tinygrad: branch-free gated load in\n%s" tg;
    List.iter (fun mode ->
        let v = Helpers.context Helpers.[ Bind (cpu_opt, mode) ] (fun () -> Tensor.to_float_array (padded ())) in
        check (Array.length v = 66 && v.(0) = 0. && v.(65) = 0.) "pad: ends are not 0";
        Array.iteri (fun i xv -> check (v.(i + 1) = 2. *. xv) "pad: element %d is %g, expected %g" i v.(i + 1) (2. *. xv)) xs)
      Helpers.[ Cpu_fast; Cpu_tinygrad ]
  | l -> fail "%d kernels for pad times 2, expected 1" (List.length l)

(* CPU_OPT=fast renders the address of an element at a sum of indices as the buffer's pointer moved by the
   sum's terms, [(data1_64+Lidx0+3)], where tinygrad renders the sum first, [(data1_64+(Lidx0+3))]
   (Cstyle.cpu_index); both compute x[i+3] * 2 *)
let test_cpu_index_pointer_offset () =
  let x = Tensor.realize (Tensor.rand [| 64 |]) in
  let xs = Tensor.to_float_array x in
  let shifted () = Tensor.mul (Tensor.shrink x [| (3, 64) |]) (Tensor.scalar 2.) in
  let linear, _ = Tensor.linear_with_vars [ shifted () ] in
  let kernel (u : Uop.t) = u.op == Ops.Sink && (match u.arg with Uop.Kernel_info _ -> true | _ -> false) in
  match List.filter kernel (Uop.toposort linear) with
  | [ ast ] ->
    let fast = source_with Helpers.Cpu_fast 16 ast and tg = source_with Helpers.Cpu_tinygrad 16 ast in
    check (has fast "(*(data1_64+Lidx0+3))") "CPU_OPT=fast: the sum's parentheses kept in\n%s" fast;
    check (has tg "(*(data1_64+(Lidx0+3)))") "CPU_OPT=tinygrad: not tinygrad's index in\n%s" tg;
    List.iter (fun mode ->
        let v = Helpers.context Helpers.[ Bind (cpu_opt, mode) ] (fun () ->
            Tensor.to_float_array (shifted ())) in
        check (Array.length v = 61) "shrink: %d elements, expected 61" (Array.length v);
        Array.iteri (fun i y -> check (y = 2. *. xs.(i + 3)) "shrink: element %d is %g, expected %g" i y
                        (2. *. xs.(i + 3))) v)
      Helpers.[ Cpu_fast; Cpu_tinygrad ]
  | l -> fail "%d kernels for a shrink times 2, expected 1" (List.length l)

(* CPU_OPT=fast on the input gradient of a 5x5 convolution (x (8, 8, 12, 12), w (8, 8, 5, 5)): tinygrad's _pool
   backward sums a 6x6 window of masked sums over the output channels; the masked sums' loop runs only where the mask
   holds (Codegen.gate_reduce_loops: its bound is computed, "Ridx0 < alu.."), under CPU_OPT=tinygrad the bound stays
   the constant; the buffers equal the NOOPT kernel's *)
let test_cpu_gated_reduce_loops () =
  let x = Tensor.realize (Tensor.rand [| 8; 8; 12; 12 |]) and w = Tensor.realize (Tensor.rand [| 8; 8; 5; 5 |]) in
  match input_grad_nested_kernels x w with
  | [ ast ] ->
    (* a line "for (int RidxN = 0; RidxN < aluM; RidxN++) {" *)
    let computed_bound src = List.exists (fun line ->
        let line = String.trim line in
        has line "for (int Ridx" && has line "< alu") (String.split_on_char '\n' src) in
    let fast = source_with Helpers.Cpu_fast 16 ast and tg = source_with Helpers.Cpu_tinygrad 16 ast in
    check (computed_bound fast) "CPU_OPT=fast: no loop with a computed bound in\n%s" fast;
    check (not (computed_bound tg)) "CPU_OPT=tinygrad: a loop with a computed bound in\n%s" tg;
    let reference = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_tinygrad) ] (fun () -> run_with ~noopt:1 ast) in
    List.iter (fun vec -> Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
        same_buffers ~what:"conv input gradient" reference (run_with ~vec ~noopt:0 ast))) [ 16; 8 ]
  | l -> fail "%d kernels with a nested reduce, expected 1" (List.length l)

(* CPU_OPT=fast on the input gradient of a 5x5 convolution whose input rows are 16 and 24 wide (x (4, 8, h, h), w (8, 8,
   5, 5)): with CPU_VEC=16 the row is the vector axis, and the loads of the output gradient, gated lane by lane by
   the window, load under a mask of lanes (tg_maskload16; 24 = 16 + 8 lanes), their indices folded from the window's
   div and mod; with CPU_VEC=8 the heuristic keeps the 8x8 tile and loads no masked vector; CPU_OPT=tinygrad has
   neither. The buffers equal the NOOPT kernel's in every mode. *)
let test_cpu_lane_gated_loads () =
  List.iter (fun h ->
      let x = Tensor.realize (Tensor.rand [| 4; 8; h; h |]) and w = Tensor.realize (Tensor.rand [| 8; 8; 5; 5 |]) in
      match input_grad_nested_kernels x w with
      | [ ast ] ->
        let fast = source_with Helpers.Cpu_fast 16 ast in
        check (has fast "tg_maskload16(") "h=%d: no masked float16 load in\n%s" h fast;
        check (h <> 24 || has fast "tg_maskload8(") "h=%d: no masked float8 load in\n%s" h fast;
        check (not (has (source_with Helpers.Cpu_fast 8 ast) "tg_maskload")) "h=%d: CPU_VEC=8 loaded a masked vector" h;
        check (not (has (source_with Helpers.Cpu_tinygrad 16 ast) "tg_maskload")) "h=%d: CPU_OPT=tinygrad loaded a masked vector" h;
        let reference = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_tinygrad) ] (fun () -> run_with ~noopt:1 ast) in
        List.iter (fun vec -> Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
            same_buffers ~what:(Printf.sprintf "conv input gradient h=%d CPU_VEC=%d" h vec) reference (run_with ~vec ~noopt:0 ast)))
          [ 16; 8 ]
      | l -> fail "h=%d: %d kernels with a nested reduce, expected 1" h (List.length l)) [ 16; 24 ]

(* the lane tile with weights that are not finite: the input gradient of conv2d x w (x (2, 8, 16, 16), w (8, 8, 5, 5)
   holding an infinity and a NaN, loss sum (y * c) for a fixed c) under CPU_OPT=fast (masked loads of c's lanes, the
   weight selected per lane, loops gated by any lane) equals, NaN for NaN and infinity for infinity, the NOOPT
   kernel's under CPU_OPT=tinygrad *)
let test_cpu_lane_gated_nonfinite () =
  let w0 = Array.init (8 * 8 * 25) (fun i -> float_of_int ((i * 7) mod 11) /. 11. -. 0.5) in
  w0.(0) <- Float.infinity;
  w0.(8 * 25 + 13) <- Float.nan;
  let grad mode no = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (noopt, no); Bind (cpu_vec, 16) ] (fun () ->
      let x = Tensor.realize (Tensor.of_float_array [| 2; 8; 16; 16 |] (Array.init (2 * 8 * 256) (fun i -> float_of_int (i mod 13) /. 13.))) in
      let w = Tensor.realize (Tensor.of_float_array [| 8; 8; 5; 5 |] w0) in
      let c = Tensor.realize (Tensor.of_float_array [| 2; 8; 12; 12 |] (Array.init (2 * 8 * 144) (fun i -> float_of_int (i mod 5) -. 2.))) in
      match Tensor.gradient (Tensor.sum (Tensor.mul (Tensor.conv2d x w) c)) [ x ] with
      | [ g ] -> Tensor.to_float_array g
      | _ -> fail "one gradient expected") in
  let reference = grad Helpers.Cpu_tinygrad 1 and fast = grad Helpers.Cpu_fast 0 in
  let nonfinite = Array.fold_left (fun n v -> if Float.is_finite v then n else n + 1) 0 reference in
  check (nonfinite > 0 && nonfinite < Array.length reference) "the reference has %d non-finite values of %d" nonfinite (Array.length reference);
  Array.iteri (fun i r -> check (close r fast.(i)) "gradient[%d]: NOOPT %g, CPU_OPT=fast %g" i r fast.(i)) reference

(* Codegen_cpu.broadcast_gated_loads on a sum over r (8) of four upcast lanes l kept where l < 3,
   WHERE(l < 3, REDUCE(w[r] * o[r] * v[r + l], r), 0), each load gated: w's gate is the WHERE's and its index
   does not vary over l, so it loads where its gate holds in any lane (a gate without l); o's gate (l < 2) is
   not a clause of the WHERE's, and v's index varies over l: both keep their gates. A sum without the WHERE is
   left alone. *)
let test_cpu_broadcast_gated_loads_rule () =
  let l = Uop.range ~axis_type:Uop.Upcast (Uop.Sint 4) 1 in
  let r = Uop.range ~axis_type:Uop.Reduce (Uop.Sint 8) 0 in
  let g = Uop.lt l (Uop.const_int 3) in
  let buf slot = Uop.placeholder_param ~slot Dtype.Float32 16 in
  let w = Uop.index (buf 0) [ Uop.valid r g ]
  and o = Uop.index (buf 1) [ Uop.valid r (Uop.lt l (Uop.const_int 2)) ]
  and v = Uop.index (buf 2) [ Uop.valid (Uop.add r l) g ] in
  let sum = Uop.reduce (Uop.mul (Uop.mul w o) v) [ r ] in
  let gate_of slot root = match List.filter (fun (u : Uop.t) -> u.op == Ops.Index
                                && (Uop.param_arg u.src.(0)).slot = slot) (Uop.toposort root) with
    | [ i ] -> Uop.get_valid i.src.(1)
    | is -> fail "buffer %d: %d INDEX nodes, expected 1" slot (List.length is) in
  let out = Codegen_cpu.broadcast_gated_loads (Uop.where g sum (Uop.const_float ~dtype:Dtype.Float32 0.)) in
  check (not (List.memq l (Uop.ranges (gate_of 0 out)))) "w: its gate still varies over the lanes";
  check (gate_of 1 out == o.src.(1).src.(0)) "o: its gate (not the WHERE's) changed";
  check (gate_of 2 out == g) "v: its gate (an index varying over the lanes) changed";
  check (Codegen_cpu.broadcast_gated_loads sum == sum) "a sum without the WHERE changed"

(* CPU_OPT=fast on the input gradient of a 5x5 convolution with rows of 24 (x (4, 8, 24, 24), w (8, 8, 5, 5)),
   CPU_VEC=16: the weight, broadcast to the 24 lanes of a row, each lane gated by its window, loads once under
   one gate (Codegen_cpu.broadcast_gated_loads), no lane selecting it by a bitwise and
   ("__builtin_bit_cast(float, (int)(("), while the output gradient still loads under a mask of lanes; the
   buffers equal the NOOPT kernel's *)
let test_cpu_broadcast_gated_loads () =
  let x = Tensor.realize (Tensor.rand [| 4; 8; 24; 24 |]) in
  let w = Tensor.realize (Tensor.rand [| 8; 8; 5; 5 |]) in
  match input_grad_nested_kernels x w with
  | [ ast ] ->
    let fast = source_with Helpers.Cpu_fast 16 ast in
    check (has fast "tg_maskload16(") "no masked float16 load in\n%s" fast;
    check (not (has fast "__builtin_bit_cast(float, (int)((")) "a lane selects the weight in\n%s" fast;
    let reference =
      Helpers.context Helpers.[ Bind (cpu_opt, Cpu_tinygrad) ] (fun () -> run_with ~noopt:1 ast) in
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
        same_buffers ~what:"conv input gradient" reference (run_with ~vec:16 ~noopt:0 ast))
  | l -> fail "%d kernels with a nested reduce, expected 1" (List.length l)

(* CPU_OPT=fast, CPU_VEC=16 on the input gradient of a 5x5 convolution with rows of 24 (x (4, 8, 24, 24), w (8, 8,
   5, 5)) and of a 3x3 one with rows of 8 (x (4, 8, 8, 8), w (8, 8, 3, 3)): the register tile of the nested
   reduce keeps its sums in vector accumulators along the image row, 8 rows of the tile each a REG buffer of
   24 lanes (16 + 8, the row upcast as 3 x 8) or of 8, for the output channels' sum and for the window's
   (Codegen_cpu.tile_accumulators), where CPU_OPT=tinygrad keeps scalars; the kernel's buffers equal the
   NOOPT kernel's, and the whole gradient of sum (conv2d x w * c) equals a direct sum over the window and
   the output channels, dx[n, ci, y, x] = sum c[n, co, y - ky, x - kx] w[co, ci, ky, kx] *)
let test_cpu_nested_reduce_vector_accumulators () =
  List.iter (fun (h, k, lanes) ->
      let cin = 8 and cout = 8 and n = 4 in
      let oh = h - k + 1 in
      let xv = Array.init (n * cin * h * h) (fun i -> float_of_int ((i * 7) mod 13) /. 13. -. 0.5) in
      let wv = Array.init (cout * cin * k * k) (fun i -> float_of_int ((i * 5) mod 11) /. 11. -. 0.5) in
      let cv = Array.init (n * cout * oh * oh) (fun i -> float_of_int ((i * 3) mod 7) /. 7. -. 0.5) in
      let tensors () = (Tensor.realize (Tensor.of_float_array [| n; cin; h; h |] xv),
                        Tensor.realize (Tensor.of_float_array [| cout; cin; k; k |] wv),
                        Tensor.realize (Tensor.of_float_array [| n; cout; oh; oh |] cv)) in
      let x, w, _ = tensors () in
      (match input_grad_nested_kernels x w with
       | [ ast ] ->
         let fast = source_with Helpers.Cpu_fast 16 ast and tg = source_with Helpers.Cpu_tinygrad 16 ast in
         let acc i = Printf.sprintf "float buf%d[%d];" i lanes in
         check (has fast (acc 15) && not (has fast "buf16") && has fast "*((float8*)((buf")
           "h=%d: not 16 vector accumulators of %d lanes in\n%s" h lanes fast;
         check (not (has tg (acc 1))) "h=%d: CPU_OPT=tinygrad took vector accumulators" h;
         let reference = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_tinygrad) ] (fun () -> run_with ~noopt:1 ast) in
         Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
             same_buffers ~what:(Printf.sprintf "conv input gradient h=%d" h) reference (run_with ~vec:16 ~noopt:0 ast))
       | l -> fail "h=%d: %d kernels with a nested reduce, expected 1" h (List.length l));
      let got = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (cpu_vec, 16) ] (fun () ->
          let x, w, c = tensors () in
          match Tensor.gradient (Tensor.sum (Tensor.mul (Tensor.conv2d x w) c)) [ x ] with
          | [ g ] -> Tensor.to_float_array g
          | _ -> fail "one gradient expected") in
      Array.iteri (fun i g ->
          let xx = i mod h and yy = i / h mod h and ci = i / (h * h) mod cin and b = i / (h * h * cin) in
          let want = ref 0. in
          for co = 0 to cout - 1 do
            for ky = 0 to k - 1 do
              for kx = 0 to k - 1 do
                let oy = yy - ky and ox = xx - kx in
                if oy >= 0 && oy < oh && ox >= 0 && ox < oh then
                  want := !want +. cv.((((b * cout) + co) * oh + oy) * oh + ox)
                                   *. wv.((((co * cin) + ci) * k + ky) * k + kx)
              done
            done
          done;
          check (Float.abs (g -. !want) <= 1e-4 *. Float.max 1. (Float.abs !want))
            "h=%d: gradient[%d] is %g, the direct sum %g" h i g !want) got)
    [ (24, 5, 24); (8, 3, 8) ]

(* the weight gradient's kernels of conv2d x w, as loss = sum (y * y) *)
let weight_grad_kernels x w =
  let y = Tensor.conv2d x w in
  match Tensor.gradient (Tensor.sum (Tensor.mul y y)) [ w ] with [ g ] -> reduce_kernels g | _ -> fail "one gradient expected"

(* CPU_OPT=fast on the weight gradient of a 3x3 convolution with rows of 16 outputs (x (4, 3, 18, 18), w (8, 3, 3,
   3)): the reduce over n, oy and ox runs along ox, contiguous in dy and in x. The heuristic unrolls ox (16 lanes,
   one vector) and upcasts the output channel by 8 (3 input channels: no ci tile), and the codegen keeps one
   float16 accumulator per output channel (the REG buffers buf0..buf7 loaded and stored as float16); CPU_OPT=tinygrad
   takes tinygrad's upcasts and scalar accumulators. With CPU_VEC=8 (16 lanes are two float8 vectors: 8 outputs
   do not fit 8 registers) the tile takes 4 outputs. The opt'd buffers equal those of tinygrad's NOOPT kernel (the
   reference). *)
let test_cpu_conv_weight_grad () =
  let x = Tensor.realize (Tensor.rand [| 4; 3; 18; 18 |]) and w = Tensor.realize (Tensor.rand [| 8; 3; 3; 3 |]) in
  let tile = Opt.[ (UPCAST, 8); (UNROLL, 0) ] in
  match List.filter (fun ast -> heuristic_opts Helpers.Cpu_fast ast = tile) (weight_grad_kernels x w) with
  | [ ast ] ->
    check (heuristic_opts Helpers.Cpu_tinygrad ast <> tile) "CPU_OPT=tinygrad: the fast tile";
    let fast = source_with Helpers.Cpu_fast 16 ast and tg = source_with Helpers.Cpu_tinygrad 16 ast in
    check (has fast "float buf7[16];" && has fast "*((float16*)((buf7+0))) =") "CPU_OPT=fast: no float16 accumulators in\n%s" fast;
    check (not (has tg "float16")) "CPU_OPT=tinygrad: float16 in\n%s" tg;
    let v8 = source_with Helpers.Cpu_fast 8 ast in
    check (has v8 "float buf3[16];" && not (has v8 "buf4") && has v8 "*((float8*)((buf3+8))) =")
      "CPU_VEC=8: not 4 accumulators of two float8 in\n%s" v8;
    let reference = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_tinygrad) ] (fun () -> run_with ~noopt:1 ast) in
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
        List.iter (fun vec -> same_buffers ~what:(Printf.sprintf "conv weight gradient CPU_VEC=%d" vec) reference
                      (run_with ~vec ~noopt:0 ast)) [ 16; 8 ])
  | l -> fail "%d kernels with the weight gradient's tile, expected 1" (List.length l)

(* CPU_OPT=fast on a weight gradient whose reduce the scheduler splits over the batch (x (128, 2, 18, 18), w (4, 2,
   3, 3): a reduce of 32,768 per output): the heuristic upcasts the output channel by 4 and the input channel by 2
   (8 float16 accumulators), unrolls ox and swaps the split's batch axis outermost (the loop over the images runs
   outside the loops over the outputs). The opt'd buffers equal those of tinygrad's NOOPT kernel (the reference). *)
let test_cpu_conv_weight_grad_split () =
  let x = Tensor.realize (Tensor.rand [| 128; 2; 18; 18 |]) and w = Tensor.realize (Tensor.rand [| 4; 2; 3; 3 |]) in
  let is_tile = function Opt.[ (UPCAST, 4); (UPCAST, 2); (UNROLL, 0); (SWAP, _) ] -> true | _ -> false in
  let ks = weight_grad_kernels x w in
  match List.filter (fun ast -> is_tile (heuristic_opts Helpers.Cpu_fast ast)) ks with
  | [ ast ] ->
    let fast = source_with Helpers.Cpu_fast 16 ast in
    check (has fast "float buf7[16];") "CPU_OPT=fast: not 8 accumulators in\n%s" fast;
    let reference = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_tinygrad) ] (fun () -> run_with ~noopt:1 ast) in
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (num_cpu_threads, 2) ] (fun () ->
        same_buffers ~what:"split conv weight gradient" reference (run_with ~vec:16 ~noopt:0 ast))
  | l -> fail "%d kernels with the split weight gradient's tile, expected 1 (opts: %s)" (List.length l)
           (String.concat " | " (List.map (fun ast -> String.concat "," (List.map (fun (o, n) ->
                Printf.sprintf "%s %d" (Opt.opt_ops_to_string o) n) (heuristic_opts Helpers.Cpu_fast ast))) ks))

(* CPU_OPT=fast on a split weight gradient whose channel tiles leave loops (x (512, 8, 10, 10), w (8, 8, 3,
   3): the scheduler splits the reduce over the batch, the tile upcasts co and ci by 4 each, leaving loops of
   2): SWAPs put the channel loops right after the batch split and the window's loops (ky, kx, 3 each)
   innermost among the outputs, so the CPU loops run [128 (the split, its other half threaded); 2; 2; 3; 3],
   where the batch swap alone left co's loop last ([128; 2; 3; 3; 2]). CPU_OPT=tinygrad swaps nothing. The
   opt'd buffers equal those of the NOOPT kernel (the reference). *)
let test_cpu_conv_weight_grad_window_inner () =
  let x = Tensor.realize (Tensor.rand [| 512; 8; 10; 10 |]) in
  let w = Tensor.realize (Tensor.rand [| 8; 8; 3; 3 |]) in
  let loops mode ast = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (cpu_vec, 16) ] (fun () ->
      let s = Postrange.create ast (Device.renderer "CPU") in
      Postrange.convert_loop_to_global s;
      let h = Codegen.hand_coded_optimizations s in
      let fs = Array.of_list (Postrange.full_shape h) in
      List.map (fun a -> Postrange.sint_int fs.(a)) (Postrange.axes_of h [ Uop.Weak ])) in
  let split ast = List.length (loops Helpers.Cpu_fast ast) = 5 in
  match List.filter split (weight_grad_kernels x w) with
  | [ ast ] ->
    let got = loops Helpers.Cpu_fast ast in
    check (got = [ 128; 2; 2; 3; 3 ]) "CPU_OPT=fast: loops [%s], expected [128; 2; 2; 3; 3]"
      (String.concat "; " (List.map string_of_int got));
    check (not (List.mem_assoc Opt.SWAP (heuristic_opts Helpers.Cpu_tinygrad ast)))
      "CPU_OPT=tinygrad: a SWAP";
    let reference =
      Helpers.context Helpers.[ Bind (cpu_opt, Cpu_tinygrad) ] (fun () -> run_with ~noopt:1 ast) in
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (num_cpu_threads, 2) ] (fun () ->
        same_buffers ~what:"weight gradient, window loops inner" reference
          (run_with ~vec:16 ~noopt:0 ast))
  | l -> fail "%d split weight gradient kernels with 5 loops, expected 1" (List.length l)

(* CPU_OPT=fast, CPU_VEC=16, on the weight gradient of a 3x3 convolution with rows of 6 outputs (x (16, 8, 8,
   8), w (8, 8, 3, 3)): a row of 6 lanes takes two vectors (4 + 2), and so do 3 rows (18 = 16 + 2),
   contiguous in the output gradient (its oy strides it by 6): the heuristic unrolls ox whole and oy by 3,
   each of the 8 outputs of the tile (co 4 x ci 2) keeping an accumulator of 18 lanes. With CPU_VEC=8, 2 rows
   (12 = 8 + 4). Rows of 20 (x (2, 4, 22, 22)) take two vectors where two rows take three: ox alone is
   unrolled. The opt'd buffers equal the NOOPT kernel's (the reference). *)
let test_cpu_conv_weight_grad_rows () =
  (* the weight gradient's kernel: its innermost axis is the image row, the forward convolution's is kx *)
  let row_last ast = let s = Postrange.create ast (Device.renderer "CPU") in
    Postrange.sint_int (Helpers.last (Postrange.full_shape s)) > 3 in
  let only_tile x w = match List.filter row_last (weight_grad_kernels x w) with
    | [ ast ] -> ast
    | l -> fail "%d weight gradient kernels, expected 1" (List.length l) in
  let rand shape = Tensor.realize (Tensor.rand shape) in
  let ast = only_tile (rand [| 16; 8; 8; 8 |]) (rand [| 8; 8; 3; 3 |]) in
  let opts_str l =
    String.concat "," (List.map (fun (o, n) -> Printf.sprintf "%s %d" (Opt.opt_ops_to_string o) n) l) in
  let got = heuristic_opts Helpers.Cpu_fast ast in
  check (got = Opt.[ (UPCAST, 4); (UPCAST, 2); (UNROLL, 0); (UNROLL, 3) ])
    "CPU_VEC=16: opts %s" (opts_str got);
  let fast = source_with Helpers.Cpu_fast 16 ast in
  check (has fast "float buf7[18];" && not (has fast "buf8"))
    "CPU_VEC=16: not 8 accumulators of 18 lanes in\n%s" fast;
  let v8 = source_with Helpers.Cpu_fast 8 ast in
  check (has v8 "[12];") "CPU_VEC=8: no accumulator of 12 lanes in\n%s" v8;
  let reference =
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_tinygrad) ] (fun () -> run_with ~noopt:1 ast) in
  Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (num_cpu_threads, 2) ] (fun () ->
      List.iter (fun vec ->
          same_buffers ~what:(Printf.sprintf "weight gradient rows CPU_VEC=%d" vec) reference
            (run_with ~vec ~noopt:0 ast)) [ 16; 8 ]);
  let long = only_tile (rand [| 2; 4; 22; 22 |]) (rand [| 4; 4; 3; 3 |]) in
  let got = heuristic_opts Helpers.Cpu_fast long in
  check (List.length (List.filter (fun (o, _) -> o = Opt.UNROLL) got) = 1)
    "rows of 20: opts %s" (opts_str got)

(* an opt given by op, axis and amount *)
let o op axis arg = { Opt.op; axis = Some axis; arg = Opt.Int arg }

(* the scheduler of [ast] under CPU_OPT=[mode] and CPU_VEC=16 with [opts] applied; it takes the loop opts of the
   mode's passes, as Codegen's apply_opts gives them *)
let apply_in mode opts ast =
  let ren = Device.renderer "CPU" in
  Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (cpu_vec, 16); Bind (no_color, 1) ] @@ fun () ->
  let s = Postrange.create ~loop_opts:(Codegen.passes ren).loop_opts ast ren in
  Postrange.convert_loop_to_global s;
  List.iter (fun op -> ignore (Postrange.apply_opt s op)) opts;
  s

(* [opts] raise Kernel_opt_error on [ast] under CPU_OPT=[mode] *)
let refused_in ~what mode opts ast =
  match apply_in mode opts ast with
  | _ -> fail "%s: applied" what
  | exception Opt.Kernel_opt_error _ -> ()

(* the one reduce kernel of (64, 96) @ (96, 128) on random inputs *)
let small_matmul_kernel () =
  let a = Tensor.realize (Tensor.rand [| 64; 96 |]) and b = Tensor.realize (Tensor.rand [| 96; 128 |]) in
  match reduce_kernels (Tensor.matmul a b) with
  | [ ast ] -> ast
  | l -> fail "%d reduce kernels, expected 1" (List.length l)

(* the CPU source of an optimized kernel AST under CPU_OPT=[mode] and CPU_VEC=[vec] *)
let optimized_source mode vec opt_ast =
  Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (cpu_vec, vec); Bind (no_color, 1) ]
    (fun () -> Codegen.program_source (Codegen.to_program opt_ast (Device.renderer "CPU")))

(* BLOCK (not in tinygrad, CPU_OPT=fast only) on a (64, 96) @ (96, 128) matmul with the 8x16 register tile and two
   threads: BLOCK 2 on the column loop (8 tiles) makes an outer loop of 4 blocks, rendered first, above the rows'
   loop; the buffers equal the NOOPT kernel's. Under CPU_OPT=tinygrad, on the reduce axis, with a block that does not
   divide the loop or that is the whole loop, the opt is refused. *)
let test_cpu_block () =
  let ast = small_matmul_kernel () in
  let tile = Opt.[ o UPCAST 1 16; o UPCAST 0 8; o THREAD 0 2 ] in
  let refused mode opts what = refused_in ~what:("BLOCK " ^ what) mode opts ast in
  let s = apply_in Helpers.Cpu_fast (tile @ [ o Opt.BLOCK 1 2 ]) ast in
  check (List.map (Postrange.sint_int) (Postrange.full_shape s) = [ 4; 4; 2; 2; 16; 8; 96 ])
    "BLOCK 2: shape [%s], expected the block loop first" (Postrange.colored_shape s);
  let opt_ast = Postrange.get_optimized_ast s in
  let src = optimized_source Helpers.Cpu_fast 16 opt_ast in
  let first_for = List.find_opt (fun l -> has l "for (") (String.split_on_char '\n' src) in
  check (match first_for with Some l -> has l "(int Lidxm1 = 0; Lidxm1 < 4;" | None -> false)
    "the first loop is not the block loop in\n%s" src;
  Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
      same_buffers ~what:"BLOCK" (run_with ~noopt:1 ast) (run_with ~vec:16 ~noopt:0 opt_ast));
  refused Helpers.Cpu_tinygrad (tile @ [ o Opt.BLOCK 1 2 ]) "under CPU_OPT=tinygrad";
  refused Helpers.Cpu_fast (tile @ [ o Opt.BLOCK 3 2 ]) "on the reduce axis";
  refused Helpers.Cpu_fast (tile @ [ o Opt.BLOCK 1 3 ]) "of 3 on a loop of 8";
  refused Helpers.Cpu_fast (tile @ [ o Opt.BLOCK 1 8 ]) "of the whole loop"

(* CPU_OPT=fast keeps a register tile's accumulators as vectors, one REG buffer of 16 lanes per row of the
   tile's unit-stride axis: (64, 96) @ (96, 128) with the 8x32 tile (UPCAST 16 and 2 of the columns, 8 rows)
   and CPU_VEC=16 has 16 accumulators (buf0..buf15), each loaded and stored as a float16 in the loop, updated
   by a vector op. Not
   where the rows of vectors would take more than half the registers (CPU_VEC=8: 32 vectors of 8 lanes), nor
   under CPU_OPT=tinygrad: one buffer of 256 scalars. The buffers equal the NOOPT kernel's in the three. *)
let test_cpu_tile_accumulators () =
  let ast = small_matmul_kernel () in
  let tile = Opt.[ o UPCAST 1 16; o UPCAST 0 8; o UPCAST 1 2 ] in
  let noopt = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () -> run_with ~noopt:1 ast) in
  List.iter (fun (mode, vec, vector_accs) ->
      let opt_ast = Postrange.get_optimized_ast (apply_in mode tile ast) in
      let src = optimized_source mode vec opt_ast in
      let what = Printf.sprintf "CPU_OPT=%s CPU_VEC=%d"
          (if mode = Helpers.Cpu_fast then "fast" else "tinygrad") vec in
      if vector_accs then
        check (has src "float buf15[16];" && not (has src "buf16")
               && has src "*((float16*)((buf15+0))) = ((*((float16*)((buf15+0))))+(")
          "%s: not 16 float16 accumulators in\n%s" what src
      else check (has src "float buf0[256];" && not (has src "buf1"))
          "%s: not one scalar accumulator in\n%s" what src;
      Helpers.context Helpers.[ Bind (cpu_opt, mode) ] (fun () ->
          same_buffers ~what noopt (run_with ~vec ~noopt:0 opt_ast)))
    Helpers.[ (Cpu_fast, 16, true); (Cpu_fast, 8, false); (Cpu_tinygrad, 16, false) ]

(* the vector accumulators of a CPU source that are read before any store of a value that does not read them
   (their initial store), in the order of the source's lines *)
let uninitialized_accumulators src =
  let lines = String.split_on_char '\n' src in
  let declared = List.filter_map (fun l ->
      try Scanf.sscanf (String.trim l) "float buf%d[%d];%!" (fun n _ -> Some n) with _ -> None) lines in
  List.filter (fun n ->
      let at = Printf.sprintf "*((float16*)((buf%d+0)))" n in
      let read = "(" ^ at ^ ")" in
      let rec first = function
        | [] -> true
        | l :: rest ->
          (match String.index_opt l '=' with
           | Some i when has (String.sub l 0 i) at ->
             not (has (String.sub l (i + 1) (String.length l - i - 1)) read)
           | _ -> if has l read then false else first rest) in
      not (first lines)) declared

(* CPU_OPT=fast on a (3, 32) padded to (8, 32), @ b (32, 32), with the 8x16 register tile (UPCAST 16 of the
   columns, 8 rows): the rows 3 to 7 load a only under a gate that never holds, so their update folds away
   (a + 0 stored where it was loaded); each of the 8 float16 accumulators is still stored its 0 before the
   value after the loop is read, and the buffers equal the NOOPT kernel's *)
let test_cpu_tile_accumulators_gated () =
  let a = Tensor.realize (Tensor.rand [| 3; 32 |]) and b = Tensor.realize (Tensor.rand [| 32; 32 |]) in
  match reduce_kernels (Tensor.matmul (Tensor.pad a [| (0, 5); (0, 0) |]) b) with
  | [ ast ] ->
    let tile = [ o Opt.UPCAST 1 16; o Opt.UPCAST 0 8 ] in
    let opt_ast = Postrange.get_optimized_ast (apply_in Helpers.Cpu_fast tile ast) in
    let src = optimized_source Helpers.Cpu_fast 16 opt_ast in
    check (has src "float buf7[16];" && not (has src "buf8")) "not 8 float16 accumulators in\n%s" src;
    (match uninitialized_accumulators src with
     | [] -> ()
     | l -> fail "accumulators %s read without their initial store in\n%s"
              (String.concat ", " (List.map string_of_int l)) src);
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
        same_buffers ~what:"padded rows" (run_with ~noopt:1 ast) (run_with ~vec:16 ~noopt:0 opt_ast))
  | l -> fail "%d reduce kernels, expected 1" (List.length l)

(* CPU_OPT=fast on a (64, 1024) @ b (1024, 1024) (b: 4 MiB in rows of 4 KiB): the scheduler copies b into
   rows of 1,040 floats (a cache line of padding) and the matmul reads the copy: two kernels, the matmul's b
   a buffer of 1,064,960 floats, and the product of tinygrad's kernels (CPU_OPT=tinygrad NOOPT=1). Not under
   CPU_OPT=tinygrad nor NOOPT (asked after the fast schedule of the same graph), nor where b's rows are not a
   multiple of 4 KiB (1024 x 1040) or b is under 4 MiB (512 x 1024): one kernel. *)
let test_cpu_pad_rows () =
  let kernel (u : Uop.t) = u.op == Ops.Sink && (match u.arg with Uop.Kernel_info _ -> true | _ -> false) in
  let kernels ?(no = 0) mode t = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (noopt, no) ] (fun () ->
      let linear, _ = Tensor.linear_with_vars [ t ] in
      List.filter kernel (Uop.toposort linear)) in
  let a = Tensor.realize (Tensor.rand [| 64; 1024 |]) in
  let b = Tensor.realize (Tensor.rand [| 1024; 1024 |]) in
  (* scheduled, a tensor holds its output buffer: a new product for each schedule *)
  (match kernels Helpers.Cpu_fast (Tensor.matmul a b) with
   | [ _; matmul ] ->
     let src = source_with Helpers.Cpu_fast 16 matmul in
     check (has src "_1064960") "the matmul does not read the padded copy of b in\n%s" src
   | l -> fail "CPU_OPT=fast: %d kernels, expected the copy and the matmul" (List.length l));
  let one what n = check (n = 1) "%s: %d kernels, expected 1" what n in
  one "CPU_OPT=tinygrad" (List.length (kernels Helpers.Cpu_tinygrad (Tensor.matmul a b)));
  one "NOOPT=1" (List.length (kernels ~no:1 Helpers.Cpu_fast (Tensor.matmul a b)));
  List.iter (fun (k, n) ->
      let b = Tensor.realize (Tensor.rand [| k; n |]) and a = Tensor.realize (Tensor.rand [| 64; k |]) in
      one (Printf.sprintf "b %dx%d" k n) (List.length (kernels Helpers.Cpu_fast (Tensor.matmul a b))))
    [ (1024, 1040); (512, 1024) ];
  (* a matrix-vector product, or too few rows of A, reads b too few times to pay for the copy *)
  List.iter (fun m ->
      let a = Tensor.realize (Tensor.rand [| m; 1024 |]) in
      one (Printf.sprintf "a %dx1024" m) (List.length (kernels Helpers.Cpu_fast (Tensor.matmul a b))))
    [ 1; 32 ];
  (* realized, the product becomes a buffer in every tensor that holds it: after the counts *)
  let product mode no = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (noopt, no) ] (fun () ->
      Tensor.to_float_array (Tensor.matmul a b)) in
  let want = product Helpers.Cpu_tinygrad 1 and got = product Helpers.Cpu_fast 0 in
  Array.iteri (fun i v -> check (Float.abs (v -. got.(i)) <= 1e-4 *. Float.abs v)
                  "a @ b [%d]: tinygrad %g, CPU_OPT=fast %g" i v got.(i)) want

(* the kernel ASTs of the schedule that realizes [t] under CPU_OPT=[mode] *)
let scheduled_kernels ?(mode = Helpers.Cpu_fast) t = Helpers.context Helpers.[ Bind (cpu_opt, mode) ] (fun () ->
    let linear, _ = Tensor.linear_with_vars [ t ] in
    List.filter (fun (u : Uop.t) ->
        u.op == Ops.Sink && (match u.arg with Uop.Kernel_info _ -> true | _ -> false))
      (Uop.toposort linear))

(* the kernels of [ks] with a REDUCE *)
let with_reduce = List.filter (fun k -> List.exists (fun (v : Uop.t) -> v.op == Ops.Reduce) (Uop.toposort k))

(* the opts that the CPU mode's heuristic gives [ast] with CPU_VEC=16 *)
let fast_opts ast = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (cpu_vec, 16) ] (fun () ->
    let ren = Device.renderer "CPU" in
    let s = Postrange.create ~loop_opts:(Codegen.passes ren).loop_opts ast ren in
    Postrange.convert_loop_to_global s;
    List.map our_opt (Codegen.hand_coded_optimizations s).applied_opts)

(* the values of [t ()] computed under CPU_OPT=fast with CPU_VEC=16 *)
let fast_values t = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (cpu_vec, 16) ] (fun () ->
    Tensor.to_float_array (t ()))

(* [got] against [want i], each the direct sum of an oracle, within 1e-4 relative *)
let matches_direct_sum what got want =
  Array.iteri (fun i g -> let w = want i in
                check (Float.abs (g -. w) <= 1e-4 *. Float.max 1. (Float.abs w))
                  "%s[%d] is %g, the direct sum %g" what i g w) got

(* the sum of [f a b c] over a < n1, b < n2, c < n3 *)
let sum3 n1 n2 n3 f =
  let acc = ref 0. in
  for a = 0 to n1 - 1 do for b = 0 to n2 - 1 do for c = 0 to n3 - 1 do acc := !acc +. f a b c done done done;
  !acc

(* the CPU mode's opts for [ast] start with [want] *)
let fast_opts_start ast want =
  let opts = fast_opts ast in
  check (Helpers.take (List.length want) opts = want) "opts [%s], expected them to start with [%s]"
    (String.concat " " opts) (String.concat " " want)

(* [ast]'s buffers under CPU_OPT=fast with CPU_VEC=16 and 8 equal its NOOPT kernel's *)
let same_as_noopt ?(what = "") ast = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
    let noopt = run_with ~noopt:1 ast in
    List.iter (fun vec -> same_buffers ~what:(Printf.sprintf "%s CPU_VEC=%d" what vec) noopt
                  (run_with ~vec ~noopt:0 ast)) [ 16; 8 ])

(* [ast] rendered under CPU_OPT=fast with CPU_VEC=16 keeps [n] float16 accumulators updated by vector ops *)
let float16_accumulators what n ast =
  let src = source_with Helpers.Cpu_fast 16 ast in
  let last = Printf.sprintf "buf%d" (n - 1) in
  check (has src (Printf.sprintf "float %s[16];" last) && not (has src (Printf.sprintf "buf%d" n))
         && has src (Printf.sprintf "*((float16*)((%s+0))) = ((*((float16*)((%s+0))))+(" last last))
    "%s: not %d float16 accumulators updated by vector ops in\n%s" what n src

(* CPU_OPT=fast on conv2d of x (2, 32, 10, 10) with w (32, 32, 3, 3) (a reduce of 288 points, 32 output
   channels, 128 output points per channel): the weight, read with its output channels 288 floats apart, is
   read through a channels-last copy (a kernel of its own, Rangeify_cpu), and the convolution gets the
   implicit-GEMM tile: with CPU_VEC=16 the 32 output channels upcast by 16 (the lanes) and the 8 output
   columns by 8 (the rows); its accumulators are float16 vectors updated by vector ops (no update built lane
   by lane). The convolution kernel's buffers equal the NOOPT kernel's with CPU_VEC=16 and 8, and the tensor
   equals the one computed under NOOPT=1 (no copy, tinygrad's kernel). A padded image (padding 1: rows of
   10) takes the copy and the tile too, and is read through a padded copy of its own: the convolution's loads
   are ungated, and its tensor equals the NOOPT one. No copy: with 4 input channels (36
   points), 24 output channels (not a multiple of 16), 16 output points per channel (x (1, 32, 6, 6)), an
   output row of 17 points (no rows for the tile divide it), under CPU_OPT=tinygrad (and no float16 there),
   and with a weight stored channels-last, w' (32, 3, 3, 32) permuted to (32, 32, 3, 3), which the
   convolution reads contiguously along its output channels: it takes the channel-lane tile without a copy
   of the weight, with a padded image too (read through the image's padded copy). *)
let test_cpu_conv_channel_lanes () =
  let kernels = scheduled_kernels in
  let channel_lanes ?(rows = 8) what ast =
    let opts = fast_opts ast in
    (* the 32 channels as two vectors per row: the channel loop is taken whole, the row axis moves left *)
    check (Helpers.take 3 opts = [ "UPCAST:1:16"; "UPCAST:1:2"; Printf.sprintf "UPCAST:2:%d" rows ])
      "%s: opts [%s]" what (String.concat " " opts);
    let fast = source_with Helpers.Cpu_fast 16 ast in
    check (has fast "*((float16*)((buf0+0))) = ((*((float16*)((buf0+0))))+(")
      "%s: no float16 accumulator updated by a vector op in\n%s" what fast;
    check (not (has fast "(float16){(")) "%s: an update built lane by lane in\n%s" what fast;
    same_as_noopt ~what ast in
  let x = Tensor.realize (Tensor.rand [| 2; 32; 10; 10 |]) in
  let w = Tensor.realize (Tensor.rand [| 32; 32; 3; 3 |]) in
  let ks = kernels (Tensor.conv2d x w) in
  (match ks, with_reduce ks with
   | [ _; _ ], [ ast ] -> channel_lanes "channels-last copy" ast
   | ks, rs -> fail "channels-last copy: %d kernels (%d reduce), expected 2 (1)" (List.length ks)
                 (List.length rs));
  let conv mode no = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (noopt, no) ] (fun () ->
      Tensor.to_float_array (Tensor.conv2d x w)) in
  let want = conv Helpers.Cpu_fast 1 and got = conv Helpers.Cpu_fast 0 in
  Array.iteri (fun i v -> check (close v got.(i)) "conv2d [%d]: NOOPT %g, CPU_OPT=fast %g" i v got.(i)) want;
  let one what ks =
    check (List.length ks = 1) "%s: %d kernels, expected 1 (no copy)" what (List.length ks) in
  let rand s = Tensor.realize (Tensor.rand s) in
  one "4 input channels" (kernels (Tensor.conv2d (rand [| 2; 4; 10; 10 |]) (rand [| 32; 4; 3; 3 |])));
  one "24 output channels" (kernels (Tensor.conv2d x (rand [| 24; 32; 3; 3 |])));
  one "16 output points" (kernels (Tensor.conv2d (rand [| 1; 32; 6; 6 |]) w));
  (match kernels (Tensor.conv2d ~padding:1 x w) with
   | [ _; _; _ ] as ks ->
     List.iter (fun ast ->
         let fast = source_with Helpers.Cpu_fast 16 ast in
         check (not (has fast "?") && not (has fast "maskload")) "padded image: a gated load in\n%s" fast;
         channel_lanes ~rows:5 "padded image, channels-last copy" ast) (with_reduce ks)
   | ks -> fail "padded image: %d kernels, expected 3 (the weight's and the image's copies)"
             (List.length ks));
  let padded mode no = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (noopt, no) ] (fun () ->
      Tensor.to_float_array (Tensor.conv2d ~padding:1 x w)) in
  let want = padded Helpers.Cpu_fast 1 and got = padded Helpers.Cpu_fast 0 in
  Array.iteri (fun i v -> check (close v got.(i)) "padded conv2d [%d]: NOOPT %g, CPU_OPT=fast %g" i v got.(i))
    want;
  one "an output row of 17" (kernels (Tensor.conv2d (rand [| 2; 32; 19; 19 |]) w));
  (match kernels ~mode:Helpers.Cpu_tinygrad (Tensor.conv2d x w) with
   | [ ast ] -> check (not (has (source_with Helpers.Cpu_tinygrad 16 ast) "float16"))
                  "CPU_OPT=tinygrad rendered float16"
   | ks -> fail "CPU_OPT=tinygrad: %d kernels, expected 1" (List.length ks));
  let w_last = Tensor.permute (rand [| 32; 3; 3; 32 |]) [| 3; 0; 1; 2 |] in
  (match kernels (Tensor.conv2d x w_last) with
   | [ ast ] -> channel_lanes "weight stored channels-last" ast
   | ks -> fail "weight stored channels-last: %d kernels, expected 1" (List.length ks));
  match kernels (Tensor.conv2d ~padding:1 x w_last) with
  | [ _; _ ] as ks ->
    List.iter (channel_lanes ~rows:5 "weight stored channels-last, padded image") (with_reduce ks)
  | ks -> fail "weight stored channels-last, padded: %d kernels, expected 2 (the image's copy)"
            (List.length ks)

(* the channel-lane tile's vectors per row and rows (Heuristic_cpu.channel_lane_tile), hand-derived from 16
   accumulator registers with 16-lane vectors (8 with 8-lane ones) and the rows from 4 up: 64 channels on a
   row of 8 take 4 vectors of 4 rows, on a row of 6 2 of 6 (no divisor of 6 from 4 to 16 / 4); 32 channels
   on a row of 20 2 of 5; a row of 26 (divisors 2 and 13) and 48 channels (not a multiple of 32) one vector
   on channel_lane_rows; 8-lane vectors with 64 channels on a row of 8: 2 of 4. Then, CPU_OPT=fast with
   CPU_VEC=16 on conv2d of relu x (2, 32, 10, 10) with w (64, 32, 3, 3) (a row of 8): opts UPCAST 16 and 4
   on the channels, 4 on the row; 16 float16 accumulators updated by vector ops; the kernel's buffers equal
   the NOOPT kernel's with CPU_VEC=16 and 8, and the tensor equals a direct sum over the input channels and
   the window, y[n, co, oy, ox] = sum relu(x[n, ci, oy + ky, ox + kx]) w[co, ci, ky, kx]. CPU_OPT=tinygrad
   renders no float16. *)
let test_cpu_channel_lane_vectors () =
  List.iter (fun (widest, channels, sz, want) ->
      let got = Heuristic_cpu.channel_lane_tile ~widest ~channels sz in
      let show = function None -> "none" | Some (v, r) -> Printf.sprintf "%d x %d" v r in
      check (got = want) "channel_lane_tile ~widest:%d ~channels:%d %d: %s, expected %s" widest channels sz
        (show got) (show want))
    [ (16, 64, 8, Some (4, 4)); (16, 64, 6, Some (2, 6)); (16, 32, 20, Some (2, 5));
      (16, 64, 26, Some (1, 13)); (16, 48, 8, Some (1, 8)); (16, 64, 17, None); (8, 64, 8, Some (2, 4)) ];
  let n = 2 and cin = 32 and cout = 64 and h = 10 and k = 3 in
  let oh = h - k + 1 in
  let xv = Array.init (n * cin * h * h) (fun i -> float_of_int ((i * 7) mod 13) /. 13. -. 0.5) in
  let wv = Array.init (cout * cin * k * k) (fun i -> float_of_int ((i * 5) mod 11) /. 11. -. 0.5) in
  let conv () = Tensor.conv2d (Tensor.relu (Tensor.realize (Tensor.of_float_array [| n; cin; h; h |] xv)))
      (Tensor.realize (Tensor.of_float_array [| cout; cin; k; k |] wv)) in
  (match with_reduce (scheduled_kernels (conv ())) with
   | [ ast ] ->
     fast_opts_start ast [ "UPCAST:1:16"; "UPCAST:1:4"; "UPCAST:2:4" ];
     float16_accumulators "4 x 4 tile" 16 ast;
     check (not (has (source_with Helpers.Cpu_tinygrad 16 ast) "float16")) "CPU_OPT=tinygrad rendered float16";
     same_as_noopt ast
   | ks -> fail "%d reduce kernels, expected 1" (List.length ks));
  matches_direct_sum "y" (fast_values conv) (fun i ->
      let ox = i mod oh and oy = i / oh mod oh and co = i / (oh * oh) mod cout and b = i / (oh * oh * cout) in
      sum3 cin k k (fun ci ky kx -> Float.max 0. xv.((((b * cin) + ci) * h + oy + ky) * h + ox + kx)
                                    *. wv.((((co * cin) + ci) * k + ky) * k + kx)))

(* CPU_OPT=fast on the weight gradient of sum (conv2d x w * g), x (8, 32, 14, 14), w (32, 32, 5, 5), g (8,
   32, 10, 10) (a reduce over the batch and 10 x 10 output points, which the scheduler splits into groups of
   the batch with REDUCEOP_SPLIT_THRESHOLD=256; rows of 10, which fill no vector): g is read through a
   channels-last copy (one more kernel without a reduce, Rangeify_cpu.gradient_channels_last), and the weight
   gradient takes the tile whose lanes are the output channels (Heuristic_cpu.cpu_wgrad_channel_lanes): the
   32 channels upcast by 16 and 2, the window's 5 columns whole, the batch's groups swapped outermost; its 10
   accumulators are float16 vectors updated by vector ops. The kernel's buffers equal the NOOPT kernel's with
   CPU_VEC=16 and 8, and the gradient equals a direct sum, dw[co, ci, ky, kx] = sum g[n, co, oy, ox] x[n, ci,
   oy + ky, ox + kx]. No copy: under CPU_OPT=tinygrad, on rows of 8 (x (8, 32, 12, 12): two rows to a
   vector), with 24 output channels. *)
let test_cpu_wgrad_channel_lanes () =
  (* the scheduler splits a reduce of at least this many points per output (beautiful_mnist's 5x5 weight
     gradient has 204,800; tinygrad's threshold is 32,768) *)
  Helpers.context Helpers.[ Bind (reduceop_split_threshold, 256) ] @@ fun () ->
  let n = 8 and cin = 32 and cout = 32 and h = 14 and k = 5 in
  let oh = h - k + 1 in
  let xv = Array.init (n * cin * h * h) (fun i -> float_of_int ((i * 7) mod 13) /. 13. -. 0.5) in
  let wv = Array.init (cout * cin * k * k) (fun i -> float_of_int ((i * 5) mod 11) /. 11. -. 0.5) in
  let gv = Array.init (n * cout * oh * oh) (fun i -> float_of_int ((i * 3) mod 7) /. 7. -. 0.5) in
  let wgrad ?(h = h) ?(cout = cout) () =
    let oh = h - k + 1 in
    let t s a = Tensor.realize (Tensor.of_float_array s (Array.sub a 0 (Array.fold_left ( * ) 1 s))) in
    let w = t [| cout; cin; k; k |] wv in
    let y = Tensor.conv2d (t [| n; cin; h; h |] xv) w in
    match Tensor.gradient (Tensor.sum (Tensor.mul y (t [| n; cout; oh; oh |] gv))) [ w ] with
    | [ dw ] -> dw
    | _ -> fail "one gradient expected" in
  let count ?(mode = Helpers.Cpu_fast) t = let ks = scheduled_kernels ~mode t in
    (List.length ks, List.length (with_reduce ks)) in
  let fast = count (wgrad ()) and tg = count ~mode:Helpers.Cpu_tinygrad (wgrad ()) in
  check (fst fast = fst tg + 1 && snd fast = snd tg)
    "kernels (reduces) %d (%d), CPU_OPT=tinygrad %d (%d): expected one more without a reduce (the copy)"
    (fst fast) (snd fast) (fst tg) (snd tg);
  let no_copy what t = let f = count (t ()) and tg = count ~mode:Helpers.Cpu_tinygrad (t ()) in
    check (f = tg) "%s: %d kernels, CPU_OPT=tinygrad %d: expected no copy" what (fst f) (fst tg) in
  no_copy "rows of 8" (wgrad ~h:12);
  no_copy "24 output channels" (wgrad ~cout:24);
  let tile = List.filter (fun ast -> has (source_with Helpers.Cpu_fast 16 ast) "float buf9[16];")
      (with_reduce (scheduled_kernels (wgrad ()))) in
  (match tile with
   | [ ast ] ->
     fast_opts_start ast [ "UPCAST:0:16"; "UPCAST:0:2"; "UPCAST:2:0"; "SWAP:0:2" ];
     float16_accumulators "weight gradient" 10 ast;
     same_as_noopt ast
   | l -> fail "%d reduce kernels with 10 float16 accumulators, expected 1" (List.length l));
  matches_direct_sum "dw" (fast_values (fun () -> wgrad ())) (fun i ->
      let kx = i mod k and ky = i / k mod k and ci = i / (k * k) mod cin and co = i / (k * k * cin) in
      sum3 n oh oh (fun b oy ox -> gv.((((b * cout) + co) * oh + oy) * oh + ox)
                                   *. xv.((((b * cin) + ci) * h + oy + ky) * h + ox + kx)))

(* CPU_OPT=fast reads a padded image through a contiguous padded copy where the convolution's reduce has at
   least 256 points: the weight gradient of conv2d of x (2, 32, 10, 10) padded by 1 with w (16, 32, 3, 3) (a
   reduce over the batch and the 10x10 output: 200 points, not copied) and of x (4, 32, 10, 10) (400
   points: copied), and the forward conv2d of x (2, 32, 10, 10) with
   w (24, 32, 3, 3) (288 points, 24 output channels: no channel-lane tile, the copy of the image alone). With
   the copy, the reduce kernels load nothing under a gate, and every tensor equals the NOOPT one. A 3x3
   convolution of one input channel (9 points) keeps its gated loads. *)
let test_cpu_padded_image () =
  let kernels t = scheduled_kernels t in
  let rand s = Tensor.realize (Tensor.rand s) in
  let gated ast = let src = source_with Helpers.Cpu_fast 16 ast in has src "?" || has src "maskload" in
  let equal_noopt what f =
    let run no = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (noopt, no) ] (fun () ->
        Tensor.to_float_array (f ())) in
    let want = run 1 and got = run 0 in
    Array.iteri (fun i v ->
        check (close v got.(i)) "%s [%d]: NOOPT %g, CPU_OPT=fast %g" what i v got.(i)) want in
  let case what ~copied f =
    let ks = kernels (f ()) in
    let image_copy = List.exists (fun k -> not (List.memq k (with_reduce ks)) && gated k) ks in
    check (image_copy = copied) "%s: a padded copy %b, expected %b" what image_copy copied;
    List.iter (fun ast -> check (gated ast <> copied) "%s: gated loads %b in the reduce kernel" what
                  (gated ast)) (with_reduce ks);
    equal_noopt what f in
  let w16 = rand [| 16; 32; 3; 3 |] in
  (* the gradient of sum(conv2d x w16 * g) with respect to w16 *)
  let wgrad x g =
    List.hd (Tensor.gradient (Tensor.sum (Tensor.mul (Tensor.conv2d ~padding:1 x w16) g)) [ w16 ]) in
  let x2 = rand [| 2; 32; 10; 10 |] and x4 = rand [| 4; 32; 10; 10 |] in
  let g2 = rand [| 2; 16; 10; 10 |] and g4 = rand [| 4; 16; 10; 10 |] in
  case "weight gradient, 200 points" ~copied:false (fun () -> wgrad x2 g2);
  case "weight gradient, 400 points" ~copied:true (fun () -> wgrad x4 g4);
  let w24 = rand [| 24; 32; 3; 3 |] in
  case "24 output channels" ~copied:true (fun () -> Tensor.conv2d ~padding:1 x2 w24);
  let x1 = rand [| 2; 1; 28; 28 |] and w1 = rand [| 32; 1; 3; 3 |] in
  case "one input channel" ~copied:false (fun () -> Tensor.conv2d ~padding:1 x1 w1)

(* OVERLAP (not in tinygrad, CPU_OPT=fast only) on conv2d of x (4, 4, 28, 28) with w (8, 4, 3, 3): its 26
   output columns become 2 tiles of 16 lanes starting at 0 and 10 (the hand-coded opts of CPU_VEC=16 pick
   it; CPU_OPT=tinygrad's do not), or 3 tiles of 12 starting at 0, 7 and 14; the buffers equal the NOOPT
   kernel's. Refused: under CPU_OPT=tinygrad, on the reduce axis, lanes that divide the loop (13) or
   whose tiles do not start on a common step (11: 3 tiles, 15 points apart), more than 16 lanes, and on a
   kernel that loads an input at the point it stores (a += sum b: its two PARAMs are one buffer at run
   time, and a second tile would read what the first wrote). *)
let test_cpu_overlap () =
  let x = Tensor.realize (Tensor.rand [| 4; 4; 28; 28 |]) in
  let w = Tensor.realize (Tensor.rand [| 8; 4; 3; 3 |]) in
  let ren = Device.renderer "CPU" in
  let refused mode opts ast what = refused_in ~what:("OVERLAP " ^ what) mode opts ast in
  match reduce_kernels (Tensor.conv2d x w) with
  | [ ast ] ->
    let picked mode = Helpers.context Helpers.[ Bind (cpu_opt, mode); Bind (cpu_vec, 16) ] (fun () ->
        let s = Postrange.create ~loop_opts:(Codegen.passes ren).loop_opts ast ren in
        Postrange.convert_loop_to_global s;
        List.exists (fun (op : Opt.t) -> op.op = Opt.OVERLAP && op.arg = Opt.Int 16)
          (Codegen.hand_coded_optimizations s).applied_opts) in
    check (picked Helpers.Cpu_fast) "CPU_OPT=fast: no OVERLAP 16 in the hand-coded opts";
    check (not (picked Helpers.Cpu_tinygrad)) "CPU_OPT=tinygrad: OVERLAP in the hand-coded opts";
    let noopt = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () -> run_with ~noopt:1 ast) in
    List.iter (fun (lanes, shape) ->
        let s = apply_in Helpers.Cpu_fast [ o Opt.OVERLAP 3 lanes ] ast in
        check (List.map Postrange.sint_int (Postrange.full_shape s) = shape)
          "OVERLAP %d: shape [%s]" lanes (Postrange.colored_shape s);
        let opt_ast = Postrange.get_optimized_ast s in
        Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () ->
            same_buffers ~what:(Printf.sprintf "OVERLAP %d" lanes) noopt
              (run_with ~vec:16 ~noopt:0 opt_ast)))
      [ (16, [ 4; 8; 26; 2; 16; 4; 3; 3 ]); (12, [ 4; 8; 26; 3; 12; 4; 3; 3 ]) ];
    refused Helpers.Cpu_tinygrad [ o Opt.OVERLAP 3 16 ] ast "under CPU_OPT=tinygrad";
    refused Helpers.Cpu_fast [ o Opt.OVERLAP 4 2 ] ast "on the reduce axis";
    refused Helpers.Cpu_fast [ o Opt.OVERLAP 3 13 ] ast "of 13 lanes on 26";
    refused Helpers.Cpu_fast [ o Opt.OVERLAP 3 11 ] ast "of 11 lanes on 26";
    refused Helpers.Cpu_fast [ o Opt.OVERLAP 3 20 ] ast "of 20 lanes";
    let a = Tensor.realize (Tensor.zeros [| 4; 26 |]) and b = Tensor.realize (Tensor.rand [| 4; 26; 8 |]) in
    (match reduce_kernels (Tensor.assign a (Tensor.add a (Tensor.sum ~axis:[ 2 ] b))) with
     | [ acc ] ->
       refused Helpers.Cpu_fast [ o Opt.OVERLAP 1 16 ] acc "of a kernel that loads a point it stores"
     | l -> fail "a += sum b: %d reduce kernels, expected 1" (List.length l))
  | l -> fail "%d reduce kernels, expected 1" (List.length l)

(* CPU_OPT=fast, CPU_VEC=16: the hand-coded matmuls of 2048 and 1024 (B, 16 and 4 MiB, does not stay in L2)
   get the 8x32 tile and a BLOCK of 2 tiles of their column loop; the matmul of 512 (B, 1 MiB) keeps the 8x16
   tile, unblocked. Opts only (the kernels are not run). *)
let test_cpu_block_heuristic () =
  let opts n = match reduce_kernels (Tensor.matmul (Tensor.empty [| n; n |]) (Tensor.empty [| n; n |])) with
    | [ ast ] -> Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (cpu_vec, 16) ] (fun () ->
        let s = Postrange.create ast (Device.renderer "CPU") in
        Postrange.convert_loop_to_global s;
        List.filter_map (fun (o : Opt.t) -> match o.op, o.arg with
            | (Opt.UPCAST | Opt.BLOCK), Opt.Int n -> Some (o.op, n) | _ -> None)
          (Codegen.hand_coded_optimizations s).applied_opts)
    | l -> fail "%d reduce kernels, expected 1" (List.length l) in
  let blocked = Opt.[ (UPCAST, 16); (UPCAST, 8); (UPCAST, 2); (BLOCK, 2) ] in
  check (opts 2048 = blocked) "2048: not the blocked 8x32 tile";
  check (opts 1024 = blocked) "1024: not the blocked 8x32 tile";
  check (opts 512 = Opt.[ (UPCAST, 16); (UPCAST, 8) ]) "512: not the 8x16 tile"

let tests : case list = [ ("cpu_vector_reduce", test_cpu_vector_reduce);
                          ("cpu_rolled_dot_products", test_cpu_rolled_dot_products); ("cpu_matvec", test_cpu_matvec);
                          ("cpu_matvec_epilogue", test_cpu_matvec_epilogue);
                          ("cpu_matvec_thread_pad", test_cpu_matvec_thread_pad);
                          ("cpu_select", test_cpu_select);
                          ("cpu_half_matvec", test_cpu_half_matvec); ("cpu_byte_matvec", test_cpu_byte_matvec);
                          ("cpu_gated_byte_loads", test_cpu_gated_byte_loads);
                          ("cpu_conv_tile", test_cpu_conv_tile);
                          ("cpu_overlap", test_cpu_overlap); ("cpu_window_lanes", test_cpu_window_lanes);
                          ("cpu_window_rest", test_cpu_window_rest);
                          ("cpu_stream_order", test_cpu_stream_order);
                          ("cpu_nested_reduce_tile", test_cpu_nested_reduce_tile);
                          ("cpu_lane_gated_loads", test_cpu_lane_gated_loads);
                          ("cpu_lane_gated_nonfinite", test_cpu_lane_gated_nonfinite);
                          ("cpu_broadcast_gated_loads_rule", test_cpu_broadcast_gated_loads_rule);
                          ("cpu_broadcast_gated_loads", test_cpu_broadcast_gated_loads);
                          ("cpu_nested_reduce_vector_accumulators", test_cpu_nested_reduce_vector_accumulators);
                          ("cpu_gated_reduce_loops", test_cpu_gated_reduce_loops); ("cpu_gated_load", test_cpu_gated_load); ("cpu_conv_weight_grad", test_cpu_conv_weight_grad);
                          ("cpu_conv_weight_grad_split", test_cpu_conv_weight_grad_split);
                          ("cpu_conv_weight_grad_window_inner", test_cpu_conv_weight_grad_window_inner);
                          ("cpu_conv_weight_grad_rows", test_cpu_conv_weight_grad_rows);
                          ("cpu_register_tile_small", test_cpu_register_tile_small); ("cpu_rolled_divide", test_cpu_rolled_divide);
                          ("cpu_max_keeps_order", test_cpu_max_keeps_order);
                          ("cpu_block", test_cpu_block); ("cpu_block_heuristic", test_cpu_block_heuristic);
                          ("cpu_tile_accumulators", test_cpu_tile_accumulators);
                          ("cpu_tile_accumulators_gated", test_cpu_tile_accumulators_gated);
                          ("cpu_pad_rows", test_cpu_pad_rows);
                          ("cpu_conv_channel_lanes", test_cpu_conv_channel_lanes);
                          ("cpu_channel_lane_vectors", test_cpu_channel_lane_vectors);
                          ("cpu_wgrad_channel_lanes", test_cpu_wgrad_channel_lanes);
                          ("cpu_padded_image", test_cpu_padded_image);
                          ("cpu_rolled_transcendental", test_cpu_rolled_transcendental);
                          ("cpu_interleaved_chain", test_cpu_interleaved_chain);
                          ("cpu_vector_widths", test_cpu_vector_widths);
                          ("cpu_index_pointer_offset", test_cpu_index_pointer_offset);
                          ("golden_default_sources", test_default_sources);
                          ("beam_realize", test_beam_realize);
                          ("default_equals_noopt", test_default_equals_noopt);
                          ("beam", test_beam) ]
