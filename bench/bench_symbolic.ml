(* Micro-benchmark: build a ~100k-node graph of kernel-like index expressions, simplify it with [sym], and
   graph_rewrite the result a second time (every node is already at its fixed point, so this measures the engine's
   walk with no rule firing). bench/bench_symbolic.py builds the same graph (same generator) in tinygrad.
   usage: bench_symbolic.exe [N] *)

open Tinygrad.Compiler

let seed = ref 12345
let rand () =
  seed := (!seed * 1103515245 + 12345) mod 2147483648;
  !seed lsr 16

let build target =
  let vs = Array.init 8 (fun i -> Uop.variable_int ~param:true (Printf.sprintf "v%d" i) 0 (3 + (7 * i))) in
  let seen = Uop.Tbl.create 1024 in
  let exprs = ref [] in
  let c n = Uop.const_int n in
  while Uop.Tbl.length seen < target do
    (* sequence every rand () call in the same order as the Python generator *)
    let va = vs.(rand () mod 8) in
    let ca = 1 + (rand () mod 64) in
    let vb = vs.(rand () mod 8) in
    let cb = 1 + (rand () mod 8) in
    let k = rand () mod 16 in
    let e = ref Uop.O.((va * c ca) + (vb * c cb) + c k) in
    let steps = 1 + (rand () mod 4) in
    for _ = 1 to steps do
      e := (match rand () mod 4 with
          | 0 -> let d = 1 + (rand () mod 16) in Uop.O.(!e // c d)
          | 1 -> let d = 1 + (rand () mod 32) in Uop.O.(!e mod c d)
          | 2 -> let v = vs.(rand () mod 8) in Uop.O.(!e + v)
          | _ -> let m = 1 + (rand () mod 4) in Uop.O.(!e * c m))
    done;
    exprs := !e :: !exprs;
    List.iter (fun u -> Uop.Tbl.replace seen u ()) (Uop.toposort !e)
  done;
  Uop.sink (List.rev !exprs)

let time f =
  let t0 = Unix.gettimeofday () in
  let r = f () in
  (r, (Unix.gettimeofday () -. t0) *. 1e3)

let () =
  let n = if Array.length Sys.argv > 1 then int_of_string Sys.argv.(1) else 100_000 in
  let g, t_build = time (fun () -> build n) in
  let nodes = List.length (Uop.toposort g) in
  let s, t_sym = time (fun () -> Upat.graph_rewrite Symbolic.sym () g) in
  let s2, t_again = time (fun () -> Upat.graph_rewrite Symbolic.sym () s) in
  Printf.printf "ocaml:    %d nodes  build %.1f ms  sym %.1f ms  second sym %.1f ms  out nodes %d  fixed point %b\n%!"
    nodes t_build t_sym t_again (List.length (Uop.toposort s)) (s2 == s)
