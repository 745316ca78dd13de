(* Schedule-speed micro-benchmark (issue 4, acceptance 3: under 1 s): build a graph of 2,000 chained
   elementwise/reduce tensor ops on a realized (64, 64) input and schedule it (Callify.transform_to_call, then
   Schedule.create_linear_with_vars, as tinygrad's Tensor.schedule_linear), with nothing executed.
   bench/bench_schedule.py builds the same graph in tinygrad for comparison. *)

open Tinygrad.Compiler
module T = Tinygrad.Tensor

let n_ops = 2000

(* op i: +1.0, *0.5, sqrt, sum(axis=1, keepdim) (a reduce), + y (broadcast back to (64, 64)) *)
let build y =
  let x = ref y in
  for i = 0 to n_ops - 1 do
    x := (match i mod 5 with
        | 0 -> T.add !x (T.scalar 1.0)
        | 1 -> T.mul !x (T.scalar 0.5)
        | 2 -> T.sqrt !x
        | 3 -> T.sum ~axis:[ 1 ] ~keepdim:true !x
        | _ -> T.add !x y)
  done;
  !x

let now () = float_of_int (Helpers.perf_counter_ns ()) *. 1e-9

let () =
  let y = T.realize (T.of_float_array [| 64; 64 |] (Array.init (64 * 64) float_of_int)) in
  let t0 = now () in
  let x = build y in
  let t1 = now () in
  let sink, _becomes = Callify.transform_to_call (Uop.sink [ T.uop x ]) in
  let tc = now () in
  let linear, _var_vals = Schedule.create_linear_with_vars sink in
  let t2 = now () in
  Printf.printf "ocaml bench_schedule: %d ops, build %8.1f ms, schedule %8.1f ms (callify %.1f ms, create_linear_with_vars %.1f ms), total %.3f s, %d calls in the LINEAR%s\n"
    n_ops ((t1 -. t0) *. 1e3) ((t2 -. t1) *. 1e3) ((tc -. t1) *. 1e3) ((t2 -. tc) *. 1e3) (t2 -. t0) (Array.length linear.Uop.src)
    (if t2 -. t0 < 1.0 then "" else "  (target < 1 s)")
