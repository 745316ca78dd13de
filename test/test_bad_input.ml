(* Bad input to the Tensor API (wrong shapes, axes, dtypes, kernel sizes, sizes) raises Invalid_argument whose
   message names the op. The expected failures follow tinygrad's (RuntimeError / ValueError / AssertionError /
   IndexError there); the op names are this port's convention (API.md: "invalid_arg "op: message with shapes""). *)

open Tinygrad
module T = Tensor

let contains s sub =
  let ls = String.length s and lp = String.length sub in
  let rec go i = i + lp <= ls && (String.sub s i lp = sub || go (i + 1)) in go 0

(* [f ()] (realized when it returns tensors) must raise Invalid_argument naming [op] *)
let expect op (f : unit -> T.t) () =
  match T.realize (f ()) with
  | _ -> Test_util.fail "%s: expected Invalid_argument, nothing raised" op
  | exception Invalid_argument m ->
    if not (contains m op) then Test_util.fail "%s: Invalid_argument %S does not name the op" op m
  | exception e -> Test_util.fail "%s: expected Invalid_argument, got %s" op (Printexc.to_string e)

let expect_l op (f : unit -> T.t list) = expect op (fun () -> match f () with t :: _ -> t | [] -> T.zeros [||])
let expect_u op (f : unit -> unit) = expect op (fun () -> f (); T.zeros [||])

let r shape = T.of_float_array shape (Array.init (Array.fold_left ( * ) 1 shape) float_of_int)
let ri shape = T.of_int_array shape (Array.init (Array.fold_left ( * ) 1 shape) (fun i -> i))

let tests : Test_util.case list = [
  (* elementwise: broadcasting and dtypes *)
  ("add_shapes", expect "add" (fun () -> T.add (r [| 3; 4 |]) (r [| 5 |])));
  ("sub_shapes", expect "sub" (fun () -> T.sub (r [| 2; 3 |]) (r [| 3; 2 |])));
  ("mul_shapes", expect "mul" (fun () -> T.mul (r [| 4 |]) (r [| 3 |])));
  ("div_shapes", expect "div" (fun () -> T.div (r [| 2; 2 |]) (r [| 3; 1 |])));
  ("idiv_shapes", expect "idiv" (fun () -> T.idiv (ri [| 2 |]) (ri [| 3 |])));
  ("maximum_shapes", expect "maximum" (fun () -> T.maximum (r [| 5 |]) (r [| 6 |])));
  ("lt_shapes", expect "lt" (fun () -> T.lt (r [| 2; 3 |]) (r [| 2; 4 |])));
  ("where_shapes", expect "where" (fun () -> T.where (T.gt (r [| 3 |]) (T.scalar 1.)) (r [| 4 |]) (r [| 3 |])));
  ("isclose_shapes", expect "isclose" (fun () -> T.isclose (r [| 3 |]) (r [| 2 |])));
  ("bitwise_and_float", expect "bitwise_and" (fun () -> T.bitwise_and (r [| 3 |]) (r [| 3 |])));
  ("bitwise_xor_float", expect "bitwise_xor" (fun () -> T.bitwise_xor (r [| 3 |]) (T.scalar_int 1)));
  ("lshift_float", expect "lshift" (fun () -> T.lshift (r [| 3 |]) (T.scalar_int 1)));
  ("rshift_by_float", expect "rshift" (fun () -> T.rshift (ri [| 3 |]) (r [| 1 |])));
  ("pow_int_negative_const", expect "pow" (fun () -> T.pow (ri [| 3 |]) (T.scalar_int (-2))));
  ("lerp_shapes", expect "lerp" (fun () -> T.lerp (r [| 3 |]) (r [| 4 |]) (T.scalar 0.5)));
  ("bitwise_or_float", expect "bitwise_or" (fun () -> T.bitwise_or (r [| 2 |]) (ri [| 2 |])));
  ("clip_no_bounds", expect "clip" (fun () -> T.clip (r [| 3 |])));
  (* creation *)
  ("of_float_array_length", expect "of_float_array" (fun () -> T.of_float_array [| 2; 3 |] [| 1.; 2. |]));
  ("of_int_array_length", expect "of_int_array" (fun () -> T.of_int_array [| 4 |] [| 1; 2; 3 |]));
  ("full_negative_dim", expect "full" (fun () -> T.full [| 2; -1 |] 1.));
  ("zeros_negative_dim", expect "zeros" (fun () -> T.zeros [| -3 |]));
  ("linspace_negative_steps", expect "linspace" (fun () -> T.linspace 1. 2. (-1)));
  ("linspace_bool", expect "linspace" (fun () -> T.linspace ~dtype:Dtype.bool 5. 10. 3));
  ("eye_negative", expect "eye" (fun () -> T.eye (-2)));
  (* movement *)
  ("reshape_numel", expect "reshape" (fun () -> T.reshape (r [| 2; 3 |]) [| 4; 2 |]));
  ("reshape_two_minus_one", expect "reshape" (fun () -> T.reshape (r [| 2; 3 |]) [| -1; -1 |]));
  ("permute_length", expect "permute" (fun () -> T.permute (r [| 2; 3 |]) [| 0 |]));
  ("permute_duplicate", expect "permute" (fun () -> T.permute (r [| 2; 3 |]) [| 0; 0 |]));
  ("expand_incompatible", expect "expand" (fun () -> T.expand (r [| 3 |]) [| 4 |]));
  ("pad_pairs", expect "pad" (fun () -> T.pad (r [| 2; 3 |]) [| (1, 1) |]));
  ("shrink_out_of_range", expect "shrink" (fun () -> T.shrink (r [| 2; 3 |]) [| (0, 2); (1, 5) |]));
  ("flip_axis", expect "flip" (fun () -> T.flip (r [| 2; 3 |]) [ 2 ]));
  ("transpose_axis", expect "transpose" (fun () -> T.transpose ~dim0:0 ~dim1:5 (r [| 2; 3 |])));
  ("squeeze_axis", expect "squeeze" (fun () -> T.squeeze ~dim:3 (r [| 2; 1 |])));
  ("unsqueeze_axis", expect "unsqueeze" (fun () -> T.unsqueeze (r [| 2; 3 |]) 4));
  ("repeat_too_few", expect "repeat" (fun () -> T.repeat (r [| 2; 3 |]) [| 2 |]));
  ("cat_shapes", expect "cat" (fun () -> T.cat ~dim:0 [ r [| 2; 3 |]; r [| 2; 4 |] ]));
  ("cat_axis", expect "cat" (fun () -> T.cat ~dim:2 [ r [| 2; 3 |]; r [| 2; 3 |] ]));
  ("stack_shapes", expect "stack" (fun () -> T.stack [ r [| 2 |]; r [| 3 |] ]));
  ("split_sizes", expect_l "split" (fun () -> T.split (r [| 6 |]) (`Sizes [ 2; 3 ])));
  ("chunk_zero", expect_l "chunk" (fun () -> T.chunk (r [| 6 |]) 0));
  (* indexing *)
  ("getitem_out_of_range", expect "getitem" (fun () -> T.getitem (r [| 2; 3 |]) [ T.I 5 ]));
  ("getitem_too_many", expect "getitem" (fun () -> T.getitem (r [| 2; 3 |]) [ T.I 0; T.I 0; T.I 0 ]));
  ("gather_ndim", expect "gather" (fun () -> T.gather (r [| 2; 3 |]) ~dim:0 (ri [| 2 |])));
  ("one_hot_float", expect "one_hot" (fun () -> T.one_hot (r [| 3 |]) 4));
  (* reductions *)
  ("sum_axis", expect "sum" (fun () -> T.sum ~axis:[ 2 ] (r [| 2; 3 |])));
  ("max_axis", expect "max" (fun () -> T.max ~axis:[ -3 ] (r [| 2; 3 |])));
  ("mean_axis", expect "mean" (fun () -> T.mean ~axis:[ 5 ] (r [| 2; 3 |])));
  ("argmax_axis", expect "argmax" (fun () -> T.argmax ~axis:2 (r [| 2; 3 |])));
  ("cumsum_axis", expect "cumsum" (fun () -> T.cumsum ~axis:3 (r [| 2; 3 |])));
  ("softmax_axis", expect "softmax" (fun () -> T.softmax ~axis:2 (r [| 2; 3 |])));
  ("logsumexp_axis", expect "logsumexp" (fun () -> T.logsumexp ~axis:4 (r [| 2; 3 |])));
  (* nn *)
  ("matmul_inner", expect "matmul" (fun () -> T.matmul (r [| 2; 3 |]) (r [| 4; 5 |])));
  ("matmul_scalar", expect "matmul" (fun () -> T.matmul (r [||]) (r [| 3 |])));
  ("dot_inner", expect "dot" (fun () -> T.dot (r [| 3 |]) (r [| 4 |])));
  ("linear_shapes", expect "linear" (fun () -> T.linear (r [| 2; 3 |]) (r [| 4; 5 |])));
  ("conv2d_channels", expect "conv2d" (fun () -> T.conv2d (r [| 1; 3; 5; 5 |]) (r [| 2; 4; 3; 3 |])));
  ("conv2d_kernel_too_big", expect "conv2d" (fun () -> T.conv2d (r [| 1; 1; 3; 3 |]) (r [| 1; 1; 5; 5 |])));
  ("conv2d_groups", expect "conv2d" (fun () -> T.conv2d ~groups:2 (r [| 1; 3; 5; 5 |]) (r [| 2; 3; 3; 3 |])));
  ("max_pool2d_kernel_too_big", expect "max_pool2d" (fun () -> T.max_pool2d ~kernel_size:5 (r [| 1; 1; 3; 3 |])));
  ("avg_pool2d_kernel_too_big", expect "avg_pool2d" (fun () -> T.avg_pool2d ~kernel_size:4 (r [| 1; 1; 2; 2 |])));
  ("cross_entropy_shapes", expect "cross_entropy" (fun () -> T.cross_entropy (r [| 2; 3 |]) (r [| 3; 3 |])));
  (* data out *)
  ("to_int_array_float", expect_u "to_int_array" (fun () -> ignore (T.to_int_array (r [| 3 |]))));
  ("item_not_scalar", expect_u "item" (fun () -> ignore (T.item (r [| 3 |]))));
]
