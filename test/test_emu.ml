(* The UOp emulator (Ops_emu, DEV=EMU::<target>): GPU-shaped kernels executed on this machine.
   - bounds: a kernel with an index planted past its buffer raises Out_of_bounds naming the kernel, the buffer
     and the index (load and store);
   - tensor cores: tinygrad's test_tensor_cores.py (TestTensorCores) on EMU::sm_80 and EMU::METAL: every
     tensor core of the target on a matmul of its own shape (TC_OPT 0), padded by one on every axis (TC_OPT
     2), and the trigger checks of test_tensor_cores_padded_uops; the linearized program must hold WMMA and
     apply one TC opt, and the values must equal the NOOPT CPU kernel's within tinygrad's tolerances for the
     dtype;
   - a matmul under the default heuristics with TC=1 takes the tensor cores (WMMA in the program) and matches;
   - a subset of the golden op suite (the first case of every EMU_OPS_STRIDE-th test function, default 6) on
     both targets, against tinygrad's stored outputs. [make test-emu] runs the whole op suite and the corpus
     instead. *)

open Tinygrad.Compiler
open Test_util
module T = Tinygrad.Tensor

let contains s sub =
  let n = String.length s and m = String.length sub in
  let rec go i = i + m <= n && (String.sub s i m = sub || go (i + 1)) in
  go 0

(* runs [f] with DEV naming the emulator's target *)
let on_target arch f =
  Helpers.context [ Helpers.Bind (Helpers.dev, Helpers.dev_of_string ("EMU::" ^ arch)) ] f

(* ---------- bounds ---------- *)

(* out[g] = in[g + shift] over [threads] threads, both buffers of [size] floats, written as a linearized
   program *)
let shifted_copy ~threads ~shift ~size =
  let out = Uop.placeholder_param ~slot:0 Dtype.Float32 size
  and inp = Uop.placeholder_param ~slot:1 Dtype.Float32 size in
  let g = Uop.special ~dtype:Dtype.Int32 (Uop.Sint threads) "gidx0" in
  let src_idx = Uop.alu Ops.Add [ g; Uop.const_int ~dtype:Dtype.Int32 shift ] in
  let v = Uop.load (Uop.index inp [ src_idx ]) [] in
  Uop.toposort (Uop.sink ~arg:(Uop.Kernel_info { Uop.default_kernel_info with kname = "E_planted" })
                  [ Uop.store (Uop.index out [ g ]) v ])

(* the bytes of float32 values *)
let host_floats xs =
  let b = Bytes.create (4 * Array.length xs) in
  Array.iteri (fun i x -> Bytes.set_int32_le b (4 * i) (Int32.bits_of_float x)) xs;
  let a = Bigarray.Array1.create Bigarray.char Bigarray.c_layout (Bytes.length b) in
  Bytes.iteri (fun i c -> a.{i} <- c) b;
  a

let planted ~threads ~shift ~size =
  Ops_emu.program_of_source ~name:"E_planted" (Ops_emu.render (shifted_copy ~threads ~shift ~size))

let expect_oob ~what ~access ~buffer ~index f =
  match f () with
  | () -> fail "%s: expected Out_of_bounds" what
  | exception (Ops_emu.Out_of_bounds r as e) ->
    check_str ~what:(what ^ " kernel") "E_planted" r.kernel;
    check_str ~what:(what ^ " access") access r.access;
    check_str ~what:(what ^ " buffer") buffer r.buffer;
    check_int ~what:(what ^ " index") index r.index;
    let msg = Printexc.to_string e in
    List.iter (fun s -> check (contains msg s) "%s: message %S does not name %S" what msg s)
      [ "E_planted"; buffer; string_of_int index ]

let bounds_tests = [
  ("in bounds: the planted kernel copies", fun () ->
      let p = planted ~threads:4 ~shift:0 ~size:4 in
      let out = host_floats [| 0.; 0.; 0.; 0. |] and inp = host_floats [| 1.; 2.; 3.; 4. |] in
      Ops_emu.run p ~bufs:[| (out, 0, 16); (inp, 0, 16) |] ~vars:[||] ~global_size:[| 4; 1; 1 |]
        ~local_size:[| 1; 1; 1 |];
      check (Bigarray.Array1.sub out 0 16 = inp) "the copy differs");
  ("load past the end raises naming kernel, buffer and index", fun () ->
      let p = planted ~threads:4 ~shift:1 ~size:4 in
      let out = host_floats [| 0.; 0.; 0.; 0. |] and inp = host_floats [| 1.; 2.; 3.; 4. |] in
      expect_oob ~what:"load" ~access:"load" ~buffer:"data1" ~index:4 (fun () ->
          Ops_emu.run p ~bufs:[| (out, 0, 16); (inp, 0, 16) |] ~vars:[||] ~global_size:[| 4; 1; 1 |]
            ~local_size:[| 1; 1; 1 |]));
  ("store past the end raises, through the EMU device", fun () ->
      (* the kernel believes both buffers hold 8 floats; the output has 4, so the fifth thread stores out of
         it *)
      let dev = Device.get "EMU" in
      let src = Ops_emu.render (shifted_copy ~threads:5 ~shift:0 ~size:8) in
      let prg = dev.runtime ~name:"E_planted" ~lib:(dev.compiler.compile_cached src) ~runtimevars:[] in
      let out = Device.Buffer.create "EMU" 4 Dtype.Float32
      and inp = Device.Buffer.create "EMU" 8 Dtype.Float32 in
      Device.Buffer.copyin_floats inp (Array.init 8 float_of_int);
      expect_oob ~what:"store" ~access:"store" ~buffer:"data0" ~index:4 (fun () ->
          let launch = Device.Launch.of_buffers [ out; inp ] [] in
          ignore (Device.run_program ~global_size:[| 5; 1; 1 |] prg launch));
      check (Device.Buffer.to_floats out = [| 0.; 1.; 2.; 3. |]) "the stores before the fault differ");
]

(* ---------- tensor cores (tinygrad: test/backend/test_tensor_cores.py) ---------- *)

(* deterministic values in [0, 1) (tinygrad's Tensor.rand), the same on every run *)
let rand_floats seed n =
  let st = Random.State.make [| seed |] in
  Array.init n (fun _ -> Random.State.float st 1.0)

let is_kernel (c : Uop.t) = c.op == Ops.Call && c.src.(0).op == Ops.Sink

(* the CALL's kernel with KernelInfo.opts_to_apply set (tinygrad's replace_opts) *)
let with_opts opts (c : Uop.t) =
  let sink = c.src.(0) in
  match sink.arg with
  | Uop.Kernel_info k ->
    let sink = Uop.replace sink ~arg:(Uop.Kernel_info { k with opts_to_apply = Some opts }) in
    Uop.replace c ~src:(Array.append [| sink |] (Array.sub c.src 1 (Array.length c.src - 1)))
  | _ -> c

let linear_uops (prg : Uop.t) =
  match List.find_opt (fun (s : Uop.t) -> s.op == Ops.Linear) (Array.to_list prg.src) with
  | Some l -> Array.to_list l.src
  | None -> fail "the PROGRAM has no LINEAR"

let count_wmma prg = List.length (List.filter (fun (u : Uop.t) -> u.op == Ops.Wmma) (linear_uops prg))

let applied_tc prg =
  match prg.Uop.src.(0).arg with
  | Uop.Kernel_info k -> List.length (List.filter (fun (o : Opt.t) -> o.op = Opt.TC) k.applied_opts)
  | _ -> 0

(* tinygrad's helper_tc_allclose tolerances *)
let tc_tolerance ~din ~dout =
  match din, dout with
  | Dtype.Float16, _ -> (1e-2, 1e-3)
  | Dtype.Bfloat16, Dtype.Bfloat16 -> (1e-1, 2e-2)
  | Dtype.Bfloat16, _ -> (1e-2, 1e-2)
  | _ -> (5e-3, 1e-4)

let allclose ~what ~atol ~rtol want got =
  check (Array.length want = Array.length got) "%s: %d values, expected %d" what (Array.length got)
    (Array.length want);
  Array.iteri (fun i w ->
      let g = got.(i) in
      check (Float.abs (g -. w) <= atol +. (rtol *. Float.abs w)) "%s: element %d is %g, expected %g" what i
        g w)
    want

(* the matmul (m, k) @ (k, n) of dtype [din] accumulated in [dout], inputs from [seed]; on [device] *)
let is_fp8 d = List.memq d Dtype.fp8s

(* the matmul's inputs, realized; fp8 ones are cast from float32 on the device (no host conversion to fp8) *)
let matmul_inputs ~device ~m ~n ~k ~din ~seed =
  let make shape xs =
    if is_fp8 din then T.realize (T.cast (T.of_float_array ~dtype:Dtype.Float32 ~device shape xs) din)
    else T.of_float_array ~dtype:din ~device shape xs in
  (make [| m; k |] (rand_floats seed (m * k)), make [| k; n |] (rand_floats (seed + 1) (k * n)))

(* the oracle: the same matmul on the CPU, NOOPT. The host's clang has no __bf16 and no fp8 type: such a matmul
   runs there in float32 on the inputs rounded to their dtype on the host, its result rounded to the output dtype *)
let cpu_noopt_matmul ~m ~n ~k ~din ~dout ~seed =
  Helpers.context [ Helpers.Bind (Helpers.noopt, 1) ] (fun () ->
      let host_rounded d = d = Dtype.Bfloat16 || is_fp8 d in
      if host_rounded din || host_rounded dout then begin
        let round xs = Array.map (fun x -> Dtype.const_to_float (Dtype.truncate din (Dtype.F x))) xs in
        let f32 shape xs = T.of_float_array ~dtype:Dtype.Float32 ~device:"CPU" shape (round xs) in
        let a = f32 [| m; k |] (rand_floats seed (m * k))
        and b = f32 [| k; n |] (rand_floats (seed + 1) (k * n)) in
        let out x = Dtype.const_to_float (Dtype.truncate dout (Dtype.F x)) in
        Array.map out (T.to_float_array (T.matmul a b))
      end else
        let a, b = matmul_inputs ~device:"CPU" ~m ~n ~k ~din ~seed in
        T.to_float_array (T.matmul ~dtype:dout a b))

(* tinygrad: helper_tc_allclose / helper_tc_ensure_uops_and_opts_count: the matmul's kernel with
   Opt(TC, axis 0, (-1, tc_opt, 1)); [`Run] checks WMMA, one TC opt and the values, [`Rejected] checks the opt
   raises KernelOptError *)
let tc_case ~arch ~m ~n ~k ~din ~dout ~tc_opt expect () =
  let seed = (m * 7919) + (n * 31) + k in
  let want = match expect with `Run -> cpu_noopt_matmul ~m ~n ~k ~din ~dout ~seed | `Rejected -> [||] in
  on_target arch (fun () ->
      Helpers.context [ Helpers.Bind (Helpers.allow_tf32, 1) ] (fun () ->
          let a, b = matmul_inputs ~device:"EMU" ~m ~n ~k ~din ~seed in
          let r = T.matmul ~dtype:dout a b in
          let linear, _ = T.linear_with_vars [ r ] in
          let opts = [ { Opt.op = Opt.TC; axis = Some 0; arg = Opt.Tc (-1, tc_opt, 1) } ] in
          let opt_kernel c = if is_kernel c then with_opts opts c else c in
          let linear = Uop.replace linear ~src:(Array.map opt_kernel linear.src) in
          let ren = Device.renderer "EMU" in
          let kernels = List.filter is_kernel (Array.to_list linear.src) in
          match expect with
          | `Rejected ->
            List.iter (fun (c : Uop.t) ->
                match Codegen.to_program c.src.(0) ren with
                | _ -> fail "the TC opt applied (tc_opt %d), expected KernelOptError" tc_opt
                | exception Opt.Kernel_opt_error _ -> ()) kernels
          | `Run ->
            List.iter (fun (c : Uop.t) ->
                let prg = Codegen.to_program c.src.(0) ren in
                check (count_wmma prg > 0) "tensor core not triggered: no WMMA in the program";
                (* the listing DEBUG=4 prints *)
                check (contains (Codegen.program_source prg) "Ops.WMMA") "the source DEBUG prints shows no WMMA";
                check_int ~what:"TC opts applied" 1 (applied_tc prg)) kernels;
            Realize.run_linear linear;
            let atol, rtol = tc_tolerance ~din ~dout in
            allclose ~what:"TC matmul vs CPU NOOPT" ~atol ~rtol want (T.to_float_array r)))

let tc_name (tc : Tc.t) =
  let n, m, k = tc.dims in
  Printf.sprintf "%dx%dx%d %s->%s" n m k (Dtype.short_name tc.dtype_in) (Dtype.short_name tc.dtype_out)

(* TestTensorCores for one target: test_tensor_cores, test_tensor_cores_padded, test_tensor_cores_padded_uops;
   a tensor core whose dtypes the renderer does not support is reported as skipped *)
let tc_tests arch : case list =
  let ren = Ops_emu.renderer_for_arch arch in
  List.concat_map (fun (tc : Tc.t) ->
      let n, m, k = tc.dims and din = tc.dtype_in and dout = tc.dtype_out in
      let name what = Printf.sprintf "tc %s %s: %s" arch (tc_name tc) what in
      if not (List.memq din ren.supported_dtypes && List.memq dout ren.supported_dtypes) then
        [ (name "skipped", fun () ->
              Printf.printf "  emu: %s skipped: the renderer does not support its dtypes\n" (name "")) ]
      else
        let case ~m ~n ~k ~tc_opt e = tc_case ~arch ~m ~n ~k ~din ~dout ~tc_opt e in
        [ (name "exact shape, TC_OPT 0", case ~m ~n ~k ~tc_opt:0 `Run);
          (name "padded by 1, TC_OPT 2", case ~m:(m + 1) ~n:(n + 1) ~k:(k + 1) ~tc_opt:2 `Run);
          (name "padded by 1 needs TC_OPT 2", fun () ->
              case ~m:(m + 1) ~n:(n + 1) ~k:(k + 1) ~tc_opt:1 `Rejected ();
              case ~m:(m + 1) ~n:(n + 1) ~k:(k + 1) ~tc_opt:0 `Rejected ());
          (name "excessive padding is refused", fun () ->
              case ~m ~n:(n / 4) ~k ~tc_opt:2 `Rejected ();
              case ~m:(m / 4) ~n ~k ~tc_opt:2 `Rejected ();
              case ~m ~n ~k:(k / 8) ~tc_opt:2 `Rejected ()) ])
    ren.tensor_cores

(* a half matmul under the default heuristics (TC=1, no opts given): the tensor cores are taken *)
let default_tc_test arch = (Printf.sprintf "tc %s: default heuristics take the tensor cores" arch, fun () ->
    let m, n, k = (32, 64, 48) and din = Dtype.Float16 and dout = Dtype.Float32 in
    let want = cpu_noopt_matmul ~m ~n ~k ~din ~dout ~seed:5 in
    on_target arch (fun () ->
        let a, b = matmul_inputs ~device:"EMU" ~m ~n ~k ~din ~seed:5 in
        let r = T.matmul ~dtype:dout a b in
        let linear, _ = T.linear_with_vars [ r ] in
        let ren = Device.renderer "EMU" in
        List.iter (fun (c : Uop.t) ->
            if is_kernel c then
              check (count_wmma (Codegen.to_program c.src.(0) ren) > 0) "no WMMA in the program")
          (Array.to_list linear.src);
        Realize.run_linear linear;
        allclose ~what:"default matmul vs CPU NOOPT" ~atol:1e-2 ~rtol:1e-3 want (T.to_float_array r)))

(* ---------- a subset of the golden op suite ---------- *)

module H = Ops_harness

(* test functions whose kernels take seconds to minutes in the emulator (the gradient of std is quadratic in its
   input, attention and the large convolutions are big): [make test-emu] runs them *)
let slow_in_emulator =
  [ "test_std"; "test_var"; "test_scaled_dot_product_attention"; "test_scaled_dot_product_attention_gqa";
    "test_scaled_dot_product_attention_mismatch_ls"; "test_large_input_conv2d"; "test_max_pool2d_asymmetric_padding";
    "test_padded_conv3d"; "test_max_unpool2d"; "test_logcumsumexp" ]

(* the first case of every [stride]-th test function of the manifest (EMU_OPS_STRIDE, 3 by default), the slow
   ones left out *)
let ops_subset () =
  let stride = match Sys.getenv_opt "EMU_OPS_STRIDE" with Some s -> int_of_string s | None -> 3 in
  let seen = Hashtbl.create 512 in
  let firsts = List.filter (fun (c : H.case) ->
      if Hashtbl.mem seen c.test_name then false else (Hashtbl.add seen c.test_name (); true)) (H.cases ()) in
  let fast = List.filter (fun (c : H.case) -> not (List.mem c.test_name slow_in_emulator)) firsts in
  List.filteri (fun i _ -> i mod stride = 0) fast

(* one golden case on the target, forward and gradient against tinygrad's stored values; a case the op suite
   lists as a known failure is reported as skipped, with its reason *)
let ops_case arch (c : H.case) () =
  match List.assoc_opt c.test_name Test_ops_golden.translations with
  | None -> Test_util.skip "emu: %s has no OCaml translation" c.case_id
  | Some f ->
    let fwd, grad = on_target arch (fun () -> H.run_case f c) in
    let failed what = function H.Fail m -> [ what ^ ": " ^ m ] | H.Pass | H.Not_run _ -> [] in
    let msgs = failed "fwd" fwd @ failed "grad" grad in
    match msgs, Test_ops_golden.known c with
    | [], _ -> ()
    | _, Some reason -> Test_util.skip "emu: %s known failure (%s)" c.case_id reason
    | _ :: _, None -> fail "%s" (String.concat "; " msgs)

let ops_tests arch =
  List.map (fun (c : H.case) -> (Printf.sprintf "ops %s %s" arch c.case_id, ops_case arch c)) (ops_subset ())

(* BEAM=1 on the emulator: the candidates are timed on EMU (the kernel's buffers' device), not on the CUDA device
   the renderer names, and the kernel it picks computes the matmul *)
let beam_test = ("beam: BEAM=1 searches on the emulator", fun () ->
    let m, n, k = (8, 16, 4) and din = Dtype.Float32 and dout = Dtype.Float32 in
    let want = cpu_noopt_matmul ~m ~n ~k ~din ~dout ~seed:9 in
    on_target "sm_80" (fun () ->
        Helpers.context Helpers.[ Bind (beam, 1); Bind (ignore_beam_cache, 1) ] (fun () ->
            let a, b = matmul_inputs ~device:"EMU" ~m ~n ~k ~din ~seed:9 in
            allclose ~what:"BEAM matmul vs CPU NOOPT" ~atol:1e-5 ~rtol:1e-5 want
              (T.to_float_array (T.matmul ~dtype:dout a b)))))

(* the fp8 tensor cores of sm_89 (its other tensor cores are sm_80's) *)
let fp8_tc_tests () =
  List.filter (fun (name, _) -> contains name "fp8") (tc_tests "sm_89")

let tests =
  beam_test :: bounds_tests @ ops_tests "sm_80" @ ops_tests "METAL" @ tc_tests "sm_80" @ tc_tests "METAL"
  @ fp8_tc_tests ()
  @ [ default_tc_test "sm_80"; default_tc_test "METAL" ]
