(* tinygrad: codegen/__init__.py — the kernel pipeline: full_rewrite_to_sink (every pass in order), the
   linearize/render steps of to_program, and ProgramInfo.from_sink (uop/ops.py).
   Includes the GPU passes: the tensor-core (WMMA) rules, GROUP_REDUCE (fix_group_for_reduce) and LOCAL staging
   (add_local_buffer). Not ported: the ISA renderer branches (instruction selection, register allocation, do_assemble).
   A WMMA arg's [wupcast_axes] is [[]] once expanded (tinygrad sets it to None). *)

open Uop

(* ---------- UOp sugar with tinygrad's MovementMixin semantics ---------- *)

let sint_list_equal a b = List.length a = List.length b && List.for_all2 sint_equal a b

(* tinygrad: MovementMixin.reshape (a no-op reshape returns the node) *)
let reshape u (s : sint list) =
  if sint_list_equal (shape u) s then u else mop Ops.Reshape u (`Shape s)

(* tinygrad: MovementMixin.permute (the identity permutation returns the node) *)
let permute u (order : int list) =
  if order = List.init (List.length order) (fun i -> i) then u else mop Ops.Permute u (`Perm order)

let is_one = function Sint 1 -> true | _ -> false

(* tinygrad: MovementMixin._broadcast_to / expand (EXPAND adds dims on the left, then a permute) *)
let expand u (new_shape : sint list) =
  let shp = shape u in
  if sint_list_equal shp new_shape then u
  else begin
    let nd = List.length new_shape and n = List.length shp in
    if n > nd then invalid_arg ("expand: cannot broadcast to fewer dimensions " ^ shape_str shp ^ " to " ^ shape_str new_shape);
    let n_left = nd - n in
    let aligned = List.init n_left (fun _ -> Sint 1) @ shp in
    List.iter2 (fun s ns -> if not (sint_equal s ns || is_one s) then
                   invalid_arg ("expand: cannot broadcast " ^ shape_str shp ^ " to " ^ shape_str new_shape)) aligned new_shape;
    (* tinygrad: broadcast_axes *)
    let axes = List.init n_left (fun i -> i)
               @ List.concat (List.mapi (fun i s -> if is_one s && not (is_one (List.nth new_shape (n_left + i)))
                                          then [ n_left + i ] else []) shp) in
    let expand_at = List.filter_map (fun i -> if i >= n_left then Some (i - n_left) else None) axes in
    let kept = List.filter (fun i -> not (List.mem i expand_at)) (List.init n (fun i -> i)) in
    let squeezed = reshape u (List.map (fun i -> List.nth shp i) kept) in
    let earg = List.filteri (fun i _ -> i < n_left) new_shape @ List.map (fun i -> List.nth new_shape (n_left + i)) expand_at in
    let expanded = mop Ops.Expand squeezed (`Shape earg) in
    let index_of x l = let rec go k = function [] -> raise Not_found | y :: t -> if y = x then k else go (k + 1) t in go 0 l in
    let perm = List.init n_left (fun i -> i)
               @ List.init n (fun i -> n_left + (if List.mem i expand_at then index_of i expand_at
                                                 else List.length expand_at + index_of i kept)) in
    permute expanded perm
  end

(* tinygrad: UOp.stack via _mop(STACK): sources are cast to the common dtype (Invalid kept, CONSTs rebuilt) *)
let ustack (srcs : Uop.t list) =
  let dt = match dtype_from_uop Ops.Stack (Array.of_list srcs) No_arg with Some d -> d | None -> Dtype.Void in
  Uop.stack (List.map (fun u -> if is_invalid (base u) then u else if u.op == Ops.Const then const ~dtype:dt (const_val u)
                        else cast dt u) srcs)

let iconst i = const_int i

(* tinygrad: UOp.buf_uop *)
let rec buf_uop u =
  if u.op == Ops.Buffer || u.op == Ops.Param then u
  else if (base u).op == Ops.After then base (buf_uop (base u).src.(0))
  else begin
    let s = ref u in
    while Array.length !s.src > 0
          && not (List.memq !s.op [ Ops.Buffer; Ops.Param; Ops.Stage; Ops.Mstack ]) do s := !s.src.(0) done;
    !s
  end

(* tinygrad: UOp.placeholder (LOCAL/REG buffers are BUFFER, GLOBAL ones PARAM) *)
let placeholder (shp : int list) dtype ~slot ~(addrspace : Dtype.addrspace) =
  let dtype = Dtype.strong_dtype dtype in
  let size = List.fold_left ( * ) 1 shp in
  let ret =
    if addrspace = Dtype.Global then placeholder_param ~slot dtype size
    else create Ops.Buffer ~src:[| shape_to_shape_arg [ Sint size ] |]
        ~arg:(Param { default_param with slot; pdtype = dtype; addrspace = Some addrspace }) in
  if List.length shp > 1 then reshape ret (List.map (fun i -> Sint i) shp) else ret

(* tinygrad: UOp.cconst — a weak CONST with the width on a CAST *)
let cconst (b : Dtype.const) dtype = create Ops.Cast ~src:[| const b |] ~arg:(Dtype dtype)

let range_axis_id u = match u.arg with Range (i :: _, _) -> i | _ -> invalid_arg "not a RANGE"
let range_axis_type u = match u.arg with Range (_, at) -> at | _ -> invalid_arg "not a RANGE"
let reduce_arg u = match u.arg with Reduce_arg (op, n) -> (op, n) | _ -> invalid_arg "REDUCE arg"
let srcs_from u i = Array.to_list (Array.sub u.src i (Array.length u.src - i))
let vmax_int u = Z.to_int (zi (vmax u))

let product = Helpers.product

(* ---------- pm_number_params ---------- *)

(* tinygrad: do_number_param — unnumbered (slot -1) PARAMs get the next slot *)
let pm_number_params : int ref Upat.matcher =
  Upat.(matcher [
      rule_ctx (pat ~name:"x" Ops.Param) (fun ctx c ->
          let x = get c "x" in
          let p = param_arg x in
          if p.slot <> -1 then None
          else (incr ctx; Some (Uop.replace ~arg:(Param { p with slot = !ctx - 1 }) x))) ])

(* ---------- expander ---------- *)

(* tinygrad: build_range_map — UNROLL/UPCAST axis id -> position *)
let build_range_map (sink : Uop.t) : (int, int) Hashtbl.t =
  let ctx = Hashtbl.create 8 in
  List.iter (fun x ->
      if x.op == Ops.Range && (match range_axis_type x with Unroll | Upcast -> true | _ -> false)
      then Hashtbl.replace ctx (range_axis_id x) (Hashtbl.length ctx)) (toposort sink);
  ctx

(* tinygrad: expand_reduce — REDUCE over expanded (non-RANGE) axes becomes a horizontal reduce *)
let expand_reduce (r : Uop.t) =
  let range_srcs = List.filter (fun u -> u.op == Ops.Range) (srcs_from r 1) in
  let new_axes = List.concat_map (fun u ->
      if u.op == Ops.Range then []
      else List.concat (List.mapi (fun i s -> match s with Sint 1 -> [] | Sint n when n <= 1 -> [] | _ -> [ i ])
                          (shape u))) (srcs_from r 1) in
  if new_axes = [] then None
  else begin
    let op, n = reduce_arg r in
    assert (n = 0);
    let s0 = shape r.src.(0) in
    let nd = List.length s0 in
    let perm = new_axes @ List.filter (fun i -> not (List.mem i new_axes)) (List.init nd (fun i -> i)) in
    let out_shape = List.mapi (fun i s -> if List.mem i new_axes then Sint 1 else s) s0 in
    let red = create Ops.Reduce ~src:(Array.of_list (permute r.src.(0) perm :: range_srcs))
        ~arg:(Reduce_arg (op, List.length new_axes)) in
    Some (reshape red out_shape)
  end

let wmma_arg u = match u.arg with Wmma_arg w -> w | _ -> invalid_arg "WMMA arg"
let sint_int = function Sint i -> i | Suop u -> vmax_int u

(* tinygrad: contract_axis — move the axes of [arg] (range number, size) last and merge them *)
let contract_axis (ctx : (int, int) Hashtbl.t) (u : Uop.t) (arg : (int * int) list) =
  let permute_tail = List.map (fun (rn, _) -> Hashtbl.find ctx rn) arg in
  let nd = List.length (shape u) in
  let permute_head = List.filter (fun i -> not (List.mem i permute_tail)) (List.init nd (fun i -> i)) in
  let out = permute u (permute_head @ permute_tail) in
  let oshape = shape out in
  let nh = List.length permute_head in
  let head = List.filteri (fun i _ -> i < nh) oshape in
  let rest = List.fold_left (fun acc s -> acc * sint_int s) 1 (List.filteri (fun i _ -> i >= nh) oshape) in
  reshape out (head @ [ Sint rest ])

(* tinygrad: unroll_axis — split the last axis into the axes of [arg] and put them at their expander positions *)
let unroll_axis (ctx : (int, int) Hashtbl.t) (u : Uop.t) (arg : (int * int) list) =
  let permute_tail = List.map (fun (rn, _) -> Hashtbl.find ctx rn) arg in
  let us = shape u in
  let out = reshape u (List.filteri (fun i _ -> i < List.length us - 1) us @ List.map (fun (_, nm) -> Sint nm) arg) in
  let nd = List.length (shape out) in
  let permute_head = List.filter (fun i -> not (List.mem i permute_tail)) (List.init nd (fun i -> i)) in
  permute out (Helpers.argsort (permute_head @ permute_tail))

(* tinygrad: expand_wmma — the WMMA's upcast axes (its arg) are contracted into its sources and unrolled out
   (a WMMA whose upcast axes are [None], here [[]], is done) *)
let expand_wmma (ctx : (int, int) Hashtbl.t) (u : Uop.t) =
  let w = wmma_arg u in
  match w.wupcast_axes with
  | [ in0; in1; out0 ] ->
    let wmma = Uop.replace ~src:[| contract_axis ctx u.src.(0) in0; contract_axis ctx u.src.(1) in1; u.src.(2) |]
        ~arg:(Wmma_arg { w with wupcast_axes = [] }) u in
    Some (unroll_axis ctx wmma out0)
  | _ -> None

(* tinygrad: expander2 *)
let expander2 : (int, int) Hashtbl.t Upat.matcher =
  Upat.(matcher [
      rule (pat ~name:"r" Ops.Reduce) (fun c -> expand_reduce (get c "r"));
      rule_ctx (pat ~name:"r" Ops.Range) (fun ctx c ->
          let r = get c "r" in
          match Hashtbl.find_opt ctx (range_axis_id r) with
          | None -> None
          | Some pos ->
            let n = vmax_int r + 1 in
            let cst = ustack (List.init n (fun i -> const_int ~dtype:r.dtype i)) in
            Some (reshape cst (List.init (Hashtbl.length ctx) (fun i -> Sint (if i = pos then n else 1)))));
      rule_ctx (pat ~name:"u" Ops.Wmma) (fun ctx c -> expand_wmma ctx (get c "u")) ]
        @@@ lift Simplify.pm_flatten_range @@@ lift Movement.mop_cleanup)

(* ---------- broadcast / devectorize ---------- *)

(* tinygrad: expand_broadcast — make every source of an ALU/STORE the broadcast shape *)
let expand_broadcast (x : Uop.t) =
  let shapes = List.map shape_opt (Array.to_list x.src) in
  if List.exists Option.is_none shapes then None
  else
    let shapes = List.map Option.get shapes in
    if List.for_all (sint_list_equal (List.hd shapes)) shapes then None
    else
      let shp = broadcast_shape shapes in
      Some (Uop.replace ~src:(Array.map (fun u -> expand u shp) x.src) x)

let but_last l = List.filteri (fun i _ -> i < List.length l - 1) l

(* tinygrad: broadcast_and_devec_wmma — WMMAs whose sources differ in the leading (non-vector) axes are broadcast
   and split into one WMMA per leading index *)
let broadcast_and_devec_wmma (b : Uop.t) =
  let shapes = List.map (fun u -> but_last (shape u)) (Array.to_list b.src) in
  if List.for_all (sint_list_equal (List.hd shapes)) shapes then None
  else begin
    let shp = broadcast_shape shapes in
    let src_expanded = Array.map (fun u -> expand u (shp @ [ Helpers.last (shape u) ])) b.src in
    let dims = List.map sint_int (but_last (shape b)) in
    let src = List.map (fun idx ->
        Uop.replace ~src:(Array.map (fun x -> index x (List.map iconst idx)) src_expanded) b) (product dims) in
    Some (reshape (ustack src) (shape b))
  end

(* tinygrad: pm_wmma_add — an ADD onto a WMMA goes into its accumulator *)
let pm_wmma_add : unit Upat.matcher =
  Upat.(matcher [
      rule (alu Ops.Add [ pat ~name:"wmma" Ops.Wmma; var "add" ]) (fun c ->
          let wmma = get c "wmma" and a = get c "add" in
          Some (create Ops.Wmma ~src:[| wmma.src.(0); wmma.src.(1); Uop.add wmma.src.(2) a |] ~arg:wmma.arg));
      (* push permute/reshape to the other side of the add *)
      rule (alu Ops.Add [ pat ~name:"permute" ~src:(In_order [ pat ~name:"wmma" Ops.Wmma ]) Ops.Permute; var "add" ]) (fun c ->
          let wmma = get c "wmma" and pm = get c "permute" and a = get c "add" in
          let perm = match marg pm with `Perm p -> p | _ -> invalid_arg "PERMUTE arg" in
          Some (permute (Uop.add wmma (permute a (Helpers.argsort perm))) perm));
      rule (alu Ops.Add [ pat ~name:"permute" Ops.Permute
                            ~src:(In_order [ pat ~name:"reshape" Ops.Reshape ~src:(In_order [ pat ~name:"wmma" Ops.Wmma; wild ]) ]);
                          var "add" ]) (fun c ->
          let wmma = get c "wmma" and rs = get c "reshape" and pm = get c "permute" and a = get c "add" in
          let perm = match marg pm with `Perm p -> p | _ -> invalid_arg "PERMUTE arg" in
          Some (permute (reshape (Uop.add wmma (reshape (permute a (Helpers.argsort perm)) (shape wmma))) (shape rs)) perm)) ])

(* tinygrad: pm_expand_broadcast *)
let pm_expand_broadcast : unit Upat.matcher =
  Upat.(pm_wmma_add @@@ matcher [
      rule (make ~op:(List.filter (fun o -> Ops.Group.is_binary o || Ops.Group.is_ternary o) (Array.to_list Ops.all) @ [ Ops.Store ])
              ~name:"x" ()) (fun c -> expand_broadcast (get c "x"));
      rule (pat ~name:"b" Ops.Wmma) (fun c -> broadcast_and_devec_wmma (get c "b")) ])

(* tinygrad: do_devectorize — an op on shaped values becomes a STACK of scalar ops (a GROUP of STOREs) *)
let do_devectorize (b : Uop.t) =
  let bs = shape b in
  if bs = [] then None
  else if not (Array.for_all (fun x -> sint_list_equal (shape x) bs || is_invalid (base x)) b.src) then None
  else begin
    let dims = List.map (function Sint n -> n | Suop u -> vmax_int u) bs in
    let src = List.map (fun idx ->
        let idx_c = List.map (fun i -> iconst i) idx in
        create b.op ~src:(Array.map (fun x -> if is_invalid (base x) then base x else index x idx_c) b.src) ~arg:b.arg ~tag:b.tag)
        (product dims) in
    if b.op != Ops.Store then Some (reshape (ustack src) bs) else Some (group src)
  end

let elementwise = List.filter Ops.Group.is_elementwise (Array.to_list Ops.all)

(* tinygrad: do_stack_wmma — the WMMA sources become STACKs of scalars *)
let do_stack_wmma (u : Uop.t) =
  if Array.for_all (fun x -> x.op == Ops.Stack || x.op == Ops.Wmma) u.src then None
  else begin
    assert (List.length (shape u) = 1);
    let src = Array.map (fun b ->
        if b.op != Ops.Stack then ustack (List.init (max_numel b) (fun i -> index b [ iconst i ])) else b) u.src in
    Some (Uop.replace ~src u)
  end

(* tinygrad: ew_devectorizer *)
let ew_devectorizer : unit Upat.matcher =
  Upat.(matcher [ rule (make ~op:elementwise ~name:"b" ()) (fun c -> do_devectorize (get c "b")) ])

(* tinygrad: devectorizer2 *)
let devectorizer2 : unit Upat.matcher =
  let bufpat = Upat.ops ~name:"b" [ Ops.Param; Ops.Buffer ] in
  Upat.(lift Movement.mop_cleanup @@@ Rangeify.pm_mops @@@ matcher [
      (* unpack broadcasting *)
      rule (make ~op:(elementwise @ [ Ops.Load; Ops.Store ]) ~name:"b" ()) (fun c -> do_devectorize (get c "b"));
      (* INDEX without src is nothing *)
      rule (pat Ops.Index ~src:(In_order [ var "x" ])) (fun c -> Some (get c "x"));
      (* unpack WMMA *)
      rule (pat ~name:"u" Ops.Wmma) (fun c -> do_stack_wmma (get c "u"));
      (* stacked INDEX is many INDEX *)
      rule (pat Ops.Index ~name:"x" ~src:(In_order [ bufpat; pat ~name:"s" Ops.Stack ])) (fun c ->
          let b = get c "b" and s = get c "s" and x = get c "x" in
          Some (ustack (List.map (fun u -> Uop.replace ~src:[| b; u |] x) (Array.to_list s.src))));
      (* INDEX into RESHAPE moves the RESHAPE *)
      rule (pat Ops.Index ~src:(In_order [ bufpat; pat ~name:"s" Ops.Reshape ])) (fun c ->
          let s = get c "s" in
          Some (reshape (Uop.index (get c "b") [ s.src.(0) ]) (shape s)));
      (* RESHAPE a void is removed (hack for AFTER) *)
      rule (pat ~dtype:[ Dtype.Void ] ~name:"x" Ops.Reshape) (fun c -> Some (get c "x").src.(0));
      (* reshape of a single element shaped value to scalar is an index *)
      rule (pat ~name:"x" Ops.Reshape) (fun c ->
          let x = get c "x" in
          if (match marg x with `Shape [] -> true | _ -> false) && sint_list_equal (shape x.src.(0)) [ Sint 1 ]
          then Some (Uop.index x.src.(0) [ iconst 0 ]) else None);
      (* EXPAND on scalar -> STACK *)
      rule (pat Ops.Expand ~name:"out" ~src:(In_order [ var "x"; wild ])) (fun c ->
          let x = get c "x" and out = get c "out" in
          let n = max_numel out in
          if shape x = [] && sint_list_equal (shape out) [ Sint n ] then Some (ustack (List.init n (fun _ -> x))) else None) ])

(* ---------- remove reduces ---------- *)

(* tinygrad: fix_group_for_reduce — the GROUP_REDUCE ranges are reduced through a LOCAL buffer: the other reduces
   happen first, the partial results are staged (STAGE on LOCAL) and reduced again over new REDUCE ranges *)
let fix_group_for_reduce (x : Uop.t) =
  let is_gfr u = u.op == Ops.Range && range_axis_type u = Group_reduce in
  let reduce_gfr = List.filter is_gfr (srcs_from x 1) and reduce_r = List.filter (fun u -> not (is_gfr u)) (srcs_from x 1) in
  if reduce_gfr = [] then None
  else begin
    (* NOTE: if there's other locals here, we need them in the buffer too *)
    let upstream_locals = List.filter (fun u -> u.op == Ops.Range && range_axis_type u = Local) (toposort x) in
    (* do only the non grouped reduces early *)
    let ret = Uop.replace ~src:(Array.of_list (x.src.(0) :: reduce_r)) x in
    let reduce_loop = List.map (fun r -> Uop.replace ~arg:(Range ([ range_axis_id r + 100 ], Reduce)) r) reduce_gfr in
    let bopts = { bdevice = Bdev_id (range_axis_id (List.hd reduce_gfr)); baddrspace = Dtype.Local; removable = true } in
    let staged = create Ops.Stage ~src:(Array.of_list (ret :: (upstream_locals @ reduce_gfr))) ~arg:(Bufferize_opts bopts) in
    let buf = index staged (upstream_locals @ reduce_loop) in
    (* do the final reduce (if/barrier are added in gpudims step) *)
    (* NOTE: we remove all horizontal reduces here, they remain in the first reduce *)
    let op, _ = reduce_arg x in
    Some (create Ops.Reduce ~src:(Array.of_list (buf :: reduce_loop)) ~arg:(Reduce_arg (op, 0)))
  end

(* tinygrad: ReduceContext; not in tinygrad: [reduce_to_acc], the CPU mode's accumulators (Codegen_cpu) *)
type reduce_context = { mutable acc_num : int; reduce_to_acc : Codegen_cpu.reduce_to_acc option }

let mergeable = Str "mergeable"

(* the values of [pairs] grouped by key ([same] keys), the groups and their values in first-seen order (a dict of
   lists) *)
let group_in_order same (pairs : ('k * 'v) list) : ('k * 'v list) list =
  let groups = List.fold_left (fun groups (k, v) ->
      if List.exists (fun (k', _) -> same k' k) groups
      then List.map (fun (k', vs) -> if same k' k then (k', v :: vs) else (k', vs)) groups
      else (k, [ v ]) :: groups) [] pairs in
  List.rev_map (fun (k, vs) -> (k, List.rev vs)) groups

(* tinygrad: merge_reduce_ends — merge ENDs (from reduce_to_acc) that share the same range and nesting context;
   ENDs at different nesting depths get cloned RANGEs so each RANGE maps to one END *)
let merge_reduce_ends (sink : Uop.t) =
  let bs = backward_slice sink in
  let range_to_ends = group_in_order (fun a b -> List.length a = List.length b && List.for_all2 ( == ) a b)
      (List.filter_map (fun u -> if u.op == Ops.End && equal_arg u.tag mergeable then Some (srcs_from u 1, u) else None) bs) in
  let subs = ref [] in
  let next_axis = ref (1 + List.fold_left (fun m u -> if u.op == Ops.Range then max m (range_axis_id u) else m) (-1) bs) in
  List.iter (fun (r, ends) ->
      if List.length ends > 1 then begin
        let ctx_key e = List.sort compare (List.map (fun x -> x.id) (ranges e)) in
        let by_ctx = group_in_order ( = ) (List.map (fun e -> (ctx_key e, e)) ends) in
        List.iteri (fun i (_, grp) ->
            let tr = if i = 0 then r else
                List.mapi (fun j rr -> match rr.arg with
                    | Range (_ :: rest, at) -> Uop.replace ~arg:(Range ((!next_axis + j) :: rest, at)) rr
                    | _ -> rr) r in
            if i > 0 then next_axis := !next_axis + List.length r;
            let mapped = if i > 0 then List.map (fun e -> Upat.substitute e (List.combine r tr)) grp else grp in
            let merged = match mapped with [ m ] -> m | _ -> end_ (group (List.map (fun e -> e.src.(0)) mapped)) tr in
            List.iter (fun e -> subs := (e, merged) :: !subs) grp) by_ctx
      end) range_to_ends;
  if !subs = [] then None else Some (Upat.substitute sink (List.rev !subs))

(* tinygrad: reduce_ranges_to_acc's accumulator for [r]: a REG buffer of [shp] initialised before the reduce ranges
   and updated with [inp] over them; the accumulator after its loop. Not in tinygrad: [vector_acc] marks the
   buffer as one of the CPU mode's vector accumulators *)
let accumulator (ctx : reduce_context) (r : Uop.t) =
  let op, _ = reduce_arg r in
  let topo = toposort r.src.(0) in
  let red_rngs = srcs_from r 1 in
  let ended = List.concat_map (fun x -> if x.op == Ops.End then ended_ranges x else []) topo in
  (* Not in tinygrad: a range that a STAGE of the input closes (a partial-contiguous row buffer) is not open
     in the input either; counting it would put the init inside the reduce's own loop *)
  let open_rngs = ranges r.src.(0) in
  let input_ranges =
    List.filter (fun x -> x.op == Ops.Range && not (List.memq x red_rngs) && not (List.memq x ended)
                          && List.memq x open_rngs) topo in
  fun ?(vector_acc = false) shp inp ->
    let acc = placeholder shp r.dtype ~slot:ctx.acc_num ~addrspace:Dtype.Reg in
    let acc = match acc.arg with
      | Param p when vector_acc -> Uop.replace ~arg:(Param { p with vector_acc }) acc
      | _ -> acc in
    ctx.acc_num <- ctx.acc_num + 1;
    let acc_init = store (after acc input_ranges) (const (identity_element op r.dtype)) in
    let acc_initted = after acc (acc_init :: red_rngs) in
    let updated = rtag ~tag:mergeable (end_ (store acc_initted (alu op [ acc_initted; inp ])) red_rngs) in
    (* a vector accumulator is a buffer of its own: where every load of its update is gated off, the update
       folds to a store of the value loaded (sym's load/store folding drops it) and the init store would go
       with it, so the value after the loop also follows the init store *)
    after acc (if vector_acc then [ acc_init; updated ] else [ updated ])

(* tinygrad: reduce_ranges_to_acc — a REDUCE over ranges becomes a REG accumulator: init, update, END *)
let reduce_ranges_to_acc (ctx : reduce_context) (r : Uop.t) =
  let _, n = reduce_arg r in
  accumulator ctx r (max_shape r) (if n <> 0 then create Ops.Reduce ~src:[| r.src.(0) |] ~arg:r.arg else r.src.(0))

(* tinygrad: expand_horizontal_reduce — a REDUCE without ranges reduces its leading axes in place *)
let expand_horizontal_reduce (r : Uop.t) =
  let inp = r.src.(0) in
  let op, n = reduce_arg r in
  let ms = max_shape inp in
  let vals = List.map (fun idx -> index inp (List.map iconst idx)) (product (List.filteri (fun i _ -> i < n) ms)) in
  match vals with
  | [] -> invalid_arg "expand_horizontal_reduce: nothing to reduce"
  | v :: rest -> List.fold_left (fun x y -> alu op [ x; y ]) v rest

(* tinygrad: pm_reduce_local *)
let pm_reduce_local : reduce_context Upat.matcher =
  Upat.(lift pm_wmma_add @@@ matcher [
      (* fix group for reduce *)
      rule (pat ~name:"x" Ops.Reduce) (fun c -> fix_group_for_reduce (get c "x"));
      (* remove reduces *)
      rule_ctx (pat ~name:"r" ~allow_any_len:true ~src:(In_order [ wild; wild ]) Ops.Reduce) (fun ctx c ->
          let r = get c "r" in
          let cpu = Option.bind ctx.reduce_to_acc (fun f ->
              f ~accumulate:(fun ~vector_acc -> accumulator ctx r ~vector_acc) r) in
          match cpu with Some acc -> Some acc | None -> Some (reduce_ranges_to_acc ctx r));
      rule (pat ~name:"r" ~src:(In_order [ wild ]) Ops.Reduce) (fun c -> Some (expand_horizontal_reduce (get c "r")));
      rule (pat ~name:"sink" Ops.Sink) (fun c -> merge_reduce_ends (get c "sink")) ]
        @@@ lift Symbolic.pm_clean_up_group_sink)

(* ---------- loads, local buffers, casts ---------- *)

(* tinygrad: is_shape_changing_bitcast *)
let is_shape_changing_bitcast (u : Uop.t) = u.op == Ops.Bitcast && not (sint_list_equal (shape u) (shape u.src.(0)))

(* tinygrad: maybe_load — memory (GLOBAL/LOCAL/REG) read by an ALU is LOADed *)
let maybe_load (u : Uop.t) =
  match addrspace u with Some (Dtype.Global | Dtype.Local | Dtype.Reg) -> load u [] | _ -> u

(* tinygrad: pm_add_loads *)
let pm_add_loads : unit Upat.matcher =
  Upat.(matcher [
      rule (make ~op:(elementwise @ [ Ops.Reduce; Ops.Wmma; Ops.Stack ]) ~name:"x" ()) (fun c ->
          let x = get c "x" in
          if is_shape_changing_bitcast x then None else Some (Uop.replace ~src:(Array.map maybe_load x.src) x));
      rule (pat ~name:"x" Ops.Store) (fun c ->
          let x = get c "x" in
          Some (Uop.replace ~src:(Array.concat [ [| x.src.(0); maybe_load x.src.(1) |]; Array.sub x.src 2 (Array.length x.src - 2) ]) x)) ])

(* tinygrad: add_local_buffer — a STAGE becomes a buffer of its addrspace, stored over its ranges *)
let add_local_buffer (ctx : int ref) (x : Uop.t) =
  let slot = !ctx in
  incr ctx;
  let addrspace = match x.arg with Bufferize_opts b -> b.baddrspace | _ -> invalid_arg "add_local_buffer: STAGE arg" in
  let buf = placeholder (max_shape x) x.dtype ~slot ~addrspace in
  let rngs = srcs_from x 1 in
  after buf [ end_ (store (index buf rngs) x.src.(0)) rngs ]

(* tinygrad: pm_add_local_buffers *)
let pm_add_local_buffers : int ref Upat.matcher =
  Upat.(matcher [ rule_ctx (pat ~name:"x" Ops.Stage) (fun ctx c -> Some (add_local_buffer ctx (get c "x"))) ]
        @@@ lift Rangeify.pm_mops)

(* tinygrad: pm_cast_float_alu — float ALUs need a float operand, made explicit before the decomps *)
let pm_cast_float_alu : unit Upat.matcher =
  Upat.(matcher [
      rule (ops ~name:"u" ~src:(In_order [ var "x" ]) [ Ops.Sin; Ops.Log2; Ops.Exp2; Ops.Sqrt; Ops.Reciprocal ]) (fun c ->
          let u = get c "u" and x = get c "x" in
          if x.dtype != u.dtype then Some (Uop.replace ~src:[| Uop.cast u.dtype x |] u) else None) ])

(* ---------- barriers ---------- *)

let is_local_store (x : Uop.t) = x.op == Ops.Store && addrspace x = Some Dtype.Local

(* tinygrad: add_raw_barrier — loads from a LOCAL buffer that depend (via AFTER) on LOCAL stores need a barrier *)
let add_raw_barrier (after : Uop.t) =
  if addrspace after <> Some Dtype.Local then None
  else
    let deps = toposort ~gate:(fun x -> x.op != Ops.Barrier) (sink (srcs_from after 1)) in
    if not (List.exists is_local_store deps) then None
    else Some (Uop.after after.src.(0) [ create Ops.Barrier ~src:(Array.of_list (srcs_from after 1)) ])

(* tinygrad: add_war_barrier — a LOCAL buffer stored and loaded in the same loop needs a barrier at the loop end *)
let add_war_barrier (e : Uop.t) =
  let rngs = List.filter (fun r -> r.op == Ops.Range && (match range_axis_type r with Reduce | Weak | Loop -> true | _ -> false)
                                   && Z.sign (zi (vmax r)) > 0) (srcs_from e 1) in
  if rngs = [] || e.src.(0).op == Ops.Barrier then None
  else begin
    let sl = toposort e.src.(0) in
    let store_bufs = List.filter_map (fun x ->
        if is_local_store x && List.exists (fun r -> List.memq r (ranges x)) rngs then Some (buf_uop x) else None) sl in
    let loads = List.filter (fun x -> x.op == Ops.Load && List.memq (buf_uop x.src.(0)) store_bufs) sl in
    if loads = [] then None
    else Some (Uop.replace ~src:(Array.append [| create Ops.Barrier ~src:(Array.of_list (e.src.(0) :: loads)) |]
                                   (Array.of_list (srcs_from e 1))) e)
  end

(* tinygrad: pm_implicit_barriers *)
let pm_implicit_barriers : unit Upat.matcher =
  Upat.(matcher [
      rule (pat ~name:"after" Ops.After) (fun c -> add_raw_barrier (get c "after"));
      rule (pat ~name:"end" Ops.End) (fun c -> add_war_barrier (get c "end")) ])

(* tinygrad: pm_casted_consts — spell every literal as CAST(dt, CONST(value)) *)
let pm_casted_consts : unit Upat.matcher =
  Upat.(matcher [ rule (pat ~dtype:Dtype.all ~name:"c" Ops.Const) (fun c ->
      let c = get c "c" in Some (cconst (const_val c) c.dtype)) ])

(* ---------- full_rewrite_to_sink ---------- *)

let gr ?bottom_up ?walk ~name pm ctx sink = Upat.graph_rewrite ?bottom_up ?walk ~name pm ctx sink

(* the combined matchers are built once *)
let pm_postopt = Upat.(Symbolic.sym @@@ Symbolic.pm_move_where_on_load @@@ Simplify.pm_flatten_range
                       @@@ Simplify.pm_reduce_unparented)
let pm_remove_reduces = Upat.(lift Movement.mop_cleanup @@@ pm_reduce_local)
let pm_expand_bcast_loads = Upat.(Symbolic.symbolic_simple @@@ pm_expand_broadcast @@@ pm_add_loads)
let pm_devectorize = Upat.(Symbolic.symbolic_simple @@@ devectorizer2 @@@ Coalesce.indexing_simplify)
let pm_add_images = Upat.(Symbolic.symbolic_simple @@@ ew_devectorizer @@@ Coalesce.pm_simplify_add_image)
let pm_extra_symbolic = Upat.(Symbolic.sym @@@ Coalesce.indexing_simplify)
let pm_lower_all_index = Upat.(lift Symbolic.symbolic_simple @@@ Weak.pm_lower_index_dtype @@@ lift Coalesce.indexing_simplify)
let pm_initial_symbolic = Upat.(Symbolic.sym @@@ Simplify.pm_flatten_range)

(* not in tinygrad: the passes of a kernel for [ren], the one place the pipeline asks whether it may deviate *)
let passes (ren : Renderer.t) = if Renderer.cpu_fast ren then Codegen_cpu.fast ren else Codegen_cpu.tinygrad

(* the heuristic the pipeline applies to a kernel ([Postrange.apply_opts]) *)
let hand_coded_optimizations (k : Postrange.t) = (passes k.ren).hand_coded k

(* the heuristic the pipeline applies to a kernel with a STAGE, where the mode has one *)
let multiblock_optimizations (ren : Renderer.t) = (passes ren).multiblock

(* tinygrad: full_rewrite_to_sink — every codegen pass from the kernel AST to the sink the linearizer orders *)
let rewrite_to_sink ~optimize (ast : Uop.t) (ren : Renderer.t) : Uop.t =
  let passes = passes ren in
  if Helpers.debug.value >= 5 then print_endline (Render.pyrender ast);
  if Helpers.spec.value > 0 then Spec.type_verify Spec.spec_tensor ast;
  (* tinygrad runs multi_pm here for in-kernel UNSHARDs (fragments of a tile); the scheduler resolved every
     multi-device UNSHARD, and in-kernel fragments are not ported *)
  let sink = ast in
  (* preprocess *)
  let sink = gr ~bottom_up:true ~name:"early movement ops" Rangeify.pm_mops () sink in
  (* first we optimize *)
  let sink =
    if optimize then begin
      (* collapse loads reduce (indexing by a tensor) *)
      let sink = gr ~name:"load collapse" Simplify.pm_load_collapse () sink in
      (* split ranges *)
      let sink = gr ~name:"split ranges" Upat.(Simplify.pm_split_ranges @@@ Simplify.pm_flatten_range_tbl)
          (Uop.Tbl.create 16) sink in
      (* symbolic (NOTE: this is a requirement for pm_simplify_ranges to be correct) *)
      let sink = gr ~name:"initial symbolic" pm_initial_symbolic () sink in
      (* optimize (schedule) the AST *)
      let sink = gr ~name:"simplify ranges" Upat.(Simplify.pm_flatten_range_tbl @@@ Simplify.pm_simplify_ranges)
          (Uop.Tbl.create 16) sink in
      (* do postrange optimization, BEAM or hand_coded_optimizations *)
      let beam = match ast.arg with Kernel_info k -> k.beam | _ -> 0 in
      Postrange.apply_opts sink ren ~beam ~hand_coded:passes.hand_coded ?multiblock:passes.multiblock
        ~loop_opts:passes.loop_opts
    end else sink in
  (* ** expander ** reduce_unparented: a REDUCE whose src folded to a CONST has no parented ranges *)
  let sink = gr ~name:"postopt symbolic" pm_postopt () sink in
  let sink = passes.before_expander sink in
  (* expand *)
  let sink = gr ~name:"expander" expander2 (build_range_map sink) sink in
  (* remove reduce *)
  let sink = passes.before_reduces sink in
  let sink = gr ~name:"remove reduces" pm_remove_reduces
      { acc_num = 0; reduce_to_acc = passes.reduce_to_acc } sink in
  (* add locals *)
  let sink = gr ~name:"add local buffers" pm_add_local_buffers (ref 0) sink in
  (* add gpu dims (late). this works after devectorize, but it's faster here *)
  let sink = gr ~name:"add gpudims" Gpudims.pm_add_gpudims ren sink in
  (* **** optimizations are done, now we lower to actual code **** *)
  let sink = gr ~name:"*** expand broadcast / add loads" pm_expand_bcast_loads () sink in
  (* devectorize *)
  let sink = gr ~name:"devectorize2" pm_devectorize () sink in
  (* some coalescing misses without this *)
  let sink = gr ~name:"early symbolic" passes.early_symbolic () sink in
  (* do memory coalescing (late) *)
  let sink = Coalesce.memory_coalescing ~device:ren.Renderer.device ?policy:passes.coalescing
      ~supports_float4:ren.Renderer.supports_float4 sink in
  let sink = gr ~bottom_up:true ~name:"add images" pm_add_images () sink in
  (* extra symbolic before decomp; also indexing_simplify, while the index is still weakint *)
  let sink = gr ~name:"extra symbolic" pm_extra_symbolic () sink in
  (* lower index dtype. NOTE: we need indexing_simplify to remove the cast to long using the Invalid *)
  let sink = gr ~name:"lower all index dtypes" pm_lower_all_index (Weak.lower_ctx ()) sink in
  (* final symbolic before decomp *)
  let sink = gr ~name:"final symbolic" Symbolic.symbolic () sink in
  let sink = gr ~name:"cast float alu operands" pm_cast_float_alu () sink in
  (* **** decomps **** floordiv+mod / dtype decomp (early) *)
  let supported_ops = ren.Renderer.code_for_op in
  let pm_decomp = Upat.(Symbolic.symbolic_simple @@@ Decomp_op.get_simplifying_rewrite_patterns supported_ops) in
  let sink = gr ~name:"early decompositions" pm_decomp () sink in
  (* late decomps + move gates from unrenderable INVALID where *)
  let sink = gr ~name:"decomp dtypes" Upat.(Decomp_dtype.pm_dtype_decomps @@@ lift Weak.pm_commit_weak)
      (Hashtbl.create 8, ren) sink in
  let force_transcendental = Helpers.transcendental.value >= 2 in
  let pm_decomp = Upat.(lift pm_decomp
                        @@@ Decomp_op.get_late_rewrite_patterns ?fuse_reciprocal:passes.fuse_reciprocal
                          supported_ops (Helpers.disable_fast_idiv.value <> 0)
                        @@@ lift (passes.decomps supported_ops force_transcendental)
                        @@@ Transcendental.get_transcendental_patterns supported_ops force_transcendental) in
  let sink = gr ~name:"late decompositions" pm_decomp ren sink in
  let sink = gr ~name:"move gates from index" Gater.pm_move_gates_from_index () sink in
  (* final rules for the renderer (without sym) *)
  let extra = match ren.Renderer.extra_matcher with Some m -> m | None -> Upat.matcher [] in
  let pm_final = Upat.(lift Weak.pm_commit_weak @@@ lift Weak.pm_cast_weak @@@ pm_decomp @@@ extra
                       @@@ lift Linearizer.pm_split_ends @@@ lift Symbolic.pm_remove_invalid) in
  let sink = gr ~name:"final rewrite" pm_final ren sink in
  (* spell every literal as a casted const CAST(dt, CONST(value)) *)
  let sink = gr ~walk:true ~name:"casted consts" pm_casted_consts () sink in
  (* add implicit barriers *)
  let sink = gr ~name:"add implicit barriers" pm_implicit_barriers () sink in
  let sink = passes.before_linearize sink in
  (* this was the linearizer *)
  let sink = gr ~bottom_up:true ~name:"add control flow" Linearizer.pm_add_control_flow (Linearizer.cfg_context sink) sink in
  (* put unnumbered variable PARAMs in slots *)
  let num_params = List.length (List.filter (fun x -> x.op == Ops.Param && (param_arg x).slot <> -1) (toposort sink)) in
  let sink = gr ~walk:true ~name:"number params with -1" pm_number_params (ref num_params) sink in
  if Helpers.spec.value > 0 then Spec.type_verify Spec.spec_program sink;
  sink

(* tinygrad: full_rewrite_to_sink, the passes run keeping the simplified forms they find (not in tinygrad, same
   results): they simplify each lane's gated index, and the terms the lanes share, many times *)
let full_rewrite_to_sink ?(optimize = true) (ast : Uop.t) (ren : Renderer.t) : Uop.t =
  Symbolic.with_simplify_cache (fun () -> rewrite_to_sink ~optimize ast ren)

(* ---------- linearize / render ---------- *)

(* tinygrad: pm_linearize_cleanups — a gated STORE becomes IF-STORE-ENDIF (the only use of IF/ENDIF).
   Returns the node's replacement and the lines it expands to. *)
let pm_linearize_cleanups (u : Uop.t) : (Uop.t * Uop.t list) option =
  match u.op with
  | Ops.If | Ops.Endif -> failwith "if not allowed in graph"
  | Ops.Store when Array.length u.src = 3 && u.src.(2).dtype == Dtype.Bool
                   && (let i = u.src.(0) in
                       i.op == Ops.Index || i.op == Ops.Shrink
                       || (i.op == Ops.Cast && (i.src.(0).op == Ops.Index || i.src.(0).op == Ops.Shrink))) ->
    let st = Uop.replace ~src:(Array.sub u.src 0 2) u in
    let mif = create Ops.If ~src:[| u.src.(2); u.src.(0) |] in
    Some (st, [ mif; st; create Ops.Endif ~src:[| mif |] ])
  | _ -> None

(* tinygrad: line_rewrite — like graph_rewrite, but for a toposorted list of lines *)
let line_rewrite (lst : Uop.t list) (pm : Uop.t -> (Uop.t * Uop.t list) option) : Uop.t list =
  let replaced = Tbl.create 64 in
  let out = ref [] in
  List.iter (fun u ->
      let nsrc = Array.map (fun x -> Option.value (Tbl.find_opt replaced x) ~default:x) u.src in
      let nu = Uop.replace ~src:nsrc u in
      let r, lines = match pm nu with Some r -> r | None -> (nu, [ nu ]) in
      Tbl.replace replaced u r;
      out := List.rev_append lines !out) lst;
  List.rev !out

(* tinygrad: ProgramInfo.from_sink *)
let program_info_from_sink (sink : Uop.t) : program_info =
  let vars = ref [] and globals = ref [] and outs = ref [] and ins = ref [] in
  let global_size = [| Sint 1; Sint 1; Sint 1 |] in
  let local_size = ref (Some [| Sint 1; Sint 1; Sint 1 |]) in
  let is_alu_param u = u.op == Ops.Param && addrspace u = Some Dtype.Alu in
  List.iter (fun u ->
      if is_alu_param u then vars := u :: !vars;
      if u.op == Ops.Param && not (is_alu_param u) then globals := (param_arg u).slot :: !globals;
      if u.op == Ops.Store || u.op == Ops.Load then begin
        let s0 = u.src.(0) in
        let idx = if s0.op == Ops.Index || s0.op == Ops.Shrink then Some s0
          else if s0.op == Ops.Cast && s0.src.(0).op == Ops.Index then Some s0.src.(0) else None in
        match idx with
        | Some idx ->
          let buf = buf_uop idx.src.(0) in
          if buf.op == Ops.Param then
            (if u.op == Ops.Store then outs := (param_arg buf).slot :: !outs else ins := (param_arg buf).slot :: !ins)
        | None -> ()
      end;
      (match u.op, u.arg with
       | Ops.Special, Str name ->
         if name.[0] = 'i' then local_size := None;
         let dim = Char.code name.[String.length name - 1] - Char.code '0' in
         let v = sint_of_uop (ssimplify u.src.(0)) in
         if name.[0] = 'l' then (match !local_size with Some a -> a.(dim) <- v | None -> ())
         else global_size.(dim) <- v
       | _ -> ());
      if is_alu_param u && (match (param_arg u).name with Some "core_id" -> true | _ -> false) then
        global_size.(0) <- Sint (vmax_int u + 1)) (toposort sink);
  let dedup_sorted l = List.sort_uniq compare l in
  let vars = Helpers.dedupq (List.rev !vars) in
  { pname = (match sink.arg with Kernel_info k -> k.kname | _ -> "test");
    global_size = Array.to_list global_size;
    local_size = Option.map Array.to_list !local_size;
    vars = List.stable_sort (fun a b -> compare (param_arg a).slot (param_arg b).slot) vars;
    globals = dedup_sorted !globals; outs = dedup_sorted !outs; ins = dedup_sorted !ins }

(* tinygrad: do_linearize *)
let do_linearize (prg : Uop.t) (sink : Uop.t) =
  (match sink.arg with
   | Kernel_info ({ applied_opts = _ :: _ as opts; _ } as k) when Helpers.debug.value >= 3 ->
     let opts_repr = "(" ^ String.concat ", " (List.map Opt.to_string opts) ^ (if List.length opts = 1 then ",)" else ")") in
     Printf.printf "%-25s opts: %s\n%!" (Helpers.to_function_name k.kname) opts_repr
   | _ -> ());
  let lst = line_rewrite (Linearizer.linearize sink) pm_linearize_cleanups in
  (* not in tinygrad 0.14 (which prints the linearized program only through VIZ, or with print_uops when the spec
     check fails): DEBUG>=6 prints it here, as earlier tinygrad versions did after linearizing *)
  if Helpers.debug.value >= 6 then Render.print_uops lst;
  Uop.replace ~src:(Array.append prg.src [| create Ops.Linear ~src:(Array.of_list lst) |]) prg

(* tinygrad: do_estimates *)
let do_estimates (prg : Uop.t) (sink : Uop.t) (lin : Uop.t) =
  match sink.arg with
  | Kernel_info ({ estimates = None; _ } as k) ->
    let est = Renderer.Estimates.from_uops ~ignore_indexing:true (Array.to_list lin.src) in
    let sink' = Uop.replace ~arg:(Kernel_info { k with estimates = Some est }) sink in
    Some (Uop.replace ~src:(Array.append [| sink' |] (Array.sub prg.src 1 (Array.length prg.src - 1))) prg)
  | _ -> None

(* tinygrad: do_render *)
let do_render (ren : Renderer.t) (prg : Uop.t) (lin : Uop.t) =
  let src = ren.Renderer.render ren (Array.to_list lin.src) in
  (* tinygrad prints the source in do_compile, the rule right after do_render in pm_to_program; compiling is the
     runtime's here, so the source is printed once rendered *)
  if Helpers.debug.value >= 4 then print_endline src;
  Uop.replace ~src:(Array.append prg.src [| create Ops.Source ~arg:(Str src) |]) prg

(* tinygrad: pm_to_program (do_assemble is for ISA renderers; do_compile is the runtime's) *)
let pm_to_program : Renderer.t Upat.matcher =
  Upat.(matcher [
      rule (pat ~name:"prg" ~src:(In_order [ pat ~name:"sink" Ops.Sink ]) Ops.Program) (fun c ->
          Some (do_linearize (get c "prg") (get c "sink")));
      rule (pat ~name:"prg" ~src:(In_order [ pat ~name:"sink" Ops.Sink; pat ~name:"lin" Ops.Linear ]) Ops.Program) (fun c ->
          do_estimates (get c "prg") (get c "sink") (get c "lin"));
      rule_ctx (pat ~name:"prg" ~src:(In_order [ wild; pat ~name:"lin" Ops.Linear ]) Ops.Program) (fun ren c ->
          Some (do_render ren (get c "prg") (get c "lin"))) ])

(* tinygrad: do_to_program — AST (SINK with KernelInfo) to PROGRAM(SINK, LINEAR, SOURCE) *)
let do_to_program (ast : Uop.t) (ren : Renderer.t) : Uop.t =
  let prg =
    match ast.op with
    | Ops.Program -> ast
    | Ops.Sink ->
      (match ast.arg with Kernel_info _ -> () | _ -> invalid_arg "to_program: requires KernelInfo on arg");
      let full_sink = full_rewrite_to_sink ~optimize:(ast.tag = No_arg) ast ren in
      create Ops.Program ~src:[| full_sink |] ~arg:(Program_info (program_info_from_sink full_sink))
    | op -> invalid_arg ("to_program: can't call to_program on " ^ Ops.to_string op) in
  let prg = match prg.arg with
    | Program_info _ -> prg
    | _ -> Uop.replace ~arg:(Program_info (program_info_from_sink prg.src.(0))) prg in
  Upat.graph_rewrite ~name:"linearize/render" pm_to_program ren prg

(* tinygrad: to_program_key's knob values (Helpers.to_program_config, the CPU mode's and the dtypes) *)
let to_program_config () =
  let open Helpers in
  String.concat "," (List.map (fun (v : int context_var) -> string_of_int v.value) to_program_config)
  ^ "," ^ Codegen_cpu.config () ^ "," ^ emulated_dtypes.value ^ "," ^ Dtype.to_string (Dtype.default_float ())
  ^ Dtype.to_string (Dtype.default_int ())

(* tinygrad: to_program_cache, keyed by (ast.key, renderer, to_program_config); the AST is hash-consed, so a table
   keyed by the node is keyed by its key. The renderer is its device and suffix (the emulator renders CUDA's
   and Metal's programs under a suffix of its own) *)
let to_program_cache : (string, Uop.t Uop.Tbl.t) Hashtbl.t = Hashtbl.create 16

(* tinygrad: to_program (cached) *)
let to_program (ast : Uop.t) (ren : Renderer.t) : Uop.t =
  let key = ren.Renderer.device ^ "|" ^ ren.Renderer.suffix ^ "|" ^ to_program_config () in
  let tbl = match Hashtbl.find_opt to_program_cache key with
    | Some t -> t
    | None -> let t = Uop.Tbl.create 64 in Hashtbl.replace to_program_cache key t; t in
  match Uop.Tbl.find_opt tbl ast with
  | Some p -> p
  | None -> let p = do_to_program ast ren in Uop.Tbl.replace tbl ast p; p

(* empties the [to_program] cache (tinygrad: to_program.cache_clear()) *)
let clear_program_cache () = Hashtbl.reset to_program_cache

(* the SOURCE of a PROGRAM (what [to_program] rendered) *)
let program_source (prg : Uop.t) : string =
  match List.find_opt (fun s -> s.op == Ops.Source) (Array.to_list prg.src) with
  | Some { arg = Str s; _ } -> s
  | _ -> invalid_arg "program_source: PROGRAM without SOURCE"

(* the rendered source of a kernel AST *)
let get_program_source (ast : Uop.t) (ren : Renderer.t) : string = program_source (to_program ast ren)
