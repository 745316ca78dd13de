(* Training with nothing but `open Tinygrad`: a 16-64-4 MLP learns to classify points by the largest of four
   random linear scores (a seeded synthetic set), with Adam and a TinyJit-captured step. Prints the loss and the
   training accuracy before and after. *)

open Tinygrad
module T = Tensor

let () =
  T.manual_seed 0;
  let n = 512 and d = 16 and classes = 4 in
  let x = T.realize (T.randn [| n; d |]) in
  let y = T.realize (T.argmax ~axis:1 (T.matmul x (T.randn [| d; classes |]))) in
  let l1 = Nn.Linear.create d 64 and l2 = Nn.Linear.create 64 classes in
  let forward x = Nn.Linear.forward l2 (T.relu (Nn.Linear.forward l1 x)) in
  let params = List.map snd (Nn.Linear.state_dict l1 @ Nn.Linear.state_dict l2) in
  let opt = Optim.adam ~lr:0.01 params in
  let accuracy () = T.item (T.mean (T.cast (T.eq (T.argmax ~axis:1 (forward x)) y) Dtype.Float32)) in
  let step =
    Tiny_jit.create (function
      | [ x; y ] ->
        Context.run [ Context.Bind (Context.training, 1) ] (fun () ->
            Optim.zero_grad opt;
            let loss = T.sparse_categorical_crossentropy (forward x) y in
            T.backward loss;
            Optim.step opt;
            T.realize loss)
      | _ -> invalid_arg "step: x and y")
  in
  let acc0 = accuracy () in
  let loss0 = T.item (Tiny_jit.call step [ x; y ]) in
  let loss = ref loss0 in
  for _ = 2 to 150 do loss := T.item (Tiny_jit.call step [ x; y ]) done;
  Printf.printf "loss %.4f -> %.4f\naccuracy %.3f -> %.3f\n" loss0 !loss acc0 (accuracy ())
