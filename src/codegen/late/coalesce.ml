(* tinygrad: codegen/late/coalesce.py — the index/valid simplification part ([indexing_simplify] and the
   image load valid simplification it uses) first; [pm_simplify_add_image] and [memory_coalescing] at the end.

   [image_valid_dims] and [transform_to_image] (IMAGE on QCOM/CL devices) are not ported: no such device is. *)

open Uop
module P = Upat

(* tinygrad: helpers.py is_image_shape — three dims, the last one the constant 4 (a symbolic last dim
   compares unequal to 4 in Python) *)
let is_image_shape (shape : sint list option) =
  match shape with Some [ _; _; Sint 4 ] -> true | _ -> false

(* an image dim as a number; image shapes come from [shape_to_shape_arg] of Python ints *)
let image_dim (s : sint) : Z.t =
  match s with
  | Sint n -> Z.of_int n
  | Suop u -> zi (vmax u)

(* Python's [a >= b] / [a < b] on a UOp bound and an int *)
let ge_z (c : Dtype.const) (z : Z.t) = Dtype.compare_const c (Dtype.I z) >= 0
let lt_z (c : Dtype.const) (z : Z.t) = Dtype.compare_const c (Dtype.I z) < 0

(* ***** image load valid simplification ***** *)

(* tinygrad: coalesce.py _drop_valid_stmts — the statements of [valid] that can be dropped because [idx]
   (a STACK of the x and y coordinates) is out of the (height, width) image whenever they are False.
   tinygrad memoises it with functools.cache; the result depends only on the (hash-consed) arguments. *)
let drop_valid_stmts (valid : Uop.t) (idx : Uop.t) (height : Z.t) (width : Z.t) : Uop.t list =
  (* can drop valid if idx is out of bound when valid is False *)
  let drop_stmt = ref [] in
  List.iteri (fun i stmt ->
      match Symbolic.parse_valid stmt with
      | None -> ()
      | Some (x, is_upper_bound, c) ->
        let terms = split_uop x Ops.Add in
        (* for X0 + X1 + ... >= 1, check if it's out of bound when Xi = 0 for all i *)
        let simplex_out =
          (not is_upper_bound) && Z.equal c Z.one
          && List.for_all (fun (u : Uop.t) ->
              Ops.Group.is_irreducible u.op && Dtype.compare_const (vmin u) (Dtype.I Z.zero) = 0) terms
          && begin
            let testidx = List.fold_left (fun nowidx (u : Uop.t) ->
                P.substitute nowidx [ (u, const_like u (Dtype.I Z.zero)) ]) idx terms in
            lt_z (vmax (index testidx [ const_int 0 ])) Z.zero || lt_z (vmax (index testidx [ const_int 1 ])) Z.zero
          end in
        if simplex_out then drop_stmt := !drop_stmt @ [ stmt ]
        else begin
          (* check if idx is out of bound when X is on the wrong side of the bound: X in [c+1, vmax] or [vmin, c-1] *)
          let lo, hi = if is_upper_bound then (Z.succ c, zi (vmax x)) else (zi (vmin x), Z.pred c) in
          if Z.leq lo hi then begin
            let fake = variable ~dtype:x.dtype ~param:true (Printf.sprintf "fake%d" i) (Dtype.I lo) (Dtype.I hi) in
            let subs = [ [ (x, fake) ] ] in
            (* idx may not have X itself, so also substitute a term of X: v -> fake - (X - v) *)
            let v = List.find_opt (fun (u : Uop.t) -> Ops.Group.is_irreducible u.op && u.op != Ops.Const) terms in
            let subs =
              match v with
              | Some v ->
                (match List.filter (fun u -> u != v) terms with
                 | [] -> subs
                 | r :: rest -> subs @ [ [ (v, sub fake (usum ~start:r rest)) ] ])
              | None -> subs in
            let coords = List.combine (Array.to_list idx.src) [ width; height ] in
            if List.exists (fun s ->
                List.exists (fun (coord, b) ->
                    let testidx = P.graph_rewrite Symbolic.sym () (P.substitute coord s) in
                    ge_z (vmin testidx) b || lt_z (vmax testidx) Z.zero) coords) subs
            then drop_stmt := !drop_stmt @ [ stmt ]
          end
        end) (split_uop valid Ops.And);
  !drop_stmt

(* tinygrad: coalesce.py simplify_valid_load *)
let simplify_valid_load (buf : Uop.t) (start_idx : Uop.t) (valid : Uop.t) : Uop.t option =
  let idx = Symbolic.uop_given_valid valid start_idx in
  if idx == start_idx || idx == simplify start_idx then None else Some (index buf [ Uop.valid idx valid ])

(* tinygrad: coalesce.py simplify_valid_image_load *)
let simplify_valid_image_load (buf : Uop.t) (idx_y : Uop.t) (idx_x : Uop.t) (valid : Uop.t) : Uop.t option =
  let shape = shape_opt buf in
  if not (is_image_shape shape) then None
  else begin
    let height, width = match shape with Some (h :: w :: _) -> (image_dim h, image_dim w) | _ -> assert false in
    let idx_x, idx_y =
      if not (Dtype.equal idx_x.dtype idx_y.dtype) then (cast Dtype.Int32 idx_x, cast Dtype.Int32 idx_y) else (idx_x, idx_y) in
    (* [idx_x.stack(idx_y)]: both have the same dtype here, so the STACK needs no casts *)
    let start_idx = stack [ idx_x; idx_y ] in
    let idx = Symbolic.uop_given_valid valid start_idx in
    let drop_stmt = drop_valid_stmts valid idx height width in
    if (match drop_stmt with [] -> true | _ -> false) && idx == start_idx then None
    else begin
      let ss = List.filter (fun s -> not (List.memq s drop_stmt)) (split_uop valid Ops.And) in
      let new_valid = match ss with [] -> None | h :: t -> Some (uprod ~start:h t) in
      let idx_y, idx_x = (index idx [ const_int 1 ], index idx [ const_int 0 ]) in
      match new_valid with
      | Some nv -> Some (index buf [ Uop.valid idx_y nv; Uop.valid idx_x nv ])
      | None -> Some (index buf [ idx_y; idx_x ])
    end
  end

(* tinygrad: symbolic.py invalid_pat / invalid_gate *)
let invalid_pat = P.pat Ops.Const ~arg:(Const Dtype.Invalid) ~name:"i"
let invalid_gate = P.where (P.var "cond") (P.var "x") invalid_pat

(* tinygrad: coalesce.py indexing_simplify *)
let indexing_simplify : unit P.matcher =
  let invalid_arg_pat = P.make ~arg:(Const Dtype.Invalid) () in
  P.matcher
    [ (* image load valid idx simplification *)
      P.rule (P.pat Ops.Index ~src:(P.In_order [ P.var "buf"; invalid_gate ]))
        (fun m -> simplify_valid_load (P.get m "buf") (P.get m "x") (P.get m "cond"));
      P.rule
        (P.pat Ops.Index
           ~src:(P.In_order [ P.var "buf"; P.where (P.var "valid") (P.var "idx_y") invalid_arg_pat;
                              P.where (P.var "valid") (P.var "idx_x") invalid_arg_pat ]))
        (fun m -> simplify_valid_image_load (P.get m "buf") (P.get m "idx_y") (P.get m "idx_x") (P.get m "valid")) ]

(* ========== pm_simplify_add_image and memory_coalescing ========== *)

(* tinygrad: coalesce.py pm_simplify_add_image. [transform_to_image] (the first rule) only fires with IMAGE on
   QCOM/CL devices; it is not ported and never fires here. *)
let pm_simplify_add_image : unit P.matcher =
  let idx_f = P.pat Ops.Index ~dtype:[ Dtype.Float32 ] ~name:"x" in
  P.matcher
    [ (* image load/store is always float *)
      P.rule (P.make ~op:[ Ops.Load ] ~dtype:[ Dtype.Float16 ] ~src:(P.In_order [ idx_f ]) ())
        (fun m -> Some (cast Dtype.Float16 (load (P.get m "x") [])));
      P.rule (P.store idx_f [ P.var ~dtype:[ Dtype.Float16 ] "d" ])
        (fun m -> Some (store (P.get m "x") (cast Dtype.Float32 (P.get m "d"))));
      P.rule (P.cast ~dtype:Dtype.Float32 (P.cast ~dtype:Dtype.Float16 (P.var ~dtype:[ Dtype.Float32 ] "x")))
        (fun m -> Some (P.get m "x")) ]

(* the runs of consecutive offsets among [offsets] (sorted), and the loads at an offset *)
let consecutive_runs (offsets : (Z.t * 'a) list) =
  List.fold_left (fun acc k ->
      match acc with
      | (last :: _ as g) :: rest when Z.equal k (Z.succ last) -> (k :: g) :: rest
      | _ -> [ k ] :: acc) [] (List.sort Z.compare (List.map fst offsets)) |> List.rev_map List.rev

let at_offset (offsets : (Z.t * 'a list ref) list) g = !(snd (List.find (fun (k, _) -> Z.equal k g) offsets))

(* a memory group key: (op, buf, root, valid); root is a UOp or one of tinygrad's "INVALID"/"CONST" strings *)
type root_src = Root of Uop.t | Root_invalid | Root_const
(* not in tinygrad: how a CPU mode changes memory_coalescing (Coalesce_cpu.policy); tinygrad's without one *)
type policy = {
  lane_gated : Uop.t -> Uop.t -> Uop.t -> Uop.t -> Uop.t option;
  coalesces_reg : Uop.t -> bool;
  lengths : Uop.t -> int list option;
  gated_lengths : Uop.t -> int list option;
  lane_gated_loads : Uop.t -> root_src -> (Z.t * Uop.t list ref) list -> (Uop.t * Uop.t) list;
}

(* tinygrad: coalesce.py memory_coalescing — group loads/stores of consecutive offsets from one base into
   vector (SHRINK) accesses. [device] and [supports_float4] are the renderer's fields tinygrad reads. *)
let memory_coalescing ?(device = "") ?policy ~supports_float4 (sink : Uop.t) : Uop.t =
  if Helpers.dmc.value <> 0 then sink
  else begin
    (* collect, in first-seen order *)
    let memory : ((Ops.t * Uop.t * root_src * Uop.t option) * (Z.t * Uop.t list ref) list ref) list ref = ref [] in
    let same_root a b = match a, b with
      | Root x, Root y -> x == y | Root_invalid, Root_invalid | Root_const, Root_const -> true | _ -> false in
    let same_valid a b = match a, b with Some x, Some y -> x == y | None, None -> true | _ -> false in
    (* the lengths a policy gives a buffer's groups, which may start at any offset *)
    let policy_lengths buf = Option.bind policy (fun p -> p.lengths buf) in
    List.iter (fun u ->
        if u.op == Ops.Load || u.op == Ops.Store then begin
          if Array.length u.src <> (if u.op == Ops.Store then 2 else 1) then
            failwith "memory coalescing does not support gated loads/stores";
          if u.src.(0).op != Ops.Index then
            failwith ("memory coalescing should be on INDEX, not " ^ Ops.to_string u.src.(0).op);
          let buf = u.src.(0).src.(0) and idx_u = u.src.(0).src.(1) in
          if addrspace buf <> Some Dtype.Reg || Option.fold ~none:false ~some:(fun p -> p.coalesces_reg buf) policy
          then begin
            let idx = get_idx idx_u and valid = get_valid idx_u in
            let lane_gated = Option.bind policy (fun p -> p.lane_gated u buf valid idx) in
            let idx = Option.value ~default:idx lane_gated in
            let valid = if lane_gated <> None then None else Some valid in
            let root, arg =
              if idx.op == Ops.Add && idx.src.(1).op == Ops.Const then (Root idx.src.(0), zi (const_val idx.src.(1)))
              else if idx.op == Ops.Add && idx.src.(0).op == Ops.Const then (Root idx.src.(1), zi (const_val idx.src.(0)))
              else if is_invalid idx then (Root_invalid, Z.zero)
              else if idx.op == Ops.Const then (Root_const, zi (const_val idx))
              else (Root idx, Z.zero) in
            let offsets =
              match List.find_opt (fun ((o, b, r, v), _) -> o == u.op && b == buf && same_root r root && same_valid v valid) !memory with
              | Some (_, l) -> l
              | None -> let l = ref [] in memory := !memory @ [ ((u.op, buf, root, valid), l) ]; l in
            match List.find_opt (fun (k, _) -> Z.equal k arg) !offsets with
            | Some (_, l) -> l := !l @ [ u ]
            | None -> offsets := !offsets @ [ (arg, ref [ u ]) ]
          end
        end) (toposort sink);
    (* build replacements *)
    let replacements = ref [] in
    List.iter (fun ((op, buf, base, valid), offsets) ->
        match valid, policy with
        | None, Some p -> replacements := List.rev_append (p.lane_gated_loads buf base !offsets) !replacements
        | None, None -> invalid_arg "memory_coalescing: a lane-gated group without a policy"
        | Some valid, _ ->
        (* allowed lengths *)
        let bshape = shape_opt buf in
        let lengths, must_divide =
          if device = "DSP" then ([ 128; 64; 32; 16; 8; 4 ], false)
          else if not (List.memq buf.dtype (Dtype.[ Float32; Float16; Int32; Uint32 ] @ Dtype.fp8s))
               && not (is_image_shape bshape) then
            (* not in tinygrad: a policy may group the gated loads of other dtypes *)
            (match Option.bind policy (fun p -> p.gated_lengths buf) with
             | Some l when valid.op != Ops.Const -> (l, false)
             | _ -> ([], true))
          else if addrspace buf = Some Dtype.Reg then
            (match policy_lengths buf with Some l -> (l, false) | None -> ([], true))
          else if is_image_shape bshape then ([ 4 ], true)
          else if supports_float4 then
            (match policy_lengths buf with
             | Some l -> (l, false)
             | None -> ((if buf.dtype == Dtype.Float16 && Helpers.allow_half8.value <> 0 then [ 8; 4; 2 ] else [ 4; 2 ]), true))
          else ([], true) in
        let lengths = lengths @ [ 1 ] in  (* worst case, it's not folded *)
        (* group consecutive offsets *)
        let groups = consecutive_runs !offsets in
        let find = at_offset !offsets in
        List.iter (fun full_grp ->
            let full_grp = ref full_grp in
            while !full_grp <> [] do
              let first = List.hd !full_grp in
              let offset = match base with
                | Root b -> add b (const_int (Z.to_int first))
                | Root_invalid | Root_const -> const_int (Z.to_int first) in
              let n = List.length !full_grp in
              let length = List.find (fun l -> l <= n && ((not must_divide) || divides offset (Z.of_int l) <> None)) lengths in
              let grp = List.filteri (fun i _ -> i < length) !full_grp in
              (* NOTE: we apply the valid again after we determine the length *)
              let offset = Uop.valid offset valid in
              let len = List.length grp in
              let idx = if len > 1 then create Ops.Shrink ~src:[| buf; offset; const_int len |] else index buf [ offset ] in
              if op == Ops.Store then begin
                let datas = List.map (fun g ->
                    match find g with
                    | [ s ] -> s.src.(1)
                    | l -> failwith (Printf.sprintf "attempting multiple stores: %d" (List.length l))) grp in
                let st = store idx (match datas with [ d ] -> d | _ -> stack datas) in
                List.iter (fun g -> replacements := (List.hd (find g), st) :: !replacements) grp
              end else begin
                let ld = load idx [] in
                List.iteri (fun i g ->
                    List.iter (fun oo -> replacements := (oo, if len > 1 then index ld [ const_int i ] else ld) :: !replacements)
                      (find g)) grp
              end;
              full_grp := List.filteri (fun i _ -> i >= length) !full_grp
            done) groups) !memory;
    (* apply *)
    Upat.substitute sink (List.rev !replacements)
  end
