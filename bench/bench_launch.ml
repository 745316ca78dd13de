(* Per-call overhead of launching a compiled 1-element kernel from OCaml (issue 3 target: <= 2 us).
   Measures the generic path (Device.run_program through the Program record), the direct Ops_cpu.call, and the
   variant that releases the runtime lock. *)
open Tinygrad

let src = "void E_1(float* restrict data0_1, float* restrict data1_1) {\n\
          \  float val0 = (*(data1_1+0));\n\
          \  *(data0_1+0) = (val0+1.0f);\n}\n"

let time_per_call n f =
  for _ = 1 to 1000 do f () done;
  let best = ref infinity in
  for _ = 1 to 5 do
    let st = Helpers.perf_counter_ns () in
    for _ = 1 to n do f () done;
    best := Float.min !best (float_of_int (Helpers.perf_counter_ns () - st) /. float_of_int n)
  done;
  !best

let () =
  let dev = Device.get "CPU" in
  let lib = dev.compiler.compile_cached src in
  let prog = dev.runtime ~name:"E_1" ~lib ~runtimevars:[] in
  let a = Device.Buffer.create "CPU" 1 Dtype.Float32 and o = Device.Buffer.create "CPU" 1 Dtype.Float32 in
  Device.Buffer.copyin_floats a [| 41.0 |];
  let l = Device.Launch.of_buffers [ o; a ] [] in
  let gs = [| 1; 1; 1 |] in
  let n = 1_000_000 in
  let generic = time_per_call n (fun () -> prog.call l ~global_size:gs ~local_size:gs) in
  let run_program = time_per_call n (fun () -> ignore (Device.run_program prog l)) in
  let p = Ops_cpu.load ~name:"E_1" ~lib ~runtimevars:[] in
  let direct = time_per_call n (fun () -> Ops_cpu.call p l ~global_size:gs) in
  let blocking = time_per_call n (fun () -> Ops_cpu.call_blocking p l ~global_size:gs) in
  (match Device.Buffer.to_floats o with [| 42.0 |] -> () | r -> failwith (Printf.sprintf "bench kernel result %g" r.(0)));
  Printf.printf "launch overhead of a 1-element CPU kernel (best of 5 x %d calls):\n" n;
  Printf.printf "  Program.call (generic record)     %7.1f ns/call\n" generic;
  Printf.printf "  Device.run_program                %7.1f ns/call\n" run_program;
  Printf.printf "  Ops_cpu.call (noalloc stub)       %7.1f ns/call\n" direct;
  Printf.printf "  Ops_cpu.call_blocking (lock off)  %7.1f ns/call\n" blocking;
  Printf.printf "target <= 2000 ns/call: %s\n" (if run_program <= 2000. then "met" else "NOT met")
