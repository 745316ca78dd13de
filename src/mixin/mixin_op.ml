(* tinygrad: mixin/op.py (OpMixin) — the composite tensor ops, as functions over UOps, and [Make], the same ops
   over a carrier (Tensor includes it); the graphs are the ones tinygrad builds, op for op. *)

open Uop

type ints = int list

(* ---------- local helpers: the pieces of tinygrad's mixins/helpers that op.py calls ---------- *)

(* tinygrad helpers.ceildiv on ints *)
let ceildiv a b = - (Z.to_int (Z.fdiv (Z.of_int (-a)) (Z.of_int b)))
(* tinygrad helpers.round_up *)
let round_up n a = ceildiv n a * a
let range n = List.init (max n 0) Fun.id
let ci n = Dtype.I (Z.of_int n)

let ndim u = List.length (shape u)
let dims l = List.map (fun i -> Sint i) l

(* tinygrad MovementMixin._resolve_dim *)
let resolve_dim ?(extra = false) u dim = Mixin_movement.resolve_dim ~extra u dim

(* ---- int-shape adapters onto the shared mixins (mixin_movement / mixin_reduce / mixin_elementwise / mixin_dtype) ---- *)
module Mv = Mixin_movement
module R = Mixin_reduce
module E = Mixin_elementwise

(* the movement ops with int shapes (op.py's shapes are Python ints here) and tinygrad's positional dims *)
let reshape u (s : ints) = Mv.reshape u (dims s)
let expand u (s : ints) = Mv.expand u (dims s)
let shrink_to u (s : int option list) = Mv.shrink_to u (List.map (Option.map (fun i -> Sint i)) s)
let squeeze u dim = Mv.squeeze ~dim u
let transpose u dim0 dim1 = Mv.transpose ~dim0 ~dim1 u
let unflatten u dim (sizes : ints) = Mv.unflatten u dim (dims sizes)
let alu2 op a b = alu op [ a; b ]

(* ---------- creation (op.py classmethods) ---------- *)

(* tinygrad CreationMixin.full(..., buffer=False): a broadcast CONST *)
let full_const ~dtype (shape_ : ints) (v : Dtype.const) = Mixin_creation.full ~dtype ~buffer:false (dims shape_) v

let is_int_const = function Dtype.I _ -> true | _ -> false
let cnum_sub a b = match a, b with
  | Dtype.I x, Dtype.I y -> Dtype.I (Z.sub x y)
  | _ -> Dtype.F (Dtype.const_to_float a -. Dtype.const_to_float b)
let cnum_lt a b = Dtype.compare_const a b < 0

(* tinygrad: OpMixin._pad_constant for non-negative (possibly symbolic) pads: the PAD, and where [value] is not
   zero, a WHERE over the padded-true mask *)
let pad_filled x (pads : (sint * sint) option list) (value : Dtype.const) =
  let base = Mixin_movement.pad x pads in
  let is_zero = match value with
    | Dtype.I z -> Z.equal z Z.zero | Dtype.F f -> f = 0.0 | Dtype.B b -> not b | Dtype.Invalid -> false in
  if is_zero then base
  else Mixin_elementwise.where (Mixin_movement.pad (Uop.const_like ~dtype:Dtype.Bool x (Dtype.B true)) pads) base (Uop.const value)

(* tinygrad: OpMixin._pad_constant (int pads; negative pads crop) *)
let pad_constant x (px : (int * int) option list) (value : Dtype.const) =
  let sh = shape x in
  if List.length px <> List.length sh then
    invalid_arg (Printf.sprintf "pad: padding length is improper, %d pairs for shape %s" (List.length px) (Uop.shape_str (shape x)));
  let px = List.map (function None -> (0, 0) | Some p -> p) px in
  let has_neg = not (List.for_all (fun (b, a) -> b >= 0 && a >= 0) px) in
  let xx = if has_neg then
      Mixin_movement.shrink x (List.map2 (fun (pb, pa) s -> Some (Sint (- (Stdlib.min pb 0)), Uop.sint_add s (Sint (Stdlib.min pa 0)))) px sh)
    else x in
  let pads = if has_neg then List.map (fun (pb, pa) -> (Stdlib.max pb 0, Stdlib.max pa 0)) px else px in
  pad_filled xx (List.map (fun (b, a) -> Some (Sint b, Sint a)) pads) value

(* tinygrad OpMixin._cumalu *)
let cumalu u axis op =
  let sh = shape u in
  let n = List.length sh in
  let sa = List.nth sh (if axis < 0 then axis + n else axis) in
  if sa = Sint 0 then invalid_arg "cumalu: empty axis";
  let pads = List.init (n - 1) (fun _ -> None) @ [ Some (Uop.sint_add sa (Sint (-1)), Sint 0) ] in
  let pooled = Mv.pool_sint (pad_filled (transpose u axis (-1)) pads (identity_element op u.dtype)) [ sa ] in
  let r = match op with
    | Ops.Add -> R.sum ~axis:[ -1 ] pooled
    | Ops.Max -> R.max ~axis:[ -1 ] pooled
    | Ops.Mul -> R.prod ~axis:[ -1 ] pooled
    | _ -> invalid_arg "cumalu: op must be ADD, MAX or MUL" in
  transpose r axis (-1)

(* tinygrad OpMixin.arange with python numbers [start], [stop], [step] *)
let arange_gen ?dtype ~start ~stop ~step () =
  if Dtype.compare_const step (ci 0) = 0 then invalid_arg "arange: step must not be 0";
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
  else Uop.cast dtype (E.add (cumalu (full_const ~dtype [ output_len ] step) 0 Ops.Add) (const (cnum_sub start step)))

(* tinygrad OpMixin.arange(start, stop, step) on ints *)
let arange ?(start = 0) ?(step = 1) ?dtype stop = arange_gen ?dtype ~start:(ci start) ~stop:(ci stop) ~step:(ci step) ()

(* tinygrad OpMixin.arange(start, stop, step) on floats *)
let arange_float ?(start = 0.) ?(step = 1.) ?dtype stop =
  arange_gen ?dtype ~start:(Dtype.F start) ~stop:(Dtype.F stop) ~step:(Dtype.F step) ()

(* tinygrad OpMixin.arange(n) with a possibly symbolic [n] (0, 1, ... n-1 in the default int) *)
let arange_sint (n : sint) =
  match n with
  | Sint n -> arange n
  | Suop _ ->
    let dtype = Dtype.default_int () in
    let ones = Mv.expand (Mv.reshape (const ~dtype (ci 1)) [ Sint 1 ]) [ n ] in
    Uop.cast dtype (E.add (cumalu ones 0 Ops.Add) (const (ci (-1))))

(* tinygrad OpMixin.linspace *)
let linspace ?dtype start stop steps =
  if steps < 0 then invalid_arg "linspace: number of steps must be non-negative";
  let dtype = Option.value dtype ~default:(Dtype.default_float ()) in
  if dtype == Dtype.Bool then invalid_arg "linspace: bool dtype is not supported";
  if steps = 1 then full_const ~dtype [ 1 ] (Dtype.F start)
  else Uop.cast dtype (E.add (const_float start)
                     (E.mul (arange ~dtype:(Dtype.default_float ()) steps) (const_float ((stop -. start) /. float_of_int (steps - 1)))))

(* tinygrad OpMixin.eye *)
let eye ?m ?dtype n =
  let m_ = Option.value m ~default:n in
  if n < 0 || m_ < 0 then invalid_arg (Printf.sprintf "eye: cannot have negative n=%d, m=%d" n m_);
  let out_dtype = Option.value dtype ~default:(Dtype.default_float ()) in
  Uop.cast out_dtype (E.eq (Mv.unsqueeze (arange n) (-1)) (arange m_))

(* tinygrad OpMixin._tri *)
let tri r c diagonal = E.le (E.add (Mv.unsqueeze (arange_sint r) (-1)) (const_int diagonal)) (arange_sint c)

(* tinygrad OpMixin.triu *)
let triu ?(diagonal = 0) u =
  let sh = shape u in let n = List.length sh in
  if n < 2 then invalid_arg "triu: needs at least 2 dims";
  E.where (tri (List.nth sh (n - 2)) (List.nth sh (n - 1)) diagonal) u (const_like_int u 0)

(* tinygrad OpMixin.tril *)
let tril ?(diagonal = 0) u =
  let sh = shape u in let n = List.length sh in
  if n < 2 then invalid_arg "tril: needs at least 2 dims";
  E.where (tri (List.nth sh (n - 2)) (List.nth sh (n - 1)) (diagonal + 1)) (const_like_int u 0) u

(* tinygrad OpMixin.pad, constant mode, grouped padding (one pair per dim; negative pads crop) *)
let pad_value ?(value = Dtype.F 0.) u (padding : (int * int) option list) =
  if List.length padding <> ndim u then
    invalid_arg (Printf.sprintf "pad: padding length is improper, %d pads for ndim=%d" (List.length padding) (ndim u));
  pad_constant u padding value

(* ---------- indexing ---------- *)

type 'a index = 'a Mixin_intf.index = I of int | S of int option * int option * int option | T of 'a | New | Ellipsis

(* a parsed index: the view (tinygrad's {size, boundary, stride, collapse_dim} dict) and the index *)
type parsed = { v : Mixin_movement.view_index; index : Uop.t index }

(* tinygrad MovementMixin._normalize_indices *)
let normalize_indices u (indices : Uop.t index list) =
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
  E.eq u (reshape (arange num_classes) (num_classes :: List.init offset (fun _ -> 1)))

(* tinygrad: OpMixin._masked_merge — if mask repeats indices the last one remains *)
let masked_merge u values mask (axes : int list) =
  let mask, values = List.fold_left (fun (mask, values) dim ->
      match List.combine (Mv.split ~dim mask (`Size 1)) (Mv.split ~dim values (`Size 1)) with
      | first :: rest -> List.fold_left (fun (xm, xv) (ym, yv) -> (E.bitwise_or xm ym, E.where ym yv xv)) first rest
      | [] -> invalid_arg "scatter: empty split") (mask, values) (List.rev axes) in
  let mask, values = List.fold_left (fun (m, v) dim -> (Mv.squeeze ~dim m, Mv.squeeze ~dim v)) (mask, values) (List.rev axes) in
  E.where mask values u

(* tinygrad OpMixin._getitem: with [v], the tensor with [v] written at the indices (setitem's value) *)
let rec getitem_gen ?v u (indices : Uop.t index list) =
  let is_adv = function T _ -> true | _ -> false in
  let sh = shape u in
  let dim = ref 0 in
  let parsed = List.map (fun index ->
      let size = if index = New then Sint 1 else List.nth sh !dim in
      let p = match index with
        | T t ->
          if not (Dtype.is_int t.dtype) then invalid_arg ("getitem: index dtype " ^ Dtype.to_string t.dtype ^ " is not supported");
          let size = match size with Sint n -> n | Suop _ -> invalid_arg "getitem: a tensor index on a symbolic dim" in
          (* treat negative index values *)
          let t = E.where (E.lt t (const_int 0)) (E.add t (const_int size)) t in
          { v = { vsize = Sint size; boundary = (Sint 0, Sint size); stride = 1; collapse_dim = false }; index = T t }
        | New -> { v = Mixin_movement.parse_view_index `None size; index }
        | I i -> { v = Mixin_movement.parse_view_index (`Int (Sint i)) size; index }
        | S (a, b, c) -> { v = Mixin_movement.parse_view_index (`Slice (a, b, c)) size; index }
        | Ellipsis -> invalid_arg "getitem: ellipsis left after normalisation" in
      if index <> New then incr dim; p) (normalize_indices u indices) in
  (* apply view ops then dim injection (None) and collapse (int) *)
  let mops = List.filter (fun p -> p.index <> New) parsed in
  let x = Mixin_movement.apply_view_ops u (List.map (fun p -> p.v) mops) in
  let x_dims = List.filter (fun p -> not p.v.collapse_dim) parsed in
  let x = Mv.reshape x (List.map (fun p -> p.v.vsize) x_dims) in
  let tops = x_dims |> List.mapi (fun d p -> (d, p)) |> List.filter (fun (_, p) -> is_adv p.index) in
  let merged = match tops, v with
    | [], None -> `Got x  (* basic getitem *)
    | [], Some v -> `Set (Mv.broadcast_to v (shape x))  (* basic setitem: v broadcast to the view *)
    | _ :: _, _ -> tensor_index ?v x tops in
  match merged with
  | `Got x -> x
  | `Set vb -> setitem_merge u parsed mops vb

(* tinygrad OpMixin._getitem, tensor indexing: the gathered tensor, or with [v] the collapsed view with [v] merged *)
and tensor_index ?v x tops =
  let dims = List.map fst tops in
  let tensors = List.map (fun (_, p) -> match p.index with T t -> t | _ -> assert false) tops in
  let big_shape = List.map (function Sint i -> i | Suop _ -> invalid_arg "getitem: symbolic")
      (broadcast_shape (List.map shape tensors)) in
  let d0 = List.hd dims in
  let xs = Mv.ishape x in
  let consecutive = dims = List.init (List.length dims) (fun i -> d0 + i) in
  if v = None && List.length dims > 1 && consecutive then begin
    (* consecutive tensor indices: linear indexing instead of one-hot masks *)
    let ishp = List.map (List.nth xs) dims in
    let strides = Helpers.contiguous_strides ishp in
    let ts = List.map2 (fun t s -> E.mul t (const_int s)) tensors strides in
    let linear_idx = E.usum ~start:(List.hd ts) (List.tl ts) in
    let vs = List.map2 (fun t s -> E.bitwise_and (E.ge t (const_int 0)) (E.lt t (const_int s))) tensors ishp in
    let valid = E.uprod ~start:(List.hd vs) (List.tl vs) in
    let pre = Helpers.take d0 xs and post = Helpers.drop (Helpers.last dims + 1) xs in
    let x = getitem (reshape x (pre @ [ Helpers.prod ishp ] @ post))
        (List.map (fun _ -> S (None, None, None)) pre @ [ T (E.where valid linear_idx (const_int 0)) ]) in
    `Got (E.where (reshape valid (List.map (fun _ -> 1) pre @ big_shape @ List.map (fun _ -> 1) post)) x (const_int 0))
  end else begin
    let xn = List.length xs in
    let pre_reduce_shape = Helpers.take d0 xs @ big_shape @ Helpers.drop d0 xs in
    let masks = List.map2 (fun d t ->
        let i = try expand (reshape t (Mv.ishape t @ List.init (xn - d0) (fun _ -> 1))) pre_reduce_shape
          with Invalid_argument m -> invalid_arg ("getitem: cannot broadcast indices: " ^ m) in
        one_hot_along_dim ~dim:(d - xn) i (List.nth xs d)) dims tensors in
    let mask = E.uprod ~start:(List.hd masks) (List.tl masks) in
    let nb = List.length big_shape in
    let reshape_arg = Helpers.take d0 xs @ List.map (fun _ -> 1) big_shape @ Helpers.drop d0 xs in
    let sum_axis = List.map (fun d -> d + nb) dims in
    let x_pre = x in
    let x = R.sum ~axis:sum_axis ~dtype:x.dtype (E.where mask (reshape x reshape_arg) (const_int 0)) in
    let last = Helpers.last dims in
    let permuted = d0 <> 0 && List.length dims <> 1 && dims <> List.init (last - d0 + 1) (fun i -> d0 + i) in
    let permute y =
      Mv.permute y (List.init nb (fun i -> d0 + i) @ range d0 @ List.init (ndim y - d0 - nb) (fun i -> d0 + nb + i)) in
    let mask, x = if permuted then (permute mask, permute x) else (mask, x) in
    match v with
    | None -> `Got x  (* advanced getitem *)
    | Some v ->
      (* advanced setitem: the tensor dims resolved in the collapsed space, then the basic setitem path *)
      let vb = Mv.broadcast_to v (broadcast_shape [ shape x; shape v ]) in
      let vb = List.fold_left Mv.unsqueeze vb sum_axis in
      let start = if permuted then 0 else d0 in
      `Set (masked_merge x_pre vb mask (List.init nb (fun i -> start + i)))
  end

(* tinygrad OpMixin._getitem, setitem's tail: [vb] (the view's shape) put back in place of the view ops (un-strided,
   flipped, padded) and selected where the view's elements are *)
and setitem_merge u parsed mops vb =
  let vb = Mv.reshape vb (List.filter_map (fun p ->
      if p.index = New then None else Some (if p.v.collapse_dim then Sint 1 else p.v.vsize)) parsed) in
  let n = ndim u in
  let size d = match List.nth (shape u) d with Sint i -> i | Suop _ -> invalid_arg "setitem: symbolic shape" in
  let bound (m : parsed) = match m.v.boundary with
    | Sint s, Sint e -> (s, e) | _ -> invalid_arg "setitem: symbolic boundary" in
  let vb, per_dim = List.fold_left (fun (vb, per_dim) (d, m) ->
      let (s, e), st = bound m, abs m.v.stride in
      let vb =
        if st <> 1 && List.nth (Mv.ishape vb) d > 1 then begin
          (* un-stride: interleave with zeros *)
          let vb = Mv.unsqueeze vb (d + 1) in
          let vb = Mv.pad_to vb (List.init (ndim vb) (fun j -> if j = d + 1 then Some (Sint st) else None)) in
          let vs = Mv.ishape vb in
          let vb = reshape vb (Helpers.take d vs @ [ List.nth vs d * List.nth vs (d + 1) ] @ Helpers.drop (d + 2) vs) in
          Mv.shrink_to vb (List.init n (fun j -> if j = d then Some (Sint (e - s)) else None))
        end else vb in
      let idx = reshape (arange (size d)) (List.init n (fun j -> if j = d then size d else 1)) in
      let off = if m.v.stride < 0 then E.sub (const_int (e - 1)) idx else E.sub idx (const_int s) in
      let in_dim = E.bitwise_and (E.bitwise_and (E.ge idx (const_int s)) (E.lt idx (const_int e)))
          (E.eq (E.mod_ off (const_int st)) (const_int 0)) in
      (vb, in_dim :: per_dim)) (vb, []) (List.mapi (fun d m -> (d, m)) mops) in
  let vb = Mv.flip vb (List.filter_map (fun (d, m) -> if m.v.stride < 0 then Some d else None)
                          (List.mapi (fun d m -> (d, m)) mops)) in
  let vb = Mv.pad vb (List.mapi (fun d m -> let s, e = bound m in Some (Sint s, Sint (size d - e))) mops) in
  let cond = match List.rev per_dim with
    | [] -> Uop.const (Dtype.B true)
    | first :: rest -> E.uprod ~start:first rest in
  E.where cond vb u

(* tinygrad OpMixin.__getitem__ *)
and getitem u indices = getitem_gen u indices

(* ---------- linear algebra ---------- *)

(* tinygrad OpMixin.dot *)
let dot ?dtype x w =
  let dx = ndim x and dw = ndim w in
  if not (dx > 0 && dw > 0) then invalid_arg (Printf.sprintf "dot: both tensors need to be at least 1D, got %dD and %dD" dx dw);
  let xs = shape x and ws = shape w in
  let axis_w = - (min dw 2) in
  if not (Uop.sint_equal (List.nth xs (dx - 1)) (List.nth ws (dw + axis_w))) then
    invalid_arg (Printf.sprintf "dot: cannot dot %s and %s" (shape_str (shape x)) (shape_str (shape w)));
  let ones = List.init (min (min (dx - 1) (dw - 1)) 1) (fun _ -> Sint 1) in
  let x' = Mv.reshape x (Helpers.take (dx - 1) xs @ ones @ [ List.nth xs (dx - 1) ]) in
  let w' = transpose (Mv.reshape w (Helpers.take (max 0 (dw - 2)) ws @ ones @ Helpers.drop (dw + axis_w) ws)) (-1) axis_w in
  Uop.cast (match dtype with None -> Dtype.least_upper_dtype [ x'.dtype; w'.dtype ] | Some d -> d)
    (R.sum ~axis:[ -1 ] ?dtype (E.mul x' w'))

(* tinygrad OpMixin.matmul *)
let matmul ?(reverse = false) ?dtype x y = if reverse then dot ?dtype y x else dot ?dtype x y

(* tinygrad OpMixin.linear *)
let linear ?bias ?dtype x weight =
  match dtype with
  | Some dt ->
    let x = Uop.cast dt x and weight = Uop.cast dt weight and bias = Option.map (Uop.cast dt) bias in
    let r = if ndim weight = 1 then E.mul x weight else dot x weight in
    (match bias with Some b -> E.add r b | None -> r)
  | None ->
    let r = if ndim weight = 1 then E.mul x weight else dot x weight in
    (match bias with Some b -> E.add r b | None -> r)

(* ---------- reductions ---------- *)

(* tinygrad: OpMixin.min *)
let min ?axis ?keepdim x =
  Mixin_elementwise.inverse (R.max ?axis ?keepdim (Mixin_elementwise.inverse x))

(* the product of the dims that a keepdim reduction changes, as a UOp (python int -> weak CONST) *)
let reduced_count x (keep : Uop.t) =
  let changed = List.filter_map (fun (si, so) -> if Uop.sint_equal si so then None else Some si)
      (List.combine (shape x) (shape keep)) in
  Uop.sprod changed

(* tinygrad: OpMixin.mean *)
let mean ?axis ?(keepdim = false) (x : Uop.t) =
  let output_dtype = if Dtype.is_float x.dtype then x.dtype else Dtype.Float32 in
  let numerator = R.sum ?axis ~keepdim (Uop.cast (Dtype.sum_acc_dtype x.dtype) x) in
  let denominator = reduced_count x (R.sum ?axis ~keepdim:true x) in
  Uop.cast output_dtype (Mixin_elementwise.div numerator (Uop.sint_to_uop denominator))

(* tinygrad: OpMixin.var *)
let var ?axis ?(keepdim = false) ?(correction = 1) (x : Uop.t) =
  let output_dtype = if Dtype.is_float x.dtype then x.dtype else Dtype.Float32 in
  let squares = Mixin_elementwise.square (Mixin_elementwise.sub x (mean ?axis ~keepdim:true x)) in
  let n = reduced_count x (R.sum ?axis ~keepdim:true squares) in
  let numerator = R.sum ?axis ~keepdim (Uop.cast (Dtype.sum_acc_dtype x.dtype) squares) in
  let d = match n with
    | Sint n -> Uop.const_int (Stdlib.max (n - correction) 0)
    | Suop u -> Mixin_elementwise.maximum (Mixin_elementwise.sub u (Uop.const_int correction)) (Uop.const_int 0) in
  Uop.cast output_dtype (Mixin_elementwise.div numerator d)

(* tinygrad: OpMixin.std *)
let std ?axis ?keepdim ?correction x = Mixin_elementwise.sqrt (var ?axis ?keepdim ?correction x)

(* tinygrad OpMixin.logsumexp *)
let logsumexp ?axis ?(keepdim = false) u =
  let axl = Option.map (fun a -> [ a ]) axis in
  let m = E.detach (R.max ?axis:axl ~keepdim:true u) in
  let m' = if keepdim then m else match axis with
      | Some a -> squeeze m a
      | None -> reshape m (List.filter (( <> ) 1) (Mv.ishape m)) in
  E.add (E.log (R.sum ?axis:axl ~keepdim (E.exp (E.sub u m)))) m'

(* tinygrad OpMixin._softmax *)
let softmax_parts ?dtype u axis =
  let m = E.sub u (E.detach (R.max ~axis:[ axis ] ~keepdim:true u)) in
  let m = match dtype with Some d -> Uop.cast d m | None -> m in
  let e = E.exp m in
  (m, e, R.sum ~axis:[ axis ] ~keepdim:true e)

(* tinygrad OpMixin.softmax *)
let softmax ?(axis = -1) ?dtype u = let _, e, ss = softmax_parts ?dtype u axis in E.mul e (E.reciprocal ss)

(* tinygrad OpMixin.log_softmax *)
let log_softmax ?(axis = -1) ?dtype u = let m, _, ss = softmax_parts ?dtype u axis in E.sub m (E.log ss)

(* tinygrad OpMixin.argmax *)
let rec argmax ?axis ?(keepdim = false) u =
  match axis with
  | None -> argmax ~axis:0 ~keepdim (Mv.flatten u)
  | Some axis ->
    let axis = resolve_dim u axis in
    let sh = shape u in
    let n = match List.nth sh axis with
      | Sint n -> n
      | Suop _ -> invalid_arg (Printf.sprintf "argmax: symbolic axis %d of %s" axis (shape_str sh)) in
    let m = E.eq u (R.max ~axis:[ axis ] ~keepdim:true u) in
    let idx = E.mul m (reshape (arange ~start:n ~step:(-1) 0) (n :: List.init (List.length sh - axis - 1) (fun _ -> 1))) in
    Uop.cast Dtype.Int32 (E.sub (const_int n) (R.max ~axis:[ axis ] ~keepdim idx))

(* tinygrad OpMixin.argmin *)
let argmin ?axis ?keepdim u = argmax ?axis ?keepdim (E.inverse u)

(* ---------- cat / cumulative ops ---------- *)

(* tinygrad: OpMixin.cat *)
let cat ?(dim = 0) (tensors : Uop.t list) =
  match tensors with
  | [] -> invalid_arg "cat: needs at least one tensor"
  | x :: args ->
    if List.exists (fun t -> shape t = []) tensors then
      invalid_arg (Printf.sprintf "cat: zero-dimensional tensors cannot be concatenated (shapes %s)"
                     (String.concat ", " (List.map (fun t -> Uop.shape_str (shape t)) tensors)));
    let dim = Mixin_movement.resolve_dim ~op:"cat" x dim in
    let sx = shape x in
    List.iter (fun a ->
        let sa = shape a in
        if List.length sa <> List.length sx
        || not (List.for_all2 (fun (i, ti) ai -> i = dim || Uop.sint_equal ti ai) (List.mapi (fun i s -> (i, s)) sx) sa) then
          invalid_arg (Printf.sprintf "cat: shapes %s must match except in dim %d" (String.concat ", "
                                                                                      (List.map (fun t -> Uop.shape_str (shape t)) tensors)) dim))
      args;
    if List.for_all (fun t -> Uop.sint_equal (List.nth (shape t) dim) (List.nth sx dim)) args then
      Mixin_movement.flatten ~start_dim:dim ~end_dim:(dim + 1) (Mixin_movement.stack ~dim tensors)
    else begin
      (* the offsets are sints (a symbolic dim gives symbolic offsets); the pads are never negative, so the zero
         pad is the PAD itself *)
      let sizes = List.map (fun t -> List.nth (shape t) dim) tensors in
      let total = List.fold_left Uop.sint_add (Sint 0) sizes in
      let sub a b = Uop.sint_add a (Uop.sint_mul (Sint (-1)) b) in
      let _, padded = List.fold_left2 (fun (off, acc) t sz ->
          let p = Mixin_movement.pad t (List.mapi (fun j _ -> if j = dim then Some (off, sub (sub total off) sz) else None) (shape t)) in
          (Uop.sint_add off sz, p :: acc)) (Sint 0, []) tensors sizes in
      (* not tinygrad's usum, which ORs when the first tensor is bool: a bool first and a float after would OR
         floats, which its UOp spec rejects; the parts are disjoint, so ADD gives the same values *)
      match List.rev padded with
      | p0 :: rest when List.for_all (fun t -> t.Uop.dtype == Dtype.Bool) tensors -> Uop.usum ~start:p0 rest
      | p0 :: rest -> List.fold_left Uop.add p0 rest
      | [] -> assert false
    end

(* tinygrad OpMixin._split_cumalu: a two-stage scan for long axes *)
let split_cumalu u axis op =
  let axis = resolve_dim u axis in
  let sh = shape u in
  if sh = [] || List.mem (Sint 0) sh then (if op == Ops.Add then Uop.cast (R.sum u).dtype u else u)
  else begin
    let split = 256 in
    let value = identity_element op u.dtype in
    match List.nth sh axis with
    | Suop _ -> cumalu u axis op
    | Sint s when s <= split * 2 -> cumalu u axis op
    | Sint s -> begin
      let n = List.length sh in
      let chunks = cumalu (unflatten (pad_constant (transpose u axis (-1))
                                        (List.init (n - 1) (fun _ -> None) @ [ Some (round_up s split - s, 0) ]) value)
                             (-1) [ -1; split ]) (-1) op in
      let cn = ndim chunks in
      let base_ = pad_constant (cumalu (getitem chunks [ Ellipsis; I (-1) ]) (-1) op)
          (List.init (cn - 2) (fun _ -> None) @ [ Some (1, -1) ]) value in
      transpose (getitem (Mv.flatten ~start_dim:(-2) (alu2 op chunks (Mv.unsqueeze base_ (-1)))) [ Ellipsis; S (Some (- s), None, None) ])
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
  E.where (one_hot_along_dim (getitem u [ Ellipsis; New ]) num_classes) (const_int 1) (const_int 0)

(* tinygrad OpMixin.gather *)
let gather u ~dim index =
  if ndim index <> ndim u then
    invalid_arg (Printf.sprintf "gather: self.ndim must equal index.ndim, %s vs %s" (shape_str (shape u)) (shape_str (shape index)));
  let dim = resolve_dim u dim in
  let sh = shape u and ish = shape index in
  List.iteri (fun d (s, i) -> if d <> dim && not (Mv.sle ~op:"gather" i s) then
                 invalid_arg (Printf.sprintf "gather: requires self.shape[d] >= index.shape[d] for d != dim, %s vs %s"
                                (shape_str (shape u)) (shape_str (shape index)))) (List.combine sh ish);
  let x = transpose (Mv.unsqueeze (Mv.shrink_to u (List.mapi (fun d i -> if d <> dim then Some i else None) ish)) (-1)) (-1) dim in
  let n = match List.nth sh dim with
    | Sint n -> n
    | Suop _ -> invalid_arg (Printf.sprintf "gather: symbolic dim %d of %s" dim (shape_str sh)) in
  R.sum ~axis:[ -1 ] ~dtype:u.dtype (E.where (one_hot_along_dim (Mv.unsqueeze index (-1)) n) x (const_int 0))

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
  let sh = Mv.ishape u in
  let i_ = Helpers.drop (List.length sh - List.length k_) sh in
  let g = flat_to_grouped pads in
  let rows = List.map2 (fun (i, d) ((k, s), (pb, pa)) -> (i, d, k, s, pb, pa))
      (List.combine i_ d_) (List.combine (List.combine k_ s_) g) in
  let g = List.map (fun (i, d, k, s, pb, pa) ->
      let o = ceildiv (i + pb + pa - (d * (k - 1) + 1)) s + 1 in
      (pb, pa + s * (o - 1) + (d * (k - 1) + 1) - (i + pb + pa) - max (s * (o - 1) - (pb + i - 1)) 0)) rows in
  List.concat_map (fun (a, b) -> [ a; b ]) (List.rev g)

let pool_setup ?stride u kernel_size =
  (* tinygrad make_tuple(kernel_size, 2): a one-element list is tinygrad's int *)
  let k_ = match kernel_size with [ k ] -> [ k; k ] | l -> l in
  let nk = List.length k_ in
  let s_ = match make_tuple stride nk with None -> k_ | Some s -> s in
  let nd = ndim u in
  (k_, s_, List.init nk (fun i -> i - nk), fun pads -> List.init (nd - nk) (fun _ -> Some (0, 0)) @ List.map Option.some (flat_to_grouped pads))

(* tinygrad OpMixin.avg_pool2d (any number of spatial dims) *)
let avg_pool2d ?(kernel_size = [ 2; 2 ]) ?stride ?(dilation = [ 1 ]) ?(padding = [ 0 ]) ?(ceil_mode = false)
    ?(count_include_pad = true) u =
  let k_, s_, axis, grouped = pool_setup ?stride u kernel_size in
  let d_ = Option.get (make_tuple (Some dilation) (List.length k_)) in
  let pool_ x pads = Mv.pool ~stride:s_ ~dilation:d_ (pad_constant x (grouped pads) (Dtype.F 0.)) k_ in
  let reg_pads = resolve_pool_pads padding (List.length k_) in
  let pads = if ceil_mode then apply_ceil_mode u reg_pads k_ s_ d_ else reg_pads in
  if not count_include_pad then E.div (R.sum ~axis (pool_ u pads)) (R.sum ~axis (pool_ (const_like_int u 1) pads))
  else if not ceil_mode then mean ~axis (pool_ u pads)
  else E.div (R.sum ~axis (pool_ u pads))
      (R.sum ~axis (pool_ (const_like_int (pad_constant u (grouped reg_pads) (Dtype.F 0.)) 1) (List.map2 ( - ) pads reg_pads)))

(* tinygrad OpMixin.max_pool2d (values only; return_indices is not ported) *)
let max_pool2d ?(kernel_size = [ 2; 2 ]) ?stride ?(dilation = [ 1 ]) ?(padding = [ 0 ]) ?(ceil_mode = false) u =
  let k_, s_, axis, grouped = pool_setup ?stride u kernel_size in
  let d_ = Option.get (make_tuple (Some dilation) (List.length k_)) in
  let pads = resolve_pool_pads padding (List.length k_) in
  let pads = if ceil_mode then apply_ceil_mode u pads k_ s_ d_ else pads in
  R.max ~axis (Mv.pool ~stride:s_ ~dilation:d_ (pad_constant u (grouped pads) (Dtype.min u.dtype)) k_)

(* tinygrad OpMixin.conv2d (any number of spatial dims; no IMAGE / WINO paths) *)
let conv2d ?bias ?(groups = 1) ?(stride = [ 1 ]) ?(dilation = [ 1 ]) ?(padding = [ 0 ]) ?dtype u weight =
  (* the batch and spatial dims of the input may be symbolic *)
  let xs = shape u and ws = Mv.ishape weight in
  if List.length xs < 2 || List.length ws < 2 then invalid_arg "conv2d: input and weight need at least 2 dims";
  let cin_ = match List.nth xs 1 with
    | Sint c -> c
    | Suop _ -> invalid_arg (Printf.sprintf "conv2d: symbolic channel dim in %s" (shape_str xs)) in
  let bs = List.nth xs 0 and cout = List.nth ws 0 and cin = List.nth ws 1 in
  let hw = Helpers.drop 2 ws in
  let nhw = List.length hw in
  let padding_ = resolve_pool_pads padding nhw in
  if not (groups * cin = cin_ && List.length xs = List.length ws) then
    invalid_arg (Printf.sprintf "conv2d: Input Tensor shape %s does not match the shape of the weights %s. (%d vs. %d)"
                   (shape_str (shape u)) (shape_str (shape weight)) (groups * cin) cin_);
  let st = Option.get (make_tuple (Some stride) nhw) and dl = Option.get (make_tuple (Some dilation) nhw) in
  let x = Mv.pool ~stride:st ~dilation:dl
      (pad_constant u (List.init (List.length xs - nhw) (fun _ -> Some (0, 0)) @ List.map Option.some (flat_to_grouped padding_)) (Dtype.F 0.))
      hw in
  let rcout = cout / groups in
  let xsh = shape x in
  let oyx = Helpers.take (List.length xsh - 2 - nhw) (Helpers.drop 2 xsh) in
  let no = List.length oyx in
  let x = Mv.reshape x ([ bs ] @ dims [ groups; cin; 1 ] @ oyx @ dims hw) in
  let x = Mv.expand x ([ bs ] @ dims [ groups; cin; rcout ] @ oyx @ dims hw) in
  let x = Mv.permute x ([ 0; 1; 3 ] @ List.init no (fun i -> 4 + i) @ [ 2 ] @ List.init nhw (fun i -> 4 + no + i)) in
  let w = reshape weight ([ 1; groups; rcout ] @ List.init no (fun _ -> 1) @ [ cin ] @ hw) in
  let ret = Mv.reshape (R.sum ~axis:(List.init (1 + no) (fun i -> -1 - i)) ~keepdim:true ?dtype (E.mul x w))
      ([ bs; Sint cout ] @ oyx) in
  match bias with None -> ret | Some b -> E.add ret (reshape b ([ 1; -1 ] @ List.init nhw (fun _ -> 1)))

(* ---------- normalization ---------- *)

(* tinygrad OpMixin.layernorm *)
let layernorm ?(axis = [ -1 ]) ?(eps = 1e-5) u =
  let y = E.sub u (mean ~axis ~keepdim:true u) in
  E.mul y (E.rsqrt (E.add (mean ~axis ~keepdim:true (E.mul y y)) (const_float eps)))

(* tinygrad OpMixin.batchnorm *)
let batchnorm ?weight ?bias ?(axis = [ 1 ]) u ~mean ~invstd =
  let shape_ = List.mapi (fun ax s -> if List.mem ax axis then s else 1) (Mv.ishape u) in
  let x = E.sub u (reshape mean shape_) in
  let x = match weight with Some w -> E.mul x (reshape w shape_) | None -> x in
  let ret = E.mul x (if ndim invstd = List.length axis then reshape invstd shape_ else invstd) in
  match bias with Some b -> E.add ret (reshape b shape_) | None -> ret

(* ---------- losses ---------- *)

type reduction = Mixin_intf.reduction

(* tinygrad OpMixin._do_reduction *)
let do_reduction (r : reduction) u = match r with `None -> u | `Sum -> R.sum u | `Mean -> mean u

(* tinygrad OpMixin.binary_crossentropy *)
let binary_crossentropy ?(reduction = `Mean) u y =
  let one = const_int 1 in
  do_reduction reduction (E.sub (E.mul (E.neg y) (E.log u)) (E.mul (E.sub one y) (E.log (E.sub one u))))

(* tinygrad OpMixin.binary_crossentropy_logits *)
let binary_crossentropy_logits ?(reduction = `Mean) ?pos_weight u y =
  let log_p = Mixin_elementwise.logsigmoid u and log_1_minus_p = Mixin_elementwise.logsigmoid (E.neg u) in
  let one = const_int 1 in
  let pw = match pos_weight with None -> E.mul one y | Some p -> E.mul p y in
  do_reduction reduction (E.neg (E.add (E.mul pw log_p) (E.mul (E.sub one y) log_1_minus_p)))

(* tinygrad OpMixin.sparse_categorical_crossentropy (class axis -1) *)
let sparse_categorical_crossentropy ?(ignore_index = -1) ?(label_smoothing = 0.0) ?(reduction = `Mean) u y =
  if not (0.0 <= label_smoothing && label_smoothing <= 1.0) then invalid_arg "sparse_categorical_crossentropy: label_smoothing must be in [0.0, 1.0]";
  let log_probs = log_softmax u in
  let loss_mask = if ignore_index <> -1 then E.ne y (const_int ignore_index) else const_like ~dtype:Dtype.Bool y (Dtype.B true) in
  let sh = Mv.ishape u in
  let yy = E.mul (one_hot_along_dim ~dim:(-1) (Mv.unsqueeze y (-1)) (Helpers.last sh)) (Mv.unsqueeze loss_mask (-1)) in
  let smoothing = E.mul (const_float label_smoothing) (E.mul (mean ~axis:[ -1 ] log_probs) loss_mask) in
  let unreduced = E.add (E.mul (const_float (1. -. label_smoothing)) (R.sum ~axis:[ -1 ] (E.mul log_probs yy))) smoothing in
  match reduction with
  | `Mean -> E.div (E.neg (R.sum unreduced)) (R.sum loss_mask)
  | r -> E.neg (do_reduction r unreduced)

(* tinygrad OpMixin.cross_entropy: [y] holds class indices or class probabilities *)
let cross_entropy ?(reduction = `Mean) ?(label_smoothing = 0.0) u y =
  if not (0.0 <= label_smoothing && label_smoothing <= 1.0) then invalid_arg "cross_entropy: label_smoothing must be in [0.0, 1.0]";
  let classes_dim = if ndim u = 1 then 0 else 1 in
  let sh = Mv.ishape u in
  let y =
    if sh <> Mv.ishape y then begin
      let reduced = List.filteri (fun i _ -> i <> classes_dim) sh in
      if reduced <> Mv.ishape y then
        invalid_arg (Printf.sprintf "cross_entropy: shape mismatch: %s, %s" (shape_str (shape u)) (shape_str (shape y)));
      one_hot_along_dim ~dim:classes_dim (Mv.unsqueeze y classes_dim) (List.nth sh classes_dim)
    end else y in
  let y = E.add (E.mul (const_float (1. -. label_smoothing)) y)
      (const_float (label_smoothing /. float_of_int (List.nth (Mv.ishape y) classes_dim))) in
  (* python: -(....sum(classes_dim)._do_reduction(reduction)) *)
  E.neg (do_reduction reduction (R.sum ~axis:[ classes_dim ] (E.mul (log_softmax ~axis:classes_dim u) y)))

(* tinygrad OpMixin.nll_loss *)
let nll_loss ?weight ?ignore_index ?(reduction = `Mean) u y =
  let weight = match weight with
    | None -> const_like_int y 1
    | Some w -> reshape (gather w ~dim:0 (Mv.flatten y)) (Mv.ishape y) in
  let masked_weight = match ignore_index with None -> weight | Some i -> E.mul weight (E.ne y (const_int i)) in
  let nll = E.mul (E.neg (squeeze (gather u ~dim:1 (Mv.unsqueeze y 1)) 1)) masked_weight in
  match reduction with
  | `Mean -> E.div (R.sum nll) (R.sum masked_weight)
  | r -> do_reduction r nll

(* ---------- transposed convolution, einsum, interpolate, pooling indices, max_unpool2d ---------- *)

(* tinygrad: the ReductionStr check of OpMixin._do_reduction, for a reduction named by a string *)
let reduction_of_string = function
  | "mean" -> `Mean
  | "sum" -> `Sum
  | "none" -> `None
  | r -> invalid_arg (Printf.sprintf "reduction=%S must be one of ('none', 'mean', 'sum')" r)

(* tinygrad MovementMixin.diagonal *)
let diagonal ?(offset = 0) ?(dim1 = 0) ?(dim2 = 1) u =
  let dim1 = resolve_dim u dim1 and dim2 = resolve_dim u dim2 in
  if dim1 = dim2 then invalid_arg "diagonal: dim1 and dim2 cannot be the same dimension";
  let n = ndim u in
  let x = Mv.permute u (List.filter (fun i -> i <> dim1 && i <> dim2) (range n) @ [ dim1; dim2 ]) in
  let sh = Mv.ishape x in
  let a = List.nth sh (n - 2) and b = List.nth sh (n - 1) in
  let x =
    if offset >= 0 then Mixin_movement.shrink x (List.init (n - 1) (fun _ -> None) @ [ Some (Sint offset, Sint b) ])
    else Mixin_movement.shrink x (List.init (n - 2) (fun _ -> None) @ [ Some (Sint (- offset), Sint a); None ]) in
  let sh = Mv.ishape x in
  let lead = Helpers.take (n - 2) sh in
  let d = Stdlib.min (List.nth sh (n - 2)) (List.nth sh (n - 1)) in
  if d <= 0 then reshape x (lead @ [ 0 ])
  else begin
    let nones = List.map (fun _ -> None) lead in
    let x = shrink_to x (nones @ [ Some d; Some d ]) in
    let x = Mixin_movement.pad_to (Mv.flatten ~start_dim:(-2) x) (List.map (fun _ -> None) nones @ [ Some (Sint (d * (d + 1))) ]) in
    squeeze (shrink_to (unflatten x (-1) [ d; d + 1 ]) (nones @ [ None; Some 1 ])) (-1)
  end

(* tinygrad OpMixin.conv_transpose2d (any number of spatial dims) *)
let conv_transpose2d ?bias ?(groups = 1) ?(stride = [ 1 ]) ?(dilation = [ 1 ]) ?(padding = [ 0 ]) ?(output_padding = [ 0 ])
    u weight =
  let ws = Mv.ishape weight in
  if List.length ws < 2 then invalid_arg "conv_transpose2d: weight needs at least 2 dims";
  let nw = List.length ws in
  let w = Mixin_movement.flip (transpose (unflatten weight 0 [ groups; -1 ]) 1 2) (List.init (nw - 2) (fun i -> 3 + i)) in
  let hw = Helpers.drop 2 ws in
  let nhw = List.length hw in
  let padding = flat_to_grouped (resolve_pool_pads padding nhw) in
  let tup name l =
    let l = Option.get (make_tuple (Some l) nhw) in
    if List.length l <> nhw then invalid_arg (Printf.sprintf "conv_transpose2d: %s needs 1 or %d values" name nhw);
    l in
  let stride = tup "stride" stride and dilation = tup "dilation" dilation and output_padding = tup "output_padding" output_padding in
  let x =
    if List.exists (fun s -> s > 1) stride then begin
      (* handle strides: (k) -> reshape -> (k,1) -> pad -> (k,s) -> reshape -> (k*s) -> shrink (k-(s-1)) *)
      let xs = Mv.ishape u in
      let lead = Helpers.take 2 xs and sp = Helpers.drop 2 xs in
      let x = reshape u (lead @ List.concat_map (fun k -> [ k; 1 ]) sp) in
      let x = pad_constant x ([ None; None ] @ List.concat_map (fun s -> [ None; Some (0, s - 1) ]) stride) (Dtype.F 0.) in
      let x = reshape x (lead @ List.map2 (fun k s -> k * s) sp stride) in
      shrink_to x ([ None; None ] @ List.map2 (fun k s -> Some (k * s - (s - 1))) sp stride)
    end else u in
  let rows = List.combine (List.combine hw dilation) (List.combine padding output_padding) in
  let padding = List.concat_map (fun ((k, d), ((pb, pa), op)) -> [ (k - 1) * d - pb; (k - 1) * d - pa + op ]) (List.rev rows) in
  conv2d ?bias ~groups ~dilation ~padding x (Mv.flatten ~end_dim:1 w)

(* python's sorted() of the distinct characters of [s] that satisfy [p] (with repetitions kept when [dups]) *)
let sorted_chars l = List.sort_uniq compare l
let chars s = List.init (String.length s) (String.get s)
let count c s = List.length (List.filter (( = ) c) (chars s))
let index_of c s = match String.index_opt s c with Some i -> i | None -> invalid_arg (Printf.sprintf "einsum: no %c in %S" c s)

let split_on s sep =
  (* python str.split(sep) for a 2-char separator "->" *)
  let ls = String.length s in
  let rec go start i acc =
    if i > ls - 2 then List.rev (String.sub s start (ls - start) :: acc)
    else if s.[i] = sep.[0] && s.[i + 1] = sep.[1] then go (i + 2) (i + 2) (String.sub s start (i - start) :: acc)
    else go start (i + 1) acc in
  go 0 0 []

let contains s sub = Helpers.replace_all ~sub ~by:"" s <> s
let is_alpha c = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
let rec zip a b = match a, b with x :: a, y :: b -> (x, y) :: zip a b | _ -> []

(* tinygrad OpMixin.einsum *)
let einsum ?dtype formula (xs : t list) =
  let formula = Helpers.replace_all ~sub:" " ~by:"" formula in
  let formula =
    if contains formula "..." then begin
      let ascii_letters = chars "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" in
      let ell = String.of_seq (List.to_seq (List.filter (fun c -> not (String.contains formula c)) ascii_letters)) in
      let lhs = List.hd (split_on formula "->") in
      let inputs = String.split_on_char ',' lhs in
      let pairs = zip inputs xs in
      let ell_n = List.map (fun (s, x) -> if contains s "..." then max 0 (ndim x - String.length s + 3) else 0) pairs in
      let mx = List.fold_left max 0 ell_n in
      let inputs' = List.mapi (fun i s ->
          match List.nth_opt ell_n i with
          | Some n -> Helpers.replace_all ~sub:"..." ~by:(String.sub ell (mx - n) n) s
          | None -> s) inputs in
      let auto = String.of_seq (List.to_seq (List.sort compare
                   (List.filter (fun c -> count c lhs = 1 && is_alpha c && not (String.contains ell c)) (chars lhs)))) in
      let lhs' = String.concat "," inputs' in
      let rhs = match split_on formula "->" with
        | [ _; r ] -> Helpers.replace_all ~sub:"..." ~by:(String.sub ell 0 mx) r
        | _ -> String.sub ell 0 mx ^ auto in
      lhs' ^ "->" ^ rhs
    end else formula in
  let lhs, rhs = match split_on formula "->" with
    | [ l ] -> (l, String.of_seq (List.to_seq (List.sort compare
                 (List.filter (fun c -> count c formula = 1 && is_alpha c) (chars formula)))))
    | [ l; r ] -> (l, r)
    | _ -> invalid_arg (Printf.sprintf "einsum: bad formula %S" formula) in
  let inputs = String.split_on_char ',' lhs in
  if List.length xs <> List.length inputs then
    invalid_arg (Printf.sprintf "einsum: number of operands doesn't match, expected %d, got %d" (List.length inputs) (List.length xs));
  (* trace: Helpers.take diagonal when letter repeats in single input *)
  let traced = List.map2 (fun s x ->
      let s = ref s and x = ref x in
      List.iter (fun c ->
          while count c !s > 1 do
            let j = index_of c !s in
            let k = j + 1 + index_of c (String.sub !s (j + 1) (String.length !s - j - 1)) in
            let n = List.nth (Mv.ishape !x) j in
            let nd = ndim !x in
            let perm = List.filter (fun d -> d <> j && d <> k) (range nd) @ [ j; k ] in
            x := if nd > 2 then
                getitem (unflatten (pad_constant (Mv.flatten ~start_dim:(-2) (Mv.permute !x perm))
                                      (List.init (nd - 2) (fun _ -> Some (0, 0)) @ [ Some (0, n) ]) (Dtype.F 0.)) (-1) [ n; n + 1 ])
                  [ Ellipsis; I 0 ]
              else diagonal !x;
            s := String.sub !s 0 k ^ String.sub !s (k + 1) (String.length !s - k - 1)
          done) (sorted_chars (chars !s));
      (!s, !x)) inputs xs in
  (* check sizes and build sorted alphabet (tinygrad helpers.merge_dicts) *)
  let sz = Hashtbl.create 16 in
  List.iter (fun (s, x) ->
      List.iter (fun (c, d) ->
          match Hashtbl.find_opt sz c with
          | Some d' when d' <> d -> invalid_arg (Printf.sprintf "einsum: letter %c has different sizes %d and %d" c d' d)
          | _ -> Hashtbl.replace sz c d) (zip (chars s) (Mv.ishape x))) traced;
  let alpha = List.sort compare (Hashtbl.fold (fun c _ acc -> c :: acc) sz []) in
  (* align all tensors to alphabet, multiply, R.sum non-output, Mv.permute to output order *)
  let xs = List.map (fun (s, x) ->
      if s = "" then x
      else reshape (Mv.permute x (List.map (fun c -> index_of c s) (List.sort compare (chars s))))
          (List.map (fun c -> if String.contains s c then Hashtbl.find sz c else 1) alpha)) traced in
  let prodx = List.fold_left E.mul (List.hd xs) (List.tl xs) in
  let red = R.sum ~axis:(List.concat (List.mapi (fun i c -> if String.contains rhs c then [] else [ i ]) alpha)) ?dtype prodx in
  let argsort l = List.map snd (List.sort compare (List.mapi (fun i v -> (v, i)) l)) in
  let rl = chars rhs in
  if List.length rl <> ndim red then invalid_arg (Printf.sprintf "einsum: output subscripts %S do not match the operands" rhs);
  Mv.permute red (argsort (argsort rl))

type interpolate_mode = Mixin_intf.interpolate_mode

(* tinygrad OpMixin.interpolate *)
let interpolate ?(mode = `Linear) ?(align_corners = false) u (size : ints) =
  let n = ndim u in
  let ls = List.length size in
  if not (0 < ls && ls <= n) then invalid_arg (Printf.sprintf "interpolate: invalid size of %d dims for a %dD tensor" ls n);
  if align_corners && mode <> `Linear then
    invalid_arg "interpolate: align_corners option can only be set with the interpolating mode linear";
  let sh = Array.of_list (Mv.ishape u) in
  let expand_ = Array.copy sh in
  let size = Array.of_list size in
  let x = ref u in
  for i = -1 downto - ls do
    let ax = n + i and sz = size.(ls + i) in
    let in_sz = sh.(ax) in
    let reshape_ = Array.make n 1 in
    reshape_.(ax) <- sz; expand_.(ax) <- sz;
    let fit y = expand (reshape y (Array.to_list reshape_)) (Array.to_list expand_) in
    if mode = `Linear then begin
      let arr = arange sz in
      let num, den = if align_corners then (E.mul arr (const_int (in_sz - 1)), sz - 1)
        else (E.sub (E.mul (E.add (E.mul arr (const_int 2)) (const_int 1)) (const_int in_sz)) (const_int sz), sz * 2) in
      let num = Mixin_elementwise.clamp ~min_:(const_int 0) ~max_:(const_int ((in_sz - 1) * den)) num in
      let e = Mixin_elementwise.idiv in
      let low = fit (e num (const_int den)) and high = fit (e (E.add num (const_int (den - 1))) (const_int den))
      and perc = fit (E.div (Uop.cast Dtype.Float32 (Mixin_elementwise.mod_ num (const_int den))) (const_int den)) in
      x := Mixin_elementwise.lerp (gather !x ~dim:i low) (gather !x ~dim:i high) perc
    end else begin
      let scale = float_of_int in_sz /. float_of_int sz and arr = arange ~dtype:Dtype.Float32 sz in
      let v = if mode = `Nearest_exact then E.mul (const_float scale) (E.add arr (const_float 0.5)) else E.mul (const_float scale) arr in
      x := gather !x ~dim:i (fit (Uop.cast Dtype.Int32 v))
    end
  done;
  Uop.cast u.dtype !x

(* tinygrad OpMixin.max_pool2d with return_indices=True: the values and the flat argmax over the spatial dims (int32) *)
let max_pool2d_with_indices ?(kernel_size = [ 2; 2 ]) ?stride ?(dilation = [ 1 ]) ?(padding = [ 0 ]) ?(ceil_mode = false) u =
  let k_, s_, axis, grouped = pool_setup ?stride u kernel_size in
  let d_ = Option.get (make_tuple (Some dilation) (List.length k_)) in
  let pads = resolve_pool_pads padding (List.length k_) in
  let pads = if ceil_mode then apply_ceil_mode u pads k_ s_ d_ else pads in
  let pooled = Mv.pool ~stride:s_ ~dilation:d_ (pad_constant u (grouped pads) (Dtype.min u.dtype)) k_ in
  let spatial_shape = Helpers.drop (ndim u - List.length k_) (Mv.ishape u) in
  let spatial_sz = Helpers.prod spatial_shape in
  let idx = reshape (arange ~start:spatial_sz ~step:(-1) 0) spatial_shape in
  let m = E.eq pooled (R.max ~axis ~keepdim:true pooled) in
  let idx = E.mul m (Mv.pool ~stride:s_ ~dilation:d_
                     (pad_constant idx (List.map Option.some (flat_to_grouped pads)) (Dtype.min idx.dtype)) k_) in
  (R.max ~axis pooled, E.sub (const_int spatial_sz) (R.max ~axis idx))

(* tinygrad OpMixin.max_unpool2d *)
let max_unpool2d ?(kernel_size = [ 2; 2 ]) ?stride ?(dilation = [ 1 ]) ?(padding = [ 0 ]) ?output_size u indices =
  let sh = Mv.ishape u in
  if List.length sh < 3 then invalid_arg "max_unpool2d: needs (bs, c, *spatial) input";
  let bs = List.nth sh 0 and c = List.nth sh 1 and spatial_shape = Helpers.drop 2 sh in
  let ns = List.length spatial_shape in
  let output_size = match output_size with
    | None ->
      let mk l = Option.get (make_tuple (Some l) ns) in
      let k_ = mk kernel_size and d_ = mk dilation and s_ = mk (Option.value stride ~default:kernel_size) in
      let p_ = flat_to_grouped (resolve_pool_pads padding ns) in
      List.map2 (fun ((i, k), (d, s)) (pa, pb) -> (i - 1) * s - (pb + pa) + (d * (k - 1) + 1))
        (List.combine (List.combine spatial_shape k_) (List.combine d_ s_)) p_
    | Some o -> Helpers.drop (List.length o - ns) o in
  let ret = R.sum ~axis:[ 3 ] (E.where (one_hot_along_dim ~dim:2 (reshape indices [ bs; c; 1; -1 ]) (Helpers.prod output_size))
                              (reshape u [ bs; c; 1; -1 ]) (const_int 0)) in
  reshape ret ([ bs; c ] @ output_size)

(* ---------- scans with indices, sort, scatter, pad modes, normalize, softmin, var_mean (tinygrad mixin/op.py) ---------- *)

let somes l = List.map (fun i -> Some (Sint i)) l

(* tinygrad: Tensor.ones(n, m, dtype=dtypes.bool, buffer=False) *)
let ones_bool n m = Mixin_creation.full ~dtype:Dtype.Bool ~buffer:false [ Sint n; Sint m ] (Dtype.B true)

(* ---------- scans ---------- *)

(* tinygrad: OpMixin.cummax *)
let cummax ?(axis = 0) u =
  if ndim u = 0 then (split_cumalu u axis Ops.Max, Mixin_creation.zeros ~dtype:Dtype.Int32 ~buffer:false [])
  else begin
    let values = split_cumalu u axis Ops.Max in
    let n = List.nth (Mv.ishape u) (Mv.resolve_dim ~op:"cummax" u axis) in
    let x = transpose u axis (-1) and values_t = transpose values axis (-1) in
    let m = E.mul (E.eq (Mv.unsqueeze x (-1)) (Mv.unsqueeze values_t (-2))) (triu (ones_bool n n)) in
    let ar = reshape (arange ~start:n ~step:(-1) 0) [ n; 1 ] in
    let idx = Mixin_dtype.cast (E.add (E.neg (R.max ~axis:[ -2 ] (E.mul m ar))) (E.ci n)) Dtype.Int32 in
    (values, transpose idx (-1) axis)
  end

(* tinygrad: OpMixin.cummin *)
let cummin ?(axis = 0) u =
  let values, indices = cummax ~axis (E.inverse u) in
  (E.inverse values, indices)

(* tinygrad: OpMixin.logcumsumexp *)
let logcumsumexp ?(axis = 0) u =
  if ndim u = 0 then u
  else begin
    let x = transpose u axis (-1) in
    let last = List.nth (Mv.ishape x) (ndim x - 1) in
    let x_unsqueezed = Mv.unsqueeze x (-2) in
    let x_cummax = E.detach (fst (cummax ~axis:(-1) x)) in
    let mask = tril (ones_bool last last) in
    let ret = E.add (E.log (R.sum ~axis:[ -1 ] (E.exp (E.where mask (E.sub x_unsqueezed (Mv.unsqueeze x_cummax (-1)))
                                                        (Uop.const (Dtype.min u.dtype))))))
        x_cummax in
    transpose ret (-1) axis
  end

(* ---------- sort ---------- *)

let bit_length v = let rec go v = if v = 0 then 0 else 1 + go (v lsr 1) in go v

let split2 op ~dim x =
  match Mv.split ~dim x (`Size 1) with [ a; b ] -> (a, b) | _ -> invalid_arg (op ^ ": expected a split in two")

(* tinygrad: OpMixin.sort — a bitonic sort; the indices keep the order of equal elements *)
let sort ?(dim = -1) ?(descending = false) u =
  let dim = Mv.resolve_dim ~op:"sort" u dim in
  let orig_len = List.nth (Mv.ishape u) dim in
  if orig_len <= 1 then (u, Uop.const_like ~dtype:(Dtype.default_int ()) u (Dtype.I Z.zero))
  else begin
    let sdim = ndim u in
    let n_stages = bit_length (orig_len - 1) in
    let pads = List.init sdim (fun i -> if i = dim then Some (0, (1 lsl n_stages) - orig_len) else None) in
    let fill = if descending then Dtype.min u.dtype else Dtype.max u.dtype in
    let x = ref (Mv.unflatten (pad_constant u pads fill) dim (dims (List.init n_stages (fun _ -> 2)))) in
    for stage = 1 to n_stages do
      let crossover_dim = dim + n_stages - stage - 1 in
      let flip_dims = List.init (stage + (sdim - dim)) (fun i -> -(i + 1)) in
      if stage <> n_stages then begin
        (* flip so arrows of green boxes point the same way as blue boxes *)
        let blue_box, green_box = split2 "sort" ~dim:crossover_dim !x in
        x := E.contiguous (cat ~dim:crossover_dim [ blue_box; Mv.flip green_box flip_dims ])
      end;
      for substage = stage - 1 downto 0 do
        let partner_dim = dim + n_stages - substage - 1 in
        let x_top, x_bottom = split2 "sort" ~dim:partner_dim !x in
        let x_larger = E.maximum x_top x_bottom and x_smaller = E.minimum x_top x_bottom in
        x := E.contiguous (if descending then cat ~dim:partner_dim [ x_larger; x_smaller ]
                           else cat ~dim:partner_dim [ x_smaller; x_larger ])
      done;
      if stage <> n_stages then begin
        (* flip wires back to undo the crossover *)
        let blue_box, flipped_green_box = split2 "sort" ~dim:crossover_dim !x in
        x := cat ~dim:crossover_dim [ blue_box; Mv.flip flipped_green_box flip_dims ]
      end
    done;
    let x = Mv.shrink_to (Mv.flatten ~start_dim:dim ~end_dim:(dim + n_stages - 1) !x) (List.map Option.some (Uop.shape u)) in
    (* compute indices for sorted values *)
    let mask = reshape (tril (ones_bool orig_len orig_len)) ([ orig_len; orig_len ] @ List.init (sdim - dim - 1) (fun _ -> 1)) in
    let compute_counts t =
      R.sum ~axis:[ dim + 1 ] (E.bitwise_and mask (E.eq (Mv.unsqueeze t dim) (Mv.unsqueeze t (dim + 1)))) in
    let count_orig = compute_counts u and count_sorted = compute_counts x in
    let cond = E.bitwise_and (E.eq (Mv.unsqueeze u (dim + 1)) (Mv.unsqueeze x dim))
        (E.eq (Mv.unsqueeze count_orig (dim + 1)) (Mv.unsqueeze count_sorted dim)) in
    let idx = reshape (arange orig_len) (List.init (ndim x) (fun i -> if i = dim then orig_len else 1)) in
    let idx = R.sum ~axis:[ dim ] (E.mul cond (Mv.unsqueeze idx (dim + 1))) in
    (x, idx)
  end

(* tinygrad: OpMixin.argsort *)
let argsort ?dim ?descending u = snd (sort ?dim ?descending u)

(* tinygrad: OpMixin.topk (sorted_=False is not supported, as tinygrad's) *)
let topk ?(dim = -1) ?(largest = true) ?(sorted_ = true) u k =
  if not sorted_ then invalid_arg "topk: sorted_=False is not supported";
  let dim = Mv.resolve_dim ~op:"topk" u dim in
  if k > List.nth (Mv.ishape u) dim then
    invalid_arg (Printf.sprintf "topk: selected index k=%d is out of range for shape %s" k (Uop.shape_str (Uop.shape u)));
  let x, idx = sort ~dim ~descending:largest u in
  let topk_shape = List.init (ndim u) (fun i -> if i = dim then Some (Sint k) else None) in
  (Mv.shrink_to x topk_shape, Mv.shrink_to idx topk_shape)

(* ---------- scatter ---------- *)

let check_same_device op what (a : Uop.t) (b : Uop.t) =
  match Buffers.device a, Buffers.device b with
  | Some da, Some db when da <> db ->
    invalid_arg (Printf.sprintf "%s: expected %s and self on the same device, %s vs %s" op what da db)
  | _ -> ()

(* tinygrad: OpMixin._pre_scatter *)
let pre_scatter ?(op = "scatter") u ~dim index src =
  check_same_device op "index" index u;
  check_same_device op "src" src u;
  let dim = Mv.resolve_dim ~op u dim in
  if not (ndim index = ndim u && ndim u = ndim src) then
    invalid_arg (Printf.sprintf "%s: self.ndim, index.ndim and src.ndim must all equal, %s %s %s" op
                   (Uop.shape_str (Uop.shape u)) (Uop.shape_str (Uop.shape index)) (Uop.shape_str (Uop.shape src)));
  let sh = Mv.ishape u and ish = Mv.ishape index and ssh = Mv.ishape src in
  if not (List.for_all2 (fun (d, (s, i)) sr -> (d = dim || s >= i) && sr >= i) (List.mapi (fun d p -> (d, p)) (List.combine sh ish)) ssh)
  then invalid_arg (Printf.sprintf "%s: all dimensions of index.shape=%s should be <= to all dimensions of src.shape=%s and all \
                                    dimensions except dimension %d of self.shape=%s" op (Uop.shape_str (Uop.shape index))
                      (Uop.shape_str (Uop.shape src)) dim (Uop.shape_str (Uop.shape u)));
  if u.dtype != src.dtype then
    invalid_arg (Printf.sprintf "%s: expect self.dtype=%s to be equal to src.dtype=%s" op (Dtype.to_string u.dtype)
                   (Dtype.to_string src.dtype));
  (* shrink src to index shape to shrink away the unused values *)
  let src = Mv.shrink_to src (somes ish) in
  (* prepare src and mask for reduce with respect to dim *)
  let src = transpose (Mv.expand (Mv.unsqueeze src (-1)) (dims (ish @ [ List.nth sh dim ]))) (-1) dim in
  let mask = transpose (one_hot_along_dim (Mv.unsqueeze index (-1)) (List.nth sh dim)) (-1) dim in
  (* pad src and mask to self.shape so that reduce can be done with padded values as no-ops *)
  (Mv.pad_to src (somes sh @ [ None ]), Mv.pad_to mask (somes sh @ [ None ]))

(** The reductions of {!scatter_reduce}. *)
type scatter_reduction = Mixin_intf.scatter_reduction

(* tinygrad's reduce strings *)
let scatter_reduction_of_string = function
  | "sum" -> `Sum | "prod" -> `Prod | "mean" -> `Mean | "amax" -> `Amax | "amin" -> `Amin
  | r -> invalid_arg (Printf.sprintf "scatter_reduce: reduce=%S must be one of 'sum', 'prod', 'mean', 'amax', 'amin'" r)

(* tinygrad: OpMixin.scatter_reduce *)
let scatter_reduce ?(include_self = true) u ~dim index src (reduce : scatter_reduction) =
  let src, mask = pre_scatter ~op:"scatter_reduce" u ~dim index src in
  let inv_mask a b = E.where (E.logical_not (R.any ~axis:[ -1 ] mask)) a b in
  let self_or a b = if include_self then a else inv_mask a b in
  match reduce with
  | `Sum -> E.add (R.sum ~axis:[ -1 ] (E.where mask src (E.ci 0))) (self_or u (E.ci 0))
  | `Prod -> E.mul (R.prod ~axis:[ -1 ] (E.where mask src (E.ci 1))) (self_or u (E.ci 1))
  | `Amax ->
    let m = Uop.const (Dtype.min src.dtype) in
    E.maximum (R.max ~axis:[ -1 ] (E.where mask src m)) (self_or u m)
  | `Amin ->
    let m = Uop.const (Dtype.max src.dtype) in
    E.minimum (min ~axis:[ -1 ] (E.where mask src m)) (self_or u m)
  | `Mean ->
    let count = E.add (R.sum ~axis:[ -1 ] (E.where mask (E.ci 1) (E.ci 0))) (if include_self then E.ci 1 else inv_mask (E.ci 1) (E.ci 0)) in
    E.div (E.add (R.sum ~axis:[ -1 ] (E.where mask src (E.ci 0))) (self_or u (E.ci 0))) count

(** The source of {!scatter}: a tensor or a scalar. *)
type scatter_src = [ `Tensor of Uop.t | `Scalar of float ]

(* tinygrad's scatter reduce strings (None is no reduce) *)
let scatter_mode_of_string = function
  | "add" -> `Add | "multiply" -> `Multiply
  | r -> invalid_arg (Printf.sprintf "scatter: reduce=%S must be one of None, 'multiply', or 'add'" r)

(* tinygrad: OpMixin.scatter *)
let scatter ?reduce u ~dim index (src : scatter_src) =
  let src = match src with
    | `Scalar v -> Mixin_creation.full ~dtype:u.dtype ~buffer:false (Uop.shape index) (Dtype.F v)
    | `Tensor t ->
      if reduce <> None then invalid_arg "scatter: non-scalar src is not supported with reduce arg. use scatter_reduce";
      t in
  match reduce with
  | Some `Add -> scatter_reduce ~include_self:true u ~dim index src `Sum
  | Some `Multiply -> scatter_reduce ~include_self:true u ~dim index src `Prod
  | None ->
    let src, mask = pre_scatter u ~dim index src in
    masked_merge u src mask [ -1 ]

(* ---------- pad modes ---------- *)

(* tinygrad: OpMixin._pad_circular *)
let pad_circular u (px : (int * int) list) =
  let sh = Mv.ishape u in
  let x = Mv.shrink u (List.map2 (fun (pb, pa) s -> Some (Sint (- (Stdlib.min pb 0)), Sint (Stdlib.min (pa + s) s))) px sh) in
  let px = List.map (fun (pb, pa) -> (Stdlib.max pb 0, Stdlib.max pa 0)) px in
  let orig_shape = Mv.ishape x in
  if List.exists2 (fun (pb, pa) s -> pb > s || pa > s) px orig_shape then
    invalid_arg "pad: Padding value causes wrapping around more than once.";
  let x = Mv.repeat x (List.map (fun (pb, pa) -> Sint (1 + Bool.to_int (pb <> 0) + Bool.to_int (pa <> 0))) px) in
  Mv.shrink x (List.map2 (fun ((pb, pa), osh) xsh ->
      Some (Sint (if pb = 0 then 0 else osh - pb), Sint (if pa = 0 then xsh else xsh - osh + pa)))
      (List.combine px orig_shape) (Mv.ishape x))

(* tinygrad: OpMixin._pad_reflect_replicate *)
let pad_reflect_replicate u (px : (int * int) list) mode =
  let pads = List.map (fun (pb, pa) -> (Stdlib.max pb 0, Stdlib.max pa 0)) px in
  let x = ref u in
  List.iteri (fun d (pb, pa) ->
      let xx = !x in
      let n = ndim xx in
      let s = List.nth (Mv.ishape xx) d in
      let xb, xa = match mode with
        | `Reflect ->
          if pb >= s || pa >= s then
            invalid_arg (Printf.sprintf "pad: Padding (%d, %d) should be less than the input size=%d for dim=%d." pb pa s d);
          let slc_b = S (Some pb, Some 0, Some (-1))
          and slc_a = S (Some (s - 2), (if s - 2 - pa >= 0 then Some (s - 2 - pa) else None), Some (-1)) in
          let sel slc p =
            if p > 0 then Some (getitem xx (List.init n (fun i -> if i = d then slc else S (None, None, None)))) else None in
          (sel slc_b pb, sel slc_a pa)
        | `Replicate ->
          let shr_b = List.init n (fun i -> if i = d then Some (Sint 0, Sint 1) else None)
          and shr_a = List.init n (fun i -> if i = d then Some (Sint (s - 1), Sint s) else None) in
          let sel shr p =
            if p > 0 then Some (Mv.expand (Mv.shrink xx shr) (List.init n (fun i -> if i = d then Sint p else Sint (-1))))
            else None in
          (sel shr_b pb, sel shr_a pa) in
      x := cat ~dim:d (List.filter_map Fun.id [ xb; Some xx; xa ])) pads;
  (* shrink after for negative pads (reflection/replication must see full data first) *)
  let x = !x in
  Mv.shrink x (List.map2 (fun (pb, pa) s -> Some (Sint (- (Stdlib.min pb 0)), Sint (Stdlib.min (pa + s) s))) px (Mv.ishape x))

(** The modes of {!pad}. *)
type pad_mode = Mixin_intf.pad_mode

(* tinygrad: OpMixin.pad with grouped padding (one (before, after) pair per dim, [None] for none) *)
let pad ?(mode : pad_mode = `Constant) ?(value = Dtype.F 0.0) u (padding : (int * int) option list) =
  if List.length padding <> ndim u then
    invalid_arg (Printf.sprintf "pad: padding length is improper, %d pairs for shape %s" (List.length padding)
                   (Uop.shape_str (Uop.shape u)));
  let px = List.map (function None -> (0, 0) | Some p -> p) padding in
  match mode with
  | `Constant -> pad_constant u padding value
  | `Circular -> ignore (Mv.ishape u); pad_circular u px
  | (`Reflect | `Replicate) as m -> ignore (Mv.ishape u); pad_reflect_replicate u px m

(* ---------- normalisation ---------- *)

(* tinygrad: OpMixin.normalize *)
let normalize ?(p = 2.0) ?(dim = 1) ?(eps = 1e-12) u =
  let den =
    if p = 0.0 then R.sum ~axis:[ dim ] ~keepdim:true (E.ne u (E.ci 0))
    else E.pow (R.sum ~axis:[ dim ] ~keepdim:true (E.pow (E.abs u) (E.cf p))) (E.cf (1.0 /. p)) in
  E.div u (E.maximum den (E.cf eps))

(* tinygrad: OpMixin.softmin *)
let softmin ?(axis = -1) ?dtype u = softmax ~axis ?dtype (E.neg u)

(* tinygrad: OpMixin.var_mean *)
let var_mean ?axis ?keepdim ?correction u = (var ?axis ?keepdim ?correction u, mean ?axis ?keepdim u)

(* tinygrad: OpMixin.std_mean *)
let std_mean ?axis ?keepdim ?correction u = (std ?axis ?keepdim ?correction u, mean ?axis ?keepdim u)

(* tinygrad's pad mode strings *)
let pad_mode_of_string = function
  | "constant" -> `Constant | "reflect" -> `Reflect | "replicate" -> `Replicate | "circular" -> `Circular
  | m -> invalid_arg (Printf.sprintf "pad: mode=%S is not supported" m)

(* ---------- data-dependent selection ---------- *)

(* tinygrad: OpMixin.masked_select; with [size] None the output length is [count mask_cumsum_last] (realized by the
   caller: tinygrad's [.item()]) *)
let masked_select ?size ?(fill_value = Dtype.I Z.zero) ~(count : Uop.t -> int) u mask =
  if mask.dtype != Dtype.Bool then
    invalid_arg ("masked_select: expects bool mask tensor, got " ^ Dtype.to_string mask.dtype);
  let x = Mv.flatten u and mask = Mv.flatten (Mv.broadcast_to mask (Uop.shape u)) in
  let mask_cumsum = cumsum mask in
  let one = `Scalar 1.0 in
  match size with
  | None ->
    let n = if List.hd (Mv.ishape mask) = 0 then 0 else count (getitem mask_cumsum [ I (-1) ]) in
    let counts = Mixin_creation.zeros ~dtype:Dtype.Int32 ~buffer:false [ Sint n ] in
    getitem x [ T (cumsum (scatter ~reduce:`Add counts ~dim:0 mask_cumsum one)) ]
  | Some size ->
    let counts = scatter ~reduce:`Add (Mixin_creation.zeros ~dtype:Dtype.Int32 ~buffer:false [ Sint size ]) ~dim:0 mask_cumsum one in
    Mixin_dtype.cast (E.where (E.lt (arange size) (R.sum mask)) (getitem x [ T (cumsum counts) ]) (Uop.const fill_value))
      u.dtype

(* tinygrad: OpMixin.nonzero; [count] realizes an int as in {!masked_select} *)
let nonzero ?size ?(fill_value = Dtype.I Z.zero) ~(count : Uop.t -> int) u =
  let n = ndim u in
  if n = 0 then
    let rows = match size with Some s -> s | None -> count (Mixin_dtype.cast (E.ne u (E.ci 0)) Dtype.Int32) in
    Mixin_creation.zeros ~dtype:Dtype.Int32 ~buffer:false [ Sint rows; Sint 0 ]
  else begin
    let sh = Mv.ishape u in
    let mask = Mv.flatten (E.ne u (E.ci 0)) in
    let indices = Mv.stack ~dim:(-1) (List.mapi (fun i s ->
        Mv.flatten (Mv.expand (reshape (arange s) (List.init i (fun _ -> 1) @ [ s ] @ List.init (n - i - 1) (fun _ -> 1)))
                      (dims sh))) sh) in
    let m = Mv.expand (Mv.unsqueeze mask (-1)) (Uop.shape mask @ [ Sint n ]) in
    reshape (masked_select ?size:(Option.map (fun s -> s * n) size) ~fill_value ~count indices m) [ -1; n ]
  end

(* the tuple-argument forms under the names the carriers give them (Tensor's conv2d / max_pool2d / avg_pool2d take
   ints) *)
let conv_nd = conv2d
let max_pool_nd = max_pool2d
let max_pool_nd_with_indices = max_pool2d_with_indices
let avg_pool_nd = avg_pool2d

(* each right-hand side is the UOp function of the same name above *)
module Make (C : Mixin_intf.CARRIER) = struct
  let named = Mixin_dtype.named
  let lift op f = named op @@ fun () -> C.wrap_uop ~op (f ())
  let lift_pair op f = named op @@ fun () -> let a, b = f () in (C.wrap_uop ~op a, C.wrap_uop ~op b)
  let uop_opt = Option.map C.uop
  let min ?axis ?keepdim x = lift "min" @@ fun () -> min ?axis ?keepdim (C.uop x)
  let mean ?axis ?keepdim x = lift "mean" @@ fun () -> mean ?axis ?keepdim (C.uop x)
  let var ?axis ?keepdim ?correction x = lift "var" @@ fun () -> var ?axis ?keepdim ?correction (C.uop x)
  let std ?axis ?keepdim ?correction x = lift "std" @@ fun () -> std ?axis ?keepdim ?correction (C.uop x)
  let cat ?dim xs = lift "cat" @@ fun () -> cat ?dim (List.map C.uop xs)
  let arange ?start ?step ?dtype stop = lift "arange" @@ fun () -> arange ?start ?step ?dtype stop
  let arange_float ?start ?step ?dtype stop =
    lift "arange_float" @@ fun () -> arange_float ?start ?step ?dtype stop
  let linspace ?dtype start stop steps = lift "linspace" @@ fun () -> linspace ?dtype start stop steps
  let eye ?m ?dtype n = lift "eye" @@ fun () -> eye ?m ?dtype n
  let getitem x idx =
    let conv : C.t index -> Uop.t index = function
      | I i -> I i | S (a, b, c) -> S (a, b, c) | T t -> T (C.uop t) | New -> New | Ellipsis -> Ellipsis in
    lift "getitem" @@ fun () -> getitem (C.uop x) (List.map conv idx)
  let batchnorm ?weight ?bias ?axis x ~mean ~invstd =
    lift "batchnorm" @@ fun () ->
    batchnorm ?weight:(uop_opt weight) ?bias:(uop_opt bias) ?axis (C.uop x) ~mean:(C.uop mean)
      ~invstd:(C.uop invstd)
  let conv_nd ?bias ?groups ?stride ?dilation ?padding ?dtype x w =
    lift "conv_nd" @@ fun () ->
    conv_nd ?bias:(uop_opt bias) ?groups ?stride ?dilation ?padding ?dtype (C.uop x) (C.uop w)
  let max_pool_nd ?kernel_size ?stride ?dilation ?padding ?ceil_mode x =
    lift "max_pool_nd" @@ fun () -> max_pool_nd ?kernel_size ?stride ?dilation ?padding ?ceil_mode (C.uop x)
  let max_pool_nd_with_indices ?kernel_size ?stride ?dilation ?padding ?ceil_mode x =
    lift_pair "max_pool_nd_with_indices" @@ fun () ->
    max_pool_nd_with_indices ?kernel_size ?stride ?dilation ?padding ?ceil_mode (C.uop x)
  let avg_pool_nd ?kernel_size ?stride ?dilation ?padding ?ceil_mode ?count_include_pad x =
    lift "avg_pool_nd" @@ fun () ->
    avg_pool_nd ?kernel_size ?stride ?dilation ?padding ?ceil_mode ?count_include_pad (C.uop x)
  let conv_transpose2d ?bias ?groups ?stride ?dilation ?padding ?output_padding x w =
    lift "conv_transpose2d" @@ fun () ->
    conv_transpose2d ?bias:(uop_opt bias) ?groups ?stride ?dilation ?padding ?output_padding (C.uop x) (C.uop w)
  let max_unpool2d ?kernel_size ?stride ?dilation ?padding ?output_size x indices =
    lift "max_unpool2d" @@ fun () ->
    max_unpool2d ?kernel_size ?stride ?dilation ?padding ?output_size (C.uop x) (C.uop indices)
  let reduction_of_string s = named "reduction_of_string" @@ fun () -> reduction_of_string s
  let scatter_reduction_of_string s =
    named "scatter_reduction_of_string" @@ fun () -> scatter_reduction_of_string s
  let scatter_mode_of_string s = named "scatter_mode_of_string" @@ fun () -> scatter_mode_of_string s
  let pad_mode_of_string s = named "pad_mode_of_string" @@ fun () -> pad_mode_of_string s
  let scatter ?reduce x ~dim index src =
    let src = match src with `Tensor t -> `Tensor (C.uop t) | `Scalar f -> `Scalar f in
    lift "scatter" @@ fun () -> scatter ?reduce (C.uop x) ~dim (C.uop index) src
  let triu ?diagonal x = lift "triu" @@ fun () -> triu ?diagonal (C.uop x)
  let tril ?diagonal x = lift "tril" @@ fun () -> tril ?diagonal (C.uop x)
  let gather x ~dim y = lift "gather" @@ fun () -> gather (C.uop x) ~dim (C.uop y)
  let one_hot x y = lift "one_hot" @@ fun () -> one_hot (C.uop x) y
  let dot ?dtype x y = lift "dot" @@ fun () -> dot ?dtype (C.uop x) (C.uop y)
  let matmul ?reverse ?dtype x y = lift "matmul" @@ fun () -> matmul ?reverse ?dtype (C.uop x) (C.uop y)
  let linear ?bias ?dtype x y =
    lift "linear" @@ fun () -> linear ?bias:(uop_opt bias) ?dtype (C.uop x) (C.uop y)
  let logsumexp ?axis ?keepdim x = lift "logsumexp" @@ fun () -> logsumexp ?axis ?keepdim (C.uop x)
  let softmax ?axis ?dtype x = lift "softmax" @@ fun () -> softmax ?axis ?dtype (C.uop x)
  let log_softmax ?axis ?dtype x = lift "log_softmax" @@ fun () -> log_softmax ?axis ?dtype (C.uop x)
  let argmax ?axis ?keepdim x = lift "argmax" @@ fun () -> argmax ?axis ?keepdim (C.uop x)
  let argmin ?axis ?keepdim x = lift "argmin" @@ fun () -> argmin ?axis ?keepdim (C.uop x)
  let cumsum ?axis x = lift "cumsum" @@ fun () -> cumsum ?axis (C.uop x)
  let cumprod ~axis x = lift "cumprod" @@ fun () -> cumprod ~axis (C.uop x)
  let layernorm ?axis ?eps x = lift "layernorm" @@ fun () -> layernorm ?axis ?eps (C.uop x)
  let binary_crossentropy ?reduction x y =
    lift "binary_crossentropy" @@ fun () -> binary_crossentropy ?reduction (C.uop x) (C.uop y)
  let binary_crossentropy_logits ?reduction ?pos_weight x y =
    lift "binary_crossentropy_logits" @@ fun () ->
    binary_crossentropy_logits ?reduction ?pos_weight:(uop_opt pos_weight) (C.uop x) (C.uop y)
  let sparse_categorical_crossentropy ?ignore_index ?label_smoothing ?reduction x y =
    lift "sparse_categorical_crossentropy" @@ fun () ->
    sparse_categorical_crossentropy ?ignore_index ?label_smoothing ?reduction (C.uop x) (C.uop y)
  let cross_entropy ?reduction ?label_smoothing x y =
    lift "cross_entropy" @@ fun () -> cross_entropy ?reduction ?label_smoothing (C.uop x) (C.uop y)
  let nll_loss ?weight ?ignore_index ?reduction x y =
    lift "nll_loss" @@ fun () -> nll_loss ?weight:(uop_opt weight) ?ignore_index ?reduction (C.uop x) (C.uop y)
  let diagonal ?offset ?dim1 ?dim2 x = lift "diagonal" @@ fun () -> diagonal ?offset ?dim1 ?dim2 (C.uop x)
  let einsum ?dtype x y = lift "einsum" @@ fun () -> einsum ?dtype x (List.map C.uop y)
  let interpolate ?mode ?align_corners x y =
    lift "interpolate" @@ fun () -> interpolate ?mode ?align_corners (C.uop x) y
  let cummax ?axis x = lift_pair "cummax" @@ fun () -> cummax ?axis (C.uop x)
  let cummin ?axis x = lift_pair "cummin" @@ fun () -> cummin ?axis (C.uop x)
  let logcumsumexp ?axis x = lift "logcumsumexp" @@ fun () -> logcumsumexp ?axis (C.uop x)
  let sort ?dim ?descending x = lift_pair "sort" @@ fun () -> sort ?dim ?descending (C.uop x)
  let argsort ?dim ?descending x = lift "argsort" @@ fun () -> argsort ?dim ?descending (C.uop x)
  let topk ?dim ?largest ?sorted_ x y = lift_pair "topk" @@ fun () -> topk ?dim ?largest ?sorted_ (C.uop x) y
  let scatter_reduce ?include_self x ~dim y z w =
    lift "scatter_reduce" @@ fun () -> scatter_reduce ?include_self (C.uop x) ~dim (C.uop y) (C.uop z) w
  let normalize ?p ?dim ?eps x = lift "normalize" @@ fun () -> normalize ?p ?dim ?eps (C.uop x)
  let softmin ?axis ?dtype x = lift "softmin" @@ fun () -> softmin ?axis ?dtype (C.uop x)
  let var_mean ?axis ?keepdim ?correction x =
    lift_pair "var_mean" @@ fun () -> var_mean ?axis ?keepdim ?correction (C.uop x)
  let std_mean ?axis ?keepdim ?correction x =
    lift_pair "std_mean" @@ fun () -> std_mean ?axis ?keepdim ?correction (C.uop x)
end
