(* tinygrad's examples/beautiful_mnist.py in OCaml: the same model, Adam, minibatches of BS (512) drawn with
   randint, STEPS (70) steps, test accuracy every 10 steps. Data: Fashion-MNIST's IDX files from
   /usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist) or MNIST_DIR. *)

open Tinygrad
module T = Tensor
module S = Nn.State
module D = Nn.Datasets

(* an integer from the environment, as tinygrad's getenv *)
let env_int k d = match Sys.getenv_opt k with Some v -> (try int_of_string v with Failure _ -> d) | None -> d

(* the model: examples/model/mnist_model.ml *)
let create_model = Mnist_model.create
let forward = Mnist_model.forward

(* tinygrad: Model.train_step under Context(TRAINING=1) *)
let train_step m opt bs = function
  | [ x_train; y_train ] ->
    Context.run [ Context.Bind (Context.training, 1) ] (fun () ->
        Nn.Optim.zero_grad opt;
        let samples = T.randint ~high:(T.shape x_train).(0) [| bs |] in
        let loss = T.sparse_categorical_crossentropy (forward m (T.getitem x_train [ T.T samples ]))
            (T.getitem y_train [ T.T samples ]) in
        T.backward loss;
        T.realize_all (loss :: Nn.Optim.schedule_step opt);
        loss)
  | _ -> invalid_arg "train_step: [x_train; y_train]"

(* tinygrad: Model.get_test_acc *)
let get_test_acc m = function
  | [ x_test; y_test ] -> T.mul (T.mean (T.eq (T.argmax ~axis:1 (forward m x_test)) y_test)) (T.scalar 100.)
  | _ -> invalid_arg "get_test_acc: [x_test; y_test]"

let () =
  let dir = match Sys.getenv_opt "MNIST_DIR" with Some d when d <> "" -> d | _ -> D.default_dir in
  (match env_int "SEED" (-1) with s when s >= 0 -> T.manual_seed s | _ -> ());
  let t_load = Unix.gettimeofday () in
  let x_train, y_train, x_test, y_test = D.mnist ~dir () in
  T.realize_all [ x_train; y_train; x_test; y_test ];
  Printf.printf "loaded %s: %d train, %d test images in %.1f s\n%!" dir (T.shape x_train).(0) (T.shape x_test).(0)
    (Unix.gettimeofday () -. t_load);
  let m = create_model () in
  let opt = Nn.Optim.adam (Mnist_model.parameters m) in
  let steps = env_int "STEPS" 70 and bs = env_int "BS" 512 in
  let train_jit = Tiny_jit.create (train_step m opt bs) in
  let test_jit = Tiny_jit.create (get_test_acc m) in
  let test_acc = ref Float.nan in
  let t0 = Unix.gettimeofday () in
  let times = ref [] and cpu = ref [] in
  for i = 0 to steps - 1 do
    let st = Unix.gettimeofday () and ct = Sys.time () in
    Global_counters.reset ();  (* NOTE: this makes it nice for DEBUG=2 timing *)
    let loss = Tiny_jit.call train_jit [ x_train; y_train ] in
    let lv = T.item loss in
    times := (Unix.gettimeofday () -. st) :: !times;
    cpu := (Sys.time () -. ct) :: !cpu;
    if i mod 10 = 9 then test_acc := T.item (Tiny_jit.call test_jit [ x_test; y_test ]);
    Printf.printf "step %4d loss: %6.2f test_accuracy: %5.2f%% %6.2f steps/s\n%!" (i + 1) lv !test_acc
      (float_of_int (i + 1) /. (Unix.gettimeofday () -. t0))
  done;
  let first k = match List.nth_opt (List.rev !times) k with Some t -> t | None -> 0. in
  (* the mean over steps 3.. (the JIT runs on the first call and captures on the second) *)
  let avg l =
    let a = Array.of_list (List.rev l) in
    let rest = if Array.length a > 2 then Array.sub a 2 (Array.length a - 2) else a in
    Array.fold_left ( +. ) 0. rest /. float_of_int (max 1 (Array.length rest)) in
  Printf.printf "final test_accuracy: %.2f%% steps: %d BS: %d step time: %.1f ms, cpu %.1f ms (steps 3..%d; first two: %.0f ms, %.0f ms) total: %.1f s\n"
    !test_acc steps bs (avg !times *. 1000.) (avg !cpu *. 1000.) steps (first 0 *. 1000.) (first 1 *. 1000.)
    (Unix.gettimeofday () -. t0)
