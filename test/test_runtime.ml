(* Runtime layer: helpers knobs, Device/Buffer, and the CPU backend (clang, disk cache, dlopen, uniform entry).
   Kernels are hand-written in tinygrad's Clang style; expected values are computed by hand. *)
open Test_util
open Tinygrad.Compiler

let cpu () = Device.get "CPU"

(* compile (through the cache) and load a kernel *)
let load ?(runtimevars = []) src =
  let d = cpu () in
  let lib = d.compiler.compile_cached src in
  let name, _ = Compiler_cpu.signature src in
  d.runtime ~name ~lib ~runtimevars

let buf dtype n = Device.Buffer.create "CPU" n dtype

(* the address of a realized tensor's memory *)
let host_addr t = Device.Buffer.addr (realized_buffer t)
let floats_buf xs = let b = buf Dtype.Float32 (Array.length xs) in Device.Buffer.copyin_floats b xs; b

let check_floats ~what expected actual =
  check_eq ~what ~eq:(fun a b -> Array.length a = Array.length b && Array.for_all2 (fun x y -> x = y) a b)
    ~pp:(fun a -> "[" ^ String.concat "; " (Array.to_list (Array.map string_of_float a)) ^ "]") expected actual

(* a fresh comment so the source has never been compiled before by any run *)
let nonce () =
  Printf.sprintf "/* %d.%d.%f */\n" (Compiler_cpu.getpid_for_tests ()) (Random.State.bits (Random.State.make_self_init ()))
    (Helpers.perf_counter ())

let e_add_src = "void E_4(float* restrict data0_4, float* restrict data1_4, float* restrict data2_4) {\n\
                \  for (int Lidx0 = 0; Lidx0 < 4; Lidx0++) {\n\
                \    float val0 = (*(data1_4+Lidx0));\n\
                \    float val1 = (*(data2_4+Lidx0));\n\
                \    *(data0_4+Lidx0) = (val0+val1);\n\
                \  }\n}\n"

(* sum of data1[data2_ .. data3_) times 2: two int vars after the buffers, as tinygrad renders vars *)
let r_vars_src = "void r_8(float* restrict data0_1, float* restrict data1_8, const int data2_, const int data3_) {\n\
                 \  float acc0 = 0.0f;\n\
                 \  for (int Ridx0 = data2_; Ridx0 < data3_; Ridx0++) {\n\
                 \    acc0 = (acc0+(*(data1_8+Ridx0)));\n\
                 \  }\n\
                 \  *(data0_1+0) = (acc0*2.0f);\n}\n"

(* 13 buffers (12 inputs of 3 elements) and 2 int vars *)
let many_src =
  let ins = List.init 12 (fun i -> Printf.sprintf "float* restrict data%d_3" (i + 1)) in
  let sum = String.concat "+" (List.init 12 (fun i -> Printf.sprintf "(*(data%d_3+Lidx0))" (i + 1))) in
  Printf.sprintf "void E_3n(float* restrict data0_3, %s, const int data13_, const int data14_) {\n\
                 \  for (int Lidx0 = 0; Lidx0 < 3; Lidx0++) {\n\
                 \    *(data0_3+Lidx0) = ((%s)*((float)(data13_))+((float)(data14_)));\n\
                 \  }\n}\n" (String.concat ", " ins) sum

let core_src = "void E_4_t(int* restrict data0_4, const int core_id) {\n\
               \  *(data0_4+core_id) = (core_id*10+1);\n}\n"

let child_env = "TG_TEST_RUNTIME_CHILD_SRC"

(* the child process of the disk cache test: load the kernel from the cache with ASSERT_COMPILE=1 and run it *)
let () =
  match Sys.getenv_opt child_env with
  | None -> ()
  | Some file ->
    let ic = open_in_bin file in
    let src = really_input_string ic (in_channel_length ic) in
    close_in ic;
    let code =
      match
        let p = load src in
        let a = floats_buf [| 1.; 2.; 3.; 4. |] and b = floats_buf [| 10.; 20.; 30.; 40. |] and o = buf Dtype.Float32 4 in
        ignore (Device.run_program p (Device.Launch.of_buffers [ o; a; b ] []));
        Device.Buffer.to_floats o
      with
      | [| 11.; 22.; 33.; 44. |] when (Compiler_cpu.compile_count ()) = 0 -> 0
      | _ -> 3
      | exception e -> prerr_endline (Printexc.to_string e); 4 in
    exit code

(* kernel [k] of the batching tests: out[i] = in[i]*(k+1) + i through a static helper and a vector typedef
   that every such kernel declares under the same names, the typedef's alignment differing between odd and
   even [k] (so that two of them in one translation unit compile only with their file-scope names kept
   apart) *)
let batch_src k =
  Printf.sprintf "typedef float float4 __attribute__((aligned(%d),ext_vector_type(4)));\n\
                  static inline float tg_scale(float x) { return x*%d.0f; }\n\
                  void E_4_b%d(float* restrict data0_4, float* restrict data1_4) {\n\
                  \  float4 v = (float4){*(data1_4+0), *(data1_4+1), *(data1_4+2), *(data1_4+3)};\n\
                  \  for (int Lidx0 = 0; Lidx0 < 4; Lidx0++) {\n\
                  \    *(data0_4+Lidx0) = (tg_scale(v[Lidx0])+(float)Lidx0);\n\
                  \  }\n\
                  }\n" (if k mod 2 = 0 then 4 else 16) (k + 1) k

(* runs kernel [k] from [lib] on [1; 2; 3; 4] *)
let run_batch_kernel k lib =
  let p = (cpu ()).runtime ~name:(Printf.sprintf "E_4_b%d" k) ~lib ~runtimevars:[] in
  let a = floats_buf [| 1.; 2.; 3.; 4. |] and o = buf Dtype.Float32 4 in
  ignore (Device.run_program p (Device.Launch.of_buffers [ o; a ] []));
  Device.Buffer.to_floats o

let batch_expected k = Array.init 4 (fun i -> float_of_int ((i + 1) * (k + 1) + i))

let cache_program_env = "TG_TEST_RUNTIME_CHILD_PROGRAM"

(* the child process of the cross-process cache test: a small tensor program of several kernels; prints the
   sources it handed to the compiler and the values *)
let () =
  match Sys.getenv_opt cache_program_env with
  | None -> ()
  | Some _ ->
    let a = Tensor.of_float_array [| 2; 3 |] [| 1.; 2.; 3.; 4.; 5.; 6. |] in
    let r = Tensor.sum ~axis:[ 1 ] (Tensor.relu (Tensor.sub (Tensor.mul a a) (Tensor.scalar 10.))) in
    let m = Tensor.O.(a *@ Tensor.transpose a) in
    let v = Array.append (Tensor.to_float_array r) (Tensor.to_float_array m) in
    Printf.printf "compiled %d values %s\n%!" (Compiler_cpu.compile_count ())
      (String.concat " " (Array.to_list (Array.map (Printf.sprintf "%g") v)));
    exit 0

let run_child ?(assert_compile = true) file =
  Sys.command (Printf.sprintf "CCACHE=1 %s=%s %s %s" child_env (Filename.quote file)
                 (if assert_compile then "ASSERT_COMPILE=1" else "") (Filename.quote Sys.executable_name))

let write_tmp s =
  let f = Filename.temp_file "tg_rt" ".c" in
  let oc = open_out_bin f in
  output_string oc s; close_out oc; f


(* ---------- the core_id shard pool ---------- *)

(* each shard adds (1 + data2_) to its own slot of data0 and writes data1[core_id] = core_id * data3_: a shard run
   twice or never shows in the counts; core_id is var slot 1, between two other vars *)
let pool_src = "void E_acc_t(int* restrict data0_64, int* restrict data1_64, const int data2_, const int core_id, const int data3_) {\n\
               \  *(data0_64+core_id) = (*(data0_64+core_id))+1+data2_;\n\
               \  *(data1_64+core_id) = core_id*data3_;\n}\n"

(* a shard sums 1024 rows x 1024 floats /(n shards) and writes each row sum: real work, so the shards overlap *)
let pool_rows_src = "void r_rows_t(float* restrict data0_256, float* restrict data1_262144, const int core_id) {\n\
                    \  for (int Lidx0 = 0; Lidx0 < 64; Lidx0++) {\n\
                    \    int row = core_id*64+Lidx0;\n\
                    \    float acc0 = 0.0f;\n\
                    \    for (int Ridx0 = 0; Ridx0 < 1024; Ridx0++) { acc0 = (acc0+(*(data1_262144+row*1024+Ridx0))); }\n\
                    \    *(data0_256+row) = acc0;\n\
                    \  }\n}\n"

(* 20 vars, core_id in slot 17: grows the pool's per-thread var arrays *)
let pool_many_vars_src =
  let ps = List.init 20 (fun i -> if i = 17 then "const int core_id" else Printf.sprintf "const int data%d_" (i + 1)) in
  Printf.sprintf "void E_mv_t(int* restrict data0_8, %s) {\n\
                 \  *(data0_8+core_id) = data1_+data19_*100+data20_*1000+core_id*10;\n}\n" (String.concat ", " ps)

let with_pool n f = Helpers.(context [ Bind (Helpers.cpu_pool, n) ]) f

(* (name, global size 0) of the compiled kernels of a tensor that have a core_id var; the LINEAR is compiled and then
   run (linear_with_vars hands the tensor's buffers over to it) *)
let realize_thread_kernels t =
  let lin, var_vals = Tensor.linear_with_vars [ t ] in
  let lin = Realize.compile_linear lin in
  Realize.run_linear ~var_vals ~jit:true lin;
  List.filter_map (fun (c : Uop.t) ->
      let ast = c.src.(0) in
      if ast.op != Ops.Program then None
      else
        let info = match ast.arg with Uop.Program_info p -> p | _ -> fail "PROGRAM without ProgramInfo" in
        if List.exists (fun v -> Uop.expr v = "core_id") info.vars then
          Some (info.pname, (match info.global_size with Uop.Sint g :: _ -> g | _ -> -1))
        else None) (Array.to_list lin.src)

(* Tensor(list(range(512*1024)), dtype=int32).reshape(512,1024).sum(1): row r is r*1024*1024 + 1023*1024/2 *)
let rows_sum_expected rows cols = Array.init rows (fun r -> r * cols * cols + (cols - 1) * cols / 2)
let rows_sum rows cols =
  Tensor.sum ~axis:[ 1 ] (Tensor.of_int_array ~dtype:Dtype.Int32 [| rows; cols |] (Array.init (rows * cols) Fun.id))

(* the cached E_4 kernel [lib] loads and adds, and [bad] compiled through the cache raises with the compiler's
   message ([why] says what that shows) *)
let cached_add_runs_and_bad_source_fails c ~lib ~bad ~why =
  let p = (cpu ()).runtime ~name:"E_4" ~lib ~runtimevars:[] in
  let a = floats_buf [| 1.; 2.; 3.; 4. |] and b = floats_buf [| 3.; 2.; 1.; -4. |] and o = buf Dtype.Float32 4 in
  ignore (Device.run_program p (Device.Launch.of_buffers [ o; a; b ] []));
  check_floats ~what:"a+b" [| 4.; 4.; 4.; 0. |] (Device.Buffer.to_floats o);
  match Compiler_cpu.compile_cached c bad with
  | _ -> fail "expected Compile_error"
  | exception Device.Compile_error { output; _ } -> check (String.length output > 0) "%s" why

let tests : case list = [
  ("host_vector_width_is_the_compilers_native_target", fun () ->
      (* the compiler's own predefined macros for -march=native, the independent answer *)
      if Compiler_cpu.machine () <> "x86_64" || not (Sys.file_exists "/usr/bin/clang") then
        skip "host_vector_width: needs clang on x86_64"
      else begin
        let out = Filename.temp_file "tg_macros" ".h" in
        let rc = Sys.command (Printf.sprintf "clang -march=native -dM -E -x c /dev/null > %s 2> /dev/null"
                                (Filename.quote out)) in
        let ic = open_in_bin out in
        let text = really_input_string ic (in_channel_length ic) in
        close_in ic;
        Sys.remove out;
        check_int ~what:"clang -dM -E" 0 rc;
        let defines m = List.exists (fun l -> match String.split_on_char ' ' l with
            | [ "#define"; n; _ ] -> n = m | _ -> false) (String.split_on_char '\n' text) in
        let expected = if defines "__AVX512F__" then 16 else if defines "__AVX__" then 8 else 4 in
        check_int ~what:"float32 lanes" expected (Compiler_cpu.host_vector_width ())
      end);
  ("helpers_to_function_name", fun () ->
      check_str ~what:"plain" "E_4_4" (Helpers.to_function_name "E_4_4");
      check_str ~what:"ansi and symbols" "r_4n1" (Helpers.to_function_name "\x1b[34mr\x1b[0m_4n1");
      check_str ~what:"hex" "a2Bb" (Helpers.to_function_name "a+b"));

  ("helpers_int_division", fun () ->
      check_int ~what:"cdiv -7 2" (-3) (Helpers.cdiv (-7) 2);
      check_int ~what:"cmod -7 2" (-1) (Helpers.cmod (-7) 2);
      check_int ~what:"floordiv -7 2" (-4) (Helpers.floordiv (-7) 2);
      check_int ~what:"floormod -7 2" 1 (Helpers.floormod (-7) 2);
      check_int ~what:"floordiv 7 -2" (-4) (Helpers.floordiv 7 (-2));
      check_int ~what:"ceildiv 7 2" 4 (Helpers.ceildiv 7 2);
      check_int ~what:"ceildiv -7 2" (-3) (Helpers.ceildiv (-7) 2);
      check_int ~what:"round_up" 12 (Helpers.round_up 9 4);
      check_int ~what:"next_power2" 8 (Helpers.next_power2 5);
      check_int ~what:"prod" 24 (Helpers.prod [ 2; 3; 4 ]);
      check_str ~what:"strip_parens" "a+(b)" (Helpers.strip_parens "(a+(b))");
      check_str ~what:"strip_parens unbalanced" "(a)+(b)" (Helpers.strip_parens "(a)+(b)"));

  ("helpers_context_restores", fun () ->
      let before = Helpers.debug.value in
      Helpers.(context [ Bind (debug, 5); Bind (noopt, 1) ] (fun () ->
          check_int ~what:"inside" 5 debug.value; check_int ~what:"noopt" 1 noopt.value));
      check_int ~what:"restored" before Helpers.debug.value;
      (try Helpers.(context [ Bind (debug, 6) ] (fun () -> failwith "boom")) with Failure _ -> ());
      check_int ~what:"restored after exception" before Helpers.debug.value);

  ("helpers_knobs_current_sees_every_change", fun () ->
      (* a setting that matched once is answered without comparing its knobs until one is set: a [set] or a
         [context] after the match must still make it stale, and setting the old value back current again *)
      let k = Helpers.knobs () in
      check (Helpers.knobs_current k) "the knobs just read are current";
      check (Helpers.knobs_current k) "and still current when asked again";
      let noopt = Helpers.noopt.value in
      Helpers.set Helpers.noopt (1 - noopt);
      check (not (Helpers.knobs_current k)) "NOOPT set to %d: stale" (1 - noopt);
      Helpers.set Helpers.noopt noopt;
      check (Helpers.knobs_current k) "NOOPT set back: current";
      Helpers.(context [ Bind (beam, beam.value + 1) ] (fun () ->
          check (not (knobs_current k)) "inside a context that changes BEAM: stale"));
      check (Helpers.knobs_current k) "after the context: current");

  ("helpers_target_parse", fun () ->
      let t = Helpers.target_parse "pci:1+amd:llvm:gfx1100" in
      check_str ~what:"device" "AMD" t.device; check_str ~what:"renderer" "LLVM" t.renderer;
      check_str ~what:"arch" "gfx1100" t.arch; check_str ~what:"iface" "pci" t.interface;
      check_str ~what:"indices" "1" t.indices;
      check_str ~what:"repr" "pci:1+AMD:LLVM:gfx1100" (Helpers.target_to_string t));

  ("device_canonicalize_and_default", fun () ->
      check_str ~what:"cpu:0" "CPU" (Device.canonicalize (Some "cpu:0"));
      check_str ~what:"cuda:1" "CUDA:1" (Device.canonicalize (Some "cuda:1"));
      check_str ~what:"CUDA:0" "CUDA" (Device.canonicalize (Some "CUDA:0"));
      check_str ~what:"Cpu:1" "CPU:1" (Device.canonicalize (Some "Cpu:1"));
      check_str ~what:"disk:/tmp/a" "DISK:/tmp/a" (Device.canonicalize (Some "disk:/tmp/a"));
      let name = String.concat ":" [ "CUDA"; "1" ] in
      check (Device.canonicalize (Some name) == name) "a canonical name is returned as it is";
      if Helpers.dev_device () = "" then check_str ~what:"default" "CPU" (Device.default ());
      check_invalid_arg ~what:"unknown device" (fun () -> Device.get "NOPE"));

  ("signature_and_entry", fun () ->
      let name, ps = Compiler_cpu.signature
          "typedef float float4 __attribute__((aligned(16),ext_vector_type(4)));\n\
           void r_8(float* restrict data0_1024, unsigned int* restrict data1_1000, const int data2_) {\n}\n" in
      check_str ~what:"name" "r_8" name;
      check (ps = [ Compiler_cpu.Buf "float*"; Buf "unsigned int*"; Var "int" ]) "params";
      check_str ~what:"wrapper"
        "\nvoid r_8_entry(void **bufs, long long *vars) { (void)bufs; (void)vars; \
         r_8((float*)bufs[0], (unsigned int*)bufs[1], (int)vars[0]); }\n"
        (Compiler_cpu.entry_wrapper "void r_8(float* restrict data0_1024, unsigned int* restrict data1_1000, const int data2_) {}"));

  ("buffer_lazy_alloc_copy_roundtrip", fun () ->
      let b = buf Dtype.Float32 4 in
      check_bool ~what:"lazy" false (Device.Buffer.is_allocated b);
      Device.Buffer.copyin_floats b [| 1.5; -2.; 3.25; 0. |];
      check_bool ~what:"allocated" true (Device.Buffer.is_allocated b);
      check_floats ~what:"roundtrip" [| 1.5; -2.; 3.25; 0. |] (Device.Buffer.to_floats b);
      let a = Bigarray.(Array1.of_array float32 c_layout [| 9.; 8.; 7.; 6. |]) in
      Device.Buffer.copyin b a;
      let o = Bigarray.(Array1.create float32 c_layout 4) in
      Device.Buffer.copyout b o;
      check (o.{0} = 9. && o.{3} = 6.) "bigarray copy";
      let v = Device.Buffer.view b 2 Dtype.Float32 8 in
      check_floats ~what:"view" [| 7.; 6. |] (Device.Buffer.to_floats v);
      check (Device.Buffer.addr v = Nativeint.add (Device.Buffer.addr b) 8n) "view address";
      check_invalid_arg ~what:"size mismatch" (fun () -> Device.Buffer.copyin b (Bigarray.(Array1.create float32 c_layout 3))));

  ("buffer_dtypes", fun () ->
      let h = buf Dtype.Float16 4 in
      Device.Buffer.copyin_floats h [| 1.5; -2.; 65504.; 5.9604644775390625e-08 |];
      check_floats ~what:"half" [| 1.5; -2.; 65504.; 5.9604644775390625e-08 |] (Device.Buffer.to_floats h);
      let raw = Device.Buffer.as_bytes h in
      check (Char.code raw.{0} = 0x00 && Char.code raw.{1} = 0x3e) "1.5 is 0x3e00 in half";
      let bf = buf Dtype.Bfloat16 2 in
      Device.Buffer.copyin_floats bf [| 1.0; -0.5 |];
      check_floats ~what:"bfloat16" [| 1.0; -0.5 |] (Device.Buffer.to_floats bf);
      let u = buf Dtype.Uint32 2 in
      Device.Buffer.copyin_ints u [| 4294967295; 7 |];
      check (Device.Buffer.to_ints u = [| 4294967295; 7 |]) "uint32";
      let i8 = buf Dtype.Int8 2 in
      Device.Buffer.copyin_ints i8 [| -3; 100 |];
      check (Device.Buffer.to_ints i8 = [| -3; 100 |]) "int8");

  ("lru_allocator_reuses", fun () ->
      let a = buf Dtype.Float32 1000 in
      ignore (Device.Buffer.ensure_allocated a);
      let o = a.opaque in
      Device.Buffer.deallocate a;
      let b = buf Dtype.Float32 1000 in
      ignore (Device.Buffer.ensure_allocated b);
      check (match (o, b.opaque) with Some x, Some y -> x == y | _ -> false) "same memory reused";
      Helpers.(context [ Bind (lru, 0) ] (fun () ->
          Device.Buffer.deallocate b;
          let c = buf Dtype.Float32 1000 in
          ignore (Device.Buffer.ensure_allocated c);
          check (match (o, c.opaque) with Some x, Some y -> x != y | _ -> false) "LRU=0 does not cache")));

  ("cpu_size_class", fun () ->
      (* under 4 MiB exact; from 4 MiB up to a multiple of 2^(bit_length - 4), computed by hand *)
      List.iter (fun (n, c) -> check_int ~what:(Printf.sprintf "size_class %d" n) c (Ops_cpu.size_class n))
        [ (1, 1); (4_194_303, 4_194_303); (4_194_304, 4_194_304); (4_194_305, 4_718_592);
          (5_000_000, 5_242_880); (5_242_880, 5_242_880); (5_242_881, 5_767_168);
          (171_790_000, 184_549_376); (172_110_000, 184_549_376) ]);

  ("cpu_lru_reuses_a_freed_buffer_of_the_same_size_class", fun () ->
      (* 4_990_007 and 5_100_011 bytes are both 5_242_880 (10 * 2^19) bytes of memory: freeing the first
         hands its memory to the second; a live buffer of that class keeps its own memory and its values *)
      let live = buf Dtype.Uint8 4_990_007 in
      Device.Buffer.copyin_ints live (Array.init 4_990_007 (fun i -> i land 0x7f));
      let a = Device.Buffer.ensure_allocated (buf Dtype.Uint8 4_990_007) in
      let addr = Device.Buffer.addr a in
      Device.Buffer.deallocate a;
      let b = Device.Buffer.ensure_allocated (buf Dtype.Uint8 5_100_011) in
      (* SANITIZE=1 keeps exact sizes: the address sanitizer's bounds then end where the buffer does *)
      if Helpers.sanitize.value = 0 then
        check (Device.Buffer.addr b = addr) "the larger request of the same class reuses the freed memory"
      else check (Device.Buffer.addr b <> addr) "under SANITIZE=1 a larger request gets memory of its own";
      check (Device.Buffer.addr b <> Device.Buffer.addr live) "and not the live buffer's";
      Device.Buffer.copyin_ints b (Array.make 5_100_011 3);
      check (Array.for_all (( = ) 3) (Device.Buffer.to_ints b)) "the reused memory holds the values written";
      let v = Device.Buffer.to_ints live in
      check (Array.length v = 4_990_007 && Array.for_all Fun.id (Array.mapi (fun i x -> x = i land 0x7f) v))
        "the live buffer keeps its values";
      Device.Buffer.deallocate b;
      let c = Device.Buffer.ensure_allocated (buf Dtype.Uint8 5_242_881) in
      check (Device.Buffer.addr c <> addr) "a request of the next class does not get that memory";
      Device.Buffer.deallocate c;
      (* an exact allocator (the emulator's) keeps tinygrad's exact sizes *)
      let e = Ops_cpu.allocator ~exact:true () in
      let o = e.alloc 4_990_007 Device.default_spec in
      e.free o 4_990_007 Device.default_spec;
      let o' = e.alloc 5_100_011 Device.default_spec in
      check (e.addr o <> e.addr o') "the exact allocator does not hand a smaller buffer to a larger request";
      ignore (Sys.opaque_identity (o, o')));

  ("run_elementwise", fun () ->
      let p = load e_add_src in
      let a = floats_buf [| 1.; 2.; 3.; 4. |] and b = floats_buf [| 0.5; -2.; 10.; 100. |] and o = buf Dtype.Float32 4 in
      ignore (Device.run_program p (Device.Launch.of_buffers [ o; a; b ] []));
      check_floats ~what:"a+b" [| 1.5; 0.; 13.; 104. |] (Device.Buffer.to_floats o));

  ("libraries_closed_after_their_programs_are_collected", fun () ->
      let d = cpu () in
      let srcs = List.init 20 (fun _ -> nonce () ^ e_add_src) in
      let libs = List.map d.compiler.compile_cached srcs in
      Gc.full_major ();
      let n0 = Ops_cpu.loaded_libraries () in
      let load lib = Ops_cpu.load ~name:"E_4" ~lib ~runtimevars:[] in
      let progs = List.map load libs in
      check_int ~what:"20 libraries opened" (n0 + 20) (Ops_cpu.loaded_libraries ());
      let keep = List.hd progs and again = load (List.hd libs) in
      ignore (Sys.opaque_identity progs);
      Gc.full_major ();
      check_int ~what:"all but the one still used closed" (n0 + 1) (Ops_cpu.loaded_libraries ());
      let run p =
        let a = floats_buf [| 1.; 2.; 3.; 4. |] and b = floats_buf [| 1.; 1.; 1.; 1. |] and o = buf Dtype.Float32 4 in
        Ops_cpu.call p (Device.Launch.of_buffers [ o; a; b ] []) ~global_size:[| 1 |];
        check_floats ~what:"a+b" [| 2.; 3.; 4.; 5. |] (Device.Buffer.to_floats o) in
      run keep; run again;
      ignore (Sys.opaque_identity keep);
      Gc.full_major ();
      ignore (Sys.opaque_identity again);
      Gc.full_major ();
      check_int ~what:"the last one closed too" n0 (Ops_cpu.loaded_libraries ());
      (* a closed library loads again *)
      run (load (List.nth libs 5)));

  ("cpu_dead_output_memory_reused_at_once", fun () ->
      (* 64K floats (256 KiB: above the size for which the allocator collects the minor heap), x + k realized 40
         times and dropped, k a 1-element buffer set to the step number (one kernel for every step): tinygrad frees
         each result at once and its LRU cache hands the memory to the next one; here the minor collection before
         the next tensor finds it (without that collection: 22 buffers) *)
      let n = 65536 in
      let x = Tensor.realize (Tensor.full [| n |] 1.5) and k = Tensor.realize (Tensor.full [| 1 |] 0.) in
      let addrs = Hashtbl.create 8 in
      for i = 1 to 40 do
        Device.Buffer.copyin_floats (realized_buffer k) [| float_of_int i |];
        let y = Tensor.realize (Tensor.add x k) in
        Hashtbl.replace addrs (host_addr y) ();
        (* 8 values read through a view: a minor collection while [y] is alive (a tensor made, as
           Tensor.to_float_array does, or a big Bigarray, which speeds up the GC) would promote [y], whose memory
           would then wait for a major cycle *)
        let v = Device.Buffer.to_floats (Device.Buffer.view (realized_buffer y) 8 Dtype.Float32 (4 * ((i * 7919) mod (n - 8)))) in
        check (Array.for_all (fun e -> e = 1.5 +. float_of_int i) v) "step %d: x + %d" i i
      done;
      check (Hashtbl.length addrs <= 3) "%d host buffers for 40 dropped results" (Hashtbl.length addrs));

  ("cpu_live_memory_never_reused", fun () ->
      (* the same loop keeping every result: each has memory of its own and keeps its values through collections
         (a buffer handed to a new result while still reachable would be overwritten) *)
      let n = 65536 in
      let x = Tensor.realize (Tensor.full [| n |] 1.5) in
      let ys = List.init 24 (fun i ->
          let y = Tensor.realize (Tensor.add x (Tensor.scalar (float_of_int i))) in
          if i mod 6 = 5 then Gc.full_major ();
          y) in
      let addrs = List.sort_uniq compare (List.map host_addr ys) in
      check_int ~what:"distinct host buffers" 24 (List.length addrs);
      Gc.full_major ();
      List.iteri (fun i y ->
          let v = Tensor.to_float_array y in
          check (Array.for_all (fun e -> e = 1.5 +. float_of_int i) v) "result %d kept x + %d" i i) ys);

  ("cpu_dropped_output_still_read_by_a_lazy_tensor_is_kept", fun () ->
      (* each y is dropped while z = y * 2 still reads its buffer: tinygrad keeps the buffer (z's graph
         holds it), and so must the realizes of the same size in between, which reuse whatever memory was
         released *)
      let n = 65536 in
      let x = Tensor.realize (Tensor.full [| n |] 1.5) in
      let zs = List.init 4 (fun i ->
          let y = Tensor.realize (Tensor.add x (Tensor.scalar (float_of_int i))) in
          Tensor.mul y (Tensor.scalar 2.)) in
      Gc.full_major ();
      for _ = 1 to 4 do ignore (Tensor.realize (Tensor.add x (Tensor.scalar 100.))) done;
      List.iteri (fun i z ->
          let v = Tensor.to_float_array z in
          let want = 2. *. (1.5 +. float_of_int i) in
          check (Array.for_all (fun e -> e = want) v) "z %d = 2 (1.5 + %d)" i i) zs);

  ("cpu_output_kept_by_its_uop_alone_is_released_with_its_last_tensor", fun () ->
      (* not in tinygrad, where a UOp or a Buffer object keeps its memory: here a realize's output goes back
         once no live tensor reaches it, even while the program keeps its UOp and its Buffer; the Buffer then
         fails loudly instead of reading memory that another result owns *)
      let n = 65536 in
      let x = Tensor.realize (Tensor.full [| n |] 1.5) in
      let u, b = (fun () ->
          let t = Tensor.realize (Tensor.add x (Tensor.scalar 1.)) in
          (Tensor.uop t, realized_buffer t)) () in
      Gc.full_major ();
      let y = Tensor.realize (Tensor.add x (Tensor.scalar 2.)) in
      check (Array.for_all (fun e -> e = 3.5) (Tensor.to_float_array y)) "x + 2";
      check_invalid_arg ~what:"reading the dropped result's buffer" (fun () -> Device.Buffer.to_floats b);
      ignore (Sys.opaque_identity u));

  ("tensor_registry_forgets_a_dropped_tensor_at_the_next_minor_collection", fun () ->
      (* tinygrad's all_tensors loses a tensor with its last reference; here a handle dropped young is found
         at the next minor collection: on OCaml 4 its weak slot is cleared, on OCaml 5 (which promotes what a
         weak slot refers to) nothing weak refers to it and its finaliser runs *)
      Gc.minor ();
      let n0 = List.length (Tensor_base.all_tensors ()) in
      (fun () -> ignore (Sys.opaque_identity (Tensor.full [| 3 |] 2.))) ();
      Gc.minor ();
      check_int ~what:"live tensors after a minor collection" n0 (List.length (Tensor_base.all_tensors ())));

  ("cpu_reused_memory_is_zeroed_for_zero_buffers_and_free_cache_returns_it", fun () ->
      (* a size no other test uses: the dead buffer's memory is the only one of its size in the pool *)
      let size = 300_017 in
      let addr = ref 0n in
      (fun () ->
         let b = Device.Buffer.ensure_allocated (buf Dtype.Uint8 size) in
         Device.Buffer.copyin_ints b (Array.make size 7);
         addr := Device.Buffer.addr b) ();
      Gc.full_major ();
      let _, pooled = Ops_cpu.host_memory () in
      check (pooled >= size) "the dead buffer's memory is kept for reuse (%d bytes pooled)" pooled;
      let z = Device.Buffer.ensure_allocated
          (Device.Buffer.create ~options:{ Device.default_spec with zero = true } "CPU" size Dtype.Uint8) in
      check (Device.Buffer.addr z = !addr) "a zero buffer of the same size reuses that memory";
      check (Array.for_all (( = ) 0) (Device.Buffer.to_ints z)) "and reads zeros";
      ignore (Sys.opaque_identity z);
      Gc.full_major ();
      (cpu ()).allocator.free_cache ();
      check_int ~what:"bytes pooled after free_cache" 0 (snd (Ops_cpu.host_memory ())));

  ("cpu_failed_allocation_frees_the_pool_and_raises_out_of_memory", fun () ->
      (* a dead buffer's memory in the pool, then 1 PiB (more than a 47-bit address space): the allocation fails,
         the LRU allocator frees the cache (the pool) and retries once, and Out_of_memory reaches the caller *)
      let size = 300_023 in
      (fun () -> ignore (Device.Buffer.ensure_allocated (buf Dtype.Uint8 size))) ();
      Gc.full_major ();
      check (snd (Ops_cpu.host_memory ()) >= size) "the dead buffer's memory is pooled";
      (match (cpu ()).allocator.alloc (1 lsl 50) Device.default_spec with
       | _ -> fail "a 1 PiB allocation succeeded"
       | exception Out_of_memory -> ());
      check_int ~what:"bytes pooled after the failed allocation" 0 (snd (Ops_cpu.host_memory ())));

  ("launch_keeps_memory_alive_across_gc", fun () ->
      let p = load e_add_src in
      let o = buf Dtype.Float32 4 in
      let l = Device.Launch.of_buffers [ o; floats_buf [| 1.; 2.; 3.; 4. |]; floats_buf [| 1.; 1.; 1.; 1. |] ] [] in
      Gc.full_major (); Gc.compact ();
      ignore (List.init 1000 (fun _ -> floats_buf [| 0.; 0.; 0.; 0. |]));
      ignore (Device.run_program p l);
      check_floats ~what:"inputs still alive" [| 2.; 3.; 4.; 5. |] (Device.Buffer.to_floats o));

  ("run_int_vars_reused_launch", fun () ->
      let p = load r_vars_src in
      let a = floats_buf [| 1.; 2.; 3.; 4.; 5.; 6.; 7.; 8. |] and o = buf Dtype.Float32 1 in
      let l = Device.Launch.of_buffers [ o; a ] [ 2; 5 ] in
      ignore (Device.run_program p l);
      check_floats ~what:"2*(3+4+5)" [| 24. |] (Device.Buffer.to_floats o);
      Device.Launch.set_var l 0 0; Device.Launch.set_var l 1 8;
      ignore (Device.run_program p l);
      check_floats ~what:"2*36" [| 72. |] (Device.Buffer.to_floats o));

  ("run_13_buffers_2_vars", fun () ->
      let p = load many_src in
      let ins = List.init 12 (fun i -> floats_buf [| float_of_int i; 1.; float_of_int (i * i) |]) in
      let o = buf Dtype.Float32 3 in
      ignore (Device.run_program p (Device.Launch.of_buffers (o :: ins) [ 3; -1 ]));
      (* sum i = 66, sum 1 = 12, sum i^2 = 506; then *3 - 1 *)
      check_floats ~what:"sum*3-1" [| 197.; 35.; 1517. |] (Device.Buffer.to_floats o));

  ("run_core_id_shards", fun () ->
      let p = load ~runtimevars:[ ("core_id", 0) ] core_src in
      let o = buf Dtype.Int32 4 in
      Device.Buffer.copyin_ints o [| 0; 0; 0; 0 |];
      ignore (Device.run_program ~global_size:[| 4; 1; 1 |] p (Device.Launch.of_buffers [ o ] [ 0 ]));
      check (Device.Buffer.to_ints o = [| 1; 11; 21; 31 |]) "each shard wrote its slot");

  ("compile_error_carries_source_and_message", fun () ->
      let src = "void E_bad(float* restrict data0_1) {\n  *(data0_1+0) = undefined_thing;\n}\n" in
      match (cpu ()).compiler.compile src with
      | _ -> fail "expected Compile_error"
      | exception Device.Compile_error { source; output } ->
        let has s sub = let n = String.length sub in
          let rec go i = i + n <= String.length s && (String.sub s i n = sub || go (i + 1)) in go 0 in
        check (has source "undefined_thing") "source in the exception";
        check (has output "undefined_thing" && has output "error") "compiler message: %s" output);

  ("disk_cache_reused_by_second_process", fun () -> Helpers.(context [ Bind (ccache, 1) ]) @@ fun () ->
      let src = nonce () ^ e_add_src in
      let c = Compiler_cpu.create () in
      let key = match c.cachekey with Some k -> k | None -> fail "CCACHE=1 gives no cache key" in
      let path = Compiler_cpu.cache_path c key src in
      check_bool ~what:"not cached yet" false (Sys.file_exists path);
      let n0 = (Compiler_cpu.compile_count ()) in
      check_str ~what:"path" path (Compiler_cpu.compile_cached c src);
      check_int ~what:"one compile" (n0 + 1) (Compiler_cpu.compile_count ());
      check_str ~what:"hit" path (Compiler_cpu.compile_cached c src);
      check_int ~what:"no recompile" (n0 + 1) (Compiler_cpu.compile_count ());
      let f = write_tmp src in
      check_int ~what:"child exit (0: ran from cache without compiling)" 0 (run_child f);
      Sys.remove f);

  ("compile_many_fills_cache_in_parallel", fun () -> Helpers.(context [ Bind (ccache, 1); Bind (parallel, 2) ]) @@ fun () ->
      let c = Compiler_cpu.create () in
      let key = match c.cachekey with Some k -> k | None -> fail "CCACHE=1 gives no cache key" in
      let good = List.init 3 (fun _ -> nonce () ^ e_add_src) in
      let bad = nonce () ^ "void E_bad(float* restrict data0_1) {\n  *(data0_1+0) = undefined_thing;\n}\n" in
      let n0 = (Compiler_cpu.compile_count ()) in
      Compiler_cpu.compile_many c (bad :: good @ good);
      check_int ~what:"one compiler run per distinct source" (n0 + 4) (Compiler_cpu.compile_count ());
      List.iter (fun src -> check_bool ~what:"cached" true (Sys.file_exists (Compiler_cpu.cache_path c key src))) good;
      check_bool ~what:"a failing source leaves no file" false (Sys.file_exists (Compiler_cpu.cache_path c key bad));
      (* the cached objects are complete: loading and running one needs no compile *)
      let src = List.nth good 1 in
      let lib = Compiler_cpu.compile_cached c src in
      check_int ~what:"no recompile" (n0 + 4) (Compiler_cpu.compile_count ());
      cached_add_runs_and_bad_source_fails c ~lib ~bad ~why:"the compiler's message comes from compile_cached");

  ("prefetch_compiles_in_the_background_into_the_cache", fun () ->
      Helpers.(context [ Bind (ccache, 1); Bind (parallel, 2) ]) @@ fun () ->
      let c = Compiler_cpu.create () in
      let key = match c.cachekey with Some k -> k | None -> fail "CCACHE=1 gives no cache key" in
      let good = List.init 3 (fun _ -> nonce () ^ e_add_src) in
      let bad = nonce () ^ "void E_bad(float* restrict data0_1) {\n  *(data0_1+0) = undefined_thing;\n}\n" in
      let n0 = Compiler_cpu.compile_count () in
      (* more sources than PARALLEL: the oldest compiler is waited for before a third one starts *)
      List.iter (Compiler_cpu.prefetch c) (good @ [ bad ] @ good);
      check_int ~what:"one compiler run per distinct source" (n0 + 4) (Compiler_cpu.compile_count ());
      List.iter (fun src ->
          check_str ~what:"compile_cached waits for the prefetched object" (Compiler_cpu.cache_path c key src)
            (Compiler_cpu.compile_cached c src)) good;
      check_int ~what:"no compile after the prefetches" (n0 + 4) (Compiler_cpu.compile_count ());
      let lib = Compiler_cpu.compile_cached c (List.hd good) in
      check_bool ~what:"the cached object is whole" true (Compiler_cpu.intact lib);
      cached_add_runs_and_bad_source_fails c ~lib ~bad ~why:"a failed prefetch is compiled again, and its message reported");

  ("prefetch_batches_queued_kernels_into_one_compiler", fun () ->
      Helpers.(context [ Bind (ccache, 1); Bind (parallel, 2) ]) @@ fun () ->
      let c = Compiler_cpu.create () in
      let key = match c.cachekey with Some k -> k | None -> fail "CCACHE=1 gives no cache key" in
      let srcs = List.init 5 (fun k -> nonce () ^ batch_src k) in
      let n0 = Compiler_cpu.compile_count () and p0 = Compiler_cpu.process_count () in
      (* while the caller goes on, one compiler (PARALLEL - 1): the first starts alone at once and the
         other four wait in the queue; the first compile_cached waits for it, and then both slots take the
         queue, two batches of two *)
      List.iter (Compiler_cpu.prefetch c) srcs;
      let libs = List.map (Compiler_cpu.compile_cached c) srcs in
      check_int ~what:"sources compiled" (n0 + 5) (Compiler_cpu.compile_count ());
      (* SANITIZE=1 builds every kernel alone (each keeps its own source for the sanitizer's reports) *)
      let batched = Helpers.sanitize.value = 0 in
      check_int ~what:"compiler processes: one alone and two batches of two" (p0 + if batched then 3 else 5)
        (Compiler_cpu.process_count ());
      List.iteri (fun k lib ->
          check_str ~what:"cache file" (Compiler_cpu.cache_path c key (List.nth srcs k)) lib;
          check_bool ~what:"intact" true (Compiler_cpu.intact lib);
          check_floats ~what:(Printf.sprintf "kernel %d" k) (batch_expected k)
            (run_batch_kernel k lib)) libs;
      let inode k = (Unix.stat (List.nth libs k)).Unix.st_ino in
      check_bool ~what:"each batch's members share one object" batched
        (inode 1 = inode 2 && inode 3 = inode 4);
      check_bool ~what:"the lone kernel and the two batches have objects of their own" true
        (inode 0 <> inode 1 && inode 0 <> inode 3 && inode 1 <> inode 3));

  ("prefetch_failed_batch_rebuilds_its_kernels_alone", fun () ->
      Helpers.(context [ Bind (ccache, 1); Bind (parallel, 2) ]) @@ fun () ->
      let c = Compiler_cpu.create () in
      let key = match c.cachekey with Some k -> k | None -> fail "CCACHE=1 gives no cache key" in
      let good = List.init 4 (fun k -> nonce () ^ batch_src k) in
      let bad = nonce () ^ "void E_bad(float* restrict data0_1) {\n  *(data0_1+0) = undefined_thing;\n}\n" in
      let srcs = Helpers.take 3 good @ [ bad ] @ Helpers.drop 3 good in
      let n0 = Compiler_cpu.compile_count () and p0 = Compiler_cpu.process_count () in
      List.iter (Compiler_cpu.prefetch c) srcs;
      (* good 0 alone, then (waited for) the batches (good 1, good 2) and (bad, good 3); the second fails, and
         its two kernels are built alone, the good one into the cache *)
      List.iteri (fun k src ->
          check_floats ~what:(Printf.sprintf "kernel %d" k) (batch_expected k)
            (run_batch_kernel k (Compiler_cpu.compile_cached c src))) good;
      check_int ~what:"sources compiled" (n0 + 5) (Compiler_cpu.compile_count ());
      check_int ~what:"processes: one alone, two batches, then two alone (SANITIZE=1: five alone)"
        (p0 + 5) (Compiler_cpu.process_count ());
      check_bool ~what:"the bad kernel left no file" false
        (Sys.file_exists (Compiler_cpu.cache_path c key bad));
      match Compiler_cpu.compile_cached c bad with
      | _ -> fail "expected Compile_error"
      | exception Device.Compile_error { source; output } ->
        let has s sub = let n = String.length sub in
          let rec go i = i + n <= String.length s && (String.sub s i n = sub || go (i + 1)) in go 0 in
        check (has source "E_bad" && not (has source "E_4_b"))
          "the error carries the bad kernel's own source";
        check (has output "undefined_thing" && has output "error") "compiler message: %s" output);

  ("queued_kernels_build_when_waited_for_under_parallel_0", fun () ->
      Helpers.(context [ Bind (ccache, 1) ]) @@ fun () ->
      let c = Compiler_cpu.create () in
      let srcs = List.init 4 (fun k -> nonce () ^ batch_src k) in
      (* queued while two compilers may run; waited for where PARALLEL=0 allows none: one still builds them *)
      Helpers.(context [ Bind (parallel, 2) ]) (fun () -> List.iter (Compiler_cpu.prefetch c) srcs);
      Helpers.(context [ Bind (parallel, 0) ]) (fun () ->
          List.iteri (fun k src ->
              check_floats ~what:(Printf.sprintf "kernel %d" k) (batch_expected k)
                (run_batch_kernel k (Compiler_cpu.compile_cached c src))) srcs));

  ("disk_cache_hits_across_processes_for_one_program", fun () ->
      let dir = Filename.concat (Filename.get_temp_dir_name ())
          (Printf.sprintf "tg_rt_cache_%d_%d" (Compiler_cpu.getpid_for_tests ())
             (Random.State.bits (Random.State.make_self_init ()))) in
      let run () =
        let out = Filename.temp_file "tg_rt" ".out" in
        let rc = Sys.command (Printf.sprintf "XDG_CACHE_HOME=%s CCACHE=1 PARALLEL=2 %s=1 %s > %s"
                                (Filename.quote dir) cache_program_env (Filename.quote Sys.executable_name)
                                (Filename.quote out)) in
        let line = String.trim (read_file out) in
        Sys.remove out;
        check_int ~what:"child exit" 0 rc;
        match String.split_on_char ' ' line with
        | "compiled" :: n :: "values" :: vs -> (int_of_string n, vs)
        | _ -> fail "child printed %S" line in
      let n1, v1 = run () in
      let n2, v2 = run () in
      ignore (Sys.command ("rm -rf " ^ Filename.quote dir));
      (* sum(relu(a*a-10), 1) for a = [[1 2 3] [4 5 6]], then a @ a.T *)
      let expected = [ "0"; "47"; "14"; "32"; "32"; "77" ] in
      check (v1 = expected && v2 = expected) "values %s / %s" (String.concat " " v1) (String.concat " " v2);
      check (n1 > 0) "the first process compiles its kernels (%d)" n1;
      check_int ~what:"the second process over the same cache compiles nothing" 0 n2);

  ("disk_cache_concurrent_processes", fun () -> Helpers.(context [ Bind (ccache, 1) ]) @@ fun () ->
      let f = write_tmp (nonce () ^ e_add_src) in
      let cmd = Printf.sprintf "(CCACHE=1 %s=%s %s & CCACHE=1 %s=%s %s & wait)" child_env (Filename.quote f) (Filename.quote Sys.executable_name)
          child_env (Filename.quote f) (Filename.quote Sys.executable_name) in
      (* each child compiles (compile_count 1, so it exits 3) unless the other one renamed its file first (0);
         a broken cache would make it fail to load (4) *)
      let rc = Sys.command (cmd ^ " ; true") in
      check_int ~what:"shell" 0 rc;
      check_int ~what:"third process finds a whole file" 0 (run_child f);
      Sys.remove f);

  ("ccache_0_disables_disk_cache", fun () ->
      Helpers.(context [ Bind (ccache, 0) ] (fun () ->
          let c = Compiler_cpu.create () in
          check (c.cachekey = None) "no cache key";
          let n0 = (Compiler_cpu.compile_count ()) in
          let p1 = Compiler_cpu.compile_cached c e_add_src and p2 = Compiler_cpu.compile_cached c e_add_src in
          check_int ~what:"compiled twice" (n0 + 2) (Compiler_cpu.compile_count ());
          check (p1 <> p2) "two temporary objects")));
  ("pool_shards_each_run_once_many_calls", fun () ->
      let prog = Ops_cpu.load ~name:"E_acc_t" ~lib:((cpu ()).compiler.compile_cached pool_src) ~runtimevars:[ ("core_id", 1) ] in
      let acc = buf Dtype.Int32 64 and ids = buf Dtype.Int32 64 in
      Device.Buffer.copyin_ints acc (Array.make 64 0);
      let l = Device.Launch.of_buffers [ acc; ids ] [ 0; 0; 0 ] in
      (* call k (1..300) runs shards 0 .. (k mod 7)+1 with data2_ = k mod 5; CPU_POOL=3 makes 3 threads share up to
         8 shards (each runs every third), also on a 1-CPU machine *)
      let expected = Array.make 64 0 in
      with_pool 3 (fun () ->
          for k = 1 to 300 do
            let n = (k mod 7) + 2 in
            Device.Launch.set_var l 0 (k mod 5); Device.Launch.set_var l 2 k;
            Ops_cpu.call prog l ~global_size:[| n; 1; 1 |];
            for i = 0 to n - 1 do expected.(i) <- expected.(i) + 1 + (k mod 5) done
          done);
      check (Device.Buffer.to_ints acc = expected) "each shard ran exactly once per call";
      let ids_now = Device.Buffer.to_ints ids in
      (* the last call: k = 300, 300 mod 7 + 2 = 7 shards, data3_ = 300 *)
      check (Array.sub ids_now 0 7 = Array.init 7 (fun i -> i * 300)) "last call's shards saw their core_id and vars";
      check_int ~what:"launch vars untouched (var 0)" 0 (Int64.to_int l.vars.{0});
      check (Ops_cpu.pool_workers () >= 2) "the pool started workers (%d)" (Ops_cpu.pool_workers ()));

  ("pool_equals_sequential_rows", fun () ->
      let lib = (cpu ()).compiler.compile_cached pool_rows_src in
      let prog = Ops_cpu.load ~name:"r_rows_t" ~lib ~runtimevars:[ ("core_id", 0) ] in
      (* row r holds (r*1024 + j) mod 17 for j < 1024: exact small integers, so any summation order gives the same *)
      let inp = floats_buf (Array.init (256 * 1024) (fun i -> float_of_int (i mod 17))) in
      let expected = Array.init 256 (fun r ->
          let s = ref 0 in for j = 0 to 1023 do s := !s + (r * 1024 + j) mod 17 done; float_of_int !s) in
      let run f =
        let o = buf Dtype.Float32 256 in
        Device.Buffer.copyin_floats o (Array.make 256 (-1.));
        f (Device.Launch.of_buffers [ o; inp ] [ 0 ]);
        Device.Buffer.to_floats o in
      let gs = [| 4; 1; 1 |] in
      check_floats ~what:"sequential" expected (run (fun l -> Ops_cpu.call_sequential prog l ~global_size:gs));
      check_floats ~what:"pool (default)" expected (run (fun l -> Ops_cpu.call prog l ~global_size:gs));
      check_floats ~what:"pool, 2 threads" expected (with_pool 2 (fun () -> run (fun l -> Ops_cpu.call prog l ~global_size:gs)));
      check_floats ~what:"pool, 4 threads" expected (with_pool 4 (fun () -> run (fun l -> Ops_cpu.call prog l ~global_size:gs)));
      check_floats ~what:"CPU_POOL=0" expected (with_pool 0 (fun () -> run (fun l -> Ops_cpu.call prog l ~global_size:gs)));
      check_floats ~what:"call_blocking" expected (with_pool 4 (fun () -> run (fun l -> Ops_cpu.call_blocking prog l ~global_size:gs)));
      check_floats ~what:"through Device.run_program" expected
        (with_pool 4 (fun () -> run (fun l -> ignore (Device.run_program ~global_size:gs (load ~runtimevars:[ ("core_id", 0) ] pool_rows_src) l)))));

  ("pool_grows_var_arrays", fun () ->
      let lib = (cpu ()).compiler.compile_cached pool_many_vars_src in
      let prog = Ops_cpu.load ~name:"E_mv_t" ~lib ~runtimevars:[ ("core_id", 17) ] in
      let o = buf Dtype.Int32 8 in
      let vars = List.init 20 (fun i -> if i = 0 then 5 else if i = 18 then 3 else if i = 19 then 7 else 0) in
      with_pool 8 (fun () -> Ops_cpu.call prog (Device.Launch.of_buffers [ o ] vars) ~global_size:[| 8; 1; 1 |]);
      (* 5 + 3*100 + 7*1000 + core_id*10 *)
      check (Device.Buffer.to_ints o = Array.init 8 (fun i -> 7305 + i * 10)) "20 vars reach every shard");

  ("pool_compile_error_and_bad_buffer_unaffected", fun () ->
      let lib = (cpu ()).compiler.compile_cached pool_src in
      let prog = Ops_cpu.load ~name:"E_acc_t" ~lib ~runtimevars:[ ("core_id", 1) ] in
      let acc = buf Dtype.Int32 64 and ids = buf Dtype.Int32 64 in
      Device.Buffer.copyin_ints acc (Array.make 64 0);
      with_pool 4 (fun () -> Ops_cpu.call prog (Device.Launch.of_buffers [ acc; ids ] [ 0; 0; 1 ]) ~global_size:[| 4; 1; 1 |]);
      (match (cpu ()).compiler.compile "void E_bad_t(int* restrict data0_1, const int core_id) {\n  *(data0_1+0) = nope;\n}\n" with
       | _ -> fail "expected Compile_error"
       | exception Device.Compile_error _ -> ());
      (match Ops_cpu.load ~name:"E_missing" ~lib ~runtimevars:[] with
       | _ -> fail "expected a dlsym failure"
       | exception Failure _ -> ());
      check_invalid_arg ~what:"copyin size" (fun () -> Device.Buffer.copyin acc (Bigarray.(Array1.create int32 c_layout 3)));
      with_pool 4 (fun () -> Ops_cpu.call prog (Device.Launch.of_buffers [ acc; ids ] [ 1; 0; 1 ]) ~global_size:[| 4; 1; 1 |]);
      check (Array.sub (Device.Buffer.to_ints acc) 0 5 = [| 3; 3; 3; 3; 0 |]) "the pool still runs after the errors");

  ("pool_tensor_thread_kernel_matches_sequential", fun () ->
      Helpers.(context [ Bind (num_cpu_threads, 2) ]) @@ fun () ->
      let expected = rows_sum_expected 512 1024 in
      let t = rows_sum 512 1024 in
      let ks = realize_thread_kernels t in
      check (List.exists (fun (_, g) -> g = 2) ks) "a THREAD kernel with 2 shards (got %d core_id kernels)" (List.length ks);
      check (Tensor.to_int_array t = expected) "pool result";
      let t0 = rows_sum 512 1024 in
      ignore (with_pool 0 (fun () -> realize_thread_kernels t0));
      check (Tensor.to_int_array t0 = expected) "CPU_POOL=0 result";
      for _ = 1 to 20 do
        let t = rows_sum 512 1024 in
        check (Tensor.to_int_array t = expected) "repeated realize"
      done);

  ("threads_0_disables_thread_opt", fun () ->
      (* NUM_CPU_THREADS=3 (a key no other test compiles with) and a shape of its own, so no cached program is reused *)
      Helpers.(context [ Bind (num_cpu_threads, 3); Bind (threads, 0) ]) @@ fun () ->
      let t = rows_sum 384 1024 in
      check_int ~what:"core_id kernels with THREADS=0" 0 (List.length (realize_thread_kernels t));
      check (Tensor.to_int_array t = rows_sum_expected 384 1024) "THREADS=0 result";
      Helpers.(context [ Bind (threads, 1) ]) @@ fun () ->
      let t = rows_sum 384 2048 in
      check (List.exists (fun (_, g) -> g = 3) (realize_thread_kernels t)) "THREADS=1: a 3-shard kernel";
      check (Tensor.to_int_array t = rows_sum_expected 384 2048) "THREADS=1 result");
]
