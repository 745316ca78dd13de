(* Tests for codegen/simplify.py, codegen/opt/postrange.py (NOOPT path: kernel naming), codegen/gpudims.py and
   schedule/rangeify.py pm_mops.

   Oracles: tinygrad's own tests (TestRangeSplitting.test_range_split_on_mod from test/null/test_uop_symbolic.py,
   TestReduceCollapse from test_uop_graph.py, TestGroupedDims from test_gpudims.py — with a brute-force check of
   bijectivity in place of z3), the exact graph tinygrad 0.14.0 produces for the split test (taken from the venv),
   and the kernel names recorded in the golden corpus (cpu_noopt.json). *)

open Tinygrad.Compiler
open Test_util
module P = Upat

let axis_of (r : Uop.t) = match r.arg with Uop.Range (ids, at) -> (ids, at) | _ -> fail "not a RANGE"

(* ---------- TestRangeSplitting.test_range_split_on_mod ---------- *)

let test_range_split_on_mod () =
  (* test that mark_range_mod splits RANGE(8) into RANGE(4)*2 + RANGE(2) when used with %2 *)
  let r0 = Uop.range (Uop.Sint 8) 0 in
  (* create a simple expression using the range with mod: store range%2 to a buffer *)
  let buf = Uop.param ~shape:[ Uop.Sint 1 ] 0 Dtype.Int32 in
  let vl = Uop.cast Dtype.Int32 (Uop.mod_ r0 (Uop.const_int 2)) in
  let store = Uop.create Ops.Store ~src:[| Uop.index buf [ Uop.const_int 0 ]; vl |] in
  let sink = Uop.create Ops.Sink ~src:[| Uop.create Ops.End ~src:[| store; r0 |] |] in
  let count_ranges s = List.length (List.filter (fun (u : Uop.t) -> u.op == Ops.Range) (Uop.toposort s)) in
  let before = count_ranges sink in
  let after =
    P.graph_rewrite ~name:"test split ranges" (P.( @@@ ) Simplify.pm_split_ranges Simplify.pm_flatten_range_tbl)
      (Uop.Tbl.create 4) sink in
  check (count_ranges after > before) "RANGE should be split when used with mod of divisible constant (%d -> %d)" before
    (count_ranges after);
  (* the exact graph tinygrad 0.14.0 builds: END(STORE(idx, CAST(RANGE(2,(0,1)))), RANGE(4,(0,0)), RANGE(2,(0,1))) *)
  let e = after.src.(0) in
  check (e.op == Ops.End && Array.length e.src = 3) "expected END with 2 ranges, got %s" (Uop.to_string after);
  let ra = e.src.(1) and rb = e.src.(2) in
  check (axis_of ra = ([ 0; 0 ], Uop.Weak) && Uop.is_const ra.src.(0) && Uop.to_int ra.src.(0) = 4) "first range %s"
    (Uop.to_string ra);
  check (axis_of rb = ([ 0; 1 ], Uop.Weak) && Uop.to_int rb.src.(0) = 2) "second range %s" (Uop.to_string rb);
  let st = e.src.(0) in
  check (st.src.(1).op == Ops.Cast && st.src.(1).src.(0) == rb) "stored value should be CAST(range 0_1), got %s"
    (Uop.to_string st.src.(1))

(* ---------- TestReduceCollapse.test_multi_range_reduce_add ---------- *)

let test_multi_range_reduce_add () =
  let r1 = Uop.range (Uop.Sint 3) 0 and r2 = Uop.range (Uop.Sint 4) 1 in
  let x = Uop.cast Dtype.Float32 r1 and y = Uop.cast Dtype.Float32 r2 in
  let red = Uop.reduce ~arg:Ops.Add (Uop.add x y) [ r1; r2 ] in
  check_int ~what:"len(red.src)" 3 (Array.length red.src);
  let result = P.graph_rewrite ~name:"test" Simplify.pm_reduce_collapse () red in
  check (result.op == Ops.Add) "should become add of two separate reduces, got %s" (Uop.to_string result)

(* reduce_unparented: sum over an unused range of size 4 is x*4 *)
let test_reduce_unparented () =
  let r = Uop.range (Uop.Sint 4) 0 in
  let x = Uop.variable_int ~dtype:Dtype.Int32 "x" 0 10 in
  let red = Uop.reduce ~arg:Ops.Add x [ r ] in
  match Simplify.reduce_unparented red with
  | Some u ->
    check (u.op == Ops.Mul && u.src.(0) == x && Uop.to_int u.src.(1) = 4) "expected x*4, got %s" (Uop.to_string u)
  | None -> fail "reduce_unparented did nothing"

(* ---------- pm_mops: INDEX through movement ops ---------- *)

(* keys (UOp.key, 16 hex digits) of graph_rewrite(x.index(ranges...), pm_mops, bottom_up=True) in tinygrad 0.14.0 for
   a PARAM of shape (4,6) behind movement ops (x._mop(op, arg) in Python) *)
let test_pm_mops () =
  let p = Uop.param ~shape:[ Uop.Sint 4; Uop.Sint 6 ] 0 Dtype.Float32 in
  let sh l = `Shape (List.map (fun x -> Uop.Sint x) l) in
  let pairs l = `Pairs (List.map (fun (a, b) -> (Uop.Sint a, Uop.Sint b)) l) in
  let rngs shape = List.mapi (fun i s -> Uop.range s i) shape in
  let key u = String.sub (Golden.hex (Golden.uop_key u)) 0 16 in
  let run x n = P.graph_rewrite ~bottom_up:true Rangeify.pm_mops () (Uop.index x (rngs (List.filteri (fun i _ -> i < n) (Uop.shape x)))) in
  let full x = run x (List.length (Uop.shape x)) in
  let cases =
    [ ("reshape_permute", Uop.mop Ops.Permute (Uop.mop Ops.Reshape p (sh [ 2; 2; 6 ])) (`Perm [ 2; 0; 1 ]), "fbb3ef4c067bc207");
      ("pad", Uop.mop Ops.Pad p (pairs [ (1, 6); (0, 8) ]), "60880ff44e58b9cd");
      ("shrink", Uop.mop Ops.Shrink p (pairs [ (1, 3); (2, 3) ]), "4bfe7301786a5b9d");
      ("flip", Uop.mop Ops.Flip p (`Flip [ true; false ]), "26f83b437514ecf2");
      ("expand", Uop.mop Ops.Expand p (sh [ 3 ]), "bcae3130cceaf9cd");
      ("reshape_merge", Uop.mop Ops.Reshape p (sh [ 24 ]), "c845c1280a0206c6");
      ("reshape_split", Uop.mop Ops.Reshape (Uop.mop Ops.Reshape p (sh [ 24 ])) (sh [ 3; 8 ]), "abf14457ac54660b") ] in
  List.iter (fun (name, x, expected) ->
      let out = full x in
      check (key out = expected) "%s: expected key %s, got %s for %s" name expected (key out) (Uop.render out)) cases;
  (* an INDEX with fewer indices than the reshape's dims keeps the trailing dims *)
  let out = run (Uop.mop Ops.Reshape p (sh [ 2; 2; 6 ])) 2 in
  check (key out = "13e5da1d2238cdd7") "reshape_partial: expected key 13e5da1d2238cdd7, got %s (%s)" (key out)
    (Uop.to_string out)

(* ---------- TestGroupedDims (test_gpudims.py) ---------- *)

(* evaluate an index expression with SPECIALs bound *)
let eval_idx (env : (string * int) list) (u : Uop.t) : int =
  let leaf (x : Uop.t) =
    match x.op, x.arg with
    | Ops.Special, Uop.Str n -> Some (Dtype.I (Z.of_int (List.assoc n env)))
    | Ops.Special, _ -> fail "SPECIAL arg"
    | _ -> None in
  match Sym_check.eval_uop ~truncate_output:false leaf u with Dtype.I z -> Z.to_int z | _ -> fail "not an int"

let specials_of idxs =
  let l = List.concat_map (fun x -> List.filter (fun (y : Uop.t) -> y.op == Ops.Special) (Uop.toposort x)) idxs in
  let l = List.fold_left (fun acc x -> if List.memq x acc then acc else acc @ [ x ]) [] l in
  let name (u : Uop.t) = match u.arg with Uop.Str s -> s | _ -> "" in
  List.sort (fun a b -> compare (name a) (name b)) l

let check_grouped_dims ?(same_length = true) prefix dims max_sizes reverse expected =
  let what = Printf.sprintf "get_grouped_dims %s (%s)" prefix (String.concat "," (List.map string_of_int dims)) in
  let sdims = List.map (fun d -> Uop.Sint d) dims in
  let idxs = Gpudims.get_grouped_dims ~reverse prefix sdims max_sizes in
  let loop_idxs = specials_of idxs in
  let sizes = List.map (fun (x : Uop.t) -> Uop.to_int x.src.(0)) loop_idxs in
  check (List.length idxs = List.length dims) "%s: expected idxs to have same length as dims" what;
  if same_length then
    check (List.length loop_idxs = min (List.length sizes) (List.length dims)) "%s: wrong number of specials" what;
  check (sizes = expected) "%s: expected sizes=[%s], got [%s]" what
    (String.concat "," (List.map string_of_int expected)) (String.concat "," (List.map string_of_int sizes));
  (* bijectivity, by enumeration (tinygrad proves it with z3) *)
  let total = List.fold_left ( * ) 1 dims in
  if total <= 4096 then begin
    let names = List.map (fun (u : Uop.t) -> match u.arg with Uop.Str s -> s | _ -> "") loop_idxs in
    let seen = Array.make total false in
    let rec go env = function
      | [] ->
        let vals = List.map (eval_idx env) idxs in
        let flat, _ = List.fold_left2 (fun (acc, i) v _ ->
            (acc + (v * List.fold_left ( * ) 1 (List.filteri (fun j _ -> j > i) dims)), i + 1)) (0, 0) vals dims in
        check (flat >= 0 && flat < total) "%s: flat index %d out of range" what flat;
        check (not seen.(flat)) "%s: not injective at %d" what flat;
        seen.(flat) <- true
      | (n, s) :: rest -> for v = 0 to s - 1 do go ((n, v) :: env) rest done in
    go [] (List.combine names sizes)
  end

let raises_failure f = match f () with _ -> false | exception Failure _ -> true

let test_grouped_dims () =
  let m3 a b c = Some [ a; b; c ] in
  (* no-op *)
  check_grouped_dims "gidx" [ 2 ] (m3 16 16 16) false [ 2 ];
  check_grouped_dims "gidx" [ 2; 3 ] (m3 16 16 16) false [ 2; 3 ];
  (* check reverse dims *)
  check_grouped_dims "gidx" [ 2; 3 ] (m3 16 16 16) true [ 3; 2 ];
  check_grouped_dims "gidx" [ 2; 3; 4 ] (m3 16 16 16) false [ 2; 3; 4 ];
  (* test splitting globals: len(dims) == len(max) *)
  check_grouped_dims "gidx" [ 64; 3; 4 ] (m3 16 16 16) false [ 16; 12; 4 ];
  check_grouped_dims "gidx" [ 64; 3; 4 ] (m3 16 4 16) false [ 16; 3; 16 ];
  check_grouped_dims "gidx" [ 64; 3; 4 ] (m3 16 16 16) true [ 16; 3; 16 ];
  check_grouped_dims "gidx" [ 128; 3; 4 ] (m3 16 4 256) false [ 16; 3; 32 ];
  check_grouped_dims "gidx" [ 4; 4; 512 ] (m3 16 4 256) false [ 8; 4; 256 ];
  check_grouped_dims "gidx" [ 5; 12; 7 ] (m3 8 4 16) false [ 10; 3; 14 ];
  (* prefer group_dim strategy when possible *)
  check_grouped_dims "gidx" [ 512; 4; 2 ] (m3 8192 2 2) false [ 2048; 2 ];
  (* test splitting globals: len(dims) < len(max) *)
  check_grouped_dims ~same_length:false "gidx" [ 128 ] (m3 16 16 256) false [ 16; 8 ];
  check_grouped_dims ~same_length:false "gidx" [ 65536 ] (m3 16 16 256) false [ 16; 16; 256 ];
  check_grouped_dims ~same_length:false "gidx" [ 65536; 2 ] (m3 65535 65535 65535) false [ 32768; 4 ];
  (* test when the only divisor is the square root of dim *)
  check_grouped_dims ~same_length:false "gidx" [ 121 ] (m3 12 12 12) false [ 11; 11 ];
  check_grouped_dims ~same_length:false "gidx" [ 128; 128 ] (m3 16 16 256) false [ 16; 16; 64 ];
  (* collapse on onto the left most axis *)
  check_grouped_dims "gidx" [ 2; 3; 4; 5 ] (m3 16 16 16) false [ 6; 4; 5 ];
  check_grouped_dims "gidx" [ 2; 3; 4; 5 ] (m3 32 16 16) true [ 20; 3; 2 ];
  (* collapse on left-most available axis (the left most is too small) *)
  check_grouped_dims "gidx" [ 2; 3; 4; 5 ] (m3 4 16 16) false [ 2; 12; 5 ];
  check_grouped_dims "gidx" [ 2; 3; 4; 5 ] (m3 16 16 16) true [ 5; 12; 2 ];
  (* dim too large and not factorable *)
  let s l = List.map (fun d -> Uop.Sint d) l in
  check (raises_failure (fun () -> Gpudims.get_grouped_dims "gidx" (s [ 23 ]) (m3 16 16 16))) "23 should not fit";
  check (raises_failure (fun () -> Gpudims.get_grouped_dims "gidx" (s [ 128; 3; 4 ]) (m3 16 2 2))) "128,3,4 should not fit";
  (* too large for sizes *)
  check (raises_failure (fun () -> Gpudims.get_grouped_dims "gidx" (s [ 2; 3; 4; 5; 6 ]) (m3 16 16 16))) "5 dims should not fit"

let test_grouped_direct_dims_are_special () =
  let idxs = Gpudims.get_grouped_dims "gidx" (List.map (fun d -> Uop.Sint d) [ 2; 3; 4; 5 ]) (Some [ 16; 16; 16 ]) in
  check ((List.nth idxs 2).op == Ops.Special && (List.nth idxs 3).op == Ops.Special) "expected SPECIAL for direct-mapped dims"

let test_grouped_dims_high_rank () =
  check_grouped_dims "gidx" [ 4; 4; 4; 4 ] (Some [ 16; 16 ]) false [ 16; 16 ];
  check_grouped_dims "gidx" [ 2; 3; 4; 5 ] None false [ 2; 3; 4; 5 ];
  let idxs = Gpudims.get_grouped_dims "gidx" (List.map (fun d -> Uop.Sint d) [ 2; 3; 4; 5 ]) None in
  check (List.for_all (fun (u : Uop.t) -> u.op == Ops.Special) idxs) "expected all-SPECIAL when untouched";
  check_grouped_dims "gidx" [ 2; 2; 2; 2; 2 ] (Some [ 4; 4; 4 ]) false [ 4; 4; 2 ];
  check_grouped_dims "gidx" [ 2; 2; 2; 2; 2; 2 ] (Some [ 8; 8; 8 ]) false [ 8; 4; 2 ]

let test_max_sizes_none () =
  check_grouped_dims "gidx" [ 2; 3; 4 ] None false [ 2; 3; 4 ];
  check_grouped_dims "gidx" [ 100 ] None false [ 100 ]

let test_global_prod_max () =
  let g = Uop.range ~axis_type:Uop.Global (Uop.Sint 256) 0 and l = Uop.range ~axis_type:Uop.Local (Uop.Sint 256) 1 in
  let p = Uop.param ~shape:[ Uop.Sint 512 ] 0 Dtype.Float32 in
  let st = Uop.store (Uop.index p [ Uop.add g l ]) (Uop.const_float 1.0) in
  let sink = Uop.sink ~arg:(Uop.Kernel_info Uop.default_kernel_info) [ Uop.end_ st [ g; l ] ] in
  let r = { Renderer.default with global_max = Some [ 256; 256; 256 ]; local_max = Some [ 128; 128; 128 ];
                                  global_prod_max = Some [ 128; 128; 128 ] } in
  match Gpudims.add_gpudims r sink with
  | None -> fail "add_gpudims did nothing"
  | Some s ->
    let specials = List.filter_map (fun (u : Uop.t) ->
        match u.op, u.arg with Ops.Special, Uop.Str n -> Some n | _ -> None) (Uop.toposort s) in
    let has sub n = let ls = String.length sub in
      let rec go i = i + ls <= String.length n && (String.sub n i ls = sub || go (i + 1)) in go 0 in
    check (List.length (List.filter (has "lidx") specials) > 1) "expected >1 lidx specials";
    check (List.length (List.filter (has "gidx") specials) > 1) "expected >1 gidx specials"

(* ---------- kernel naming (postrange get_optimized_ast) on the golden corpus ---------- *)

(* ClangRenderer's options that matter before codegen: no locals, threads, global_max = (NUM_CPU_THREADS, 0, 0) *)
let cpu_renderer = { Renderer.default with device = "CPU"; has_local = false; has_threads = true; has_shared = false;
                                           global_max = Some [ 8; 0; 0 ] }

(* the part of tinygrad's full_rewrite_to_sink before apply_opts (codegen/__init__.py) *)
let pre_opts ast =
  let tbl () = Uop.Tbl.create 8 in
  let sink = P.graph_rewrite ~bottom_up:true ~name:"early movement ops" Rangeify.pm_mops () ast in
  let sink = P.graph_rewrite ~name:"load collapse" Simplify.pm_load_collapse () sink in
  let sink = P.graph_rewrite ~name:"split ranges" (P.( @@@ ) Simplify.pm_split_ranges Simplify.pm_flatten_range_tbl) (tbl ()) sink in
  let sink = P.graph_rewrite ~name:"initial symbolic" (P.( @@@ ) Symbolic.sym Simplify.pm_flatten_range) () sink in
  P.graph_rewrite ~name:"simplify ranges" (P.( @@@ ) Simplify.pm_flatten_range_tbl Simplify.pm_simplify_ranges) (tbl ()) sink

(* ... and apply_opts with NOOPT=1 *)
let optimize_to_named ast =
  let sink = pre_opts ast in
  let beam = match ast.Uop.arg with Uop.Kernel_info ki -> ki.beam | _ -> 0 in
  let saved = Helpers.noopt.value in
  Helpers.set Helpers.noopt 1;
  Fun.protect ~finally:(fun () -> Helpers.set Helpers.noopt saved) (fun () -> Postrange.apply_opts sink cpu_renderer ~beam ~hand_coded:Codegen.hand_coded_optimizations)

let kname (u : Uop.t) = match u.arg with Uop.Kernel_info ki -> ki.kname | _ -> fail "no KernelInfo on the SINK"

(* ew_add: a 4x5 elementwise kernel whose ranges merge into one of 20; the name is colored as tinygrad colors it *)
let test_name_ew_add_colored () =
  let p slot = Uop.param ~shape:[ Uop.Sint 20 ] ~device:(Uop.One "CPU") slot Dtype.Float32 in
  let c3 = Uop.range (Uop.Sint 4) 0 and c6 = Uop.range (Uop.Sint 5) 1 in
  let c7 = Uop.add (Uop.mul c3 (Uop.const_int 5)) c6 in
  let st = Uop.store (Uop.index (p 0) [ c7 ]) (Uop.add (Uop.index (p 1) [ c7 ]) (Uop.index (p 2) [ c7 ])) in
  let ast = Uop.sink ~arg:(Uop.Kernel_info Uop.default_kernel_info) [ Uop.end_ st [ c3; c6 ] ] in
  let saved = Helpers.no_color.value in
  Helpers.set Helpers.no_color 0;
  let out = Fun.protect ~finally:(fun () -> Helpers.set Helpers.no_color saved) (fun () -> optimize_to_named ast) in
  (* "E" + colored("_", "BLACK") + colored("20", "WHITE") *)
  check_str ~what:"name" "E\027[90m_\027[0m\027[97m20\027[0m" (kname out);
  check (out.tag = Uop.Int 1) "the optimized AST is tagged"

(* r_4_5: a MUL reduce over a REDUCE range (red) and an output loop (WHITE) *)
let test_name_reduce_colored () =
  let c1 = Uop.param ~shape:[ Uop.Sint 4 ] ~device:(Uop.One "CPU") 0 Dtype.Float32 in
  let c2 = Uop.range (Uop.Sint 4) 1 in
  let c5 = Uop.param ~shape:[ Uop.Sint 20 ] ~device:(Uop.One "CPU") 1 Dtype.Float32 in
  let c7 = Uop.range ~axis_type:Uop.Reduce (Uop.Sint 5) 0 in
  let c10 = Uop.index c5 [ Uop.add (Uop.mul c7 (Uop.const_int 4)) c2 ] in
  let c11 = Uop.reduce ~arg:Ops.Mul c10 [ c7 ] in
  let ast = Uop.sink ~arg:(Uop.Kernel_info Uop.default_kernel_info) [ Uop.end_ (Uop.store (Uop.index c1 [ c2 ]) c11) [ c2 ] ] in
  let saved = Helpers.no_color.value in
  Helpers.set Helpers.no_color 0;
  let out = Fun.protect ~finally:(fun () -> Helpers.set Helpers.no_color saved) (fun () -> optimize_to_named ast) in
  check_str ~what:"name" "r\027[90m_\027[0m\027[97m4\027[0m\027[90m_\027[0m\027[31m5\027[0m" (kname out);
  check_str ~what:"function name" "r_4_5" (Helpers.to_function_name (kname out))

(* every kernel of every corpus program: the name tinygrad gives it with NOOPT=1 *)
let test_corpus_names () =
  let dir = Golden.corpus_dir () in
  let progs = List.sort compare (Array.to_list (Sys.readdir dir)) in
  let total = ref 0 and bad = ref [] in
  List.iter (fun prog ->
      let f = Filename.concat (Filename.concat dir prog) "cpu_noopt.json" in
      if Sys.file_exists f then
        List.iteri (fun i k ->
            let expected = Golden.to_str (Golden.member "name" k) in
            incr total;
            match
              let ast = Pyrender.parse_ast (Golden.to_str (Golden.member "ast" k)) in
              Helpers.ansistrip (kname (optimize_to_named ast))
            with
            | got -> if got <> expected then bad := Printf.sprintf "%s[%d]: expected %s, got %s" prog i expected got :: !bad
            | exception e -> bad := Printf.sprintf "%s[%d]: %s" prog i (Printexc.to_string e) :: !bad)
          (Golden.to_list (Golden.member "kernels" (Golden.read_file f)))) progs;
  check (!total >= 196) "expected the 196 kernels of the corpus, found %d" !total;
  if !bad <> [] then
    fail "%d/%d corpus kernel names differ:\n  %s" (List.length !bad) !total (String.concat "\n  " (List.rev !bad))

(* the kernel bodies before and after apply_opts are the graphs tinygrad builds (UOp.key of each SINK source) *)
let test_corpus_keys () =
  let dir = Golden.corpus_dir () in
  let asts = Hashtbl.create 64 in
  let bad = ref [] in
  let body_keys (s : Uop.t) =
    String.concat "," (List.map (fun x -> String.sub (Golden.hex (Golden.uop_key x)) 0 16) (Array.to_list s.src)) in
  List.iter (fun (prog, i, pre, post) ->
      let kernels = match Hashtbl.find_opt asts prog with
        | Some k -> k
        | None ->
          let f = Filename.concat (Filename.concat dir prog) "cpu_noopt.json" in
          let k = Array.of_list (Golden.to_list (Golden.member "kernels" (Golden.read_file f))) in
          Hashtbl.replace asts prog k; k in
      match
        let ast = Pyrender.parse_ast (Golden.to_str (Golden.member "ast" kernels.(i))) in
        let s1 = pre_opts ast in
        let k1 = body_keys s1 in
        let saved = Helpers.noopt.value in
        Helpers.set Helpers.noopt 1;
        let s2 = Fun.protect ~finally:(fun () -> Helpers.set Helpers.noopt saved)
            (fun () -> Postrange.apply_opts s1 cpu_renderer ~beam:0 ~hand_coded:Codegen.hand_coded_optimizations) in
        (k1, body_keys s2)
      with
      | k1, k2 ->
        if k1 <> pre then bad := Printf.sprintf "%s[%d] before apply_opts: expected %s, got %s" prog i pre k1 :: !bad
        else if k2 <> post then bad := Printf.sprintf "%s[%d] after apply_opts: expected %s, got %s" prog i post k2 :: !bad
      | exception e -> bad := Printf.sprintf "%s[%d]: %s" prog i (Printexc.to_string e) :: !bad) Simplify_ranges_oracle.cases;
  check (List.length Simplify_ranges_oracle.cases >= 196) "oracle has %d cases" (List.length Simplify_ranges_oracle.cases);
  if !bad <> [] then
    fail "%d/%d kernels differ:\n  %s" (List.length !bad) (List.length Simplify_ranges_oracle.cases)
      (String.concat "\n  " (List.rev !bad))

(* the default-mode corpus: applying the opts tinygrad's heuristic chose (as KernelInfo.opts_to_apply) gives the
   kernel name tinygrad printed and the graph it built (shift_to / apply_opt for UPCAST, UNROLL and THREAD) *)
let test_corpus_opts_names () =
  let dir = Golden.corpus_dir () in
  let progs = List.sort compare (Array.to_list (Sys.readdir dir)) in
  let total = ref 0 and bad = ref [] in
  let opt_of j : Opt.t =
    let op = match Golden.to_str (Golden.member "op" j) with
      | "UPCAST" -> Opt.UPCAST | "UNROLL" -> Opt.UNROLL | "THREAD" -> Opt.THREAD | "LOCAL" -> Opt.LOCAL
      | "GROUP" -> Opt.GROUP | "GROUPTOP" -> Opt.GROUPTOP | "NOLOCALS" -> Opt.NOLOCALS | "PADTO" -> Opt.PADTO
      | "SWAP" -> Opt.SWAP | o -> fail "unsupported opt %s" o in
    let axis = match Golden.member_opt "axis" j with Some (Golden.Num _ as n) -> Some (Golden.to_int n) | _ -> None in
    let arg = match Golden.member_opt "arg" j with Some (Golden.Num _ as n) -> Opt.Int (Golden.to_int n) | _ -> Opt.No_arg in
    { Opt.op; axis; arg } in
  List.iter (fun prog ->
      let f = Filename.concat (Filename.concat dir prog) "cpu_default.json" in
      if Sys.file_exists f then
        List.iteri (fun i k ->
            let expected = Golden.to_str (Golden.member "name" k) in
            incr total;
            match
              let ast = Pyrender.parse_ast (Golden.to_str (Golden.member "ast" k)) in
              let opts = List.map opt_of (Golden.to_list (Golden.member "opts" k)) in
              let ki = match ast.arg with Uop.Kernel_info ki -> ki | _ -> fail "no KernelInfo" in
              let ast = Uop.replace ast ~arg:(Uop.Kernel_info { ki with opts_to_apply = Some opts }) in
              let out = Postrange.apply_opts (pre_opts ast) cpu_renderer ~beam:0 ~hand_coded:Codegen.hand_coded_optimizations in
              let applied = match out.arg with Uop.Kernel_info ki -> ki.applied_opts | _ -> [] in
              check (List.length applied = List.length opts) "applied_opts";
              (* the optimized body is the graph tinygrad builds *)
              let keys = String.concat "," (List.map (fun x -> String.sub (Golden.hex (Golden.uop_key x)) 0 16)
                                              (Array.to_list out.src)) in
              (match List.find_opt (fun (p, j, _) -> p = prog && j = i) Simplify_ranges_oracle.opts_cases with
               | Some (_, _, k) -> check (k = keys) "body key: expected %s, got %s" k keys
               | None -> fail "no oracle case");
              Helpers.ansistrip (kname out)
            with
            | got -> if got <> expected then bad := Printf.sprintf "%s[%d]: expected %s, got %s" prog i expected got :: !bad
            | exception e -> bad := Printf.sprintf "%s[%d]: %s" prog i (Printexc.to_string e) :: !bad)
          (Golden.to_list (Golden.member "kernels" (Golden.read_file f)))) progs;
  check (!total >= 196) "expected the 196 kernels of the corpus, found %d" !total;
  if !bad <> [] then
    fail "%d/%d corpus kernel names differ:\n  %s" (List.length !bad) !total (String.concat "\n  " (List.rev !bad))

let tests : case list =
  [ ("range_split_on_mod", test_range_split_on_mod);
    ("multi_range_reduce_add", test_multi_range_reduce_add);
    ("reduce_unparented", test_reduce_unparented);
    ("pm_mops", test_pm_mops);
    ("grouped_dims", test_grouped_dims);
    ("grouped_direct_dims_are_special", test_grouped_direct_dims_are_special);
    ("grouped_dims_high_rank", test_grouped_dims_high_rank);
    ("max_sizes_none", test_max_sizes_none);
    ("global_prod_max", test_global_prod_max);
    ("name_ew_add_colored", test_name_ew_add_colored);
    ("name_reduce_colored", test_name_reduce_colored);
    ("corpus_names", test_corpus_names);
    ("corpus_keys", test_corpus_keys);
    ("corpus_opts_names", test_corpus_opts_names) ]
