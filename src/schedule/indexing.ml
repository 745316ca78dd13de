(* tinygrad: schedule/indexing.py — the definition of the movement ops on index ranges (apply_movement_op).
   Only what the kernel pipeline (rangeify.py pm_mops) uses is ported here; run_rangeify and the IndexingContext
   come with the scheduler (issue 4). *)

open Uop
module P = Upat

(* the movement-op argument, as [Uop.marg] returns it *)
type marg = [ `Shape of sint list | `Pairs of (sint * sint) list | `Perm of int list | `Flip of bool list ]

(* tinygrad: UOp.ufix — a python number becomes a (weak) CONST *)
let ufix = sint_to_uop ~dtype:Dtype.Weakint

(* symbolic+pm_simplify_valid+pm_drop_and_clauses, built once *)
let reshape_pm = lazy P.(Symbolic.symbolic @@@ Symbolic.pm_simplify_valid @@@ Symbolic.pm_drop_and_clauses)
let pad_pm = lazy P.(Symbolic.symbolic @@@ Symbolic.pm_simplify_valid)

(* tinygrad: schedule/indexing.py _apply_reshape (uncached: results are hash-consed anyway) *)
let apply_reshape (in_shape : sint list) (out_shape : sint list) (urngs : Uop.t) : Uop.t =
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

(* python argsort *)
let argsort (l : int list) =
  List.map fst (List.stable_sort (fun (_, a) (_, b) -> compare a b) (List.mapi (fun i x -> (i, x)) l))

(* this is the definition of the movement ops *)
(* tinygrad: schedule/indexing.py apply_movement_op *)
let apply_movement_op (op : Ops.t) (in_shape : sint list) (arg : marg) (rngs : Uop.t list) : Uop.t list =
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
