(* tinygrad: codegen/late/gater.py — move the gate of an Invalid-gated INDEX onto the LOAD/STORE.
   this is a temporary intermediate step while tinygrad removes this index style *)

open Uop

(* tinygrad: UOp.vconst_like — a const broadcast to the node's element count (after movement ops are gone) *)
let vconst_like (u : Uop.t) (b : Dtype.const) = broadcast (const ~dtype:u.dtype b) (Z.to_int (Weak.max_numel u))

let zero = Dtype.I Z.zero

(* tinygrad: move_where_load — a WHERE around a gated load becomes the load's alt value *)
let move_where_load c =
  let l = Upat.get c "l" and a = Upat.get c "a" and w = Upat.get c "w" in
  let alt =
    if is_invalid a then vconst_like l zero
    else if a.op == Ops.Const then const_like l (const_val a)
    else if a.op == Ops.Cast && a.src.(0).dtype == l.dtype then a.src.(0)
    else cast l.dtype a in
  Some (cast w.dtype (Uop.replace ~src:[| l.src.(0); alt; l.src.(2) |] l))

let inv = Upat.make ~arg:(Const Dtype.Invalid) ()

(* tinygrad: pm_move_gates_from_index *)
let pm_move_gates_from_index : unit Upat.matcher =
  let open Upat in
  let gated n = where (var "gate") (var n) inv in
  let mop_gated = make ~op:[ Ops.Index; Ops.Shrink ] ~src:(In_order [ wild; where (var "gate") (var "idx") inv ])
      ~name:"mop" ~allow_any_len:true () in
  let move_mop c = let mop = get c "mop" in
    Uop.replace ~src:(Array.concat [ [| mop.src.(0); get c "idx" |]; Array.sub mop.src 2 (Array.length mop.src - 2) ]) mop in
  matcher [
    (* for image idx (must be first) *)
    rule (load ~name:"l" (index (var "buf") [ gated "idx_y"; gated "idx_x" ]) []) (fun c ->
        let l = get c "l" in
        Some (Uop.load (Uop.index (get c "buf") [ get c "idx_y"; get c "idx_x" ]) [ vconst_like l zero; get c "gate" ]));
    rule (store (index (var "buf") [ gated "idx_y"; gated "idx_x" ]) [ var "data" ]) (fun c ->
        Some (Uop.store ~gate:(get c "gate") (Uop.index (get c "buf") [ get c "idx_y"; get c "idx_x" ]) (get c "data")));
    (* here we create the alt value for load to be 0s and remove the where Invalid *)
    rule (load ~name:"l" mop_gated []) (fun c ->
        Some (Uop.load (move_mop c) [ vconst_like (get c "l") zero; get c "gate" ]));
    rule (store mop_gated [ var "data" ]) (fun c -> Some (Uop.store ~gate:(get c "gate") (move_mop c) (get c "data")));
    (* Where after gated load becomes alt value *)
    rule (named "w" (where (var "gate") (or_casted (load ~name:"l" wild [ wild; var ~dtype:[ Dtype.Bool ] "gate" ]))
                       (var "a"))) move_where_load;
    rule (named "w" (where (var "gate") (var "a")
                       (or_casted (load ~name:"l" wild [ wild; logical_not (var ~dtype:[ Dtype.Bool ] "gate") ]))))
      move_where_load;
  ]
