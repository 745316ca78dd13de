(* Translations of the golden op-suite test functions of categories elementwise, activation, cast and creation
   (tinygrad test/backend/test_ops.py, the tinygrad lambda of each helper call), keyed by test function name.
   [fun cl i xs]: the closure, the helper call's index within the test function, the inputs. Python literals:
   an int is [si] (a weak int CONST), a float is [sf] (a weak float CONST); where a float literal meets an int
   tensor, [pyf] builds the binary op on the UOps with the float literal, as tinygrad's [ufix] does. *)

open Tinygrad.Compiler
module T = Tensor
module H = Ops_harness

let si = T.scalar_int
let sf = T.scalar
let pyf op x f = Tensor_base.wrap (op (T.uop x) (Mixin_elementwise.cf f))

(* Tensor([...], dtype=...) built inside a lambda *)
let ints ?(dtype = Dtype.int32) l = T.of_int_array ~dtype [| List.length l |] (Array.of_list l)
let floats l = T.of_float_array [| List.length l |] (Array.of_list l)

let bad fmt = Printf.ksprintf invalid_arg fmt
let one name f : H.fwd = fun _ _ xs -> match xs with [ x ] -> f x | _ -> bad "%s: expected 1 input" name
let two name f : H.fwd = fun _ _ xs -> match xs with [ x; y ] -> f x y | _ -> bad "%s: expected 2 inputs" name
let three name f : H.fwd = fun _ _ xs -> match xs with [ x; y; z ] -> f x y z | _ -> bad "%s: expected 3 inputs" name
let app2 name f xs = match xs with [ x; y ] -> f x y | _ -> bad "%s: expected 2 inputs" name
let app3 name f xs = match xs with [ x; y; z ] -> f x y z | _ -> bad "%s: expected 3 inputs" name
let x0 xs = List.hd xs
let xy name xs = match xs with [ x; y ] -> (x, y) | _ -> bad "%s: expected 2 inputs" name
let unexpected name i = bad "%s: no helper call %d" name i

(* the op list of test_broadcast_full / test_broadcast_partial *)
let broadcast_ops = [| T.add; T.sub; T.mul; (fun x y -> T.div x y); T.pow |]

(* test_ops.py TestOps._test_cmp: fxn on (float, int, bool) vals, broadcasting, a const, specials *)
let test_cmp ~reverse fxn : H.fwd = fun _ i xs ->
  let x, y = xy "_test_cmp" xs in
  if i = 6 then fxn x (si 2) else if reverse && i = 7 then fxn (si 2) y else fxn x y

let activation : (string * H.fwd) list = [
  ("test_elu", fun _ i xs -> if i = 1 then T.elu ~alpha:0.1 (x0 xs) else T.elu (x0 xs));
  ("test_gelu", fun _ i xs -> T.gelu ~approximate:(if i = 0 then `Tanh else `None) (x0 xs));
  ("test_hardsigmoid", one "hardsigmoid" T.hardsigmoid);
  ("test_hardsigmoid_extreme", one "hardsigmoid" T.hardsigmoid);
  ("test_hardswish", one "hardswish" T.hardswish);
  ("test_hardtanh", fun cl _ xs ->
      let v = float_of_int (H.cl_int cl "val") in T.hardtanh ~min_val:(-.v) ~max_val:v (x0 xs));
  ("test_logsigmoid", one "logsigmoid" T.logsigmoid);
  ("test_mish", one "mish" T.mish);
  ("test_quick_gelu", one "quick_gelu" T.quick_gelu);
  ("test_relu", one "relu" T.relu);
  ("test_relu6", one "relu6" T.relu6);
  ("test_relu_exact", one "relu" T.relu);
  ("test_relu_maximum_exact", one "maximum" (fun x -> T.maximum x (si 0)));
  ("test_sigmoid", one "sigmoid" T.sigmoid);
  ("test_sigmoid_extreme", one "sigmoid" T.sigmoid);
  ("test_silu", one "silu" T.silu);
  ("test_softplus", fun _ i xs -> match i with
      | 1 -> T.softplus ~beta:3. (x0 xs)
      | 2 -> T.softplus ~beta:(1. /. 3.) (x0 xs)
      | _ -> T.softplus (x0 xs));
  ("test_softsign_exact", one "softsign" T.softsign);
  ("test_swish", one "swish" T.swish);
]

let cast : (string * H.fwd) list = [
  ("test_bitcast", one "bitcast" (fun x -> T.bitcast x Dtype.int32));
  ("test_cast", fun _ i xs -> match i with
      | 0 | 1 | 2 -> T.float (x0 xs)
      | 3 -> T.int (x0 xs)
      | 4 -> T.bool (x0 xs)
      | i -> unexpected "test_cast" i);
  ("TestOpsUint8.test_cast", one "cast" (fun x -> T.cast x Dtype.uint8));
]

let creation : (string * H.fwd) list = [
  ("test_arange", fun _ i _ -> match i with
      | 0 -> T.arange 10
      | 1 -> T.arange 36
      | 2 -> T.arange ~start:5 ~step:3 10
      | 3 -> T.arange ~start:10 ~step:(-3) 5
      | 4 -> T.arange ~start:11 ~step:(-3) 5
      | 5 -> T.arange ~start:1 ~step:2 78
      | 6 -> T.arange_float ~start:5.5 ~step:2.5 175.5
      | 7 -> T.arange_float ~start:(-30.2) ~step:0.75 (-0.3)
      | 8 -> T.arange_float ~start:(-50.3) ~step:(-2.25) (-380.2)
      | 9 -> T.arange ~dtype:Dtype.int8 128
      | 10 -> T.arange ~start:(-128) ~dtype:Dtype.int8 128
      | 11 -> T.arange ~start:127 ~step:(-1) ~dtype:Dtype.int8 (-129)
      | i -> unexpected "test_arange" i);
  ("test_arange_4096", fun _ _ _ -> T.arange 4096);
  ("test_eye", fun _ i _ -> match i with
      | 0 -> T.eye 10
      | 1 -> T.eye ~m:5 3
      | 2 -> T.eye ~m:3 5
      | 3 -> T.eye 1
      | 4 -> T.eye 0
      | i -> unexpected "test_eye" i);
  (* Tensor.full((45,65), 4): an int fill value gives the default int dtype *)
  ("test_full", fun _ _ _ -> T.full ~dtype:Dtype.int32 [| 45; 65 |] 4.);
  ("test_full_like", fun cl _ _ -> T.full_like (H.cl_tensor cl "a") 4.);
  ("test_linspace", fun _ i _ -> match i with
      | 0 -> T.linspace 5. 10. 3
      | 1 -> T.linspace 5. 10. 1
      | 2 -> T.linspace 5. 10. 0
      | 3 -> T.linspace 5. 10. 30
      | 4 -> T.linspace (-5.5) 5.5 10
      | 5 -> T.linspace 5.5 (-5.5) 10
      | 6 -> T.linspace ~dtype:Dtype.int32 5. 10. 3
      | 7 -> T.linspace ~dtype:Dtype.int32 5. 10. 20
      | 8 -> T.linspace ~dtype:Dtype.int32 5. (-5.) 20
      | 9 -> T.linspace ~dtype:Dtype.bool 5. 10. 3
      | 10 -> T.linspace 1. 2. (-1)
      | i -> unexpected "test_linspace" i);
  (* the lambdas return the meshgrid outputs built in the test (closure ten_i); the last call is
     xt.meshgrid(indexing="bad"), which the OCaml API cannot express (indexing is [`Ij | `Xy]): a known failure *)
  ("test_meshgrid", fun cl i _ ->
      if i = 14 then failwith "meshgrid: indexing=\"bad\" is not representable ([`Ij | `Xy])"
      else H.cl_tensor cl "ten_i");
  ("test_ones", fun _ i _ -> if i = 2 then T.ones [||] else T.ones [| 45; 65 |]);
  ("test_ones_like", fun cl _ _ -> T.ones_like (H.cl_tensor cl "a"));
  ("test_zeros", fun _ i _ -> if i = 2 then T.zeros [||] else T.zeros [| 45; 65 |]);
]

let elementwise : (string * H.fwd) list = [
  ("test_abs", one "abs" T.abs);
  ("test_acos", one "acos" T.acos);
  (* Tensor(1)+0.5: Tensor(1) is a weak int CONST, the sum a weak float *)
  ("test_add", fun _ i xs -> if i = 1 then T.add (si 1) (sf 0.5) else app2 "add" T.add xs);
  ("test_add3", three "add3" (fun x y z -> T.add (T.add x y) z));
  ("test_and", fun cl i xs -> match i with
      | 0 -> let t = H.cl_tensor cl "ten" in T.bitwise_and t t
      | 1 -> T.bitwise_and (H.cl_tensor cl "ten") (si 0x1337)
      | 2 -> T.bitwise_and (si 0x1337) (H.cl_tensor cl "ten")
      | 3 -> T.bitwise_and (H.cl_tensor cl "ten0") (H.cl_tensor cl "ten1")
      | 4 -> let x = x0 xs in T.bitwise_and (T.gt x (si 1)) (T.lt x (si 2))
      | 5 -> let s = List.fold_left T.add (List.hd xs) (List.tl xs) in
        T.bitwise_and (T.gt s (si 5)) (T.lt (List.hd xs) (sf 0.9))
      | i -> unexpected "test_and" i);
  ("test_asin", one "asin" T.asin);
  ("test_asinh", one "asinh" T.asinh);
  ("test_atan", one "atan" T.atan);
  ("test_broadcast_full", fun _ i xs -> let x, y = xy "broadcast" xs in broadcast_ops.(i / 2) x y);
  ("test_broadcast_partial", fun _ i xs -> let x, y = xy "broadcast" xs in broadcast_ops.(i / 4) x y);
  ("test_broadcast_simple", two "div" (fun x y -> T.div x y));
  ("test_broadcasted_add", two "add" T.add);
  ("test_broadcasted_add_2", two "add" T.add);
  ("test_ceil", one "ceil" T.ceil);
  ("test_clip", fun _ i xs -> let x = x0 xs in match i with
      | 0 -> T.clip ~min:(-2.3) ~max:1.2 x
      | 1 -> T.clip ~min:(-2.5) ~max:1.5 x
      | 2 -> T.clip ~min:0. ~max:0. x
      | 3 -> T.clip ~min:10. ~max:100. x
      | 4 -> T.clip ~min:0. ~max:0.1 x
      | 5 -> T.clip ~min:(-0.3) ~max:(-0.2) x
      | 6 -> T.clip ~min:3. ~max:0. x
      | 7 -> T.clip ~max:0. x
      | 8 -> T.clip ~min:0. x
      | 9 -> T.clip x
      | i -> unexpected "test_clip" i);
  ("test_cmp_eq", test_cmp ~reverse:false T.eq);
  ("test_cmp_ge", test_cmp ~reverse:true T.ge);
  ("test_cmp_gt", test_cmp ~reverse:true T.gt);
  ("test_cmp_le", test_cmp ~reverse:true T.le);
  ("test_cmp_lt", test_cmp ~reverse:true T.lt);
  ("test_copysign_exact", two "copysign" T.copysign);
  ("test_cos", fun _ i xs -> if i = 1 then T.cos (si 2) else T.cos (x0 xs));
  ("test_div", two "div" (fun x y -> T.div x y));
  ("test_div_int", fun _ i xs -> match i with
      | 0 -> app2 "div" (fun x y -> T.div x y) xs
      | 1 -> app2 "idiv" T.idiv xs
      | 2 -> T.div (x0 xs) (si 2)
      | 3 -> T.idiv (x0 xs) (si 2)
      | 4 -> app2 "div" (T.div ~rounding_mode:`Trunc) xs
      | i -> unexpected "test_div_int" i);
  ("test_div_naninf", fun _ i xs -> let x = x0 xs in match i with
      | 0 -> T.div x (sf Float.infinity)
      | 1 -> T.div x (sf Float.neg_infinity)
      | 2 -> T.div x (sf Float.nan)
      | 3 -> T.div (sf Float.infinity) x
      | 4 -> T.div (sf Float.neg_infinity) x
      | 5 -> T.div (sf Float.nan) x
      | i -> unexpected "test_div_naninf" i);
  ("test_erf", one "erf" T.erf);
  ("test_exp", fun _ i xs -> if i = 1 then T.exp (si 2) else T.exp (x0 xs));
  ("test_exp2", one "exp2" T.exp2);
  ("test_exp2_log2_zero_times_negative", two "exp2" (fun x y -> T.exp2 (T.mul (T.log2 x) y)));
  ("test_floor", one "floor" T.floor);
  ("test_fmod", fun _ i xs -> match i mod 3 with
      | 0 -> app2 "fmod" T.fmod xs
      | 1 -> T.fmod (x0 xs) (si 2)
      | _ -> T.clone (pyf Mixin_elementwise.fmod (x0 xs) 3.5));
  ("test_int_pow_const_int", fun _ i xs -> match i with
      | 0 -> T.pow (x0 xs) (si 0)
      | 1 -> T.pow (x0 xs) (si 1)
      | 2 -> T.pow (x0 xs) (si 2)
      | 3 -> T.pow (x0 xs) (si 7)
      | 4 -> T.pow (x0 xs) (si 29)
      | 5 -> T.pow (x0 xs) (si (-2))
      | i -> unexpected "test_int_pow_const_int" i);
  ("test_isclose", fun _ i xs -> match i with
      | 1 | 9 -> app2 "isclose" (fun x y -> T.isclose x y) xs
      | _ ->
        let x = x0 xs in
        (match i with
         | 0 -> T.isclose x x
         | 2 -> T.isclose ~equal_nan:true x x
         | 3 -> T.isclose x (T.add x (sf 1e-6))
         | 4 -> T.isclose x (T.add x (sf 1e-9))
         | 5 -> T.isclose ~atol:0.0 x (T.add x (sf 1e-6))
         | 6 -> T.isclose ~atol:0.0 x (T.add x (sf 1e-9))
         | 7 -> T.isclose ~rtol:0.01 x (T.add x (sf 1e-6))
         | 8 -> T.isclose ~rtol:0.01 x (T.add x (sf 1e-9))
         | i -> unexpected "test_isclose" i));
  ("test_isclose_edge_cases", fun _ i xs -> let x, y = xy "isclose" xs in T.isclose ~equal_nan:(i mod 2 = 1) x y);
  ("test_isclose_scalar", one "isclose" (fun x -> T.isclose x (sf 1.0)));
  ("test_isfinite", one "isfinite" T.isfinite);
  ("test_isnan", one "isnan" T.isnan);
  ("test_lerp", three "lerp" T.lerp);
  ("test_log", one "log" T.log);
  ("test_log10", one "log10" T.log10);
  ("test_log2", one "log2" T.log2);
  ("test_logical_not", one "logical_not" T.logical_not);
  ("test_lshift_signed", fun cl i _ ->
      let ten = H.cl_tensor cl "ten" in
      match i with
      | 0 -> T.lshift ten (si 0)
      | 1 -> T.lshift ten (si 2)
      | 2 -> T.lshift ten (si 8)
      | 3 -> T.lshift ten (si 31)
      | 4 -> T.lshift ten (ints [ 0; 2; 8; 31 ])
      | i -> unexpected "test_lshift_signed" i);
  ("test_maximum", two "maximum" T.maximum);
  ("test_minimum", two "minimum" T.minimum);
  ("test_mod", fun _ i xs -> match i mod 7 with
      | 0 | 1 -> app2 "mod" T.( mod ) xs
      | 2 -> T.( mod ) (x0 xs) (si 2)
      | 3 -> T.( mod ) (x0 xs) (si 3)
      | 4 -> T.clone (pyf Mixin_elementwise.mod_ (x0 xs) 3.5)
      | 5 -> T.( mod ) (si 100) (x0 xs)
      | _ -> T.clone (Tensor_base.wrap (Mixin_elementwise.mod_ (Mixin_elementwise.cf 100.5) (T.uop (x0 xs)))));
  ("test_mul", two "mul" T.mul);
  ("test_neg", one "neg" T.neg);
  ("test_pow_const", fun _ i xs -> let x = x0 xs in match i with
      | 0 -> T.pow x (sf 0.0)
      | 1 -> T.pow x (sf 1.0)
      | 2 -> T.pow x (sf (-1.0))
      | 3 -> T.pow x (sf 8.0)
      | 4 -> T.pow x (sf 5.5)
      | 5 -> T.pow x (sf (-5.5))
      | 6 -> T.pow (sf 1.0) x
      | 7 -> T.pow (sf 5.5) x
      | 8 -> T.pow (sf (-5.5)) x
      | 9 -> T.pow (sf 8.0) x
      | 10 | 12 -> T.pow x (sf 2.0)
      | 11 | 13 -> T.pow (sf 2.0) x
      | 14 -> T.pow (si 0) x
      | 15 -> T.pow (sf 0.7) x
      | 16 -> T.pow (si (-2)) x
      | 17 -> T.clone (Tensor_base.wrap (Mixin_elementwise.pow (Mixin_elementwise.cf 0.7) (T.uop x)))
      | i -> unexpected "test_pow_const" i);
  ("test_pow_int_base_float_exponent", fun cl _ _ ->
      T.clone (pyf Mixin_elementwise.pow (ints [ 1; 2; 3; 4 ]) (H.cl_float cl "exponent")));
  ("test_pow_neg_inf_frac_exponent", fun _ i xs -> T.pow (x0 xs) (sf (if i = 0 then 0.3 else 3.3)));
  ("test_pow_zero_exponent", two "pow" T.pow);
  ("test_pow_zero_tensor", two "pow" T.pow);
  ("test_round", one "round" T.round);
  (* tinygrad casts the uint32 result to int32 because torch has no uint32 *)
  ("test_rshift", fun cl i _ ->
      let ten () = H.cl_tensor cl "ten" and i32 t = T.cast t Dtype.int32 in
      match i with
      | 0 -> i32 (T.rshift (ten ()) (si 0))
      | 1 | 4 | 5 -> i32 (T.rshift (ten ()) (si 2))
      | 2 -> i32 (T.rshift (ten ()) (si 31))
      | 3 -> i32 (T.rshift (ten ()) (ints ~dtype:Dtype.uint32 [ 0; 2; 4 ]))
      | 6 -> T.rshift (floats [ 4.0 ]) (si 1)
      | 7 -> T.rshift (ten ()) (floats [ 1.0 ])
      | i -> unexpected "test_rshift" i);
  ("test_rsqrt", one "rsqrt" T.rsqrt);
  ("test_scalar_div", fun _ i xs -> let x = x0 xs in match i with
      | 0 -> T.div x (si 255)
      | 1 -> T.div x (si 1)
      | 2 -> T.div (si 1) x
      | 3 | 5 -> T.div x (si 2)
      | 4 | 6 -> T.div (si 2) x
      | i -> unexpected "test_scalar_div" i);
  ("test_scalar_rsub", one "sub" (fun x -> T.sub (si 2) x));
  ("test_scalar_sub", one "sub" (fun x -> T.sub x (si 2)));
  ("test_sign_exact", one "sign" T.sign);
  ("test_sin", one "sin" T.sin);
  ("test_sinh", one "sinh" T.sinh);
  ("test_sub", two "sub" T.sub);
  ("test_tan", one "tan" T.tan);
  ("test_tanh", one "tanh" T.tanh);
  ("test_tanh_extreme", one "tanh" T.tanh);
  ("test_tiny_mul", two "mul" T.mul);
  ("test_topo_sort", one "topo" (fun x -> T.mul (T.add x x) x));
  ("test_where", fun _ i xs -> match i with
      | 0 -> T.clone (T.where (ints ~dtype:Dtype.bool [ 1; 0 ]) (si 1) (si 3))
      | 1 -> T.clone (T.where (T.gt (x0 xs) (sf 0.5)) (si 4) (si 2))
      | _ -> app3 "where" (fun x a b -> T.where (T.gt x (sf 0.5)) a b) xs);
  ("test_xor", fun cl i _ ->
      let ten = H.cl_tensor cl "ten" in
      match i with
      | 0 -> T.bitwise_xor ten ten
      | 1 -> T.bitwise_xor ten (si 0x1337)
      | 2 -> T.bitwise_xor (si 0x1337) ten
      | i -> unexpected "test_xor" i);
]

let tests : (string * H.fwd) list = activation @ cast @ creation @ elementwise
