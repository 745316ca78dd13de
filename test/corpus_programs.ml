(* The golden corpus's first_milestone programs (/work/shared/golden/corpus/<id>/desc.txt, "python source"),
   written with the OCaml Tensor API (tensor.mli). The programs that need the nn-style functions
   (matmul, softmax, conv2d, getitem, ...) are in Corpus_programs_ops. Each program gets its inputs by name (the in_<name>.npy
   tensors, already realized) and returns its outputs in order. The tinygrad source is quoted above each one. *)

open Tinygrad.Compiler
module T = Tinygrad.Tensor

(* a python scalar: a weak constant that takes the dtype of the tensor it meets *)
let s x = T.scalar x

(* a python int literal: a weakint constant (an int tensor divided by it is promoted to float, as in tinygrad) *)
let si n = T.scalar_int n

type program = (string -> T.t) -> T.t list

let programs : (string * program) list = [
  (* a + b *)
  ("ew_add", fun i -> [ T.add (i "a") (i "b") ]);
  ("ew_add_bcast_row", fun i -> [ T.add (i "a") (i "b") ]);
  (* a * b *)
  ("ew_bcast_outer", fun i -> [ T.mul (i "a") (i "b") ]);
  (* a * b + c - 1.5 *)
  ("ew_bcast_chain", fun i -> [ T.sub (T.add (T.mul (i "a") (i "b")) (i "c")) (s 1.5) ]);
  (* a + b + c *)
  ("ew_bcast_3d", fun i -> [ T.add (T.add (i "a") (i "b")) (i "c") ]);
  (* ((a + b) * c - a / b).relu() *)
  ("ew_chain_relu", fun i ->
      let a = i "a" and b = i "b" and c = i "c" in
      [ T.relu (T.sub (T.mul (T.add a b) c) (T.div a b)) ]);
  (* [a*2+3, a**2, a/3, 1-a] *)
  ("ew_scalar_ops", fun i ->
      let a = i "a" in
      [ T.add (T.mul a (s 2.)) (s 3.); T.pow a (s 2.); T.div a (s 3.); T.sub (s 1.) a ]);
  (* [a.maximum(b), a.minimum(b), a.clip(-0.5, 0.5)] *)
  ("ew_max_min_clip", fun i ->
      let a = i "a" and b = i "b" in
      [ T.maximum a b; T.minimum a b; T.clip ~min:(-0.5) ~max:0.5 a ]);
  (* [a.exp(), (a.abs()+1).log()] *)
  ("un_exp_log", fun i -> let a = i "a" in [ T.exp a; T.log (T.add (T.abs a) (s 1.)) ]);
  (* t = a.abs() + 0.1; [t.sqrt(), t.rsqrt()] *)
  ("un_sqrt_rsqrt", fun i -> let t = T.add (T.abs (i "a")) (s 0.1) in [ T.sqrt t; T.rsqrt t ]);
  (* a.sin() + a.cos() *)
  ("un_sin_cos", fun i -> let a = i "a" in [ T.add (T.sin a) (T.cos a) ]);
  ("un_sigmoid", fun i -> [ T.sigmoid (i "a") ]);
  ("un_tanh", fun i -> [ T.tanh (i "a") ]);
  ("un_gelu", fun i -> [ T.gelu (i "a") ]);
  (* [a.relu(), a.leaky_relu(0.1), a.silu(), a.elu()] *)
  ("un_activations", fun i ->
      let a = i "a" in [ T.relu a; T.leaky_relu ~neg_slope:0.1 a; T.silu a; T.elu a ]);
  (* t = a * 3; [t.floor(), t.ceil(), t.round(), t.trunc()] *)
  ("un_rounding", fun i -> let t = T.mul (i "a") (s 3.) in [ T.floor t; T.ceil t; T.round t; T.trunc t ]);
  (* (a * 10).cast(dtypes.int32) *)
  ("cast_float_to_int", fun i -> [ T.cast (T.mul (i "a") (s 10.)) Dtype.Int32 ]);
  (* [a.float()/3, a/4] *)
  ("cast_int_to_float", fun i -> let a = i "a" in [ T.div (T.float a) (si 3); T.div a (si 4) ]);
  (* h = a.half(); o0 = h*2+1; [o0, o0.float() - a] *)
  ("cast_half_roundtrip", fun i ->
      let a = i "a" in
      let o0 = T.add (T.mul (T.half a) (s 2.)) (s 1.) in
      [ o0; T.sub (T.float o0) a ]);
  (* (a*b+a).sum(1) *)
  ("cast_half_inputs", fun i -> let a = i "a" and b = i "b" in [ T.sum ~axis:[ 1 ] (T.add (T.mul a b) a) ]);
  (* a = a * (a.abs() > 0.5)
     [(a > 0).cast(dtypes.float32) + a, a.cast(dtypes.bool).cast(dtypes.int32), m.cast(dtypes.float32) * a] *)
  ("cast_bool", fun i ->
      let a = i "a" and m = i "m" in
      let a = T.mul a (T.gt (T.abs a) (s 0.5)) in
      [ T.add (T.cast (T.gt a (s 0.)) Dtype.Float32) a; T.cast (T.cast a Dtype.Bool) Dtype.Int32;
        T.mul (T.cast m Dtype.Float32) a ]);
  (* (a > b).where(a, b) *)
  ("wh_where_max", fun i -> let a = i "a" and b = i "b" in [ T.where (T.gt a b) a b ]);
  (* [m.where(a, 0.0), a.masked_fill(a < 0, -1.0)] *)
  ("wh_where_bcast_const", fun i ->
      let m = i "m" and a = i "a" in
      [ T.where m a (s 0.0); T.masked_fill a (T.lt a (s 0.)) (s (-1.0)) ]);
  (* [a.isnan(), a.isinf(), a.isnan().where(0.0, a)] *)
  ("wh_isnan_inf", fun i -> let a = i "a" in [ T.isnan a; T.isinf a; T.where (T.isnan a) (s 0.0) a ]);
  (* a.reshape(2, 12) + 1 *)
  ("mv_reshape", fun i -> [ T.add (T.reshape (i "a") [| 2; 12 |]) (s 1.) ]);
  (* a + a.T *)
  ("mv_transpose_add", fun i -> let a = i "a" in [ T.add a (T.transpose ~dim0:1 ~dim1:0 a) ]);
  (* (a.expand(4, 8) * 2).contiguous() *)
  ("mv_expand", fun i -> [ T.contiguous (T.mul (T.expand (i "a") [| 4; 8 |]) (s 2.)) ]);
  (* [a.pad(((1,2),(0,3))), a.pad(((0,0),(2,1)), value=-1.0)] *)
  ("mv_pad", fun i ->
      let a = i "a" in [ T.pad a [| (1, 2); (0, 3) |]; T.pad ~value:(-1.0) a [| (0, 0); (2, 1) |] ]);
  (* a.shrink(((2,6),(1,7))) * 3 *)
  ("mv_shrink", fun i -> [ T.mul (T.shrink (i "a") [| (2, 6); (1, 7) |]) (s 3.) ]);
  (* t = a.reshape(2, 3, 4).permute(1, 0, 2).pad(((0,0),(1,1),(2,0))).flip(2).shrink(((0,3),(1,4),(0,5))); t*2+1 *)
  ("mv_compose", fun i ->
      let t = T.reshape (i "a") [| 2; 3; 4 |] in
      let t = T.permute t [| 1; 0; 2 |] in
      let t = T.pad t [| (0, 0); (1, 1); (2, 0) |] in
      let t = T.flip t [ 2 ] in
      let t = T.shrink t [| (0, 3); (1, 4); (0, 5) |] in
      [ T.add (T.mul t (s 2.)) (s 1.) ]);
  (* a.repeat(2, 3) + 0 *)
  ("mv_repeat", fun i -> [ T.add (T.repeat (i "a") [| 2; 3 |]) (s 0.) ]);
  (* a.permute(0, 2, 1).sum(axis=2) *)
  ("mv_permute_reduce", fun i -> [ T.sum ~axis:[ 2 ] (T.permute (i "a") [| 0; 2; 1 |]) ]);
  ("red_sum_axis1", fun i -> [ T.sum ~axis:[ 1 ] (i "a") ]);
  (* a.sum(axis=(0,2), keepdim=True) *)
  ("red_sum_keepdim_multi", fun i -> [ T.sum ~axis:[ 0; 2 ] ~keepdim:true (i "a") ]);
  (* [a.max(1), a.min(0)] *)
  ("red_max_min", fun i -> let a = i "a" in [ T.max ~axis:[ 1 ] a; T.min ~axis:[ 0 ] a ]);
  ("red_mean_last", fun i -> [ T.mean ~axis:[ -1 ] (i "a") ]);
  ("red_full_sum", fun i -> [ T.sum (i "a") ]);
  ("red_full_max", fun i -> [ T.max (i "a") ]);
  ("red_large_sum", fun i -> [ T.sum (i "a") ]);
  ("red_large_rows", fun i -> [ T.sum ~axis:[ 1 ] (i "a") ]);
  (* a - a.mean(1, keepdim=True) *)
  ("red_sub_mean", fun i -> let a = i "a" in [ T.sub a (T.mean ~axis:[ 1 ] ~keepdim:true a) ]);
  (* [a.sum(1), b.prod(0)] *)
  ("red_int_sum_prod", fun i -> [ T.sum ~axis:[ 1 ] (i "a"); T.prod ~axis:[ 0 ] (i "b") ]);
  (* m = a > 0.5; [m.any(1), m.all(1)] *)
  ("red_any_all", fun i -> let m = T.gt (i "a") (s 0.5) in [ T.any ~axis:[ 1 ] m; T.all ~axis:[ 1 ] m ]);
  (* a.cat(b, dim=0) *)
  ("ix_cat_dim0", fun i -> [ T.cat ~dim:0 [ i "a"; i "b" ] ]);
  (* a.stack(b, c, dim=1) *)
  ("ix_stack", fun i -> [ T.stack ~dim:1 [ i "a"; i "b"; i "c" ] ]);
]

(* first_milestone programs that cannot be written yet, with the reason (none: the programs that need T-ops'
   functions are in Corpus_programs_ops) *)
let missing : (string * string) list = []
