(* Per-call overhead of launching a compiled 1-element kernel from OCaml (issue 3 target: <= 2 us).
   Measures the generic path (Device.run_program through the Program record), the direct Ops_cpu.call, and the
   variant that releases the runtime lock. Then a THREAD-ed reduction (sum over axis 1 of 4096x4096 with default
   opts) with its core_id shards in order (CPU_POOL=0, as tinygrad) and on the thread pool. *)
open Tinygrad.Compiler

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

(* best wall times in ms of [f] under CPU_POOL=0 and CPU_POOL=1, measured alternately so both see the same load *)
let best_ms_seq_pool reps f =
  let with_pool v g = Helpers.(context [ Bind (Helpers.cpu_pool, v) ]) g in
  let time () = let st = Helpers.perf_counter_ns () in f (); float_of_int (Helpers.perf_counter_ns () - st) /. 1e6 in
  with_pool 0 f; with_pool 1 f;
  let seq = ref infinity and pool = ref infinity in
  for _ = 1 to reps do
    seq := Float.min !seq (with_pool 0 time);
    pool := Float.min !pool (with_pool 1 time)
  done;
  (!seq, !pool)

(* a tensor's kernels compiled once with default opts and run again and again, core_id shards in order and on the
   pool. The LINEAR holds its input buffers by UOp only, which keeps no memory: the [inputs] tensors stay live
   until the last run, or a realize in between would hand their memory back to the allocator *)
let thread_pool_bench_one ~what ~bytes ~flops ~inputs s =
  let lin, var_vals = Tensor.linear_with_vars [ s ] in
  let lin = Realize.compile_linear lin in
  let shards = Array.fold_left (fun acc (c : Uop.t) ->
      match c.src.(0).arg with
      | Uop.Program_info p when List.exists (fun v -> Uop.expr v = "core_id") p.vars ->
        (match p.global_size with Uop.Sint g :: _ -> max acc g | _ -> acc)
      | _ -> acc) 1 lin.src in
  let run () = Realize.run_linear ~var_vals ~jit:true ~update_stats:false lin in
  let with_pool v f = Helpers.(context [ Bind (Helpers.cpu_pool, v) ]) f in
  let seq, pool = best_ms_seq_pool 30 run in
  let r_seq = with_pool 0 (fun () -> run (); Tensor.to_float_array s) in
  let r_pool = with_pool 1 (fun () -> run (); Tensor.to_float_array s) in
  if r_seq <> r_pool then failwith "THREAD bench: pool and sequential results differ";
  Printf.printf "%s (NUM_CPU_THREADS=%d, %d core_id shards, %d CPUs; best of 30):\n"
    what Helpers.num_cpu_threads.value shards (Helpers.get_cpu_count ());
  let rate ms = if flops > 0. then Printf.sprintf "%7.2f GFLOPS" (flops /. ms /. 1e6) else Printf.sprintf "%6.2f GB/s" (bytes /. ms /. 1e6) in
  Printf.printf "  shards in order (CPU_POOL=0, as tinygrad)  %8.3f ms  %s\n" seq (rate seq);
  Printf.printf "  shards on the thread pool (CPU_POOL=1)      %8.3f ms  %s\n" pool (rate pool);
  Printf.printf "  speedup %.2fx\n" (seq /. pool);
  ignore (Sys.opaque_identity inputs)

let thread_pool_bench () =
  let n = 4096 in
  let a = Tensor.realize (Tensor.rand [| n; n |]) in
  thread_pool_bench_one ~what:"THREAD-ed sum over axis 1 of 4096x4096 float32" ~bytes:(float_of_int (n * n * 4)) ~flops:0.
    ~inputs:[ a ] (Tensor.sum ~axis:[ 1 ] a);
  let m = 512 in
  let x = Tensor.realize (Tensor.rand [| m; m |]) and y = Tensor.realize (Tensor.rand [| m; m |]) in
  thread_pool_bench_one ~what:"THREAD-ed matmul 512x512 float32" ~bytes:0. ~flops:(2. *. float_of_int (m * m * m))
    ~inputs:[ x; y ] (Tensor.matmul x y)

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
  Printf.printf "target <= 2000 ns/call: %s\n" (if run_program <= 2000. then "met" else "NOT met");
  thread_pool_bench ()
