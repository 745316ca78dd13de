(* Tests of the codegen pipeline pieces: linearizer, gater, memory coalescing. Expected values come from
   tinygrad 0.14.0 run on the same graphs (the venv oracle), not from the code under test. *)

open Tinygrad.Compiler
open Test_util

let f32 = Dtype.Float32
let buf slot = Uop.placeholder_param ~slot f32 8
let op_name (u : Uop.t) = Ops.name u.op

(* STORE(b0[r0*2+r1], LOAD(b1[r0*2+r1]) + 1.0) ended over r0 (4) and r1 (2) *)
let two_range_sink () =
  let r0 = Uop.range (Uop.Sint 4) 0 and r1 = Uop.range (Uop.Sint 2) 1 in
  let idx = Uop.add (Uop.mul r0 (Uop.const_int 2)) r1 in
  let st = Uop.store (Uop.index (buf 0) [ idx ])
      (Uop.add (Uop.load (Uop.index (buf 1) [ idx ]) []) (Uop.const_float ~dtype:f32 1.0)) in
  Uop.sink [ Uop.end_ st [ r0; r1 ] ]

let split sink = Upat.graph_rewrite Linearizer.pm_split_ends () sink

let tests : case list = [
  ("split_ends: innermost range ends first", fun () ->
      let ends = List.filter (fun (u : Uop.t) -> u.op == Ops.End) (Uop.toposort (split (two_range_sink ()))) in
      let ids = List.map (fun (u : Uop.t) -> match u.src.(1).arg with Uop.Range (i :: _, _) -> i | _ -> -1) ends in
      check (ids = [ 1; 0 ]) "END order: got [%s], tinygrad [1; 0]" (String.concat "; " (List.map string_of_int ids)));

  ("linearize: tinygrad's order for a two-range elementwise kernel", fun () ->
      let got = List.map op_name (Linearizer.linearize (split (two_range_sink ()))) in
      let want = [ "CONST"; "PARAM"; "PARAM"; "CONST"; "CONST"; "CONST"; "RANGE"; "RANGE"; "MUL"; "ADD"; "INDEX"; "LOAD";
                   "INDEX"; "ADD"; "STORE"; "END"; "END"; "SINK" ] in
      check_str ~what:"linearized ops" (String.concat " " want) (String.concat " " got));

  ("add_control_flow: sibling loops are ordered", fun () ->
      let ra = Uop.range (Uop.Sint 3) 0 and rb = Uop.range (Uop.Sint 5) 1 in
      let sa = Uop.end_ (Uop.store (Uop.index (buf 0) [ ra ]) (Uop.const_float ~dtype:f32 1.0)) [ ra ] in
      let sb = Uop.end_ (Uop.store (Uop.index (buf 1) [ rb ]) (Uop.const_float ~dtype:f32 2.0)) [ rb ] in
      let s = Uop.sink [ sa; sb ] in
      let s = Upat.graph_rewrite ~bottom_up:true Linearizer.pm_add_control_flow (Linearizer.cfg_context s) s in
      let rngs = List.filter_map (fun (u : Uop.t) -> match u.op, u.arg with
          | Ops.Range, Uop.Range (i :: _, _) -> Some (i, Array.length u.src) | _ -> None) (Uop.toposort s) in
      check (rngs = [ (0, 1); (1, 2) ]) "range 1 should get range 0's END as an extra source");

  ("move_gates_from_index: Invalid-gated load becomes a gated load with 0 alt", fun () ->
      let g = Uop.range (Uop.Sint 8) 0 in
      let gate = Uop.lt g (Uop.const_int 4) in
      let ld = Uop.load (Uop.index (buf 1) [ Uop.where gate g (Uop.invalid ()) ]) [] in
      let out = Upat.graph_rewrite Gater.pm_move_gates_from_index () ld in
      check (out.op == Ops.Load && Array.length out.src = 3) "expected LOAD(idx, alt, gate), got %s" (op_name out);
      check (out.src.(0).src.(1) == g) "index should be the bare range";
      check (out.src.(2) == gate) "gate should be the CMPLT";
      check (Uop.is_const out.src.(1) && Dtype.compare_const (Uop.const_val out.src.(1)) (Dtype.F 0.0) = 0) "alt should be 0.0");

  ("memory_coalescing: four consecutive float loads become one SHRINK load", fun () ->
      let r = Uop.range (Uop.Sint 2) 0 in
      let base = Uop.mul r (Uop.const_int 4) in
      let lds = List.init 4 (fun i -> Uop.load (Uop.index (buf 1) [ Uop.add base (Uop.const_int i) ]) []) in
      let v = List.fold_left Uop.add (List.hd lds) (List.tl lds) in
      let s = Uop.sink [ Uop.end_ (Uop.store (Uop.index (buf 0) [ r ]) v) [ r ] ] in
      let out = Coalesce.memory_coalescing ~supports_float4:true s in
      let shrinks = List.filter (fun (u : Uop.t) -> u.op == Ops.Shrink) (Uop.toposort out) in
      check (List.length shrinks = 1) "expected one SHRINK, got %d" (List.length shrinks);
      check (Uop.to_int (List.hd shrinks).src.(2) = 4) "SHRINK length should be 4");
]
