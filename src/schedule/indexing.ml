(* tinygrad: schedule/indexing.py — the definition of the movement ops on index ranges (apply_movement_op)
   and run_rangeify: ranges flow from consumers to producers, realized nodes become STAGE + INDEX.
   Not ported: cpu_profile / rewrite_group / Context(SPEC) are no-ops here. *)

open Uop
module P = Upat

(* the movement-op argument, as [Uop.marg] returns it *)
type marg = [ `Shape of sint list | `Pairs of (sint * sint) list | `Perm of int list | `Flip of bool list ]

(* tinygrad: UOp.ufix — a python number becomes a (weak) CONST *)
let ufix = sint_to_uop ~dtype:Dtype.Weakint

(* symbolic+pm_simplify_valid+pm_drop_and_clauses, built once *)
let reshape_pm = lazy P.(Symbolic.symbolic @@@ Symbolic.pm_simplify_valid @@@ Symbolic.pm_drop_and_clauses)
let pad_pm = lazy P.(Symbolic.symbolic @@@ Symbolic.pm_simplify_valid)
let symbolic_pm = lazy Symbolic.symbolic

(* tinygrad caches _apply_reshape and apply_movement_op (functools.cache): the same index expressions are
   met again in every kernel that moves the same view. Ephemeron tables keyed by the index UOps let entries
   die with them; the rest of the key (op, shapes, arg) is matched in a short association list *)
module Eph1 = Ephemeron.K1.Make (struct type t = Uop.t let equal = ( == ) let hash (u : Uop.t) = u.id end)
module EphN = Ephemeron.Kn.Make (struct type t = Uop.t let equal = ( == ) let hash (u : Uop.t) = u.id end)

(* under one index key, the entries by the hash of the rest of the key *)
module Int_tbl = Hashtbl.Make (struct type t = int let equal = Int.equal let hash h = h land max_int end)

let reshape_cache : ((sint list * sint list) * Uop.t) list Int_tbl.t Eph1.t = Eph1.create 256
let movement_cache : ((Ops.t * sint list * marg) * Uop.t list) list Int_tbl.t EphN.t = EphN.create 256

let clear_caches () = Eph1.reset reshape_cache; EphN.reset movement_cache

let equal_marg (a : marg) (b : marg) =
  match a, b with
  | `Shape x, `Shape y -> equal_sints x y
  | `Pairs x, `Pairs y ->
    List.length x = List.length y
    && List.for_all2 (fun (a, b) (c, d) -> sint_equal a c && sint_equal b d) x y
  | `Perm x, `Perm y -> x = y
  | `Flip x, `Flip y -> x = y
  | (`Shape _ | `Pairs _ | `Perm _ | `Flip _), _ -> false

let hash_sint = function Sint i -> i | Suop u -> (u.id * 8) + 1
let hash_sints l = List.fold_left (fun h s -> (h * 31) + hash_sint s) 7 l

let hash_marg : marg -> int = function
  | `Shape l -> hash_sints l
  | `Pairs l -> List.fold_left (fun h (a, b) -> (h * 961) + (hash_sint a * 31) + hash_sint b) 11 l
  | `Perm l -> Hashtbl.hash l
  | `Flip l -> Hashtbl.hash l

(* the entry of [tbl] under [key] whose rest of the key (hashed to [h]) equals [rest], or [compute ()]
   recorded there. One index UOp can key a hundred shapes, so its entries are found by their hash *)
let memo ~find ~replace tbl key ~equal h rest compute =
  let entries = match find tbl key with
    | Some e -> e
    | None -> let e = Int_tbl.create 4 in replace tbl key e; e in
  let same = Option.value (Int_tbl.find_opt entries h) ~default:[] in
  match List.find_opt (fun (k, _) -> equal k rest) same with
  | Some (_, r) -> r
  | None ->
    let r = compute () in
    Int_tbl.replace entries h ((rest, r) :: Option.value (Int_tbl.find_opt entries h) ~default:[]);
    r

(* tinygrad: schedule/indexing.py _apply_reshape *)
let apply_reshape_uncached (in_shape : sint list) (out_shape : sint list) (urngs : Uop.t) : Uop.t =
  let acc = ref (Sint 1) in
  let axes_in = ref [] in
  List.iter (fun (s, src) ->
      (* python: acc*src; an int acc is the left operand after __rmul__ *)
      axes_in := mul (ufix !acc) src :: !axes_in;
      acc := sint_mul !acc s)
    (List.rev (List.combine out_shape (Array.to_list urngs.src)));
  let combined_axes = ref (usum ~start:(const_int 0) (List.rev !axes_in)) in
  let axes_out = ref [] in
  List.iter (fun s ->
      axes_out := mod_ !combined_axes (ufix s) :: !axes_out;
      combined_axes := idiv !combined_axes (ufix s)) (List.rev in_shape);
  (* this simplify is doing a lot of heavy lifting. this is the replacement for the reshape view merging code *)
  P.graph_rewrite ~name:"reshape" (Lazy.force reshape_pm) () (sink !axes_out)

let apply_reshape in_shape out_shape urngs =
  memo ~find:Eph1.find_opt ~replace:Eph1.replace reshape_cache urngs
    ~equal:(fun (a, b) (c, d) -> equal_sints a c && equal_sints b d)
    ((hash_sints in_shape * 65599) + hash_sints out_shape) (in_shape, out_shape)
    (fun () -> apply_reshape_uncached in_shape out_shape urngs)

(* python argsort *)
let argsort (l : int list) =
  List.map fst (List.stable_sort (fun (_, a) (_, b) -> compare a b) (List.mapi (fun i x -> (i, x)) l))

(* this is the definition of the movement ops *)
(* tinygrad: schedule/indexing.py apply_movement_op *)
let apply_movement_op_uncached (op : Ops.t) (in_shape : sint list) (arg : marg) (rngs : Uop.t list) :
  Uop.t list =
  let rec zip a b = match a, b with x :: a, y :: b -> (x, y) :: zip a b | _ -> [] in
  match op, arg with
  | Ops.Shrink, `Pairs pairs ->
    List.map (fun (a, (off, _)) -> if sint_equal off (Sint 0) then a else add a (ufix off)) (zip rngs pairs)
  | Ops.Permute, `Perm perm -> let arr = Array.of_list rngs in List.map (fun p -> arr.(p)) (argsort perm)
  | Ops.Flip, `Flip flips ->
    List.map (fun ((a, s), f) -> if f then sub (ufix (sint_add s (Sint (-1)))) a else a) (zip (zip rngs in_shape) flips)
  | Ops.Expand, `Shape s -> let n = List.length s in List.filteri (fun i _ -> i >= n) rngs
  | Ops.Pad, `Pairs pairs ->
    (* NOTE: the .where(r-s, i) is not inside the graph_rewrite so that `convert_pad_to_where_to_keep_behavior_local`
       wraps the pad with only the newly added valid *)
    List.map (fun ((r, sh), (off, sz)) ->
        if sint_equal sz sh && sint_equal off (Sint 0) then r
        else
          valid (sub r (ufix off))
            (P.graph_rewrite ~name:"pad" (Lazy.force pad_pm) ()
               (and_ (ge r (ufix off)) (lt r (ufix (sint_add sh off))))))
      (zip (zip rngs in_shape) pairs)
  | Ops.Reshape, `Shape out_shape ->
    let sk = simplify (sink rngs) in  (* NOTE: this applies any commutative flips to the rngs early *)
    let sub_array = List.mapi (fun i (r : Uop.t) -> (r, replace r ~src:[| r.src.(0) |] ~arg:(Range ([ i ], Placeholder))))
        (ranges sk) in
    let res = apply_reshape in_shape out_shape (P.substitute sk sub_array) in
    Array.to_list (P.substitute res (List.map (fun (k, v) -> (v, k)) sub_array)).src
  | _ -> invalid_arg (Ops.to_string op ^ " is not a MovementOp")

(* the value of a weakint CONST index that is an int at least 0 *)
let const_index (u : Uop.t) =
  match u.op, u.arg with
  | Ops.Const, Const (Dtype.I z) when u.dtype == Dtype.Weakint && Z.sign z >= 0 -> Some z
  | _ -> None

(* the dims of a shape of ints, each at least 1 *)
let rec int_dims : sint list -> Z.t list option = function
  | [] -> Some []
  | Sint n :: rest when n > 0 -> Option.map (fun dims -> Z.of_int n :: dims) (int_dims rest)
  | (Sint _ | Suop _) :: _ -> None

(* [apply_reshape] of constant indices, each at least 0, between shapes of ints: the symbolic rewrite folds
   every output index to a constant, computed here directly (a devectorized kernel indexes its shaped values
   lane by lane with constants, and each lane met the rewrite) *)
let reshape_const_indices (in_shape : sint list) (out_shape : sint list) (rngs : Uop.t list) =
  match int_dims in_shape, int_dims out_shape with
  | Some ins, Some outs when List.length outs = List.length rngs ->
    let idx = List.filter_map const_index rngs in
    if List.length idx <> List.length rngs then None
    else begin
      let flat = List.fold_left2 (fun acc d i -> Z.add (Z.mul acc d) i) Z.zero outs idx in
      let _, axes = List.fold_left (fun (rest, axes) d -> (Z.div rest d, Z.rem rest d :: axes))
          (flat, []) (List.rev ins) in
      Some (List.map (fun z -> const ~dtype:Dtype.Weakint (Dtype.I z)) axes)
    end
  | _ -> None

let apply_movement_op op in_shape arg rngs =
  let folded = match op, arg with
    | Ops.Reshape, `Shape out_shape -> reshape_const_indices in_shape out_shape rngs
    | _ -> None in
  match folded, rngs with
  | Some axes, _ -> axes
  | None, [] -> apply_movement_op_uncached op in_shape arg rngs  (* no index UOp to key the entry by *)
  | None, _ ->
    memo ~find:EphN.find_opt ~replace:EphN.replace movement_cache (Array.of_list rngs)
      ~equal:(fun (o, s, a) (o', s', a') -> o == o' && equal_sints s s' && equal_marg a a')
      ((Ops.value op * 65599) + (hash_sints in_shape * 31) + hash_marg arg) (op, in_shape, arg)
      (fun () -> apply_movement_op_uncached op in_shape arg rngs)

(* ======================================================================================================== *)
(* run_rangeify: range propagation from consumers to producers (tinygrad schedule/indexing.py)              *)
(* ======================================================================================================== *)

(* tinygrad: helpers.py PCONTIG (partial contiguous in rangeify) and DEBUG_RANGEIFY *)
let pcontig = Helpers.pcontig
let debug_rangeify = Helpers.debug_rangeify

(* tinygrad: schedule/indexing.py IndexingContext *)
type indexing_context = {
  (* None: to realize, ranges not chosen yet; Some axes: the realized axes *)
  realize_map : int list option Tbl.t;
  non_removable : unit Tbl.t;
  range_map : (Uop.t list * Uop.t list) Tbl.t;  (* (input ranges, output ranges) *)
  mutable range_idx : int;
}

let create_context () =
  { realize_map = Tbl.create 64; non_removable = Tbl.create 8; range_map = Tbl.create 256; range_idx = 0 }

(* tinygrad: sint != 1, resolved *)
let resolve_ne1 (s : sint) = match s with Sint i -> i <> 1 | Suop u -> resolve (ne u (const_int 1))

(* create ranges *)
(* tinygrad: IndexingContext.new_range *)
let new_range ?(axis_type = Weak) (ctx : indexing_context) (s : sint) : Uop.t =
  match s with
  | Suop u when u.op == Ops.Range -> u
  | _ ->
    (* if a range has a 1 src, it's the same as UOp.const(0) *)
    if resolve_ne1 s then begin
      let i = ctx.range_idx in
      ctx.range_idx <- i + 1;
      range ~axis_type s i
    end else const_int 0

(* tinygrad: schedule/indexing.py ALWAYS_CONTIGUOUS *)
let always_contiguous : Ops.t list =
  Ops.[ Contiguous; After; Buffer; Const; Mselect; Mstack; Param; Load; Call; Function ]

let is_always_contiguous (op : Ops.t) = List.memq op always_contiguous

(* tinygrad: ops.py broadcast_axes — out axes that are added or expanded *)
let broadcast_axes (src_shape : sint list) (out_shape : sint list) : int list =
  let nleft = List.length out_shape - List.length src_shape in
  if nleft < 0 then
    invalid_arg
      (Printf.sprintf "broadcast_axes: cannot broadcast %s into %s" (shape_str src_shape)
         (shape_str out_shape));
  let out = Array.of_list out_shape in
  let is1 = function Sint i -> i = 1 | Suop u -> resolve ~default:false (eq u (const_int 1)) in
  let ne1 = function Sint i -> i <> 1 | Suop u -> resolve (ne u (const_int 1)) in
  List.init nleft (fun i -> i)
  @ List.concat (List.mapi (fun i s -> if is1 s && ne1 out.(nleft + i) then [ nleft + i ] else []) src_shape)

(* tinygrad: ops.py gate_kernel_sink *)
let gate_kernel_sink (x : Uop.t) =
  if x.op == Ops.Linear then false
  else if x.op == Ops.Sink && (match x.arg with Kernel_info _ -> true | _ -> false) then false
  else true

(* tinygrad: UOp.device, with STAGE (its BufferizeOpts device) *)
let device_of (u : Uop.t) : Uop.device option =
  match u.op, u.arg with
  | Ops.Stage, Bufferize_opts { bdevice = Bdev d; _ } -> Some d
  | Ops.Stage, Bufferize_opts _ -> None
  | _ -> mdevice u

let mem (ctx : indexing_context) u = Tbl.mem ctx.realize_map u

(* tinygrad: schedule/indexing.py realize *)
let realize (ctx : indexing_context) (tr : Uop.t) : unit = Tbl.replace ctx.realize_map tr None

(* tinygrad: schedule/indexing.py realize_srcs *)
let realize_srcs (ctx : indexing_context) (rb : Uop.t) : unit =
  Array.iter (fun s -> if not (is_always_contiguous (base s).op) then Tbl.replace ctx.realize_map s None)
    rb.src

(* tinygrad: schedule/indexing.py realize_store_after_src *)
let realize_store_after_src (ctx : indexing_context) (dest : Uop.t) (src : Uop.t) : unit =
  (* you don't usually have to do this for assign unless there's a WAR hazard like
     TestAssign.test_assign_double_diamond_reduce *)
  let db = base dest in
  if List.exists (fun u -> u == db) (toposort ~enter_calls:false src) then
    Tbl.replace ctx.realize_map src None

(* tinygrad: schedule/indexing.py realize_custom_kernel_srcs *)
let realize_custom_kernel_srcs (ctx : indexing_context) (c : Uop.t) : unit =
  Array.iteri (fun i s ->
      if i >= 1 then begin
        let rec strip (s : Uop.t) = if s.op == Ops.Reshape then strip s.src.(0) else s in
        let s = strip s in
        if not (is_always_contiguous s.op) then begin
          Tbl.replace ctx.realize_map s None;
          Tbl.replace ctx.non_removable s ()
        end
      end) c.src

(* the callbacks only record: they never rewrite *)
let side f = fun ctx m -> f ctx m; None

(* tinygrad: schedule/indexing.py pm_generate_realize_map *)
let pm_generate_realize_map : indexing_context P.matcher =
  P.matcher
    [ (* realize the inputs of custom kernel calls *)
      P.rule_ctx
        (P.pat Ops.Call ~src:(P.In_order [ P.ops [ Ops.Sink; Ops.Program ] ]) ~name:"c" ~allow_any_len:true)
        (side (fun ctx m -> realize_custom_kernel_srcs ctx (P.get m "c")));
      (* always realize *)
      P.rule_ctx (P.ops [ Ops.Contiguous; Ops.Store ] ~name:"tr")
        (side (fun ctx m -> realize ctx (P.get m "tr")));
      (* realize srcs of these *)
      P.rule_ctx (P.ops [ Ops.Mselect; Ops.Mstack ] ~name:"rb")
        (side (fun ctx m -> realize_srcs ctx (P.get m "rb")));
      (* sometimes we need to realize the src of STORE if there's a self-access *)
      P.rule_ctx (P.pat Ops.Store ~src:(P.In_order [ P.var "dest"; P.var "src" ]))
        (side (fun ctx m -> realize_store_after_src ctx (P.get m "dest") (P.get m "src"))) ]

(* tinygrad: schedule/indexing.py broadcast_rngs *)
let broadcast_rngs (x : Uop.t) (src : Uop.t) (rngs : Uop.t list) : Uop.t list =
  if not (Ops.Group.is_broadcastable x.op) then rngs
  else begin
    let xs = shape x in
    let baxes = broadcast_axes (shape src) xs and nleft = List.length xs - List.length (shape src) in
    List.concat
      (List.mapi (fun j r ->
           if j < nleft then [] else if List.mem j baxes then [ const_like_int r 0 ] else [ r ]) rngs)
  end

(* TODO: srcs contain (real data srcs, something else, ranges) and the boundary is confusing.
   see range_start *)
(* tinygrad: schedule/indexing.py data_srcs *)
let data_srcs (op : Ops.t) (src : Uop.t array) : Uop.t list =
  let open Ops in
  if List.memq op [ Param; Buffer; Range; Special ] then []
  (* the store of a bound Variable only carries the input value, it has no data srcs *)
  else if op == Store && is_variable src.(0) then []
  else if Group.is_movement op || List.memq op [ Index; Stage; Reduce; After; End ] then
    (if Array.length src > 0 then [ src.(0) ] else [])
  else Array.to_list src

let filter_idx (axes : int list) (l : 'a list) = List.filteri (fun i _ -> List.mem i axes) l

(* tinygrad: schedule/indexing.py create_bufferize_and_index_srcs *)
let create_bufferize_and_index_srcs (ctx : indexing_context) (x : Uop.t) : Uop.t list =
  (* shape/bound/index args that are not data src should not be indexed *)
  let data_src_count = List.length (data_srcs x.op x.src) in
  let xr = Tbl.find_opt ctx.range_map x in
  List.mapi (fun i (s : Uop.t) ->
      let src_rngs () = match xr with Some (rngs, _) -> broadcast_rngs x s rngs | None -> [] in
      if List.memq s.op Ops.[ Param; Buffer; Mstack; Mselect; After ] then
        (if Option.is_some xr && i < data_src_count then index s (src_rngs ()) else s)
      else if mem ctx s then begin
        let realized_ranges = match Tbl.find ctx.realize_map s with
          | Some l -> l | None -> failwith "realize map must contain range list" in
        let s_out = snd (Tbl.find ctx.range_map s) in
        let closed_ranges = filter_idx realized_ranges s_out in
        if s.op == Ops.Store then begin
          (* add the ends if this is a store *)
          let r = end_ s (List.filter (fun (r : Uop.t) -> r.op == Ops.Range) closed_ranges) in
          Tbl.remove ctx.realize_map s;
          r
        end else begin
          let removable = not (is_always_contiguous s.op) && not (Tbl.mem ctx.non_removable s) in
          let bdevice = match device_of s with Some d -> Bdev d | None -> Bdev_none in
          (* LOCAL: None in the device assigns it a number later *)
          let opts =
            if List.length s_out = List.length realized_ranges then
              { bdevice; baddrspace = Dtype.Global; removable }
            else { bdevice; baddrspace = Dtype.Local; removable } in
          let new_src =
            create Ops.Stage ~src:(Array.of_list (s :: closed_ranges)) ~arg:(Bufferize_opts opts) in
          if Option.is_some xr then index new_src (filter_idx realized_ranges (src_rngs ())) else new_src
        end
      end else s)
    (Array.to_list x.src)

(* tinygrad: schedule/indexing.py create_bufferize_and_index_based_on_ranges *)
let create_bufferize_and_index_based_on_ranges (ctx : indexing_context) (x : Uop.t) : Uop.t option =
  if x.op == Ops.Stage || x.op == Ops.Index then None
  else Some (replace x ~src:(Array.of_list (create_bufferize_and_index_srcs ctx x)))

(* tinygrad: schedule/indexing.py convert_pad_to_where_to_keep_behavior_local *)
let convert_pad_to_where_to_keep_behavior_local (ctx : indexing_context) (x : Uop.t) : Uop.t option =
  match Tbl.find_opt ctx.range_map x with
  | None -> None
  | Some (rngs, _) ->
    let bx = Option.get (create_bufferize_and_index_based_on_ranges ctx x) in
    let valid = uprod ~start:(const_bool true) (List.map get_valid rngs) in
    Some (where valid bx.src.(0) (const (Dtype.const x.dtype (I Z.zero))))

(* tinygrad: schedule/indexing.py convert_reduce_to_reduce_with_ranges *)
let convert_reduce_to_reduce_with_ranges (ctx : indexing_context) (x : Uop.t) : Uop.t option =
  match x.arg with
  | Reduce_arg (_, 0) -> None
  | Reduce_arg (rop, n) ->
    (match Tbl.find_opt ctx.range_map x with
     | None -> failwith "REDUCE has no ranges in rangeify, UOp verification failed"
     | Some (rngs, _) ->
       let bx = Option.get (create_bufferize_and_index_based_on_ranges ctx x) in
       (* input ranges *)
       let new_ranges = List.filteri (fun i _ -> i < n) rngs in
       Some (create Ops.Reduce ~src:(Array.of_list (bx.src.(0) :: new_ranges)) ~arg:(Reduce_arg (rop, 0))))
  | _ -> None

(* tinygrad: schedule/indexing.py convert_stack_to_where *)
let convert_stack_to_where (ctx : indexing_context) (x : Uop.t) : Uop.t option =
  (* only data STACKs: shape tuple STACKs aren't in range_map, the empty shape tuple is void *)
  match Tbl.find_opt ctx.range_map x with
  | None -> None
  | Some _ when x.dtype == Dtype.Void -> None
  | Some (_, out_rngs) ->
    (* use the src list directly, a transient STACK of mid-rangeify srcs violates the spec shape rule *)
    let srcs = Array.of_list (create_bufferize_and_index_srcs ctx x) in
    let r0 = List.hd out_rngs in
    let n = Array.length srcs in
    let ret = ref srcs.(n - 1) in
    for k = n - 2 downto 0 do ret := where (eq r0 (const_int k)) srcs.(k) !ret done;
    Some !ret

(* tinygrad: schedule/indexing.py remove_movement_op_after_rangeify *)
let remove_movement_op_after_rangeify (ctx : indexing_context) (x : Uop.t) : Uop.t option =
  if Tbl.mem ctx.range_map x || x.src.(0).op == Ops.Index then Some x.src.(0) else None

(* tinygrad: schedule/indexing.py pm_apply_rangeify *)
let pm_apply_rangeify : indexing_context P.matcher =
  let on f = fun ctx m -> f ctx (P.get m "x") in
  P.matcher
    [ (* REDUCE(op, axis) -> REDUCE(op) with ranges *)
      P.rule_ctx (P.pat Ops.Reduce ~name:"x") (on convert_reduce_to_reduce_with_ranges);
      (* PAD -> WHERE *)
      P.rule_ctx (P.pat Ops.Pad ~name:"x") (on convert_pad_to_where_to_keep_behavior_local);
      (* STACK -> WHERE select on the leading range *)
      P.rule_ctx (P.pat Ops.Stack ~name:"x") (on convert_stack_to_where);
      (* finally, apply_rangeify *)
      P.rule_ctx (P.ops Ops.Group.all ~name:"x") (on create_bufferize_and_index_based_on_ranges);
      (* remove movement op *)
      P.rule_ctx (P.ops Ops.Group.movement ~name:"x") (on remove_movement_op_after_rangeify) ]

(* tinygrad: schedule/indexing.py pm_fix_deviceless *)
let pm_fix_deviceless : Uop.device option P.matcher =
  P.matcher
    [ P.rule_ctx (P.pat Ops.Stage ~name:"b") (fun ctx m ->
          let b = P.get m "b" in
          match b.arg with
          | Bufferize_opts ({ baddrspace = Dtype.Global; bdevice = Bdev_none; _ } as o) ->
            let bdevice = match ctx with Some d -> Bdev d | None -> Bdev_none in
            Some (replace b ~arg:(Bufferize_opts { o with bdevice }))
          | _ -> None) ]

(* tinygrad: schedule/indexing.py render_ranges *)
let render_ranges ?realized (rngs_list : Uop.t list list) : string =
  let rendered = List.map (List.map render) rngs_list in
  let n = List.fold_left (fun a l -> min a (List.length l)) max_int rendered in
  let n = if rendered = [] then 0 else n in
  String.concat ""
    (List.init n (fun i ->
         let rs = List.map (fun l -> List.nth l i) rendered in
         let rng = if Helpers.all_same rs then List.hd rs else String.concat " -> " rs in
         let rng = match realized with
           | Some axes when List.mem i axes -> Helpers.colored rng (Some "yellow") | _ -> rng in
         "[" ^ rng ^ "]"))

let rec zip_lists (ls : 'a list list) : 'a list list =
  let is_empty = function [] -> true | _ :: _ -> false in
  if is_empty ls || List.exists is_empty ls then []
  else List.map List.hd ls :: zip_lists (List.map List.tl ls)

let range_args_gt (a : Uop.t) (b : Uop.t) =
  match a.arg, b.arg with
  | Range (ia, ta), Range (ib, tb) -> compare (ia, axis_to_pos ta) (ib, axis_to_pos tb) > 0
  | _ -> false

(* tinygrad: schedule/indexing.py run_rangeify *)
let run_rangeify ?(debug = false) (tsink : Uop.t) : Uop.t =
  if debug then print_endline "**************************";
  let rctx = create_context () in
  (* get ops to realize *)
  ignore (P.graph_rewrite ~name:"get realize" pm_generate_realize_map rctx tsink);
  (* get the consumer map *)
  let tsink_toposort = toposort ~gate:gate_kernel_sink tsink in
  let consumer_map : Uop.t list Tbl.t = Tbl.create 256 in  (* consumers, newest first *)
  List.iter (fun x -> Tbl.replace consumer_map x []) tsink_toposort;
  List.iter (fun c ->
      List.iter (fun x ->
          match Tbl.find_opt consumer_map x with
          (* a consumer is added once: its duplicate can only be the newest entry *)
          | Some (c' :: _) when c' == c -> ()
          | Some l -> Tbl.replace consumer_map x (c :: l)
          | None -> ()) (data_srcs c.op c.src)) tsink_toposort;
  let consumers x = List.rev (Tbl.find consumer_map x) in
  (* explicit rangeify *)
  let ending_ranges : Uop.t list Tbl.t = Tbl.create 256 in
  let get_ending u = Option.value (Tbl.find_opt ending_ranges u) ~default:[] in
  List.iter (fun (x : Uop.t) ->
      (* no ranges on kernels, they are internal *)
      if List.memq x.op Ops.[ Call; Function; Linear ] then ()
      (* AFTER doesn't have range *)
      else if x.op == Ops.After then ()
      (* treat MSTACK/MSELECT like SINK *)
      else if x.op == Ops.Mstack || x.op == Ops.Mselect then ()
      else begin
        let cons = consumers x in
        Tbl.replace ending_ranges x (List.concat_map get_ending cons);
        (* ranges the consumers iterate that this node broadcasts over *)
        let ended =
          List.concat_map (fun (c : Uop.t) ->
              match Tbl.find_opt rctx.range_map c with
              | Some (crngs, _) when Ops.Group.is_broadcastable c.op ->
                let a = Array.of_list crngs in
                List.map (fun i -> a.(i)) (broadcast_axes (shape x) (shape c))
              | _ -> []) cons in
        let broadcast_ending_ranges = ranges (sink ended) in
        (* fusion decision: REDUCE before the broadcast *)
        if x.op == Ops.Reduce then Tbl.replace ending_ranges x (get_ending x @ broadcast_ending_ranges);

        (* *** the ranges on the output are
            1. new if this op is realized
            2. from the single consumer if this op only has one consumer
            3. potentially new if this op has 2+ consumers *)
        let consumer_rngs =
          List.filter_map
            (fun c -> Option.map (fun (r, _) -> broadcast_rngs c x r) (Tbl.find_opt rctx.range_map c)) cons in
        let out_rngs =
          if Tbl.mem rctx.realize_map x then begin
            (* if this is in the realize_map, we create new ranges (at the output) *)
            let out_rngs = List.map (fun s -> new_range rctx s) (shape x) in
            (* all ranges are ended now *)
            Tbl.replace ending_ranges x [];
            (* mark all ranges as ended *)
            assert (Tbl.find rctx.realize_map x = None);
            Tbl.replace rctx.realize_map x (Some (List.init (List.length (shape x)) (fun i -> i)));
            Some out_rngs
          end else
            match consumer_rngs with
            (* if no consumers have ranges and this isn't realized, this doesn't have ranges either. *)
            | [] -> None
            (* if this has one consumer, it inherits the ranges from it *)
            | [ r ] -> Some r
            | _ ->
              (* if this has two consumers, we have to merge the ranges and might create new ones *)
              let all_rngs = zip_lists consumer_rngs in
              let rngs_valids =
                List.map (fun valid_rngs -> (List.map get_idx valid_rngs, List.map get_valid valid_rngs))
                  all_rngs in
              let same l = Helpers.all_same (List.map (fun (u : Uop.t) -> u.id) l) in
              (* TODO: in RANGEIFY > 1 all_all_same isn't required *)
              let all_all_same = List.for_all (fun (l, _) -> same l) rngs_valids in
              (* not in tinygrad: the CPU mode's partial contiguous row (Rangeify_cpu.row_buffer) *)
              let differing =
                List.concat (List.mapi (fun i (l, _) -> if same l then [] else [ i ]) rngs_valids) in
              let pcontig_on =
                pcontig.value <> 0 || Rangeify_cpu.row_buffer x ~consumers ~realized:differing in
              let shp = Array.of_list (shape x) in
              let realize_axis = ref [] in
              let out =
                List.mapi (fun i (local_rngs, valids) ->
                    (* we compare the ranges without their valids *)
                    if all_all_same || (pcontig_on && same local_rngs) then begin
                      (* the new valid is the OR of all the children valids *)
                      let minimum_valid = usum ~start:(const_bool false) valids in
                      P.graph_rewrite ~name:"minimum_valid" (Lazy.force symbolic_pm) ()
                        (valid (List.hd local_rngs) minimum_valid)
                    end else begin
                      realize_axis := !realize_axis @ [ i ];
                      new_range rctx shp.(i)
                    end) rngs_valids in
              (* we have to (partially) realize here if there's new ranges *)
              if !realize_axis <> [] then Tbl.replace rctx.realize_map x (Some !realize_axis);
              Some out in
        match out_rngs with
        | None -> ()
        | Some out_rngs ->
          let out_rngs = ref out_rngs in
          (* if this element is a reduce and there's ended ranges, we might have to end some other ranges *)
          let has_ending = match get_ending x with [] -> false | _ :: _ -> true in
          if has_ending && (Ops.Group.is_elementwise x.op || x.op == Ops.Reduce) then begin
            let realize_axis =
              ref (match Tbl.find_opt rctx.realize_map x with Some (Some l) -> l | _ -> []) in
            (* not in tinygrad: the CPU mode's row reduce (Rangeify_cpu.row_reduce) *)
            let partial = pcontig.value > 1 || Rangeify_cpu.row_reduce x ~consumers in
            List.iteri (fun i (r : Uop.t) ->
                if not (List.mem i !realize_axis) then
                  if not partial
                  || List.exists (fun rr -> List.exists (fun e -> range_args_gt rr e) (get_ending x))
                       (ranges r)
                  then realize_axis := !realize_axis @ [ i ]) !out_rngs;
            Tbl.replace ending_ranges x [];
            if !realize_axis <> [] then begin
              Tbl.replace rctx.realize_map x (Some !realize_axis);
              let shp = Array.of_list (shape x) in
              out_rngs :=
                List.mapi (fun i r -> if List.mem i !realize_axis then new_range rctx shp.(i) else r)
                  !out_rngs
            end
          end;
          Tbl.replace ending_ranges x (get_ending x @ broadcast_ending_ranges);
          let out_rngs = !out_rngs in

          (* *** the ranges on the inputs are
              1. swizzled for MovementOps
              2. newly created for REDUCE (tensor graph form with axis)
              3. passed through for everything else *)
          let rngs = ref out_rngs in  (* rngs is the input ranges *)
          (* apply movement ops *)
          if Ops.Group.is_movement x.op then rngs := apply_movement_op x.op (shape x.src.(0)) (marg x) !rngs;
          (* STACK: the leading range selects the src, srcs get the trailing ranges *)
          if x.op == Ops.Stack then rngs := List.tl out_rngs;
          (* if the EXPAND is used to inject a range, we don't mark it as ending_ranges. otherwise we do.
             NOTE: this doesn't actually always end a range, but this is why convs are realized,
             so for now we need it *)
          if x.op == Ops.Expand
          && List.for_all (function Sint _ -> true | Suop y -> y.op != Ops.Range) (shape x) then begin
            let n = match marg x with `Shape s -> List.length s | _ -> 0 in
            let injected = ranges (sink (List.filteri (fun i _ -> i < n) out_rngs)) in
            Tbl.replace ending_ranges x (get_ending x @ injected)
          end;
          (* REDUCE creates ranges for the axes it is reducing *)
          (match x.op, x.arg with
           | Ops.Reduce, Reduce_arg (_, n) when n <> 0 ->
             let red = List.filteri (fun i _ -> i < n) (shape x.src.(0)) in
             rngs := List.map (fun s -> new_range ~axis_type:Reduce rctx s) red @ out_rngs
           | _ -> ());
          if debug then begin
            let realized = Option.join (Tbl.find_opt rctx.realize_map x) in
            let disp =
              if x.op == Ops.Reshape || List.length !rngs <> List.length out_rngs then
                render_ranges ?realized [ !rngs ] ^ " -> " ^ render_ranges ?realized [ out_rngs ]
              else render_ranges ?realized [ !rngs; out_rngs ] in
            Printf.printf "%s %2d %-20s %-35s %2d %s\n" (if Tbl.mem rctx.realize_map x then "***" else "   ")
              (List.length cons) (Ops.to_string x.op)
              (match shape_opt x with Some s -> shape_str s | None -> "None")
              (List.length (get_ending x)) disp
          end;
          (* assign to the range map. rngs are the input ranges, out_rngs are the output ranges,
             from the x op. *)
          Tbl.replace rctx.range_map x (!rngs, out_rngs)
      end) (List.rev tsink_toposort);
  (* NOTE: SPEC=3 is broken here with shape *)
  let tsink = P.graph_rewrite ~bottom_up:true ~name:"apply rangeify" pm_apply_rangeify rctx tsink in
  (* if a deviceless value must materialize, place it on the sink device *)
  P.graph_rewrite ~name:"add device to deviceless" pm_fix_deviceless (device_of tsink) tsink
