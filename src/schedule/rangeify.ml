(* tinygrad: schedule/rangeify.py — movement ops on INDEX (pm_mops, also used by the kernel pipeline), and the
   scheduler part: the tensor graph to the kernel graph (get_kernel_graph). *)

open Uop
module P = Upat

(* tinygrad: UOp.index(srcs..., arg=...) *)
let index_with_arg (u : Uop.t) (idxs : Uop.t list) (arg : arg) =
  match idxs with
  | [ i ] when u.op == Ops.Stack && i.op == Ops.Const -> u.src.(Z.to_int (zi (const_val i)))
  | _ -> create Ops.Index ~src:(Array.of_list (u :: idxs)) ~arg

let drop = Helpers.drop
let take = Helpers.take

(* movement op on INDEX as a PatternMatcher *)
(* tinygrad: schedule/rangeify.py _mop_index *)
let mop_index (r : Uop.t) (idx : Uop.t) : Uop.t option =
  let idxs = List.tl (Array.to_list idx.src) in
  let nidx = List.length idxs in
  let rshape = shape r and sshape = shape r.src.(0) in
  if nidx = List.length rshape then
    Some (index_with_arg r.src.(0) (Indexing.apply_movement_op r.op sshape (marg r) idxs) idx.arg)
  else if r.op == Ops.Reshape then begin
    let src_prefix = List.length sshape - List.length (drop nidx rshape) in
    if src_prefix >= 0 && equal_sints (drop src_prefix sshape) (drop nidx rshape) then begin
      if src_prefix = 0 then (if r.src.(0).dtype == idx.dtype then Some r.src.(0) else None)
      else begin
        let ret = index_with_arg r.src.(0)
            (Indexing.apply_movement_op r.op (take src_prefix sshape) (`Shape (take nidx rshape)) idxs) idx.arg in
        if equal_sints (shape ret) (shape idx) then Some ret else None
      end
    end else None
  end else None

(* tinygrad: schedule/rangeify.py pm_mops *)
let pm_mops : unit P.matcher =
  P.matcher
    [ (* handle movement ops on INDEX *)
      P.rule (P.pat Ops.Index ~src:(P.In_order [ P.ops Ops.Group.movement ~name:"r" ]) ~allow_any_len:true ~name:"idx")
        (fun m -> mop_index (P.get m "r") (P.get m "idx"));
      (* move movement ops and INDEX after AFTER *)
      P.rule (P.after ~name:"a" ~allow_any_len:true (P.ops (Ops.Index :: Ops.Group.movement) ~name:"r") []) (fun m ->
          let r = P.get m "r" and a = P.get m "a" in
          let a' = replace a ~src:(Array.append [| r.src.(0) |] (Array.sub a.src 1 (Array.length a.src - 1))) in
          Some (create r.op ~src:(Array.append [| a' |] (Array.sub r.src 1 (Array.length r.src - 1))) ~arg:r.arg));
      P.rule (P.end_ ~name:"a" ~allow_any_len:true (P.ops Ops.Group.movement ~name:"r") []) (fun m ->
          let r = P.get m "r" and a = P.get m "a" in
          Some (replace a ~src:(Array.append [| r.src.(0) |] (Array.sub a.src 1 (Array.length a.src - 1))))) ]

(* ============================================================================================================
   The scheduler part of schedule/rangeify.py.
   ============================================================================================================ *)

module M = Mixin_movement

let tail (u : Uop.t) = Array.to_list (Array.sub u.src 1 (Array.length u.src - 1))
let bopts (u : Uop.t) = match u.arg with Bufferize_opts b -> b | _ -> invalid_arg "STAGE: no BufferizeOpts arg"
let bdevice_opt (b : bufferize_opts) = match b.bdevice with Bdev d -> Some d | _ -> None
let sint_is_int n = function Sint i -> i = n | Suop _ -> false
let shape_has_zero (s : sint list) = List.exists (sint_is_int 0) s
let int_of_sint op = function Sint i -> i | Suop _ -> invalid_arg (op ^ ": symbolic size")
let range_axis (r : Uop.t) = match r.arg with Range (_, at) -> at | _ -> invalid_arg "not a RANGE"
let range_id0 (r : Uop.t) = match r.arg with Range (i :: _, _) -> i | _ -> invalid_arg "not a RANGE"
let sort_by_arg l = List.stable_sort (fun (a : Uop.t) (b : Uop.t) -> compare_arg_py a.arg b.arg) l
let rec dedupq = function [] -> [] | x :: t -> x :: dedupq (List.filter (fun y -> y != x) t)

(* tinygrad: UOp.unsharded_base *)
let unsharded_base (u : Uop.t) =
  if Ops.Group.is_movement u.op || u.op == Ops.Detach || u.op == Ops.Unshard then base u.src.(0) else u

(* tinygrad: UOp.device, with STAGE (its arg's device) *)
let device (u : Uop.t) = if u.op == Ops.Stage then bdevice_opt (bopts u) else Uop.mdevice u

(* tinygrad: UOp._rop — REDUCE over [axis] (reduced axes permuted to the front) *)
let rop (x : Uop.t) (op : Ops.t) (axis : int list) =
  let axis = List.sort compare axis in
  let sh = shape x in
  let reduce_axis = List.filter (fun a -> not (sint_is_int 1 (List.nth sh a))) axis in
  let kept = List.filteri (fun i _ -> not (List.mem i axis)) sh in
  if reduce_axis = [] then M.reshape x kept
  else begin
    let perm = reduce_axis @ List.filter (fun i -> not (List.mem i reduce_axis)) (List.init (List.length sh) Fun.id) in
    let ret = create Ops.Reduce ~src:[| M.permute x perm |] ~arg:(Reduce_arg (op, List.length reduce_axis)) in
    if axis <> reduce_axis then M.reshape ret kept else ret
  end

(* tinygrad: UOp.copy_to_device — [mselect] copies that device's part of a multi-device value *)
let copy_to_device ?mselect (x : Uop.t) (dev : Uop.device) =
  let inp = match mselect with None -> x | Some i -> create Ops.Mselect ~src:[| x |] ~arg:(Int i) in
  if Dtype.is_weak inp.dtype then
    invalid_arg ("copy_to_device: cannot create storage for weak dtype " ^ Dtype.to_string inp.dtype);
  let padded = M.pad_to inp (List.map (fun i -> Some (Sint i)) (max_shape inp)) in
  M.shrink_to (create Ops.Copy ~src:[| padded |] ~arg:(arg_of_device dev)) (List.map Option.some (shape inp))

(* tinygrad: uop/ops.py pm_contiguous_view_offset (ctx: the viewed node) *)
let pm_contiguous_view_offset : Uop.t P.matcher =
  let numel (u : Uop.t) = sprod (shape u) in
  P.matcher
    [ (* normalize to 1d bitcasts *)
      P.rule (P.pat Ops.Bitcast ~name:"b") (fun m ->
          let b = P.get m "b" in
          if List.length (shape b) <> 1 then Some (M.reshape (bitcast b.dtype (M.flatten b.src.(0))) (shape b)) else None);
      P.rule_ctx (P.index (P.pat Ops.Bitcast ~name:"b") [ P.cvar "c" ]) (fun ctx m ->
          let b = P.get m "b" and c = P.get m "c" in
          if b.tag = No_arg then None
          else
            let osz = Dtype.itemsize b.dtype and isz = Dtype.itemsize b.src.(0).dtype in
            let n = int_of_sint "contiguous_view" (numel ctx) in
            Some (index (M.flatten b.src.(0)) [ add (range (Sint (n * osz / isz)) 0) (idiv (mul c (const_int osz)) (const_int isz)) ]));
      P.rule (P.pat Ops.Index ~src:(P.In_order [ P.var "b" ])) (fun m -> Some (index (rtag (P.get m "b")) [ const_int 0 ]));
      P.rule (P.pat Ops.Index ~src:(P.In_order [ P.var "b"; P.pat Ops.Range ])) (fun m ->
          Some (index (rtag (P.get m "b")) [ const_int 0 ]));
      P.rule (P.pat Ops.Index ~src:(P.In_order [ P.var "b"; P.O.(P.pat Ops.Range + P.cvar "c") ])) (fun m ->
          Some (index (rtag (P.get m "b")) [ P.get m "c" ]));
      P.rule_ctx (P.pat Ops.Index ~src:(P.In_order [ P.var "b"; P.cvar "c" ])) (fun ctx m ->
          if sint_equal (numel ctx) (Sint 1) then Some (index (rtag (P.get m "b")) [ P.get m "c" ]) else None) ]

let pm_view_offset_all = lazy P.(lift pm_mops @@@ lift Symbolic.symbolic @@@ pm_contiguous_view_offset)

(* tinygrad: UOp.contiguous_view — (buffer, element offset) when the node is a contiguous range of a buffer *)
let contiguous_view (u : Uop.t) : (Uop.t * int) option =
  let idx = index (M.flatten u) [ range (sprod (shape u)) 0 ] in
  let out = P.graph_rewrite ~name:"contiguous_view_offset" (Lazy.force pm_view_offset_all) u idx in
  if out.op != Ops.Index || Array.length out.src < 2 then None
  else
    let b = out.src.(0) and c = out.src.(1) in
    if b.tag = No_arg || c.op != Ops.Const then None
    else match const_val c with
      | Dtype.I z -> Some (replace b ~tag:No_arg, Z.to_int z)
      | _ -> None

(* tinygrad: UOp.contiguous_view_offset *)
let contiguous_view_offset u = Option.map snd (contiguous_view u)

(* *****************
   0. do some cleanup rewrites, mostly copied from the old stuff *)

(* tinygrad: schedule/rangeify.py fix_store_hazard *)
let fix_store_hazard (target : Uop.t) (src : Uop.t) : Uop.t option =
  let b = base target in
  if not (List.memq b (toposort ~enter_calls:false src)) then None
  else begin
    (* PERMUTE and FLIP reorder indices, SHRINK can have overlapping regions when dest is also shrunk *)
    let unsafe = [ Ops.Permute; Ops.Flip ] @ (if op_in_backward_slice_with_self target [ Ops.Shrink ] then [ Ops.Shrink ] else []) in
    let reaches_base = Tbl.create 16 in
    let found = ref false in
    (try
       List.iter (fun (s : Uop.t) ->
           let r = s == b || Array.exists (fun c -> Tbl.find_opt reaches_base c = Some true) s.src in
           Tbl.replace reaches_base s r;
           if r && List.memq s.op unsafe && not (s == target && s.op == Ops.Shrink) then (found := true; raise Exit))
         (toposort ~gate:(fun (s : Uop.t) -> s.op != Ops.Contiguous) src)
     with Exit -> ());
    if !found then Some (store target (Buffers.contiguous src)) else None
  end

(* pm_mops as substitute's extra rules *)
let pm_mops_subst = lazy (P.lift pm_mops)

(* tinygrad: schedule/rangeify.py split_reduceop *)
let split_reduceop (reduce : Uop.t) (x : Uop.t) : Uop.t option =
  let rshape = shape reduce and xshape = shape x in
  let rop_op, nred = match reduce.arg with Reduce_arg (o, n) -> (o, n) | _ -> invalid_arg "split_reduceop: bad REDUCE arg" in
  if sint_equal (sprod rshape) (Sint 0) then None
  else if Helpers.split_reduceop.value = 0 || not (List.for_all (function Sint _ -> true | Suop _ -> false) xshape) then None
  else begin
    let px = Helpers.prod (List.map (int_of_sint "split_reduceop") xshape) in
    let pr = int_of_sint "split_reduceop" (sprod rshape) in
    if px / pr < Helpers.reduceop_split_threshold.value then None
    else begin
      (* get expanded by rangeifying the UOp x *)
      let indexed = index x (List.mapi (fun i s -> if resolve (gt (sint_to_uop s) (const_int 1)) then range s i else const_int 0) xshape) in
      let range_nums = List.map range_id0 (ranges (P.substitute ~extra_pm:(Lazy.force pm_mops_subst) indexed [ (base x, create Ops.Noop) ])) in
      let is_expanded = List.init (List.length xshape) (fun i -> not (List.mem i range_nums)) in
      let hi = min 256 ((1 lsl Helpers.reduceop_split_size.value) / pr) in
      let cands = List.concat (List.init nred (fun i ->
          List.filter_map (fun d ->
              if int_of_sint "" (List.nth xshape i) mod d = 0 && not (List.nth is_expanded i) then Some (i, d) else None)
            (List.init (max 0 (hi - 7)) (fun k -> hi - k)))) in
      match cands with
      | [] -> None
      | (dim_to_split, divisor) :: _ ->
        let xs = List.map (int_of_sint "") xshape in
        let splitted_shape = List.concat (List.mapi (fun i s -> if i = dim_to_split then [ divisor; s / divisor ] else [ s ]) xs) in
        let n = List.length splitted_shape in
        let splitted = M.permute (M.reshape x (List.map (fun s -> Sint s) splitted_shape))
            (List.filter (fun d -> d <> dim_to_split) (List.init n Fun.id) @ [ dim_to_split ]) in
        if Helpers.debug.value >= 3 then
          Printf.printf "split %d: %s -> %s -> %s\n" divisor (shape_str xshape) (shape_str (shape splitted)) (shape_str rshape);
        (* reduce original axes, then split *)
        let r1 = Buffers.contiguous (rop splitted rop_op (List.init nred Fun.id)) in
        Some (M.reshape (rop r1 rop_op [ List.length rshape ]) rshape)
    end
  end

(* tinygrad: schedule/rangeify.py pm_gather_params *)
let pm_gather_params : Uop.t list ref P.matcher =
  P.matcher [ P.rule_ctx (P.pat Ops.Param ~name:"p") (fun ctx m ->
      let p = P.get m "p" in
      if (param_arg p).slot >= 0 then ctx := p :: !ctx;
      None) ]

(* tinygrad: schedule/rangeify.py resolve_function (CallInfo is not modelled: never precompiled) *)
let resolve_function ?(allow_param_mismatch = true) (c : Uop.t) : Uop.t option =
  let acc = ref [] in
  ignore (P.graph_rewrite ~bottom_up:true ~name:"gather params" pm_gather_params acc c.src.(0));
  let params = List.stable_sort (fun a b -> compare (param_arg a).slot (param_arg b).slot) (List.rev !acc) in
  let args = Array.of_list (tail c) in
  (* the errors name the public op that built the FUNCTION: Tensor.call *)
  List.iter (fun p ->
      let slot = (param_arg p).slot in
      if slot >= Array.length args then
        invalid_arg (Printf.sprintf "call: PARAM of slot %d, but %d args" slot (Array.length args))) params;
  if not allow_param_mismatch then begin
    if List.map (fun p -> (param_arg p).slot) params <> List.init (List.length params) Fun.id then
      failwith "params not in order";
    if List.length params <> Array.length args then
      invalid_arg (Printf.sprintf "call: expected %d args, got %d" (List.length params) (Array.length args))
  end;
  let dict_map = List.map (fun p -> (p, args.((param_arg p).slot))) params in
  List.iteri (fun i (p, a) ->
      if (param_arg p).axis <> (match a.arg with Param q when a.op == Ops.Param || a.op == Ops.Buffer -> q.axis | _ -> None) then
        invalid_arg (Printf.sprintf "call: arg %d axis mismatch" i);
      if max_shape p <> max_shape a then
        invalid_arg (Printf.sprintf "call: arg %d shape mismatch: expected %s, got %s" i
                       (shape_str (shape p)) (shape_str (shape a)));
      if p.dtype != a.dtype then
        invalid_arg (Printf.sprintf "call: arg %d dtype mismatch: expected %s, got %s" i
                       (Dtype.to_string p.dtype) (Dtype.to_string a.dtype))) dict_map;
  Some (P.substitute ~walk:true c.src.(0) dict_map)

(* shape-changing bitcast *)
(* tinygrad: schedule/rangeify.py expand_bitcast *)
let expand_bitcast (bc : Uop.t) : Uop.t option =
  let x = bc.src.(0) in
  let ns = Dtype.itemsize bc.dtype and os = Dtype.itemsize x.dtype in
  let disk = match device x with Some (Multi _) -> false | Some (One d) -> String.length d >= 4 && (String.sub d 0 4 = "DISK" || (String.length d >= 6 && String.sub d 0 6 = "TINYFS")) | None -> false in
  if ns = os || disk then None
  else begin
    let uint n = match Dtype.of_string (Printf.sprintf "uint%d" (8 * n)) with Some d -> d | None -> invalid_arg "expand_bitcast: no uint" in
    let new_uint = uint ns and tmp = bitcast (uint os) x in
    if ns > os then begin
      let rate = ns / os in
      let xs = shape x in
      let last = Helpers.last xs and front = List.filteri (fun i _ -> i < List.length xs - 1) xs in
      let tmp = M.reshape tmp (front @ [ Sint (int_of_sint "expand_bitcast" last / rate); Sint rate ]) in
      let nd = List.length (shape tmp) in
      let parts = List.init rate (fun i ->
          shl (cast new_uint (M.shrink tmp (List.init (nd - 1) (fun _ -> None) @ [ Some (Sint i, Sint (i + 1)) ])))
            (const_int (8 * i * os))) in
      Some (bitcast bc.dtype (M.squeeze ~dim:(-1) (usum ~start:(List.hd parts) (List.tl parts))))
    end else begin
      let parts = List.init (os / ns) (fun i -> shr tmp (const_int (8 * i * ns))) in
      Some (bitcast bc.dtype (cast new_uint (M.flatten ~start_dim:(-2) (M.stack ~dim:(-1) parts))))
    end
  end

(* tinygrad: schedule/rangeify.py earliest_rewrites (ALLREDUCE is lowered by multi_pm before: Multi.run) *)
let earliest_rewrites : unit P.matcher =
  P.(Movement.mop_cleanup @@@ matcher
    [ (* resolve FUNCTION calls (inline the body) *)
      rule (pat Ops.Function ~name:"c") (fun m -> resolve_function (get m "c"));
      (* resolve TUPLE+GETTUPLE *)
      rule (pat Ops.Gettuple ~src:(In_order [ pat Ops.Tuple ~name:"t" ]) ~name:"g") (fun m ->
          match (get m "g").arg with Int i -> Some (get m "t").src.(i) | _ -> None);
      (* split_reduceop *)
      rule (pat Ops.Reduce ~name:"reduce" ~src:(In_order [ var "x" ])) (fun m -> split_reduceop (get m "reduce") (get m "x"));
      (* remove DETACH/CONTIGUOUS_BACKWARD (TODO: this is copied in allocations) *)
      rule (ops [ Ops.Detach; Ops.Contiguous_backward ] ~name:"x") (fun m -> Some (get m "x").src.(0));
      (* SINK only ever references the base *)
      rule (pat Ops.Sink ~name:"x") (fun m -> let x = get m "x" in Some (replace x ~src:(Array.map unsharded_base x.src)));
      (* ** copy rules ** *)
      (* COPY transfers a contiguous range, so materialize a source that's resized (shrink/pad/expand) or reordered *)
      rule (pat Ops.Copy ~src:(In_order [ ops Ops.Group.movement ~name:"r" ]) ~name:"c") (fun m ->
          let c = get m "c" and r = get m "r" in
          let ne = resolve ~default:false (Uop.ne (sint_to_uop (M.numel r)) (sint_to_uop (M.numel (base r)))) in
          if ne || contiguous_view_offset r = None then Some (replace c ~src:[| Buffers.contiguous r |]) else None);
      (* copy to same device is a no-op *)
      rule (pat Ops.Copy ~src:(In_order [ var "x" ]) ~name:"copy") (fun m ->
          let x = get m "x" and copy = get m "copy" in
          if device x = device copy then Some x else None);
      (* copy on reshape is reshape on copy *)
      rule (pat Ops.Copy ~src:(In_order [ pat Ops.Reshape ~name:"shp" ]) ~name:"cpy") (fun m ->
          let shp = get m "shp" and cpy = get m "cpy" in
          match device cpy with
          | Some d -> Some (M.reshape (copy_to_device shp.src.(0) d) (shape shp))
          | None -> None);
      (* reshaping on STORE can be a NOOP *)
      rule (pat Ops.Store ~src:(In_order [ pat Ops.Reshape ~src:(In_order [ var "dst" ]) ~allow_any_len:true;
                                            pat Ops.Reshape ~src:(In_order [ var "src" ]) ~allow_any_len:true ])) (fun m ->
          let dst = get m "dst" and src = get m "src" in
          if equal_sints (shape dst) (shape src) then Some (Uop.store dst src) else None);
      (* ** store rules ** *)
      (* fix store hazard (dest is in used in src) by adding contiguous: TestAssign.test_post_flipped_assignment *)
      rule (pat Ops.Store ~src:(In_order [ var "target"; var "src" ])) (fun m -> fix_store_hazard (get m "target") (get m "src"));
      (* remove two STOREs that store the same thing to the same place: TestSchedule.test_dedup_assign *)
      rule (after (after (var "buf") [ store (var "buf") [ var "src" ] ] ~name:"a1") [ store (var "a1") [ var "src" ] ])
        (fun m -> Some (get m "a1"));
      (* store a buffer's own current contents back into itself: TestAssign.test_nested_after_contiguous_store_no_init *)
      rule (after (var "buf") [ store (var "buf") [ after (var "buf") [ store (var "buf") [ var "src" ] ] ~name:"a1" ] ])
        (fun m -> Some (get m "a1"));
      (* move bitcast from store dest to source: TestAssign.test_assign_bitcast *)
      rule (pat Ops.Store ~src:(In_order [ pat Ops.Bitcast ~src:(In_order [ var "target" ]); var "src" ])) (fun m ->
          let target = get m "target" in Some (Uop.store target (Uop.bitcast target.dtype (get m "src"))));
      rule (pat Ops.Bitcast ~name:"bc") (fun m -> expand_bitcast (get m "bc"));
      (* ** size 0 ** *)
      (* reduce of size 0 is the identity element *)
      rule (pat Ops.Reduce ~name:"reduce" ~src:(In_order [ var "x" ])) (fun m ->
          let reduce = get m "reduce" and x = get m "x" in
          match reduce.arg with
          | Reduce_arg (o, _) when shape_has_zero (shape x) && not (shape_has_zero (shape reduce)) ->
            Some (const_like reduce (identity_element o reduce.dtype))
          | _ -> None);
      (* handle size 0 *)
      rule (ops (List.filter (fun o -> o != Ops.Sink) (Array.to_list Ops.all)) ~name:"x") (fun m ->
          let x = get m "x" in
          match shape_opt x with
          | Some s when shape_has_zero s -> Some (rtag ~tag:x.tag (const_like_int x 0))
          | _ -> None) ])

(* *****************
   3.5 cleanups *)

(* tinygrad: ALWAYS_RUN_OPS *)
let always_run_ops = [ Ops.Contiguous; Ops.Noop ]

(* you don't know in the first pass if axes are going to die, this happens if there's an EXPAND to the left *)
(* tinygrad: schedule/rangeify.py cleanup_dead_axes *)
let cleanup_dead_axes (b : Uop.t) : Uop.t option =
  if not (bopts b).removable then None
  (* don't optimize ALWAYS_RUN_OPS or AFTER (AFTER is a buffer identity) *)
  else if List.memq b.src.(0).op always_run_ops || b.src.(0).op == Ops.After then None
  else begin
    let src_ranges = ranges b.src.(0) in
    let exception Symbolic in
    try
      let hit = ref false in
      let pairs = List.combine (shape b) (tail b) in
      let reshape_, new_rng = List.fold_right (fun (s, (rng : Uop.t)) (rs, nr) ->
          (* skip for symbolic. TODO: fix this *)
          if rng.op == Ops.Range && rng.src.(0).op != Ops.Const then raise Symbolic;
          (* CONSTs are already dead axes *)
          if rng.op == Ops.Const || (rng.op == Ops.Range && not (List.memq rng src_ranges)) then (hit := true; (Sint 1 :: rs, nr))
          else (s :: rs, rng :: nr)) pairs ([], []) in
      if !hit then Some (M.expand (M.reshape (replace b ~src:(Array.of_list (b.src.(0) :: new_rng))) reshape_) (shape b)) else None
    with Symbolic -> None
  end

(* tinygrad: schedule/rangeify.py gate_substitute / pm_gate_substitute (ctx: the substitution table) *)
let pm_gate_substitute : Uop.t Tbl.t P.matcher =
  P.matcher [ P.rule_ctx (P.ops (Array.to_list Ops.all) ~name:"b") (fun ctx m ->
      if not (List.exists (fun r -> Tbl.mem ctx r) (ranges (P.get m "b"))) then raise P.Bottom_up_gate;
      None) ]

(* if a buffer is being stored just for permutes or something, remove it
   we want to reexpress the indexes of idx2 in terms of the implied b1 *)
(* tinygrad: schedule/rangeify.py remove_bufferize *)
let remove_bufferize (src : Uop.t) (buf : Uop.t) (idx : Uop.t) : Uop.t option =
  (* see if we can't do it, should this ever hit? *)
  assert (Array.length buf.src = Array.length idx.src);
  assert (List.for_all (fun (x : Uop.t) -> x.op == Ops.Range || x.op == Ops.Const) (tail buf));
  (* if it's user contiguous, we never remove it *)
  if List.memq src.op always_run_ops || not (bopts buf).removable then None
  else begin
    (* *** here is where we compute the cost *** *)
    (* if we return None, the bufferize is kept *)
    let accessed_buffers = ref [] and indexes = ref [] and reduces = ref [] in
    let red_gate (x : Uop.t) =
      if x.op == Ops.After then (accessed_buffers := Buffers.buf_uop x :: !accessed_buffers; false)
      else if (x.op == Ops.Stage && (bopts x).baddrspace = Dtype.Global) || x.op == Ops.Mstack then
        (accessed_buffers := x :: !accessed_buffers; false)
      else if x.op == Ops.Store then false  (* don't look inside stores, this doesn't count toward buffer accesses *)
      else begin
        if x.op == Ops.Param then accessed_buffers := x :: !accessed_buffers;
        if x.op == Ops.Index then indexes := x :: !indexes;
        if x.op == Ops.Reduce then reduces := x :: !reduces;
        true
      end in
    ignore (toposort ~gate:red_gate src);
    let accessed_buffers = dedupq (List.rev !accessed_buffers) in
    let pcontig = Helpers.pcontig.value in
    (* if this is generated from multiple buffers, don't remove this buffer *)
    if List.length accessed_buffers > 3 && not (pcontig > 2) then None
    else begin
      (* if any reduces access a buffer, don't remove this buffer *)
      let buffer_in_reduce = ref false in
      let buf_gate (x : Uop.t) =
        if List.memq x.op [ Ops.Param; Ops.Stage; Ops.After ] then buffer_in_reduce := true;
        not !buffer_in_reduce in
      ignore (toposort ~gate:buf_gate (sink (List.rev_map (fun (x : Uop.t) -> x.src.(0)) !reduces)));
      let replace_all () =
        (* if it makes it here, the bufferize is removed. this is the ranges replaced
           NOTE: if buf src is a const, we don't replace it. if idx is Invalid (dead load), don't replace it either *)
        let replaced = List.filter (fun ((k : Uop.t), (v : Uop.t)) -> k.op != Ops.Const && not (v.op == Ops.Const && is_invalid v))
            (List.combine (tail buf) (tail idx)) in
        Some (P.substitute ~extra_pm:pm_gate_substitute src replaced) in
      if !buffer_in_reduce then begin
        if pcontig > 2 then begin
          let numel_i (x : Uop.t) = int_of_sint "remove_bufferize" (sprod (shape x)) in
          let out_in_ratio = float_of_int (numel_i buf + 1)
                             /. float_of_int (List.fold_left (fun a x -> a + numel_i x) 0 accessed_buffers + 1) in
          if out_in_ratio < 10. then None
          else begin
            (* here we have to check the indexes, we might do a partial contig here *)
            let local_indexes = List.filter (fun (x : Uop.t) -> x.src.(0).op == Ops.Stage && (bopts x.src.(0)).baddrspace = Dtype.Local)
                (List.rev !indexes) in
            let exclude_ranges = ranges (group (List.map (fun x -> group (tail x)) local_indexes)) in
            let subs = List.filter (fun ((k : Uop.t), _) -> k.op != Ops.Const) (List.combine (tail buf) (tail idx)) in
            (* if it's bufferized or a reduce, it's pcontig *)
            let is_pcontig, is_subs = List.partition (fun ((k : Uop.t), (v : Uop.t)) ->
                List.memq k exclude_ranges || List.exists (fun r -> range_axis r = Reduce) (ranges v)) subs in
            if is_subs = [] then None
            else if is_pcontig <> [] then begin
              let ret = P.substitute ~extra_pm:pm_gate_substitute src is_subs in
              Some (index (create Ops.Stage ~src:(Array.of_list (ret :: List.map fst is_pcontig))
                             ~arg:(Bufferize_opts { bdevice = Bdev_none; baddrspace = Dtype.Local; removable = true }))
                      (List.map snd is_pcontig))
            end else replace_all ()
          end
        end else None
      end else replace_all ()
    end
  end

(* tinygrad: schedule/rangeify.py remove_noop_bufferize *)
let remove_noop_bufferize (idx : Uop.t) (b2 : Uop.t) : Uop.t option =
  let a = tail idx and b = tail b2 in
  if not (List.length a = List.length b && List.for_all2 ( == ) a b) then None
  else if shape b2 <> [] then Some (M.shrink idx.src.(0) (List.map (fun s -> Some (Sint 0, s)) (shape b2)))
  else Some idx.src.(0)

(* tinygrad: schedule/rangeify.py after_all_invalid *)
let after_all_invalid (after : Uop.t) : bool =
  let buf = Buffers.buf_uop after.src.(0) in
  List.for_all (fun (s : Uop.t) ->
      s.op == Ops.End &&
      (let st = s.src.(0) in
       st.op == Ops.Store && is_invalid (base st.src.(1)) && Buffers.buf_uop st.src.(0) == buf
       && (let er = ended_ranges s in
           let str = ranges st.src.(0) in
           List.for_all (fun r -> List.memq r str) er
           && resolve ~default:false
             (eq (List.fold_left (fun a (r : Uop.t) -> mul a r.src.(0)) (const_int 1) er) (sint_to_uop (sprod (shape buf)))))))
    (tail after)

(* tinygrad: schedule/rangeify.py pm_const_buffer_folding *)
let pm_const_buffer_folding : unit P.matcher =
  P.(pm_mops @@@ matcher
    [ rule (pat Ops.Stage ~name:"b") (fun m -> cleanup_dead_axes (get m "b"));
      (* remove noop buffers. if we look at the next index we can remove even more of these *)
      rule (pat Ops.Stage ~name:"b2" ~allow_any_len:true ~src:(In_order [ pat Ops.Index ~name:"idx" ]))
        (fun m -> remove_noop_bufferize (get m "idx") (get m "b2"));
      rule (pat Ops.Stage ~name:"b2" ~allow_any_len:true
              ~src:(In_order [ pat Ops.Noop ~src:(In_order [ pat Ops.Index ~name:"idx" ~allow_any_len:true
                                                                ~src:(In_order [ pat Ops.Stage ]) ]) ]))
        (fun m -> remove_noop_bufferize (get m "idx") (get m "b2"));
      (* no buffers for const (ranges don't matter for const - it's the same value everywhere) *)
      rule (pat Ops.Stage ~name:"b" ~allow_any_len:true ~src:(In_order [ pat Ops.Const ~name:"c" ])) (fun m ->
          Some (const_like (get m "b") (const_val (get m "c"))));
      (* indexing a const is a const *)
      rule (pat Ops.Index ~src:(In_order [ pat Ops.Const ~name:"c" ])) (fun m -> Some (get m "c"));
      (* indexing an after with all fully invalid stores is invalid *)
      rule (pat Ops.Index ~src:(In_order [ pat Ops.After ~name:"after" ]) ~allow_any_len:true ~name:"idx") (fun m ->
          if after_all_invalid (get m "after") then Some (const_like (get m "idx") Dtype.Invalid) else None);
      (* hack if a noop turned to a const *)
      rule (pat Ops.Noop ~src:(In_order [ cvar "c" ])) (fun m -> Some (get m "c"));
      (* a deviceless MSTACK src is the same value on every device, so indexing the stack is just indexing that value *)
      rule (pat Ops.Index ~allow_any_len:true ~name:"idx" ~src:(In_order [ pat Ops.Mstack ~allow_any_len:true ~src:(In_order [ var "s" ]) ]))
        (fun m ->
           let s = get m "s" and idx = get m "idx" in
           if device s = None then Some (replace idx ~src:(Array.of_list (s :: tail idx))) else None) ])

(* tinygrad: schedule/rangeify.py pm_remove_bufferize *)
let pm_remove_bufferize : unit P.matcher =
  P.matcher
    [ (* remove reindexing with cost function *)
      P.rule (P.pat Ops.Index ~allow_any_len:true ~name:"idx"
                ~src:(P.In_order [ P.pat Ops.Stage ~allow_any_len:true ~name:"buf" ~src:(P.In_order [ P.var "src" ]) ]))
        (fun m -> remove_bufferize (P.get m "src") (P.get m "buf") (P.get m "idx"));
      (* STORE to self is NOOP *)
      P.rule (P.store (P.var "x") [ P.var "x" ]) (fun _ -> Some (create Ops.Noop));
      (* END on NOOP is NOOP *)
      P.rule (P.pat Ops.End ~allow_any_len:true ~src:(P.In_order [ P.pat Ops.Noop ~name:"x" ])) (fun m -> Some (P.get m "x")) ]

(* tinygrad: schedule/rangeify.py strip_zero_offset_shrink *)
let strip_zero_offset_shrink (x : Uop.t) : Uop.t =
  match x.op, (if x.op == Ops.Shrink then Some (marg x) else None) with
  | Ops.Shrink, Some (`Pairs p) when List.for_all (fun (st, _) -> sint_equal st (Sint 0)) p -> x.src.(0)
  | _ -> x

(* tinygrad: schedule/rangeify.py no_indexing_calls *)
let no_indexing_calls (u : Uop.t) : Uop.t option =
  let new_srcs = Array.map (fun (x : Uop.t) ->
      (* sometimes if call srcs have children the call will get an INDEX. we remove it here. *)
      if x.op == Ops.Index then x.src.(0)
      else if x.op == Ops.Shrink then strip_zero_offset_shrink x  (* SHRINK with offset 0 is fine *)
      else if x.op == Ops.Mstack then replace x ~src:(Array.map strip_zero_offset_shrink x.src)
      else x) u.src in
  Some (replace u ~src:new_srcs)

(* tinygrad: schedule/rangeify.py pm_no_indexing_calls *)
let pm_no_indexing_calls : unit P.matcher =
  P.matcher [ P.rule (P.pat Ops.Call ~name:"u") (fun m -> no_indexing_calls (P.get m "u")) ]

(* tinygrad: schedule/rangeify.py DEVICE_MAX_BUFS *)
let device_max_bufs = [ ("METAL", 31); ("WEBGPU", 8); ("CPU", 31) ]

(* tinygrad: schedule/rangeify.py LimitBufsContext *)
type limit_bufs_context = { buf_cache : Uop.t list Tbl.t; mutable range_idx : int }

(* tinygrad: schedule/rangeify.py _limit_bufs *)
let limit_bufs (ctx : limit_bufs_context) (root : Uop.t) : Uop.t option =
  match device root with
  | None -> None  (* no device, index related calculations *)
  | Some dev ->
    (* tinygrad's DEVICE_MAX_BUFS has no tuple keys: a multi-device kernel is not limited *)
    let dev = match dev with
      | One dev -> (match String.index_opt dev ':' with Some i -> String.sub dev 0 i | None -> dev)
      | Multi _ -> "" in
    let max_bufs = if Helpers.max_kernel_buffers.value <> 0 then Helpers.max_kernel_buffers.value
      else Option.value ~default:0 (List.assoc_opt dev device_max_bufs) in
    if max_bufs = 0 then None
    else begin
      (* topovisit: the set of buffers each node reads *)
      List.iter (fun (u : Uop.t) ->
          if not (Tbl.mem ctx.buf_cache u) then begin
            let v =
              if List.memq u.op [ Ops.Stage; Ops.After; Ops.Param; Ops.Mselect; Ops.Mstack ] then [ u ]
              else if Array.length u.src = 1 then Tbl.find ctx.buf_cache u.src.(0)
              else dedupq (List.concat_map (fun s -> Tbl.find ctx.buf_cache s) (Array.to_list u.src)) in
            Tbl.replace ctx.buf_cache u v
          end) (toposort ~gate:(fun u -> not (Tbl.mem ctx.buf_cache u)) root);
      let bufs = Tbl.find ctx.buf_cache root in
      if List.length bufs > max_bufs - 1 then begin  (* NOTE: this -1 is for the output buffer *)
        let srcs = Array.map (fun (s : Uop.t) ->
            if Ops.Group.is_elementwise s.op && device s <> None then begin
              (* Insert bufferize: all AxisType.REDUCE before bufferize are AxisType.WEAK, the DEVICE range stays launched *)
              let orig_ranges = ranges s in
              let end_ranges = List.map (fun (x : Uop.t) ->
                  if x.op == Ops.Range && range_axis x != Device then begin
                    let n = ctx.range_idx in
                    ctx.range_idx <- n + 1;
                    replace x ~arg:(Range ([ n ], Weak))
                  end else x) orig_ranges in
              index (create Ops.Stage ~src:(Array.of_list (P.substitute s (List.combine orig_ranges end_ranges) :: end_ranges))
                       ~arg:(Bufferize_opts { bdevice = (match device s with Some d -> Bdev d | None -> Bdev_none);
                                              baddrspace = Dtype.Global; removable = true }))
                orig_ranges
            end else s) root.src in
        Some (replace root ~src:srcs)
      end else None
    end

(* tinygrad: schedule/rangeify.py pm_limit_bufs *)
let pm_limit_bufs : limit_bufs_context P.matcher =
  P.matcher [ P.rule_ctx (P.ops (List.filter (fun o -> Ops.Group.is_binary o || Ops.Group.is_ternary o) (Array.to_list Ops.all)) ~name:"root")
                (fun ctx m -> limit_bufs ctx (P.get m "root")) ]

(* *****************
   4. put in buffers for bufferize *)

(* tinygrad: schedule/rangeify.py bufferize_to_store *)
let bufferize_to_store ?(allow_locals = true) (ctx : int ref) (x : Uop.t) (idx : Uop.t) : Uop.t option =
  let size = sprod (shape x) in
  let dtype = Dtype.strong_dtype x.dtype in  (* a BUFFER is never weak *)
  let rngs = sort_by_arg (ranges idx) in
  (match size with Sint n when n > 0 -> () | _ -> invalid_arg "bufferize_to_store: no zero sized or symbolic sized buffers");
  let size = int_of_sint "" size in
  let next () = let n = !ctx in incr ctx; n in
  let after_ = x.src.(0) in
  if after_.op == Ops.After then begin
    (* AFTER: add END to the existing STORE, return buffer with kernel dependency *)
    let buf = base (Buffers.buf_uop after_.src.(0)) in
    let stores = List.filter (fun (s : Uop.t) -> s.op == Ops.Store && s.src.(0).op == Ops.Index) (tail after_) in
    if stores = [] then Some buf
    else begin
      (* BUFFERIZE(INDEX(...)); store through the underlying global index instead. *)
      let ended = List.filter_map (fun (st : Uop.t) ->
          let target = st.src.(0) in
          let target = if target.src.(0).op == Ops.Stage && target.src.(0).src.(0).op == Ops.Index then target.src.(0).src.(0) else target in
          if st.src.(1) == target then None  (* skip self-assign *)
          else
            let end_rngs = sort_by_arg (dedupq (ranges target @ rngs)) in
            Some (end_ (store target st.src.(1)) end_rngs)) stores in
      Some (after buf ended)
    end
  end else begin
    let b = bopts x in
    (* NOTE: the local BUFFER needs to be disambiguated here *)
    if b.baddrspace = Dtype.Global then begin
      let buf = create Ops.Buffer ~dtype ~src:[| shape_to_shape_arg [ Sint size ] |]
          ~arg:(Param { default_param with slot = next (); pdtype = dtype; device = bdevice_opt b; addrspace = Some Dtype.Global }) in
      let do_store = end_ (store (index buf [ idx ]) (cast dtype x.src.(0))) rngs in
      Some (cast x.dtype (after buf [ do_store ]))
    end else if allow_locals then begin
      (* handle locals *)
      let buf = create Ops.Buffer ~dtype ~src:[| shape_to_shape_arg [ Sint size ] |]
          ~arg:(Param { default_param with slot = next (); pdtype = dtype; addrspace = Some Dtype.Local }) in
      let do_store = end_ (store (index buf [ idx ]) (cast dtype x.src.(0))) rngs in
      Some (cast x.dtype (after buf [ do_store ]))
    end else None
  end

(* collapse any BUFFERIZE to single input BUFFERIZE *)
(* tinygrad: schedule/rangeify.py flatten_bufferize *)
let flatten_bufferize (x : Uop.t) : Uop.t option =
  if Array.length x.src = 2 then None
  else begin
    let sh = shape x in
    let rngs = tail x in
    let flat = match Indexing.apply_movement_op Ops.Reshape [ sprod sh ] (`Shape sh) rngs with
      | [ r ] -> r | _ -> invalid_arg "flatten_bufferize: not a single element" in
    let ret = M.reshape (replace x ~src:[| x.src.(0); flat |]) sh in
    if List.exists (fun (r : Uop.t) -> r.op == Ops.Range && r.src.(0).op != Ops.Const) rngs then
      let sym_shape = List.map (fun (r : Uop.t) -> if r.op != Ops.Const then sint_of_uop r.src.(0) else Sint 1) rngs in
      Some (M.shrink ret (List.map (fun s -> Some (Sint 0, s)) sym_shape))
    else Some ret
  end

(* tinygrad: schedule/rangeify.py pm_flatten_bufferize *)
let pm_flatten_bufferize : unit P.matcher = P.matcher [ P.rule (P.pat Ops.Stage ~name:"x") (fun m -> flatten_bufferize (P.get m "x")) ]

(* tinygrad: schedule/rangeify.py is_noop_after_dep *)
let rec is_noop_after_dep (x : Uop.t) =
  (x.op == Ops.Noop && Array.length x.src = 0) || (x.op == Ops.End && is_noop_after_dep x.src.(0))

(* tinygrad: schedule/rangeify.py remove_noop_afters *)
let remove_noop_afters (x : Uop.t) : Uop.t option =
  let src = x.src.(0) :: List.filter (fun s -> not (is_noop_after_dep s)) (tail x) in
  if List.length src <> Array.length x.src then (match src with [ s ] -> Some s | _ -> Some (replace x ~src:(Array.of_list src)))
  else None

(* tinygrad: schedule/rangeify.py pm_add_buffers *)
let pm_add_buffers : int ref P.matcher Lazy.t = lazy P.(
    lift pm_mops @@@ lift pm_flatten_bufferize @@@ matcher
      [ rule_ctx (pat Ops.Stage ~src:(In_order [ wild; var "idx" ]) ~name:"x") (fun ctx m ->
            bufferize_to_store ~allow_locals:false ctx (get m "x") (get m "idx"));
        (* INDEX of a buffer through the weak cast added above: index the buffer directly and cast the loaded value *)
        rule (pat Ops.Index ~allow_any_len:true ~name:"u"
                ~src:(In_order [ pat Ops.Cast ~dtype:[ Dtype.Weakint; Dtype.Weakfloat ] ~src:(In_order [ var "buf" ]) ])) (fun m ->
            let u = get m "u" and buf = get m "buf" in
            let i = create Ops.Index ~src:(Array.of_list (buf :: tail u)) ~arg:u.arg ~tag:u.tag in
            Some (Uop.cast u.dtype i));
        (* move RESHAPEs through MSELECT/MSTACK *)
        rule (ops [ Ops.Mselect; Ops.Mstack ] ~src:(Repeat (pat Ops.Reshape)) ~name:"m") (fun m ->
            let mm = get m "m" in
            Some (M.reshape (replace mm ~src:(Array.map (fun (x : Uop.t) -> base x.src.(0)) mm.src)) (shape mm)));
        (* remove any RESHAPEs on KERNEL *)
        rule (pat Ops.Call ~name:"k") (fun m ->
            let k = get m "k" in Some (replace k ~src:(Array.map (fun (x : Uop.t) -> if x.op == Ops.Reshape then x.src.(0) else x) k.src)));
        (* remove invalid writes *)
        rule (pat Ops.Store ~src:(In_order [ wild; pat Ops.Contiguous ~src:(In_order [ pat Ops.Const ~arg:(Const Dtype.Invalid) ]) ]))
          (fun _ -> Some (create Ops.Noop));
        rule (pat Ops.Store ~src:(In_order [ wild; pat Ops.Const ~arg:(Const Dtype.Invalid) ])) (fun _ -> Some (create Ops.Noop));
        rule (pat Ops.After ~name:"x") (fun m -> remove_noop_afters (get m "x")) ])

(* *****************
   5. split into kernels *)

(* tinygrad: schedule/rangeify.py LocalAddBufferContext; [map] keeps insertion order *)
type local_add_buffer_context = {
  mutable dg : int;
  map : Uop.t Tbl.t;
  mutable map_order : Uop.t list;  (* keys, reversed insertion order *)
  mutable range : int;
  opts : Opt.t list option;  (* CONTIGUOUS args holding Opts are not modelled: stays None *)
}

let new_local_ctx () = { dg = 0; map = Tbl.create 8; map_order = []; range = 0; opts = None }
let ctx_add ctx k v = if not (Tbl.mem ctx.map k) then (ctx.map_order <- k :: ctx.map_order); Tbl.replace ctx.map k v

(* tinygrad: schedule/rangeify.py debuf *)
let debuf (ctx : local_add_buffer_context) (buf : Uop.t) : Uop.t option =
  (* Variables (ALU buffers with a value range) are scalar symbolic values, not real buffers *)
  if is_variable buf then Some (replace buf ~op:Ops.Param)
  else begin
    let param = create Ops.Param ~dtype:buf.dtype ~src:[| const_int (max_numel buf) |]
        ~arg:(Param { default_param with slot = ctx.dg; pdtype = buf.dtype; addrspace = addrspace buf; device = mdevice buf }) in
    let ms = List.map (fun i -> Sint i) (max_shape buf) in
    let ret = M.reshape param ms in
    (* if the buffer has symbolic shape, shrink the max-sized view to the actual shape *)
    let ret = if not (equal_sints ms (shape buf)) then M.shrink ret (List.map (fun s -> Some (Sint 0, s)) (shape buf)) else ret in
    if not (Tbl.mem ctx.map buf) then ctx_add ctx buf buf;
    ctx.dg <- ctx.dg + 1;
    Some ret
  end

(* tinygrad: schedule/rangeify.py handle_after *)
let handle_after (ctx : local_add_buffer_context) (after_ : Uop.t) : Uop.t option =
  if addrspace after_ = Some Dtype.Local then None
  else begin
    let buf = Buffers.buf_uop after_ in
    (* NOTE: this is bottom up, so we only add it once *)
    if not (Tbl.mem ctx.map buf) then ctx_add ctx buf after_;
    Some buf
  end

(* tinygrad: schedule/rangeify.py renumber_range *)
let renumber_range (ctx : local_add_buffer_context) (r : Uop.t) : Uop.t option =
  if not (equal_arg r.tag (Tuple [])) then None
  else match r.arg with
    | Range (_ :: rest, at) ->
      let ret = replace r ~arg:(Range (ctx.range :: rest, at)) ~tag:No_arg in
      ctx.range <- ctx.range + 1;
      Some ret
    | _ -> None

(* tinygrad: schedule/rangeify.py find_bufs *)
let find_bufs (x : Uop.t) : Uop.t option =
  let idxs = List.filter (fun (s : Uop.t) -> s.op == Ops.Index) (toposort ~gate:(fun (x : Uop.t) -> x.op != Ops.After) x) in
  let read_from = Tbl.create 8 in
  List.iter (fun (idx : Uop.t) ->
      let buf = Buffers.buf_uop idx in
      if buf.op == Ops.Buffer || buf.op == Ops.Param then begin
        let op = idx.src.(0).op in
        match Tbl.find_opt read_from buf with
        | None -> Tbl.replace read_from buf op
        | Some o when o != op -> failwith ("cycle detected while indexing " ^ to_string buf)
        | Some _ -> ()
      end) idxs;
  None

(* tinygrad: schedule/rangeify.py to_define_global *)
let to_define_global : local_add_buffer_context P.matcher =
  P.matcher
    [ P.rule (P.pat Ops.Store ~name:"x") (fun m -> find_bufs (P.get m "x"));
      P.rule_ctx (P.ops [ Ops.Buffer; Ops.Mstack; Ops.Mselect ] ~name:"buf") (fun ctx m -> debuf ctx (P.get m "buf"));
      P.rule (P.pat Ops.Param ~name:"v") (fun m ->
          let v = P.get m "v" in
          let pa = param_arg v in
          if pa.name <> None && pa.vmin_vmax <> None && pa.slot <> -1 then Some (replace v ~arg:(Param { pa with slot = -1 })) else None);
      (* this renumbers the params *)
      P.rule_ctx (P.pat Ops.Param ~name:"buf") (fun ctx m ->
          let buf = P.get m "buf" in
          if not (equal_arg buf.tag (Tuple [])) || (param_arg buf).name <> None || shape_opt buf = None then None else debuf ctx buf);
      (* ALU params are scalar symbolic values, not buffers. *)
      P.rule (P.pat Ops.Index ~src:(P.In_order [ P.pat Ops.Param ~name:"v" ])) (fun m ->
          let v = P.get m "v" in if addrspace v = Some Dtype.Alu then Some v else None);
      (* bound Variables are stores into Variable buffers: strip the store, the buffer becomes an ALU param via debuf *)
      P.rule (P.pat Ops.After ~name:"b") (fun m -> let b = P.get m "b" in if Buffers.is_bound_var b then Some b.src.(0) else None);
      P.rule_ctx (P.pat Ops.After ~name:"after") (fun ctx m -> handle_after ctx (P.get m "after"));
      (* remove device from local BUFFERIZE *)
      P.rule (P.pat Ops.Stage ~name:"b") (fun m ->
          let b = P.get m "b" in Some (replace b ~arg:(Bufferize_opts { (bopts b) with bdevice = Bdev_none })));
      (* renumber the ranges starting with 0 so that kernel deduping works *)
      P.rule_ctx (P.pat Ops.Range ~name:"r") (fun ctx m -> renumber_range ctx (P.get m "r")) ]

(* tinygrad: schedule/rangeify.py get_contiguous (CONTIGUOUS args holding Opts are not modelled) *)
let get_contiguous (_ctx : local_add_buffer_context) (x : Uop.t) : Uop.t option = Some x.src.(0)

(* tinygrad: schedule/rangeify.py rangeify_codegen *)
let rangeify_codegen : local_add_buffer_context P.matcher =
  P.matcher
    [ P.rule_ctx (P.pat Ops.Contiguous ~name:"x") (fun ctx m -> get_contiguous ctx (P.get m "x"));
      (* no NOOP in the kernel graph *)
      P.rule (P.pat Ops.Noop ~name:"x") (fun m -> let x = P.get m "x" in if Array.length x.src > 0 then Some x.src.(0) else None) ]

(* tinygrad: schedule/rangeify.py pm_add_param_range_tags *)
let pm_add_param_range_tags : unit P.matcher =
  P.matcher [ P.rule (P.ops [ Ops.Param; Ops.Range ] ~name:"x") (fun m -> Some (rtag ~tag:(Tuple []) (P.get m "x"))) ]

let kernel_split_pm = lazy P.(to_define_global @@@ lift Simplify.pm_flatten_range @@@ rangeify_codegen)

(* tinygrad: schedule/rangeify.py split_store *)
let split_store (x : Uop.t) : Uop.t option =
  (* if we have any open ranges here, we don't split. open DEVICE ranges are fine *)
  if List.exists (fun r -> range_axis r != Device) (ranges x) then None
  else begin
    (* the store of a bound Variable is an input value, not a kernel *)
    let st = if x.op == Ops.End then x.src.(0) else x in
    if st.op == Ops.Store && is_variable st.src.(0) then None
    else begin
      (* local kernel rewrite *)
      let lctx = new_local_ctx () in
      let ret = P.graph_rewrite ~bottom_up:true ~name:"kernel split" (Lazy.force kernel_split_pm) lctx x in
      (* create the Kernel. NOTE: buffers can be on different devices here now *)
      let ki = { default_kernel_info with opts_to_apply = lctx.opts } in
      Some (Buffers.call (sink ~arg:(Kernel_info ki) [ ret ])
              (List.rev_map (fun k -> Tbl.find lctx.map k) lctx.map_order))
    end
  end

(* tinygrad: schedule/rangeify.py split_kernels *)
let split_kernels : unit P.matcher =
  P.matcher [ P.rule (P.ops [ Ops.Store; Ops.End ] ~name:"x") (fun m -> split_store (P.get m "x")) ]

(* tinygrad: schedule/rangeify.py convert_copy_to_store *)
let convert_copy_to_store ?existing_buf (ctx : int ref) (copy : Uop.t) : Uop.t option =
  let input_src = copy.src.(0) in
  let input_src = if not (has_buffer_identity ~after_ok:true input_src) then Buffers.contiguous input_src else input_src in
  let input_src = M.flatten input_src in
  match existing_buf with
  | Some eb ->
    (* if the existing buffer is not a full buffer, we can't use it *)
    if not (has_buffer_identity ~after_ok:true eb) then None
    else Some (store (M.flatten eb) input_src)  (* if there's already a buffer, we just use it *)
  | None ->
    (* create the output buffer *)
    let slot = !ctx in
    incr ctx;
    let buf = create Ops.Buffer ~dtype:copy.dtype ~src:[| shape_to_shape_arg (List.map (fun i -> Sint i) (max_shape input_src)) |]
        ~arg:(Param { default_param with slot; pdtype = copy.dtype; device = device copy }) in
    (* reshape back to input *)
    Some (M.reshape (after buf [ store buf input_src ]) (shape copy))

(* tinygrad: schedule/rangeify.py pm_copy_to_store *)
let pm_copy_to_store : int ref P.matcher =
  P.matcher
    [ P.rule_ctx (P.store (P.var "existing_buf") [ P.pat Ops.Copy ~name:"copy" ]) (fun ctx m ->
          convert_copy_to_store ~existing_buf:(P.get m "existing_buf") ctx (P.get m "copy"));
      P.rule_ctx (P.pat Ops.Copy ~name:"copy") (fun ctx m -> convert_copy_to_store ctx (P.get m "copy")) ]

(* not in tinygrad: the CPU mode's rules (Rangeify_cpu) after tinygrad's *)
let earliest_pm = lazy P.(pm_mops @@@ earliest_rewrites @@@ Rangeify_cpu.rules ~mops:pm_mops)
let debuf_pm = lazy P.(Symbolic.symbolic @@@ Simplify.pm_reduce_simplify @@@ pm_const_buffer_folding @@@ pm_remove_bufferize)
let add_buffers_pm = lazy P.(Lazy.force pm_add_buffers @@@ lift pm_add_param_range_tags)

(* the first part of get_kernel_graph: prepare for rangeify *)
let kernel_graph_before_rangeify (sink_ : Uop.t) : Uop.t =
  let tsink = P.graph_rewrite ~bottom_up:true ~name:"earliest rewrites" (Lazy.force earliest_pm) () sink_ in
  P.graph_rewrite ~bottom_up:true ~name:"convert copy to store" pm_copy_to_store (ref 0) tsink

(* the last part of get_kernel_graph: from the rangeified graph to the kernel graph *)
let kernel_graph_after_rangeify (tsink : Uop.t) : Uop.t =
  (* cleanups for speed and runability *)
  let tsink = P.graph_rewrite ~name:"symbolic+reduce_collapse+debuf" (Lazy.force debuf_pm) () tsink in
  let next_range = 1 + List.fold_left (fun a (x : Uop.t) -> if x.op == Ops.Range then max a (range_id0 x) else a) (-1) (toposort tsink) in
  let tsink = P.graph_rewrite ~name:"limit buffers" pm_limit_bufs { buf_cache = Tbl.create 64; range_idx = next_range } tsink in
  (* bufferize -> store *)
  let slots = List.filter_map (fun (x : Uop.t) ->
      match x.op, x.arg with
      | Ops.Buffer, Param p when addrspace x = Some Dtype.Global -> Some p.slot
      | _ -> None) (toposort tsink) in
  let paramarg_start = List.fold_left max (-1) slots + 1 in
  let tsink = P.graph_rewrite ~bottom_up:true ~name:"stage to store" (Lazy.force add_buffers_pm) (ref paramarg_start) tsink in
  let tsink = P.graph_rewrite ~bottom_up:true ~name:"split kernels" split_kernels () tsink in
  let tsink = P.graph_rewrite ~name:"remove indexing from call args" pm_no_indexing_calls () tsink in
  (* validate the kernel graph *)
  if Helpers.spec.value > 0 then Spec.type_verify ~enter_calls:false Spec.spec_kernel_graph tsink;
  tsink

(* tinygrad: schedule/rangeify.py get_kernel_graph after multi_pm (Multi.get_kernel_graph runs it first); the
   OPENPILOT_HACKS fold is not ported *)
let get_kernel_graph (sink_ : Uop.t) : Uop.t =
  (* prepare for rangeify *)
  let tsink = kernel_graph_before_rangeify sink_ in
  (* convert movement ops to ranges *)
  let tsink = Indexing.run_rangeify ~debug:(Helpers.debug_rangeify.value <> 0) tsink in
  kernel_graph_after_rangeify tsink
