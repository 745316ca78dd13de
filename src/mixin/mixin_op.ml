(* tinygrad: mixin/op.py (OpMixin) — the composite tensor ops, as functions over UOps.
   Tensor (src/tensor.ml) wraps these; the graphs are the ones tinygrad builds, op for op. *)

open Uop

type ints = int list

(* ---------- local helpers: the pieces of tinygrad's mixins/helpers that op.py calls ---------- *)

(* tinygrad helpers.ceildiv on ints *)
let ceildiv a b = - (Z.to_int (Z.fdiv (Z.of_int (-a)) (Z.of_int b)))
(* tinygrad helpers.round_up *)
let round_up n a = ceildiv n a * a
let prod l = List.fold_left ( * ) 1 l
let range n = List.init (max n 0) Fun.id
let rec take n l = if n <= 0 then [] else match l with [] -> [] | x :: r -> x :: take (n - 1) r
let rec drop n l = if n <= 0 then l else match l with [] -> [] | _ :: r -> drop (n - 1) r
let ci n = Dtype.I (Z.of_int n)

(* the int shape of a node; symbolic shapes are refused *)
let ishape (u : t) : ints =
  List.map (function Sint i -> i | Suop _ -> invalid_arg "mixin_op: symbolic shapes are not supported") (shape u)
let ndim u = List.length (shape u)
let dims l = List.map (fun i -> Sint i) l

(* tinygrad MovementMixin._resolve_dim *)
let resolve_dim ?(extra = false) u dim = Mixin_movement.resolve_dim ~extra u dim

(* ---- int-shape adapters onto the shared mixins (mixin_movement / mixin_reduce / mixin_elementwise / mixin_dtype) ---- *)
module Pre = struct
  module Mv = Mixin_movement
  module R = Mixin_reduce
  module E = Mixin_elementwise

  let reshape u (s : ints) = Mv.reshape u (dims s)
  let permute = Mv.permute
  let expand u (s : ints) = Mv.expand u (dims s)
  let shrink_to u (s : int option list) = Mv.shrink_to u (List.map (Option.map (fun i -> Sint i)) s)
  let unsqueeze = Mv.unsqueeze
  let squeeze u dim = Mv.squeeze ~dim u
  let transpose u dim0 dim1 = Mv.transpose ~dim0 ~dim1 u
  let flatten = Mv.flatten
  let unflatten u dim (sizes : ints) = Mv.unflatten u dim (dims sizes)
  let pool = Mv.pool

  let sum = R.sum
  let max_ = R.max
  let prod_ = R.prod
  let mean = R.mean
  let pad_constant = R.pad_constant

  let cast dt u = Mixin_dtype.cast u dt
  let add = E.add
  let sub = E.sub
  let mul = E.mul
  let div a b = E.div a b
  let neg = E.neg
  let where = E.where
  let eq = E.eq
  let ne = E.ne
  let lt = E.lt
  let le = E.le
  let ge = E.ge
  let and_ = E.bitwise_and
  let reciprocal = E.reciprocal
  let exp = E.exp
  let log = E.log
  let rsqrt = E.rsqrt
  let detach = E.detach
  let inverse = E.inverse
  let usum = E.usum
  let uprod = E.uprod
  let alu2 op a b = alu op [ a; b ]
end

open Pre

(* ---------- creation (op.py classmethods) ---------- *)

(* tinygrad CreationMixin.full(..., buffer=False): a broadcast CONST *)
let full_const ~dtype (shape_ : ints) (v : Dtype.const) =
  let value = const ~dtype v in
  expand (reshape value (List.map (fun _ -> 1) shape_)) shape_

let is_int_const = function Dtype.I _ -> true | _ -> false
let cnum_sub a b = match a, b with
  | Dtype.I x, Dtype.I y -> Dtype.I (Z.sub x y)
  | _ -> Dtype.F (Dtype.const_to_float a -. Dtype.const_to_float b)
let cnum_lt a b = Dtype.compare_const a b < 0

(* tinygrad OpMixin._cumalu *)
let cumalu u axis op =
  let sh = ishape u in
  let n = List.length sh in
  let sa = List.nth sh (if axis < 0 then axis + n else axis) in
  if sa = 0 then invalid_arg "cumalu: empty axis";
  let pads = List.init (n - 1) (fun _ -> None) @ [ Some (sa - 1, 0) ] in
  let pooled = pool (pad_constant (transpose u axis (-1)) pads (identity_element op u.dtype)) [ sa ] in
  let r = match op with
    | Ops.Add -> sum ~axis:[ -1 ] pooled
    | Ops.Max -> max_ ~axis:[ -1 ] pooled
    | Ops.Mul -> prod_ ~axis:[ -1 ] pooled
    | _ -> invalid_arg "cumalu: op must be ADD, MAX or MUL" in
  transpose r axis (-1)

(* tinygrad OpMixin.arange with python numbers [start], [stop], [step] *)
let arange_gen ?dtype ~start ~stop ~step () =
  let is_neg_step = cnum_lt step (ci 0) in
  let lo, hi = if not is_neg_step then (start, cnum_sub stop step) else (cnum_sub stop step, start) in
  let dtype = match dtype with
    | Some d -> d
    | None ->
      if not (is_int_const start && is_int_const stop && is_int_const step) then Dtype.default_float ()
      else let d = Dtype.default_int () in
        if cnum_lt lo (Dtype.min d) || cnum_lt (Dtype.max d) hi then Dtype.Int64 else d in
  if cnum_lt lo (Dtype.min dtype) || cnum_lt (Dtype.max dtype) hi then
    invalid_arg (Printf.sprintf "arange: [%s, %s) is not representable in dtype %s"
                   (Dtype.const_to_string start) (Dtype.const_to_string stop) (Dtype.to_string dtype));
  (* ceildiv(stop - start, step), as python computes it *)
  let output_len = match cnum_sub stop start, step with
    | Dtype.I a, Dtype.I b -> ceildiv (Z.to_int a) (Z.to_int b)
    | a, b -> let q = Float.floor (Dtype.const_to_float a /. (-. Dtype.const_to_float b)) in - (int_of_float q) in
  if output_len <= 0 then full_const ~dtype [ 0 ] (ci 0)
  else cast dtype (add (cumalu (full_const ~dtype [ output_len ] step) 0 Ops.Add) (const (cnum_sub start step)))

(* tinygrad OpMixin.arange(start, stop, step) on ints *)
let arange ?(start = 0) ?(step = 1) ?dtype stop = arange_gen ?dtype ~start:(ci start) ~stop:(ci stop) ~step:(ci step) ()

(* tinygrad OpMixin.linspace *)
let linspace ?dtype start stop steps =
  if steps < 0 then invalid_arg "linspace: number of steps must be non-negative";
  let dtype = Option.value dtype ~default:(Dtype.default_float ()) in
  if dtype == Dtype.Bool then invalid_arg "linspace: bool dtype is not supported";
  if steps = 1 then full_const ~dtype [ 1 ] (Dtype.F start)
  else cast dtype (add (const_float start)
                     (mul (arange ~dtype:(Dtype.default_float ()) steps) (const_float ((stop -. start) /. float_of_int (steps - 1)))))

(* tinygrad OpMixin.eye *)
let eye ?m ?dtype n =
  let m_ = Option.value m ~default:n in
  if n < 0 || m_ < 0 then invalid_arg (Printf.sprintf "eye: cannot have negative n=%d, m=%d" n m_);
  let out_dtype = Option.value dtype ~default:(Dtype.default_float ()) in
  cast out_dtype (eq (unsqueeze (arange n) (-1)) (arange m_))

(* tinygrad OpMixin._tri *)
let tri r c diagonal = le (add (unsqueeze (arange r) (-1)) (const_int diagonal)) (arange c)

(* tinygrad OpMixin.triu *)
let triu ?(diagonal = 0) u =
  let sh = ishape u in let n = List.length sh in
  if n < 2 then invalid_arg "triu: needs at least 2 dims";
  where (tri (List.nth sh (n - 2)) (List.nth sh (n - 1)) diagonal) u (const_like_int u 0)

(* tinygrad OpMixin.tril *)
let tril ?(diagonal = 0) u =
  let sh = ishape u in let n = List.length sh in
  if n < 2 then invalid_arg "tril: needs at least 2 dims";
  where (tri (List.nth sh (n - 2)) (List.nth sh (n - 1)) (diagonal + 1)) (const_like_int u 0) u

(* tinygrad OpMixin.pad, constant mode, grouped padding (one pair per dim; negative pads crop) *)
let pad_value ?(value = Dtype.F 0.) u (padding : (int * int) option list) =
  if List.length padding <> ndim u then
    invalid_arg (Printf.sprintf "pad: padding length is improper, %d pads for ndim=%d" (List.length padding) (ndim u));
  pad_constant u padding value

(* ---------- indexing ---------- *)

type index = I of int | S of int option * int option * int option | T of t | New | Ellipsis

(* a parsed index: the view (tinygrad's {size, boundary, stride, collapse_dim} dict) and the index *)
type parsed = { v : Mixin_movement.view_index; index : index }

let psize p = match p.v.vsize with Sint i -> i | Suop _ -> invalid_arg "getitem: symbolic sizes are not supported"

(* tinygrad MovementMixin._normalize_indices *)
let normalize_indices u (indices : index list) =
  let ell = List.filter (fun x -> x = Ellipsis) indices |> List.length in
  if ell > 1 then invalid_arg "getitem: indices can only have a single ellipsis";
  let num_real = List.length indices - ell - List.length (List.filter (fun x -> x = New) indices) in
  if num_real > ndim u then invalid_arg (Printf.sprintf "getitem: too many indices (%d) for %dD" num_real (ndim u));
  let fill = List.init (ndim u - num_real) (fun _ -> S (None, None, None)) in
  if ell = 1 then List.concat_map (fun x -> if x = Ellipsis then fill else [ x ]) indices else indices @ fill

(* tinygrad OpMixin._one_hot_along_dim *)
let one_hot_along_dim ?(dim = -1) u num_classes =
  if not (Dtype.is_int u.dtype) then
    invalid_arg ("_one_hot_along_dim: expects int index tensor, getting " ^ Dtype.to_string u.dtype);
  let offset = ndim u - resolve_dim u dim - 1 in
  eq u (reshape (arange num_classes) (num_classes :: List.init offset (fun _ -> 1)))

(* tinygrad OpMixin._getitem (getitem only; setitem is not ported) *)
let rec getitem u (indices : index list) =
  let is_adv = function T _ -> true | _ -> false in
  let sh = ishape u in
  let dim = ref 0 in
  let parsed = List.map (fun index ->
      let size = if index = New then 1 else List.nth sh !dim in
      let p = match index with
        | T t ->
          if not (Dtype.is_int t.dtype) then invalid_arg ("getitem: index dtype " ^ Dtype.to_string t.dtype ^ " is not supported");
          (* treat negative index values *)
          let t = where (lt t (const_int 0)) (add t (const_int size)) t in
          { v = { vsize = Sint size; boundary = (Sint 0, Sint size); stride = 1; collapse_dim = false }; index = T t }
        | New -> { v = Mixin_movement.parse_view_index `None (Sint size); index }
        | I i -> { v = Mixin_movement.parse_view_index (`Int (Sint i)) (Sint size); index }
        | S (a, b, c) -> { v = Mixin_movement.parse_view_index (`Slice (a, b, c)) (Sint size); index }
        | Ellipsis -> invalid_arg "getitem: ellipsis left after normalisation" in
      if index <> New then incr dim; p) (normalize_indices u indices) in
  (* apply view ops then dim injection (None) and collapse (int) *)
  let mops = List.filter (fun p -> p.index <> New) parsed in
  let x = Mixin_movement.apply_view_ops u (List.map (fun p -> p.v) mops) in
  let x_dims = List.filter (fun p -> not p.v.collapse_dim) parsed in
  let x = reshape x (List.map psize x_dims) in
  let tops = x_dims |> List.mapi (fun d p -> (d, p)) |> List.filter (fun (_, p) -> is_adv p.index) in
  if tops = [] then x
  else begin
    let dims = List.map fst tops in
    let tensors = List.map (fun (_, p) -> match p.index with T t -> t | _ -> assert false) tops in
    let big_shape = List.map (function Sint i -> i | Suop _ -> invalid_arg "getitem: symbolic")
        (broadcast_shape (List.map shape tensors)) in
    let d0 = List.hd dims in
    let xs = ishape x in
    let consecutive = dims = List.init (List.length dims) (fun i -> d0 + i) in
    if List.length dims > 1 && consecutive then begin
      (* consecutive tensor indices: linear indexing instead of one-hot masks *)
      let ishp = List.map (List.nth xs) dims in
      let strides = List.mapi (fun i _ -> prod (drop (i + 1) ishp)) ishp in
      let ts = List.map2 (fun t s -> mul t (const_int s)) tensors strides in
      let linear_idx = usum ~start:(List.hd ts) (List.tl ts) in
      let vs = List.map2 (fun t s -> and_ (ge t (const_int 0)) (lt t (const_int s))) tensors ishp in
      let valid = uprod ~start:(List.hd vs) (List.tl vs) in
      let pre = take d0 xs and post = drop (List.nth dims (List.length dims - 1) + 1) xs in
      let x = getitem (reshape x (pre @ [ prod ishp ] @ post))
          (List.map (fun _ -> S (None, None, None)) pre @ [ T (where valid linear_idx (const_int 0)) ]) in
      where (reshape valid (List.map (fun _ -> 1) pre @ big_shape @ List.map (fun _ -> 1) post)) x (const_int 0)
    end else begin
      let xn = List.length xs in
      let pre_reduce_shape = take d0 xs @ big_shape @ drop d0 xs in
      let masks = List.map2 (fun d t ->
          let i = expand (reshape t (ishape t @ List.init (xn - d0) (fun _ -> 1))) pre_reduce_shape in
          one_hot_along_dim ~dim:(d - xn) i (List.nth xs d)) dims tensors in
      let mask = uprod ~start:(List.hd masks) (List.tl masks) in
      let nb = List.length big_shape in
      let reshape_arg = take d0 xs @ List.map (fun _ -> 1) big_shape @ drop d0 xs in
      let x = sum ~axis:(List.map (fun d -> d + nb) dims) ~dtype:x.dtype
          (where mask (reshape x reshape_arg) (const_int 0)) in
      let last = List.nth dims (List.length dims - 1) in
      let permuted = d0 <> 0 && List.length dims <> 1 && dims <> List.init (last - d0 + 1) (fun i -> d0 + i) in
      if permuted then
        permute x (List.init nb (fun i -> d0 + i) @ range d0 @ List.init (ndim x - d0 - nb) (fun i -> d0 + nb + i))
      else x
    end
  end

(* ---------- linear algebra ---------- *)

(* tinygrad OpMixin.dot *)
let dot ?dtype x w =
  let dx = ndim x and dw = ndim w in
  if not (dx > 0 && dw > 0) then invalid_arg (Printf.sprintf "dot: both tensors need to be at least 1D, got %dD and %dD" dx dw);
  let xs = ishape x and ws = ishape w in
  let axis_w = - (min dw 2) in
  if List.nth xs (dx - 1) <> List.nth ws (dw + axis_w) then
    invalid_arg (Printf.sprintf "dot: cannot dot %s and %s" (shape_str (shape x)) (shape_str (shape w)));
  let ones = List.init (min (min (dx - 1) (dw - 1)) 1) (fun _ -> 1) in
  let x' = reshape x (take (dx - 1) xs @ ones @ [ List.nth xs (dx - 1) ]) in
  let w' = transpose (reshape w (take (max 0 (dw - 2)) ws @ ones @ drop (dw + axis_w) ws)) (-1) axis_w in
  cast (match dtype with None -> Dtype.least_upper_dtype [ x'.dtype; w'.dtype ] | Some d -> d)
    (sum ~axis:[ -1 ] ?dtype (mul x' w'))

(* tinygrad OpMixin.matmul *)
let matmul ?(reverse = false) ?dtype x y = if reverse then dot ?dtype y x else dot ?dtype x y

(* tinygrad OpMixin.linear *)
let linear ?bias ?dtype x weight =
  match dtype with
  | Some dt ->
    let x = cast dt x and weight = cast dt weight and bias = Option.map (cast dt) bias in
    let r = if ndim weight = 1 then mul x weight else dot x weight in
    (match bias with Some b -> add r b | None -> r)
  | None ->
    let r = if ndim weight = 1 then mul x weight else dot x weight in
    (match bias with Some b -> add r b | None -> r)

(* ---------- reductions ---------- *)

(* tinygrad OpMixin.logsumexp *)
let logsumexp ?axis ?(keepdim = false) u =
  let axl = Option.map (fun a -> [ a ]) axis in
  let m = detach (max_ ?axis:axl ~keepdim:true u) in
  let m' = if keepdim then m else match axis with
      | Some a -> squeeze m a
      | None -> reshape m (List.filter (( <> ) 1) (ishape m)) in
  add (log (sum ?axis:axl ~keepdim (exp (sub u m)))) m'

(* tinygrad OpMixin._softmax *)
let softmax_parts ?dtype u axis =
  let m = sub u (detach (max_ ~axis:[ axis ] ~keepdim:true u)) in
  let m = match dtype with Some d -> cast d m | None -> m in
  let e = exp m in
  (m, e, sum ~axis:[ axis ] ~keepdim:true e)

(* tinygrad OpMixin.softmax *)
let softmax ?(axis = -1) ?dtype u = let _, e, ss = softmax_parts ?dtype u axis in mul e (reciprocal ss)

(* tinygrad OpMixin.log_softmax *)
let log_softmax ?(axis = -1) ?dtype u = let m, _, ss = softmax_parts ?dtype u axis in sub m (log ss)

(* tinygrad OpMixin.argmax *)
let rec argmax ?axis ?(keepdim = false) u =
  match axis with
  | None -> argmax ~axis:0 ~keepdim (flatten u)
  | Some axis ->
    let axis = resolve_dim u axis in
    let sh = ishape u in
    let n = List.nth sh axis in
    let m = eq u (max_ ~axis:[ axis ] ~keepdim:true u) in
    let idx = mul m (reshape (arange ~start:n ~step:(-1) 0) (n :: List.init (List.length sh - axis - 1) (fun _ -> 1))) in
    cast Dtype.Int32 (sub (const_int n) (max_ ~axis:[ axis ] ~keepdim idx))

(* tinygrad OpMixin.argmin *)
let argmin ?axis ?keepdim u = argmax ?axis ?keepdim (inverse u)

(* ---------- cat / cumulative ops ---------- *)

(* tinygrad OpMixin._split_cumalu: a two-stage scan for long axes *)
let split_cumalu u axis op =
  let axis = resolve_dim u axis in
  let sh = ishape u in
  if sh = [] || List.mem 0 sh then (if op == Ops.Add then cast (sum u).dtype u else u)
  else begin
    let split = 256 in
    let value = identity_element op u.dtype in
    let s = List.nth sh axis in
    if s <= split * 2 then cumalu u axis op
    else begin
      let n = List.length sh in
      let chunks = cumalu (unflatten (pad_constant (transpose u axis (-1))
                                        (List.init (n - 1) (fun _ -> None) @ [ Some (round_up s split - s, 0) ]) value)
                             (-1) [ -1; split ]) (-1) op in
      let cn = ndim chunks in
      let base_ = pad_constant (cumalu (getitem chunks [ Ellipsis; I (-1) ]) (-1) op)
          (List.init (cn - 2) (fun _ -> None) @ [ Some (1, -1) ]) value in
      transpose (getitem (flatten ~start_dim:(-2) (alu2 op chunks (unsqueeze base_ (-1)))) [ Ellipsis; S (Some (- s), None, None) ])
        axis (-1)
    end
  end

(* tinygrad OpMixin.cumsum *)
let cumsum ?(axis = 0) u = split_cumalu u axis Ops.Add

(* tinygrad OpMixin.cumprod *)
let cumprod ~axis u = split_cumalu u axis Ops.Mul

(* ---------- one_hot / gather ---------- *)

(* tinygrad OpMixin.one_hot *)
let one_hot u num_classes =
  if not (Dtype.is_int u.dtype) then invalid_arg ("one_hot: expect integer dtype, getting " ^ Dtype.to_string u.dtype);
  if num_classes < 0 then invalid_arg (Printf.sprintf "one_hot: num_classes must be non-negative, got %d" num_classes);
  where (one_hot_along_dim (getitem u [ Ellipsis; New ]) num_classes) (const_int 1) (const_int 0)

(* tinygrad OpMixin.gather *)
let gather u ~dim index =
  if ndim index <> ndim u then
    invalid_arg (Printf.sprintf "gather: self.ndim must equal index.ndim, %s vs %s" (shape_str (shape u)) (shape_str (shape index)));
  let dim = resolve_dim u dim in
  let sh = ishape u and ish = ishape index in
  List.iteri (fun d (s, i) -> if d <> dim && s < i then
                 invalid_arg (Printf.sprintf "gather: requires self.shape[d] >= index.shape[d] for d != dim, %s vs %s"
                                (shape_str (shape u)) (shape_str (shape index)))) (List.combine sh ish);
  let x = transpose (unsqueeze (shrink_to u (List.mapi (fun d i -> if d <> dim then Some i else None) ish)) (-1)) (-1) dim in
  sum ~axis:[ -1 ] ~dtype:u.dtype (where (one_hot_along_dim (unsqueeze index (-1)) (List.nth sh dim)) x (const_int 0))

(* ---------- pooling and convolution ---------- *)

(* tinygrad helpers.resolve_pool_pads; [padding] of one element is an int *)
let resolve_pool_pads (padding : ints) dims =
  match padding with
  | [ p ] -> List.init (2 * dims) (fun _ -> p)
  | l when List.length l = 2 * dims -> l
  | l when List.length l = dims -> List.rev (List.concat_map (fun p -> [ p; p ]) l)
  | _ -> invalid_arg (Printf.sprintf "Padding must be an int or a sequence of length %d or %d" dims (2 * dims))

(* tinygrad helpers.flat_to_grouped: (left, right, top, bottom, ...) -> (..., (top, bottom), (left, right)) *)
let flat_to_grouped (p : ints) =
  let a = Array.of_list p in
  let n = Array.length a / 2 in
  List.init n (fun i -> (a.(2 * (n - 1 - i)), a.(2 * (n - 1 - i) + 1)))

let make_tuple v n = match v with None -> None | Some [ x ] -> Some (List.init n (fun _ -> x)) | Some l -> Some l

(* tinygrad OpMixin._apply_ceil_mode *)
let apply_ceil_mode u (pads : ints) (k_ : ints) (s_ : ints) (d_ : ints) =
  let sh = ishape u in
  let i_ = drop (List.length sh - List.length k_) sh in
  let g = flat_to_grouped pads in
  let rows = List.map2 (fun (i, d) ((k, s), (pb, pa)) -> (i, d, k, s, pb, pa))
      (List.combine i_ d_) (List.combine (List.combine k_ s_) g) in
  let g = List.map (fun (i, d, k, s, pb, pa) ->
      let o = ceildiv (i + pb + pa - (d * (k - 1) + 1)) s + 1 in
      (pb, pa + s * (o - 1) + (d * (k - 1) + 1) - (i + pb + pa) - max (s * (o - 1) - (pb + i - 1)) 0)) rows in
  List.concat_map (fun (a, b) -> [ a; b ]) (List.rev g)

let pool_setup ?stride u kernel_size =
  let k_ = kernel_size in
  let nk = List.length k_ in
  let s_ = match make_tuple stride nk with None -> k_ | Some s -> s in
  let nd = ndim u in
  (k_, s_, List.init nk (fun i -> i - nk), fun pads -> List.init (nd - nk) (fun _ -> Some (0, 0)) @ List.map Option.some (flat_to_grouped pads))

(* tinygrad OpMixin.avg_pool2d (any number of spatial dims) *)
let avg_pool2d ?(kernel_size = [ 2; 2 ]) ?stride ?(dilation = [ 1 ]) ?(padding = [ 0 ]) ?(ceil_mode = false)
    ?(count_include_pad = true) u =
  let k_, s_, axis, grouped = pool_setup ?stride u kernel_size in
  let d_ = Option.get (make_tuple (Some dilation) (List.length k_)) in
  let pool_ x pads = pool ~stride:s_ ~dilation:d_ (pad_constant x (grouped pads) (Dtype.F 0.)) k_ in
  let reg_pads = resolve_pool_pads padding (List.length k_) in
  let pads = if ceil_mode then apply_ceil_mode u reg_pads k_ s_ d_ else reg_pads in
  if not count_include_pad then div (sum ~axis (pool_ u pads)) (sum ~axis (pool_ (const_like_int u 1) pads))
  else if not ceil_mode then mean ~axis (pool_ u pads)
  else div (sum ~axis (pool_ u pads))
      (sum ~axis (pool_ (const_like_int (pad_constant u (grouped reg_pads) (Dtype.F 0.)) 1) (List.map2 ( - ) pads reg_pads)))

(* tinygrad OpMixin.max_pool2d (values only; return_indices is not ported) *)
let max_pool2d ?(kernel_size = [ 2; 2 ]) ?stride ?(dilation = [ 1 ]) ?(padding = [ 0 ]) ?(ceil_mode = false) u =
  let k_, s_, axis, grouped = pool_setup ?stride u kernel_size in
  let d_ = Option.get (make_tuple (Some dilation) (List.length k_)) in
  let pads = resolve_pool_pads padding (List.length k_) in
  let pads = if ceil_mode then apply_ceil_mode u pads k_ s_ d_ else pads in
  max_ ~axis (pool ~stride:s_ ~dilation:d_ (pad_constant u (grouped pads) (Dtype.min u.dtype)) k_)

(* tinygrad OpMixin.conv2d (any number of spatial dims; no IMAGE / WINO paths) *)
let conv2d ?bias ?(groups = 1) ?(stride = [ 1 ]) ?(dilation = [ 1 ]) ?(padding = [ 0 ]) ?dtype u weight =
  let xs = ishape u and ws = ishape weight in
  if List.length xs < 2 || List.length ws < 2 then invalid_arg "conv2d: input and weight need at least 2 dims";
  let bs = List.nth xs 0 and cin_ = List.nth xs 1 and cout = List.nth ws 0 and cin = List.nth ws 1 in
  let hw = drop 2 ws in
  let nhw = List.length hw in
  let padding_ = resolve_pool_pads padding nhw in
  if not (groups * cin = cin_ && List.length xs = List.length ws) then
    invalid_arg (Printf.sprintf "conv2d: Input Tensor shape %s does not match the shape of the weights %s. (%d vs. %d)"
                   (shape_str (shape u)) (shape_str (shape weight)) (groups * cin) cin_);
  let st = Option.get (make_tuple (Some stride) nhw) and dl = Option.get (make_tuple (Some dilation) nhw) in
  let x = pool ~stride:st ~dilation:dl
      (pad_constant u (List.init (List.length xs - nhw) (fun _ -> Some (0, 0)) @ List.map Option.some (flat_to_grouped padding_)) (Dtype.F 0.))
      hw in
  let rcout = cout / groups in
  let xsh = ishape x in
  let oyx = take (List.length xsh - 2 - nhw) (drop 2 xsh) in
  let no = List.length oyx in
  let x = reshape x ([ bs; groups; cin; 1 ] @ oyx @ hw) in
  let x = expand x ([ bs; groups; cin; rcout ] @ oyx @ hw) in
  let x = permute x ([ 0; 1; 3 ] @ List.init no (fun i -> 4 + i) @ [ 2 ] @ List.init nhw (fun i -> 4 + no + i)) in
  let w = reshape weight ([ 1; groups; rcout ] @ List.init no (fun _ -> 1) @ [ cin ] @ hw) in
  let ret = reshape (sum ~axis:(List.init (1 + no) (fun i -> -1 - i)) ~keepdim:true ?dtype (mul x w)) ([ bs; cout ] @ oyx) in
  match bias with None -> ret | Some b -> add ret (reshape b ([ 1; -1 ] @ List.init nhw (fun _ -> 1)))

(* ---------- normalization ---------- *)

(* tinygrad OpMixin.layernorm *)
let layernorm ?(axis = [ -1 ]) ?(eps = 1e-5) u =
  let y = sub u (mean ~axis ~keepdim:true u) in
  mul y (rsqrt (add (mean ~axis ~keepdim:true (mul y y)) (const_float eps)))

(* tinygrad OpMixin.batchnorm *)
let batchnorm ?(axis = [ 1 ]) u ~weight ~bias ~mean ~invstd =
  let shape_ = List.mapi (fun ax s -> if List.mem ax axis then s else 1) (ishape u) in
  let x = sub u (reshape mean shape_) in
  let x = match weight with Some w -> mul x (reshape w shape_) | None -> x in
  let ret = mul x (if ndim invstd = List.length axis then reshape invstd shape_ else invstd) in
  match bias with Some b -> add ret (reshape b shape_) | None -> ret

(* ---------- losses ---------- *)

type reduction = [ `Mean | `Sum | `None ]

(* tinygrad OpMixin._do_reduction *)
let do_reduction (r : reduction) u = match r with `None -> u | `Sum -> sum u | `Mean -> mean u

(* tinygrad OpMixin.binary_crossentropy *)
let binary_crossentropy ?(reduction = `Mean) u y =
  let one = const_int 1 in
  do_reduction reduction (sub (mul (neg y) (log u)) (mul (sub one y) (log (sub one u))))

(* tinygrad OpMixin.binary_crossentropy_logits *)
let binary_crossentropy_logits ?(reduction = `Mean) ?pos_weight u y =
  let log_p = Mixin_elementwise.logsigmoid u and log_1_minus_p = Mixin_elementwise.logsigmoid (neg u) in
  let one = const_int 1 in
  let pw = match pos_weight with None -> mul one y | Some p -> mul p y in
  do_reduction reduction (neg (add (mul pw log_p) (mul (sub one y) log_1_minus_p)))

(* tinygrad OpMixin.sparse_categorical_crossentropy (class axis -1) *)
let sparse_categorical_crossentropy ?(ignore_index = -1) ?(label_smoothing = 0.0) ?(reduction = `Mean) u y =
  if not (0.0 <= label_smoothing && label_smoothing <= 1.0) then invalid_arg "sparse_categorical_crossentropy: label_smoothing must be in [0.0, 1.0]";
  let log_probs = log_softmax u in
  let loss_mask = if ignore_index <> -1 then ne y (const_int ignore_index) else const_like ~dtype:Dtype.Bool y (Dtype.B true) in
  let sh = ishape u in
  let yy = mul (one_hot_along_dim ~dim:(-1) (unsqueeze y (-1)) (List.nth sh (List.length sh - 1))) (unsqueeze loss_mask (-1)) in
  let smoothing = mul (const_float label_smoothing) (mul (mean ~axis:[ -1 ] log_probs) loss_mask) in
  let unreduced = add (mul (const_float (1. -. label_smoothing)) (sum ~axis:[ -1 ] (mul log_probs yy))) smoothing in
  match reduction with
  | `Mean -> div (neg (sum unreduced)) (sum loss_mask)
  | r -> neg (do_reduction r unreduced)

(* tinygrad OpMixin.cross_entropy: [y] holds class indices or class probabilities *)
let cross_entropy ?(reduction = `Mean) ?(label_smoothing = 0.0) u y =
  if not (0.0 <= label_smoothing && label_smoothing <= 1.0) then invalid_arg "cross_entropy: label_smoothing must be in [0.0, 1.0]";
  let classes_dim = if ndim u = 1 then 0 else 1 in
  let sh = ishape u in
  let y =
    if sh <> ishape y then begin
      let reduced = List.filteri (fun i _ -> i <> classes_dim) sh in
      if reduced <> ishape y then
        invalid_arg (Printf.sprintf "cross_entropy: shape mismatch: %s, %s" (shape_str (shape u)) (shape_str (shape y)));
      one_hot_along_dim ~dim:classes_dim (unsqueeze y classes_dim) (List.nth sh classes_dim)
    end else y in
  let y = add (mul (const_float (1. -. label_smoothing)) y)
      (const_float (label_smoothing /. float_of_int (List.nth (ishape y) classes_dim))) in
  (* python: -(....sum(classes_dim)._do_reduction(reduction)) *)
  neg (do_reduction reduction (sum ~axis:[ classes_dim ] (mul (log_softmax ~axis:classes_dim u) y)))

(* tinygrad OpMixin.nll_loss *)
let nll_loss ?weight ?ignore_index ?(reduction = `Mean) u y =
  let weight = match weight with
    | None -> const_like_int y 1
    | Some w -> reshape (gather w ~dim:0 (flatten y)) (ishape y) in
  let masked_weight = match ignore_index with None -> weight | Some i -> mul weight (ne y (const_int i)) in
  let nll = mul (neg (squeeze (gather u ~dim:1 (unsqueeze y 1)) 1)) masked_weight in
  match reduction with
  | `Mean -> div (sum nll) (sum masked_weight)
  | r -> do_reduction r nll
