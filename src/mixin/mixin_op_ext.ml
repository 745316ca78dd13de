(* tinygrad: mixin/op.py (OpMixin), the ops beyond mixin_op.ml: cummax / cummin / logcumsumexp, sort / argsort /
   topk, scatter / scatter_reduce, the reflect / replicate / circular pad modes, normalize, softmin,
   var_mean / std_mean. Functions over UOps, as the other mixins. *)

open Uop
module E = Mixin_elementwise
module Mv = Mixin_movement
module R = Mixin_reduce
module Op = Mixin_op

let ndim (u : Uop.t) = List.length (Uop.shape u)
let sints l = List.map (fun i -> Sint i) l
let reshape u s = Mv.reshape u (sints s)
let transpose u a b = Mv.transpose ~dim0:a ~dim1:b u
let somes l = List.map (fun i -> Some (Sint i)) l
let ci = E.ci

(* tinygrad: Tensor.ones(n, m, dtype=dtypes.bool, buffer=False) *)
let ones_bool n m = Mixin_creation.full ~dtype:Dtype.Bool ~buffer:false [ Sint n; Sint m ] (Dtype.B true)

(* ---------- scans ---------- *)

(* tinygrad: OpMixin.cummax *)
let cummax ?(axis = 0) u =
  if ndim u = 0 then (Op.split_cumalu u axis Ops.Max, Mixin_creation.zeros ~dtype:Dtype.Int32 ~buffer:false [])
  else begin
    let values = Op.split_cumalu u axis Ops.Max in
    let n = List.nth (Mv.ishape u) (Mv.resolve_dim ~op:"cummax" u axis) in
    let x = transpose u axis (-1) and values_t = transpose values axis (-1) in
    let m = E.mul (E.eq (Mv.unsqueeze x (-1)) (Mv.unsqueeze values_t (-2))) (Op.triu (ones_bool n n)) in
    let ar = reshape (Op.arange ~start:n ~step:(-1) 0) [ n; 1 ] in
    let idx = Mixin_dtype.cast (E.add (E.neg (R.max ~axis:[ -2 ] (E.mul m ar))) (ci n)) Dtype.Int32 in
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
    let mask = Op.tril (ones_bool last last) in
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
    let x = ref (Mv.unflatten (R.pad_constant u pads fill) dim (sints (List.init n_stages (fun _ -> 2)))) in
    for stage = 1 to n_stages do
      let crossover_dim = dim + n_stages - stage - 1 in
      let flip_dims = List.init (stage + (sdim - dim)) (fun i -> -(i + 1)) in
      if stage <> n_stages then begin
        (* flip so arrows of green boxes point the same way as blue boxes *)
        let blue_box, green_box = split2 "sort" ~dim:crossover_dim !x in
        x := E.contiguous (R.cat ~dim:crossover_dim [ blue_box; Mv.flip green_box flip_dims ])
      end;
      for substage = stage - 1 downto 0 do
        let partner_dim = dim + n_stages - substage - 1 in
        let x_top, x_bottom = split2 "sort" ~dim:partner_dim !x in
        let x_larger = E.maximum x_top x_bottom and x_smaller = E.minimum x_top x_bottom in
        x := E.contiguous (if descending then R.cat ~dim:partner_dim [ x_larger; x_smaller ]
                           else R.cat ~dim:partner_dim [ x_smaller; x_larger ])
      done;
      if stage <> n_stages then begin
        (* flip wires back to undo the crossover *)
        let blue_box, flipped_green_box = split2 "sort" ~dim:crossover_dim !x in
        x := R.cat ~dim:crossover_dim [ blue_box; Mv.flip flipped_green_box flip_dims ]
      end
    done;
    let x = Mv.shrink_to (Mv.flatten ~start_dim:dim ~end_dim:(dim + n_stages - 1) !x) (List.map Option.some (Uop.shape u)) in
    (* compute indices for sorted values *)
    let mask = reshape (Op.tril (ones_bool orig_len orig_len)) ([ orig_len; orig_len ] @ List.init (sdim - dim - 1) (fun _ -> 1)) in
    let compute_counts t =
      R.sum ~axis:[ dim + 1 ] (E.bitwise_and mask (E.eq (Mv.unsqueeze t dim) (Mv.unsqueeze t (dim + 1)))) in
    let count_orig = compute_counts u and count_sorted = compute_counts x in
    let cond = E.bitwise_and (E.eq (Mv.unsqueeze u (dim + 1)) (Mv.unsqueeze x dim))
        (E.eq (Mv.unsqueeze count_orig (dim + 1)) (Mv.unsqueeze count_sorted dim)) in
    let idx = reshape (Op.arange orig_len) (List.init (ndim x) (fun i -> if i = dim then orig_len else 1)) in
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
  let src = transpose (Mv.expand (Mv.unsqueeze src (-1)) (sints (ish @ [ List.nth sh dim ]))) (-1) dim in
  let mask = transpose (Op.one_hot_along_dim (Mv.unsqueeze index (-1)) (List.nth sh dim)) (-1) dim in
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
  | `Sum -> E.add (R.sum ~axis:[ -1 ] (E.where mask src (ci 0))) (self_or u (ci 0))
  | `Prod -> E.mul (R.prod ~axis:[ -1 ] (E.where mask src (ci 1))) (self_or u (ci 1))
  | `Amax ->
    let m = Uop.const (Dtype.min src.dtype) in
    E.maximum (R.max ~axis:[ -1 ] (E.where mask src m)) (self_or u m)
  | `Amin ->
    let m = Uop.const (Dtype.max src.dtype) in
    E.minimum (R.min ~axis:[ -1 ] (E.where mask src m)) (self_or u m)
  | `Mean ->
    let count = E.add (R.sum ~axis:[ -1 ] (E.where mask (ci 1) (ci 0))) (if include_self then ci 1 else inv_mask (ci 1) (ci 0)) in
    E.div (E.add (R.sum ~axis:[ -1 ] (E.where mask src (ci 0))) (self_or u (ci 0))) count

(* tinygrad: OpMixin._masked_merge — if mask repeats indices the last one remains *)
let masked_merge u values mask (axes : int list) =
  let mask, values = List.fold_left (fun (mask, values) dim ->
      match List.combine (Mv.split ~dim mask (`Size 1)) (Mv.split ~dim values (`Size 1)) with
      | first :: rest -> List.fold_left (fun (xm, xv) (ym, yv) -> (E.bitwise_or xm ym, E.where ym yv xv)) first rest
      | [] -> invalid_arg "scatter: empty split") (mask, values) (List.rev axes) in
  let mask, values = List.fold_left (fun (m, v) dim -> (Mv.squeeze ~dim m, Mv.squeeze ~dim v)) (mask, values) (List.rev axes) in
  E.where mask values u

(** The source of {!scatter}: a tensor or a scalar. *)
type scatter_src = [ `Tensor of Uop.t | `Scalar of Dtype.const ]

(* tinygrad's scatter reduce strings (None is no reduce) *)
let scatter_mode_of_string = function
  | "add" -> `Add | "multiply" -> `Multiply
  | r -> invalid_arg (Printf.sprintf "scatter: reduce=%S must be one of None, 'multiply', or 'add'" r)

(* tinygrad: OpMixin.scatter *)
let scatter ?reduce u ~dim index (src : scatter_src) =
  let src = match src with
    | `Scalar v -> Mixin_creation.full ~dtype:u.dtype ~buffer:false (Uop.shape index) v
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
          let slc_b = Op.S (Some pb, Some 0, Some (-1))
          and slc_a = Op.S (Some (s - 2), (if s - 2 - pa >= 0 then Some (s - 2 - pa) else None), Some (-1)) in
          let sel slc p =
            if p > 0 then Some (Op.getitem xx (List.init n (fun i -> if i = d then slc else Op.S (None, None, None)))) else None in
          (sel slc_b pb, sel slc_a pa)
        | `Replicate ->
          let shr_b = List.init n (fun i -> if i = d then Some (Sint 0, Sint 1) else None)
          and shr_a = List.init n (fun i -> if i = d then Some (Sint (s - 1), Sint s) else None) in
          let sel shr p =
            if p > 0 then Some (Mv.expand (Mv.shrink xx shr) (List.init n (fun i -> if i = d then Sint p else Sint (-1))))
            else None in
          (sel shr_b pb, sel shr_a pa) in
      x := R.cat ~dim:d (List.filter_map Fun.id [ xb; Some xx; xa ])) pads;
  (* shrink after for negative pads (reflection/replication must see full data first) *)
  let x = !x in
  Mv.shrink x (List.map2 (fun (pb, pa) s -> Some (Sint (- (Stdlib.min pb 0)), Sint (Stdlib.min (pa + s) s))) px (Mv.ishape x))

(** The modes of {!pad}. *)
type pad_mode = [ `Constant | `Reflect | `Replicate | `Circular ]

(* tinygrad: OpMixin.pad with grouped padding (one (before, after) pair per dim, [None] for none) *)
let pad ?(mode : pad_mode = `Constant) ?(value = Dtype.F 0.0) u (padding : (int * int) option list) =
  if List.length padding <> ndim u then
    invalid_arg (Printf.sprintf "pad: padding length is improper, %d pairs for shape %s" (List.length padding)
                   (Uop.shape_str (Uop.shape u)));
  let px = List.map (function None -> (0, 0) | Some p -> p) padding in
  match mode with
  | `Constant -> R.pad_constant u padding value
  | `Circular -> ignore (Mv.ishape u); pad_circular u px
  | (`Reflect | `Replicate) as m -> ignore (Mv.ishape u); pad_reflect_replicate u px m

(* ---------- normalisation ---------- *)

(* tinygrad: OpMixin.normalize *)
let normalize ?(p = 2.0) ?(dim = 1) ?(eps = 1e-12) u =
  let den =
    if p = 0.0 then R.sum ~axis:[ dim ] ~keepdim:true (E.ne u (ci 0))
    else E.pow (R.sum ~axis:[ dim ] ~keepdim:true (E.pow (E.abs u) (E.cf p))) (E.cf (1.0 /. p)) in
  E.div u (E.maximum den (E.cf eps))

(* tinygrad: OpMixin.softmin *)
let softmin ?(axis = -1) ?dtype u = Op.softmax ~axis ?dtype (E.neg u)

(* tinygrad: OpMixin.var_mean *)
let var_mean ?axis ?keepdim ?correction u = (R.var ?axis ?keepdim ?correction u, R.mean ?axis ?keepdim u)

(* tinygrad: OpMixin.std_mean *)
let std_mean ?axis ?keepdim ?correction u = (R.std ?axis ?keepdim ?correction u, R.mean ?axis ?keepdim u)

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
  let mask_cumsum = Op.cumsum mask in
  let one = `Scalar (Dtype.I Z.one) in
  match size with
  | None ->
    let n = if List.hd (Mv.ishape mask) = 0 then 0 else count (Op.getitem mask_cumsum [ Op.I (-1) ]) in
    let counts = Mixin_creation.zeros ~dtype:Dtype.Int32 ~buffer:false [ Sint n ] in
    Op.getitem x [ Op.T (Op.cumsum (scatter ~reduce:`Add counts ~dim:0 mask_cumsum one)) ]
  | Some size ->
    let counts = scatter ~reduce:`Add (Mixin_creation.zeros ~dtype:Dtype.Int32 ~buffer:false [ Sint size ]) ~dim:0 mask_cumsum one in
    Mixin_dtype.cast (E.where (E.lt (Op.arange size) (R.sum mask)) (Op.getitem x [ Op.T (Op.cumsum counts) ]) (Uop.const fill_value))
      u.dtype

(* tinygrad: OpMixin.nonzero; [count] realizes an int as in {!masked_select} *)
let nonzero ?size ?(fill_value = Dtype.I Z.zero) ~(count : Uop.t -> int) u =
  let n = ndim u in
  if n = 0 then
    let rows = match size with Some s -> s | None -> count (Mixin_dtype.cast (E.ne u (ci 0)) Dtype.Int32) in
    Mixin_creation.zeros ~dtype:Dtype.Int32 ~buffer:false [ Sint rows; Sint 0 ]
  else begin
    let sh = Mv.ishape u in
    let mask = Mv.flatten (E.ne u (ci 0)) in
    let indices = Mv.stack ~dim:(-1) (List.mapi (fun i s ->
        Mv.flatten (Mv.expand (reshape (Op.arange s) (List.init i (fun _ -> 1) @ [ s ] @ List.init (n - i - 1) (fun _ -> 1)))
                      (sints sh))) sh) in
    let m = Mv.expand (Mv.unsqueeze mask (-1)) (Uop.shape mask @ [ Sint n ]) in
    reshape (masked_select ?size:(Option.map (fun s -> s * n) size) ~fill_value ~count indices m) [ -1; n ]
  end

(* each right-hand side is the UOp function of the same name above *)
module Make (C : Mixin_intf.CARRIER) = struct
  let named = Mixin_dtype.named
  let cummax ?axis x =
    named "cummax" @@ fun () ->
    let a, b = cummax ?axis (C.uop x) in (C.wrap_uop ~op:"cummax" a, C.wrap_uop ~op:"cummax" b)
  let cummin ?axis x =
    named "cummin" @@ fun () ->
    let a, b = cummin ?axis (C.uop x) in (C.wrap_uop ~op:"cummin" a, C.wrap_uop ~op:"cummin" b)
  let logcumsumexp ?axis x =
    named "logcumsumexp" @@ fun () ->
    C.wrap_uop ~op:"logcumsumexp" (logcumsumexp ?axis (C.uop x))
  let sort ?dim ?descending x =
    named "sort" @@ fun () ->
    let a, b = sort ?dim ?descending (C.uop x) in (C.wrap_uop ~op:"sort" a, C.wrap_uop ~op:"sort" b)
  let argsort ?dim ?descending x =
    named "argsort" @@ fun () ->
    C.wrap_uop ~op:"argsort" (argsort ?dim ?descending (C.uop x))
  let topk ?dim ?largest ?sorted_ x y =
    named "topk" @@ fun () ->
    let a, b = topk ?dim ?largest ?sorted_ (C.uop x) y in (C.wrap_uop ~op:"topk" a, C.wrap_uop ~op:"topk" b)
  let scatter_reduce ?include_self x ~dim y z w =
    named "scatter_reduce" @@ fun () ->
    C.wrap_uop ~op:"scatter_reduce" (scatter_reduce ?include_self (C.uop x) ~dim (C.uop y) (C.uop z) w)
  let normalize ?p ?dim ?eps x =
    named "normalize" @@ fun () ->
    C.wrap_uop ~op:"normalize" (normalize ?p ?dim ?eps (C.uop x))
  let softmin ?axis ?dtype x =
    named "softmin" @@ fun () ->
    C.wrap_uop ~op:"softmin" (softmin ?axis ?dtype (C.uop x))
  let var_mean ?axis ?keepdim ?correction x =
    named "var_mean" @@ fun () ->
    let a, b = var_mean ?axis ?keepdim ?correction (C.uop x) in (C.wrap_uop ~op:"var_mean" a, C.wrap_uop ~op:"var_mean" b)
  let std_mean ?axis ?keepdim ?correction x =
    named "std_mean" @@ fun () ->
    let a, b = std_mean ?axis ?keepdim ?correction (C.uop x) in (C.wrap_uop ~op:"std_mean" a, C.wrap_uop ~op:"std_mean" b)
end
