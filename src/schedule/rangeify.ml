(* tinygrad: schedule/rangeify.py — for now only [pm_mops] (movement ops on INDEX), which the kernel pipeline uses.
   The scheduler part of rangeify.py (bufferize, kernel splitting, ...) comes with issue 4. *)

open Uop
module P = Upat

(* tinygrad: UOp.index(srcs..., arg=...) *)
let index_with_arg (u : Uop.t) (idxs : Uop.t list) (arg : arg) =
  match idxs with
  | [ i ] when u.op == Ops.Stack && i.op == Ops.Const -> u.src.(Z.to_int (zi (const_val i)))
  | _ -> create Ops.Index ~src:(Array.of_list (u :: idxs)) ~arg

let rec drop n l = if n <= 0 then l else match l with [] -> [] | _ :: t -> drop (n - 1) t
let rec take n l = if n <= 0 then [] else match l with [] -> [] | x :: t -> x :: take (n - 1) t

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
