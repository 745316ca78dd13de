(* Golden-corpus tests (/work/shared/golden/corpus, see its README.md):
   1. every kernel AST stored in pyrender form ([ast]) is rebuilt by Pyrender and its tinygrad UOp.key is compared
      with the corpus [ast_key] (sha256 over str((op, dtype, arg)) and the src keys: an exact structural check);
   2. the rebuilt ASTs go through the codegen pipeline and the C source is compared, whitespace-normalised, with the
      [src] tinygrad 0.14.0 rendered with NOOPT=1. Only kernels listed in [expected_to_match] fail the suite; the
      others are counted and reported ("golden noopt: M/N match"). *)

open Tinygrad.Compiler
open Test_util

(* (program, file, kernel index, ast, src, ast_key, name) for every kernel of [file] in every corpus program *)
let kernels ~file =
  List.concat_map (fun prog ->
      let j = Golden.read_file (Filename.concat (Filename.concat (Golden.corpus_dir ()) prog) file) in
      List.mapi (fun i k ->
          (prog, i, Golden.to_str (Golden.member "ast" k), Golden.to_str (Golden.member "src" k),
           Golden.to_str (Golden.member "ast_key" k), Golden.to_str (Golden.member "name" k)))
        (Golden.to_list (Golden.member "kernels" j))) (Golden.programs ~file)

let check_keys file () =
  let ks = kernels ~file in
  if ks = [] then Test_util.skip "golden: corpus absent (%s)" file
  else begin
    let bad = List.filter_map (fun (prog, i, ast, _, key, _) ->
        match Pyrender.parse_ast ast with
        | exception e -> Some (Printf.sprintf "%s[%d]: %s" prog i (Printexc.to_string e))
        | u ->
          let k = String.sub (Golden.hex (Golden.uop_key u)) 0 16 in
          if k = key then None else Some (Printf.sprintf "%s[%d]: key %s, corpus %s" prog i k key)) ks in
    Printf.printf "golden %s: %d/%d kernel ASTs rebuilt with the corpus ast_key\n%!" file (List.length ks - List.length bad)
      (List.length ks);
    if bad <> [] then fail "%d mismatches:\n%s" (List.length bad) (String.concat "\n" bad)
  end

(* ---------- unit checks of the helpers ---------- *)

let test_sha256 () =
  (* FIPS 180-2 test vectors *)
  check_str ~what:"sha256 abc" "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" (Golden.hex (Golden.sha256 "abc"));
  check_str ~what:"sha256 empty" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" (Golden.hex (Golden.sha256 ""));
  check_str ~what:"sha256 448 bits" "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    (Golden.hex (Golden.sha256 "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))

let test_json () =
  let j = Golden.parse {|{"a": [1, -2.5e3, "x\n\u00e9\ud83d\ude00", true, null], "b": {}}|} in
  match Golden.member "a" j with
  | Golden.Arr [ Golden.Num "1"; Golden.Num "-2.5e3"; Golden.Str s; Golden.Bool true; Golden.Null ] ->
    check_str ~what:"json string" "x\n\xc3\xa9\xf0\x9f\x98\x80" s
  | _ -> fail "json: unexpected parse"

let pyrender_cases = [
    ({|c1 = UOp(Ops.PARAM, dtypes.float, (UOp.const(16, dtypes.weakint),), ParamArg(0, dtypes.float, device='CPU'))
c2 = UOp.range(16, 0, AxisType.WEAK)
ast = UOp(Ops.MAX, dtypes.float, (c1.index(c2), UOp.const(inf, dtypes.float)))+UOp.const(-0.0, dtypes.float)|}, "ba31151da9f2f834");
    ({|c1 = UOp(Ops.PARAM, dtypes.float, (UOp.const(16, dtypes.weakint),), ParamArg(0, dtypes.float, device='CPU'))
c2 = UOp.range(16, 0, AxisType.WEAK)
c3 = c1.index(c2)
c8 = (c3<UOp.const(nan, dtypes.weakfloat)).alu(Ops.WHERE, c3, c3.sqrt().reciprocal())
ast = c8.exp2().log2().sin()|}, "f4d8d92424756dec");
    ({|c1 = UOp.range(16, 0, AxisType.WEAK)
ast = (c1<UOp.const(3, dtypes.weakint)).alu(Ops.WHERE, (c1*UOp.const(2, dtypes.weakint)+UOp.const(1, dtypes.weakint)*UOp.const(-1, dtypes.weakint)), UOp.const(Invalid, dtypes.bool))|}, "b27b0d141b9f0910");
    ({|c1 = UOp(Ops.PARAM, dtypes.int, (UOp.const(16, dtypes.weakint),), ParamArg(1, dtypes.int, device='CPU'))
c2 = UOp.range(16, 0, AxisType.WEAK)
ast = c1.index(c2).cast(dtypes.float).bitcast(dtypes.uint)//UOp.const(3, dtypes.weakint)%UOp.const(5, dtypes.weakint)^UOp.const(7, dtypes.weakint)|}, "e20fed8772a651b4");
    ({|c1 = UOp(Ops.PARAM, dtypes.float, (UOp.const(16, dtypes.weakint),), ParamArg(0, dtypes.float, device='CPU'))
c2 = UOp.range(16, 0, AxisType.WEAK)
c5 = UOp.range(4, 1, AxisType.REDUCE)
c7 = c1.index((c2*UOp.const(4, dtypes.weakint)+c5))
ast = UOp(Ops.TRUNC, dtypes.float, (c7.reduce(c5, arg=(Ops.MAX, 0)),))|}, "945662ff7640f631");
    ({|c1 = UOp(Ops.PARAM, dtypes.int, (UOp.const(16, dtypes.weakint),), ParamArg(1, dtypes.int, device='CPU'))
c2 = UOp.range(16, 0, AxisType.WEAK)
c3 = c1.index(c2)
ast = c3^UOp.const(-1, dtypes.weakint)|c3*UOp.const(-1, dtypes.weakint)&UOp.const(3, dtypes.weakint)|}, "0f0311d5e94fa840");
    ({|c1 = UOp(Ops.PARAM, dtypes.int, (UOp.const(16, dtypes.weakint),), ParamArg(1, dtypes.int, device='CPU'))
c2 = UOp.range(16, 0, AxisType.WEAK)
ast = c1.index(c2).alu(Ops.CDIV, UOp.const(-3, dtypes.int)).alu(Ops.CMOD, UOp.const(2, dtypes.int))|}, "ea88e1aa70334270") ]

let test_pyrender_small () =
  (* (pyrender text, key) pairs printed by tinygrad 0.14 (venv): for each hand-built UOp c, pyrender(c) and
     c.key.hex()[:16]; the script also checked exec(pyrender(c))['ast'] is c *)
  List.iteri (fun i (s, key) ->
      let u = Pyrender.parse_ast s in
      check_str ~what:(Printf.sprintf "pyrender case %d key" i) key (String.sub (Golden.hex (Golden.uop_key u)) 0 16);
      (* the texts are tinygrad's pyrender output: Render.pyrender gives them back *)
      check_str ~what:(Printf.sprintf "pyrender case %d text" i) s (Render.pyrender u))
    pyrender_cases


(* ---------- Npy ---------- *)

(* np.save bytes (hex) of small arrays, their dtype, shape and values, printed by numpy in the venv *)
let npy_cases = [
  ("934e554d5059010076007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065273a2028322c2033292c207d202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200a0000c03f000010c059d900330000807f0000008000e07f47", "float32", [2; 3], [1.5; -2.25; 2.999999892949745e-08; infinity; -0.0; 65504.0]);
  ("934e554d5059010076007b276465736372273a20273c6632272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065273a2028352c292c207d2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200a003c00c10100ff7b1914", "float16", [5], [1.0; -2.5; 5.960464477539063e-08; 65504.0; 0.0010004043579101562]);
  ("934e554d5059010076007b276465736372273a20273c6934272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065273a2028332c292c207d2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200affffffffffffff7f00000080", "int32", [3], [-1.0; 2147483647.0; -2147483648.0]);
  ("934e554d5059010076007b276465736372273a20273c6938272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065273a2028322c292c207d2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200a0000000000ffffff0700000000000000", "int64", [2], [-1099511627776.0; 7.0]);
  ("934e554d5059010076007b276465736372273a20277c7531272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065273a2028332c292c207d2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200a00ff07", "uint8", [3], [0.0; 255.0; 7.0]);
  ("934e554d5059010076007b276465736372273a20277c6231272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065273a2028332c292c207d2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200a010001", "bool", [3], [1.0; 0.0; 1.0]);
  ("934e554d5059010076007b276465736372273a20273c6638272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065273a2028322c292c207d2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200a9c7500883ce4377e000000000000e0bf", "float64", [2], [1e+300; -0.5]);
  ("934e554d5059010076007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a2046616c73652c20277368617065273a2028292c207d20202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200a00006040", "float32", [], [3.5]) ]

let of_hex h = String.init (String.length h / 2) (fun i -> Char.chr (int_of_string ("0x" ^ String.sub h (2 * i) 2)))

let test_npy () =
  List.iter (fun (h, dt, shape, vals) ->
      let bytes = of_hex h in
      let a = Npy.of_string bytes in
      let what = dt ^ " npy" in
      check_str ~what:(what ^ " dtype") dt (Dtype.short_name a.Npy.dtype |> fun s -> if s = "bool" then "bool" else s);
      check (a.Npy.shape = shape) "%s: shape" what;
      let got = Npy.to_floats a in
      check (Array.length got = List.length vals) "%s: numel" what;
      List.iteri (fun i v -> check (Int64.equal (Int64.bits_of_float got.(i)) (Int64.bits_of_float v)) "%s[%d]: %h vs %h" what i got.(i) v) vals;
      check_str ~what:(what ^ " roundtrip") h (Golden.hex (Npy.to_string a));
      (* re-pack from the values *)
      let b = if Dtype.is_float a.Npy.dtype then Npy.of_floats a.Npy.dtype shape (Array.of_list vals)
        else Npy.of_ints a.Npy.dtype shape (Array.map int_of_float (Array.of_list vals)) in
      check_str ~what:(what ^ " repack") h (Golden.hex (Npy.to_string b))) npy_cases;
  (* np.float16(1e-3).view(np.uint16) = 5145, np.float16(6e-8).view(np.uint16) = 1 *)
  let h = Npy.of_floats Dtype.Float16 [ 2 ] [| 1e-3; 6e-8 |] in
  check (Npy.to_ints { h with Npy.dtype = Dtype.Uint16 } = [| 5145; 1 |]) "float16 rounding"

(* ---------- C source against the corpus (cpu_noopt.json) ---------- *)

(* kernels ("program[index]") known to render differently from tinygrad; every other corpus kernel must match
   exactly (whitespace-normalised). Empty: all 196 corpus kernels match (the four threefry kernels rendered
   `+val1[0]+2u` for tinygrad's `+val1[0]+1u+1u` until threefry2x32 kept tinygrad's two separate adds `+ i + 1`). *)
let known_mismatches : string list = []
let expected_to_match id = not (List.mem id known_mismatches)

(* whitespace-normalised: tokens separated by single spaces *)
let normalise s =
  String.concat " " (List.filter (fun t -> t <> "")
                       (String.split_on_char ' ' (String.map (function '\n' | '\t' | '\r' -> ' ' | c -> c) s)))

(* the C source of [ast] with NOOPT=1, as the corpus was captured *)
let render_noopt to_program ast =
  Helpers.context [ Helpers.Bind (Helpers.noopt, 1) ] (fun () -> Codegen.program_source (to_program ast))

let first_diff a b =
  let la = String.split_on_char '\n' a and lb = String.split_on_char '\n' b in
  let rec go i = function
    | x :: xs, y :: ys -> if String.trim x = String.trim y then go (i + 1) (xs, ys) else Printf.sprintf "line %d:\n  got      %s\n  expected %s" i x y
    | x :: _, [] -> Printf.sprintf "line %d: extra %s" i x
    | [], y :: _ -> Printf.sprintf "line %d: missing %s" i y
    | [], [] -> "(only whitespace differs)" in
  go 1 (la, lb)

let test_noopt_sources () =
  let ks = kernels ~file:"cpu_noopt.json" in
  match Golden.to_program with
  | None -> Test_util.skip "golden noopt: Golden.to_program is None (codegen not in the build)"
  | Some _ when ks = [] -> Test_util.skip "golden noopt: corpus absent"
  | Some to_program ->
    let verbose = Sys.getenv_opt "GOLDEN_VERBOSE" <> None in
    let results = List.map (fun (prog, i, ast, src, _, _) ->
        let id = Printf.sprintf "%s[%d]" prog i in
        let r = match render_noopt to_program (Pyrender.parse_ast ast) with
          | got -> if normalise got = normalise src then Ok () else Error (first_diff got src)
          | exception e -> Error ("exception " ^ Printexc.to_string e) in
        (match r with Error m when verbose -> Printf.printf "golden noopt MISMATCH %s: %s\n" id m | _ -> ());
        (id, r)) ks in
    let ok = List.length (List.filter (fun (_, r) -> r = Ok ()) results) in
    Printf.printf "golden noopt: %d/%d match\n%!" ok (List.length results);
    let bad = List.filter_map (fun (id, r) -> match r with
        | Error m when expected_to_match id -> Some (id ^ ": " ^ m) | _ -> None) results in
    if bad <> [] then fail "%d expected kernels differ:\n%s" (List.length bad) (String.concat "\n" bad)

(* tinygrad's pyrender (Render.pyrender) of every rebuilt corpus AST gives back the corpus text, which tinygrad's
   pyrender printed *)
let check_pyrender file () =
  let ks = kernels ~file in
  if ks = [] then Test_util.skip "golden: corpus absent (%s)" file
  else begin
    let bad = List.filter_map (fun (prog, i, ast, _, _, _) ->
        match Render.pyrender (Pyrender.parse_ast ast) with
        | exception e -> Some (Printf.sprintf "%s[%d]: %s" prog i (Printexc.to_string e))
        | s when s = ast -> None
        | s -> Some (Printf.sprintf "%s[%d]: %s" prog i (first_diff s ast))) ks in
    Printf.printf "golden %s: %d/%d kernel ASTs pyrender back to the corpus text\n%!" file (List.length ks - List.length bad)
      (List.length ks);
    if bad <> [] then fail "%d mismatches:\n%s" (List.length bad) (String.concat "\n" bad)
  end

(* tinygrad's print_uops of red_sum_axis1[0]'s linearized program (NOOPT=1, NO_COLOR=1, CPU), printed by tinygrad 0.14
   (venv) *)
let print_uops_expected = {|   0 Ops.CONST           :            dtypes.weakint                           []                               8
   1 Ops.CAST            :            dtypes.int                               ['8']                            dtypes.int
   2 Ops.PARAM           :            dtypes.float                             [1]                              ParamArg(0, dtypes.float, device='CPU')
   3 Ops.CONST           :            dtypes.weakint                           []                               128
   4 Ops.CAST            :            dtypes.int                               ['128']                          dtypes.int
   5 Ops.PARAM           :            dtypes.float                             [4]                              ParamArg(1, dtypes.float, device='CPU')
   6 Ops.CONST           :            dtypes.weakint                           []                               1
   7 Ops.CAST            :            dtypes.int                               ['1']                            dtypes.int
   8 Ops.BUFFER          :            dtypes.float                             [7]                              ParamArg(0, dtypes.float, addrspace=AddrSpace.REG)
   9 Ops.CONST           :            dtypes.weakint                           []                               0
  10 Ops.CAST            :            dtypes.int                               ['0']                            dtypes.int
  11 Ops.CONST           :            dtypes.weakint                           []                               4
  12 Ops.CAST            :            dtypes.int                               ['4']                            dtypes.int
  13 Ops.CONST           :            dtypes.weakint                           []                               16
  14 Ops.CAST            :            dtypes.int                               ['16']                           dtypes.int
  15 Ops.CONST           :            dtypes.weakfloat                         []                               0.0
  16 Ops.CAST            :            dtypes.float                             ['0.0']                          dtypes.float
  17 Ops.RANGE           : 1          dtypes.int                               [1]                              (1, AxisType.WEAK)
  18 Ops.AFTER           : 1          dtypes.float                             [8, 17]                          None
  19 Ops.INDEX           : 1          dtypes.float                             [18, 10]                         None
  20 Ops.SHL             : 1          dtypes.int                               [17, 12]                         None
  21 Ops.STORE           : 1          dtypes.void                              [19, 16]                         None
  22 Ops.RANGE           : 0,1        dtypes.int                               [14, 17]                         (0, AxisType.REDUCE)
  23 Ops.ADD             : 0,1        dtypes.int                               [20, 22]                         None
  24 Ops.INDEX           : 0,1        dtypes.float                             [5, 23]                          None
  25 Ops.LOAD            : 0,1        dtypes.float                             [24]                             None
  26 Ops.AFTER           : 0,1        dtypes.float                             [8, 21, 22]                      None
  27 Ops.INDEX           : 0,1        dtypes.float                             [26, 10]                         None
  28 Ops.LOAD            : 0,1        dtypes.float                             [27]                             None
  29 Ops.ADD             : 0,1        dtypes.float                             [28, 25]                         None
  30 Ops.STORE           : 0,1        dtypes.void                              [27, 29]                         None
  31 Ops.END             : 1          dtypes.void                              [30, 22]                         None
  32 Ops.AFTER           : 1          dtypes.float                             [8, 31]                          None
  33 Ops.INDEX           : 1          dtypes.float                             [32, 10]                         None
  34 Ops.LOAD            : 1          dtypes.float                             [33]                             None
  35 Ops.INDEX           : 1          dtypes.float                             [2, 17]                          None
  36 Ops.STORE           : 1          dtypes.void                              [35, 34]                         None
  37 Ops.END             :            dtypes.void                              [36, 17]                         None
  38 Ops.SINK            :            dtypes.void                              [37]                             KernelInfo(name='r_8_16', axis_types=(), dont_use_locals=False, applied_opts=(), opts_to_apply=None, estimates=None, beam=0)
|}

let test_print_uops () =
  match List.find_opt (fun (prog, i, _, _, _, _) -> prog = "red_sum_axis1" && i = 0) (kernels ~file:"cpu_noopt.json") with
  | None -> Test_util.skip "golden print_uops: corpus absent"
  | Some (_, _, ast, _, _, _) ->
    (* do_to_program, not the cached to_program: the kernel name is colored unless NO_COLOR was set when it was made *)
    let prg = Helpers.context [ Helpers.Bind (Helpers.noopt, 1); Helpers.Bind (Helpers.no_color, 1) ] (fun () ->
        Codegen.do_to_program (Pyrender.parse_ast ast) (Device.renderer "CPU")) in
    let lin = List.find (fun (u : Uop.t) -> u.op == Ops.Linear) (Array.to_list prg.src) in
    let got = Helpers.context [ Helpers.Bind (Helpers.no_color, 1) ] (fun () -> Render.uops_str (Array.to_list lin.src)) in
    check_str ~what:"print_uops" print_uops_expected got

let tests : case list =
  [ ("sha256", test_sha256);
    ("json", test_json);
    ("pyrender_small", test_pyrender_small);
    ("npy", test_npy);
    ("ast_keys_cpu_noopt", check_keys "cpu_noopt.json");
    ("ast_keys_cpu_default", check_keys "cpu_default.json");
    ("noopt_sources", test_noopt_sources);
    ("pyrender_cpu_noopt", check_pyrender "cpu_noopt.json");
    ("pyrender_cpu_default", check_pyrender "cpu_default.json");
    ("print_uops", test_print_uops) ]
