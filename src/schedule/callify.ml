(* tinygrad: tensor.py "callify" — transform a tensor graph into a CALL UOp such that all state is properly scoped
   (AllocCtx, add_tags, pm_early_transform_tensor_graph, finalize_after, pm_finalize_call, pm_replace_buf,
   transform_to_call) and _apply_map_to_tensors. Precompiled FUNCTIONs, DISK/TINYFS and the multi-device view of
   contiguous_mops_to_view (an UNSHARD's movement ops resolved to a buffer view) are not ported: a sharded value's
   movement ops become kernels. *)

open Uop
module P = Upat

(* tinygrad: AllocCtx *)
type alloc_ctx = {
  uop_list : (int, Uop.t) Hashtbl.t;  (* tag number -> uop *)
  mutable n_uops : int;
  mutable buffer_map : (Uop.t * Uop.t) list;  (* reversed insertion order *)
  bases : unit Tbl.t;
  mutable assigns : Uop.t list;  (* reversed *)
  mutable replacements : Uop.t list;  (* reversed *)
  mutable n_replacements : int;
  views : unit Tbl.t;
}

let tag_ints (t : arg) = match t with Tuple l -> List.map (function Int i -> i | _ -> invalid_arg "tag: not an int") l | _ -> []
let tag_truthy (t : arg) = match t with Tuple (_ :: _) -> true | No_arg | Tuple [] -> false | _ -> true
let tag_concat (a : arg) (b : arg) =
  let l = function Tuple l -> l | No_arg -> [] | x -> [ x ] in
  Tuple (l a @ l b)

let uop_of_tag ctx t = Hashtbl.find ctx.uop_list t

(* tinygrad: tag_uop *)
let tag_uop ctx (x : Uop.t) =
  if x.tag <> No_arg then None
  else begin
    Hashtbl.replace ctx.uop_list ctx.n_uops x;
    ctx.n_uops <- ctx.n_uops + 1;
    Some (replace x ~tag:(Tuple [ Int (ctx.n_uops - 1) ]))
  end

let starts_with p s = String.length s >= String.length p && String.sub s 0 (String.length p) = p
let dev_starts u ps = match Buffers.mdevice u with Some (One d) -> List.exists (fun p -> starts_with p d) ps | _ -> false

(* tinygrad: disk_like *)
let disk_like u = dev_starts u [ "DISK"; "TINYFS" ]

(* tinygrad: disk_copy_is_buffer *)
let disk_copy_is_buffer ctx (u : Uop.t) =
  if disk_like u && u.tag = No_arg then begin
    ctx.buffer_map <- (u, Buffers.empty_like u) :: ctx.buffer_map;
    Some (replace u ~tag:(Tuple []))
  end
  else if dev_starts u.src.(0) [ "NPY"; "DISK"; "PYTHON"; "TINYFS" ] then tag_uop ctx u
  else None

(* tinygrad: add_tags — CONTIGUOUS and AFTER + parents are the only nodes that get updated *)
let add_tags : alloc_ctx P.matcher =
  P.matcher
    [ P.rule_ctx (P.pat Ops.Copy ~name:"u") (fun ctx m -> disk_copy_is_buffer ctx (P.get m "u"));
      (* no tag on copies that are assigned via STORE+AFTER — merge COPY tag into AFTER *)
      P.rule (P.pat Ops.After ~name:"a" ~src:(P.In_order [ P.wild; P.pat Ops.Store ~src:(P.In_order [ P.var "dest"; P.pat Ops.Copy ~name:"c" ]) ]))
        (fun m ->
          let a = P.get m "a" and c = P.get m "c" and dest = P.get m "dest" in
          if tag_truthy a.tag && tag_truthy c.tag then
            Some (replace a ~src:[| a.src.(0); replace a.src.(1) ~src:[| dest; replace c ~tag:(Tuple []) |] |]
                    ~tag:(tag_concat a.tag c.tag))
          else None);
      P.rule_ctx (P.ops [ Ops.Contiguous; Ops.After ] ~name:"x") (fun ctx m -> tag_uop ctx (P.get m "x"));
      P.rule_ctx (P.ops Ops.Group.all ~name:"x") (fun ctx m ->
          let x = P.get m "x" in if Tbl.mem ctx.bases x then tag_uop ctx x else None) ]

(* tinygrad: replace_contig_with_store_after *)
let replace_contig_with_store_after (u : Uop.t) =
  if Buffers.is_virtual u then None
  else if List.exists (fun s -> sint_equal s (Sint 0)) (shape u) then Some u.src.(0)
  else if disk_like u then Some (replace u ~tag:No_arg)
  else begin
    let buf = Buffers.empty_like u in
    Some (replace (after buf [ store buf u.src.(0) ]) ~tag:u.tag)
  end

(* tinygrad: replace_store_after_with_contig *)
let replace_store_after_with_contig (u : Uop.t) (src : Uop.t) =
  let assigned_to = ref u in
  while List.memq !assigned_to.op [ Ops.Bitcast; Ops.After; Ops.Unshard ] do assigned_to := base !assigned_to.src.(0) done;
  if !assigned_to.op <> Ops.Buffer then Some (create Ops.Contiguous ~src:[| src |] ~tag:u.tag) else None

(* tinygrad: pm_contiguous_view_offset / UOp.contiguous_view — ported once in Rangeify (which Callify depends on) *)
let pm_contiguous_view_offset = Rangeify.pm_contiguous_view_offset
let contiguous_view = Rangeify.contiguous_view

(* tinygrad: UOp.buffer — a view of a buffer (movement ops that keep a contiguous range, SHRINK/BITCAST) is
   a Buffer view at its offset into the buffer of its source's base, itself resolved here since that base may
   be a CONTIGUOUS of a view (a bitcast of a contiguous shrink); [op] names the caller in the error for a
   view that is not contiguous *)
let rec buffer ?(op = "buffer") (u : Uop.t) : Device.Buffer.t =
  match u.op with
  | Ops.Contiguous | Ops.Contiguous_backward | Ops.Reshape | Ops.Unshard | Ops.Detach | Ops.After -> buffer ~op u.src.(0)
  | _ when u != base u || u.op == Ops.Bitcast ->
    (match Buffers.find u with
     | Some b -> b
     | None ->
       match contiguous_view u with
       | None -> invalid_arg (op ^ ": non-contiguous view is not supported")
       | Some (b, offset) ->
         let v =
           Device.Buffer.view (buffer ~op (base b)) (max_numel u) u.dtype (offset * Dtype.itemsize b.dtype) in
         Buffers.set u v;
         v)
  | _ -> Buffers.buffer u

(* tinygrad: UOp.buffer, one Buffer per device: a multi-device BUFFER's (MultiBuffer.bufs), an MSELECT's pick of
   them, an MSTACK's per-device buffers, a contiguous view of a multi-device BUFFER viewed on each device; a
   single-device node is its one buffer *)
let rec device_buffers ?(op = "buffer") (u : Uop.t) : Device.Buffer.t list =
  match u.op with
  | _ when not (Buffers.is_multi u) && u.op <> Ops.Mselect -> [ buffer ~op u ]
  | Ops.Mselect ->
    (match u.arg with Int i -> [ List.nth (device_buffers ~op u.src.(0)) i ] | _ -> invalid_arg "MSELECT arg")
  | Ops.Mstack -> List.concat_map (device_buffers ~op) (Array.to_list u.src)
  | Ops.Contiguous | Ops.Contiguous_backward | Ops.Reshape | Ops.Unshard | Ops.Detach | Ops.After ->
    device_buffers ~op u.src.(0)
  | Ops.Buffer -> Buffers.multi_buffers u
  | _ when u != base u || u.op == Ops.Bitcast ->
    (match contiguous_view u with
     | None -> invalid_arg (op ^ ": non-contiguous view is not supported")
     | Some (b, offset) ->
       List.map (fun d -> Device.Buffer.view d (max_numel u) u.dtype (offset * Dtype.itemsize b.dtype))
         (device_buffers ~op (base b)))
  | _ -> invalid_arg (op ^ ": must be a multi-device BUFFER, got " ^ Ops.to_string u.op)

(* tinygrad: _make_buffer_view *)
let make_buffer_view (src : Uop.t) : Uop.t option =
  match contiguous_view src with
  | None -> None
  | Some (buf, offset) ->
    let size = max_numel src * Dtype.itemsize src.dtype / Dtype.itemsize buf.dtype in
    if buf.op <> Ops.Buffer then None
    else Some (bitcast src.dtype (mop Ops.Shrink buf (`Pairs [ (Sint offset, Sint size) ])))

(* tinygrad: contiguous_mops_to_view — MOPS(BUFFER) -> SHRINK when movement ops collapse to a contiguous range *)
let contiguous_mops_to_view ctx (c : Uop.t) (src : Uop.t) =
  let buf = ref (base src) in
  while !buf.op == Ops.Bitcast do buf := base !buf.src.(0) done;
  if not (List.memq !buf.op [ Ops.Buffer; Ops.Unshard ]) then None
  else if not (List.for_all (function Sint _ -> true | Suop _ -> false) (shape c)) then None
  else if !buf.op <> Ops.Unshard then
    match make_buffer_view src with
    | Some view ->
      Tbl.replace ctx.views view ();
      let view = Buffers.reshape view (shape c) in
      if List.memq c.op [ Ops.Copy; Ops.Store ] then
        Some (replace c ~src:(Array.append [| view |] (Array.sub c.src 1 (Array.length c.src - 1))))
      else Some view
    | None -> None
  else None

(* tinygrad: pm_early_transform_tensor_graph *)
let pm_early_transform_tensor_graph : alloc_ctx P.matcher =
  P.matcher
    [ (* resolve TUPLE+GETTUPLE (for precompiled calls) *)
      P.rule (P.pat Ops.Gettuple ~name:"g" ~src:(P.In_order [ P.pat Ops.Tuple ~name:"t" ])) (fun m ->
          match (P.get m "g").arg with Int i -> Some (P.get m "t").src.(i) | _ -> None);
      (* fold MOPS+BITCAST over BUFFER into SHRINK when movement ops collapse to contiguous range *)
      P.rule_ctx (P.ops [ Ops.Copy; Ops.Contiguous ] ~name:"c" ~src:(P.In_order [ P.ops (Ops.Bitcast :: Ops.Group.movement) ~name:"src" ]))
        (fun ctx m -> contiguous_mops_to_view ctx (P.get m "c") (P.get m "src"));
      P.rule_ctx (P.pat Ops.Store ~name:"c" ~allow_any_len:true ~src:(P.In_order [ P.pat Ops.Bitcast ~name:"src"; P.wild ]))
        (fun ctx m -> contiguous_mops_to_view ctx (P.get m "c") (P.get m "src"));
      (* add CONTIGUOUS to tagged UOps *)
      P.rule (P.ops (List.filter (fun o -> not (List.memq o [ Ops.Contiguous; Ops.After; Ops.Store ])) Ops.Group.all) ~name:"x")
        (fun m ->
          let x = P.get m "x" in
          if x.tag = No_arg then None
          else if tag_truthy x.tag then Some (create Ops.Contiguous ~src:[| replace x ~tag:No_arg |] ~tag:x.tag)
          else Some (replace x ~tag:No_arg));
      (* remove extra CONTIGUOUS on AFTER (only when target is contiguous) *)
      P.rule (P.pat Ops.Contiguous ~name:"c" ~src:(P.In_order [ P.pat Ops.After ~name:"a" ])) (fun m ->
          let a = P.get m "a" and c = P.get m "c" in
          if Buffers.has_buffer_identity a.src.(0) then Some (replace a ~tag:(tag_concat a.tag c.tag)) else None);
      (* replace AFTER+STORE with CONTIGUOUS when target is not a buffer *)
      P.rule (P.pat Ops.After ~name:"u" ~src:(P.In_order [ P.wild; P.pat Ops.Store ~src:(P.In_order [ P.wild; P.var "src" ]) ]))
        (fun m -> replace_store_after_with_contig (P.get m "u") (P.get m "src"));
      (* replace CONTIGUOUS with STORE+AFTER *)
      P.rule (P.pat Ops.Contiguous ~name:"u") (fun m -> replace_contig_with_store_after (P.get m "u"));
      (* remove DETACH/CONTIGUOUS_BACKWARD (allows more contiguous removal) *)
      P.rule (P.ops [ Ops.Detach; Ops.Contiguous_backward ] ~name:"x") (fun m -> Some (P.get m "x").src.(0)) ]

let movement_like = Ops.Unshard :: Ops.Bitcast :: Ops.After :: Ops.Group.movement

(* tinygrad: finalize_after *)
let finalize_after ctx (x : Uop.t) =
  if Buffers.is_bound_var x then None
  else if x.tag = No_arg then begin ctx.assigns <- x :: ctx.assigns; None end
  else begin
    let ret = replace x ~tag:No_arg in
    let replace_uop = ref ret and views = ref [] in
    while List.memq !replace_uop.op movement_like do
      if !replace_uop.op <> Ops.After then views := !replace_uop :: !views;
      replace_uop := !replace_uop.src.(0)
    done;
    (* views is reversed already: innermost first *)
    List.iter (fun (v : Uop.t) ->
        replace_uop := replace v ~src:(Array.append [| !replace_uop |] (Array.sub v.src 1 (Array.length v.src - 1)))) !views;
    List.iter (fun t ->
        let original = uop_of_tag ctx t in
        ctx.buffer_map <- (original, Buffers.shrink_to !replace_uop (shape original)) :: ctx.buffer_map) (tag_ints x.tag);
    Some ret
  end

(* tinygrad: replace_input_buffer *)
let replace_input_buffer ctx (b : Uop.t) =
  ctx.replacements <- b :: ctx.replacements;
  ctx.n_replacements <- ctx.n_replacements + 1;
  let slot = ctx.n_replacements - 1 in
  if Buffers.is_bound_var b || is_variable b then Some (Buffers.param_like slot b)
  else
    Some (param slot b.dtype ~shape:(shape b) ?device:(Buffers.mdevice b)
            ~addrspace:(match addrspace b with Some a -> a | None -> Dtype.Global))

let replace_input_view ctx b = if Tbl.mem ctx.views b then replace_input_buffer ctx b else None

(* tinygrad: pm_finalize_call *)
let pm_finalize_call : alloc_ctx P.matcher =
  P.matcher
    [ P.rule_ctx (P.pat Ops.After ~name:"x") (fun ctx m -> finalize_after ctx (P.get m "x"));
      P.rule_ctx (P.pat Ops.Copy ~name:"x") (fun ctx m ->
          let x = P.get m "x" in
          if disk_like x then ctx.assigns <- x :: ctx.assigns;
          None) ]

let is_global_buffer_param (b : Uop.t) =
  match b.arg with Param _ -> addrspace b = Some Dtype.Global | _ -> false

(* tinygrad: pm_replace_buf *)
let pm_replace_buf : alloc_ctx P.matcher =
  P.matcher
    [ (* replace BUFFER with PARAM for cache key normalization *)
      P.rule_ctx (P.pat Ops.Buffer ~name:"b" ~src:(P.In_order [ P.wild ])) (fun ctx m ->
          let b = P.get m "b" in if is_global_buffer_param b then replace_input_buffer ctx b else None);
      (* replace SHRINK with PARAM *)
      P.rule_ctx (P.pat Ops.Shrink ~name:"b" ~allow_any_len:true ~src:(P.In_order [ P.pat Ops.Buffer ])) (fun ctx m ->
          replace_input_view ctx (P.get m "b"));
      P.rule_ctx (P.pat Ops.Bitcast ~name:"b"
                    ~src:(P.In_order [ P.any [ P.pat Ops.Shrink ~allow_any_len:true ~src:(P.In_order [ P.pat Ops.Buffer ]); P.pat Ops.Buffer ] ]))
        (fun ctx m -> replace_input_view ctx (P.get m "b"));
      (* strip the stored value from bound Variables for cache key normalization, so different values hit same cache *)
      P.rule_ctx (P.pat Ops.After ~name:"b") (fun ctx m ->
          let b = P.get m "b" in if Buffers.is_bound_var b then replace_input_buffer ctx b else None) ]

(* tinygrad: transform_to_call — the big SINK of tensors -> CALL(SINK(assigns...), buffers...) and the map from
   as-built nodes to their final storage *)
let transform_to_call (big_sink : Uop.t) : Uop.t * (Uop.t * Uop.t) list =
  let ctx = { uop_list = Hashtbl.create 16; n_uops = 0; buffer_map = []; bases = Tbl.create 16; assigns = []; replacements = [];
              n_replacements = 0; views = Tbl.create 4 } in
  (* same predicate as Tensor.realize *)
  Array.iter (fun x ->
      let b = base x in
      if not (Buffers.is_virtual b) && not (Buffers.has_buffer_identity b) && b.op <> Ops.After && addrspace b <> Some Dtype.Alu
      then Tbl.replace ctx.bases b ()) big_sink.src;
  (* this rewrite is "read-only", it adds simple things to buffer_map and may sink things on big_sink, bottom_up *)
  let big_sink = P.graph_rewrite ~bottom_up:true ~name:"number the uops" add_tags ctx big_sink in
  (* here we can break the tensor graph. this is the only place you need to maintain numbered tags *)
  let big_sink = P.graph_rewrite ~name:"early transform tensor graph" pm_early_transform_tensor_graph ctx big_sink in
  (* here we construct the final buffer_map: as-built nodes -> their final storage. values are never keys *)
  ignore (P.graph_rewrite ~name:"finalize call" pm_finalize_call ctx big_sink);
  let body = P.graph_rewrite ~bottom_up:true ~name:"replace bufs" pm_replace_buf ctx (sink (List.rev ctx.assigns)) in
  let ret = Buffers.call body (List.rev ctx.replacements) in
  let bm = List.rev ctx.buffer_map in
  assert (not (List.exists (fun (_, v) -> List.exists (fun (k, _) -> k == v) bm) bm));
  (ret, bm)

(* the nodes found not to reach any key of the last map applied, by id, kept while the maps name the same
   keys (their ids, in order): whether a node reaches a node is a fact of the graph, and an eager training
   step hash-conses to the very nodes of the step before, so its map names the same keys again. A tensor that
   accumulates a lazy value over the steps (the gradient of an input: backward's [t.grad + g]) holds a chain
   younger than those keys, which the walk would otherwise read whole on every realize *)
let unreaching_keys : int array ref = ref [||]

(* the nodes the scope walks visited, over the process *)
let walked = ref 0
let apply_map_walked () = !walked
let unreaching = Id_tbl.Set.create 256

(* the ids past which the set is emptied rather than grown: the dead nodes of a long run under one map *)
let max_unreaching = 1 lsl 16

let unreaching_for (applied_map : (Uop.t * Uop.t) list) =
  let ids = Array.of_list (List.map (fun ((k : Uop.t), _) -> k.id) applied_map) in
  if ids <> !unreaching_keys || Id_tbl.Set.length unreaching > max_unreaching then begin
    Id_tbl.Set.clear unreaching;
    unreaching_keys := ids
  end;
  unreaching

(* tinygrad: _apply_map_to_tensors — every live tensor whose graph reaches a key of the map gets the substituted
   graph; [get]/[set] read and write a tensor's UOp *)
let apply_map_to_tensors ~(get : 'a -> Uop.t) ~(set : 'a -> Uop.t -> unit) (tensors : 'a list) (applied_map : (Uop.t * Uop.t) list)
  : unit =
  if applied_map <> [] then begin
    let keys = Tbl.create 16 in
    List.iter (fun (k, _) -> Tbl.replace keys k ()) applied_map;
    (* a node is made after its sources: one older than every key neither is one nor reaches one *)
    let min_id = List.fold_left (fun m ((k : Uop.t), _) -> min m k.id) max_int applied_map in
    let unreaching = unreaching_for applied_map in
    (* get tensors in scope (tinygrad's topovisit with a shared cache) *)
    let in_scope : bool Tbl.t = Tbl.create (max 16 (4 * List.length tensors)) in
    let visit root =
      let stack = Stack.create () in
      Stack.push (root, false) stack;
      while not (Stack.is_empty stack) do
        let node, visited = Stack.pop stack in
        incr walked;
        if node.id < min_id || Id_tbl.Set.mem unreaching node.id then ()
        else if not (Tbl.mem in_scope node) then
          if not visited then begin
            Stack.push (node, true) stack;
            for i = Array.length node.src - 1 downto 0 do Stack.push (node.src.(i), false) stack done
          end else begin
            let reaches =
              Tbl.mem keys node || Array.exists (fun s -> Tbl.find_opt in_scope s = Some true) node.src in
            Tbl.replace in_scope node reaches;
            if not reaches then Id_tbl.Set.add unreaching node.id
          end
      done;
      Tbl.find_opt in_scope root = Some true in
    (* a tensor whose UOp is a key (the tensors just realized) gets its value: what the walk below gives it *)
    let direct, rest = List.partition (fun t -> Tbl.mem keys (get t)) tensors in
    List.iter (fun t -> set t (List.assq (get t) applied_map)) direct;
    let scope_tensors = List.filter (fun t -> visit (get t)) rest in
    if scope_tensors <> [] then begin
      (* get all Tensors and apply the map. always walk: replace exactly the nodes the map names, values are final *)
      let s = sink (List.map get scope_tensors) in
      let ns = P.substitute ~walk:true s applied_map in
      List.iteri (fun i t -> if s.src.(i) != ns.src.(i) then set t ns.src.(i)) scope_tensors
    end
  end
