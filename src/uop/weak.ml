(* tinygrad: uop/weak.py — committing the weak dtypes (weakint/weakfloat) of Python literals to concrete
   widths: at a CAST that states the width, at a STORE's destination, or at the index-lowering defaults. *)

open Uop
module P = Upat

let weaks = [ Dtype.Weakint; Dtype.Weakfloat ]
let is_weak (u : Uop.t) = Dtype.is_weak u.dtype

(* tinygrad: weak.py default_dtype *)
let default_dtype (u : Uop.t) : Dtype.t =
  if u.dtype == Dtype.Weakfloat then Dtype.default_float ()
  else if overflows u Dtype.Int32 then Dtype.Int64
  else Dtype.Int32

(* tinygrad: weak.py commit_weak — a CONST commits directly at dt, a non-const src takes the cast *)
let commit_weak (s : Uop.t) (dt : Dtype.t) : Uop.t =
  if s.op == Ops.Const then const ~dtype:dt (const_val s) else cast dt s

(* tinygrad: weak.py commit_srcs_at — the root re-derives its dtype *)
let commit_srcs_at (u : Uop.t) (dt : Dtype.t) : Uop.t =
  create u.op ~src:(Array.map (fun s -> if is_weak s then commit_weak s dt else s) u.src) ~arg:u.arg ~tag:u.tag

(* tinygrad: weak.py commit_weak_srcs *)
let commit_weak_srcs (u : Uop.t) : Uop.t option =
  if not (Array.exists is_weak u.src) then None
  else
    let dt = Dtype.least_upper_dtype (Array.to_list (Array.map (fun (s : Uop.t) -> s.dtype) u.src)) in
    if Dtype.is_weak dt then None else Some (commit_srcs_at u dt)

(* tinygrad: weak.py cast_weak_srcs — a concrete CAST over a weak node states a floor for its width *)
let cast_weak_srcs (c : Uop.t) (u : Uop.t) : Uop.t option =
  if Dtype.is_weak c.dtype || Dtype.weak_dtype c.dtype != u.dtype then None
  else Some (cast c.dtype (commit_srcs_at u (Dtype.least_upper_dtype [ c.dtype; default_dtype u ])))

let pm_cast_weak : unit P.matcher =
  P.matcher
    [ P.rule (P.pat Ops.Cast ~name:"c" ~src:(P.In_order [ P.ops Ops.Group.alu ~dtype:weaks ~name:"u" ]))
        (fun m -> cast_weak_srcs (P.get m "c") (P.get m "u"));
      P.rule (P.pat Ops.Cast ~name:"c" ~src:(P.In_order [ P.pat Ops.Const ~dtype:weaks ~name:"u" ]))
        (fun m -> Some (commit_weak (P.get m "u") (P.get m "c").dtype)) ]

let pm_commit_weak : unit P.matcher =
  P.matcher
    [ P.rule (P.ops Ops.Group.broadcastable ~name:"u") (fun m -> commit_weak_srcs (P.get m "u"));
      (* demand from the destination: a STORE's weak value commits at the destination's dtype *)
      P.rule (P.pat Ops.Store ~src:(P.In_order [ P.wild; P.make ~dtype:weaks () ]) ~allow_any_len:true ~name:"u")
        (fun m ->
           let u = P.get m "u" in
           let src = Array.copy u.src in
           src.(1) <- commit_weak u.src.(1) u.src.(0).dtype;
           Some (replace u ~src)) ]

(* tinygrad: weak.py _lower_weak_ops / lower_weak_node *)
let lower_weak_ops = Ops.Group.binary @ Ops.Group.unary @ [ Ops.Where; Ops.Range; Ops.Stack; Ops.Special ]

let lower_weak_node (u : Uop.t) : Uop.t option =
  let src = Array.map (fun (s : Uop.t) -> if s.op == Ops.Cast && is_weak s then s.src.(0) else s) u.src in
  let start = if u.op == Ops.Where then 1 else 0 in
  let same = Array.length src = Array.length u.src && Array.for_all2 ( == ) src u.src in
  let rest = Array.sub src start (Array.length src - start) in
  if same || Array.exists is_weak rest then None
  else
    let dt =
      Dtype.strong_dtype
        (if Ops.Group.is_binary u.op then
           Dtype.least_upper_dtype (default_dtype u :: Array.to_list (Array.map (fun (s : Uop.t) -> s.dtype) src))
         else match dtype_from_uop u.op src u.arg with
           | Some d -> d
           | None -> invalid_arg ("lower_weak_node: no dtype for " ^ Ops.to_string u.op)) in
    let nsrc = Array.mapi (fun i s -> if i < start || is_invalid (base s) then s else commit_weak s dt) src in
    Some (cast u.dtype (create u.op ~src:nsrc ~arg:u.arg ~tag:u.tag))

let pm_lower_weak : unit P.matcher =
  P.matcher
    [ P.rule (P.pat Ops.Const ~dtype:weaks ~name:"u")
        (fun m -> let u = P.get m "u" in Some (cast u.dtype (const ~dtype:(default_dtype u) (const_val u))));
      (* two stacked weak casts are two kind conversions: each resolves at its own kind's default *)
      P.rule
        (P.pat Ops.Cast ~dtype:weaks ~name:"u"
           ~src:(P.In_order [ P.pat Ops.Cast ~dtype:weaks ~src:(P.In_order [ P.var "x" ]) ]))
        (fun m ->
           let u = P.get m "u" and x = P.get m "x" in
           if is_weak x then None
           else Some (cast u.dtype (cast (default_dtype u) (cast (default_dtype u.src.(0)) x))));
      P.rule (P.ops [ Ops.Param; Ops.Buffer ] ~dtype:[ Dtype.Weakint ] ~name:"u")
        (fun m ->
           let u = P.get m "u" in
           match u.arg with
           | Param p when p.addrspace = Some Dtype.Alu ->
             let arg = Param { p with pdtype = default_dtype u } in
             Some (cast Dtype.Weakint (create u.op ~src:u.src ~arg ~tag:u.tag))
           | _ -> None);
      P.rule (P.ops lower_weak_ops ~name:"u") (fun m -> lower_weak_node (P.get m "u")) ]

(* tinygrad's ctx of lower_weak_srcs, the lowered weak sources ([lowered]); not in tinygrad, [known]: the
   [pm_lower_weak] results of every node met by the rewrites of earlier sources. The sources of a kernel's
   consumers share most of their graphs (each lane's index, its ranges and offsets), and [pm_lower_weak] is a
   pure top-down rewrite, so one source's rewrite finishes at once the nodes an earlier one rewrote *)
type lower_ctx = { lowered : Uop.t Tbl.t; known : Uop.t Id_tbl.t }

let lower_ctx () = { lowered = Tbl.create 64; known = Id_tbl.create 1024 }

(* tinygrad: weak.py lower_weak_srcs — each consumer lowers its weak sources and absorbs the cast on its edge *)
let lower_weak_srcs (ctx : lower_ctx) (u : Uop.t) : Uop.t option =
  let lower s =
    match Tbl.find_opt ctx.lowered s with
    | Some r -> r
    | None ->
      let r = P.graph_rewrite ~known:ctx.known pm_lower_weak () s in
      let r = if r.op == Ops.Cast && is_weak r then r.src.(0) else r in
      Tbl.replace ctx.lowered s r;
      r in
  let ret =
    if Ops.Group.is_comparison u.op then lower u
    else replace u ~src:(Array.map (fun s -> if is_weak s then lower s else s) u.src) in
  if ret == u then None else Some ret

(* the largest element count of a buffer, tinygrad's max_numel *)
let max_numel (u : Uop.t) : Z.t =
  List.fold_left (fun acc s -> match s with
      | Sint i -> Z.mul acc (Z.of_int i)
      | Suop x -> Z.mul acc (zi (vmax x))) Z.one (shape u)

let pm_lower_index_dtype : lower_ctx P.matcher =
  P.(lift pm_commit_weak @@@ lift pm_cast_weak)
  |> fun pm ->
  P.( @@@ ) pm
    (P.matcher
       [ P.rule_ctx (P.ops Ops.Group.all ~name:"u")
           (fun ctx m ->
              let u = P.get m "u" in
              if (not (is_weak u)) && Array.exists is_weak u.src then lower_weak_srcs ctx u else None);
         (* a valid index into an n-element buffer lives in [0,n): a gated long index narrows when n-1 fits int32 *)
         P.rule
           (P.ops [ Ops.Index; Ops.Shrink ] ~allow_any_len:true ~name:"u"
              ~src:(P.In_order [ P.var "buf";
                                 P.where (P.var "gate") (P.var ~dtype:[ Dtype.Int64 ] "idx")
                                   (P.pat Ops.Const ~arg:(Const Dtype.Invalid)) ]))
           (fun m ->
              let u = P.get m "u" and buf = P.get m "buf" and gate = P.get m "gate" and idx = P.get m "idx" in
              if Z.leq (Z.pred (max_numel buf)) (zi (Dtype.max Dtype.Int32)) then begin
                let src = Array.copy u.src in
                src.(0) <- buf;
                src.(1) <- valid (cast Dtype.Int32 idx) gate;
                Some (replace u ~src)
              end else None) ])
