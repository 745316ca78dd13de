(* Autograd tests. tinygrad: mixin/gradient.py (pm_gradient, compute_gradient) and tensor.py backward.
   1. Composite functions built on float64 tensors: the analytic gradient (Tensor.gradient) against central
      finite differences of the same function, within 1e-4 relative. To keep the number of forward passes
      small, each input is checked along 2 pseudo-random directions and at up to 3 single coordinates
      (a directional derivative checks every coordinate of the gradient at once).
   2. Gradient values against tinygrad 0.14.0 (venv oracle, values pasted below) where tinygrad's choices
      are not what finite differences see: ties in maximum / max-reduce split, prod with a zero, pow at 0.
   3. backward / grad / detach / error behaviour. *)

open Tinygrad.Compiler
open Test_util
module T = Tensor

let f64 = Dtype.Float64

(* deterministic pseudo-random data in [lo, hi) *)
let rng_state = ref 12345
let rnd () =
  rng_state := (!rng_state * 1103515245 + 12345) land 0x3fffffff;
  float_of_int !rng_state /. float_of_int 0x40000000
let data ?(lo = -1.0) ?(hi = 1.0) n = Array.init n (fun _ -> lo +. (hi -. lo) *. rnd ())
let numel shp = Array.fold_left ( * ) 1 shp

type input = { shp : int array; vals : float array }

let inp ?lo ?hi shp = { shp; vals = data ?lo ?hi (numel shp) }
let mk (i : input) = T.of_float_array ~dtype:f64 i.shp i.vals
let scalar_of t = T.item t

let close ?(rtol = 1e-4) ?(atol = 1e-7) a b = Float.abs (a -. b) <= atol +. rtol *. Float.max (Float.abs a) (Float.abs b)

(* [gradcheck name f inputs]: f maps the float64 input tensors to a scalar *)
let gradcheck ?(h = 1e-6) ?(rtol = 1e-4) ?(atol = 1e-7) (f : T.t list -> T.t) (inputs : input list) =
  (* weights drawn inside [f] must be the same at every evaluation: [f] always starts from the same rng state *)
  let st = !rng_state in
  let f ts = let saved = !rng_state in rng_state := st; let r = f ts in rng_state := saved; r in
  let ts = List.map mk inputs in
  let out = f ts in
  check (T.shape out = [||]) "output must be a scalar, got %d dims" (Array.length (T.shape out));
  let grads = List.map T.to_float_array (T.gradient out ts) in
  let eval (vals : float array list) = scalar_of (f (List.map2 (fun i v -> mk { i with vals = v }) inputs vals)) in
  let base = List.map (fun i -> i.vals) inputs in
  List.iteri (fun k (i, g) ->
      let n = Array.length i.vals in
      check (Array.length g = n) "input %d: gradient has %d values, expected %d" k (Array.length g) n;
      let perturb dir =
        let at s = List.mapi (fun j v -> if j = k then Array.mapi (fun e x -> x +. s *. dir.(e)) v else v) base in
        let fd = (eval (at h) -. eval (at (-.h))) /. (2. *. h) in
        let an = ref 0. in
        Array.iteri (fun e d -> an := !an +. d *. g.(e)) dir;
        (fd, !an) in
      (* two directions *)
      for r = 1 to 2 do
        let dir = Array.init n (fun _ -> rnd () -. 0.5) in
        let fd, an = perturb dir in
        if not (close ~rtol ~atol fd an) then fail "input %d direction %d: finite difference %.10g, autograd %.10g" k r fd an
      done;
      (* single coordinates *)
      List.iter (fun e ->
          if e < n then begin
            let dir = Array.init n (fun j -> if j = e then 1. else 0.) in
            let fd, an = perturb dir in
            if not (close ~rtol ~atol fd an) then fail "input %d element %d: finite difference %.10g, autograd %.10g" k e fd an
          end) (List.sort_uniq compare [ 0; n / 2; n - 1 ]))
    (List.combine inputs grads)

open T.O

let wsum c x = T.sum (x * c)   (* a weighted sum with a fixed weight tensor, so gradients are not uniform *)
let cw shp = T.of_float_array ~dtype:f64 shp (data (numel shp))

let fd_cases : case list = [
  ("fd_conv_relu_pool_linear_cross_entropy", fun () ->
      let labels = T.of_int_array [| 2 |] [| 1; 3 |] in
      gradcheck (function
          | [ x; w; b; w2; b2 ] ->
            let h = T.relu (T.conv2d ~bias:b x w) in
            let h = T.max_pool2d ~kernel_size:2 h in
            let h = T.reshape h [| 2; -1 |] in
            T.cross_entropy (T.linear ~bias:b2 h w2) labels
          | _ -> assert false)
        [ inp [| 2; 1; 6; 6 |]; inp [| 3; 1; 3; 3 |]; inp [| 3 |]; inp [| 12; 4 |]; inp [| 4 |] ]);
  ("fd_layernorm_affine", fun () ->
      let c = cw [| 3; 5 |] in
      gradcheck (function
          | [ x; w; b ] -> wsum c (T.sin (T.layernorm x * w + b))
          | _ -> assert false)
        [ inp [| 3; 5 |]; inp [| 5 |]; inp [| 5 |] ]);
  ("fd_attention_matmul_softmax_matmul", fun () ->
      let c = cw [| 2; 3; 4 |] in
      gradcheck (function
          | [ q; k; v ] ->
            let att = T.softmax ~axis:(-1) (T.div (q *@ T.transpose ~dim0:(-2) ~dim1:(-1) k) (T.scalar 2.0)) in
            wsum c (att *@ v)
          | _ -> assert false)
        [ inp [| 2; 3; 4 |]; inp [| 2; 3; 4 |]; inp [| 2; 3; 4 |] ]);
  ("fd_gather", fun () ->
      let idx = T.of_int_array [| 3; 2 |] [| 0; 3; 2; 2; 1; 0 |] in
      let c = cw [| 3; 2 |] in
      gradcheck (function [ x ] -> wsum c (T.exp (T.gather x ~dim:1 idx)) | _ -> assert false) [ inp [| 3; 4 |] ]);
  ("fd_cumsum", fun () ->
      let c = cw [| 2; 5 |] in
      gradcheck (function
          | [ x ] -> wsum c (T.square (T.cumsum ~axis:1 x)) + T.sum (T.sin (T.cumsum ~axis:0 x))
          | _ -> assert false)
        [ inp [| 2; 5 |] ]);
  ("fd_getitem_tensor_index", fun () ->
      let idx = T.of_int_array [| 3 |] [| 3; 0; 3 |] in
      let c = cw [| 3; 3 |] in
      gradcheck (function
          | [ x ] -> wsum c (T.exp (T.getitem x [ T.T idx; T.S (Some 1, Some 4, None) ]))
          | _ -> assert false)
        [ inp [| 4; 5 |] ]);
  ("fd_pad_shrink_flip_permute_chain", fun () ->
      gradcheck (function
          | [ x ] ->
            let y = T.pad x [| (1, 0); (0, 2); (1, 1) |] in
            let y = T.flip y [ 0; 2 ] in
            let y = T.permute y [| 2; 0; 1 |] in
            let y = T.shrink y [| (1, 5); (0, 3); (1, 5) |] in
            let y = T.reshape y [| 4; 12 |] in
            wsum (cw [| 4; 12 |]) (T.square y) + T.sum (T.pad ~value:2.0 x [| (0, 1); (-1, 0); (2, -2) |] * cw [| 3; 2; 4 |])
          | _ -> assert false)
        [ inp [| 2; 3; 4 |] ]);
  ("fd_where_maximum_minimum", fun () ->
      gradcheck (function
          | [ x; y ] ->
            let a = T.where (T.gt x y) (x * y) (T.maximum x (y * T.scalar 2.0)) in
            wsum (cw [| 3; 4 |]) (a + T.minimum (T.exp x) (T.scalar 1.2) + T.clip ~min:(-0.5) ~max:0.5 y)
          | _ -> assert false)
        [ inp [| 3; 4 |]; inp [| 3; 4 |] ]);
  ("fd_mean_var_std", fun () ->
      gradcheck (function
          | [ x ] ->
            wsum (cw [| 4 |]) (T.mean ~axis:[ 0 ] x) + wsum (cw [| 3 |]) (T.var ~axis:[ 1 ] x)
            + T.std x + T.std ~axis:[ 1 ] ~keepdim:true ~correction:0 x |> T.sum
          | _ -> assert false)
        [ inp [| 3; 4 |] ]);
  ("fd_logsumexp", fun () ->
      gradcheck (function
          | [ x ] -> wsum (cw [| 3 |]) (T.logsumexp ~axis:1 (x * T.scalar 3.0)) + T.logsumexp ~axis:0 (T.reshape x [| -1 |])
          | _ -> assert false)
        [ inp [| 3; 4 |] ]);
  ("fd_sigmoid_tanh_gelu", fun () ->
      gradcheck (function
          | [ x; y ] -> wsum (cw [| 2; 5 |]) (T.sigmoid x * T.tanh y + T.gelu x - T.silu y)
          | _ -> assert false)
        [ inp ~lo:(-2.) ~hi:2. [| 2; 5 |]; inp ~lo:(-2.) ~hi:2. [| 2; 5 |] ]);
  ("fd_softmax_log_softmax", fun () ->
      gradcheck (function
          | [ x ] -> wsum (cw [| 3; 4 |]) (T.softmax ~axis:0 x) + wsum (cw [| 3; 4 |]) (T.log_softmax x)
          | _ -> assert false)
        [ inp [| 3; 4 |] ]);
  ("fd_batched_matmul_broadcast_bias", fun () ->
      gradcheck (function
          | [ a; b; bias ] -> wsum (cw [| 2; 3; 5 |]) (T.tanh (a *@ b + bias))
          | _ -> assert false)
        [ inp [| 2; 3; 4 |]; inp [| 4; 5 |]; inp [| 5 |] ]);
  ("fd_broadcast_div_sqrt_reciprocal", fun () ->
      gradcheck (function
          | [ x; y; z ] ->
            let p = x * y + z in
            wsum (cw [| 3; 4 |]) (T.sqrt (T.square p + T.scalar 1.0) / (T.abs z + T.scalar 0.5)) + T.sum (T.reciprocal (x + T.scalar 3.0))
          | _ -> assert false)
        [ inp [| 3; 1 |]; inp [| 1; 4 |]; inp [| 4 |] ]);
  ("fd_pow_exp_log", fun () ->
      gradcheck (function
          | [ x; y ] -> wsum (cw [| 2; 3 |]) (T.pow x y + T.log x * T.exp2 y - T.log2 (x + y) + T.pow x (T.scalar 3.0))
          | _ -> assert false)
        [ inp ~lo:0.5 ~hi:2. [| 2; 3 |]; inp ~lo:0.2 ~hi:1.5 [| 2; 3 |] ]);
  ("fd_max_min_reduce", fun () ->
      gradcheck (function
          | [ x ] -> wsum (cw [| 3 |]) (T.max ~axis:[ 1 ] x) + wsum (cw [| 4 |]) (T.min ~axis:[ 0 ] x) + T.max x
          | _ -> assert false)
        [ inp [| 3; 4 |] ]);
  ("fd_prod_reduce", fun () ->
      gradcheck (function
          | [ x ] -> wsum (cw [| 3 |]) (T.prod ~axis:[ 1 ] x) + T.prod x
          | _ -> assert false)
        [ inp ~lo:0.5 ~hi:1.5 [| 3; 4 |] ]);
  ("fd_cat_stack_repeat_split", fun () ->
      gradcheck (function
          | [ x; y ] ->
            let c = T.cat ~dim:1 [ x; y; x ] in
            let s = T.stack ~dim:1 [ x; T.square y ] in
            let r = T.repeat y [| 2; 1; 3 |] in
            let parts = T.split ~dim:1 c (`Sizes [ 2; 4 ]) in
            wsum (cw [| 2; 6 |]) c + wsum (cw [| 2; 2; 2 |]) (T.reshape s [| 2; 2; 2 |])
            + wsum (cw [| 2; 2; 6 |]) r + T.sum (T.square (List.nth parts 1))
          | _ -> assert false)
        [ inp [| 2; 2 |]; inp [| 2; 2 |] ]);
  ("fd_conv_stride_padding_groups_avgpool", fun () ->
      gradcheck (function
          | [ x; w ] ->
            let h = T.conv2d ~stride:2 ~padding:1 ~groups:2 x w in
            wsum (cw [| 1; 4; 2; 2 |]) (T.avg_pool2d ~kernel_size:2 ~stride:1 (T.elu h))
          | _ -> assert false)
        [ inp [| 1; 4; 5; 5 |]; inp [| 4; 2; 3; 3 |] ]);
  ("fd_contiguous_transpose_flatten_squeeze", fun () ->
      gradcheck (function
          | [ x; y ] ->
            let a = T.contiguous (T.transpose x) in
            let b = T.contiguous_backward (T.unsqueeze y 0) in
            let c = T.flatten (a * T.squeeze ~dim:0 b) in
            wsum (cw [| 12 |]) (T.leaky_relu ~neg_slope:0.1 c + T.softplus c)
          | _ -> assert false)
        [ inp [| 3; 4 |]; inp [| 4; 3 |] ]);
  ("fd_losses_bce_sparse_ce", fun () ->
      let tgt = T.of_float_array ~dtype:f64 [| 2; 3 |] [| 0.; 1.; 0.3; 1.; 0.; 0.7 |] in
      let lab = T.of_int_array [| 2 |] [| 2; 0 |] in
      gradcheck (function
          | [ x; y ] ->
            T.binary_crossentropy_logits x tgt + T.binary_crossentropy (T.sigmoid y) tgt
            + T.sparse_categorical_crossentropy ~label_smoothing:0.1 x lab
          | _ -> assert false)
        [ inp [| 2; 3 |]; inp [| 2; 3 |] ]);
  ("fd_trig_abs_sign", fun () ->
      gradcheck (function
          | [ x ] -> wsum (cw [| 5 |]) (T.sin x * T.cos x + T.tan (x * T.scalar 0.5) + T.abs x * T.sign x + T.relu x)
          | _ -> assert false)
        [ inp [| 5 |] ]);
]

(* ---------- values against tinygrad 0.14.0 (test/gen_gradient_oracle.py) ---------- *)

let f32 shp v = T.of_float_array shp v
let vals_close ~what (expected : float array) (t : T.t option) =
  match t with
  | None -> fail "%s: no grad" what
  | Some t ->
    let got = T.to_float_array t in
    check (Array.length got = Array.length expected) "%s: %d values, expected %d" what (Array.length got) (Array.length expected);
    Array.iteri (fun i e ->
        let g = got.(i) in
        let ok = if Float.is_integer e || Float.abs e < 1e30 then close ~rtol:1e-6 ~atol:1e-6 e g else e = g in
        if not ok then fail "%s[%d]: tinygrad %.9g, got %.9g" what i e g) expected

let oracle_cases : case list = [
  ("tinygrad_maximum_ties", fun () ->
      let x = f32 [| 4 |] [| 1.; 2.; 3.; 4. |] and y = f32 [| 4 |] [| 1.; 3.; 3.; 0. |] in
      T.backward (T.sum (T.maximum x y * f32 [| 4 |] [| 1.; 2.; 3.; 4. |]));
      vals_close ~what:"x.grad" [| 0.5; 0.0; 1.5; 4.0 |] (T.grad x);
      vals_close ~what:"y.grad" [| 0.5; 2.0; 1.5; 0.0 |] (T.grad y));
  ("tinygrad_minimum_ties", fun () ->
      let x = f32 [| 4 |] [| 1.; 2.; 3.; 4. |] and y = f32 [| 4 |] [| 1.; 3.; 3.; 0. |] in
      T.backward (T.sum (T.minimum x y * f32 [| 4 |] [| 1.; 2.; 3.; 4. |]));
      vals_close ~what:"x.grad" [| 0.5; 2.0; 1.5; -0.0 |] (T.grad x);
      vals_close ~what:"y.grad" [| 0.5; -0.0; 1.5; 4.0 |] (T.grad y));
  ("tinygrad_max_reduce_ties", fun () ->
      let x = f32 [| 2; 3 |] [| 1.; 3.; 3.; 2.; 2.; 2. |] in
      T.backward (T.sum (T.max ~axis:[ 1 ] x * f32 [| 2 |] [| 1.; 2. |]) + T.max x);
      vals_close ~what:"x.grad" [| 0.0; 1.0; 1.0; 0.6666666865348816; 0.6666666865348816; 0.6666666865348816 |] (T.grad x));
  ("tinygrad_prod_zeros", fun () ->
      let x = f32 [| 3; 3 |] [| 2.; 0.; 3.; 0.; 0.; 1.; 1.; 2.; 3. |] in
      T.backward (T.sum (T.prod ~axis:[ 1 ] x * f32 [| 3 |] [| 1.; 2.; 3. |]));
      vals_close ~what:"x.grad" [| 0.0; 6.0; 0.0; 0.0; 0.0; 0.0; 18.0; 9.0; 6.0 |] (T.grad x));
  ("tinygrad_pow_zero_base", fun () ->
      let b = f32 [| 4 |] [| 0.; 0.; 2.; 3. |] and e = f32 [| 4 |] [| 2.; 0.; 0.5; 0. |] in
      T.backward (T.sum (T.pow b e));
      vals_close ~what:"b.grad" [| 0.0; 0.0; 0.3535533845424652; 0.0 |] (T.grad b);
      vals_close ~what:"e.grad" [| 0.0; 0.0; 0.9802581071853638; 1.0986123085021973 |] (T.grad e));
  ("tinygrad_kinks_relu_abs_clip_where", fun () ->
      let x = f32 [| 4 |] [| -1.; 0.; 0.5; 2. |] in
      let s2 = T.scalar 2. and s3 = T.scalar 3. and s4 = T.scalar 4. and s5 = T.scalar 5. in
      T.backward (T.sum (T.relu x + T.abs x * s2 + T.clip ~min:0. ~max:0.5 x * s3 + T.where (T.gt x (T.scalar 0.)) x (x * s4) * s5));
      vals_close ~what:"x.grad" [| 18.0; 23.0; 11.0; 8.0 |] (T.grad x));
  ("tinygrad_sqrt_zero", fun () ->
      let x = f32 [| 3 |] [| 0.; 1.; 4. |] in
      T.backward (T.sum (T.sqrt x));
      vals_close ~what:"x.grad" [| Float.infinity; 0.5; 0.25 |] (T.grad x));
  ("tinygrad_backward_accumulates", fun () ->
      let x = f32 [| 2; 2 |] [| 1.; 2.; 3.; 4. |] and w = f32 [| 2; 2 |] [| 0.5; -1.; 2.; 1. |] in
      T.backward (T.sum (T.relu (x *@ w)));
      T.backward (T.sum (x * w));
      vals_close ~what:"x.grad" [| 0.0; 2.0; 1.5; 4.0 |] (T.grad x);
      vals_close ~what:"w.grad" [| 5.0; 6.0; 9.0; 10.0 |] (T.grad w));
  ("tinygrad_detach", fun () ->
      let x = f32 [| 3 |] [| 1.; 2.; 3. |] in
      T.backward (T.sum (x * T.detach x + T.exp (T.detach x)));
      vals_close ~what:"x.grad" [| 1.0; 2.0; 3.0 |] (T.grad x));
  ("tinygrad_cast_contiguous", fun () ->
      let x = f32 [| 2; 3 |] [| 1.; 2.; 3.; 4.; 5.; 6. |] in
      T.backward (T.sum (T.contiguous (T.cast (T.cast x Dtype.Float16) Dtype.Float32 * f32 [| 3 |] [| 1.; 2.; 3. |])));
      vals_close ~what:"x.grad" [| 1.0; 2.0; 3.0; 1.0; 2.0; 3.0 |] (T.grad x));
  ("tinygrad_intermediate_gets_grad", fun () ->
      let x = f32 [| 3 |] [| 1.; 2.; 3. |] in
      let y = x * T.scalar 2. in
      T.backward (T.sum (y * f32 [| 3 |] [| 1.; 1.; 5. |]));
      vals_close ~what:"x.grad" [| 2.0; 2.0; 10.0 |] (T.grad x);
      vals_close ~what:"y.grad" [| 1.0; 1.0; 5.0 |] (T.grad y));
  ("tinygrad_gradient_unreached_is_zero", fun () ->
      let x = f32 [| 3 |] [| 1.; 2.; 3. |] and y = f32 [| 2 |] [| 4.; 5. |] in
      match T.gradient (T.sum (x * T.scalar 3.)) [ x; y ] with
      | [ gx; gy ] -> vals_close ~what:"dx" [| 3.; 3.; 3. |] (Some gx); vals_close ~what:"dy" [| 0.; 0. |] (Some gy)
      | _ -> fail "two gradients expected");
  ("tinygrad_assign_and_clone_pass_gradient", fun () ->
      (* AFTER(_, STORE) and STORE pass the gradient to the stored value *)
      let y = f32 [| 3 |] [| 1.; 2.; 3. |] in
      let x = T.realize (f32 [| 3 |] [| 0.; 0.; 0. |]) in
      ignore (T.assign x (y * T.scalar 2.));
      T.backward (T.sum (x * f32 [| 3 |] [| 1.; 2.; 3. |]));
      vals_close ~what:"y.grad" [| 2.; 4.; 6. |] (T.grad y);
      vals_close ~what:"x.grad" [| 1.; 2.; 3. |] (T.grad x);
      let y = f32 [| 3 |] [| 1.; 2.; 3. |] in
      let c = T.clone (y * y) in
      T.backward (T.sum (c * T.scalar 3.));
      vals_close ~what:"y.grad (clone)" [| 6.; 12.; 18. |] (T.grad y));
  ("tinygrad_explicit_gradient", fun () ->
      let x = f32 [| 3 |] [| 1.; 2.; 3. |] in
      T.backward ~gradient:(f32 [| 3 |] [| 1.; 0.5; 2. |]) (x * x);
      vals_close ~what:"x.grad" [| 2.0; 2.0; 12.0 |] (T.grad x));
]

(* ---------- gradient graphs: UOp.key against tinygrad's (test/gen_gradient_oracle.py, inputs Tensor.empty) ---------- *)

let grad_keys = [
    ("mul_broadcast", ["bc4286462d20d4167baedee707b60325362acd3381334df0400261eecd17f069"; "0fdd00eb44e925abecf4fddcf7958e0c31b7b04953a48dcc46228d323d9a650f"]);
    ("max_axis", ["2a395d987c87ff97e7b95ad72ed17d4391980525917e9845fa227038d790b583"]);
    ("min_all", ["8e86ed5dc9d31786e87214fdfa672bebf048718e6cd70f147c915370d3e752a6"]);
    ("prod_axis", ["447fc2e373eade45ef8d7d20c6b444f01ed5578a1201ad689390fc6ff2073518"]);
    ("pow", ["dd25a1539f9603b0a6a4febbcd3d46736c4fd32eebf30e5a97eef3b3cb86da51"; "04e01ea13da04fe459bccec007f4b24294538411240f758efffff92d3d68e7c5"]);
    ("maximum_where", ["2a1af467093b9aa1c612e56e0631add9ce73698874124431f899f0c96ae3ad77"; "1fb967a6b517d23816fa545813663da92b0db843c72d74dc78ec3160b7f2beca"]);
    ("unary", ["2dbe7ee4ea509543a4124f363a9d7449d8659fbb24ae22ce53501b6c4add6a1b"]);
    ("movement", ["b0516d8c9d4e715dadcb712c3267cca5d8871ce057015bec630e04e8b8cbe0ab"]);
    ("matmul", ["af5ef7d545efc82a743fcada3c1a83b83acbb800edf02c34d2253f3a6ebd75cd"; "7e158b6a0539e0cea8526ae674e47b4d198988dfd2c9d7954e9d9bb14fc13c41"]);
    ("softmax", ["233c66ff1295caeb1a4116fd343202034fded808d0f390d3010c2b7fd991473f"]);
    ("cast_contiguous", ["ed8da6b3ab8e373efa274db6e9285d06cbb31440b0531559e196f9f09a2bbd4b"]);
    ("cumsum", ["b3a95dbbbb2785d28a5418b0f3df9b1dc9b2efa620534f8a3fb75b71d4fd21c9"]);
    ("stack_cat", ["3add2a8641267e3e09ad5119209c1e2e178d4d755378eaeb7df479ca18cd2e89"; "e90373fba2ac78b7a1940010c591ae488f3cb4977b4b5b2603a79da5ad9487b3"]);
]

(* builds with BUFFER slots counted from 0, as tinygrad's UOp.unique_num in a fresh process *)
let gkey name (shapes : int array list) (f : T.t list -> T.t) : case =
  ("graph_" ^ name, fun () ->
      let expected = match List.assoc_opt name grad_keys with Some k -> k | None -> fail "no oracle key for %s" name in
      let saved = !Buffers.unique_num in
      Buffers.unique_num := 0;
      let gs = Fun.protect ~finally:(fun () -> Buffers.unique_num := Stdlib.max saved !Buffers.unique_num) (fun () ->
          let ins = List.map (fun s -> T.empty s) shapes in
          T.gradient (f ins) ins) in
      List.iteri (fun i (k, g) ->
          let got = Golden.hex (Golden.uop_key (T.uop g)) in
          if got <> k then fail "%s: gradient %d: UOp.key differs from tinygrad's; ours:\n%s" name i (Uop.pretty_print (T.uop g)))
        (List.combine expected gs))

let graph_cases : case list =
  let one = function [ a ] -> a | _ -> assert false in
  let two f = function [ a; b ] -> f a b | _ -> assert false in
  [ gkey "mul_broadcast" [ [| 2; 3 |]; [| 3 |] ] (two (fun a b -> T.sum (a * b)));
    gkey "max_axis" [ [| 2; 3 |] ] (fun l -> T.sum (T.max ~axis:[ 1 ] (one l)));
    gkey "min_all" [ [| 2; 3 |] ] (fun l -> T.min (one l));
    gkey "prod_axis" [ [| 2; 3 |] ] (fun l -> T.sum (T.prod ~axis:[ 0 ] (one l)));
    gkey "pow" [ [| 4 |]; [| 4 |] ] (two (fun a b -> T.sum (T.pow a b)));
    gkey "maximum_where" [ [| 4 |]; [| 4 |] ] (two (fun a b -> T.sum (T.where (T.gt a b) a (T.maximum a b))));
    gkey "unary" [ [| 4 |] ] (fun l -> let a = one l in
                               T.sum (T.sqrt a + T.exp a + T.log a + T.sin a + T.reciprocal a + T.trunc a));
    gkey "movement" [ [| 2; 3 |] ] (fun l ->
        let a = T.pad (one l) [| (1, 0); (0, 2) |] in
        T.sum (T.reshape (T.shrink (T.permute (T.flip a [ 0 ]) [| 1; 0 |]) [| (1, 4); (0, 2) |]) [| 6 |]));
    gkey "matmul" [ [| 2; 3 |]; [| 3; 4 |] ] (two (fun a b -> T.sum (a *@ b)));
    gkey "softmax" [ [| 2; 3 |] ] (fun l -> T.sum (T.softmax (one l)));
    gkey "cast_contiguous" [ [| 2; 3 |] ] (fun l ->
        T.sum (T.float (T.contiguous_backward (T.contiguous (T.half (one l))))));
    gkey "cumsum" [ [| 2; 5 |] ] (fun l -> T.sum (T.cumsum ~axis:1 (one l)));
    gkey "stack_cat" [ [| 3 |]; [| 3 |] ] (two (fun a b -> T.sum (T.stack [ a; b ]) + T.max (T.cat [ a; b ])))
  ]

(* ---------- behaviour ---------- *)

let behaviour_cases : case list = [
  ("grad_is_none_before_backward", fun () ->
      let x = f32 [| 2 |] [| 1.; 2. |] in
      check (T.grad x = None) "grad must be None before backward");
  ("grad_shape_dtype_device", fun () ->
      let x = f32 [| 2; 3 |] [| 1.; 2.; 3.; 4.; 5.; 6. |] in
      T.backward (T.mean x);
      match T.grad x with
      | None -> fail "no grad"
      | Some g ->
        check (T.shape g = [| 2; 3 |]) "grad shape";
        check (T.dtype g == Dtype.Float32) "grad dtype %s" (Dtype.to_string (T.dtype g));
        check (T.device g = T.device x) "grad device";
        vals_close ~what:"grad" (Array.make 6 (1. /. 6.)) (Some g));
  ("grad_of_constant_output_is_zeros", fun () ->
      (* the seed gradient is a device-less CONST: backward clones it onto the tensor's device *)
      let x = f32 [| 3 |] [| 1.; 2.; 3. |] in
      T.backward (T.sum (T.detach x));
      vals_close ~what:"x.grad" [| 0.; 0.; 0. |] (T.grad x));
  ("backward_non_scalar_needs_gradient", fun () ->
      let x = f32 [| 3 |] [| 1.; 2.; 3. |] in
      check_invalid_arg ~what:"backward on a vector" (fun () -> T.backward (x * x)));
  ("gradient_wrt_int_tensor_raises", fun () ->
      let x = T.of_int_array [| 3 |] [| 1; 2; 3 |] in
      check_invalid_arg ~what:"gradient wrt int" (fun () -> T.gradient (T.sum (T.cast x Dtype.Float32)) [ x ]));
  ("gradient_of_int_output_raises", fun () ->
      let x = T.of_int_array [| 3 |] [| 1; 2; 3 |] in
      check_invalid_arg ~what:"gradient of int" (fun () -> T.gradient (T.sum x) [ x ]));
  ("int_tensors_in_graph_get_no_grad", fun () ->
      let x = f32 [| 3 |] [| 1.; 2.; 3. |] and i = T.of_int_array [| 3 |] [| 1; 0; 2 |] in
      T.backward (T.sum (x * T.cast i Dtype.Float32));
      vals_close ~what:"x.grad" [| 1.; 0.; 2. |] (T.grad x);
      check (T.grad i = None) "int tensor got a grad");
  ("second_order_gradient", fun () ->
      (* d/dx of d/dx (x^3) = 6x: the gradient graph is itself differentiable *)
      let x = f32 [| 3 |] [| 1.; 2.; 3. |] in
      match T.gradient (T.sum (x * x * x)) [ x ] with
      | [ g ] -> (match T.gradient (T.sum g) [ x ] with
          | [ g2 ] -> vals_close ~what:"d2" [| 6.; 12.; 18. |] (Some g2)
          | _ -> fail "one gradient")
      | _ -> fail "one gradient");
  ("gradient_after_realize", fun () ->
      (* a realized input is a buffer leaf; gradients still reach it *)
      let x = T.realize (f32 [| 2 |] [| 1.; 2. |] * T.scalar 3.) in
      match T.gradient (T.sum (x * x)) [ x ] with
      | [ g ] -> vals_close ~what:"dx" [| 6.; 12. |] (Some g)
      | _ -> fail "one gradient");
  ("realized_output_cuts_the_graph", fun () ->
      (* tinygrad 0.14: realize replaces y's graph by its buffer, so backward through y no longer reaches x *)
      let x = f32 [| 2 |] [| 1.; 2. |] in
      let y = T.realize (x * T.scalar 2.) in
      T.backward (T.sum y);
      check (T.grad x = None) "x.grad must stay None (tinygrad prints None)";
      vals_close ~what:"y.grad" [| 1.; 1. |] (T.grad y));
  ("pm_gradient_rule_order_names_ops", fun () ->
      (* an op without a rule raises naming it *)
      let x = Uop.const_float ~dtype:Dtype.Float32 1.0 in
      let u = Uop.alu Ops.Xor [ Uop.cast Dtype.Int32 x; Uop.const_int ~dtype:Dtype.Int32 1 ] in
      let u = Uop.cast Dtype.Float32 u in
      check_invalid_arg ~what:"XOR has no gradient" (fun () -> Gradient.compute_gradient u (Uop.const_float ~dtype:Dtype.Float32 1.0) [ x ]));
]

let tests : case list = List.concat [ fd_cases; oracle_cases; graph_cases; behaviour_cases ]
