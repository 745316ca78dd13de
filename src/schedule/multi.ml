(* tinygrad: schedule/multi.py — the multi-device rewrite. A sharded value is an UNSHARD of its per-device shard
   and one sharding range per sharded axis (a DEVICE range over the devices); multi_pm pushes UNSHARDs through
   elementwise ops, reduces (an allreduce when the sharded axis is reduced), movement ops, copies and stores, so that
   every kernel computes one shard with the DEVICE range open (bound per device at launch); replace_allreduce turns
   a broadcast COPY into an MSTACK of copies and resolves MSELECT/MSTACK. Also the UOp helpers tinygrad keeps on the
   UOp class (shard, _shard, mselect, mstack, allreduce). A FUNCTION's body is rewritten on its own
   (rewrite_into_function), never precompiled. Not ported: index_multi (INDEX on an in-kernel fragment);
   ALLREDUCE is lowered here (tinygrad's LATE_ALLREDUCE=0). *)

open Uop
module P = Upat
module M = Mixin_movement

let tail (u : Uop.t) = List.tl (Array.to_list u.src)
let with_src0 (u : Uop.t) (s : Uop.t) = replace u ~src:(Array.append [| s |] (Array.sub u.src 1 (Array.length u.src - 1)))
let int_of op = function Sint i -> i | Suop _ -> invalid_arg (op ^ ": symbolic size on a sharded axis")
let rec index_of x = function [] -> None | y :: t -> if y = x then Some 0 else Option.map succ (index_of x t)
let mismatch op fmt = Printf.ksprintf (fun s -> invalid_arg (op ^ ": " ^ s)) fmt

(* ---------- the UOp's multi-device helpers ---------- *)

(* tinygrad: UOp.mselect *)
let mselect (u : Uop.t) i = create Ops.Mselect ~src:[| u |] ~arg:(Int i)

(* tinygrad: UOp.mstack *)
let mstack = Allreduce.mstack

(* tinygrad: UOp.copy_to_device *)
let copy_to_device = Rangeify.copy_to_device

(* tinygrad: UOp.allreduce *)
let allreduce (u : Uop.t) op (device : Uop.device) =
  if not (is_multi u) then invalid_arg "allreduce: the value must be on a tuple of devices";
  create Ops.Allreduce ~src:[| u |] ~arg:(Tuple [ Op op; arg_of_device device ])

(* tinygrad: UOp._shard — the shard of [rng]'s device along [axis]: a SHRINK whose offset depends on the range *)
let shard_axis (u : Uop.t) axis (rng : Uop.t) =
  match shape u with
  | [] -> u
  | sh ->
    let dcount = range_count rng and n = int_of "shard" (List.nth sh axis) in
    if n mod dcount <> 0 then mismatch "shard" "multi axis uneven: shape[%d]=%d over %d devices" axis n dcount;
    let sz = n / dcount in
    let start = O.(rng * i sz) in
    M.shrink u (List.mapi (fun a s -> if a = axis then Some (Suop start, Suop O.(start + i sz)) else Some (Sint 0, s)) sh)

(* tinygrad: UOp.shard *)
let shard (u : Uop.t) (devices : string list) (axis : int option) =
  let copied = copy_to_device u (Multi devices) in
  match axis with
  | None -> copied
  | Some a -> let r = device_range (List.length devices) in unshard (shard_axis copied a r) [ a ] [ r ]

(* tinygrad: UOp.alu with the root's op, dtype and arg on new sources *)
let alu_like (root : Uop.t) srcs = create root.op ~dtype:root.dtype ~src:(Array.of_list srcs) ~arg:root.arg

let unshard_like (u : Uop.t) (multi : Uop.t) =
  let s = sharding multi in
  unshard u (List.map fst s) (List.map snd s)

let same_sharding a b =
  List.length a = List.length b && List.for_all2 (fun (x, r) (y, q) -> x = y && r == q) a b

let is_scalar (u : Uop.t) = match shape_opt u with Some [] | None -> true | Some _ -> false

(* ---------- multi functions ---------- *)

(* tinygrad: copy_multi — a sharded value copied to one device (its shards concatenated) or to a tuple of devices
   (each shard padded to its place and allreduced) *)
let rec copy_multi (multi : Uop.t) (device : Uop.device) =
  let sharding = sharding multi in
  match device with
  | One _ ->
    (match sharding with
     | [ (ax, _) ] ->
       let ndev = match mdevice multi with Some (Multi ds) -> List.length ds | _ -> invalid_arg "copy: not multi" in
       Mixin_op.cat ~dim:ax (List.init ndev (fun i -> copy_to_device (mselect multi.src.(0) i) device))
     | _ -> invalid_arg "copy: only a value sharded along one axis is copied to one device")
  | Multi _ ->
    let v = List.fold_left (fun v (ax, rng) ->
        let bsz = int_of "copy" (List.nth (shape v) ax) and cnt = range_count rng in
        M.pad v (List.mapi (fun a _ ->
            if a <> ax then Some (Sint 0, Sint 0)
            else let last = bsz * (cnt - 1) in Some (Suop O.(rng * i bsz), Suop O.(i last - rng * i bsz))) (shape v)))
        multi.src.(0) sharding in
    allreduce v Ops.Add device

(* tinygrad: shard_srcs — the sources brought to local shards along [axis] *)
and shard_srcs (msrcs : Uop.t list) axis =
  let devices = List.filter_map mdevice msrcs in
  (match devices with d :: rest when List.exists (fun x -> x <> d) rest ->
     invalid_arg "multi: all buffers must have the same device" | _ -> ());
  let sharding_rng = match devices with
    | Multi ds :: _ -> device_range (List.length ds)
    | _ ->
      match List.find_opt (fun (m : Uop.t) -> m.op == Ops.Unshard) msrcs with
      | Some m -> m.src.(1)
      | None -> invalid_arg "multi: shard_srcs requires a device or a sharding range" in
  let out_shape = broadcast_shape (List.map shape msrcs) in
  List.map (fun (mlb : Uop.t) ->
      let src_axis = axis - (List.length out_shape - List.length (shape mlb)) in
      let ax = Uop.axis mlb in
      if ax = Some src_axis then mlb.src.(0)
      else begin
        (* every shard gets the whole value, sharded where this source has the axis (broadcast sources stay whole) *)
        let full = match ax with None -> mlb | Some _ -> copy_multi mlb (Option.get (mdevice mlb)) in
        if List.mem axis (M.broadcast_axes (shape mlb) out_shape) then full else shard_axis full src_axis sharding_rng
      end) msrcs

(* tinygrad: shard_subview — the part of a whole full-shape value that belongs to this shard *)
let shard_subview (full : Uop.t) (multi : Uop.t) =
  if not (equal_sints (shape full) (shape multi)) then
    mismatch "multi" "shard sub-view shape mismatch %s != %s" (shape_str (shape full)) (shape_str (shape multi));
  if full.op == Ops.Expand && shape full.src.(0) = [] then M.expand full.src.(0) (shape multi.src.(0))
  else List.fold_left (fun f (ax, rng) -> shard_axis f ax rng) full (sharding multi)

(* tinygrad: alu_multi *)
let alu_multi (root : Uop.t) =
  let srcs = Array.to_list root.src in
  match List.filter (fun (m : Uop.t) -> m.op == Ops.Unshard) srcs with
  | [] -> None
  | target :: _ ->
    let sh = sharding target in
    let can_handle (m : Uop.t) =
      if sharding m <> [] then same_sharding (sharding m) sh
      else is_scalar m || equal_sints (shape m) (shape target) in
    if List.for_all can_handle srcs then
      (* every source has the target's sharding or is whole on every shard: the op runs per shard *)
      let local = List.map (fun (m : Uop.t) ->
          if m.op == Ops.Unshard then m.src.(0) else if is_scalar m then m else shard_subview m target) srcs in
      Some (unshard_like (alu_like root local) target)
    else begin
      (* resharding: the single-axis fallback *)
      let axis = match Uop.axis root with Some a -> a | None -> invalid_arg "multi: an elementwise op without an axis" in
      Some (unshard (alu_like root (shard_srcs srcs axis)) [ axis ] [ target.src.(1) ])
    end

(* tinygrad: reduce_multi — a reduce along a sharded axis is an allreduce; along others it stays per shard *)
let reduce_multi (root : Uop.t) (multi : Uop.t) =
  let op, n = match root.arg with Reduce_arg (o, n) -> (o, n) | _ -> invalid_arg "REDUCE arg" in
  let reduced, remaining = List.partition (fun (ax, _) -> ax < n) (sharding multi) in
  let local = Rangeify.rop multi.src.(0) op (List.init n Fun.id) in
  let device = Option.get (mdevice multi) in
  if reduced <> [] then begin
    if remaining <> [] then invalid_arg "multi: partial allreduce is not supported for multi-axis sharding";
    let s0 = multi.src.(0) in
    if Helpers.allreduce_cast.value <> 0 && s0.op == Ops.Cast
       && (s0.src.(0).dtype == Dtype.Bfloat16 || s0.src.(0).dtype == Dtype.Float16) then
      Some (cast local.dtype (allreduce (cast s0.src.(0).dtype local) op device))
    else Some (allreduce local op device)
  end else Some (unshard local (List.map (fun (a, _) -> a - n) remaining) (List.map snd remaining))

(* tinygrad: reshape_multi — every sharded axis maps through the reshape whole, still divisible by its count *)
let reshape_multi (root : Uop.t) (multi : Uop.t) =
  let new_shape = match marg root with `Shape s -> s | _ -> invalid_arg "RESHAPE arg" in
  let mshape = shape multi in
  let moved () = mismatch "reshape" "%s -> %s moved items between shards" (shape_str mshape) (shape_str new_shape) in
  if not (sint_equal (sprod mshape) (sprod new_shape)) then invalid_arg "reshape must maintain prod(shape)";
  let acc = List.rev (List.fold_left (fun l s -> sint_mul (List.hd l) s :: l) [ Sint 1 ] new_shape) in
  let new_shardings = List.map (fun (ax, rng) ->
      let count = range_count rng in
      let target = sprod (List.filteri (fun i _ -> i < ax) mshape) in
      let idxs = List.filteri (fun _ x -> x >= 0) (List.mapi (fun i s -> if sint_equal s target then i else -1) acc) in
      match List.rev idxs with
      | [] -> moved ()
      | new_ax :: _ ->
        if new_ax >= List.length new_shape || int_of "reshape" (List.nth new_shape new_ax) mod count <> 0 then moved ();
        (new_ax, rng)) (sharding multi) in
  let local = List.mapi (fun a s ->
      match List.assoc_opt a new_shardings with Some rng -> Sint (int_of "reshape" s / range_count rng) | None -> s)
      new_shape in
  Some (unshard (M.reshape multi.src.(0) local) (List.map fst new_shardings) (List.map snd new_shardings))

(* tinygrad: expand_multi — EXPAND prepends axes *)
let expand_multi (root : Uop.t) (multi : Uop.t) =
  let added = match marg root with `Shape s -> s | _ -> invalid_arg "EXPAND arg" in
  let shift = List.length added in
  let s = sharding multi in
  Some (unshard (mop Ops.Expand multi.src.(0) (`Shape added)) (List.map (fun (a, _) -> a + shift) s) (List.map snd s))

(* tinygrad: pad_multi — only axes that are not sharded are padded *)
let pad_multi (root : Uop.t) (multi : Uop.t) =
  let pairs = match marg root with `Pairs p -> p | _ -> invalid_arg "PAD arg" in
  let axes = List.map fst (sharding multi) in
  List.iter (fun ax ->
      let (o, sz) = List.nth pairs ax in
      if not (sint_equal o (Sint 0) && sint_equal sz (List.nth (shape multi) ax)) then
        invalid_arg "pad: padding a sharded axis is not supported") axes;
  let local = List.mapi (fun a p -> if List.mem a axes then (Sint 0, List.nth (shape multi.src.(0)) a) else p) pairs in
  Some (unshard_like (mop Ops.Pad multi.src.(0) (`Pairs local)) multi)

(* tinygrad: permute_multi *)
let permute_multi (root : Uop.t) (multi : Uop.t) =
  let perm = match marg root with `Perm p -> p | _ -> invalid_arg "PERMUTE arg" in
  let s = sharding multi in
  Some (unshard (M.permute multi.src.(0) perm) (List.map (fun (a, _) -> Option.get (index_of a perm)) s) (List.map snd s))

(* tinygrad: shrink_multi — a shrink to exactly the shard of the range resolves that axis; the whole axis stays
   sharded; one whole device's part of a value sharded on devices is a copy of that part *)
let shrink_multi (root : Uop.t) (multi : Uop.t) =
  let pairs = match marg root with `Pairs p -> p | _ -> invalid_arg "SHRINK arg" in
  let local = Array.of_list pairs in
  let exception Copied of Uop.t in
  try
    let remaining = List.filter (fun (ax, rng) ->
        let shard_sz = List.nth (shape multi.src.(0)) ax in
        let (s, l) = List.nth pairs ax in
        let is_const_zero u = let u = ssimplify u in u.op == Ops.Const && zi (const_val u) = Z.zero in
        if sint_equal (match l with Suop x -> sint_of_uop (ssimplify x) | l -> l) shard_sz
        && is_const_zero O.(sint_to_uop s - rng * sint_to_uop shard_sz) then begin
          local.(ax) <- (Sint 0, shard_sz); false
        end else if sint_equal s (Sint 0) && sint_equal l (List.nth (shape multi) ax) then begin
          local.(ax) <- (Sint 0, shard_sz); true
        end else begin
          let sz = int_of "shrink" shard_sz in
          let part = match s, l with
            | Sint s, Sint l when l = sz && s mod sz = 0 && s / sz <= range_count rng - 1 -> Some (s / sz)
            | _ -> None in
          match part, mdevice multi with
          | Some k, Some (Multi _ as d) when List.length (sharding multi) = 1 ->
            let non_shard = List.mapi (fun i p -> if i = ax then (Sint 0, shard_sz) else p) pairs in
            raise (Copied (mop Ops.Shrink (copy_to_device ~mselect:k multi.src.(0) d) (`Pairs non_shard)))
          | _ -> invalid_arg "shrink: shrinking a sharded axis is only supported to one whole shard"
        end) (sharding multi) in
    let v = mop Ops.Shrink multi.src.(0) (`Pairs (Array.to_list local)) in
    Some (if remaining = [] then v else unshard v (List.map fst remaining) (List.map snd remaining))
  with Copied u -> Some u

(* tinygrad: flip_multi *)
let flip_multi (root : Uop.t) (multi : Uop.t) =
  let fl = match marg root with `Flip f -> f | _ -> invalid_arg "FLIP arg" in
  List.iter (fun (ax, _) -> if List.nth fl ax then mismatch "flip" "flipping is not supported on sharded axis %d" ax)
    (sharding multi);
  Some (unshard_like (mop Ops.Flip multi.src.(0) (`Flip fl)) multi)

(* tinygrad: stack_multi — STACK adds a leading axis *)
let stack_multi (root : Uop.t) =
  let srcs = Array.to_list root.src in
  match List.filter (fun (m : Uop.t) -> m.op == Ops.Unshard) srcs with
  | [] -> None
  | (first :: _) as multis ->
    let sh = sharding first in
    if List.for_all (fun m -> same_sharding (sharding m) sh) multis then
      let local = List.map (fun (m : Uop.t) -> if m.op == Ops.Unshard then m.src.(0) else m) srcs in
      Some (unshard (create Ops.Stack ~src:(Array.of_list local)) (List.map (fun (a, _) -> a + 1) sh) (List.map snd sh))
    else begin
      let axis = match Uop.axis root with Some a -> a | None -> invalid_arg "multi: a STACK without an axis" in
      Some (unshard (create Ops.Stack ~src:(Array.of_list (shard_srcs srcs (axis - 1)))) [ axis ] [ first.src.(1) ])
    end

(* tinygrad: store_after_multi *)
let store_after_multi (dest : Uop.t) (src : Uop.t) = Some (unshard_like (after dest [ store dest src.src.(0) ]) src)

(* tinygrad: store_value_multi — a sharded value stored into a whole dest: each shard into its sub-view *)
let store_value_multi (dest : Uop.t) (multi : Uop.t) = Some (store (shard_subview dest multi) multi.src.(0))

(* tinygrad: store_dest_multi — a store into a sharded dest: each shard stores into its own shard *)
let store_dest_multi (root : Uop.t) (multi : Uop.t) =
  let rest = List.map (fun (x : Uop.t) ->
      if x.op == Ops.Unshard then x.src.(0)
      else if equal_sints (shape x) (shape multi) then shard_subview x multi else x) (tail root) in
  Some (create root.op ~dtype:root.dtype ~src:(Array.of_list (multi.src.(0) :: rest)) ~arg:root.arg)

(* tinygrad: passthrough_multi *)
let passthrough_multi (root : Uop.t) (multi : Uop.t) =
  let rest = List.map (fun (x : Uop.t) -> if x.op == Ops.Unshard then x.src.(0) else x) (tail root) in
  Some (unshard_like (create root.op ~dtype:root.dtype ~src:(Array.of_list (multi.src.(0) :: rest)) ~arg:root.arg) multi)

(* tinygrad: rewrite_into_function — the body rewritten by multi_pm on its own, the call's args unsharded;
   the outputs that come out sharded are UNSHARDs of the call's outputs, one call per device (CallInfo is not
   modelled: never precompiled) *)
let rewrite_into_function multi_pm (call : Uop.t) =
  let new_body = P.graph_rewrite ~name:"subcall" multi_pm () call.src.(0) in
  let new_args = List.map (fun (a : Uop.t) -> if a.op == Ops.Unshard then a.src.(0) else a) (tail call) in
  if new_body.op <> Ops.Tuple then
    invalid_arg ("rewrite_into_function: a FUNCTION's body is a TUPLE, got "
                 ^ Ops.to_string new_body.op);
  let outs = Array.to_list new_body.src in
  if List.exists (fun (s : Uop.t) -> s.op == Ops.Unshard) outs then begin
    let strip (s : Uop.t) = if s.op == Ops.Unshard then s.src.(0) else s in
    let shard_body = create Ops.Tuple ~src:(Array.of_list (List.map strip outs)) in
    let shard_call = replace call ~src:(Array.of_list (shard_body :: new_args)) in
    Some (create Ops.Tuple ~src:(Array.of_list (List.mapi (fun i (s : Uop.t) ->
        let g = Buffers.gettuple shard_call i in
        if s.op == Ops.Unshard then unshard_like g s else g) outs)))
  end else Some (replace call ~src:(Array.of_list (new_body :: new_args)))

(* tinygrad: param_to_multi — a PARAM of a sharded value is a PARAM of one shard, unsharded *)
let param_to_multi (p : Uop.t) =
  match p.arg with
  | Param ({ axis = Some a; _ } as pa) ->
    let q = create Ops.Param ~src:[| shape_to_shape_arg (shard_shape p) |] ~arg:(Param { pa with axis = None }) in
    Some (unshard_devices q a)
  | _ -> None

(* ---------- replace_allreduce: MSELECT/MSTACK ---------- *)

(* tinygrad: _apply_shrink — the SHRINK of device [i]: its DEVICE range in the offsets replaced by [i] *)
let apply_shrink (pairs : (sint * sint) list) (s : Uop.t) i =
  let subst = function
    | Suop x ->
      (match List.filter (fun (r : Uop.t) -> r.op == Ops.Range && (match r.arg with Range (_, Device) -> true | _ -> false))
               (toposort x) with
       | r :: _ -> sint_of_uop (ssimplify (P.substitute x [ (r, const_like r (Dtype.I (Z.of_int i))) ]))
       | [] -> Suop x)
    | s -> s in
  mop Ops.Shrink s (`Pairs (List.map (fun (a, b) -> (subst a, subst b)) pairs))

(* tinygrad: mstack_early_shrink *)
let mstack_early_shrink (ms : Uop.t) (shrink : Uop.t) =
  let pairs = match marg shrink with `Pairs p -> p | _ -> invalid_arg "SHRINK arg" in
  Some (replace ms ~src:(Array.mapi (fun i (x : Uop.t) ->
      if x.op == Ops.Copy then copy_to_device (apply_shrink pairs x.src.(0) i) (Option.get (mdevice x))
      else Buffers.contiguous (apply_shrink pairs x i)) ms.src))

(* tinygrad: lower_broadcast_copy — a copy of a one-device value to a tuple of devices is a copy to each *)
let lower_broadcast_copy (c : Uop.t) (x : Uop.t) =
  match mdevice c, mdevice x with
  | Some (Multi ds), Some (One _) ->
    let sx = simplify x in
    if mdevice sx = None then Some (mstack (List.map (fun _ -> sx) ds))
    else Some (mstack (List.map (fun d -> copy_to_device x (One d)) ds))
  | _ -> None

let replace_allreduce : unit P.matcher =
  let open P in
  matcher
    [ (* BROADCAST: explicitly expand broadcast copies and combine with MSTACK *)
      rule (pat Ops.Copy ~name:"c" ~src:(In_order [ var "x" ])) (fun m -> lower_broadcast_copy (get m "c") (get m "x"));
      (* COPY_TO_ONE: a copy from several devices to one takes the first device's *)
      rule (pat Ops.Copy ~name:"c" ~src:(In_order [ var "x" ])) (fun m ->
          let c = get m "c" and x = get m "x" in
          match mdevice c, mdevice x with
          | Some (One d), Some (Multi _) -> Some (copy_to_device ~mselect:0 x (One d))
          | _ -> None);
      (* MSELECT on MSTACK is replaced with nothing *)
      rule (pat Ops.Mselect ~name:"ms" ~src:(In_order [ pat Ops.Mstack ~name:"mstack" ])) (fun m ->
          match (get m "ms").arg with Int i -> Some (get m "mstack").src.(i) | _ -> None);
      (* move shrink before MSTACK *)
      rule (pat Ops.Shrink ~name:"shrink" ~allow_any_len:true ~src:(In_order [ pat Ops.Mstack ~name:"ms" ])) (fun m ->
          mstack_early_shrink (get m "ms") (get m "shrink"));
      (* move MSELECT before movement ops *)
      rule (pat Ops.Mselect ~name:"ms" ~src:(In_order [ ops Ops.Group.movement ~name:"v" ~allow_any_len:true
                                                          ~src:(In_order [ var "s" ]) ])) (fun m ->
          match (get m "ms").arg with Int i -> Some (with_src0 (get m "v") (mselect (get m "s") i)) | _ -> None) ]

(* tinygrad: _early_allreduce (LATE_ALLREDUCE=0) *)
let early_allreduce : unit P.matcher =
  P.(matcher [ rule (pat Ops.Allreduce ~name:"red" ~src:(In_order [ var "buf" ])) (fun m ->
      Allreduce.handle_allreduce (get m "buf") (get m "red")) ])

(* tinygrad: multi_pm (the same pattern as unrolled ranges); lazy: a FUNCTION's body is rewritten with it *)
let rec multi_pm_lazy : unit P.matcher Lazy.t = lazy (
  let open P in
  let unshard_src ?(n = 0) op = pat op ~name:"root" ~src:(In_order (make ~op:[ Ops.Unshard ] ~name:"multi" ()
                                                                   :: List.init n (fun _ -> wild))) in
  let on_multi f m = f (get m "root") (get m "multi") in
  matcher
    [ rule (pat Ops.Param ~name:"p") (fun m -> param_to_multi (get m "p"));
      rule (make ~op:(List.filter Ops.Group.is_alu (Array.to_list Ops.all)) ~name:"root"
              ~custom_early_reject:[ Ops.Unshard ] ()) (fun m -> alu_multi (get m "root"));
      rule (unshard_src Ops.Reduce) (on_multi reduce_multi);
      rule (unshard_src ~n:1 Ops.Reshape) (on_multi reshape_multi);
      rule (unshard_src ~n:1 Ops.Expand) (on_multi expand_multi);
      rule (unshard_src ~n:2 Ops.Pad) (on_multi pad_multi);
      rule (unshard_src ~n:2 Ops.Shrink) (on_multi shrink_multi);
      rule (unshard_src Ops.Permute) (on_multi permute_multi);
      rule (unshard_src Ops.Flip) (on_multi flip_multi);
      rule (make ~op:[ Ops.Stack ] ~name:"root" ~custom_early_reject:[ Ops.Unshard ] ()) (fun m -> stack_multi (get m "root"));
      rule (pat Ops.After ~src:(In_order [ pat Ops.Unshard; pat Ops.Store ~src:(In_order [ pat Ops.Unshard ~name:"dest";
                                                                                            pat Ops.Unshard ~name:"src" ]) ]))
        (fun m -> store_after_multi (get m "dest") (get m "src"));
      rule (pat Ops.Copy ~name:"copy" ~src:(In_order [ pat Ops.Unshard ~name:"multi" ])) (fun m ->
          let copy = get m "copy" in
          match device_of_arg copy.arg with Some d -> Some (copy_multi (get m "multi") d) | None -> None);
      rule (pat Ops.Allreduce ~name:"red" ~src:(In_order [ pat Ops.Unshard ~name:"multi" ])) (fun m ->
          let red = get m "red" and multi = get m "multi" in
          Some (unshard_like (create Ops.Allreduce ~src:[| multi.src.(0) |] ~arg:red.arg) multi));
      (* resolve TUPLE+GETTUPLE (needed in multi) *)
      rule (pat Ops.Gettuple ~name:"g" ~src:(In_order [ pat Ops.Tuple ~name:"t" ])) (fun m ->
          match (get m "g").arg with Int i -> Some (get m "t").src.(i) | _ -> None);
      (* rewrite into FUNCTION calls explicitly for UNSHARD (value-producing) *)
      rule (pat Ops.Function ~name:"call") (fun m ->
          rewrite_into_function (Lazy.force multi_pm_lazy) (get m "call"));
      rule (ops [ Ops.Call; Ops.Function; Ops.After ] ~name:"root" ~allow_any_len:true
              ~src:(In_order [ pat Ops.Unshard ~name:"multi" ])) (on_multi passthrough_multi);
      (* just strip the UNSHARD from non-value-producing CALLs *)
      rule (make ~op:[ Ops.Call ] ~dtype:[ Dtype.Void ] ~name:"root" ~custom_early_reject:[ Ops.Unshard ] ()) (fun m ->
          let root = get m "root" in
          Some (replace root ~src:(Array.map (fun (x : Uop.t) -> if x.op == Ops.Unshard then x.src.(0) else x) root.src)));
      rule (ops [ Ops.Cast; Ops.Bitcast; Ops.Contiguous; Ops.Detach; Ops.Contiguous_backward ] ~name:"root"
              ~src:(In_order [ pat Ops.Unshard ~name:"multi" ])) (on_multi passthrough_multi);
      (* STORE of a sharded value into an unsharded dest *)
      rule (pat Ops.Store ~src:(In_order [ var "dest"; pat Ops.Unshard ~name:"multi" ])) (fun m ->
          store_value_multi (get m "dest") (get m "multi"));
      (* STORE into a sharded dest: every shard stores into its own shard *)
      rule (pat Ops.Store ~name:"root" ~allow_any_len:true ~src:(In_order [ pat Ops.Unshard ~name:"multi" ]))
        (on_multi store_dest_multi) ]
  @@@ early_allreduce @@@ replace_allreduce)

let multi_pm = Lazy.force multi_pm_lazy

(* tinygrad: graph_rewrite(sink, multi_pm); a graph without a multi-device node is left as it is (the rewrite would
   change nothing in it) *)
let run (sink : Uop.t) =
  let multi_node (u : Uop.t) =
    match u.op with
    | Ops.Unshard | Ops.Mselect | Ops.Mstack | Ops.Allreduce -> true
    | Ops.Copy | Ops.Buffer | Ops.Param -> is_multi u
    | _ -> false in
  if List.exists multi_node (toposort ~enter_calls:true sink) then P.graph_rewrite ~name:"multi_pm" multi_pm () sink else sink

(* tinygrad: schedule/rangeify.py get_kernel_graph, whose first step is multi_pm (here: Rangeify cannot name this
   module, which builds on Rangeify's copy_to_device) *)
let get_kernel_graph (sink : Uop.t) = Rangeify.get_kernel_graph (run sink)
