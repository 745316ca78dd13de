open Tinygrad

let show t = print_endline (String.concat " " (Array.to_list (Array.map string_of_float (Tensor.to_float_array t))))

let () =
  let a = Tensor.of_float_array [| 2; 3 |] [| 1.; -2.; 3.; -4.; 5.; -6. |] in
  let b = Tensor.of_float_array [| 3 |] [| 10.; 20.; 30. |] in
  let c = Tensor.(sum ~axis:[ 1 ] (relu (add a b))) in   (* lazy: a graph of UOps, nothing has run *)
  Global_counters.reset ();
  show c;                                                (* realizes: one fused kernel *)
  Printf.printf "kernels run: %d\n" (Global_counters.kernel_count ());
  let w = Tensor.of_float_array [| 3 |] [| 0.5; -1.; 2. |] in
  let loss = Tensor.(mean (mul a w)) in
  Tensor.backward loss;                                  (* fills w's grad *)
  show (Option.get (Tensor.grad w))
