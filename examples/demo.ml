(* make demo: build a small kernel-style index expression, simplify it with tinygrad's symbolic rules, print it.
   The graph is the index math rangeify produces for reading a (4, 8) buffer through a reshape to (32,) and back. *)

open Tinygrad.Compiler

let () =
  let gidx = Uop.range (Uop.Sint 4) 0 ~axis_type:Uop.Global in
  let lidx = Uop.range (Uop.Sint 8) 1 ~axis_type:Uop.Local in
  let n = Uop.variable_int ~param:true "n" 1 16 in
  let open Uop.O in
  (* flat index, then split again: ((g*8+l)//8, (g*8+l)%8), plus a term that folds away *)
  let flat = (gidx * i 8) + lidx in
  let idx = ((flat // i 8) * i 8) + (flat mod i 8) + ((n * i 4) mod i 2) in
  let valid = (flat < i 32) land (lidx >= i 0) in
  let e = Uop.where valid idx (Uop.const_like idx Dtype.Invalid) in
  Printf.printf "before: %d nodes\n%s\n\n" (List.length (Uop.toposort e)) (Render.render ~simplify:false e);
  let s = Upat.graph_rewrite Symbolic.sym () e in
  Printf.printf "after sym: %d nodes\n%s\n\n" (List.length (Uop.toposort s)) (Render.render ~simplify:false s);
  Printf.printf "vmin=%s vmax=%s\n\n" (Dtype.const_to_string (Uop.vmin s)) (Dtype.const_to_string (Uop.vmax s));
  print_endline (Uop.pretty_print s)
