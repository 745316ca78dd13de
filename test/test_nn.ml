(* Nn layers and Nn.Optim against tinygrad 0.14.0: test/nn_oracle.ml holds the values test/gen_nn_oracle.py got from
   tinygrad for the same programs (the threefry RNG is tinygrad-exact, so the default initialisations are compared
   value for value), plus init statistics, state_dict names and bad-input errors. The tr_* corpus programs (Adam and
   SGD steps kernel for kernel) are in test/test_corpus.ml's N-nn block. *)

open Tinygrad.Compiler
open Test_util
module T = Tensor
module O = Nn.Optim

let close ?(rtol = 1e-5) ?(atol = 1e-6) a b =
  Float.abs (a -. b) <= atol +. rtol *. Float.abs b || (Float.is_nan a && Float.is_nan b)

let expected name = match List.find_opt (fun (n, _, _) -> n = name) Nn_oracle.cases with
  | Some (_, shape, v) -> (shape, v)
  | None -> fail "no oracle case %s" name

(* compares the tensors with the oracle's name/0, name/1, ... *)
let check_case ?rtol ?atol name (ts : T.t list) =
  List.iteri (fun i t ->
      let key = Printf.sprintf "%s/%d" name i in
      let shape, exp = expected key in
      if T.shape t <> shape then
        fail "%s: shape (%s), expected (%s)" key (String.concat "," (Array.to_list (Array.map string_of_int (T.shape t))))
          (String.concat "," (Array.to_list (Array.map string_of_int shape)));
      let got = if Dtype.is_float (T.dtype t) then T.to_float_array t else Array.map float_of_int (T.to_int_array t) in
      Array.iteri (fun j e -> if not (close ?rtol ?atol got.(j) e) then fail "%s[%d] = %.9g, expected %.9g" key j got.(j) e) exp)
    ts

let s = T.scalar
let training f = Helpers.context [ Helpers.Bind (Helpers.training, 1) ] f
let some = function Some t -> t | None -> fail "missing tensor"

(* ---------- layers vs tinygrad ---------- *)

let layer_cases : case list = [
  ("linear", fun () ->
      T.manual_seed 0;
      let l = Nn.Linear.create 3 4 in
      let x = T.rand [| 2; 3 |] in
      check_case "linear" [ l.weight; some l.bias; Nn.Linear.forward l x ]);
  ("linear_nobias", fun () ->
      T.manual_seed 1;
      let l = Nn.Linear.create ~bias:false 5 2 in
      check_bool ~what:"no bias" true (l.bias = None);
      let x = T.rand [| 3; 5 |] in
      check_case "linear_nobias" [ l.weight; Nn.Linear.forward l x ]);
  ("conv2d", fun () ->
      T.manual_seed 2;
      let c = Nn.Conv2d.create ~padding:1 2 3 3 in
      let x = T.rand [| 1; 2; 5; 5 |] in
      check_case "conv2d" [ c.weight; some c.bias; Nn.Conv2d.forward c x ]);
  ("conv2d_groups", fun () ->
      T.manual_seed 3;
      let c = Nn.Conv2d.create ~stride:2 ~groups:2 ~bias:false 4 6 3 in
      let x = T.rand [| 2; 4; 7; 7 |] in
      check_case "conv2d_groups" [ c.weight; Nn.Conv2d.forward c x ]);
  ("conv2d_same", fun () ->
      T.manual_seed 4;
      let c = Nn.Conv2d.create_nd ~padding:Nn.Conv2d.Same ~dilation:2 2 2 [ 3; 2 ] in
      let x = T.rand [| 1; 2; 6; 5 |] in
      check_case "conv2d_same" [ c.weight; some c.bias; Nn.Conv2d.forward c x ]);
  ("conv1d", fun () ->
      T.manual_seed 5;
      let c = Nn.Conv1d.create 2 3 3 in
      let x = T.rand [| 2; 2; 7 |] in
      check_case "conv1d" [ c.weight; some c.bias; Nn.Conv1d.forward c x ]);
  ("conv_transpose2d", fun () ->
      T.manual_seed 6;
      let c = Nn.ConvTranspose2d.create ~stride:2 2 3 3 in
      let x = T.rand [| 1; 2; 3; 3 |] in
      check_case "conv_transpose2d" [ c.conv.weight; some c.conv.bias; Nn.ConvTranspose2d.forward c x ]);
  ("batchnorm", fun () ->
      T.manual_seed 7;
      let bn = Nn.BatchNorm.create 3 in
      let x = T.add (T.mul (T.rand [| 2; 3; 4; 4 |]) (s 2.)) (s 1.) in
      check_case "batchnorm_eval" [ Nn.BatchNorm.forward bn x ];
      let y = training (fun () ->
          let y = Nn.BatchNorm.forward bn x in
          T.realize_all [ y; some bn.running_mean; some bn.running_var; bn.num_batches_tracked ];
          y) in
      check_case "batchnorm_train" [ y; some bn.running_mean; some bn.running_var; bn.num_batches_tracked ];
      check_case "batchnorm_eval_after" [ Nn.BatchNorm.forward bn x ]);
  ("batchnorm_notrack", fun () ->
      T.manual_seed 8;
      let bn = Nn.BatchNorm.create ~affine:false ~track_running_stats:false 2 in
      let x = T.rand [| 4; 2; 3 |] in
      check_case "batchnorm_notrack" [ Nn.BatchNorm.forward bn x ]);
  ("groupnorm", fun () ->
      T.manual_seed 9;
      let gn = Nn.GroupNorm.create 2 4 in
      ignore (T.assign (some gn.weight) (T.rand [| 4 |]));
      ignore (T.assign (some gn.bias) (T.rand [| 4 |]));
      let x = T.add (T.mul (T.rand [| 2; 4; 3; 3 |]) (s 2.)) (s 1.) in
      check_case "groupnorm" [ Nn.GroupNorm.forward gn x ]);
  ("instancenorm", fun () ->
      T.manual_seed 10;
      let n = Nn.InstanceNorm.create 3 in
      ignore (T.assign (some n.weight) (T.rand [| 3 |]));
      let x = T.mul (T.rand [| 2; 3; 4 |]) (s 3.) in
      check_case "instancenorm" [ Nn.InstanceNorm.forward n x ]);
  ("layernorm", fun () ->
      T.manual_seed 11;
      let ln = Nn.LayerNorm.create_shape [| 4; 3 |] in
      ignore (T.assign (some ln.weight) (T.rand [| 4; 3 |]));
      ignore (T.assign (some ln.bias) (T.rand [| 4; 3 |]));
      let x = T.add (T.mul (T.rand [| 2; 4; 3 |]) (s 2.)) (s 1.) in
      check_case "layernorm" [ Nn.LayerNorm.forward ln x ]);
  ("layernorm2d", fun () ->
      T.manual_seed 12;
      let ln = Nn.LayerNorm2d.create 3 in
      ignore (T.assign (some ln.bias) (T.rand [| 3 |]));
      let x = T.rand [| 2; 3; 2; 2 |] in
      check_case "layernorm2d" [ Nn.LayerNorm2d.forward ln x ]);
  ("rmsnorm", fun () ->
      T.manual_seed 13;
      let r = Nn.RMSNorm.create 4 in
      ignore (T.assign (some r.weight) (T.rand [| 4 |]));
      let x = T.sub (T.rand [| 3; 4 |]) (s 0.5) in
      check_case "rmsnorm" [ Nn.RMSNorm.forward r x ]);
  ("embedding", fun () ->
      T.manual_seed 14;
      let e = Nn.Embedding.create 10 3 in
      let idx = T.of_int_array ~dtype:Dtype.int32 [| 2; 2 |] [| 1; 2; 3; 9 |] in
      check_case "embedding" [ e.weight; Nn.Embedding.forward e idx ]);
  ("lstmcell", fun () ->
      T.manual_seed 15;
      let cell = Nn.LSTMCell.create 3 4 in
      let x = T.rand [| 2; 3 |] in
      let h, c = Nn.LSTMCell.forward cell x in
      let h2, c2 = Nn.LSTMCell.forward ~hc:(h, c) cell x in
      check_case "lstmcell" [ cell.weight_ih; cell.weight_hh; h; c; h2; c2 ]);
]

(* ---------- init statistics, shapes, names, errors ---------- *)

let stats (t : T.t) =
  let a = T.to_float_array t in
  let n = float_of_int (Array.length a) in
  let mean = Array.fold_left ( +. ) 0. a /. n in
  let mn = Array.fold_left Float.min infinity a and mx = Array.fold_left Float.max neg_infinity a in
  (mean, mn, mx)

let shape_of t = Array.to_list (T.shape t)

let misc_cases : case list = [
  ("init_bounds", fun () ->
      (* Linear: uniform in +-1/sqrt(in); Conv2d: +-1/sqrt(in*prod(k)); Embedding: glorot +-sqrt(6/(in+out)) *)
      T.manual_seed 21;
      let l = Nn.Linear.create 64 128 in
      let c = Nn.Conv2d.create 8 16 3 in
      let e = Nn.Embedding.create 100 20 in
      check (shape_of l.weight = [ 128; 64 ] && shape_of (some l.bias) = [ 128 ]) "Linear shapes";
      check (shape_of c.weight = [ 16; 8; 3; 3 ] && shape_of (some c.bias) = [ 16 ]) "Conv2d shapes";
      check (shape_of e.weight = [ 100; 20 ]) "Embedding shape";
      let chk what t bound =
        let mean, mn, mx = stats t in
        check (mn >= -.bound && mx <= bound) "%s: values in [%g, %g] outside +-%g" what mn mx bound;
        check (mn < -0.8 *. bound && mx > 0.8 *. bound) "%s: values [%g, %g] do not fill +-%g" what mn mx bound;
        check (Float.abs mean < 0.1 *. bound) "%s: mean %g not near 0" what mean in
      chk "Linear.weight" l.weight (1. /. sqrt 64.);
      chk "Conv2d.weight" c.weight (1. /. sqrt 72.);
      chk "Embedding.weight" e.weight (sqrt (6. /. 120.)));
  ("norm_init", fun () ->
      let bn = Nn.BatchNorm.create 5 in
      check (T.to_float_array (some bn.weight) = Array.make 5 1. && T.to_float_array (some bn.bias) = Array.make 5 0.) "affine";
      check (T.to_float_array (some bn.running_mean) = Array.make 5 0. && T.to_float_array (some bn.running_var) = Array.make 5 1.) "running";
      check (T.dtype bn.num_batches_tracked = Dtype.int64 && T.shape bn.num_batches_tracked = [||]) "num_batches_tracked";
      check (not (Tensor_base.is_param (some bn.running_mean)) && not (Tensor_base.is_param bn.num_batches_tracked)
             && Tensor_base.is_param (some bn.weight))
        "is_param flags");
  ("state_dict_names", fun () ->
      let names l = String.concat "," (List.map fst l) in
      check_str ~what:"BatchNorm" "weight,bias,num_batches_tracked,running_mean,running_var"
        (names (Nn.BatchNorm.state_dict (Nn.BatchNorm.create 2)));
      check_str ~what:"BatchNorm no track" "weight,bias,num_batches_tracked"
        (names (Nn.BatchNorm.state_dict (Nn.BatchNorm.create ~track_running_stats:false 2)));
      check_str ~what:"Linear no bias" "weight" (names (Nn.Linear.state_dict (Nn.Linear.create ~bias:false 2 2)));
      check_str ~what:"LSTMCell" "weight_ih,weight_hh,bias_ih,bias_hh" (names (Nn.LSTMCell.state_dict (Nn.LSTMCell.create 2 2))));
  ("bad_input", fun () ->
      check_invalid_arg ~what:"Embedding float idx" (fun () ->
          Nn.Embedding.forward (Nn.Embedding.create 4 2) (T.of_float_array [| 2 |] [| 0.; 1. |]));
      check_invalid_arg ~what:"LayerNorm shape" (fun () ->
          Nn.LayerNorm.forward (Nn.LayerNorm.create 3) (T.zeros [| 2; 4 |]));
      check_invalid_arg ~what:"Conv2d same strided" (fun () -> Nn.Conv2d.create_nd ~stride:2 ~padding:Nn.Conv2d.Same 1 1 [ 3 ]);
      check_invalid_arg ~what:"negative lr" (fun () -> O.sgd ~lr:(-1.) [ T.zeros [| 2 |] ]);
      check_invalid_arg ~what:"no params" (fun () -> O.adam [ (let t = T.zeros [| 2 |] in Tensor_base.set_is_param t false; t) ]);
      let w = T.realize (T.ones [| 2 |]) in
      let opt = O.sgd [ w ] in
      (* TRAINING off: tinygrad raises in schedule_step *)
      check_invalid_arg ~what:"step without TRAINING" (fun () -> O.step opt);
      (* no grad *)
      check_invalid_arg ~what:"step without grad" (fun () -> training (fun () -> O.step opt)));
  ("sequential_and_training_var", fun () ->
      (* setting the TRAINING context variable enables the optimizer *)
      let w = T.realize (T.of_float_array [| 2 |] [| 1.; 2. |]) in
      let opt = O.sgd ~lr:0.5 [ w ] in
      Helpers.set Helpers.training 1;
      Fun.protect ~finally:(fun () -> Helpers.set Helpers.training 0) (fun () ->
          O.zero_grad opt;
          T.backward (T.sum (Nn.sequential [ T.square ] w));
          O.step opt);
      (* w - 0.5 * 2w = 0 *)
      check (T.to_float_array w = [| 0.; 0. |]) "sgd step on w^2: %s" (T.to_string w));
]

(* ---------- optimizers vs tinygrad: 3 steps on ((x @ w + b).tanh() - t).square().mean() ---------- *)

let run_opt name (mk : T.t list -> O.t) () =
  T.manual_seed 100;
  let w = T.sub (T.rand [| 4; 3 |]) (s 0.5) in
  let b = T.sub (T.rand [| 3 |]) (s 0.5) in
  ignore (T.realize w); ignore (T.realize b);
  let x = T.realize (T.rand [| 5; 4 |]) in
  let t = T.realize (T.rand [| 5; 3 |]) in
  let opt = mk [ w; b ] in
  let losses = training (fun () ->
      List.init 3 (fun _ ->
          O.zero_grad opt;
          let loss = T.mean (T.square (T.sub (T.tanh (T.add (T.matmul x w) b)) t)) in
          T.backward loss;
          O.step opt;
          T.item loss)) in
  check_case ~rtol:2e-5 ("opt_" ^ name) [ T.of_float_array [| 3 |] (Array.of_list losses); w; b ]

let opt_cases : case list = [
  ("sgd", run_opt "sgd" (fun p -> O.sgd ~lr:0.1 p));
  ("sgd_momentum", run_opt "sgd_momentum" (fun p -> O.sgd ~lr:0.1 ~momentum:0.9 p));
  ("sgd_nesterov_wd", run_opt "sgd_nesterov_wd" (fun p -> O.sgd ~lr:0.1 ~momentum:0.9 ~nesterov:true ~weight_decay:0.1 p));
  ("sgd_classic_wd", run_opt "sgd_classic_wd" (fun p -> O.sgd ~lr:0.1 ~momentum:0.9 ~classic:true ~weight_decay:0.01 p));
  ("adam", run_opt "adam" (fun p -> O.adam ~lr:0.01 p));
  ("adamw", run_opt "adamw" (fun p -> O.adamw ~lr:0.01 ~weight_decay:0.1 p));
  ("lamb", run_opt "lamb" (fun p -> O.lamb ~lr:0.01 ~weight_decay:0.01 p));
  ("lars", run_opt "lars" (fun p -> O.lars ~lr:0.1 p));
  ("muon", run_opt "muon" (fun p -> O.muon ~lr:0.05 p));
  ("adam_fused", run_opt "adam_fused" (fun p -> O.adam ~lr:0.01 ~fused:true p));
  ("sgd_momentum_fused", run_opt "sgd_momentum_fused" (fun p -> O.sgd ~lr:0.1 ~momentum:0.9 ~fused:true p));
  ("group", run_opt "group" (fun p ->
       let a = O.sgd ~lr:0.1 ~momentum:0.5 [ List.nth p 0 ] in
       let b = O.adam ~lr:0.02 [ List.nth p 1 ] in
       O.group [ a; b ]));
]

let tests : case list =
  List.map (fun (n, f) -> ("layer_" ^ n, f)) layer_cases @ misc_cases @ List.map (fun (n, f) -> ("optim_" ^ n, f)) opt_cases
