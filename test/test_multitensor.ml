(* tinygrad's test/test_multitensor.py (v0.14.0), ported on CPU:0..3: sharded and replicated tensors compute the
   values a single device computes (numpy-free: the oracle is the same program on one device, whose ops are checked
   against tinygrad by the op suites, or values written by hand). *)

open Tinygrad.Compiler
open Test_util
module T = Tensor

let d0 = "CPU" and d1 = "CPU:1" and d2 = "CPU:2" and d3 = "CPU:3"
let devices_2 = [ d0; d1 ]
let devices_3 = [ d0; d1; d2 ]
let devices_4 = [ d0; d1; d2; d3 ]

let close ?(atol = 1e-5) ?(rtol = 1e-5) ~what (expected : float array) (got : float array) =
  check_int ~what:(what ^ " length") (Array.length expected) (Array.length got);
  Array.iteri (fun i e ->
      if Float.abs (e -. got.(i)) > atol +. (rtol *. Float.abs e) then fail "%s[%d]: expected %g, got %g" what i e got.(i))
    expected

let arange n = T.of_float_array [| n |] (Array.init n float_of_int)

let tests : case list = [
  ("shard_replicated", fun () ->
      let x = T.realize (arange 8) in
      let s = T.shard x devices_2 in
      check_eq ~pp:(String.concat ",") ~eq:( = ) ~what:"devices" devices_2 (T.devices s);
      close ~what:"replicated" (Array.init 8 float_of_int) (T.to_float_array s));
  ("shard_axis0", fun () ->
      let x = T.reshape (arange 16) [| 4; 4 |] in
      let s = T.shard ~axis:0 x devices_2 in
      check_eq ~pp:(function Some a -> string_of_int a | None -> "None") ~eq:( = ) ~what:"axis" (Some 0) (T.shard_axis s);
      close ~what:"sharded" (Array.init 16 float_of_int) (T.to_float_array (T.realize s)));
]
