(* tinygrad: mixin/movement.py (MovementMixin) as functions over UOps.
   Shapes are [Uop.sint list]; [None] entries of tinygrad's tuple arguments are [option]s. *)

open Uop

let shape (x : Uop.t) = Uop.shape x
let sstr = Uop.shape_str
let ints_str l = "(" ^ String.concat ", " (List.map string_of_int l) ^ (if List.length l = 1 then ",)" else ")")

(* python [a == b] on sints (UOps by identity) *)
let seq = Uop.sint_equal
let shape_eq a b = List.length a = List.length b && List.for_all2 seq a b
let to_int op = function
  | Sint i -> i
  | Suop _ -> invalid_arg (op ^ ": symbolic shape not supported")

(* the int shape of a node; a symbolic shape is refused, naming [op] *)
let ishape ?(op = "shape") (x : Uop.t) = List.map (to_int op) (shape x)

(* python [resolve(s == 1, default=False)] *)
let is_one = function Sint 1 -> true | _ -> false

(* tinygrad: MovementMixin.ndim *)
let ndim x = List.length (shape x)

(* tinygrad: MovementMixin.numel *)
let numel x = Uop.sprod (shape x)

(* tinygrad: MovementMixin.size *)
let size ?dim x = match dim with None -> shape x | Some d -> [ List.nth (shape x) d ]

(* tinygrad: MovementMixin._resolve_dim *)
let resolve_dim ?(op = "dim") ?(extra = false) x dim =
  let total = ndim x + if extra then 1 else 0 in
  let hi = Stdlib.max 1 total in
  if not (-hi <= dim && dim <= hi - 1) then
    invalid_arg (Printf.sprintf "%s: dim=%d out of range [%d, %d] for shape %s" op dim (-hi) (hi - 1) (sstr (shape x)));
  if dim < 0 then dim + total else dim

(* tinygrad: uop/ops.py _align_left *)
let align_left shapes =
  let max_dim = List.fold_left (fun m s -> Stdlib.max m (List.length s)) 0 shapes in
  List.map (fun s -> List.init (max_dim - List.length s) (fun _ -> Sint 1) @ s) shapes

(* tinygrad: uop/ops.py broadcast_axes — out axes that are added or expanded *)
let broadcast_axes src_shape out_shape =
  let nleft = List.length out_shape - List.length src_shape in
  if nleft < 0 then invalid_arg (Printf.sprintf "broadcast: cannot broadcast %s into %s" (sstr src_shape) (sstr out_shape));
  List.init nleft (fun i -> i)
  @ List.concat (List.mapi (fun i s -> if is_one s && not (is_one (List.nth out_shape (nleft + i))) then [ nleft + i ] else [])
                   src_shape)

let index_of x l = let rec go i = function [] -> raise Not_found | y :: t -> if y = x then i else go (i + 1) t in go 0 l
let range n = List.init n (fun i -> i)

(* tinygrad: MovementMixin.permute *)
let permute x order =
  let order_arg = List.map (resolve_dim ~op:"permute" x) order in
  if List.sort compare order_arg <> range (ndim x) then
    invalid_arg (Printf.sprintf "permute: order is not a valid permutation, getting %s for shape %s" (ints_str order_arg)
                   (sstr (shape x)));
  if order_arg <> range (ndim x) then Uop.mop Ops.Permute x (`Perm order_arg) else x

(* tinygrad: MovementMixin.reshape; one [Sint (-1)] is inferred *)
let reshape x (new_shape : sint list) =
  let c = List.length (List.filter (function Sint -1 -> true | _ -> false) new_shape) in
  if c > 1 then invalid_arg (Printf.sprintf "reshape: only one dimension can be inferred using -1, getting %s" (sstr new_shape));
  let new_shape =
    if c = 0 then new_shape
    else
      let p = Uop.sprod (shape x) and q = Uop.sprod new_shape in
      let inferred = match p, q with
        | Sint p, Sint q ->
          if q = 0 then invalid_arg (Printf.sprintf "reshape: cannot infer -1 in %s from %s" (sstr new_shape) (sstr (shape x)));
          Sint (Helpers.floordiv (-p) q)
        | _ -> Uop.sint_of_uop (Uop.ssimplify (Uop.idiv (Uop.neg (Uop.sint_to_uop p)) (Uop.sint_to_uop q))) in
      List.map (function Sint -1 -> inferred | s -> s) new_shape in
  if not (seq (Uop.sprod (shape x)) (Uop.sprod new_shape)) then
    invalid_arg (Printf.sprintf "reshape: size mismatch, can't reshape %s -> %s" (sstr (shape x)) (sstr new_shape));
  if List.exists (function Sint i -> i < 0 | _ -> false) new_shape then
    invalid_arg (Printf.sprintf "reshape: shape can't contain negative numbers %s -> %s" (sstr (shape x)) (sstr new_shape));
  let ret = Uop.mop Ops.Reshape x (`Shape new_shape) in
  if shape_eq (shape ret) (shape x) then x else ret

(* tinygrad: MovementMixin._broadcast_to *)
let broadcast_to x new_shape =
  let xs = shape x in
  if shape_eq xs new_shape then x
  else begin
    if List.length xs > List.length new_shape then
      invalid_arg (Printf.sprintf "expand: cannot broadcast tensor to fewer dimensions. shape=%s to new_shape=%s" (sstr xs)
                     (sstr new_shape));
    let aligned = List.hd (align_left [ xs; new_shape ]) in
    if not (List.for_all2 (fun s ns -> seq s ns || is_one s) aligned new_shape) then
      invalid_arg (Printf.sprintf "expand: cannot broadcast %s to new_shape=%s" (sstr xs) (sstr new_shape));
    (* EXPAND only adds dims on the left. squeeze 1s that need expanding, EXPAND on left, permute back. *)
    let n_left = List.length new_shape - List.length xs in
    let expand_at = List.filter_map (fun i -> if i >= n_left then Some (i - n_left) else None) (broadcast_axes xs new_shape) in
    let kept = List.filter (fun i -> not (List.mem i expand_at)) (range (List.length xs)) in
    let squeezed = reshape x (List.map (fun i -> List.nth xs i) kept) in
    let expanded =
      Uop.mop Ops.Expand squeezed
        (`Shape (List.filteri (fun i _ -> i < n_left) new_shape @ List.map (fun i -> List.nth new_shape (n_left + i)) expand_at)) in
    let perm = range n_left @ List.map (fun i ->
        n_left + (if List.mem i expand_at then index_of i expand_at else List.length expand_at + index_of i kept))
        (range (List.length xs)) in
    permute expanded perm
  end

(* tinygrad: MovementMixin.expand; [Sint (-1)] keeps a dimension *)
let expand x (new_shape : sint list) =
  let a = align_left [ shape x; new_shape ] in
  broadcast_to x (List.map2 (fun from_ to_ -> match to_ with Sint -1 -> from_ | t -> t) (List.nth a 0) (List.nth a 1))

(* tinygrad: MovementMixin.pad (pairs of (before, after); [None] is no padding) *)
let pad x (arg : (sint * sint) option list) =
  if ndim x <> List.length arg then
    invalid_arg (Printf.sprintf "pad: self.ndim=%d != len(arg)=%d for shape %s" (ndim x) (List.length arg) (sstr (shape x)));
  let ret = Uop.mop Ops.Pad x (`Pairs (List.map2 (fun a s -> match a with
      | Some (b, e) -> (b, Uop.sint_add (Uop.sint_add s b) e)
      | None -> (Sint 0, s)) arg (shape x))) in
  if shape_eq (shape ret) (shape x) then x else ret

(* tinygrad: MovementMixin.shrink (pairs of (start, end); [None] keeps the axis) *)
let shrink x (arg : (sint * sint) option list) =
  if ndim x <> List.length arg then
    invalid_arg (Printf.sprintf "shrink: self.ndim=%d != len(arg)=%d for shape %s" (ndim x) (List.length arg) (sstr (shape x)));
  let pairs = List.map2 (fun a s -> match a with
      | Some (b, e) ->
        (match b, e, s with
         | Sint b', Sint e', Sint s' when b' < 0 || e' < b' || e' > s' ->
           invalid_arg (Printf.sprintf "shrink: invalid shrink (%d, %d) for shape %s" b' e' (sstr (shape x)))
         | _ -> ());
        (b, Uop.sint_add e (match b with Sint i -> Sint (-i) | Suop u -> Uop.sint_of_uop (Uop.neg u)))
      | None -> (Sint 0, s)) arg (shape x) in
  let ret = Uop.mop Ops.Shrink x (`Pairs pairs) in
  if shape_eq (shape ret) (shape x) then x else ret

(* tinygrad: MovementMixin.flip *)
let flip x axis =
  let axis_arg = List.map (resolve_dim ~op:"flip" x) axis in
  if List.length axis_arg <> List.length (Helpers.dedup axis_arg) then
    invalid_arg (Printf.sprintf "flip: dim can appear at most once, getting %s" (ints_str axis_arg));
  let flip_arg = List.map (fun i -> List.mem i axis_arg) (range (ndim x)) in
  if List.exists (fun b -> b) flip_arg then Uop.mop Ops.Flip x (`Flip flip_arg) else x

(* tinygrad: UOp._mop for Ops.STACK: the sources in the common dtype *)
let stack_mop (x : Uop.t) (rest : Uop.t list) =
  let srcs = x :: rest in
  let dtype = match Uop.dtype_from_uop Ops.Stack (Array.of_list srcs) No_arg with Some d -> d | None -> x.dtype in
  Uop.create Ops.Stack ~src:(Array.of_list (List.map (fun (u : Uop.t) ->
      if Uop.is_invalid (Uop.base u) then u
      else if u.op == Ops.Const then Uop.const ~dtype (Uop.const_val u)
      else Uop.cast dtype u) srcs))

(* tinygrad: MovementMixin.stack *)
let stack ?(dim = 0) (tensors : Uop.t list) =
  match tensors with
  | [] -> invalid_arg "stack: needs at least one tensor"
  | t0 :: rest ->
    let dim = resolve_dim ~op:"stack" ~extra:true t0 dim in
    if not (List.for_all (fun t -> shape_eq (shape t) (shape t0)) rest) then
      invalid_arg ("stack: all shapes must match for stack, got " ^ String.concat ", " (List.map (fun t -> sstr (shape t)) tensors));
    let ret = stack_mop t0 rest in
    if dim = 0 then ret
    else permute ret (List.init dim (fun i -> i + 1) @ [ 0 ] @ List.init (ndim ret - dim - 1) (fun i -> i + dim + 1))

(* **** high level **** *)

(* tinygrad: MovementMixin.shrink_to ([None] keeps the axis) *)
let shrink_to x (new_shape : sint option list) = shrink x (List.map (Option.map (fun ns -> (Sint 0, ns))) new_shape)

(* tinygrad: MovementMixin.pad_to ([None] keeps the axis) *)
let pad_to x (new_shape : sint option list) =
  if List.length new_shape <> ndim x then
    invalid_arg (Printf.sprintf "pad_to: %d sizes for shape %s" (List.length new_shape) (sstr (shape x)));
  let ret = Uop.mop Ops.Pad x (`Pairs (List.map2 (fun s ns -> (Sint 0, Option.value ns ~default:s)) (shape x) new_shape)) in
  if shape_eq (shape ret) (shape x) then x else ret

(* tinygrad: MovementMixin.view *)
let view = reshape

(* tinygrad: MovementMixin.squeeze *)
let squeeze ?dim x =
  match dim with
  | None -> reshape x (List.filter (fun d -> not (is_one d)) (shape x))
  | Some dim ->
    let dim = resolve_dim ~op:"squeeze" x dim in
    if ndim x = 0 || not (is_one (List.nth (shape x) dim)) then x
    else reshape x (List.filteri (fun i _ -> i <> dim) (shape x))

(* tinygrad: MovementMixin.unsqueeze *)
let unsqueeze x dim =
  let dim = resolve_dim ~op:"unsqueeze" ~extra:true x dim in
  let s = shape x in
  reshape x (List.filteri (fun i _ -> i < dim) s @ [ Sint 1 ] @ List.filteri (fun i _ -> i >= dim) s)

(* tinygrad: MovementMixin.transpose (python indexing allows negative dims) *)
let transpose ?(dim0 = 1) ?(dim1 = 0) x =
  let n = ndim x in
  let norm d = if d < -n || d >= n then invalid_arg (Printf.sprintf "transpose: dim %d out of range for shape %s" d (sstr (shape x)))
    else if d < 0 then d + n else d in
  let d0 = norm dim0 and d1 = norm dim1 in
  let order = List.map (fun i -> if i = d0 then d1 else if i = d1 then d0 else i) (range n) in
  permute x order

(* tinygrad: MovementMixin.flatten *)
let flatten ?(start_dim = 0) ?(end_dim = -1) x =
  let s = resolve_dim ~op:"flatten" x start_dim and e = resolve_dim ~op:"flatten" x end_dim in
  let sh = shape x in
  reshape x (List.filteri (fun i _ -> i < s) sh @ [ Uop.sprod (List.filteri (fun i _ -> i >= s && i <= e) sh) ]
             @ List.filteri (fun i _ -> i > e) sh)

(* tinygrad: MovementMixin.unflatten *)
let unflatten x dim (sizes : sint list) =
  let dim = resolve_dim ~op:"unflatten" x dim in
  let sh = shape x in
  reshape x (List.filteri (fun i _ -> i < dim) sh @ sizes @ List.filteri (fun i _ -> i > dim) sh)

(* tinygrad: MovementMixin.split; [`Size n] chunks of n, [`Sizes l] explicit sizes *)
let split ?(dim = 0) x sizes =
  let dim = resolve_dim ~op:"split" x dim in
  let dim_sz = to_int "split" (List.nth (shape x) dim) in
  let sizes = match sizes with
    | `Sizes l -> l
    | `Size n ->
      let step = Stdlib.max 1 n in
      let rec go i = if i >= Stdlib.max 1 dim_sz then [] else Stdlib.min n (dim_sz - i) :: go (i + step) in
      go 0 in
  if List.fold_left ( + ) 0 sizes <> dim_sz then
    invalid_arg (Printf.sprintf "split: expect sizes to sum exactly to %d, but got %d" dim_sz (List.fold_left ( + ) 0 sizes));
  let _, parts = List.fold_left (fun (off, acc) sz ->
      (off + sz, shrink x (List.mapi (fun j _ -> if j = dim then Some (Sint off, Sint (off + sz)) else None) (shape x)) :: acc))
      (0, []) sizes in
  List.rev parts

(* tinygrad: MovementMixin.chunk *)
let chunk ?(dim = 0) x chunks =
  let dim = resolve_dim ~op:"chunk" x dim in
  let dim_sz = to_int "chunk" (List.nth (shape x) dim) in
  if chunks <= 0 then invalid_arg (Printf.sprintf "chunk: expect chunks to be greater than 0, got: %d" chunks);
  split ~dim x (if dim_sz > 0 then `Size (Helpers.ceildiv dim_sz chunks) else `Sizes (List.init chunks (fun _ -> 0)))

(* tinygrad: MovementMixin.repeat *)
let repeat x (repeats : sint list) =
  let base_shape = List.hd (align_left [ shape x; repeats ]) in
  if List.length repeats < ndim x then
    invalid_arg (Printf.sprintf "repeat: %d repeats for shape %s" (List.length repeats) (sstr (shape x)));
  let unsqueezed = List.concat (List.map2 (fun r s -> if is_one r then [ s ] else [ Sint 1; s ]) repeats base_shape) in
  let expanded = List.concat (List.map2 (fun r s -> if is_one r then [ s ] else [ r; s ]) repeats base_shape) in
  let final = List.map2 Uop.sint_mul repeats base_shape in
  reshape (expand (reshape x unsqueezed) expanded) final

(* tinygrad: MovementMixin.repeat_interleave *)
let repeat_interleave ?dim x repeats =
  let x, dim = match dim with None -> (flatten x, 0) | Some d -> (x, resolve_dim ~op:"repeat_interleave" x d) in
  let shp = shape x in
  let before = List.filteri (fun i _ -> i <= dim) shp and after = List.filteri (fun i _ -> i > dim) shp in
  let x = reshape x (before @ [ Sint 1 ] @ after) in
  let x = expand x (before @ [ Sint repeats ] @ after) in
  reshape x (List.filteri (fun i _ -> i < dim) shp @ [ Uop.sint_mul (List.nth shp dim) (Sint repeats) ] @ after)

(* tinygrad: MovementMixin.roll *)
let rec roll ?dims x shifts =
  match dims with
  | None -> reshape (roll ~dims:[ 0 ] (flatten x) shifts) (shape x)
  | Some d ->
    let dims = List.map (resolve_dim ~op:"roll" x) d in
    if List.length dims <> List.length shifts then
      invalid_arg (Printf.sprintf "roll: len(dims)=%d != len(shifts)=%d" (List.length dims) (List.length shifts));
    let sh = List.map (to_int "roll") (shape x) in
    if List.mem 0 sh then x
    else
      let shrink_arg = List.mapi (fun i s ->
          match List.assoc_opt i (List.combine dims shifts) with
          | Some sft -> let delta = s - Helpers.floormod sft s in Some (Sint delta, Sint (delta + s))
          | None -> None) sh in
      shrink (repeat x (List.mapi (fun i _ -> Sint (if List.mem i dims then 2 else 1)) sh)) shrink_arg

(* tinygrad: MovementMixin.diag *)
let diag x =
  if ndim x <> 1 then invalid_arg (Printf.sprintf "diag: expect input to be 1-D, getting %d-D" (ndim x));
  let n = List.hd (shape x) in
  let u = pad_to (unsqueeze x (-1)) [ None; Some (Uop.sint_add (Sint 1) n) ] in
  reshape (shrink_to (flatten u) [ Some (Uop.sint_mul n n) ]) [ n; n ]

(* tinygrad: MovementMixin.meshgrid *)
let meshgrid ?(indexing = `Ij) (tensors : Uop.t list) =
  match tensors with
  | [] | [ _ ] -> tensors
  | _ ->
    let n = List.length tensors in
    let basis = match indexing with `Ij -> range n | `Xy -> [ 1; 0 ] @ List.init (n - 2) (fun i -> i + 2) in
    let ts = List.map2 (fun i t -> reshape t (Sint (-1) :: List.init (n - 1 - i) (fun _ -> Sint 1))) basis tensors in
    let output_shape = Uop.broadcast_shape (List.map shape ts) in
    List.map (fun t -> broadcast_to t output_shape) ts

(* **** pool level **** *)

(* sint arithmetic of tinygrad's _pool: ceildiv, smax; ints fold, UOps simplify *)
let sneg a = Uop.sint_mul (Sint (-1)) a
let ssub a b = Uop.sint_add a (sneg b)
let sceildiv a (b : int) = match a with
  | Sint a -> Sint (Helpers.ceildiv a b)
  | Suop _ -> sneg (Uop.sint_of_uop (Uop.ssimplify (Uop.idiv (Uop.sint_to_uop (sneg a)) (Uop.const_int b))))
let sceildiv_s a b = match a, b with
  | _, Sint b -> sceildiv a b
  | _, Suop _ -> sneg (Uop.sint_of_uop (Uop.ssimplify (Uop.idiv (Uop.sint_to_uop (sneg a)) (Uop.sint_to_uop b))))
let smax a b = match a, b with
  | Sint a, Sint b -> Sint (Stdlib.max a b)
  | _ -> Uop.sint_of_uop (Uop.ssimplify (Uop.alu Ops.Max [ Uop.sint_to_uop a; Uop.sint_to_uop b ]))
(* python [a <= b] on sints: decided by the bounds; one that could go either way is [default] (tinygrad's
   [resolve(a <= b, default)]), or raises without one (python's [bool] of the comparison) *)
let sle ?default ~op a b =
  let lo u = Z.to_int (Uop.zi (Uop.vmin u)) and hi u = Z.to_int (Uop.zi (Uop.vmax u)) in
  match ssub b a with
  | Sint d -> d >= 0
  | Suop d -> if lo d >= 0 then true else if hi d < 0 then false
    else match default with
      | Some b -> b
      | None -> invalid_arg (Printf.sprintf "%s: %s <= %s depends on the Variables' values" op (Uop.sint_to_string a)
                               (Uop.sint_to_string b))

(* tinygrad: MovementMixin._pool; kernel sizes may be symbolic *)
let pool_sint ?stride ?dilation x (k_ : sint list) =
  let nk = List.length k_ in
  if ndim x < nk then invalid_arg (Printf.sprintf "pool: can't pool %s with %s" (sstr (shape x)) (sstr k_));
  let mk v = match v with None -> List.init nk (fun _ -> 1) | Some [ v ] -> List.init nk (fun _ -> v) | Some l -> l in
  let s_ = mk stride and d_ = mk dilation in
  if List.length s_ <> nk || List.length d_ <> nk then
    invalid_arg (Printf.sprintf "pool: stride/dilation mismatch kernel:%s stride:%s dilation:%s" (sstr k_) (ints_str s_) (ints_str d_));
  let nnoop = ndim x - nk in
  let noop = List.init nnoop (fun _ -> None) in
  let i_ = List.filteri (fun i _ -> i >= nnoop) (shape x) in
  let z4 f = let rec go a b c d = match a, b, c, d with
      | x :: a, y :: b, z :: c, w :: d -> f x y z w :: go a b c d | _ -> [] in go in
  let ( +: ) = Uop.sint_add and ( *: ) = Uop.sint_mul in
  if not (List.for_all2 (fun (k, d) i -> sle ~default:true ~op:"pool" (Sint d *: ssub k (Sint 1) +: Sint 1) i) (List.combine k_ d_) i_) then
    invalid_arg (Printf.sprintf "pool: kernel size %s cannot be greater than actual input size %s" (sstr k_) (sstr (shape x)));
  let o_ = z4 (fun i d k s -> sceildiv (ssub i (Sint d *: ssub k (Sint 1))) s) i_ d_ k_ s_ in
  let f_ = z4 (fun o s i d -> smax (Sint 1) (sceildiv_s (ssub (o *: Sint s) (Sint d)) i)) o_ s_ i_ d_ in
  let kidf = z4 (fun k i d f -> (k, (i *: f) +: Sint d)) k_ i_ d_ f_ in
  let some l = List.map Option.some l in
  let x = repeat x (List.init nnoop (fun _ -> Sint 1) @ List.map2 (fun (k, ifd) i -> sceildiv_s (k *: ifd) i) kidf i_) in
  let x = shrink_to x (noop @ some (List.map (fun (k, ifd) -> k *: ifd) kidf)) in
  let noop_s = List.filteri (fun i _ -> i < nnoop) (shape x) in
  let x = reshape x (noop_s @ List.concat_map (fun (k, ifd) -> [ k; ifd ]) kidf) in
  let kos = List.combine k_ (List.combine o_ s_) in
  let x = shrink_to x (noop @ some (List.concat_map (fun (k, (o, s)) -> [ k; o *: Sint s ]) kos)) in
  let x = reshape x (noop_s @ List.concat_map (fun (k, (o, s)) -> [ k; o; Sint s ]) kos) in
  let x = shrink_to x (noop @ some (List.concat_map (fun (k, (o, _)) -> [ k; o; Sint 1 ]) kos)) in
  let x = reshape x (noop_s @ List.concat_map (fun (k, (o, _)) -> [ k; o ]) kos) in
  permute x (range nnoop @ List.init nk (fun i -> nnoop + i * 2 + 1) @ List.init nk (fun i -> nnoop + i * 2))

(* tinygrad: MovementMixin._pool with int kernel sizes *)
let pool ?stride ?dilation x (k_ : int list) = pool_sint ?stride ?dilation x (List.map (fun k -> Sint k) k_)

(* tinygrad: MovementMixin.unfold *)
let unfold x dim size step =
  if size < 0 then invalid_arg (Printf.sprintf "unfold: size must be >= 0 but got size=%d" size);
  if step <= 0 then invalid_arg (Printf.sprintf "unfold: step must be > 0 but got step=%d" step);
  let dim = resolve_dim ~op:"unfold" x dim in
  if size > to_int "unfold" (List.nth (shape x) dim) then
    invalid_arg (Printf.sprintf "unfold: maximum size for tensor at dimension %d is %s but size is %d" dim
                   (Uop.sint_to_string (List.nth (shape x) dim)) size);
  let n = ndim x in
  let perm_to_last = List.filter (fun i -> i <> dim) (range n) @ [ dim ] in
  permute (pool ~stride:[ step ] (permute x perm_to_last) [ size ]) (Helpers.argsort perm_to_last @ [ n ])

(* **** indexing: tinygrad MovementMixin._parse_view_index / _apply_view_ops **** *)

(** A parsed basic index. *)
type view_index = { vsize : sint; boundary : sint * sint; stride : int; collapse_dim : bool }

(* tinygrad: MovementMixin._parse_view_index *)
let parse_view_index (index : [ `None | `Int of sint | `Slice of int option * int option * int option ]) (size : sint) =
  match index with
  | `None -> { vsize = Sint 1; boundary = (Sint 0, Sint 1); stride = 1; collapse_dim = false }
  | `Int (Sint i) ->
    (match size with
     | Sint s when i >= s || i < -s -> invalid_arg (Printf.sprintf "getitem: index=%d is out of bounds with size=%d" i s)
     | _ -> ());
    let b = if i >= 0 then Sint i else Uop.sint_add (Sint i) size in
    { vsize = size; boundary = (b, Uop.sint_add b (Sint 1)); stride = 1; collapse_dim = true }
  | `Int (Suop u) ->
    let b = Suop u in
    { vsize = size; boundary = (b, Uop.sint_add b (Sint 1)); stride = 1; collapse_dim = true }
  | `Slice (start, stop, step) ->
    let step = Option.value step ~default:1 in
    if step = 0 then invalid_arg "getitem: slice cannot have 0 as step";
    (* negative int bounds resolve against the (possibly symbolic) size, like slice.indices *)
    let bound v ~default = match v with
      | None -> default
      | Some v when v < 0 -> Uop.sint_add (Sint v) size
      | Some v -> Sint v in
    (match bound start ~default:(Sint 0), bound stop ~default:size, size with
     | Sint _, Sint _, _ ->
       (* int slicing (clamp, stride) against the size, or the maximum of a symbolic size *)
       let n = match size with Sint s -> s | Suop u -> Z.to_int (Uop.zi (Uop.vmax u)) in
       (* python slice.indices *)
       let clamp v lo hi = Stdlib.max lo (Stdlib.min hi v) in
       let norm v lo hi = match v with
         | None -> None
         | Some v -> Some (clamp (if v < 0 then v + n else v) lo hi) in
       let start, stop =
         if step > 0 then (Option.value (norm start 0 n) ~default:0, Option.value (norm stop 0 n) ~default:n)
         else (Option.value (norm start (-1) (n - 1)) ~default:(n - 1), Option.value (norm stop (-1) (n - 1)) ~default:(-1)) in
       let b0, b1 =
         if step * (stop - start) < 0 then (0, 0) else if step < 0 then (stop + 1, start + 1) else (start, stop) in
       { vsize = Sint (Helpers.ceildiv (b1 - b0) (abs step)); boundary = (Sint b0, Sint b1); stride = step; collapse_dim = false }
     | b0, b1, _ ->
       let len = Uop.sint_add b1 (Uop.sint_mul (Sint (-1)) b0) in
       let len_min = match len with Sint l -> l | Suop u -> Z.to_int (Uop.zi (Uop.vmin u)) in
       if step <> 1 || len_min < 0 then
         invalid_arg (Printf.sprintf "getitem: slice %s:%s:%d of a symbolic dim is not supported"
                        (Uop.sint_to_string b0) (Uop.sint_to_string b1) step);
       { vsize = len; boundary = (b0, b1); stride = 1; collapse_dim = false })

(* tinygrad: MovementMixin._apply_view_ops *)
let apply_view_ops x (mops : view_index list) =
  let x = shrink x (List.map (fun m -> Some m.boundary) mops) in
  let x = flip x (List.concat (List.mapi (fun i m -> if m.stride < 0 then [ i ] else []) mops)) in
  let strides = List.map (fun m -> abs m.stride) mops in
  if List.exists (fun st -> st <> 1) strides then begin
    let sh = List.map (to_int "getitem") (shape x) in
    let x = pad_to x (List.map2 (fun s st -> Some (Sint (Helpers.round_up s st))) sh strides) in
    let sh = List.map (to_int "getitem") (shape x) in
    let x = reshape x (List.concat (List.map2 (fun s st -> [ Sint (s / st); Sint st ]) sh strides)) in
    let halves = List.filteri (fun i _ -> i mod 2 = 0) (shape x) in
    let x = shrink_to x (List.concat_map (fun s -> [ Some s; Some (Sint 1) ]) halves) in
    reshape x halves
  end else x

(* each right-hand side is the UOp function of the same name above *)
module Make (C : Mixin_intf.CARRIER) = struct
  let named = Mixin_dtype.named
  let flip x y = named "flip" @@ fun () -> C.wrap_uop ~op:"flip" (flip (C.uop x) y)
  let stack ?dim x = named "stack" @@ fun () -> C.wrap_uop ~op:"stack" (stack ?dim (List.map C.uop x))
  let squeeze ?dim x = named "squeeze" @@ fun () -> C.wrap_uop ~op:"squeeze" (squeeze ?dim (C.uop x))
  let unsqueeze x y = named "unsqueeze" @@ fun () -> C.wrap_uop ~op:"unsqueeze" (unsqueeze (C.uop x) y)
  let flatten ?start_dim ?end_dim x =
    named "flatten" @@ fun () ->
    C.wrap_uop ~op:"flatten" (flatten ?start_dim ?end_dim (C.uop x))
  let split ?dim x y = named "split" @@ fun () -> List.map (C.wrap_uop ~op:"split") (split ?dim (C.uop x) y)
  let chunk ?dim x y = named "chunk" @@ fun () -> List.map (C.wrap_uop ~op:"chunk") (chunk ?dim (C.uop x) y)
  let repeat_interleave ?dim x y =
    named "repeat_interleave" @@ fun () ->
    C.wrap_uop ~op:"repeat_interleave" (repeat_interleave ?dim (C.uop x) y)
  let roll ?dims x y = named "roll" @@ fun () -> C.wrap_uop ~op:"roll" (roll ?dims (C.uop x) y)
  let diag x = named "diag" @@ fun () -> C.wrap_uop ~op:"diag" (diag (C.uop x))
  let meshgrid ?indexing x =
    named "meshgrid" @@ fun () ->
    List.map (C.wrap_uop ~op:"meshgrid") (meshgrid ?indexing (List.map C.uop x))
  let unfold x y z w = named "unfold" @@ fun () -> C.wrap_uop ~op:"unfold" (unfold (C.uop x) y z w)
end
