(* tinygrad: codegen/late/coalesce.py — the index/valid simplification part ([indexing_simplify] and the
   image load valid simplification it uses).

   Only [indexing_simplify] is ported for now: [image_valid_dims], [transform_to_image],
   [pm_simplify_add_image] and [memory_coalescing] (float4 grouping of loads/stores) come with the
   kernel-opts issue, together with the Renderer they read. *)

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
