(* Symbolic shapes at the Tensor level (Variable, Sint, Tensor.Sym, Tiny_jit.call_v), ported from tinygrad's
   test/backend/test_symbolic_ops.py, test/backend/test_symbolic_jit.py, the symbolic case of
   test/backend/test_jit.py and test/null/test_symbolic_tensor.py. tinygrad's tests compare the symbolic result with
   the same function on concrete shapes; here the expected values are computed from the inputs in OCaml floats
   (float64: slices, matmul, softmax attention, means and variances written out below), an oracle independent of
   the Tensor code, and tinygrad's [a[:, :vi]] slices with a Variable are [Tensor.Sym.shrink].
   test_jit_symbolic_shape_mismatch expects tinygrad's JitError; Tiny_jit raises Invalid_argument for inputs that
   differ from the captured ones. *)

open Tinygrad.Compiler
open Test_util

(* ---------- host arrays: the oracle ---------- *)

type h = { sh : int array; d : float array }

let numel sh = Array.fold_left ( * ) 1 sh
let strides sh =
  let n = Array.length sh in
  let st = Array.make n 1 in
  for i = n - 2 downto 0 do st.(i) <- st.(i + 1) * sh.(i + 1) done;
  st

(* the element at a multi-index *)
let get h idx = let st = strides h.sh in h.d.(Array.fold_left ( + ) 0 (Array.mapi (fun i x -> x * st.(i)) idx))

(* an array of shape [sh] whose element at [idx] is [f idx] *)
let init sh f =
  let n = numel sh and st = strides sh in
  { sh; d = Array.init n (fun k -> f (Array.mapi (fun i s -> k / s mod sh.(i)) st)) }

(* numpy a[r0:r1, c0:c1, ...] *)
let slice h (r : (int * int) array) =
  init (Array.map (fun (a, b) -> b - a) r) (fun idx -> get h (Array.mapi (fun i x -> x + fst r.(i)) idx))

let map f h = { h with d = Array.map f h.d }

(* 2-d a @ b *)
let matmul a b =
  init [| a.sh.(0); b.sh.(1) |] (fun ix ->
      let s = ref 0. in
      for k = 0 to a.sh.(1) - 1 do s := !s +. get a [| ix.(0); k |] *. get b [| k; ix.(1) |] done;
      !s)

(* numpy swapaxes(1, 2) of a 4-d array *)
let swap12 h = init [| h.sh.(0); h.sh.(2); h.sh.(1); h.sh.(3) |] (fun i -> get h [| i.(0); i.(2); i.(1); i.(3) |])

(* softmax(q k^T / sqrt d) v over the last two axes of (B, H, S, D) arrays *)
let sdpa q k v =
  let d = q.sh.(3) and sk = k.sh.(2) in
  init [| q.sh.(0); q.sh.(1); q.sh.(2); v.sh.(3) |] (fun i ->
      let score j =
        let s = ref 0. in
        for e = 0 to d - 1 do s := !s +. get q [| i.(0); i.(1); i.(2); e |] *. get k [| i.(0); i.(1); j; e |] done;
        !s /. Float.sqrt (float_of_int d) in
      let scores = Array.init sk score in
      let m = Array.fold_left Float.max Float.neg_infinity scores in
      let ex = Array.map (fun s -> Float.exp (s -. m)) scores in
      let tot = Array.fold_left ( +. ) 0. ex in
      let r = ref 0. in
      Array.iteri (fun j e -> r := !r +. e /. tot *. get v [| i.(0); i.(1); j; i.(3) |]) ex;
      !r)

(* numpy cat along [dim] of 2-d arrays *)
let cat dim a b =
  let sh = Array.copy a.sh in
  sh.(dim) <- a.sh.(dim) + b.sh.(dim);
  init sh (fun i ->
      if i.(dim) < a.sh.(dim) then get a i
      else get b (Array.mapi (fun k x -> if k = dim then x - a.sh.(dim) else x) i))

(* numpy mean / var (ddof 1) of a 2-d array over no axis (all), axis 0 or axis 1 *)
let reduce2 f axis h =
  match axis with
  | None -> { sh = [||]; d = [| f (Array.to_list h.d) |] }
  | Some 0 -> init [| h.sh.(1) |] (fun i -> f (List.init h.sh.(0) (fun r -> get h [| r; i.(0) |])))
  | Some _ -> init [| h.sh.(0) |] (fun i -> f (List.init h.sh.(1) (fun c -> get h [| i.(0); c |])))
let fmean l = List.fold_left ( +. ) 0. l /. float_of_int (List.length l)
let fvar l = let m = fmean l in List.fold_left (fun a x -> a +. ((x -. m) *. (x -. m))) 0. l /. float_of_int (List.length l - 1)

(* deterministic inputs in [0, 1) (tinygrad's tests use Tensor.rand) *)
let seed = ref 12345
let rand_h sh =
  { sh; d = Array.init (numel sh) (fun _ -> seed := (!seed * 1103515245 + 12345) land 0x3fffffff;
                                    float_of_int (!seed lsr 6) /. float_of_int (1 lsl 24)) }
let t_of h = Tensor.realize (Tensor.of_float_array h.sh h.d)

(* numpy.testing.assert_allclose with nan = nan; the oracle is float64, the tensors float32 *)
let close ?(atol = 1e-5) ?(rtol = 1e-5) ~what (e : h) (got : Tensor.t) =
  let shp = Tensor.shape got in
  if shp <> e.sh then
    fail "%s: shape %s, expected %s" what (Uop.shape_str (List.map (fun i -> Uop.Sint i) (Array.to_list shp)))
      (Uop.shape_str (List.map (fun i -> Uop.Sint i) (Array.to_list e.sh)));
  let g = Tensor.to_float_array got in
  Array.iteri (fun i x ->
      let y = g.(i) in
      let ok = (Float.is_nan x && Float.is_nan y) || Float.abs (x -. y) <= atol +. rtol *. Float.abs x in
      if not ok then fail "%s[%d]: expected %g, got %g" what i x y) e.d

(* ---------- symbolic helpers ---------- *)

let s = Sint.of_int
let z = s 0
let var_i = Variable.create "i" 1 10
let var_j = Variable.create "j" 1 10
let bi i = Variable.bind var_i i
let bj j = Variable.bind var_j j

(* tinygrad a[:, :vi]-style slices: (start, end) per axis, ints or sints *)
let sym_shrink t (r : (Sint.t * Sint.t) array) = Tensor.Sym.shrink t r
let full_axes t = Array.map (fun d -> (z, d)) (Tensor.Sym.shape t)
let shrink_axis t axis (a, b) = let r = full_axes t in r.(axis) <- (a, b); sym_shrink t r

(* the concrete [(0, n)] window of a symbolic result, for reading it back *)
let window t (dims : int array) = Tensor.shrink t (Array.map (fun n -> (0, n)) dims)

let add1 t = Tensor.realize (Tensor.add t (Tensor.scalar 1.))
let tr12 t = Tensor.transpose ~dim0:1 ~dim1:2 t
let attention ?dropout_p q k v = Tensor.realize (Tensor.scaled_dot_product_attention ?dropout_p (tr12 q) (tr12 k) (tr12 v))

let check_sym_shape ~what (expected : Sint.t list) t =
  let got = Array.to_list (Tensor.Sym.shape t) in
  if not (List.length got = List.length expected && List.for_all2 Sint.equal got expected) then
    fail "%s: shape %s, expected %s" what (Uop.shape_str got) (Uop.shape_str expected)

(* ---------- test_symbolic_ops.py ---------- *)

let range a b = List.init (b - a) (fun i -> a + i)
let pairs l1 l2 = List.concat_map (fun i -> List.map (fun j -> (i, j)) l2) l1

(* tinygrad's test_mean / test_var and their _2d forms: [run axis x] over no axis, axis 0 and axis 1 of a[:vi]
   (a (10, 3) array) or, with [two], of a[:vi, :vj] (a (10, 10) array), against [oracle] *)
let reduce_check ?(two = false) ~what oracle (run : int option -> Tensor.t -> Tensor.t) =
  let ah = rand_h (if two then [| 10; 10 |] else [| 10; 3 |]) in
  let a = t_of ah in
  let sizes = if two then pairs (range 2 5) (range 2 5) else List.map (fun i -> (i, 3)) (range 1 5) in
  List.iter (fun (i, j) ->
      let x = if two then sym_shrink a [| (z, bi i); (z, bj j) |] else shrink_axis a 0 (z, bi i) in
      List.iter (fun axis ->
          let e = reduce2 oracle axis (slice ah [| (0, i); (0, j) |]) in
          close ~what e (window (run axis x) e.sh)) [ None; Some 0; Some 1 ]) sizes

let reduce_op f axis x = f ?axis:(Option.map (fun a -> [ a ]) axis) x

(* tinygrad's test_cat_dim0 / test_cat_dim1: [f a[:vi] b] (cat along [dim], b concrete, of size 2 along [dim]) *)
let cat_one_var dim (f : Tensor.t -> Tensor.t -> Tensor.t) =
  let sh k = if dim = 0 then [| k; 3 |] else [| 3; k |] in
  let ah = rand_h (sh 10) in
  let a = t_of ah in
  List.iter (fun i ->
      let bh = rand_h (sh 2) in
      let e = cat dim (slice ah (Array.map (fun n -> (0, n)) (sh i))) bh in
      close ~what:"cat" e (window (f (shrink_axis a dim (z, bi i)) (t_of bh)) e.sh)) (range 1 5)

(* tinygrad's test_cat_dim0_two_vars / test_cat_dim1_two_vars: [f a[:vi] b[:vj]] (cat along [dim]) *)
let cat_two_vars dim (f : Tensor.t -> Tensor.t -> Tensor.t) =
  let sh k = if dim = 0 then [| k; 3 |] else [| 3; k |] in
  let ah = rand_h (sh 10) and bh = rand_h (sh 10) in
  let a = t_of ah and b = t_of bh in
  List.iter (fun (i, j) ->
      let e = cat dim (slice ah (Array.map (fun n -> (0, n)) (sh i))) (slice bh (Array.map (fun n -> (0, n)) (sh j))) in
      close ~what:"cat" e (window (f (shrink_axis a dim (z, bi i)) (shrink_axis b dim (z, bj j))) e.sh))
    (pairs (range 2 5) (range 2 5))

(* tinygrad's test_two_vars_plus1_ij / _ji: [f a[:vi] b[:, :vj]] for a@b+1 (with [swap], a[:vj] and b[:, :vi]) *)
let two_vars_plus1 ?(swap = false) (f : Tensor.t -> Tensor.t -> Tensor.t) =
  let ah = rand_h [| 10; 3 |] and bh = rand_h [| 3; 10 |] in
  let a = t_of ah and b = t_of bh in
  List.iter (fun (i, j) ->
      let (m, vm), (n, vn) = if swap then ((j, bj j), (i, bi i)) else ((i, bi i), (j, bj j)) in
      close ~what:"a@b+1" (map (fun x -> x +. 1.) (matmul (slice ah [| (0, m); (0, 3) |]) (slice bh [| (0, 3); (0, n) |])))
        (window (f (shrink_axis a 0 (z, vm)) (shrink_axis b 1 (z, vn))) [| m; n |])) (pairs (range 2 5) (range 2 5))

(* tinygrad's test_plus1: [f a[:, :vi]] for a+1 *)
let plus1_check (f : Tensor.t -> Tensor.t) =
  let ah = rand_h [| 3; 10 |] in
  let a = t_of ah in
  List.iter (fun i ->
      close ~what:"a+1" (map (fun x -> x +. 1.) (slice ah [| (0, 3); (0, i) |]))
        (window (f (shrink_axis a 1 (z, bi i))) [| 3; i |])) (range 1 5)

(* tinygrad's test_plus1_pad: [f a[:, :vi]] for (a+1) padded back to 10 columns *)
let plus1_pad_check (f : Tensor.t -> Tensor.t) =
  let ah = rand_h [| 3; 10 |] in
  let a = t_of ah in
  List.iter (fun i ->
      close ~what:"(a+1).pad" (init [| 3; 10 |] (fun ix -> if ix.(1) < i then get ah ix +. 1. else 0.))
        (f (shrink_axis a 1 (z, bi i)))) (range 1 5)
let plus1_pad x =
  let x = Tensor.add x (Tensor.scalar 1.) in
  Tensor.Sym.pad x [| (z, z); (z, Sint.(s 10 - (Tensor.Sym.shape x).(1))) |]

(* tinygrad's test_add: [f a[:, :vi] b[:, :vi]] for a+b *)
let add_check (f : Tensor.t -> Tensor.t -> Tensor.t) =
  let ah = rand_h [| 3; 10 |] and bh = rand_h [| 3; 10 |] in
  let a = t_of ah and b = t_of bh in
  List.iter (fun i ->
      close ~what:"a+b" (init [| 3; i |] (fun ix -> get ah ix +. get bh ix))
        (window (f (shrink_axis a 1 (z, bi i)) (shrink_axis b 1 (z, bi i))) [| 3; i |])) (range 1 5)

(* tinygrad's test_matmul: [f a[:, :vi] b[:vi]] for a@b, times [scale] *)
let matmul_check ?(scale = 1.) (f : Tensor.t -> Tensor.t -> Tensor.t) =
  let ah = rand_h [| 3; 10 |] and bh = rand_h [| 10; 5 |] in
  let a = t_of ah and b = t_of bh in
  List.iter (fun i ->
      close ~what:"a@b" (map (fun x -> scale *. x) (matmul (slice ah [| (0, 3); (0, i) |]) (slice bh [| (0, i); (0, 5) |])))
        (f (shrink_axis a 1 (z, bi i)) (shrink_axis b 0 (z, bi i)))) (range 1 5)

(* tinygrad's test_attention: [f q k[:, :vi] v[:, :vi]] for the attention of (B, S, H, D) inputs; [after i] runs after
   each length *)
let attention_check ?(after = fun _ -> ()) (f : Tensor.t -> Tensor.t -> Tensor.t -> Tensor.t) =
  let qh = rand_h [| 2; 1; 4; 8 |] and kh = rand_h [| 2; 10; 4; 8 |] and vh = rand_h [| 2; 10; 4; 8 |] in
  let q = t_of qh and k = t_of kh and v = t_of vh in
  List.iter (fun i ->
      let win h = swap12 (slice h [| (0, 2); (0, i); (0, 4); (0, 8) |]) in
      close ~what:"sdpa" (sdpa (swap12 qh) (win kh) (win vh))
        (window (f q (shrink_axis k 1 (z, bi i)) (shrink_axis v 1 (z, bi i))) [| 2; 4; 1; 8 |]);
      after i) (range 1 5)

(* tinygrad's test_attention_pos_0_sz_N: examples/gpt2.py Attention(128, 8) on a (1, sz, 128) prompt at start_pos
   bound to 0 with no mask (gpt2.py then uses the int 0): the qkv projection, the cache update by shrink + assign,
   attention over the prompt; without c_proj, with values checked (tinygrad only runs it) *)
let gpt2_attention_pos0 sz =
  let dim = 128 and heads = 8 in
  let hd = dim / heads in
  let xh = rand_h [| 1; sz; dim |] and wh = rand_h [| dim; 3 * dim |] in
  let start_pos = Variable.bind (Variable.create "start_pos" 0 128) 0 in
  let sp = Variable.value start_pos in
  let xqkv = Tensor.matmul (t_of xh) (t_of wh) in
  let part i = Tensor.reshape (Tensor.shrink xqkv [| (0, 1); (0, sz); (i * dim, (i + 1) * dim) |]) [| 1; sz; heads; hd |] in
  let xq = part 0 and xk = part 1 and xv = part 2 in
  let cache = Tensor.realize (Tensor.contiguous (Tensor.zeros [| 2; 1; 128; heads; hd |])) in
  ignore (Tensor.realize (Tensor.assign (Tensor.shrink cache [| (0, 2); (0, 1); (sp, sp + sz); (0, heads); (0, hd) |])
                            (Tensor.stack [ xk; xv ])));
  let out = Tensor.reshape (tr12 (Tensor.scaled_dot_product_attention (tr12 xq) (tr12 xk) (tr12 xv))) [| 1; sz; dim |] in
  let qkv = matmul { sh = [| sz; dim |]; d = xh.d } wh in
  let proj i = init [| 1; heads; sz; hd |] (fun ix -> get qkv [| ix.(2); (i * dim) + (ix.(1) * hd) + ix.(3) |]) in
  let e = if sz = 0 then { sh = [| 1; 0; dim |]; d = [||] }
    else let o = swap12 (sdpa (proj 0) (proj 1) (proj 2)) in { sh = [| 1; sz; dim |]; d = o.d } in
  close ~atol:1e-4 ~rtol:1e-4 ~what:"attention" e out;
  let kv = init [| 2; 1; sz; heads; hd |] (fun ix -> get (proj (ix.(0) + 1)) [| 0; ix.(3); ix.(2); ix.(4) |]) in
  close ~atol:1e-4 ~rtol:1e-4 ~what:"cache" kv (Tensor.shrink cache [| (0, 2); (0, 1); (0, sz); (0, heads); (0, hd) |])

let cat_op dim a b = Tensor.realize (Tensor.cat ~dim [ a; b ])
let matmul_plus1 a b = add1 (Tensor.matmul a b)

let ops_tests : case list = [
  ("negative_slice", fun () ->
      let ah = rand_h [| 3; 10; 4 |] in
      let a = t_of ah in
      List.iter (fun i ->
          let x = shrink_axis a 1 (z, bi i) in
          close ~what:"[:, -3:-1]" (slice ah [| (0, 3); (i - 3, i - 1); (0, 4) |])
            (Tensor.getitem x [ S (None, None, None); S (Some (-3), Some (-1), None) ]);
          close ~what:"[:, -1:]" (slice ah [| (0, 3); (i - 1, i); (0, 4) |])
            (Tensor.getitem x [ S (None, None, None); S (Some (-1), None, None) ]);
          close ~what:"[:, -1]" { sh = [| 3; 4 |]; d = (slice ah [| (0, 3); (i - 1, i); (0, 4) |]).d }
            (Tensor.getitem x [ S (None, None, None); I (-1) ])) (range 3 10));
  ("plus1", fun () -> plus1_check add1);
  ("plus1_pad", fun () -> plus1_pad_check (fun x -> Tensor.realize (plus1_pad x)));
  ("add", fun () -> add_check (fun a b -> Tensor.realize (Tensor.add a b)));
  ("matmul", fun () -> matmul_check (fun a b -> Tensor.realize (Tensor.matmul a b)));
  ("matmul_same_var_different_val", fun () ->
      (* a Variable bound to two values in one op: the shapes differ, matmul refuses them *)
      let a = t_of (rand_h [| 3; 10 |]) and b = t_of (rand_h [| 10; 5 |]) in
      check_invalid_arg ~what:"matmul i=4 @ i=7" (fun () ->
          Tensor.matmul (shrink_axis a 1 (z, bi 4)) (shrink_axis b 0 (z, bi 7))));
  ("attention", fun () -> attention_check attention);
  ("attention_cmp_symbolic", fun () ->
      (* the same attention with a concrete and with a symbolic length 4 *)
      let qh = rand_h [| 2; 1; 4; 8 |] and kh = rand_h [| 2; 10; 4; 8 |] and vh = rand_h [| 2; 10; 4; 8 |] in
      let q = t_of qh and k = t_of kh and v = t_of vh in
      let win h = swap12 (slice h [| (0, 2); (0, 4); (0, 4); (0, 8) |]) in
      let e = sdpa (swap12 qh) (win kh) (win vh) in
      close ~what:"concrete" e (attention q (Tensor.shrink k [| (0, 2); (0, 4); (0, 4); (0, 8) |])
                                  (Tensor.shrink v [| (0, 2); (0, 4); (0, 4); (0, 8) |]));
      close ~what:"symbolic" e
        (window (attention q (shrink_axis k 1 (z, bi 4)) (shrink_axis v 1 (z, bi 4))) [| 2; 4; 1; 8 |]));
  ("attention_training", fun () ->
      let q = t_of (rand_h [| 2; 1; 4; 8 |]) and k = t_of (rand_h [| 2; 10; 4; 8 |]) in
      Helpers.context [ Bind (Helpers.training, 1) ] @@ fun () ->
      let ks = shrink_axis k 1 (z, bi 3) in
      ignore (attention ~dropout_p:0.0 q ks ks);
      (* symbolic shape dropout is not supported *)
      check_invalid_arg ~what:"dropout on a symbolic shape" (fun () -> attention ~dropout_p:0.5 q ks ks));
  ("sdpa_symbolic_seq_len", fun () ->
      let qh = rand_h [| 2; 10; 4; 8 |] and kh = rand_h [| 2; 10; 4; 8 |] and vh = rand_h [| 2; 10; 4; 8 |] in
      let q = t_of qh and k = t_of kh and v = t_of vh in
      List.iter (fun i ->
          let win h = swap12 (slice h [| (0, 2); (0, i); (0, 4); (0, 8) |]) in
          let sl t = shrink_axis t 1 (z, bi i) in
          close ~what:"sdpa" (sdpa (win qh) (win kh) (win vh)) (window (attention (sl q) (sl k) (sl v)) [| 2; 4; i; 8 |]))
        (range 1 5));
  ("sdpa_symbolic_seq_len_query_only", fun () ->
      let qh = rand_h [| 2; 10; 4; 8 |] and kh = rand_h [| 2; 5; 4; 8 |] and vh = rand_h [| 2; 5; 4; 8 |] in
      let q = t_of qh and k = t_of kh and v = t_of vh in
      List.iter (fun i ->
          close ~what:"sdpa" (sdpa (swap12 (slice qh [| (0, 2); (0, i); (0, 4); (0, 8) |])) (swap12 kh) (swap12 vh))
            (window (attention (shrink_axis q 1 (z, bi i)) k v) [| 2; 4; i; 8 |])) (range 1 5));
  ("sdpa_symbolic_batch", fun () ->
      let qh = rand_h [| 10; 4; 3; 8 |] and kh = rand_h [| 10; 4; 3; 8 |] and vh = rand_h [| 10; 4; 3; 8 |] in
      let q = t_of qh and k = t_of kh and v = t_of vh in
      List.iter (fun i ->
          let win h = slice h [| (0, i); (0, 4); (0, 3); (0, 8) |] in
          let sl t = shrink_axis t 0 (z, bi i) in
          close ~what:"sdpa" (sdpa (win qh) (win kh) (win vh))
            (window (Tensor.realize (Tensor.scaled_dot_product_attention (sl q) (sl k) (sl v))) [| i; 4; 3; 8 |]))
        (range 1 5));
  ("sdpa_symbolic_heads", fun () ->
      let qh = rand_h [| 2; 10; 3; 8 |] and kh = rand_h [| 2; 10; 3; 8 |] and vh = rand_h [| 2; 10; 3; 8 |] in
      let q = t_of qh and k = t_of kh and v = t_of vh in
      List.iter (fun i ->
          let win h = slice h [| (0, 2); (0, i); (0, 3); (0, 8) |] in
          let sl t = shrink_axis t 1 (z, bi i) in
          close ~what:"sdpa" (sdpa (win qh) (win kh) (win vh))
            (window (Tensor.realize (Tensor.scaled_dot_product_attention (sl q) (sl k) (sl v))) [| 2; i; 3; 8 |]))
        (range 1 5));
  ("cat_dim0", fun () -> cat_one_var 0 (cat_op 0));
  ("cat_dim1", fun () -> cat_one_var 1 (cat_op 1));
  ("cat_dim0_two_vars", fun () -> cat_two_vars 0 (cat_op 0));
  ("cat_dim1_two_vars", fun () -> cat_two_vars 1 (cat_op 1));
  ("two_vars_plus1_ij", fun () -> two_vars_plus1 matmul_plus1);
  ("two_vars_plus1_ji", fun () -> two_vars_plus1 ~swap:true matmul_plus1);
  ("attention_pos_0_sz_0", fun () -> gpt2_attention_pos0 0);
  ("attention_pos_0_sz_1", fun () -> gpt2_attention_pos0 1);
  ("attention_pos_0_sz_2", fun () -> gpt2_attention_pos0 2);
  ("invalid_symbolic_reshape", fun () ->
      let a = t_of (rand_h [| 30 |]) in
      List.iter (fun i ->
          (* cannot reshape into symbolic from non-symbolic *)
          check_invalid_arg ~what:"reshape (30,) to (3, i)" (fun () -> Tensor.Sym.reshape a [| s 3; bi i |]))
        (range 1 5));
  ("shrink", fun () ->
      List.iter (fun i ->
          let ah = rand_h [| 7; 11 |] in
          let a = t_of ah in
          close ~what:"shrink" (slice ah [| (3, 5); (i, i + 2) |])
            (Tensor.Sym.shrink a [| (s 3, s 5); (bi i, Sint.(bi i + s 2)) |])) (range 1 5));
  ("slice", fun () ->
      (* a[3:5, vi:vi+2] *)
      List.iter (fun i ->
          let ah = rand_h [| 7; 11 |] in
          let a = t_of ah in
          let x = Tensor.Sym.shrink a [| (s 3, s 5); (bi i, Sint.(bi i + s 2)) |] in
          check_sym_shape ~what:"a[3:5, vi:vi+2]" [ s 2; s 2 ] x;
          close ~what:"slice" (slice ah [| (3, 5); (i, i + 2) |]) x) (range 1 5));
  ("slice_no_start", fun () ->
      let ah = rand_h [| 7; 11 |] in
      let a = t_of ah in
      List.iter (fun i ->
          close ~what:"a[3:5, :vi:1]" (slice ah [| (3, 5); (0, i) |])
            (window (Tensor.Sym.shrink a [| (s 3, s 5); (z, bi i) |]) [| 2; i |])) (range 1 5));
  ("expand_padded", fun () ->
      List.iter (fun i ->
          let a = Tensor.unsqueeze (Tensor.pad (Tensor.unsqueeze (Tensor.scalar_int 1) 0) [| (0, 1) |]) 0 in
          close ~what:"expand" (init [| i; 2 |] (fun ix -> if ix.(1) = 0 then 1. else 0.))
            (window (Tensor.Sym.expand a [| bi i; s 2 |]) [| i; 2 |])) (range 1 5));
  ("slice_var_shape", fun () ->
      List.iter (fun i ->
          let a = Tensor.contiguous (Tensor.Sym.ones [| bi i; s 11 |]) in
          let x = Tensor.getitem a [ S (None, None, None); S (Some 1, Some 2, None) ] in
          close ~what:"ones(vi, 11)[:, 1:2]" (init [| i; 1 |] (fun _ -> 1.)) (window x [| i; 1 |])) (range 1 5));
  ("ones_sum", fun () ->
      let t = Tensor.contiguous (Tensor.ones [| 10 |]) in
      List.iter (fun i ->
          let got = Tensor.item (Tensor.sum (shrink_axis t 0 (z, bi i))) in
          if got <> float_of_int i then fail "ones[:%d].sum() = %g" i got) (range 1 5));
  ("mean", fun () -> reduce_check ~what:"mean" fmean (reduce_op (fun ?axis x -> Tensor.mean ?axis x)));
  ("mean_2d", fun () -> reduce_check ~two:true ~what:"mean" fmean (reduce_op (fun ?axis x -> Tensor.mean ?axis x)));
  ("var", fun () -> reduce_check ~what:"var" fvar (reduce_op (fun ?axis x -> Tensor.var ?axis x)));
  ("var_2d", fun () -> reduce_check ~two:true ~what:"var" fvar (reduce_op (fun ?axis x -> Tensor.var ?axis x)));
  ("conv2d_ceildiv_edge_case", fun () ->
      (* the output length is ceildiv(v + 6 - 11, 6) = 13 at v = 79, where a floor would give 12 *)
      let v = Variable.create "v" 11 100 in
      let xh = rand_h [| 1; 8; 100 |] and wh = rand_h [| 16; 8; 12 |] in
      let x = shrink_axis (t_of xh) 2 (z, Variable.bind v 79) in
      let r = Tensor.conv_nd ~groups:1 ~stride:[ 6 ] ~dilation:[ 1 ] ~padding:[ 3; 3 ] x (t_of wh) in
      let shp = Array.map (Sint.eval ~var_vals:[ ("v", 79) ]) (Tensor.Sym.shape r) in
      check_bool ~what:"shape (1, 16, 13)" true (shp = [| 1; 16; 13 |]);
      let xp c t = let t = t - 3 in if t < 0 || t >= 79 then 0. else get xh [| 0; c; t |] in
      let e = init [| 1; 16; 13 |] (fun ix ->
          let acc = ref 0. in
          for c = 0 to 7 do for k = 0 to 11 do acc := !acc +. get wh [| ix.(1); c; k |] *. xp c ((ix.(2) * 6) + k) done done;
          !acc) in
      close ~atol:1e-4 ~rtol:1e-4 ~what:"conv" e (window r [| 1; 16; 13 |]));
  ("bitcast_down", fun () ->
      let ah = rand_h [| 10; 3 |] in
      let a = t_of ah in
      List.iter (fun i ->
          (* the little-endian bytes of each float32 *)
          let e = init [| i; 12 |] (fun ix ->
              let bits = Int32.bits_of_float (get ah [| ix.(0); ix.(1) / 4 |]) in
              Int32.to_float (Int32.logand (Int32.shift_right_logical bits (8 * (ix.(1) mod 4))) 0xffl)) in
          close ~atol:0. ~rtol:0. ~what:"bitcast uint8" e
            (window (Tensor.bitcast (shrink_axis a 0 (z, bi i)) Dtype.Uint8) [| i; 12 |])) (range 1 5));
  ("bitcast_up", fun () ->
      let ah = rand_h [| 10; 4 |] in
      let a = t_of ah in
      List.iter (fun i ->
          (* two float32 words, low word first, as one uint64 *)
          let word r c = Int64.logand (Int64.of_int32 (Int32.bits_of_float (get ah [| r; c |]))) 0xffffffffL in
          let e = Array.init (i * 2) (fun k ->
              Int64.to_int (Int64.logor (word (k / 2) (2 * (k mod 2))) (Int64.shift_left (word (k / 2) (2 * (k mod 2) + 1)) 32))) in
          let got = Tensor.to_int_array (window (Tensor.bitcast (shrink_axis a 0 (z, bi i)) Dtype.Uint64) [| i; 2 |]) in
          if got <> e then fail "bitcast uint64 at i=%d" i) (range 1 5));
]

(* ---------- test_symbolic_jit.py (and test_jit.py's Variable argument) ---------- *)

let jit1 f = Tiny_jit.create (function [ a ] -> f a | _ -> fail "one input expected")
let jit2 f = Tiny_jit.create (function [ a; b ] -> f a b | _ -> fail "two inputs expected")
let check_cache_len ~what n j = check_int ~what:(what ^ ": jit cache length") n (Tiny_jit.jit_cache_len j)

let jit_call1 jf a = Tiny_jit.call jf [ a ]
let jit_call2 jf a b = Tiny_jit.call jf [ a; b ]

(* one JIT per axis (tinygrad's jf, jf0, jf1) of a reduction, for [reduce_check] *)
let jit_reduce (f : ?axis:int list -> Tensor.t -> Tensor.t) =
  let js = List.map (fun axis -> (axis, jit1 (fun a -> Tensor.realize (reduce_op f axis a)))) [ None; Some 0; Some 1 ] in
  fun axis x -> Tiny_jit.call (List.assoc axis js) [ x ]

(* the JIT replays one capture: the capture of the second call is the one of the last *)
let check_captured_once ~what j first =
  match Tiny_jit.captured j, first with
  | Some c, Some c0 when c == c0 -> ()
  | _ -> fail "%s: the JIT captured more than once" what

let jit_tests : case list = [
  ("plus1", fun () -> let jf = jit1 add1 in plus1_check (jit_call1 jf); check_cache_len ~what:"plus1" 1 jf);
  ("plus1_pad", fun () ->
      let jf = jit1 (fun x -> Tensor.realize (Tensor.contiguous (plus1_pad x))) in
      plus1_pad_check (jit_call1 jf);
      check_cache_len ~what:"plus1_pad" 1 jf);
  ("add", fun () ->
      let jf = jit2 (fun a b -> Tensor.realize (Tensor.add a b)) in add_check (jit_call2 jf); check_cache_len ~what:"add" 1 jf);
  ("matmul", fun () ->
      let jf = jit2 (fun a b -> Tensor.realize (Tensor.matmul a b)) in
      matmul_check (jit_call2 jf);
      check_cache_len ~what:"matmul" 1 jf);
  ("mixed_with_no_symbol_kernel", fun () ->
      let jf = jit2 (fun a b ->
          let c = Tensor.realize (Tensor.matmul a b) in
          (* this one does not have symbols in input *)
          Tensor.realize (Tensor.add c c)) in
      matmul_check ~scale:2. (jit_call2 jf);
      check_cache_len ~what:"mixed" 2 jf);
  ("attention", fun () ->
      let jf = Tiny_jit.create (function [ q; k; v ] -> attention q k v | _ -> fail "three inputs expected") in
      let first = ref None in
      attention_check ~after:(fun i -> if i = 2 then first := Tiny_jit.captured jf) (fun q k v -> Tiny_jit.call jf [ q; k; v ]);
      check_captured_once ~what:"attention" jf !first;
      check_cache_len ~what:"attention" 5 jf);
  ("cat_dim0", fun () -> let jf = jit2 (cat_op 0) in cat_one_var 0 (jit_call2 jf); check_cache_len ~what:"cat" 1 jf);
  ("cat_dim1", fun () -> let jf = jit2 (cat_op 1) in cat_one_var 1 (jit_call2 jf); check_cache_len ~what:"cat" 1 jf);
  ("cat_dim0_two_vars", fun () -> let jf = jit2 (cat_op 0) in cat_two_vars 0 (jit_call2 jf); check_cache_len ~what:"cat" 1 jf);
  ("cat_dim1_two_vars", fun () -> let jf = jit2 (cat_op 1) in cat_two_vars 1 (jit_call2 jf); check_cache_len ~what:"cat" 1 jf);
  ("two_vars_plus1_ij", fun () ->
      let jf = jit2 matmul_plus1 in two_vars_plus1 (jit_call2 jf); check_cache_len ~what:"a@b+1" 1 jf);
  ("two_vars_plus1_ji", fun () ->
      let jf = jit2 matmul_plus1 in two_vars_plus1 ~swap:true (jit_call2 jf); check_cache_len ~what:"a@b+1" 1 jf);
  ("jit_symbolic_shape_mismatch", fun () ->
      let jf = jit2 (fun a b -> Tensor.realize (Tensor.add a b)) in
      let a = t_of (rand_h [| 3; 10 |]) and b = t_of (rand_h [| 3; 10 |]) in
      List.iter (fun i -> ignore (Tiny_jit.call jf [ shrink_axis a 1 (z, bi i); shrink_axis b 1 (z, bi i) ])) (range 1 5);
      let a = shrink_axis (t_of (rand_h [| 3; 7 |])) 1 (z, bi 7) in
      let bad = shrink_axis (t_of (rand_h [| 4; 7 |])) 1 (z, bi 7) in
      (* tinygrad raises JitError; the inputs' shapes differ from the captured ones: Invalid_argument here *)
      check_invalid_arg ~what:"jit (3, i) + (4, i)" (fun () -> Tiny_jit.call jf [ a; bad ]));
  ("shrink", fun () ->
      let jf = jit1 add1 in
      let ah = rand_h [| 7; 11 |] in
      let a = t_of ah in
      List.iter (fun i ->
          close ~what:"jit shrink" (map (fun x -> x +. 1.) (slice ah [| (3, 5); (i, i + 2) |]))
            (Tiny_jit.call jf [ Tensor.Sym.shrink a [| (s 3, s 5); (bi i, Sint.(bi i + s 2)) |] ])) (range 1 5);
      check_cache_len ~what:"shrink" 1 jf);
  ("slice", fun () ->
      (* a[3:5, vi:vi+2] *)
      let jf = jit1 add1 in
      let ah = rand_h [| 7; 11 |] in
      let a = t_of ah in
      List.iter (fun i ->
          let x = Tensor.getitem (Tensor.Sym.shrink a [| (z, s 7); (bi i, Sint.(bi i + s 2)) |])
              [ S (Some 3, Some 5, None); S (None, None, None) ] in
          close ~what:"jit slice" (map (fun x -> x +. 1.) (slice ah [| (3, 5); (i, i + 2) |])) (Tiny_jit.call jf [ x ]))
        (range 1 5);
      check_cache_len ~what:"slice" 1 jf);
  ("slice_var_shape", fun () ->
      let jf = jit1 add1 in
      List.iter (fun i ->
          let a = Tensor.realize (Tensor.contiguous (Tensor.Sym.ones [| bi i; s 11 |])) in
          let x = Tensor.getitem a [ S (None, None, None); S (Some 1, Some 2, None) ] in
          close ~what:"jit ones(vi, 11)[:, 1:2] + 1" (init [| i; 1 |] (fun _ -> 2.))
            (window (Tiny_jit.call jf [ x ]) [| i; 1 |])) (range 1 5);
      check_cache_len ~what:"slice_var_shape" 1 jf);
  ("ones_sum", fun () ->
      let jf = jit1 (fun a -> Tensor.realize (Tensor.sum a)) in
      let t = Tensor.realize (Tensor.contiguous (Tensor.ones [| 10 |])) in
      List.iter (fun i ->
          let got = Tensor.item (Tiny_jit.call jf [ shrink_axis t 0 (z, bi i) ]) in
          if got <> float_of_int i then fail "jit ones[:%d].sum() = %g" i got) (range 1 5));
  ("mean", fun () -> reduce_check ~what:"jit mean" fmean (jit_reduce (fun ?axis x -> Tensor.mean ?axis x)));
  ("mean_2d", fun () -> reduce_check ~two:true ~what:"jit mean" fmean (jit_reduce (fun ?axis x -> Tensor.mean ?axis x)));
  ("var", fun () -> reduce_check ~what:"jit var" fvar (jit_reduce (fun ?axis x -> Tensor.var ?axis x)));
  ("var_2d", fun () -> reduce_check ~two:true ~what:"jit var" fvar (jit_reduce (fun ?axis x -> Tensor.var ?axis x)));
  (* test_jit.py test_hcq_core_id_runtimevar_merge: a bound Variable as a JIT argument *)
  ("variable_argument", fun () ->
      let n = 4096 in
      let va = Variable.create "a" 0 n in
      let jf = Tiny_jit.create_list_v (fun ts vs ->
          match ts, vs with
          | [ x ], [ st ] ->
            let y = Tensor.realize (Tensor.contiguous (Tensor.add x (Tensor.scalar 1.))) in
            let zz = Tensor.realize (Tensor.contiguous (Tensor.Sym.shrink x [| (st, Sint.(st + s n)) |])) in
            [ y; zz ]
          | _ -> fail "one tensor and one Variable expected") in
      let xh = { sh = [| 2 * n |]; d = Array.init (2 * n) float_of_int } in
      let x = t_of xh in
      List.iter (fun st ->
          match Tiny_jit.call_v jf [ x ] [ Variable.bind va st ] with
          | [ y; zz ] ->
            close ~what:"x + 1" (map (fun v -> v +. 1.) xh) y;
            close ~what:"x[st:st+N]" (slice xh [| (st, st + n) |]) zz
          | _ -> fail "two outputs expected") [ 0; 0; 0; 5; 17 ]);
]

(* ---------- test/null/test_symbolic_tensor.py: shapes ---------- *)

let shape_tests : case list = [
  ("broadcast_symbolic", fun () ->
      let v = Variable.to_sint (Variable.create "v" 1 10) in
      let bc l = Uop.broadcast_shape l in
      check_sym_shape ~what:"(v,) (1,)" [ v ] (Tensor.Sym.zeros (Array.of_list (bc [ [ v ]; [ s 1 ] ])));
      check_bool ~what:"(v,) ()" true (Uop.equal_sints (bc [ [ v ]; [] ]) [ v ]);
      check_bool ~what:"(v,) (v,)" true (Uop.equal_sints (bc [ [ v ]; [ v ] ]) [ v ]);
      check_invalid_arg ~what:"(v,) (5,)" (fun () -> bc [ [ v ]; [ s 5 ] ]));
  ("broadcast_symbolic_vmin_zero", fun () ->
      (* a symbolic dim that may be 0 still broadcasts against 1 to itself *)
      let v0 = Variable.to_sint (Variable.create "v0" 0 10) in
      let bc l = Uop.broadcast_shape l in
      check_bool ~what:"(v0,) (1,)" true (Uop.equal_sints (bc [ [ v0 ]; [ s 1 ] ]) [ v0 ]);
      check_bool ~what:"(v0,) ()" true (Uop.equal_sints (bc [ [ v0 ]; [] ]) [ v0 ]);
      check_bool ~what:"(3, v0) (3, 1)" true (Uop.equal_sints (bc [ [ s 3; v0 ]; [ s 3; s 1 ] ]) [ s 3; v0 ]);
      check_invalid_arg ~what:"(v0,) (5,)" (fun () -> bc [ [ v0 ]; [ s 5 ] ]));
  ("cat_dim0_is_expanded", fun () ->
      let vi = Variable.bind (Variable.create "i" 1 5) 3 and vj = Variable.bind (Variable.create "j" 1 5) 3
      and vk = Variable.bind (Variable.create "k" 1 5) 3 in
      let r sh = t_of (rand_h sh) in
      let t = Tensor.cat ~dim:0 [ Tensor.cat ~dim:0 [ shrink_axis (r [| 5; 4 |]) 0 (z, vi); shrink_axis (r [| 5; 4 |]) 0 (z, vj) ];
                                  shrink_axis (r [| 5; 4 |]) 0 (z, vk) ] in
      check_sym_shape ~what:"cat i j k" [ Sint.(vi + vj + vk); s 4 ] t;
      let t = Tensor.cat ~dim:0 [ Tensor.cat ~dim:0 [ shrink_axis (r [| 5; 3 |]) 0 (z, vi); shrink_axis (r [| 5; 3 |]) 0 (z, vi) ];
                                  r [| 3; 3 |] ] in
      check_sym_shape ~what:"cat i i 3" [ Sint.((s 2 * vi) + s 3); s 3 ] t);
  ("cat_dim1_strides", fun () ->
      let vi = Variable.bind (Variable.create "i" 1 5) 4 and vj = Variable.bind (Variable.create "j" 1 5) 4
      and vk = Variable.bind (Variable.create "k" 1 5) 4 in
      let r () = t_of (rand_h [| 3; 5 |]) in
      let t = Tensor.cat ~dim:1 [ Tensor.cat ~dim:1 [ shrink_axis (r ()) 1 (z, vi); shrink_axis (r ()) 1 (z, vj) ];
                                  shrink_axis (r ()) 1 (z, vk) ] in
      check_sym_shape ~what:"cat dim 1" [ s 3; Sint.(vi + vj + vk) ] t);
  ("shrink_unbind", fun () ->
      let v = Variable.create "v" 1 100 in
      let bv = Variable.bind v 2 in
      List.iter (fun t ->
          match List.filter (fun u -> Variable.is_bound (Sint.of_uop u)) (Uop.toposort (Tensor.uop t)) with
          | [ b ] ->
            let v', n = Variable.unbind (Sint.of_uop b) in
            check_bool ~what:"the Variable" true (Variable.equal v v');
            check_int ~what:"its value" 2 n
          | l -> fail "%d bound Variables, expected 1" (List.length l))
        [ Tensor.Sym.shrink (t_of (rand_h [| 3; 4 |])) [| (z, bv); (z, s 4) |];
          Tensor.Sym.shrink (t_of (rand_h [| 3; 4 |])) [| (bv, Sint.(bv + s 1)); (z, s 4) |] ]);
  ("reshape", fun () ->
      let a = t_of (rand_h [| 5; 4 |]) and b = t_of (rand_h [| 5; 6 |]) in
      List.iter (fun i ->
          let vi = Variable.bind (Variable.create "i" 1 5) i in
          check_sym_shape ~what:"(vi, 4)" [ vi; s 4 ] (Tensor.Sym.reshape (shrink_axis a 0 (z, vi)) [| vi; s 4 |]);
          check_sym_shape ~what:"(vi, 2, 3)" [ vi; s 2; s 3 ] (Tensor.Sym.reshape (shrink_axis b 0 (z, vi)) [| vi; s 2; s 3 |]))
        (range 1 6));
  ("two_symbol_reshape", fun () ->
      let t = t_of (rand_h [| 5; 5 |]) in
      List.iter (fun (i, j) ->
          let vi = Variable.bind (Variable.create "i" 1 5) i and vj = Variable.bind (Variable.create "j" 1 5) j in
          let r = Tensor.Sym.reshape (sym_shrink t [| (z, vi); (z, vj) |]) [| vj; vi |] in
          check_sym_shape ~what:"(vj, vi)" [ vj; vi ] r;
          let r = Tensor.Sym.reshape r [| vi; vj |] in
          check_sym_shape ~what:"(vi, vj)" [ vi; vj ] r;
          check_sym_shape ~what:"(1, vi*vj)" [ s 1; Sint.(vi * vj) ] (Tensor.Sym.reshape r [| s 1; Sint.(vi * vj) |]))
        (pairs (range 1 6) (range 1 6)));
  ("expand_into_symbols", fun () ->
      let vi = Variable.bind (Variable.create "i" 1 5) 3 and vj = Variable.bind (Variable.create "j" 1 5) 3 in
      let a = Tensor.Sym.expand (Tensor.of_float_array [| 3; 1 |] [| 1.; 2.; 3. |]) [| s 3; vi |] in
      check_sym_shape ~what:"(3, vi)" [ s 3; vi ] a;
      let a = Tensor.Sym.expand (Tensor.Sym.reshape a [| s 3; vi; s 1 |]) [| s 3; vi; vj |] in
      check_sym_shape ~what:"(3, vi, vj)" [ s 3; vi; vj ] a);
  ("plus_expands_constant", fun () ->
      let a = t_of (rand_h [| 3; 5 |]) in
      List.iter (fun i ->
          let vi = Variable.bind (Variable.create "i" 1 5) i in
          check_sym_shape ~what:"a[:, :vi] + 1" [ s 3; vi ] (Tensor.add (shrink_axis a 1 (z, vi)) (Tensor.scalar 1.)))
        (range 1 6));
  ("pad_then_expand_into_symbols", fun () ->
      let vi = Variable.bind (Variable.create "i" 1 10) 3 in
      let a = Tensor.unsqueeze (Tensor.pad (Tensor.unsqueeze (Tensor.scalar_int 1) 0) [| (0, 24) |]) 0 in
      let a = Tensor.Sym.expand a [| vi; s 25 |] in
      check_sym_shape ~what:"(vi, 25)" [ vi; s 25 ] a;
      check_sym_shape ~what:"reshape 25*vi" [ Sint.(vi * s 25) ] (Tensor.Sym.reshape a [| Sint.(s 25 * vi) |]);
      check_sym_shape ~what:"reshape vi*25" [ Sint.(vi * s 25) ] (Tensor.Sym.reshape a [| Sint.(vi * s 25) |]));
  ("shrink_symbols_simple", fun () ->
      let vi = Variable.to_sint (Variable.create "i" 1 5) in
      check_sym_shape ~what:"(5, vi)" [ s 5; vi ] (Tensor.Sym.shrink (t_of (rand_h [| 5; 5 |])) [| (z, s 5); (z, vi) |]));
  ("shrink_symbols", fun () ->
      let vi = Variable.to_sint (Variable.create "i" 1 5) in
      check_sym_shape ~what:"(2, 1)" [ s 2; s 1 ]
        (Tensor.Sym.shrink (t_of (rand_h [| 3; 5 |])) [| (z, s 2); (vi, Sint.(vi + s 1)) |]));
]

(* ---------- more ops on a symbolic axis (tinygrad 0.14.0 computes them; not in its test files) ---------- *)

(* [f x] for x = a[:, :vi] of a (4, 10) array, read back as its (4, i) window, against [oracle] of the (4, i) slice *)
let sym_op_check ~what ?(out = fun i -> [| 4; i |]) (oracle : h -> h) (f : Tensor.t -> Tensor.t) =
  let ah = rand_h [| 4; 10 |] in
  let a = t_of ah in
  List.iter (fun i ->
      close ~what:(Printf.sprintf "%s at i=%d" what i) (oracle (slice ah [| (0, 4); (0, i) |]))
        (window (f (shrink_axis a 1 (z, bi i))) (out i))) [ 1; 3; 7 ]

let extra_tests : case list = [
  ("cumsum", fun () ->
      sym_op_check ~what:"cumsum axis 1" (fun h -> init h.sh (fun ix ->
          let r = ref 0. in for c = 0 to ix.(1) do r := !r +. get h [| ix.(0); c |] done; !r)) (Tensor.cumsum ~axis:1);
      sym_op_check ~what:"cumsum axis 0" (fun h -> init h.sh (fun ix ->
          let r = ref 0. in for c = 0 to ix.(0) do r := !r +. get h [| c; ix.(1) |] done; !r)) (Tensor.cumsum ~axis:0));
  ("tril_triu", fun () ->
      sym_op_check ~what:"tril" (fun h -> init h.sh (fun ix -> if ix.(1) <= ix.(0) then get h ix else 0.)) (fun x -> Tensor.tril x);
      sym_op_check ~what:"triu 1" (fun h -> init h.sh (fun ix -> if ix.(1) >= ix.(0) + 1 then get h ix else 0.))
        (fun x -> Tensor.triu ~diagonal:1 x));
  ("argmax_concrete_axis", fun () ->
      sym_op_check ~what:"argmax axis 0" ~out:(fun i -> [| i |]) (fun h -> init [| h.sh.(1) |] (fun ix ->
          let best = ref 0 in
          for r = 1 to 3 do if get h [| r; ix.(0) |] > get h [| !best; ix.(0) |] then best := r done;
          float_of_int !best)) (fun x -> Tensor.argmax ~axis:0 x);
      check_invalid_arg ~what:"argmax over the symbolic axis" (fun () ->
          Tensor.argmax ~axis:1 (shrink_axis (t_of (rand_h [| 4; 10 |])) 1 (z, bi 3))));
  ("gather_symbolic_index", fun () ->
      (* x.gather(0, idx) with idx of shape (2, vi): x[idx[r][c]][c] *)
      let idx_h = { sh = [| 2; 10 |]; d = Array.init 20 (fun k -> float_of_int ((k * 3) mod 4)) } in
      let idx = Tensor.realize (Tensor.of_int_array [| 2; 10 |] (Array.map int_of_float idx_h.d)) in
      sym_op_check ~what:"gather" ~out:(fun i -> [| 2; i |])
        (fun h -> init [| 2; h.sh.(1) |] (fun ix -> get h [| int_of_float (get idx_h ix); ix.(1) |]))
        (fun x -> Tensor.gather x ~dim:0 (shrink_axis idx 1 (z, (Tensor.Sym.shape x).(1)))));
  ("arange", fun () ->
      List.iter (fun i ->
          let got = Tensor.to_int_array (window (Tensor.Sym.arange (bi i)) [| i |]) in
          if got <> Array.init i Fun.id then fail "arange(%d): [%s]" i
              (String.concat "; " (Array.to_list (Array.map string_of_int got)))) [ 1; 4; 10 ]);
  ("max_pool2d", fun () ->
      let ah = rand_h [| 1; 2; 10; 10 |] in
      let a = t_of ah in
      List.iter (fun i ->
          let e = init [| 1; 2; i / 2; 5 |] (fun ix ->
              let m = ref Float.neg_infinity in
              for dy = 0 to 1 do for dx = 0 to 1 do
                  m := Float.max !m (get ah [| 0; ix.(1); (2 * ix.(2)) + dy; (2 * ix.(3)) + dx |]) done done;
              !m) in
          close ~what:(Printf.sprintf "max_pool2d at i=%d" i) e
            (window (Tensor.max_pool2d (shrink_axis a 2 (z, bi i))) [| 1; 2; i / 2; 5 |])) [ 2; 4; 6 ]);
  ("causal_attention", fun () ->
      (* is_causal: row r of the scores keeps columns <= r *)
      let qh = rand_h [| 1; 10; 4 |] in
      let q = t_of qh in
      List.iter (fun i ->
          let qs = slice qh [| (0, 1); (0, i); (0, 4) |] in
          let e = init [| 1; i; 4 |] (fun ix ->
              let r = ix.(1) in
              let sc = Array.init (r + 1) (fun c ->
                  let d = ref 0. in for k = 0 to 3 do d := !d +. get qs [| 0; r; k |] *. get qs [| 0; c; k |] done; !d /. 2.) in
              let m = Array.fold_left Float.max Float.neg_infinity sc in
              let ex = Array.map (fun x -> Float.exp (x -. m)) sc in
              let tot = Array.fold_left ( +. ) 0. ex in
              let acc = ref 0. in
              Array.iteri (fun c w -> acc := !acc +. w /. tot *. get qs [| 0; c; ix.(2) |]) ex;
              !acc) in
          let x = shrink_axis q 1 (z, bi i) in
          close ~what:(Printf.sprintf "causal sdpa at i=%d" i) e
            (window (Tensor.scaled_dot_product_attention ~is_causal:true x x x) [| 1; i; 4 |])) [ 1; 2; 5 ]);
]

let view_tests : case list = [
  (* tinygrad TestSymbolicContiguousViewOffset *)
  ("shrink_from_start", fun () ->
      let v = Variable.bind (Variable.create "v" 1 10) 5 in
      let t = Tensor.Sym.shrink (t_of (rand_h [| 10 |])) [| (z, v) |] in
      match Callify.contiguous_view (Tensor.uop t) with
      | Some (_, off) -> check_int ~what:"offset" 0 off
      | None -> fail "t[:v] is not a contiguous view");
  ("shrink_with_offset", fun () ->
      let v = Variable.bind (Variable.create "v" 1 7) 4 in
      let t = Tensor.Sym.shrink (t_of (rand_h [| 10 |])) [| (s 3, Sint.(s 3 + v)) |] in
      match Callify.contiguous_view (Tensor.uop t) with
      | Some (_, off) -> check_int ~what:"offset" 3 off
      | None -> fail "t[3:3+v] is not a contiguous view");
]

(* ---------- the Sint and Variable API ---------- *)

let api_tests : case list = [
  ("sint_arithmetic", fun () ->
      let v = Variable.create "n" 2 9 in
      let n = Variable.to_sint v in
      check_bool ~what:"ints fold" true (Sint.equal (s 7) Sint.(s 3 + s 4));
      check_int ~what:"floor division of ints" (-2) (Sint.to_int_exn Sint.(s (-3) / s 2));
      check_bool ~what:"n*2 - n = n" true (Sint.equal n Sint.((n * s 2) - n));
      check_bool ~what:"symbolic" true (Sint.is_symbolic Sint.(n + s 1));
      check_bool ~what:"to_int of a Variable" true (Sint.to_int n = None);
      check_bool ~what:"bounds (n+1)*2" true (Sint.bounds Sint.((n + s 1) * s 2) = (6, 20));
      check_int ~what:"eval (n+1)//2 at n=6" 3 (Sint.eval ~var_vals:[ ("n", 6) ] Sint.((n + s 1) / s 2));
      check_int ~what:"eval of a bound Variable" 5 (Sint.eval Sint.(Variable.bind v 4 + s 1));
      check_invalid_arg ~what:"to_int_exn of a Variable" (fun () -> Sint.to_int_exn n);
      check_invalid_arg ~what:"division by 0" (fun () -> Sint.(n / s 0)));
  ("variable_bind", fun () ->
      let v = Variable.create "m" 1 8 in
      check_str ~what:"name" "m" (Variable.name v);
      check_bool ~what:"bounds" true (Variable.bounds v = (1, 8));
      let b = Variable.bind v 5 in
      check_bool ~what:"bound" true (Variable.is_bound b);
      check_int ~what:"value" 5 (Variable.value b);
      check_bool ~what:"unbind" true (Variable.equal (fst (Variable.unbind b)) v);
      check_bool ~what:"a Variable is hash-consed" true (Variable.equal v (Variable.create "m" 1 8));
      check_bool ~what:"variables" true (List.map Variable.name (Variable.variables Sint.(b * s 2 + Variable.to_sint var_j)) = [ "j"; "m" ]);
      check_invalid_arg ~what:"bind out of range" (fun () -> Variable.bind v 9);
      check_invalid_arg ~what:"min > max" (fun () -> Variable.create "bad" 3 2);
      check_invalid_arg ~what:"unbind an int" (fun () -> Variable.unbind (s 3)));
  ("shape_of_symbolic_raises", fun () ->
      let t = shrink_axis (t_of (rand_h [| 3; 10 |])) 1 (z, bi 4) in
      match Tensor.shape t with
      | _ -> fail "Tensor.shape of a symbolic shape returned"
      | exception Invalid_argument m ->
        check_bool ~what:("message names Tensor.Sym.shape: " ^ m) true
          (let k = "Tensor.Sym.shape" in
           let rec has i = i + String.length k <= String.length m && (String.sub m i (String.length k) = k || has (i + 1)) in
           has 0));
  ("pad_value_and_int_pad", fun () ->
      let ah = rand_h [| 2; 10 |] in
      let a = t_of ah in
      List.iter (fun i ->
          let x = shrink_axis a 1 (z, bi i) in
          let e = init [| 2; i + 3 |] (fun ix -> if ix.(1) >= 1 && ix.(1) <= i then get ah [| ix.(0); ix.(1) - 1 |] else 7.) in
          close ~what:"Sym.pad ~value:7" e (window (Tensor.Sym.pad ~value:7. x [| (z, z); (s 1, s 2) |]) [| 2; i + 3 |]);
          close ~what:"Tensor.pad ~value:7 on a symbolic dim" e (window (Tensor.pad ~value:7. x [| (0, 0); (1, 2) |]) [| 2; i + 3 |]))
        [ 1; 4 ];
      check_invalid_arg ~what:"a negative symbolic pad" (fun () ->
          Tensor.Sym.pad (t_of ah) [| (z, z); (z, Sint.(s 3 - bi 5)) |]));
  ("call_v_variables_must_match", fun () ->
      let v2 = Variable.create "k" 1 10 in
      let jf = Tiny_jit.create_v (fun ts vs -> match ts, vs with
          | [ a ], [ n ] -> Tensor.realize (Tensor.sum (Tensor.Sym.shrink a [| (z, n) |]))
          | _ -> fail "one tensor and one Variable expected") in
      let a = t_of { sh = [| 10 |]; d = Array.init 10 float_of_int } in
      List.iter (fun n ->
          let got = Tensor.item (Tiny_jit.call_v jf [ a ] [ bi n ]) in
          if got <> float_of_int (n * (n - 1) / 2) then fail "sum of [0, %d) = %g" n got) [ 3; 5; 9; 2 ];
      check_invalid_arg ~what:"another Variable on replay" (fun () -> Tiny_jit.call_v jf [ a ] [ Variable.bind v2 3 ]));
  ("to_string_symbolic", fun () ->
      let t = shrink_axis (Tensor.zeros [| 3; 10 |]) 1 (z, bi 4) in
      check_str ~what:"to_string" "<Tensor shape=(3, i) dtype=dtypes.float device=CPU (symbolic)>" (Tensor.to_string t));
  ("call_v_rejects_unbound", fun () ->
      let jf = Tiny_jit.create_v (fun ts _ -> List.hd ts) in
      check_invalid_arg ~what:"an int as a Variable argument" (fun () -> Tiny_jit.call_v jf [ t_of (rand_h [| 2 |]) ] [ s 3 ]));
]

(* ---------- a KV cache at a symbolic start_pos under the JIT (tinygrad examples/gpt2.py Attention) ---------- *)

let kv_tests : case list = [
  ("kv_cache_jit", fun () ->
      let max_context = 8 and heads = 2 and hd = 4 in
      let dim = heads * hd in
      let wq = t_of (rand_h [| dim; dim |]) and wk = t_of (rand_h [| dim; dim |]) and wv = t_of (rand_h [| dim; dim |]) in
      let new_cache () = Tensor.realize (Tensor.contiguous (Tensor.zeros [| 2; 1; max_context; heads; hd |])) in
      (* one decoding step of x (1, 1, dim) at start_pos: the cache window [start_pos, start_pos+1) is assigned the new
         key and value, and the query attends to the cache's [0, start_pos+1) *)
      let step cache x (sp : Sint.t) =
        let proj w = Tensor.reshape (Tensor.matmul x w) [| 1; 1; heads; hd |] in
        let q = proj wq and k = proj wk and v = proj wv in
        let win = Tensor.Sym.shrink cache [| (z, s 2); (z, s 1); (sp, Sint.(sp + s 1)); (z, s heads); (z, s hd) |] in
        ignore (Tensor.realize (Tensor.assign win (Tensor.stack [ k; v ])));
        let part c = Tensor.squeeze ~dim:0
            (Tensor.Sym.shrink cache [| (s c, s (c + 1)); (z, s 1); (z, Sint.(sp + s 1)); (z, s heads); (z, s hd) |]) in
        let o = Tensor.scaled_dot_product_attention (tr12 q) (tr12 (part 0)) (tr12 (part 1)) in
        Tensor.realize (Tensor.reshape (tr12 o) [| 1; 1; dim |]) in
      let jit_cache = new_cache () and plain_cache = new_cache () in
      let sp_var = Variable.create "start_pos" 1 (max_context - 1) in
      let jf = Tiny_jit.create_v (fun ts vs ->
          match ts, vs with [ x ], [ sp ] -> step jit_cache x sp | _ -> fail "one tensor and start_pos expected") in
      let first = ref None in
      for p = 0 to max_context - 1 do
        let x = t_of (rand_h [| 1; 1; dim |]) in
        (* the reference: concrete shapes, no JIT, its own cache *)
        let expected = step plain_cache x (s p) in
        let eh = { sh = [| 1; 1; dim |]; d = Tensor.to_float_array expected } in
        (* start_pos 0 runs outside the JIT, as gpt2.py's prompt does (an int start_pos) *)
        let got = if p = 0 then step jit_cache x (s 0) else Tiny_jit.call_v jf [ x ] [ Variable.bind sp_var p ] in
        close ~atol:1e-6 ~rtol:1e-6 ~what:(Printf.sprintf "start_pos=%d" p) eh got;
        if p = 2 then first := Tiny_jit.captured jf
      done;
      check_captured_once ~what:"kv cache" jf !first;
      check_int ~what:"calls" (max_context - 1) (Tiny_jit.cnt jf);
      (* the caches agree: the JIT's assigns wrote every position *)
      close ~atol:1e-6 ~rtol:1e-6 ~what:"cache" { sh = Tensor.shape plain_cache; d = Tensor.to_float_array plain_cache } jit_cache);
]

let tests : case list =
  List.map (fun (n, f) -> ("ops_" ^ n, f)) ops_tests @ List.map (fun (n, f) -> ("jit_" ^ n, f)) jit_tests
  @ List.map (fun (n, f) -> ("shape_" ^ n, f)) (shape_tests @ view_tests) @ List.map (fun (n, f) -> ("extra_" ^ n, f)) extra_tests
  @ api_tests @ kv_tests
