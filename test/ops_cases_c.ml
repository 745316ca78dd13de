(* Translations of the golden op-suite test functions of categories matmul_conv, pooling, interpolate, loss
   (tinygrad test/backend/test_ops.py), keyed by test function name. Each entry is the tinygrad lambda of the test's
   helper calls; [ci] (the call index) picks the lambda when a test makes several different calls, and the closure
   gives the loop variables (kernel sizes, paddings, reductions, class lists ...) the lambda saw. *)

open Tinygrad.Compiler
module H = Ops_harness
module T = Tensor

let bad what = invalid_arg ("ops_cases_c: unexpected inputs for " ^ what)
let one = function [ x ] -> x | _ -> bad "a 1-input lambda"
let two = function [ x; y ] -> (x, y) | _ -> bad "a 2-input lambda"
let three = function [ x; y; z ] -> (x, y, z) | _ -> bad "a 3-input lambda"

(* a Python int-or-tuple closure value as tinygrad's int-or-tuple list (an int is a one-element list) *)
let rec json_ints (j : Golden.json) = match j with
  | Golden.Num s -> [ int_of_string s ]
  | Golden.Arr l -> List.concat_map json_ints l
  | _ -> failwith "closure: not an int or a list of ints"
let tup cl k = match Golden.member_opt "value" (H.cl_json cl k) with
  | Some v -> json_ints v
  | None -> H.cl_ints cl k

(* a value of a dict closure value ([args] of test_max_unpool2d) as an int-or-tuple list *)
let dict_tup cl k key = match Golden.member_opt "value" (H.cl_json cl k) with
  | Some (Golden.Obj kvs) -> Option.map json_ints (List.assoc_opt key kvs)
  | _ -> failwith "closure: not a dict"

(* tinygrad Tensor(python_list): a (nested) list of ints -> int32, of floats -> float32 *)
let rec json_shape (j : Golden.json) = match j with
  | Golden.Arr (x :: _ as l) -> List.length l :: json_shape x
  | Golden.Arr [] -> [ 0 ]
  | _ -> []
let list_shape cl k =
  let j = H.cl_json cl k in
  match Golden.member_opt "value" j with
  | Some v -> json_shape v
  | None -> json_ints (Golden.member "shape" j)
let rec json_floats (j : Golden.json) = match j with
  | Golden.Arr l -> List.concat_map json_floats l
  | Golden.Str "nan" -> [ Float.nan ] | Golden.Str "inf" -> [ Float.infinity ] | Golden.Str "-inf" -> [ Float.neg_infinity ]
  | Golden.Num s -> [ float_of_string s ]
  | _ -> failwith "closure: not a float or a list of floats"
let floats cl k = match Golden.member_opt "value" (H.cl_json cl k) with
  | Some v -> json_floats v
  | None -> H.cl_floats cl k
let int_list_tensor cl k = T.of_int_array (Array.of_list (list_shape cl k)) (Array.of_list (tup cl k))
let float_list_tensor cl k = T.of_float_array (Array.of_list (list_shape cl k)) (Array.of_list (floats cl k))

let reduction cl = T.reduction_of_string (H.cl_str cl "r")
let clip01 y = T.clip ~min:0. ~max:1. y

(* helper_test_op(..., Tensor.dot) / lambda x,y: x@y *)
let dot _ _ xs = let x, y = two xs in T.dot x y
let matmul _ _ xs = let x, y = two xs in T.matmul x y

(* lambda x,w: Tensor.conv2d(x,w,groups=groups) *)
let conv_groups cl _ xs = let x, w = two xs in T.conv_nd ~groups:(H.cl_int cl "groups") x w
(* lambda x,w: Tensor.conv2d(x,w) *)
let conv _ _ xs = let x, w = two xs in T.conv_nd x w
let conv_padding cl _ xs = let x, w = two xs in T.conv_nd ~padding:(tup cl "padding") x w
let conv_transpose _ _ xs = let x, w = two xs in T.conv_transpose2d x w

let einsum_formulas = [|
  (* test_einsum, in call order *)
  "->"; "ij->ji"; "ij -> ji"; "ji"; "jki"; "dog"; "ij,jk"; "ijk->"; "ij->j"; "ij->i"; "ik,k->i"; "ik,kj->ij"; "jk,ki->ji";
  "i,i->i"; "ij,ij->ij"; "i,j->ij"; "ijk,ikl->ijl"; "ijk,ikl->jil"; "jik,ikl->jil"; "ijk,ika->ija"; "pqrs,tuqvr->pstuv";
  "prsq,tquvr->pstuv"; "zqrs,tuqvr->zstuv"; "ik,jkl,il->ij" |]
let einsum_ellipsis = [| "...id, ...jd -> ...ij"; "...id, ...jd"; "i...j,ji...->..."; "ij...,ij...->ij"; "...ik..., ...jk ->";
                         "i...j,ji...->..." |]
let einsum_trace = [| "i,i"; "ii->i"; "ii->"; "...ii->...i"; "...ii->..." |]

let interp_mode cl = match H.cl_str cl "mode" with
  | "nearest" -> `Nearest
  | "nearest-exact" -> `Nearest_exact
  | "linear" -> `Linear
  | m -> failwith ("unknown interpolate mode " ^ m)

let tests : (string * H.fwd) list = [
  (* ---------- matmul_conv ---------- *)
  ("test_9_gemm", matmul);
  ("test_small_gemm", matmul);
  ("test_small_gemm_eye", matmul);
  ("test_small_gemm_range", matmul);
  ("test_small_gemm_padded", fun _ _ xs ->
      let x, y = two xs in
      T.matmul (T.pad x [| (0, 7); (0, 7) |]) (T.pad y [| (0, 7); (0, 7) |]));
  ("test_broadcastdot", dot);
  ("test_dot_1d", dot);
  ("test_matmul", dot);
  ("test_matmul_batched", dot);
  ("test_matmul_batched_vector", dot);
  ("test_matmul_simple", dot);
  ("test_multidot", dot);
  ("test_matvec", fun _ _ xs -> let x, y = two xs in T.relu (T.matmul x y));
  ("test_matvecmat", fun _ _ xs -> let x, y, z = three xs in T.matmul (T.relu (T.matmul x y)) z);
  ("test_mulacc_with_zero_strides", fun cl ci _ ->
      match ci with
      | 0 ->
        let t () = T.expand (T.reshape (T.scalar ~dtype:Dtype.float32 1.0) [| 1; 1; 1 |]) [| 2; 4; 3 |] in
        T.sum ~axis:[ -1 ] (T.mul (t ()) (t ()))
      | 1 ->
        let a = float_list_tensor cl "a" and b = float_list_tensor cl "b" in
        T.sum ~axis:[ 0; 2 ] (T.mul (T.expand (T.reshape a [| 2; 4; 1 |]) [| 2; 4; 3 |])
                                (T.expand (T.reshape b [| 1; 4; 1 |]) [| 2; 4; 3 |]))
      | _ -> T.dot (T.ones [| 1; 2 |]) (T.ones [| 2; 3 |]));
  ("test_einsum", fun _ ci xs -> T.einsum einsum_formulas.(ci) xs);
  ("test_einsum_arity_check1", fun _ _ xs -> T.einsum "ij,jk->ij" xs);
  ("test_einsum_arity_check2", fun _ _ xs -> T.einsum "ij,jk->ij" xs);
  ("test_einsum_ellipsis", fun _ ci xs -> T.einsum einsum_ellipsis.(ci) xs);
  ("test_einsum_shape_check", fun _ _ xs -> T.einsum "pqrs,tuqvr->pstuv" xs);
  ("test_einsum_trace", fun _ ci xs -> T.einsum einsum_trace.(ci) xs);
  ("test_simple_conv2d", conv);
  ("test_simple_conv2d_1x1", conv);
  ("test_simple_conv2d_batched", conv);
  ("test_simple_conv2d_m4", conv);
  ("test_simple_conv3d", conv);
  ("test_simple_conv2d_nhwc", fun _ _ xs ->
      let x, w = two xs in T.conv_nd (T.permute x [| 0; 3; 1; 2 |]) (T.permute w [| 3; 2; 0; 1 |]));
  ("test_biased_conv2d", fun _ _ xs ->
      let x, w, b = three xs in T.conv_nd ~bias:b (T.relu (T.conv_nd ~bias:b x w)) w);
  ("test_conv1d", conv_groups);
  ("test_conv2d_bs_1_cin_1", conv_groups);
  ("test_depthwise_conv2d", conv_groups);
  ("test_fancy_conv2d", conv_groups);
  ("test_grouped_conv2d", conv_groups);
  ("test_medium_grouped_conv2d", conv_groups);
  ("test_simple_grouped_conv2d", conv_groups);
  ("test_large_input_conv2d", conv_groups);
  ("test_dilated_conv2d", fun cl _ xs -> let x, w = two xs in T.conv_nd ~dilation:(tup cl "dilation") x w);
  ("test_padded_conv2d_1x1", conv_padding);
  ("test_padded_conv2d_bs1", conv_padding);
  ("test_padded_conv2d_p21", conv_padding);
  ("test_padded_conv2d_p22", conv_padding);
  ("test_padded_conv3d", fun _ _ xs -> let x, w = two xs in T.conv_nd ~padding:[ 1; 1; 1; 1; 1; 1 ] x w);
  ("test_simple_padding_conv2d", fun cl _ xs -> let x, w = two xs in T.conv_nd ~padding:(tup cl "p") x w);
  ("test_strided_conv1d_simple", fun _ _ xs -> let x, w = two xs in T.conv_nd ~stride:[ 2 ] x w);
  ("test_strided_conv2d", fun cl ci xs ->
      let x, w = two xs in
      T.conv_nd ~stride:(if ci = 0 then tup cl "stride" else [ 2; 1 ]) x w);
  ("test_simple_conv_transpose2d", conv_transpose);
  ("test_simple_conv_transpose3d", conv_transpose);
  ("test_bias_conv_transpose2d", fun _ _ xs -> let x, w, b = three xs in T.conv_transpose2d ~bias:b x w);
  ("test_grouped_conv_transpose2d", fun _ _ xs -> let x, w = two xs in T.conv_transpose2d ~groups:2 x w);
  ("test_dilated_conv_transpose2d", fun cl _ xs ->
      let x, w = two xs in T.conv_transpose2d ~dilation:(tup cl "dilation") x w);
  ("test_padded_conv_transpose2d", fun cl ci xs ->
      let x, w = two xs in
      T.conv_transpose2d ~padding:(if ci = 5 then [ 1; 1; 1 ] else tup cl "padding") x w);
  ("test_strided_conv_transpose2d", fun cl _ xs -> let x, w = two xs in T.conv_transpose2d ~stride:(tup cl "stride") x w);
  ("test_output_padded_conv_transpose2d", fun cl _ xs ->
      let x, w, b = three xs in
      T.conv_transpose2d ~bias:b ~output_padding:(tup cl "output_padding") ~stride:(tup cl "stride") x w);
  ("test_scaled_dot_product_attention", fun _ _ xs ->
      match xs with
      | [ x; y; z ] -> T.scaled_dot_product_attention x y z
      | [ x; y; z; m ] -> T.scaled_dot_product_attention ~attn_mask:m x y z
      | _ -> bad "scaled_dot_product_attention");
  ("test_scaled_dot_product_attention_gqa", fun _ _ xs ->
      let x, y, z = three xs in T.scaled_dot_product_attention ~enable_gqa:true x y z);
  ("test_scaled_dot_product_attention_mismatch_ls", fun _ _ xs ->
      let x, y, z = three xs in T.scaled_dot_product_attention x y z);
  (* ---------- pooling ---------- *)
  ("test_avg_pool2d", fun cl ci xs ->
      let x = one xs in
      if ci < 5 then T.avg_pool_nd ~kernel_size:(tup cl "ksz") x
      else T.avg_pool_nd ~kernel_size:[ 1; 2 ] ~padding:[ 0; 1 ] ~stride:[ 5; 1 ] x);
  ("test_avg_pool2d_asymmetric_padding", fun _ ci xs ->
      let x = one xs in
      if ci < 3 then T.avg_pool_nd ~kernel_size:[ 5; 5 ] ~padding:[ 1 ] x
      else T.avg_pool_nd ~kernel_size:[ 2; 2 ] ~padding:[ 1; 1; 1 ] x);
  ("test_avg_pool2d_ceil_mode", fun cl _ xs ->
      T.avg_pool_nd ~kernel_size:(tup cl "ksz") ~padding:[ 1 ] ~stride:[ 3 ] ~ceil_mode:true (one xs));
  ("test_avg_pool2d_ceil_mode_include_pad_output_size_reduce_by_one", fun _ _ xs ->
      T.avg_pool_nd ~kernel_size:[ 3; 3 ] ~stride:[ 3 ] ~padding:[ 1 ] ~ceil_mode:true ~count_include_pad:true (one xs));
  ("test_avg_pool2d_ceil_mode_output_size_reduce_by_one", fun _ _ xs ->
      T.avg_pool_nd ~kernel_size:[ 3; 3 ] ~stride:[ 3 ] ~padding:[ 1 ] ~ceil_mode:true (one xs));
  ("test_avg_pool2d_padding", fun cl _ xs -> T.avg_pool_nd ~kernel_size:(tup cl "ksz") ~padding:(tup cl "p") (one xs));
  ("test_avg_pool2d_padding_not_counted", fun cl _ xs ->
      T.avg_pool_nd ~kernel_size:(tup cl "ksz") ~padding:[ 1 ] ~count_include_pad:false (one xs));
  ("test_avg_pool3d", fun _ _ xs ->
      T.avg_pool_nd ~kernel_size:[ 8; 8; 8 ] ~stride:[ 5 ] ~padding:[ 1 ] ~count_include_pad:false (one xs));
  ("test_max_pool2d_asymmetric_padding", fun cl _ xs -> T.max_pool_nd ~kernel_size:[ 5; 5 ] ~padding:(tup cl "p") (one xs));
  ("test_max_pool2d_bigger_stride", fun cl _ xs -> T.max_pool_nd ~kernel_size:[ 2; 2 ] ~stride:(tup cl "stride") (one xs));
  ("test_max_pool2d_bigger_stride_dilation", fun cl _ xs ->
      T.max_pool_nd ~kernel_size:[ 2; 2 ] ~stride:(tup cl "stride") ~dilation:(tup cl "dilation") (one xs));
  ("test_max_pool2d_ceil_mode", fun cl _ xs ->
      T.max_pool_nd ~kernel_size:(tup cl "ksz") ~padding:[ 1 ] ~stride:[ 3 ] ~ceil_mode:true (one xs));
  ("test_max_pool2d_padding", fun cl ci xs ->
      let x = one xs in
      if ci < 9 then T.max_pool_nd ~kernel_size:(tup cl "ksz") ~padding:(tup cl "p") x
      else T.max_pool_nd ~kernel_size:[ 2; 2 ] ~padding:[ 1; 1; 1 ] x);
  ("test_max_pool2d_padding_int", fun cl _ xs -> T.max_pool_nd ~kernel_size:(tup cl "ksz") ~padding:[ 1 ] (T.int (one xs)));
  ("test_max_pool2d_simple", fun cl _ xs -> T.max_pool_nd ~kernel_size:(tup cl "ksz") (one xs));
  ("test_max_pool2d_unit_stride", fun _ _ xs -> T.max_pool_nd ~kernel_size:[ 5; 5 ] ~stride:[ 1 ] (one xs));
  ("test_max_pool2d_return_indices", fun _ ci xs ->
      let x = one xs in
      let idx (_, i) = i in
      idx (match ci with
          | 0 -> T.max_pool_nd_with_indices ~kernel_size:[ 2; 2 ] x
          | 1 -> T.max_pool_nd_with_indices ~kernel_size:[ 3; 2 ] ~dilation:[ 2; 3 ] x
          | 2 -> T.max_pool_nd_with_indices ~kernel_size:[ 3; 3 ] ~padding:[ 1 ] x
          | 3 -> T.max_pool_nd_with_indices ~kernel_size:[ 2; 2 ] ~stride:[ 2; 2 ] ~ceil_mode:true x
          | 4 -> T.max_pool_nd_with_indices ~kernel_size:[ 12; 13 ] x
          | 5 -> T.max_pool_nd_with_indices ~kernel_size:[ 3; 3 ] ~stride:[ 1 ] x
          | _ -> T.max_pool_nd_with_indices ~kernel_size:[ 2; 2 ] ~stride:[ 1 ] x));
  ("test_max_unpool2d", fun cl ci xs ->
      let x = one xs in
      match ci with
      | 0 | 1 ->
        let kernel_size = dict_tup cl "args" "kernel_size" and stride = dict_tup cl "args" "stride"
        and padding = dict_tup cl "args" "padding" in
        let v, i = T.max_pool_nd_with_indices ?kernel_size ?stride ?padding x in
        T.max_unpool2d ?kernel_size ?stride ?padding ?output_size:(if ci = 1 then Some [ 30; 30 ] else None) v i
      | _ ->
        let v, i = T.max_pool_nd_with_indices ~kernel_size:[ 2; 2 ] x in
        T.max_unpool2d ~kernel_size:[ 2; 2 ] ~output_size:[ 99; 99; 7; 6 ] v i);
  ("test_max_unpool2d_inf", fun cl _ _ ->
      (* data = [[[[math.inf, -math.inf, math.nan], [1.0, 2.0, 3.0]]]] *)
      let data = T.of_float_array [| 1; 1; 2; 3 |] [| Float.infinity; Float.neg_infinity; Float.nan; 1.0; 2.0; 3.0 |] in
      let ksz = tup cl "ksz" in
      let v, i = T.max_pool_nd_with_indices ~kernel_size:ksz data in
      T.max_unpool2d ~kernel_size:ksz v i);
  (* ---------- interpolate ---------- *)
  ("test_interpolate_bilinear_corners_aligned", fun cl _ xs ->
      T.interpolate ~mode:`Linear ~align_corners:true (one xs) (tup cl "out_sz"));
  ("test_interpolate_linear", fun cl _ xs -> T.interpolate ~mode:`Linear (one xs) (tup cl "out_sz"));
  ("test_interpolate_nearest", fun cl _ xs -> T.interpolate ~mode:(interp_mode cl) (one xs) (tup cl "out_sz"));
  ("test_interpolate_nearest_exact", fun cl _ xs -> T.interpolate ~mode:(interp_mode cl) (one xs) (tup cl "out_sz"));
  ("test_interpolate_trilinear", fun cl _ xs -> T.interpolate ~mode:`Linear (one xs) (tup cl "out_sz"));
  ("test_interpolate_trilinear_corners_aligned", fun cl _ xs ->
      T.interpolate ~mode:`Linear ~align_corners:true (one xs) (tup cl "out_sz"));
  ("TestOpsUint8.test_interpolate_nearest", fun _ _ xs ->
      T.interpolate ~mode:`Nearest (T.cast (T.relu (T.mul (T.scalar 10.) (one xs))) Dtype.uint8) [ 10; 10 ]);
  ("TestOpsUint8.test_interpolate_nearest_exact", fun _ _ xs ->
      T.interpolate ~mode:`Nearest_exact (T.cast (T.relu (T.mul (T.scalar 10.) (one xs))) Dtype.uint8) [ 10; 10 ]);
  (* ---------- loss ---------- *)
  ("test_binary_crossentropy", fun _ ci xs ->
      let x, y = two xs in
      if ci mod 2 = 0 then T.binary_crossentropy (T.sigmoid x) (clip01 y) else T.binary_crossentropy_logits x (clip01 y));
  ("test_binary_crossentropy_logits_pos_weights", fun cl _ xs ->
      let x, y = two xs in T.binary_crossentropy_logits ~pos_weight:(float_list_tensor cl "pos_weight") x (clip01 y));
  ("test_binary_crossentropy_reductions", fun cl ci xs ->
      let x, y = two xs in
      let reduction = reduction cl in
      if ci mod 2 = 0 then T.binary_crossentropy ~reduction (T.sigmoid x) (clip01 y)
      else T.binary_crossentropy_logits ~reduction x (clip01 y));
  ("test_cross_entropy_class_probabilities", fun _ _ xs -> let x, y = two xs in T.cross_entropy x y);
  ("test_cross_entropy_smoothing", fun cl ci xs ->
      let label_smoothing = H.cl_float cl "ls" in
      if ci mod 2 = 0 then let x, y = two xs in T.cross_entropy ~label_smoothing x y
      else T.cross_entropy ~label_smoothing (one xs) (int_list_tensor cl "classes"));
  ("test_nll_loss_3d", fun cl _ xs -> T.nll_loss (T.log_softmax ~axis:1 (one xs)) (int_list_tensor cl "target"));
  ("test_nll_loss_3d_weight", fun cl _ xs ->
      T.nll_loss ~weight:(float_list_tensor cl "weight") ~reduction:(reduction cl) (T.log_softmax ~axis:1 (one xs))
        (int_list_tensor cl "target"));
  ("test_nll_loss_ignore_index", fun cl _ xs ->
      T.nll_loss ~ignore_index:1 (T.log_softmax (one xs)) (int_list_tensor cl "target"));
  ("test_nll_loss_reductions", fun cl ci xs ->
      if ci < 3 then T.nll_loss ~reduction:(reduction cl) (T.log_softmax ~axis:1 (one xs)) (int_list_tensor cl "target")
      else T.nll_loss ~reduction:(T.reduction_of_string "typo") (one xs) (int_list_tensor cl "target"));
  ("test_nll_loss_weight", fun cl _ xs ->
      T.nll_loss ~weight:(float_list_tensor cl "weight") ~reduction:(reduction cl) (T.log_softmax ~axis:1 (one xs))
        (int_list_tensor cl "target"));
  ("test_sparse_categorical_crossentropy", fun cl ci xs ->
      let x = one xs and classes = int_list_tensor cl "classes" in
      if ci = 1 then
        T.sparse_categorical_crossentropy ~reduction:`Mean ~ignore_index:(List.hd (tup cl "classes")) ~label_smoothing:0.3
          x classes
      else T.sparse_categorical_crossentropy x classes);
  ("test_sparse_categorical_crossentropy_ignore_index", fun cl _ xs ->
      T.sparse_categorical_crossentropy ~ignore_index:(H.cl_int cl "i") (one xs) (int_list_tensor cl "classes"));
  ("test_sparse_categorical_crossentropy_label_smoothing", fun cl _ xs ->
      T.sparse_categorical_crossentropy ~label_smoothing:(H.cl_float cl "s") (one xs) (int_list_tensor cl "classes"));
  (* ---------- test functions of these categories outside the development set (translated from test_ops.py) ---------- *)
  ("test_dot", dot);
  ("test_scaled_dot_product_attention_causal", fun _ _ xs ->
      match xs with
      | [ x; y; z ] -> T.scaled_dot_product_attention ~is_causal:true x y z
      | [ x; y; z; m ] -> T.scaled_dot_product_attention ~is_causal:true ~attn_mask:m x y z
      | _ -> bad "scaled_dot_product_attention");
  ("test_scaled_dot_product_attention_gqa_errors", fun _ _ xs ->
      let x, y, z = three xs in T.scaled_dot_product_attention ~enable_gqa:true x y z);
  ("test_gemm", matmul);
  ("test_big_gemm", matmul);
  ("test_gemm_fp16", fun _ _ xs -> let x, y = two xs in T.matmul (T.half x) (T.half y));
  ("test_gemm_with_zeros_shape", dot);
  ("test_simple_conv2d_bias", fun _ _ xs -> let x, w, b = three xs in T.conv_nd ~bias:b x w);
  ("test_simple_conv2d_1x1_m4", conv);
  ("test_nested_conv2d", fun _ _ xs -> let x, w1, w2 = three xs in T.conv_nd (T.relu (T.conv_nd x w1)) w2);
  ("test_simple_padding_conv1d", fun cl _ xs -> let x, w = two xs in T.conv_nd ~padding:(tup cl "p") x w);
  ("test_asymmetric_padding_conv1d", fun cl _ xs -> let x, w = two xs in T.conv_nd ~padding:(tup cl "p") x w);
  ("test_asymmetric_padding_conv2d", fun cl _ xs -> let x, w = two xs in T.conv_nd ~padding:(tup cl "p") x w);
  ("test_conv2d", conv_groups);
  ("test_conv2d_bs_4_cin_3", conv_groups);
  ("test_conv2d_bs_4_cin_1", conv_groups);
  ("test_conv2d_errors", fun _ ci xs ->
      let x, w = two xs in
      match ci with
      | 0 -> T.conv_nd ~dilation:[ 3 ] x w
      | 1 -> T.conv_nd x w
      | _ -> T.conv_nd ~padding:[ 1; 1; 1 ] x w);
  ("test_strided_conv2d_simple", fun _ _ xs -> let x, w = two xs in T.conv_nd ~stride:[ 2 ] x w);
  ("test_negative_padding_conv2d", fun _ ci xs ->
      let x, w = two xs in T.conv_nd ~padding:(if ci = 0 then [ -1 ] else [ -1; 0; -1; 0 ]) x w);
  ("test_max_pool2d", fun cl _ xs -> T.max_pool_nd ~kernel_size:(tup cl "ksz") (one xs));
  ("test_max_pool2d_smaller_stride", fun cl _ xs -> T.max_pool_nd ~kernel_size:[ 5; 5 ] ~stride:(tup cl "stride") (one xs));
  ("test_max_pool2d_dilation", fun cl _ xs -> T.max_pool_nd ~kernel_size:[ 5; 5 ] ~dilation:(tup cl "dilation") (one xs));
  ("test_max_pool2d_ceil_mode_output_size_reduce_by_one", fun _ _ xs ->
      T.max_pool_nd ~kernel_size:[ 3; 3 ] ~stride:[ 3 ] ~padding:[ 1 ] ~ceil_mode:true (one xs));
  ("test_avg_pool2d_ceil_mode_padding_not_counted", fun cl _ xs ->
      T.avg_pool_nd ~kernel_size:(tup cl "ksz") ~padding:[ 1 ] ~stride:[ 3 ] ~ceil_mode:true ~count_include_pad:false (one xs));
  ("test_global_avg_pool2d", fun _ _ xs -> T.avg_pool_nd ~kernel_size:[ 11; 28 ] (one xs));
  ("test_interpolate_linear_corners_aligned", fun cl _ xs ->
      T.interpolate ~mode:`Linear ~align_corners:true (one xs) (tup cl "out_sz"));
  ("test_interpolate_bilinear", fun cl _ xs -> T.interpolate ~mode:`Linear (one xs) (tup cl "out_sz"));
  ("TestOpsUint8.test_interpolate_bilinear", fun _ _ xs ->
      T.interpolate ~mode:`Linear (T.cast (T.relu (T.mul (T.scalar 10.) (one xs))) Dtype.uint8) [ 10; 10 ]);
  ("test_cross_entropy_class_indices", fun cl ci xs ->
      if ci = 0 then T.cross_entropy (one xs) (int_list_tensor cl "classes") else let x, y = two xs in T.cross_entropy x y);
  ("test_cross_entropy_reductions", fun cl ci xs ->
      let x, y = two xs in
      T.cross_entropy ~reduction:(if ci < 3 then reduction cl else T.reduction_of_string "typo") x y);
  ("test_sparse_categorical_crossentropy_reductions", fun cl _ xs ->
      T.sparse_categorical_crossentropy ~reduction:(reduction cl) (one xs) (int_list_tensor cl "classes"));
  ("test_nll_loss", fun cl _ xs -> T.nll_loss (T.log_softmax ~axis:1 (one xs)) (int_list_tensor cl "target"));
]
