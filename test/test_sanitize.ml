(* SANITIZE=1: CPU kernels built with AddressSanitizer and UndefinedBehaviorSanitizer. A child process (this
   executable again, with the ASan runtime preloaded) runs one planted kernel: a read one element past its
   input, a division by zero, or a correct kernel as the control. The child must die on the planted bugs with
   the sanitizer's report and the kernel's name, and run the control to the hand-computed values. *)
open Test_util
open Tinygrad.Compiler

let child_env = "TG_TEST_SANITIZE_CHILD"

(* reads data1_4[1..4]: the last read is one float past the end of the 4-float input *)
let oob_src = "void E_planted_oob(float* restrict data0_4, float* restrict data1_4) {\n\
              \  for (int Lidx0 = 0; Lidx0 < 4; Lidx0++) {\n\
              \    *(data0_4+Lidx0) = (*(data1_4+(Lidx0+1)));\n\
              \  }\n}\n"

(* an int division by data1_ = 0: undefined in C *)
let div_zero_src = "void E_planted_div_zero(int* restrict data0_1, const int data1_) {\n\
                    \  *(data0_1+0) = (100/data1_);\n}\n"

(* an int32 add past INT_MAX: undefined in C, a wrap-around in the UOp IR; kernels compiled while int64 is
   emulated on int32 words build with -fwrapv, the others do not *)
let wrap_src = "void E_planted_wrap(int* restrict data0_1, const int data1_) {\n\
               \  *(data0_1+0) = (data1_+1);\n}\n"

let control_src = "void E_planted_control(float* restrict data0_4, float* restrict data1_4) {\n\
                  \  for (int Lidx0 = 0; Lidx0 < 4; Lidx0++) {\n\
                  \    *(data0_4+Lidx0) = ((*(data1_4+Lidx0))*2.0f);\n\
                  \  }\n}\n"

let run_planted case =
  let d = Device.get "CPU" in
  let src = match case with
    | "oob" -> oob_src | "div_zero" -> div_zero_src | "wrap" -> wrap_src | _ -> control_src in
  let int_kernel = case = "div_zero" || case = "wrap" in
  let name, _ = Compiler_cpu.signature src in
  let p = d.runtime ~name ~lib:(d.compiler.compile_cached src) ~runtimevars:[] in
  let out = Device.Buffer.create "CPU" 4 (if int_kernel then Dtype.Int32 else Dtype.Float32) in
  let inp = Device.Buffer.create "CPU" 4 Dtype.Float32 in
  Device.Buffer.copyin_floats inp [| 1.; 2.; 3.; 4. |];
  let bufs, vars = match case with
    | "div_zero" -> ([ out ], [ 0 ])
    | "wrap" -> ([ out ], [ Int32.to_int Int32.max_int ])
    | _ -> ([ out; inp ], []) in
  ignore (Device.run_program p (Device.Launch.of_buffers bufs vars));
  if case = "wrap" then print_int (Device.Buffer.to_ints out).(0);
  if case = "control" then
    let values = Array.to_list (Device.Buffer.to_floats out) in
    print_endline (String.concat " " (List.map string_of_float values))

let () =
  match Sys.getenv_opt child_env with
  | None -> ()
  | Some case ->
    (match run_planted case with
     | () -> exit 0
     | exception e -> prerr_endline (Printexc.to_string e); exit 4)

(* the ASan runtime of the C compiler, as clang reports it (the file exists only where it is installed) *)
let asan_runtime () =
  let out = Filename.temp_file "sanitize" ".path" in
  let arch = match Compiler_cpu.machine () with "arm64" -> "aarch64" | m -> m in
  let cmd = Printf.sprintf "%s -print-file-name=libclang_rt.asan-%s.so > %s 2>/dev/null"
      (Filename.quote (Compiler_cpu.find_cc ())) arch (Filename.quote out) in
  let path = if Sys.command cmd = 0 then String.trim (read_file out) else "" in
  Sys.remove out;
  if Sys.file_exists path then path
  else fail "the ASan runtime libclang_rt.asan-%s.so was not found (%S)" arch path

(* runs the child on [case]; its exit code, stdout and stderr *)
let run_child ?(env = "") case =
  let out = Filename.temp_file "sanitize" ".out" and err = Filename.temp_file "sanitize" ".err" in
  let cmd = Printf.sprintf "env %s=%s %s SANITIZE=1 LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0 %s > %s 2> %s"
      child_env case env (Filename.quote (asan_runtime ())) (Filename.quote Sys.executable_name)
      (Filename.quote out) (Filename.quote err) in
  let rc = Sys.command cmd in
  let o = read_file out and e = read_file err in
  Sys.remove out; Sys.remove err;
  (rc, o, e)

let check_finding ~case ~report ~kernel =
  let rc, _, err = run_child case in
  check (rc <> 0) "the planted %s ran to the end (exit 0):\n%s" case err;
  check (contains err report) "no %S in the report:\n%s" report err;
  let named = "SANITIZE: the finding above is in kernel " ^ kernel in
  check (contains err named) "the kernel is not named:\n%s" err

let tests =
  [ ("control_kernel_runs_clean", fun () ->
        let rc, out, err = run_child "control" in
        check_int ~what:("exit code; stderr:\n" ^ err) 0 rc;
        check_str ~what:"2*[1;2;3;4]" "2. 4. 6. 8." (String.trim out));
    ("int32_overflow_wraps_where_int64_is_emulated", fun () ->
        let rc, out, err = run_child ~env:"EMULATED_DTYPES=long" "wrap" in
        check_int ~what:("exit code; stderr:\n" ^ err) 0 rc;
        check_str ~what:"INT_MAX + 1 in int32" "-2147483648" (String.trim out));
    ("planted_signed_overflow_is_caught", fun () ->
        check_finding ~case:"wrap" ~report:"signed integer overflow" ~kernel:"E_planted_wrap");
    ("planted_out_of_bounds_read_is_caught", fun () ->
        check_finding ~case:"oob" ~report:"heap-buffer-overflow" ~kernel:"E_planted_oob");
    ("planted_division_by_zero_is_caught", fun () ->
        check_finding ~case:"div_zero" ~report:"division by zero" ~kernel:"E_planted_div_zero");
    ("sanitize_flags_make_their_own_cache_key", fun () ->
        let plain = Helpers.context [ Bind (Helpers.sanitize, 0) ] Compiler_cpu.create in
        let sanitized = Helpers.context [ Bind (Helpers.sanitize, 1) ] Compiler_cpu.create in
        check (plain.cachekey <> sanitized.cachekey || plain.cachekey = None) "one cache key for both";
        check (List.for_all (fun a -> List.mem a sanitized.args) Compiler_cpu.sanitize_args) "flags missing";
        let in_plain a = List.mem a plain.args in
        check (not (List.exists in_plain Compiler_cpu.sanitize_args)) "plain has them";
        let path c = Compiler_cpu.cache_path c "k" control_src in
        check (path plain <> path sanitized) "one cache file for both") ]
