(* tinygrad: codegen/simplify.py — range flattening, merging, splitting and shrinking, and the reduce collapses *)

open Uop
module P = Upat

let g = P.get

(* tinygrad: codegen/simplify.py flatten_range *)
let flatten_range (r : Uop.t) : Uop.t option =
  match range_start r.op with
  | None -> None
  | Some off ->
    let n = Array.length r.src in
    let rngs = Array.to_list (Array.sub r.src off (n - off)) in
    if rngs = [] then None
    else begin
      (* ranges in the cond should not be ended *)
      let backedge = List.filter (fun (x : Uop.t) -> x.dtype == Dtype.Void || x.dtype == Dtype.Bool) rngs in
      let rest = List.filter (fun x -> not (List.memq x backedge)) rngs in
      let flat = ranges (sink rest) in
      Some (replace r ~src:(Array.concat [ Array.sub r.src 0 off; Array.of_list flat; Array.of_list backedge ]))
    end

(* tinygrad: codegen/simplify.py pm_flatten_range *)
let pm_flatten_range : unit P.matcher =
  P.matcher [ (* real ranges only *) P.rule (P.ops [ Ops.Reduce; Ops.End ] ~name:"r") (fun m -> flatten_range (g m "r")) ]

(* the same matcher for passes that carry a range table (lifted once) *)
let pm_flatten_range_tbl : Uop.t Tbl.t P.matcher = P.lift pm_flatten_range

(* index/range arithmetic uses FLOORDIV/FLOORMOD prior to late rewrite *)
(* tinygrad: codegen/simplify.py count_divmod *)
let count_divmod (x : Uop.t) : int =
  List.fold_left (fun acc (u : Uop.t) -> if u.op == Ops.Floordiv || u.op == Ops.Floormod then acc + 1 else acc) 0
    (backward_slice x)

(* _substitute+symbolic+pm_flatten_range, built once *)
let merge_pm = lazy (P.( @@@ ) P.substitute_pm (P.lift (P.( @@@ ) Symbolic.symbolic pm_flatten_range)))

let axis_of (r : Uop.t) = match r.arg with Range (_, at) -> at | _ -> invalid_arg "axis: not a RANGE"
let range_ids (r : Uop.t) = match r.arg with Range (ids, _) -> ids | _ -> invalid_arg "range ids: not a RANGE"

(* itertools.permutations(l, 2) *)
let permutations2 l =
  let a = Array.of_list l in
  let n = Array.length a in
  List.concat (List.init n (fun i -> List.filter_map (fun j -> if i = j then None else Some (a.(i), a.(j))) (List.init n Fun.id)))

(* tinygrad: codegen/simplify.py simplify_merge_adjacent *)
let simplify_merge_adjacent (u : Uop.t) : Uop.t option =
  let ended = ended_ranges u in
  if not (List.for_all (fun (r : Uop.t) -> r.op == Ops.Range) ended) then None
  else begin
    let reduce_ranges = List.filter_map (fun (x : Uop.t) -> if x.op == Ops.Reduce then Some (ranges x) else None) (toposort u) in
    (* on END we only want to merge adjacent ranges, on REDUCE we want to try all combinations *)
    let pairs =
      if u.op == Ops.End then (match ended with [] -> [] | _ :: tl -> List.combine (List.filteri (fun i _ -> i < List.length tl) ended) tl)
      else permutations2 ended in
    let u = ref u in
    List.iter (fun ((r0 : Uop.t), (r1 : Uop.t)) ->
        (* check same type *)
        if axis_of r0 = axis_of r1 then
          (* check if the ranges to merge are in the same reduces *)
          if List.for_all (fun rngs -> List.memq r0 rngs = List.memq r1 rngs) reduce_ranges then begin
            let s0 = r0.src.(0) and s1 = r1.src.(0) in
            (* do the merge *)
            let new_range = replace r0 ~src:[| mul s0 s1 |] in
            let ctx = Tbl.create 2 in
            Tbl.replace ctx r0 (idiv new_range s1);
            Tbl.replace ctx r1 (mod_ new_range s1);
            let name = Printf.sprintf "check_merge_%s_%s" (range_str r0) (range_str r1) in
            let nidx = P.graph_rewrite ~name (Lazy.force merge_pm) ctx !u in
            (* check if it simplifies *)
            if count_divmod nidx <= count_divmod !u then u := nidx
          end) pairs;
    Some !u
  end

(* tinygrad: codegen/simplify.py mark_gated *)
let mark_gated (ctx : Uop.t Tbl.t) (idx : Uop.t) : Uop.t option =
  let x, guards =
    if Array.length idx.src > 1 && idx.src.(1).op == Ops.Where then begin
      let x = get_idx idx.src.(1) and cond = get_valid idx.src.(1) in
      (* get all ranges r with guards "r < c" for some const c *)
      let guards = ref [] in
      List.iter (fun (v : Uop.t) ->
          if v.op == Ops.Cmplt && v.src.(0).op == Ops.Range && v.src.(1).op == Ops.Const then begin
            let r = v.src.(0) and c = v.src.(1) in
            guards := (r, c) :: List.filter (fun (r', _) -> r' != r) !guards
          end) (split_uop cond Ops.And);
      (x, List.rev !guards)
    end else (idx, []) in
  (* ensure that we choose max(c_i) for all i where r < c_i *)
  List.iter (fun (r, (c : Uop.t)) ->
      match Tbl.find_opt ctx r with
      | None -> Tbl.replace ctx r c
      | Some old -> if Dtype.compare_const (const_val old) (const_val c) < 0 then Tbl.replace ctx r c) guards;
  (* but if a range is ever ungated, we cannot shrink it *)
  List.iter (fun (r : Uop.t) -> if not (List.mem_assq r guards) then Tbl.replace ctx r r.src.(0)) (ranges x);
  None

(* tinygrad: codegen/simplify.py do_substitute *)
let do_substitute (ctx : Uop.t Tbl.t) (x : Uop.t) (sub_fxn : Uop.t -> Uop.t -> Uop.t) : Uop.t option =
  let pairs = Tbl.fold (fun k v acc -> (k, sub_fxn k v) :: acc) ctx [] in
  let pairs = List.sort (fun ((a : Uop.t), _) ((b : Uop.t), _) -> compare a.id b.id) pairs in
  let ret = P.substitute x pairs in
  Tbl.reset ctx;
  if ret == x then None else Some (simplify ret)

(* tinygrad: codegen/simplify.py pm_simplify_ranges *)
let pm_simplify_ranges : Uop.t Tbl.t P.matcher =
  P.matcher
    [ P.rule (P.ops [ Ops.End; Ops.Reduce ] ~name:"u") (fun m -> simplify_merge_adjacent (g m "u"));
      P.rule_ctx (P.pat Ops.Index ~name:"idx") (fun ctx m -> mark_gated ctx (g m "idx"));
      (* reduce ranges can't be shrunk *)
      P.rule_ctx (P.pat Ops.Reduce ~name:"red") (fun ctx m ->
          let red = g m "red" in
          Array.iteri (fun i (r : Uop.t) -> if i > 0 then Tbl.replace ctx r r.src.(0)) red.src;
          None);
      P.rule_ctx (P.pat Ops.Sink ~name:"x") (fun ctx m ->
          do_substitute ctx (g m "x") (fun r c -> replace r ~src:[| c |])) ]

(* tinygrad: codegen/simplify.py mark_range_mod *)
let mark_range_mod (ctx : Uop.t Tbl.t) (r : Uop.t) (c : Uop.t) : Uop.t option =
  (* ranges that aren't looped over can't be split *)
  let at = axis_of r in
  if (not (Tbl.mem ctx r)) && at <> Warp && at <> Device && r.src.(0).op == Ops.Const
     && divides r.src.(0) (zi (const_val c)) <> None
  then Tbl.replace ctx r c;
  None

(* the split of range [k] by [v]: RANGE(k/v, ids+(0,)) * v + RANGE(v, ids+(1,)) *)
let split_range (k : Uop.t) (v : Uop.t) =
  let ids = range_ids k and at = axis_of k in
  add (mul (replace k ~src:[| idiv k.src.(0) v |] ~arg:(Range (ids @ [ 0 ], at))) v)
    (replace k ~src:[| v |] ~arg:(Range (ids @ [ 1 ], at)))

(* tinygrad: codegen/simplify.py pm_split_ranges *)
let pm_split_ranges : Uop.t Tbl.t P.matcher =
  P.matcher
    [ P.rule_ctx P.O.(P.pat Ops.Range ~name:"r" mod P.cvar "c") (fun ctx m -> mark_range_mod ctx (g m "r") (g m "c"));
      P.rule_ctx (P.pat Ops.Sink ~name:"x") (fun ctx m -> do_substitute ctx (g m "x") split_range) ]

(* **** reduce simplification **** *)

(* tinygrad: codegen/simplify.py no_range *)
let no_range (u : Uop.t) = not (List.exists (fun (x : Uop.t) -> x.op == Ops.Range) (toposort u))

let reduce_srcs (red : Uop.t) = List.tl (Array.to_list red.src)

(* tinygrad: codegen/simplify.py reduce_unparented *)
let reduce_unparented (red : Uop.t) : Uop.t option =
  let rop = match red.arg with Reduce_arg (op, _) -> op | _ -> invalid_arg "reduce_unparented: REDUCE arg" in
  if not (List.memq rop [ Ops.Add; Ops.Max; Ops.Mul ]) then None
  else begin
    let rs = reduce_srcs red in
    assert (List.for_all (fun (x : Uop.t) -> x.op == Ops.Range) rs);  (* some reduce srcs aren't ranges *)
    let src_ranges = ranges red.src.(0) in
    let parented, unparented = List.partition (fun x -> List.memq x src_ranges) rs in
    if unparented = [] then None
    else begin
      let ret =
        if parented <> [] || red.dtype != red.src.(0).dtype then replace red ~src:(Array.of_list (red.src.(0) :: parented))
        else red.src.(0) in
      let ret =
        if rop == Ops.Add then List.fold_left (fun acc (r : Uop.t) -> mul acc r.src.(0)) ret unparented
        else if rop == Ops.Mul then List.fold_left (fun acc (r : Uop.t) -> pow acc r.src.(0)) ret unparented
        else ret in
      Some ret
    end
  end

(* tinygrad: codegen/simplify.py pm_reduce_unparented *)
let pm_reduce_unparented : unit P.matcher =
  P.matcher
    [ (* remove any ranges from a REDUCE that aren't referenced in the reduce source *)
      P.rule (P.pat Ops.Reduce ~name:"red") (fun m -> reduce_unparented (g m "red")) ]

let v = P.var
let add_arg = Reduce_arg (Ops.Add, 0)
let zero = P.const (Dtype.I Z.zero)
let invalid_gate = P.where (v "cond") (v "x") (P.pat Ops.Const ~arg:(Const Dtype.Invalid) ~name:"i")
let reduce_add_like (r : Uop.t) (x : Uop.t) = reduce ~arg:Ops.Add x (reduce_srcs r)

(* tinygrad: codegen/simplify.py pm_reduce_collapse *)
let pm_reduce_collapse : unit P.matcher =
  P.( @@@ ) pm_reduce_unparented
    (P.( @@@ )
       (P.matcher
          [ (* lift x+y out of reduce on lt *)
            P.rule P.O.(P.or_casted (v "x" + v "y") < v "c") (fun m ->
                let x = g m "x" and y = g m "y" and c = g m "c" in
                if no_range y && no_range c then Some (lt x (sub c y)) else None);
            (* lift x*y out of reduce *)
            P.rule P.O.(v "x" * v "y" < v "c") (fun m ->
                let x = g m "x" and y = g m "y" and c = g m "c" in
                if no_range y && no_range c && Dtype.is_int y.dtype && Dtype.compare_const (vmin y) (Dtype.I Z.zero) > 0 then
                  Some (lt x (idiv (sub (add c y) (const_int 1)) y))
                else None);
            (* sum over r in [0,N) of [lower<=r<upper]*val -> clamp(min(upper,N) - max(lower,0), 0, N) * val *)
            P.rule
              (P.reduce ~arg:add_arg
                 (P.any
                    [ P.where P.O.(P.pat Ops.Range ~name:"r" < v "upper") (v "val") zero;
                      P.where P.O.(P.pat Ops.Range ~name:"r" < v "lower") zero (v "val");
                      P.where
                        P.O.(P.logical_not (v "r" < v "lower") land (P.pat Ops.Range ~name:"r" < v "upper"))
                        (v "val") zero ])
                 [ v "r" ])
              (fun m ->
                 let r = g m "r" and vl = g m "val" in
                 if not (no_range vl) then None
                 else begin
                   let n = r.src.(0) in
                   let hi = match P.find m "upper" with Some upper -> minimum upper n | None -> n in
                   let lo = match P.find m "lower" with Some lower -> maximum lower (const_int 0) | None -> const_like_int r 0 in
                   Some (mul (minimum (maximum (sub hi lo) (const_int 0)) n) vl)
                 end);
            P.rule (P.reduce ~arg:add_arg ~allow_any_len:true ~name:"r" invalid_gate []) (fun m ->
                let cond = g m "cond" in
                if no_range cond then Some (where cond (reduce_add_like (g m "r") (g m "x")) (g m "i")) else None);
            P.rule (P.reduce ~arg:add_arg ~allow_any_len:true ~name:"r" P.O.(v "x" + v "y") []) (fun m ->
                let r = g m "r" in
                Some (add (reduce_add_like r (g m "x")) (reduce_add_like r (g m "y"))));
            (* AND on WHERE *)
            P.rule
              (P.reduce ~arg:add_arg ~allow_any_len:true ~name:"r"
                 (P.where P.O.(P.pat Ops.Param ~name:"x" land v "y") (v "c") zero) [])
              (fun m ->
                 let y = g m "y" and c = g m "c" in
                 Some (mul (reduce_add_like (g m "r") (where y c (const_int 0))) (g m "x")));
            (* MUL casted bool *)
            P.rule P.O.(v "x" * P.cast (P.var ~dtype:[ Dtype.Bool ] "gate")) (fun m ->
                Some (where (g m "gate") (g m "x") (const_int 0))) ])
       Symbolic.symbolic)

(* tinygrad: codegen/simplify.py pm_reduce_load_collapse *)
let pm_reduce_load_collapse : unit P.matcher =
  P.( @@@ ) pm_reduce_collapse
    (P.matcher
       [ (* lift x+y out of reduce on ne *)
         P.rule P.O.(P.or_casted (v "x" + v "y") <> v "c") (fun m ->
             let x = g m "x" and y = g m "y" and c = g m "c" in
             if no_range y && no_range c then Some (ne x (sub (cast y.dtype c) y)) else None);
         (* reduce on gated load becomes can substitute the range and remove the reduce *)
         P.rule
           (P.reduce ~arg:add_arg
              (P.where P.O.(v "idx" <> P.or_casted (P.pat Ops.Range ~name:"r")) zero (v "expr"))
              [ v "r" ])
           (fun m ->
              let r = g m "r" and idx = g m "idx" and expr = g m "expr" in
              let ic = cast r.dtype idx in
              let vv = and_ (ge ic (const_int 0)) (lt ic r.src.(0)) in
              Some (where vv (P.substitute expr [ (r, valid ic vv) ]) (const_int 0))) ])

(* tinygrad: codegen/simplify.py reduce_collapse *)
let reduce_collapse ?(pm = pm_reduce_collapse) (red : Uop.t) (u : Uop.t) : Uop.t option =
  let exception Stop in
  try
    let u =
      List.fold_left (fun u (r : Uop.t) ->
          let included = toposort ~gate:(fun x -> List.memq r (ranges x)) u in
          if List.exists (fun (x : Uop.t) -> x.op == Ops.Store || x.op == Ops.Reduce) included then raise Stop;
          let inc = Tbl.create 64 in
          List.iter (fun x -> Tbl.replace inc x ()) included;
          let replaces = Tbl.create 8 and order = ref [] in
          List.iter (fun (x : Uop.t) ->
              Array.iter (fun (s : Uop.t) ->
                  if Tbl.mem inc s || Tbl.mem replaces s || List.memq s.op [ Ops.Const; Ops.Param; Ops.Buffer ] then ()
                  else begin
                    let nv = variable ~dtype:s.dtype ~param:true (Printf.sprintf "in%d" (Tbl.length replaces)) (vmin s) (vmax s) in
                    Tbl.replace replaces s nv;
                    order := (s, nv) :: !order
                  end) x.src) included;
          let order = List.rev !order in
          (* python's loop variable shadows [u]: it ends on the last included node (the root when it is included) *)
          let u = match List.rev included with last :: _ -> last | [] -> u in
          let collapse_fxn = reduce ~arg:Ops.Add (P.substitute u order) [ r ] in
          let sink = P.graph_rewrite ~name:"reduce_collapse" pm () collapse_fxn in
          if not (no_range sink) then raise Stop;
          P.substitute sink (List.map (fun (k, v) -> (v, k)) order)) u (reduce_srcs red) in
    Some u
  with Stop -> None

(* tinygrad: codegen/simplify.py reduce_load_collapse *)
let reduce_load_collapse red u = reduce_collapse ~pm:pm_reduce_load_collapse red u

(* remove REDUCE without loads (generic arange opt / indexing). *)
(* tinygrad: codegen/simplify.py pm_reduce_simplify *)
let pm_reduce_simplify : unit P.matcher =
  P.( @@@ ) pm_reduce_unparented
    (P.matcher
       [ P.rule (P.pat Ops.Reduce ~src:(P.In_order [ v "u" ]) ~allow_any_len:true ~arg:add_arg ~name:"red") (fun m ->
             reduce_collapse (g m "red") (g m "u")) ])

(* remove REDUCE on load, comes from indexing a tensor with another tensor *)
(* tinygrad: codegen/simplify.py no_load *)
let no_load (u : Uop.t) = not (List.exists (fun (x : Uop.t) -> x.op == Ops.Index) (toposort u))

(* tinygrad: codegen/simplify.py pm_load_collapse *)
let pm_load_collapse : unit P.matcher =
  P.matcher
    [ P.rule (P.pat Ops.Reduce ~arg:add_arg ~src:(P.In_order [ v "u"; P.wild ]) ~name:"red") (fun m ->
          reduce_load_collapse (g m "red") (g m "u"));
      (* we want to make sure we dont do math on a loaded index since that can cause overflow, this undoes the rule in
         pm_reduce_load_collapse *)
      P.rule P.O.(P.var ~dtype:[ Dtype.Weakint ] "x" + v "y" < v "c") (fun m ->
          let x = g m "x" and y = g m "y" and c = g m "c" in
          if no_load y && no_load c && not (no_load x) then Some (lt x (sub c y)) else None) ]
