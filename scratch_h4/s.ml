open Tinygrad
let () =
  let x = Tensor.of_float_array [|7|] [|0.;1.;-2.;0.5;0.;3.;0.|] in
  let y = Tensor.cast (Tensor.expand (Tensor.reshape x [|1;7|]) [|3;7;7|]) Dtype.Bool in
  let v = Tensor.to_int_array y in
  Array.iter (fun i -> print_int i) v; print_newline ()
