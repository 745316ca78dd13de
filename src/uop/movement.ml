(* tinygrad: uop/movement.py — pattern matchers that strictly clean up movement ops *)

open Uop
module P = Upat

let shape_equal a b = List.length a = List.length b && List.for_all2 sint_equal a b
let tail_src (u : Uop.t) = Array.to_list (Array.sub u.src 1 (Array.length u.src - 1))

let mop_cleanup : unit P.matcher =
  P.matcher
    [ (* merge adjacent RESHAPEs *)
      P.rule (P.pat Ops.Reshape ~name:"x" ~src:(P.In_order [ P.pat Ops.Reshape ~name:"x2"; P.wild ]))
        (fun m -> let x = P.get m "x" and x2 = P.get m "x2" in Some (replace x ~src:[| x2.src.(0); x.src.(1) |]));
      (* remove noop RESHAPEs *)
      P.rule (P.pat Ops.Reshape ~name:"x" ~src:(P.In_order [ P.named "x2" P.wild; P.wild ]))
        (fun m ->
           let x = P.get m "x" and x2 = P.get m "x2" in
           match shape_opt x2 with Some s when shape_equal s (shape x) -> Some x2 | _ -> None);
      (* merge PERMUTEs *)
      P.rule (P.pat Ops.Permute ~name:"x" ~src:(P.In_order [ P.pat Ops.Permute ~name:"x2" ]))
        (fun m ->
           let x = P.get m "x" and x2 = P.get m "x2" in
           match x.arg, x2.arg with
           | Ints p, Ints p2 -> Some (replace x2 ~arg:(Ints (List.map (fun i -> List.nth p2 i) p)))
           | _ -> None);
      (* remove noop PERMUTEs *)
      P.rule (P.pat Ops.Permute ~name:"x")
        (fun m ->
           let x = P.get m "x" in
           match x.arg with Ints p when p = List.init (List.length p) (fun i -> i) -> Some x.src.(0) | _ -> None);
      (* STACK on INDEX CONST *)
      P.rule
        (P.pat Ops.Stack ~name:"stk" ~src:(P.Repeat (P.pat Ops.Index ~src:(P.In_order [ P.var "src"; P.pat Ops.Const ]))))
        (fun m ->
           let src = P.get m "src" and stk = P.get m "stk" in
           let ok_idx =
             let ok = ref true in
             Array.iteri (fun i (x : Uop.t) ->
                 match const_val x.src.(1) with
                 | Dtype.I z when Z.equal z (Z.of_int i) -> ()
                 | _ -> ok := false) stk.src;
             !ok in
           match shape_opt stk, shape_opt src with
           | Some a, Some b when shape_equal a b && ok_idx -> Some src
           | _ -> None);
      (* const INDEX into STACK is src *)
      P.rule
        (P.pat Ops.Index ~name:"idx" ~allow_any_len:true ~src:(P.In_order [ P.pat Ops.Stack ~name:"a"; P.cvar "i" ]))
        (fun m ->
           let a = P.get m "a" and i = P.get m "i" and idx = P.get m "idx" in
           let e = a.src.(Z.to_int (zi (const_val i))) in
           if Array.length idx.src <= 2 then Some e
           else Some (index e (Array.to_list (Array.sub idx.src 2 (Array.length idx.src - 2)))));
      (* INDEX on INDEX is INDEX *)
      P.rule
        (P.pat Ops.Index ~name:"idx2" ~allow_any_len:true
           ~src:(P.In_order [ P.pat Ops.Index ~name:"idx1" ~allow_any_len:true ]))
        (fun m ->
           let idx1 = P.get m "idx1" and idx2 = P.get m "idx2" in
           let idxs = tail_src idx1 @ tail_src idx2 in
           if List.for_all (fun (x : Uop.t) -> match shape_opt x with Some [] -> true | _ -> false) idxs then Some (index idx1.src.(0) idxs) else None);
      (* INDEX on shaped INDEX *)
      P.rule
        (P.pat Ops.Index ~name:"idx2" ~allow_any_len:true
           ~src:(P.In_order [ P.pat Ops.Index ~src:(P.In_order [ P.var "buf"; P.var "idx1_arg" ]) ]))
        (fun m ->
           let buf = P.get m "buf" and a = P.get m "idx1_arg" and idx2 = P.get m "idx2" in
           if List.length (shape a) = List.length (tail_src idx2) then Some (index buf [ index a (tail_src idx2) ]) else None) ]
