(* Op and training-step benchmark (issue 7), the OCaml side of bench/compare.py; bench/bench_ops.py runs the same
   workloads in tinygrad 0.14.0 with the same timing method:
   - inputs are realized before timing;
   - warm-up runs (compilation, BEAM search, the JIT's run and capture calls) are not timed;
   - then the median of N timed runs, each building the lazy graph, realizing it and synchronizing the device,
     N = clamp(round(budget / first timed-like run), 5, 200) (budget 1 s; BENCH_QUICK=1: N = 3).
   Mode comes from the environment as in tinygrad: BEAM (0 = hand-coded opts), NUM_CPU_THREADS (default: the CPU
   count, as tinygrad's). BENCH_ONLY=name,name selects workloads (a prefix matches). BENCH_QUICK=1 also drops the
   big workloads (matmul 1024/2048, the beautiful_mnist step).
   Output: one line per workload "RESULT<TAB>name<TAB>ms<TAB>flops<TAB>reps" (flops 0 when not meaningful), then
   "INFO<TAB>beam_searches<TAB>n<TAB>warmup_s<TAB>s" (searches run, not answered from the disk cache). *)
open Tinygrad.Compiler
module T = Tensor

let quick = Helpers.getenv "BENCH_QUICK" 0 <> 0
let only = match Sys.getenv_opt "BENCH_ONLY" with
  | Some s when s <> "" -> Some (String.split_on_char ',' s)
  | _ -> None
let selected name = match only with
  | None -> true
  | Some l -> List.exists (fun p -> String.length p <= String.length name && String.sub name 0 (String.length p) = p) l

(* a workload that only runs when BENCH_ONLY names it: the cold start, which must be the process's first work *)
let named_only name = match only with Some l -> List.mem name l | None -> false

let sync () = (Device.get (Device.default ())).synchronize ()
let now () = Helpers.perf_counter ()
let warmup_s = ref 0.

let median a =
  let a = Array.copy a in
  Array.sort compare a;
  let n = Array.length a in
  if n mod 2 = 1 then a.(n / 2) else (a.(n / 2 - 1) +. a.(n / 2)) /. 2.

(* [bench name ~warmup f]: [warmup] untimed runs, then the median of N timed runs of [f] (each synchronized) *)
let bench ?(flops = 0.) ?(warmup = 2) name (f : unit -> unit) =
  if selected name then begin
    (* Python frees the previous workload's tensors when its function returns (refcounting); here they stay in the
       weak tensor registry, which every realize walks (tinygrad's _apply_map_to_tensors), until the GC clears
       them: collect once between workloads, untimed *)
    Gc.full_major ();
    let st = now () in
    for i = 1 to warmup do
      f (); sync ();
      (* the first call compiles every kernel of the workload *)
      if i = 1 then Printf.printf "INFO\tfirst_call\t%s\t%.3f\n%!" name ((now () -. st) *. 1000.)
    done;
    warmup_s := !warmup_s +. (now () -. st);
    let one () = let st = now () in f (); sync (); now () -. st in
    let first = one () in
    let reps = if quick then 3 else max 5 (min 200 (int_of_float (Float.round (1.0 /. Float.max first 1e-9)))) in
    let ts = Array.init reps (fun _ -> one ()) in
    Printf.printf "RESULT\t%s\t%.6f\t%.0f\t%d\n%!" name (median ts *. 1000.) flops reps
  end

let realized shape = T.realize (T.rand shape)

(* tinygrad: examples/beautiful_mnist.py Model (examples/model/mnist_model.ml) *)
let mnist_model () = let m = Mnist_model.create () in (Mnist_model.forward m, Mnist_model.parameters m)

let training f = Helpers.context [ Helpers.Bind (Helpers.training, 1) ] f

(* the train step of tinygrad's examples: zero_grad, loss, backward, realize the loss with the optimizer step *)
let train_step forward opt x y =
  training (fun () ->
      Nn.Optim.zero_grad opt;
      let loss = T.sparse_categorical_crossentropy (forward x) y in
      T.backward loss;
      T.realize_all (loss :: Nn.Optim.schedule_step opt);
      loss)

(* beautiful_mnist's model, Adam and synthetic uint8 data of MNIST's size: one call of the returned function is one
   train step (batch 512) under the JIT *)
let mnist_step_jit () =
  let forward, params = mnist_model () in
  let opt = Nn.Optim.adam params in
  let x_train = T.realize (T.cast (T.randint ~high:256 [| 60000; 1; 28; 28 |]) Dtype.uint8) in
  let y_train = T.realize (T.cast (T.randint ~high:10 [| 60000 |]) Dtype.uint8) in
  let step = function
    | [ xt; yt ] ->
      training (fun () ->
          Nn.Optim.zero_grad opt;
          let samples = T.randint ~high:(T.shape xt).(0) [| 512 |] in
          let loss = T.sparse_categorical_crossentropy (forward (T.getitem xt [ T.T samples ]))
              (T.getitem yt [ T.T samples ]) in
          T.backward loss;
          T.realize_all (loss :: Nn.Optim.schedule_step opt);
          loss)
    | _ -> assert false in
  let j = Tiny_jit.create step in
  fun () -> ignore (Tiny_jit.call j [ x_train; y_train ])

(* the cold start: in a fresh process (compare.py points XDG_CACHE_HOME at an empty folder, so the kernel and BEAM
   caches are empty too) the first beautiful_mnist step (every kernel compiled) and the second (the JIT's
   capture), each timed once; "RESULT cold_compiled" counts the kernels compiled by clang during the two,
   "cold_clang_processes" the compiler processes that built them *)
let cold_start () =
  let step = mnist_step_jit () in
  let compiled0 = Compiler_cpu.compile_count () and processes0 = Compiler_cpu.process_count () in
  List.iter (fun name ->
      let st = now () and c0 = Compiler_cpu.compile_count () in
      step ();
      sync ();
      Printf.printf "RESULT\t%s\t%.6f\t0\t1\n%!" name ((now () -. st) *. 1000.);
      Printf.printf "INFO\t%s_compiled\t%d\n%!" name (Compiler_cpu.compile_count () - c0))
    [ "cold_step1"; "cold_step2" ];
  Printf.printf "RESULT\tcold_compiled\t%d\t0\t1\n%!" (Compiler_cpu.compile_count () - compiled0);
  Printf.printf "RESULT\tcold_clang_processes\t%d\t0\t1\n%!" (Compiler_cpu.process_count () - processes0)

let () =
  T.manual_seed 0;
  if named_only "cold_start" then begin cold_start (); exit 0 end;
  Printf.printf "INFO\tconfig\tBEAM=%d CPU_OPT=%s CPU_VEC=%d NUM_CPU_THREADS=%d CPUs=%d quick=%b\n%!" Helpers.beam.value
    (match Helpers.cpu_opt.value with Helpers.Cpu_tinygrad -> "tinygrad" | Helpers.Cpu_fast -> "fast")
    (match Helpers.cpu_opt.value, Helpers.cpu_vec.value with
     | Helpers.Cpu_fast, 0 -> Compiler_cpu.host_vector_width () | _, v -> v)
    Helpers.num_cpu_threads.value (Helpers.get_cpu_count ()) quick;
  (* elementwise: relu(a*b+1) on 4M floats *)
  if selected "elementwise" then begin
    let n = 4 * 1024 * 1024 in
    let a = realized [| n |] and b = realized [| n |] in
    bench "elementwise" (fun () -> ignore (T.realize (T.relu (T.add (T.mul a b) (T.scalar 1.)))))
  end;
  if selected "sum_axis1" then begin
    let a = realized [| 4096; 4096 |] in
    bench "sum_axis1" (fun () -> ignore (T.realize (T.sum ~axis:[ 1 ] a)))
  end;
  List.iter (fun n ->
      let name = Printf.sprintf "matmul_%d" n in
      if selected name && not (quick && n > 512) then begin
        let a = realized [| n; n |] and b = realized [| n; n |] in
        bench ~flops:(2. *. float_of_int (n * n * n)) name (fun () -> ignore (T.realize (T.matmul a b)))
      end) [ 256; 512; 1024; 2048 ];
  (* matmul 4096 in float32 and float16 (float16 inputs and output: tensor cores on a GPU); off the CPU only, or
     when BENCH_ONLY names them *)
  List.iter (fun (name, dtype) ->
      if selected name && (Device.default () <> "CPU" || named_only name) then begin
        let n = 4096 in
        let a = T.realize (T.rand ~dtype [| n; n |]) and b = T.realize (T.rand ~dtype [| n; n |]) in
        bench ~flops:(2. *. float_of_int (n * n * n)) name (fun () -> ignore (T.realize (T.matmul a b)))
      end) [ ("matmul_4096", Dtype.Float32); ("matmul_4096_half", Dtype.Float16) ];
  (* matrix-vector, GPT-2 decode's shapes: x (1, k) @ w with w row-major (k, n) ("gemv_kn") or (n, k) used
     transposed ("gemv_nk", as nn.Linear's weight); flops 2kn, the bytes read are about 4kn (the weight) *)
  List.iter (fun (k, n) ->
      List.iter (fun layout ->
          let name = Printf.sprintf "gemv_%s_%d_%d" layout k n in
          if selected name && not (quick && n > 4096) then begin
            let x = realized [| 1; k |] in
            let w = realized (if layout = "kn" then [| k; n |] else [| n; k |]) in
            let f () = if layout = "kn" then T.matmul x w else T.matmul x (T.transpose w) in
            bench ~flops:(2. *. float_of_int (k * n)) name (fun () -> ignore (T.realize (f ())))
          end) [ "kn"; "nk" ]) [ (768, 2304); (768, 3072); (3072, 768); (768, 50257) ];
  (* GPT-2's c_fc in decode as examples/gpt2.ml runs it on a Hugging Face checkpoint: the Conv1D weight (768, 3072)
     row-major, then the bias and the tanh GELU: gelu(x (1, 768) @ w + b) *)
  if selected "gemv_kn_768_3072_bias_gelu" then begin
    let x = realized [| 1; 768 |] and w = realized [| 768; 3072 |] and b = realized [| 3072 |] in
    bench ~flops:(2. *. 768. *. 3072.) "gemv_kn_768_3072_bias_gelu"
      (fun () -> ignore (T.realize (T.gelu (T.add (T.matmul x w) b))))
  end;
  (* the same with the weight used transposed, as tinygrad's gpt2.py loads it (weights[k].T, contiguous along the
     reduce): gelu(x (1, 768) @ w.T + b), w (3072, 768) *)
  if selected "gemv_nk_768_3072_bias_gelu" then begin
    let x = realized [| 1; 768 |] and w = realized [| 3072; 768 |] and b = realized [| 3072 |] in
    bench ~flops:(2. *. 768. *. 3072.) "gemv_nk_768_3072_bias_gelu"
      (fun () -> ignore (T.realize (T.gelu (T.add (T.matmul x (T.transpose w)) b))))
  end;
  (* float16 matrix-vector with an epilogue, a Llama feed-forward's up projection in decode: x (1, 1024) @ w,
     w (4096, 1024) used transposed ("nk") or (1024, 4096) ("kn"), times a float16 gate (1, 4096); the bytes
     read are about 2kn *)
  List.iter (fun layout ->
      let name = Printf.sprintf "gemv_half_%s_1024_4096_gate" layout in
      if selected name then begin
        let half shape = T.realize (T.rand ~dtype:Dtype.Float16 shape) in
        let x = half [| 1; 1024 |] and g = half [| 1; 4096 |] in
        let w = half (if layout = "kn" then [| 1024; 4096 |] else [| 4096; 1024 |]) in
        let y () = if layout = "kn" then T.matmul x w else T.matmul x (T.transpose w) in
        bench ~flops:(2. *. 1024. *. 4096.) name (fun () -> ignore (T.realize (T.mul (y ()) g)))
      end) [ "kn"; "nk" ];
  if selected "softmax" then begin
    let a = realized [| 4096; 1024 |] in
    bench "softmax" (fun () -> ignore (T.realize (T.softmax ~axis:(-1) a)))
  end;
  (* conv2d 3x3, no padding, on 28x28 images, batch 32 *)
  List.iter (fun (cin, cout) ->
      let name = Printf.sprintf "conv2d_%d_%d" cin cout in
      if selected name then begin
        let x = realized [| 32; cin; 28; 28 |] and w = realized [| cout; cin; 3; 3 |] in
        let flops = 2. *. float_of_int (32 * cout * cin * 9 * 26 * 26) in
        bench ~flops name (fun () -> ignore (T.realize (T.conv2d x w)))
      end) [ (1, 32); (32, 64) ];
  (* MLP 784-128-10, Adam, batch 128 *)
  List.iter (fun jit ->
      let name = if jit then "mlp_adam_jit" else "mlp_adam_eager" in
      if selected name then begin
        let l1 = Nn.Linear.create 784 128 and l2 = Nn.Linear.create 128 10 in
        let forward x = Nn.Linear.forward l2 (T.relu (Nn.Linear.forward l1 x)) in
        let opt = Nn.Optim.adam (List.map snd (Nn.Linear.state_dict l1 @ Nn.Linear.state_dict l2)) in
        let x = realized [| 128; 784 |] and y = T.realize (T.randint ~high:10 [| 128 |]) in
        let step = function [ x; y ] -> train_step forward opt x y | _ -> assert false in
        if jit then begin
          let j = Tiny_jit.create step in
          bench ~warmup:3 name (fun () -> ignore (Tiny_jit.call j [ x; y ]))
        end else bench name (fun () -> ignore (step [ x; y ]))
      end) [ false; true ];
  (* beautiful_mnist's train step, batch 512, JIT; synthetic uint8 data of MNIST's size *)
  if selected "mnist_step_jit" && not quick then begin
    let step = mnist_step_jit () in
    bench ~warmup:3 "mnist_step_jit" step
  end;
  (* dispatch: a 1-element add *)
  if selected "dispatch_eager" || selected "dispatch_jit" then begin
    let a = realized [| 1 |] and b = realized [| 1 |] in
    bench "dispatch_eager" (fun () -> ignore (T.realize (T.add a b)));
    (* the same add 1000 times in a row per timed run: the median of single adds leaves out the collections
       their garbage costs, which land in the few runs they fall in; this row spreads them over the adds *)
    bench "dispatch_eager_x1000" (fun () -> for _ = 1 to 1000 do ignore (T.realize (T.add a b)) done);
    let j = Tiny_jit.create (function [ a; b ] -> T.realize (T.add a b) | _ -> assert false) in
    bench ~warmup:3 "dispatch_jit" (fun () -> ignore (Tiny_jit.call j [ a; b ]))
  end;
  Printf.printf "INFO\tbeam_searches\t%d\twarmup_s\t%.2f\n%!" (Search.searches ()) !warmup_s
