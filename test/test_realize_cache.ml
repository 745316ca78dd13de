(* Tests of the realize cache (src/engine/realize_cache.ml): realizes of graphs of one structure on other buffers,
   dtypes, shapes, views, Variables and assigns give the values computed here from the inputs with OCaml floats
   (or written by hand), and the cache keeps no buffer alive. *)

open Tinygrad.Compiler
open Test_util
module T = Tensor

let floats ~what (expected : float array) (got : float array) =
  check_int ~what:(what ^ " length") (Array.length expected) (Array.length got);
  Array.iteri (fun i e ->
      if Float.abs (e -. got.(i)) > 1e-5 *. (1. +. Float.abs e) then fail "%s[%d]: expected %g, got %g" what i e got.(i))
    expected

let ints ~what (expected : int array) (got : int array) =
  check_int ~what:(what ^ " length") (Array.length expected) (Array.length got);
  Array.iteri (fun i e -> if e <> got.(i) then fail "%s[%d]: expected %d, got %d" what i e got.(i)) expected

let t1 l = T.of_float_array [| Array.length l |] l
let map2 f a b = Array.mapi (fun i x -> f x b.(i)) a

(* the cache's entry count after [f]: a second realize of one structure adds none *)
let added f = let n = Realize_cache.length () in f (); Realize_cache.length () - n

(* the realizes [f] had served from the cache: at least [min] *)
let served ~what ~min f =
  let n = Realize_cache.hits () in
  f ();
  let got = Realize_cache.hits () - n in
  if got < min then fail "%s: %d realizes served from the cache, expected at least %d" what got min

let tests : case list = [
  ("same_structure_other_buffers", fun () ->
      let inputs = [ ([| 1.; 2.; 3. |], [| 10.; 20.; 30. |]); ([| -1.; 0.5; 4. |], [| 2.; 2.; 2. |]);
                     ([| 7.; 8.; 9. |], [| 0.; -8.; 1. |]) ] in
      List.iteri (fun i (a, b) ->
          let n = added (fun () ->
              let c = T.realize (T.sub (T.realize (t1 a)) (T.realize (t1 b))) in
              floats ~what:(Printf.sprintf "a-b #%d" i) (map2 ( -. ) a b) (T.to_float_array c)) in
          if i > 0 then check_int ~what:"entries added by a second realize of a-b" 0 n) inputs;
      served ~what:"a-b again" ~min:1 (fun () ->
          let a, b = List.hd inputs in
          floats ~what:"a-b again" (map2 ( -. ) a b) (T.to_float_array (T.realize (T.sub (T.realize (t1 a)) (T.realize (t1 b)))))));
  ("one_buffer_twice_is_not_two_buffers", fun () ->
      let a = T.realize (t1 [| 1.; 2.; 3. |]) and b = T.realize (t1 [| 5.; 6.; 7. |]) in
      floats ~what:"a-a" [| 0.; 0.; 0. |] (T.to_float_array (T.realize (T.sub a a)));
      floats ~what:"a-b" [| -4.; -4.; -4. |] (T.to_float_array (T.realize (T.sub a b)));
      (* b-b has a-a's structure, b-a a-b's *)
      served ~what:"b-b and b-a" ~min:2 (fun () ->
          floats ~what:"b-b" [| 0.; 0.; 0. |] (T.to_float_array (T.realize (T.sub b b)));
          floats ~what:"b-a" [| 4.; 4.; 4. |] (T.to_float_array (T.realize (T.sub b a)))));
  ("dtypes_and_shapes_do_not_collide", fun () ->
      let fa = T.realize (t1 [| 1.5; 2.25 |]) and fb = T.realize (t1 [| 0.25; 4. |]) in
      let ia = T.realize (T.of_int_array [| 2 |] [| 3; -4 |]) and ib = T.realize (T.of_int_array [| 2 |] [| 4; 9 |]) in
      for _ = 1 to 2 do
        floats ~what:"float32 add" [| 1.75; 6.25 |] (T.to_float_array (T.realize (T.add fa fb)));
        ints ~what:"int32 add" [| 7; 5 |] (T.to_int_array (T.realize (T.add ia ib)));
        ints ~what:"int32 sub" [| -1; -13 |] (T.to_int_array (T.realize (T.sub ia ib)));
        floats ~what:"float32 sub" [| 1.25; -1.75 |] (T.to_float_array (T.realize (T.sub fa fb)));
        let ha = T.cast fa Dtype.float16 and hb = T.cast fb Dtype.float16 in
        floats ~what:"float16 add" [| 1.75; 6.25 |] (T.to_float_array (T.realize (T.add ha hb)))
      done;
      let a3 = T.realize (t1 [| 1.; 2.; 3. |]) and b3 = T.realize (t1 [| 1.; 1.; 1. |]) in
      floats ~what:"shape 3 add" [| 2.; 3.; 4. |] (T.to_float_array (T.realize (T.add a3 b3)));
      floats ~what:"shape 2 add again" [| 1.75; 6.25 |] (T.to_float_array (T.realize (T.add fa fb))));
  ("views_of_other_buffers", fun () ->
      let a = T.realize (t1 [| 0.; 1.; 2.; 3.; 4.; 5. |]) and b = T.realize (t1 [| 10.; 20.; 30.; 40.; 50.; 60. |]) in
      let win x lo = T.shrink x [| (lo, lo + 2) |] in
      floats ~what:"a[1:3]-b[1:3]" [| -19.; -28. |] (T.to_float_array (T.realize (T.sub (win a 1) (win b 1))));
      served ~what:"b[1:3]-a[1:3]" ~min:1 (fun () ->
          floats ~what:"b[1:3]-a[1:3]" [| 19.; 28. |] (T.to_float_array (T.realize (T.sub (win b 1) (win a 1)))));
      floats ~what:"a[3:5]-b[3:5]" [| -37.; -46. |] (T.to_float_array (T.realize (T.sub (win a 3) (win b 3))));
      floats ~what:"contiguous b[2:4]" [| 30.; 40. |] (T.to_float_array (T.realize (T.contiguous (win b 2))));
      floats ~what:"contiguous a[2:4]" [| 2.; 3. |] (T.to_float_array (T.realize (T.contiguous (win a 2)))));
  ("assign_after_a_hit", fun () ->
      let x = T.realize (t1 [| 0.; 1.; 2. |]) and y = T.realize (t1 [| 100.; 200.; 300. |]) in
      let one = T.realize (t1 [| 1.; 1.; 1. |]) in
      served ~what:"4 in-place +1" ~min:3 (fun () -> for _ = 1 to 4 do ignore (T.realize (T.assign x (T.add x one))) done);
      floats ~what:"x after 4 in-place +1" [| 4.; 5.; 6. |] (T.to_float_array x);
      (* the same assign on another buffer updates that one only *)
      for _ = 1 to 2 do ignore (T.realize (T.assign y (T.add y one))) done;
      floats ~what:"y after 2 in-place +1" [| 102.; 202.; 302. |] (T.to_float_array y);
      floats ~what:"x untouched" [| 4.; 5.; 6. |] (T.to_float_array x);
      (* a lazy graph built on x before the assign reads x's new value once realized *)
      let z = T.add x one in
      ignore (T.realize (T.assign x (T.add x one)));
      floats ~what:"z built before the assign" [| 6.; 7.; 8. |] (T.to_float_array (T.realize z)));
  ("one_graph_realized_again", fun () ->
      (* the same tensors combined the same way make the same graph: every realize of it is served from the
         cache into a new buffer, reads the inputs' values of the moment, and leaves the earlier results as
         they were *)
      let a = T.realize (t1 [| 1.; 2. |]) and b = T.realize (t1 [| 10.; 20. |]) in
      let c1 = T.realize (T.add a b) in
      let c2 = ref c1 and c3 = ref c1 in
      served ~what:"a+b twice more" ~min:2 (fun () ->
          c2 := T.realize (T.add a b);
          c3 := T.realize (T.add a b));
      ignore (T.realize (T.assign a (t1 [| 5.; 6. |])));
      let c4 = T.realize (T.add a b) in
      floats ~what:"a+b" [| 11.; 22. |] (T.to_float_array c1);
      floats ~what:"a+b again" [| 11.; 22. |] (T.to_float_array !c2);
      floats ~what:"a+b a third time" [| 11.; 22. |] (T.to_float_array !c3);
      floats ~what:"a+b after a's assign" [| 15.; 26. |] (T.to_float_array c4);
      ignore (T.realize (T.assign !c2 (t1 [| 0.; 0. |])));
      floats ~what:"a+b after the second result was overwritten" [| 11.; 22. |] (T.to_float_array !c3));
  ("pending_assigns_into_views", fun () ->
      (* an assign into a view, not realized, is seen by every tensor on the buffer (realized ones included) *)
      for round = 1 to 2 do
        let c = T.realize (T.contiguous (T.mul (T.realize (t1 [| 1.; 1.; 1.; 1. |])) (T.scalar 0.))) in
        let v = T.reshape c [| 2; 2 |] in
        for i = 0 to 3 do
          ignore (T.assign (T.shrink c [| (i, i + 1) |]) (t1 [| float_of_int ((10 * round) + i) |]))
        done;
        let r = float_of_int (10 * round) in
        floats ~what:"the buffer after the assigns" [| r; r +. 1.; r +. 2.; r +. 3. |] (T.to_float_array c);
        floats ~what:"a view of it" [| r; r +. 1.; r +. 2.; r +. 3. |] (T.to_float_array v)
      done);
  ("lazy_tensors_on_a_hit_see_the_buffer", fun () ->
      let a = T.realize (t1 [| 1.; 2. |]) and b = T.realize (t1 [| 3.; 5. |]) in
      served ~what:"c and 2c, 3 times" ~min:4 (fun () ->
          for i = 1 to 3 do
            let c = T.add a b in
            let d = T.mul c (T.scalar 2.) in
            ignore (T.realize c);
            floats ~what:(Printf.sprintf "c #%d" i) [| 4.; 7. |] (T.to_float_array c);
            floats ~what:(Printf.sprintf "2c #%d" i) [| 8.; 14. |] (T.to_float_array (T.realize d))
          done));
  ("several_kernels_with_internal_buffers", fun () ->
      (* softmax: reduce kernels and an elementwise kernel, intermediates freed after each realize *)
      let softmax x = let e = T.exp (T.sub x (T.max x)) in T.div e (T.sum e) in
      let oracle l =
        let m = Array.fold_left Float.max neg_infinity l in
        let e = Array.map (fun v -> exp (v -. m)) l in
        let s = Array.fold_left ( +. ) 0. e in
        Array.map (fun v -> v /. s) e in
      served ~what:"4 softmaxes" ~min:3 (fun () ->
          List.iter (fun l ->
              let x = T.realize (t1 l) in
              floats ~what:"softmax" (oracle l) (T.to_float_array (T.realize (softmax x))))
            [ [| 1.; 2.; 3.; 4. |]; [| 0.; 0.; 0.; 0. |]; [| -3.; 10.; 0.5; 2. |]; [| 1.; 2.; 3.; 4. |] ]));
  ("bound_variables", fun () ->
      let v = Variable.create "n" 1 6 in
      let data = [| 1.; 2.; 4.; 8.; 16.; 32. |] in
      let x = T.realize (t1 data) in
      let sum_first n =
        let s = T.sum (T.Sym.shrink x [| (Sint.of_int 0, Variable.bind v n) |]) in
        floats ~what:(Printf.sprintf "sum of the first %d" n) [| Array.fold_left ( +. ) 0. (Array.sub data 0 n) |]
          (T.to_float_array (T.realize s)) in
      List.iter sum_first [ 3; 5; 1; 6 ];
      (* a value bound anew (a new binding) is served as the structure realized with it *)
      served ~what:"3, 5 and 6 bound anew" ~min:3 (fun () -> List.iter sum_first [ 3; 5; 6 ]));
  ("under_beam", fun () ->
      (* BEAM=1: the first realize of a structure searches its kernel (or times it and keeps the hand-coded one), a
         second is served with that kernel *)
      let a = T.realize (t1 [| 1.; 2.; 3. |]) and b = T.realize (t1 [| 0.5; 0.25; 2. |]) in
      Helpers.context [ Helpers.Bind (Helpers.beam, 1); Helpers.Bind (Helpers.ignore_beam_cache, 1) ] (fun () ->
          floats ~what:"a*b+a" [| 1.5; 2.5; 9. |] (T.to_float_array (T.realize (T.add (T.mul a b) a)));
          served ~what:"b*a+b" ~min:1 (fun () ->
              floats ~what:"b*a+b" [| 1.; 0.75; 8. |] (T.to_float_array (T.realize (T.add (T.mul b a) b))))));
  ("knobs_are_part_of_the_key", fun () ->
      (* the same graph under NOOPT and CPU_OPT=tinygrad: each setting compiles its own programs *)
      let a = T.realize (t1 [| 1.; 2.; 3.; 4. |]) and b = T.realize (t1 [| 4.; 3.; 2.; 1. |]) in
      let run () = T.to_float_array (T.realize (T.mul (T.add a b) (T.scalar 3.))) in
      floats ~what:"default" [| 15.; 15.; 15.; 15. |] (run ());
      let n = added (fun () ->
          Helpers.context [ Helpers.Bind (Helpers.noopt, 1) ] (fun () ->
              floats ~what:"NOOPT" [| 15.; 15.; 15.; 15. |] (run ()))) in
      check (n >= 1) "a realize under NOOPT is filed apart from the default one");
  ("keeps_no_buffer_alive", fun () ->
      (* a structure no other test realizes: the first step files it, the second hits *)
      let w : Device.Buffer.t Stdlib.Weak.t = Stdlib.Weak.create 6 in
      let step k =
        let a = T.realize (t1 [| 1.; 2.; 3.; 4.; 5. |]) and b = T.realize (t1 [| 4.; 5.; 6.; 7.; 8. |]) in
        let c = T.realize (T.mul (T.add a b) a) in
        floats ~what:"(a+b)*a" [| 5.; 14.; 27.; 44.; 65. |] (T.to_float_array c);
        List.iteri (fun i t -> Stdlib.Weak.set w ((3 * k) + i) (Some (realized_buffer t))) [ a; b; c ] in
      step 0; step 1;
      Gc.full_major (); Gc.full_major ();
      for i = 0 to 5 do
        check (Stdlib.Weak.get w i = None) "buffer %d of realize %d is still alive after a full GC" (i mod 3) (i / 3)
      done);
]
