(* Training end to end (issue 6): tinygrad's beautiful_mnist model trained a few steps on a 512-image subset of
   Fashion-MNIST (loss decreases; the JIT gives bit-identical parameters to running without it), and a small MLP
   trained for many steps with resident memory staying flat. The data are Debian's dataset-fashion-mnist files
   when installed, else a synthetic learnable set (the test says so). The default memory run does 400 JIT steps;
   TRAINING_LONG=1 (make test-long) runs 10,000 JIT steps, 2,000 without the JIT and 200 steps of beautiful_mnist.
   TRAINING_GC=1 prints RSS and the OCaml heap (after a full major GC) every 50 steps. *)

open Tinygrad.Compiler
open Test_util
module T = Tensor

(* ---- data: the first 512 training images, or a synthetic stand-in ---- *)

let subset = lazy (
  let n = 512 in
  match Nn.Datasets.mnist () with
  | x, y, _, _ ->
    let take t = T.realize (T.contiguous (T.getitem t [ T.S (None, Some n, None) ])) in
    (take x, take y)
  | exception (Invalid_argument msg | Sys_error msg | Failure msg) ->
    Printf.printf "training: Fashion-MNIST not readable (%s): using a synthetic 512-image set\n%!" msg;
    (* class c: a bright 7x7 square at a class-dependent place, plus noise *)
    let st = Random.State.make [| 6 |] in
    let labels = Array.init n (fun i -> i mod 10) in
    let px = Array.make (n * 784) 0 in
    Array.iteri (fun i c ->
        let r0 = 2 + (c / 5) * 12 and c0 = 2 + (c mod 5) * 5 in
        for r = 0 to 27 do for col = 0 to 27 do
            let inside = r >= r0 && r < r0 + 7 && col >= c0 && col < c0 + 7 in
            px.((i * 784) + (r * 28) + col) <- (if inside then 200 else 0) + Random.State.int st 40
          done done) labels;
    (T.of_int_array ~dtype:Dtype.uint8 [| n; 1; 28; 28 |] px, T.of_int_array ~dtype:Dtype.uint8 [| n |] labels))

(* ---- tinygrad's beautiful_mnist model ---- *)

type model = { layers : (T.t -> T.t) list; params : T.t list }

(* the model of examples/model/mnist_model.ml, its parameters in get_parameters order *)
let create_model () = let m = Mnist_model.create () in { layers = m.layers; params = Mnist_model.parameters m }

let training f = Helpers.context [ Helpers.Bind (Helpers.training, 1) ] f

(* tinygrad's Model.train_step *)
let train_step m opt bs = function
  | [ x; y ] ->
    training (fun () ->
        Nn.Optim.zero_grad opt;
        let samples = T.randint ~high:(T.shape x).(0) [| bs |] in
        let loss = T.sparse_categorical_crossentropy (Nn.sequential m.layers (T.getitem x [ T.T samples ]))
            (T.getitem y [ T.T samples ]) in
        T.backward loss;
        T.realize_all (loss :: Nn.Optim.schedule_step opt);
        loss)
  | _ -> fail "train_step: two inputs expected"

let bits a = Array.map Int64.bits_of_float a

(* the model's tensors (parameters and BatchNorm statistics) after [steps] steps, and the losses *)
let train ~jit ~seed ~steps ~bs =
  let x, y = Lazy.force subset in
  T.manual_seed seed;
  let m = create_model () in
  let opt = Nn.Optim.adam m.params in
  let j = Tiny_jit.create (train_step m opt bs) in
  let step () = if jit then Tiny_jit.call j [ x; y ] else train_step m opt bs [ x; y ] in
  let losses = List.init steps (fun _ -> T.item (step ())) in
  if jit && steps >= 3 then check (Tiny_jit.jit_cache_len j > 0) "the JIT captured no calls";
  (losses, List.map (fun t -> T.to_float_array t) m.params)

let test_loss_decreases () =
  let losses, _ = train ~jit:true ~seed:42 ~steps:6 ~bs:64 in
  let l = Array.of_list losses in
  Printf.printf "training: beautiful_mnist losses on the 512 subset: %s\n%!"
    (String.concat " " (List.map (Printf.sprintf "%.3f") losses));
  Array.iter (fun v -> check (Float.is_finite v) "loss is not finite: %g" v) l;
  check (l.(5) < l.(0)) "loss did not decrease: first %g, last %g" l.(0) l.(5);
  let mean a b = (l.(a) +. l.(b)) /. 2. in
  check (mean 4 5 < mean 0 1 -. 0.2) "loss did not decrease by 0.2: first two %g, last two %g" (mean 0 1) (mean 4 5)

let test_jit_same_params () =
  let l_nojit, p_nojit = train ~jit:false ~seed:1337 ~steps:3 ~bs:32 in
  let l_jit, p_jit = train ~jit:true ~seed:1337 ~steps:3 ~bs:32 in
  List.iteri (fun i (a, b) ->
      if Int64.bits_of_float a <> Int64.bits_of_float b then fail "loss %d: no JIT %h, JIT %h" (i + 1) a b)
    (List.combine l_nojit l_jit);
  check_int ~what:"number of tensors" (List.length p_nojit) (List.length p_jit);
  List.iteri (fun k (a, b) ->
      check_int ~what:(Printf.sprintf "tensor %d size" k) (Array.length a) (Array.length b);
      let ba = bits a and bb = bits b in
      Array.iteri (fun i v -> if v <> bb.(i) then fail "tensor %d [%d]: no JIT %h, JIT %h" k i a.(i) b.(i)) ba)
    (List.combine p_nojit p_jit)

(* ---- resident memory of a long training loop ---- *)

let rss_kb () =
  let ic = open_in "/proc/self/status" in
  let rec go () = match input_line ic with
    | l when String.length l > 6 && String.sub l 0 6 = "VmRSS:" ->
      Scanf.sscanf (String.sub l 6 (String.length l - 6)) " %d" Fun.id
    | _ -> go ()
    | exception End_of_file -> 0 in
  Fun.protect ~finally:(fun () -> close_in ic) go

let long () = match Sys.getenv_opt "TRAINING_LONG" with Some ("" | "0") | None -> false | Some _ -> true

(* RSS in the steps after [warm] never exceeds RSS at step [warm] by more than [tol] (a fraction) *)
let check_rss_flat ~what ~warm ~tol rss_warm rss_max =
  check (float_of_int rss_max <= (1. +. tol) *. float_of_int rss_warm)
    "%s: RSS grew more than %.0f%%: %d kB at step %d, %d kB max after" what (100. *. tol) rss_warm warm rss_max

(* the default run: 400 JIT steps, RSS flat within 10% after step 200; TRAINING_LONG=1: 10,000 JIT steps and 2,000
   without the JIT, within 5% after step 1,000 (half the steps without the JIT: its heap, compacted at the start,
   grows back to its working size by increments for some hundred steps, where a leak grows to the end) *)
let test_memory_flat ~jit () =
  let steps = if long () then (if jit then 10_000 else 2000) else 400 in
  let warm = if long () then 1000 else 200 in
  let tol = if long () then 0.05 else 0.10 in
  (* the heap as a process starts it, whatever the cases before left: a heap shrunk or grown by them would
     reach its working size by increments inside the measured steps *)
  Gc.compact ();
  let x, y = Lazy.force subset in
  let x = T.realize (T.reshape x [| 512; 784 |]) in
  T.manual_seed 7;
  let l1 = Nn.Linear.create 784 128 in
  let l2 = Nn.Linear.create 128 10 in
  let params = [ l1.weight; Option.get l1.bias; l2.weight; Option.get l2.bias ] in
  let opt = Nn.Optim.adam params in
  let step_fn = function
      | [ x; y ] ->
        training (fun () ->
            Nn.Optim.zero_grad opt;
            let samples = T.randint ~high:512 [| 64 |] in
            let xb = T.div (T.float (T.getitem x [ T.T samples ])) (T.scalar 255.) in
            let loss = T.sparse_categorical_crossentropy
                (Nn.Linear.forward l2 (T.relu (Nn.Linear.forward l1 xb))) (T.getitem y [ T.T samples ]) in
            T.backward loss;
            T.realize_all (loss :: Nn.Optim.schedule_step opt);
            loss)
      | _ -> fail "two inputs expected" in
  let call = if jit then Tiny_jit.call (Tiny_jit.create step_fn) else step_fn in
  let t0 = Unix.gettimeofday () in
  let rss200 = ref 0 and rss_max = ref 0 and first_loss = ref 0. and last_loss = ref 0. in
  for i = 1 to steps do
    let l = T.item (call [ x; y ]) in
    if i = 1 then first_loss := l;
    last_loss := l;
    if Sys.getenv_opt "TRAINING_GC" <> None && i mod 50 = 0 then begin
      Gc.full_major ();
      let st = Gc.stat () in
      Printf.printf "  step %d: RSS %d kB, live OCaml heap %d kB, OCaml heap %d kB, live tensors %d\n%!" i (rss_kb ())
        (st.Gc.live_words * (Sys.word_size / 8) / 1024) (st.Gc.heap_words * (Sys.word_size / 8) / 1024)
        (List.length (Tensor_base.all_tensors ()))
    end;
    if i = warm then rss200 := rss_kb ();
    if i > warm then rss_max := max !rss_max (rss_kb ())
  done;
  let dt = Unix.gettimeofday () -. t0 in
  Printf.printf "training: MLP (%s) %d steps in %.1f s (%.2f ms/step), loss %.3f -> %.3f, RSS at step %d %d kB, max after %d kB (%+.1f%%)\n%!"
    (if jit then "JIT" else "no JIT") steps dt (dt *. 1000. /. float_of_int steps) !first_loss !last_loss warm !rss200 !rss_max
    (100. *. float_of_int (!rss_max - !rss200) /. float_of_int !rss200);
  check (!last_loss < !first_loss) "MLP loss did not decrease: %g -> %g" !first_loss !last_loss;
  check_rss_flat ~what:"MLP" ~warm ~tol !rss200 !rss_max

(* TRAINING_LONG=1: tinygrad's beautiful_mnist (BS 512, JIT) for 200 steps on Fashion-MNIST's 60,000 training
   images when installed (make dataset), else random images of the same shape; RSS flat within 5% after step 50 *)
let test_mnist_soak () =
  let steps = 200 and warm = 50 and bs = 512 in
  let x, y = match Nn.Datasets.mnist () with
    | x, y, _, _ -> (x, y)
    | exception Invalid_argument msg ->
      Printf.printf "training: Fashion-MNIST not readable (%s): random images of the same shape\n%!" msg;
      T.manual_seed 3;
      (T.realize (T.cast (T.randint ~high:256 [| 60000; 1; 28; 28 |]) Dtype.uint8),
       T.realize (T.cast (T.randint ~high:10 [| 60000 |]) Dtype.uint8)) in
  T.manual_seed 42;
  let m = create_model () in
  let opt = Nn.Optim.adam m.params in
  let j = Tiny_jit.create (train_step m opt bs) in
  let t0 = Unix.gettimeofday () in
  let rss_warm = ref 0 and rss_max = ref 0 and first = ref 0. and last = ref 0. in
  for i = 1 to steps do
    let l = T.item (Tiny_jit.call j [ x; y ]) in
    if i = 1 then first := l;
    last := l;
    if i = warm then rss_warm := rss_kb ();
    if i > warm then rss_max := max !rss_max (rss_kb ())
  done;
  let dt = Unix.gettimeofday () -. t0 in
  Printf.printf "training: beautiful_mnist (JIT, BS %d) %d steps in %.1f s (%.0f ms/step), loss %.3f -> %.3f, RSS at step %d %d kB, max after %d kB (%+.1f%%)\n%!"
    bs steps dt (dt *. 1000. /. float_of_int steps) !first !last warm !rss_warm !rss_max
    (100. *. float_of_int (!rss_max - !rss_warm) /. float_of_int !rss_warm);
  check (Float.is_finite !last) "beautiful_mnist loss is %g" !last;
  check_rss_flat ~what:"beautiful_mnist" ~warm ~tol:0.05 !rss_warm !rss_max

let tests : case list =
  [ ("beautiful_mnist loss decreases (512 subset)", test_loss_decreases);
    ("beautiful_mnist JIT = no JIT after 3 steps", test_jit_same_params);
    ("MLP resident memory flat (JIT)", test_memory_flat ~jit:true);
    ("MLP resident memory flat (no JIT; TRAINING_LONG=1)", fun () ->
        if long () then test_memory_flat ~jit:false ()
        else Test_util.skip "training: the no-JIT memory loop runs with TRAINING_LONG=1 (make test-long)");
    ("beautiful_mnist 200 steps, resident memory flat (TRAINING_LONG=1)", fun () ->
        if long () then test_mnist_soak ()
        else Test_util.skip "training: the beautiful_mnist soak runs with TRAINING_LONG=1 (make test-long)") ]

(* examples/train_mlp.ml uses only `open Tinygrad` (the curated entry point): it must learn its synthetic task *)
let example_mlp_trains () =
  let exe = "_build/default/examples/train_mlp.exe" in
  if not (Sys.file_exists exe) then Test_util.skip "training: examples/train_mlp.exe not built (run from the repository root after make build)"
  else begin
    let out = Filename.temp_file "train_mlp" ".out" in
    let rc = Sys.command (Printf.sprintf "%s > %s 2>&1" exe out) in
    let ic = open_in out in
    let text = really_input_string ic (in_channel_length ic) in
    close_in ic; Sys.remove out;
    check (rc = 0) "train_mlp exited %d:\n%s" rc text;
    Scanf.sscanf text "loss %f -> %f\naccuracy %f -> %f" (fun l0 l1 a0 a1 ->
        check (l1 < l0 /. 10.) "loss did not fall tenfold: %s" text;
        check (a1 >= 0.95 && a0 < 0.5) "accuracy %.3f -> %.3f" a0 a1)
  end

let tests = tests @ [ ("example_mlp_trains_with_open_tinygrad_only", example_mlp_trains) ]
