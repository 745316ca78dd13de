(* Bad input to the Tensor API (wrong shapes, axes, dtypes, kernel sizes, sizes) raises Invalid_argument whose
   message names the op. The expected failures follow tinygrad's (RuntimeError / ValueError / AssertionError /
   IndexError there); each message starts with "op:", the name of the public op that was called. *)

open Tinygrad.Compiler
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

(* ---------- one bad call for every public op of tensor.mli ---------- *)

let starts_with ~prefix s = String.length s >= String.length prefix && String.sub s 0 (String.length prefix) = prefix

let t_ f () = ignore (T.realize (f ()))
let u_ f () = ignore (f ())
let weak_dev () = T.div (T.of_int_array ~dtype:Dtype.uint8 [| 2 |] [| 1; 2 |]) (T.scalar 255.)
let r23 () = r [| 2; 3 |]

(* (op, a call that is wrong): the Invalid_argument must start with "op:" *)
let bad_calls : (string * (unit -> unit)) list = [
  (* creation *)
  ("of_float_array", t_ (fun () -> T.of_float_array [| 2; 3 |] [| 1.; 2. |]));
  ("of_int_array", t_ (fun () -> T.of_int_array [| 4 |] [| 1; 2; 3 |]));
  ("scalar", t_ (fun () -> T.scalar ~dtype:Dtype.Void 1.));
  ("scalar_int", t_ (fun () -> T.scalar_int ~dtype:Dtype.Void 1));
  ("full", t_ (fun () -> T.full [| 2; -1 |] 1.));
  ("zeros", t_ (fun () -> T.zeros [| -3 |]));
  ("ones", t_ (fun () -> T.ones [| -1 |]));
  ("empty", t_ (fun () -> T.empty [| -2 |]));
  ("full_like", t_ (fun () -> T.full_like ~dtype:Dtype.Void (r23 ()) 1.));
  ("zeros_like", t_ (fun () -> T.zeros_like ~dtype:Dtype.Void (r23 ())));
  ("ones_like", t_ (fun () -> T.ones_like ~dtype:Dtype.Void (r23 ())));
  ("empty_like", t_ (fun () -> T.empty_like ~dtype:Dtype.Void (r23 ())));
  ("arange", t_ (fun () -> T.arange ~step:0 5));
  ("arange_float", t_ (fun () -> T.arange_float ~step:0. 5.));
  ("linspace", t_ (fun () -> T.linspace 1. 2. (-1)));
  ("eye", t_ (fun () -> T.eye (-2)));
  ("triu", t_ (fun () -> T.triu (r [| 3 |])));
  ("tril", t_ (fun () -> T.tril (r [| 3 |])));
  (* data in and out, realize *)
  ("to_int_array", u_ (fun () -> T.to_int_array (r [| 3 |])));
  ("item", u_ (fun () -> T.item (r [| 3 |])));
  ("of_bigarray", t_ (fun () -> T.of_bigarray (Bigarray.Genarray.create Bigarray.complex32 Bigarray.c_layout [| 2 |])));
  ("to_bigarray", u_ (fun () -> ignore (T.to_bigarray Bigarray.int32 (r [| 3 |]))));
  ("linear_with_vars", u_ (fun () -> T.linear_with_vars [ weak_dev () ]));
  ("clone", t_ (fun () -> T.clone ~device:"NOSUCHDEV" (r23 ())));
  ("assign", t_ (fun () -> T.assign (T.realize (r23 ())) (r [| 4 |])));
  ("setitem", u_ (fun () -> T.setitem (T.contiguous (r23 ())) [ T.I 0 ] (r [| 4 |])));
  ("setitem_const", u_ (fun () -> T.setitem_const (T.contiguous (r23 ())) [ T.I 5 ] 1.));
  ("to_device", t_ (fun () -> T.to_device (r23 ()) "NOSUCHDEV"));
  ("of_uop", t_ (fun () -> T.of_uop (Rangeify.copy_to_device (T.uop (r23 ())) (Uop.One "NOSUCHDEV"))));
  (* several devices *)
  ("to_devices", t_ (fun () -> T.to_devices (r23 ()) [ "NOSUCHDEV"; "CPU:1" ]));
  ("shard", t_ (fun () -> T.shard ~axis:1 (r23 ()) [ "CPU:1"; "CPU:2" ]));
  ("shard_", t_ (fun () -> T.shard_ (T.shard (r23 ()) [ "CPU:1"; "CPU:2" ]) [ "CPU:1"; "CPU:2" ]));
  ("shard_like", t_ (fun () -> T.shard_like (T.shard (r23 ()) [ "CPU:1"; "CPU:2" ]) (T.shard ~axis:0 (r23 ()) [ "CPU:1"; "CPU:2" ])));
  (* calls *)
  ("as_param", t_ (fun () -> T.as_param 0 (T.scalar 1.)));
  ("call", t_ (fun () -> T.call ~fxn:(T.sum (T.as_param 0 (r23 ()))) [ r [| 3; 2 |] ]));
  (* dtype *)
  ("cast", t_ (fun () -> T.cast (r23 ()) Dtype.Void));
  ("bitcast", t_ (fun () -> T.bitcast (T.scalar 1.0) Dtype.Int32));
  ("element_size", u_ (fun () -> T.element_size (T.scalar 1.0)));
  (* elementwise *)
  ("add", t_ (fun () -> T.add (r [| 3; 4 |]) (r [| 5 |])));
  ("sub", t_ (fun () -> T.sub (r23 ()) (r [| 3; 2 |])));
  ("mul", t_ (fun () -> T.mul (r [| 4 |]) (r [| 3 |])));
  ("div", t_ (fun () -> T.div (r [| 2; 2 |]) (r [| 3; 1 |])));
  ("idiv", t_ (fun () -> T.idiv (ri [| 2 |]) (ri [| 3 |])));
  ("mod", t_ (fun () -> T.( mod ) (ri [| 2 |]) (ri [| 3 |])));
  ("mod_", t_ (fun () -> T.mod_ (ri [| 2 |]) (ri [| 3 |])));
  ("fmod", t_ (fun () -> T.fmod (r [| 2 |]) (r [| 3 |])));
  ("pow", t_ (fun () -> T.pow (ri [| 3 |]) (T.scalar_int (-2))));
  ("maximum", t_ (fun () -> T.maximum (r [| 5 |]) (r [| 6 |])));
  ("minimum", t_ (fun () -> T.minimum (r [| 5 |]) (r [| 6 |])));
  ("lt", t_ (fun () -> T.lt (r23 ()) (r [| 2; 4 |])));
  ("gt", t_ (fun () -> T.gt (r23 ()) (r [| 2; 4 |])));
  ("le", t_ (fun () -> T.le (r23 ()) (r [| 2; 4 |])));
  ("ge", t_ (fun () -> T.ge (r23 ()) (r [| 2; 4 |])));
  ("eq", t_ (fun () -> T.eq (r23 ()) (r [| 2; 4 |])));
  ("ne", t_ (fun () -> T.ne (r23 ()) (r [| 2; 4 |])));
  ("bitwise_and", t_ (fun () -> T.bitwise_and (r [| 3 |]) (r [| 3 |])));
  ("bitwise_or", t_ (fun () -> T.bitwise_or (r [| 2 |]) (ri [| 2 |])));
  ("bitwise_xor", t_ (fun () -> T.bitwise_xor (r [| 3 |]) (T.scalar_int 1)));
  ("lshift", t_ (fun () -> T.lshift (r [| 3 |]) (T.scalar_int 1)));
  ("rshift", t_ (fun () -> T.rshift (ri [| 3 |]) (r [| 1 |])));
  ("logaddexp", t_ (fun () -> T.logaddexp (r [| 3 |]) (r [| 2 |])));
  ("copysign", t_ (fun () -> T.copysign (r [| 3 |]) (r [| 2 |])));
  ("where", t_ (fun () -> T.where (T.gt (r [| 3 |]) (T.scalar 1.)) (r [| 4 |]) (r [| 3 |])));
  ("masked_fill", t_ (fun () -> T.masked_fill (r [| 3 |]) (T.gt (r [| 4 |]) (T.scalar 1.)) (T.scalar 0.)));
  ("lerp", t_ (fun () -> T.lerp (r [| 3 |]) (r [| 4 |]) (T.scalar 0.5)));
  ("isclose", t_ (fun () -> T.isclose (r [| 3 |]) (r [| 2 |])));
  ("clip", t_ (fun () -> T.clip (r [| 3 |])));
  (* reductions *)
  ("sum", t_ (fun () -> T.sum ~axis:[ 2 ] (r23 ())));
  ("prod", t_ (fun () -> T.prod ~axis:[ 2 ] (r23 ())));
  ("max", t_ (fun () -> T.max ~axis:[ -3 ] (r23 ())));
  ("min", t_ (fun () -> T.min ~axis:[ 3 ] (r23 ())));
  ("mean", t_ (fun () -> T.mean ~axis:[ 5 ] (r23 ())));
  ("var", t_ (fun () -> T.var ~axis:[ 5 ] (r23 ())));
  ("std", t_ (fun () -> T.std ~axis:[ 5 ] (r23 ())));
  ("any", t_ (fun () -> T.any ~axis:[ 5 ] (r23 ())));
  ("all", t_ (fun () -> T.all ~axis:[ 5 ] (r23 ())));
  (* movement *)
  ("reshape", t_ (fun () -> T.reshape (r23 ()) [| 4; 2 |]));
  ("view", t_ (fun () -> T.view (r23 ()) [| 4; 2 |]));
  ("permute", t_ (fun () -> T.permute (r23 ()) [| 0 |]));
  ("expand", t_ (fun () -> T.expand (r [| 3 |]) [| 4 |]));
  ("pad", t_ (fun () -> T.pad (r23 ()) [| (1, 1) |]));
  ("shrink", t_ (fun () -> T.shrink (r23 ()) [| (0, 2); (1, 5) |]));
  ("flip", t_ (fun () -> T.flip (r23 ()) [ 3 ]));
  ("transpose", t_ (fun () -> T.transpose ~dim0:0 ~dim1:5 (r23 ())));
  ("flatten", t_ (fun () -> T.flatten ~start_dim:4 (r23 ())));
  ("unflatten", t_ (fun () -> T.unflatten (r [| 6 |]) 0 [| 4; 2 |]));
  ("squeeze", t_ (fun () -> T.squeeze ~dim:4 (r23 ())));
  ("unsqueeze", t_ (fun () -> T.unsqueeze (r23 ()) 5));
  ("repeat", t_ (fun () -> T.repeat (r23 ()) [| 2 |]));
  ("repeat_interleave", t_ (fun () -> T.repeat_interleave ~dim:3 (r23 ()) 2));
  ("roll", t_ (fun () -> T.roll ~dims:[ 4 ] (r23 ()) [ 1 ]));
  ("split", u_ (fun () -> T.split (r [| 6 |]) (`Sizes [ 2; 3 ])));
  ("chunk", u_ (fun () -> T.chunk (r [| 6 |]) 0));
  ("cat", t_ (fun () -> T.cat [ r23 (); r [| 2 |] ]));
  ("stack", t_ (fun () -> T.stack [ r23 (); r [| 2 |] ]));
  ("diag", t_ (fun () -> T.diag (r23 ())));
  ("unfold", t_ (fun () -> T.unfold (r [| 4 |]) 0 5 1));
  (* indexing *)
  ("getitem", t_ (fun () -> T.getitem (r23 ()) [ T.I 5 ]));
  ("gather", t_ (fun () -> T.gather (r23 ()) ~dim:0 (ri [| 2 |])));
  ("one_hot", t_ (fun () -> T.one_hot (r [| 3 |]) 4));
  ("masked_select", t_ (fun () -> T.masked_select (r [| 3 |]) (T.gt (r [| 4 |]) (T.scalar 1.))));
  ("diagonal", t_ (fun () -> T.diagonal ~dim1:0 ~dim2:0 (r23 ())));
  (* linear algebra and nn functions *)
  ("dot", t_ (fun () -> T.dot (r [| 3 |]) (r [| 4 |])));
  ("matmul", t_ (fun () -> T.matmul (r23 ()) (r [| 4; 5 |])));
  ("linear", t_ (fun () -> T.linear (r23 ()) (r [| 4; 5 |])));
  ("einsum", t_ (fun () -> T.einsum "ij,jk->ik" [ r23 (); r [| 4; 5 |] ]));
  ("logsumexp", t_ (fun () -> T.logsumexp ~axis:4 (r23 ())));
  ("softmax", t_ (fun () -> T.softmax ~axis:2 (r23 ())));
  ("log_softmax", t_ (fun () -> T.log_softmax ~axis:2 (r23 ())));
  ("softmin", t_ (fun () -> T.softmin ~axis:2 (r23 ())));
  ("argmax", t_ (fun () -> T.argmax ~axis:2 (r23 ())));
  ("argmin", t_ (fun () -> T.argmin ~axis:2 (r23 ())));
  ("cumsum", t_ (fun () -> T.cumsum ~axis:3 (r23 ())));
  ("cumprod", t_ (fun () -> T.cumprod ~axis:3 (r23 ())));
  ("cummax", u_ (fun () -> T.cummax ~axis:3 (r23 ())));
  ("cummin", u_ (fun () -> T.cummin ~axis:3 (r23 ())));
  ("logcumsumexp", t_ (fun () -> T.logcumsumexp ~axis:3 (r23 ())));
  ("sort", u_ (fun () -> T.sort ~dim:3 (r23 ())));
  ("argsort", t_ (fun () -> T.argsort ~dim:3 (r23 ())));
  ("topk", u_ (fun () -> T.topk (r [| 3 |]) 5));
  ("scatter", t_ (fun () -> T.scatter (r23 ()) ~dim:3 (ri [| 2; 3 |]) (`Scalar 1.)));
  ("scatter_reduce", t_ (fun () -> T.scatter_reduce (r23 ()) ~dim:3 (ri [| 2; 3 |]) (r23 ()) `Sum));
  ("normalize", t_ (fun () -> T.normalize ~dim:3 (r23 ())));
  ("var_mean", u_ (fun () -> T.var_mean ~axis:[ 3 ] (r23 ())));
  ("std_mean", u_ (fun () -> T.std_mean ~axis:[ 3 ] (r23 ())));
  ("layernorm", t_ (fun () -> T.layernorm ~axis:[ 3 ] (r23 ())));
  ("batchnorm", t_ (fun () -> T.batchnorm (r [| 2; 3; 4 |]) ~mean:(r [| 5 |]) ~invstd:(r [| 5 |])));
  ("conv2d", t_ (fun () -> T.conv2d (r [| 1; 3; 5; 5 |]) (r [| 2; 4; 3; 3 |])));
  ("conv_nd", t_ (fun () -> T.conv_nd (r [| 1; 3; 5 |]) (r [| 2; 4; 3 |])));
  ("conv_transpose2d", t_ (fun () -> T.conv_transpose2d (r [| 1; 3; 5; 5 |]) (r [| 4; 2; 3; 3 |])));
  ("max_pool2d", t_ (fun () -> T.max_pool2d ~kernel_size:5 (r [| 1; 1; 3; 3 |])));
  ("avg_pool2d", t_ (fun () -> T.avg_pool2d ~kernel_size:4 (r [| 1; 1; 2; 2 |])));
  ("max_pool_nd", t_ (fun () -> T.max_pool_nd ~kernel_size:[ 5 ] (r [| 1; 1; 3 |])));
  ("max_pool_nd_with_indices", u_ (fun () -> T.max_pool_nd_with_indices ~kernel_size:[ 5 ] (r [| 1; 1; 3 |])));
  ("avg_pool_nd", t_ (fun () -> T.avg_pool_nd ~kernel_size:[ 5 ] (r [| 1; 1; 3 |])));
  ("max_unpool2d", t_ (fun () -> T.max_unpool2d ~kernel_size:[ 2; 2 ] (r [| 1; 1; 2; 2 |]) (ri [| 1; 1; 3; 3 |])));
  ("interpolate", t_ (fun () -> T.interpolate (r23 ()) [ 2; 2; 2 ]));
  ("cross_entropy", t_ (fun () -> T.cross_entropy (r23 ()) (r [| 3; 3 |])));
  ("sparse_categorical_crossentropy", t_ (fun () -> T.sparse_categorical_crossentropy (r23 ()) (ri [| 3 |])));
  ("binary_crossentropy", t_ (fun () -> T.binary_crossentropy (r [| 3 |]) (r [| 4 |])));
  ("binary_crossentropy_logits", t_ (fun () -> T.binary_crossentropy_logits (r [| 3 |]) (r [| 4 |])));
  ("nll_loss", t_ (fun () -> T.nll_loss (r23 ()) (ri [| 3 |])));
  ("scaled_dot_product_attention", t_ (fun () -> T.scaled_dot_product_attention (r23 ()) (r [| 4; 5 |]) (r23 ())));
  ("dropout", t_ (fun () -> T.dropout ~p:1.5 (r23 ())));
  (* autograd *)
  ("gradient", u_ (fun () -> T.gradient (T.sum (r23 ())) [ ri [| 2 |] ]));
  ("gradient_with", u_ (fun () -> T.gradient_with (T.sum (r23 ())) [ ri [| 2 |] ]));
  ("backward", u_ (fun () -> T.backward (r23 ())));
  (* random numbers *)
  ("rand", t_ (fun () -> T.rand ~dtype:Dtype.int32 [| 2 |]));
  ("rand_like", t_ (fun () -> T.rand_like ~dtype:Dtype.int32 (r23 ())));
  ("randn", t_ (fun () -> T.randn [| -2 |]));
  ("randn_like", t_ (fun () -> T.randn_like ~dtype:Dtype.Void (r23 ())));
  ("randint", t_ (fun () -> T.randint ~dtype:Dtype.float32 ~high:5 [| 2 |]));
  ("uniform", t_ (fun () -> T.uniform [| -2 |]));
  ("normal", t_ (fun () -> T.normal [| -2 |]));
  ("scaled_uniform", t_ (fun () -> T.scaled_uniform [| -2 |]));
  ("glorot_uniform", t_ (fun () -> T.glorot_uniform [| -2 |]));
  ("kaiming_uniform", t_ (fun () -> T.kaiming_uniform [| -2 |]));
  ("kaiming_normal", t_ (fun () -> T.kaiming_normal [| -2 |]));
  ("randperm", t_ (fun () -> T.randperm (-1)));
  ("multinomial", t_ (fun () -> T.multinomial (r [| 2; 2; 2 |])));
  (* modes named by strings (tinygrad's spelling, for replaying its cases) *)
  ("reduction_of_string", u_ (fun () -> T.reduction_of_string "typo"));
  ("scatter_reduction_of_string", u_ (fun () -> T.scatter_reduction_of_string "typo"));
  ("scatter_mode_of_string", u_ (fun () -> T.scatter_mode_of_string "typo"));
  ("pad_mode_of_string", u_ (fun () -> T.pad_mode_of_string "typo"));
]

(* the public values no argument of which can be wrong: accessors, printers, realize and data out (tinygrad
   realizes weak dtypes too), meshgrid and nonzero (tinygrad flattens and clamps), and the ops defined for every
   tensor (the unary elementwise ops, casts to a concrete dtype) *)
let cannot_fail = [
  "uop"; "shape"; "dtype"; "device"; "numel"; "ndim"; "to_string"; "pp"; "training"; "grad"; "manual_seed";
  "realize"; "realize_all"; "to_float_array"; "meshgrid"; "nonzero"; "devices"; "is_sharded"; "shard_axis";
  "is_floating_point"; "float"; "half"; "int"; "bool"; "bfloat16"; "double"; "long"; "short";
  "detach"; "logical_not"; "contiguous"; "contiguous_backward"; "neg"; "bitwise_not"; "reciprocal"; "trunc"; "sqrt";
  "sin"; "log2"; "exp2"; "floor"; "ceil"; "cos"; "exp"; "square"; "isnan"; "isinf"; "isfinite"; "relu"; "sigmoid";
  "relu6"; "hardswish"; "hardsigmoid"; "hardtanh"; "leaky_relu"; "tanh"; "quick_gelu"; "rsqrt"; "log"; "log10";
  "sign"; "abs"; "erf"; "gelu"; "swish"; "silu"; "round"; "tan"; "asin"; "acos"; "atan"; "atanh"; "asinh"; "acosh";
  "elu"; "celu"; "selu"; "softplus"; "mish"; "logsigmoid"; "sinh"; "cosh"; "softsign";
]

(* [( mod )] and [mod_] are one op, named "mod" *)
let message_name = function "mod_" -> "mod" | op -> op

let every_public_op () =
  let failures = List.filter_map (fun (op, f) ->
      let op = message_name op in
      match f () with
      | () -> Some (Printf.sprintf "%s: nothing raised" op)
      | exception Invalid_argument m ->
        if starts_with ~prefix:(op ^ ":") m then None else Some (Printf.sprintf "%s: message %S" op m)
      | exception e -> Some (Printf.sprintf "%s: raised %s" op (Printexc.to_string e))) bad_calls in
  if failures <> [] then Test_util.fail "%d ops:\n%s" (List.length failures) (String.concat "\n" failures)

(* the names declared by [val] in src/tensor.mli (its top level, not module O) and in the mixin signatures it
   includes (src/mixin/mixin_intf.ml, every module type but the carriers) *)
let declared_names () =
  let root = Test_docs.repo_root () in
  let lines f = String.split_on_char '\n' (Test_docs.read_file (Filename.concat root f)) in
  let name_of l prefix =
    if starts_with ~prefix l then
      let rest = String.sub l (String.length prefix) (String.length l - String.length prefix) in
      if starts_with ~prefix:"( " rest then Some (String.sub rest 2 (String.index_from rest 2 ' ' - 2))
      else Some (String.sub rest 0 (String.index rest ' '))
    else None in
  let top = List.filter_map (fun l -> name_of l "val ") (lines "src/tensor.mli") in
  let in_carrier = ref false in
  let mixin = List.filter_map (fun l ->
      if starts_with ~prefix:"module type " l then
        in_carrier := List.mem (List.nth (String.split_on_char ' ' l) 2) [ "CARRIER"; "RAND_CARRIER" ];
      if !in_carrier then None else name_of l "  val ") (lines "src/mixin/mixin_intf.ml") in
  top @ mixin

let table_complete () =
  let covered = List.map fst bad_calls @ cannot_fail in
  let missing = List.filter (fun n -> not (List.mem n covered)) (declared_names ()) in
  if missing <> [] then Test_util.fail "public ops with no bad call in the table: %s" (String.concat ", " missing)

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
  ("every_public_op", fun () -> every_public_op ());
  ("every_public_op_table_complete", fun () -> table_complete ());
]
