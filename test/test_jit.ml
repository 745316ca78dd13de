(* Tests of Tiny_jit (src/engine/tiny_jit.ml), ported from tinygrad's test/unit/test_jit.py and test/backend/test_jit.py.
   The expected values are computed here in OCaml floats from the inputs read back (an oracle independent of the
   JIT), or are the literal numbers of tinygrad's tests; "JIT = no JIT" cases compare with the same function run
   without the JIT. *)

open Tinygrad.Compiler
open Test_util

let close ?(atol = 1e-4) ?(rtol = 1e-5) ~what (expected : float array) (got : float array) =
  check_int ~what:(what ^ " length") (Array.length expected) (Array.length got);
  Array.iteri (fun i e ->
      let g = got.(i) in
      if Float.abs (e -. g) > atol +. rtol *. Float.abs e then fail "%s[%d]: expected %g, got %g" what i e g) expected

let same ~what (expected : float array) (got : float array) =
  check_int ~what:(what ^ " length") (Array.length expected) (Array.length got);
  Array.iteri (fun i e -> if Int64.bits_of_float e <> Int64.bits_of_float got.(i) then
                  fail "%s[%d]: expected %h, got %h (not bit-identical)" what i e got.(i)) expected

let vals = Tensor.to_float_array
let map2 f a b = Array.mapi (fun i x -> f x b.(i)) a
let arr1 l = Tensor.of_float_array [| List.length l |] (Array.of_list l)

let with_var (v : int Helpers.context_var) x f =
  let old = v.value in
  Helpers.set v x;
  Fun.protect ~finally:(fun () -> Helpers.set v old) f

let check_cache_len ~what n j = check_int ~what:(what ^ ": jit cache length") n (Tiny_jit.jit_cache_len j)

let raises_jit_error ~what f =
  match f () with
  | _ -> fail "%s: expected Jit_error" what
  | exception Tiny_jit.Jit_error _ -> ()

let add2 = function [ a; b ] -> Tensor.add a b | _ -> fail "two inputs expected"

(* tinygrad: _simple_test *)
let simple_test ?(n = 10) ~(extract : 'r -> Tensor.t) (j : 'r Tiny_jit.t) =
  for _ = 1 to 5 do
    let a = Tensor.randn [| n; n |] in
    let b = Tensor.randn [| n; n |] in
    let c = Tiny_jit.call j [ a; b ] in
    close ~what:"add" (map2 ( +. ) (vals a) (vals b)) (vals (extract c))
  done;
  check_cache_len ~what:"simple" 1 j

let tests : case list = [
  ("jit_big_intermediates_keep_their_values_across_calls", fun () ->
      (* two 5.2 MB intermediates, planned into an arena per schedule: the first call's arena is freed
         when it has run and the capture's arena (of the same size class) reuses its memory; every call's
         rows must be the sums computed here from the input read back *)
      let rows = 1024 and cols = 1280 in
      let j = Tiny_jit.create (function
          | [ x ] ->
            let y = Tensor.contiguous (Tensor.add x (Tensor.scalar 1.)) in
            let z = Tensor.contiguous (Tensor.mul y y) in
            Tensor.realize (Tensor.sum ~axis:[ 1 ] (Tensor.add z x))
          | _ -> fail "one input expected") in
      for call = 1 to 4 do
        let x = Tensor.realize (Tensor.randn [| rows; cols |]) in
        let xv = vals x in
        let got = vals (Tiny_jit.call j [ x ]) in
        let expected = Array.init rows (fun r ->
            let acc = ref 0. in
            for c = 0 to cols - 1 do
              let v = xv.((r * cols) + c) in
              acc := !acc +. ((v +. 1.) *. (v +. 1.)) +. v
            done;
            !acc) in
        close ~atol:1e-2 ~rtol:1e-4 ~what:(Printf.sprintf "call %d" call) expected got
      done);

  ("simple_jit", fun () -> simple_test ~extract:Fun.id (Tiny_jit.create (fun l -> Tensor.realize (add2 l))));
  ("simple_jit_reset", fun () ->
      let j = Tiny_jit.create (fun l -> Tensor.realize (add2 l)) in
      simple_test ~extract:Fun.id j;
      Tiny_jit.reset j;
      check_int ~what:"cnt after reset" 0 (Tiny_jit.cnt j);
      simple_test ~extract:Fun.id ~n:20 j);
  ("simple_jit_norealize", fun () -> simple_test ~extract:Fun.id (Tiny_jit.create add2));
  ("simple_jit_norealize_list", fun () ->
      simple_test ~extract:List.hd (Tiny_jit.create_list (fun l -> [ add2 l ])));
  ("jit_multiple_outputs", fun () ->
      let j = Tiny_jit.create_list (function
          | [ a; b ] -> [ Tensor.realize (Tensor.add a b); Tensor.realize (Tensor.sub a b); Tensor.realize (Tensor.mul a b) ]
          | _ -> []) in
      for _ = 1 to 5 do
        let a = Tensor.randn [| 10; 10 |] in
        let b = Tensor.randn [| 10; 10 |] in
        match Tiny_jit.call j [ a; b ] with
        | [ c; d; e ] ->
          close ~what:"a+b" (map2 ( +. ) (vals a) (vals b)) (vals c);
          close ~what:"a-b" (map2 ( -. ) (vals a) (vals b)) (vals d);
          close ~what:"a*b" (map2 ( *. ) (vals a) (vals b)) (vals e)
        | _ -> fail "three outputs expected"
      done;
      check_cache_len ~what:"multiple outputs" 3 j);
  ("nothing_jitted", fun () ->
      let j = Tiny_jit.create_unit (fun _ -> ()) in
      raises_jit_error ~what:"nothing jitted" (fun () ->
          for _ = 1 to 5 do Tiny_jit.call j [ Tensor.randn [| 10; 10 |]; Tensor.randn [| 10; 10 |] ] done));
  ("jit_zero_does_not_jit", fun () ->
      let j = Tiny_jit.create (fun l -> Tensor.realize (add2 l)) in
      with_var Helpers.jit 0 (fun () ->
          for i = 0 to 4 do
            let c = Tiny_jit.call j [ arr1 [ float_of_int i ]; arr1 [ float_of_int i ] ] in
            close ~what:"2i" [| 2. *. float_of_int i |] (vals c)
          done);
      check_cache_len ~what:"JIT=0" 0 j);
  ("jit_not_capturing", fun () ->
      let j = Tiny_jit.create (fun l ->
          ignore (Tensor.realize (Tensor.contiguous (Tensor.zeros [| 4; 4 |])));  (* no-op kernel is captured *)
          Tensor.realize (add2 l)) in
      for i = 0 to 4 do
        close ~what:"2i" [| 2. *. float_of_int i |] (vals (Tiny_jit.call j [ arr1 [ float_of_int i ]; arr1 [ float_of_int i ] ]))
      done;
      check_cache_len ~what:"captured zeros" 2 j;
      let j2 = Tiny_jit.create (fun l ->
          with_var Helpers.capturing 0 (fun () -> ignore (Tensor.realize (Tensor.contiguous (Tensor.zeros [| 4; 4 |]))));
          Tensor.realize (add2 l)) in
      for i = 0 to 4 do
        close ~what:"2i" [| 2. *. float_of_int i |] (vals (Tiny_jit.call j2 [ arr1 [ float_of_int i ]; arr1 [ float_of_int i ] ]))
      done;
      check_cache_len ~what:"CAPTURING=0" 1 j2);
  ("jit_shape_mismatch", fun () ->
      let j = Tiny_jit.create (fun l -> Tensor.realize (add2 l)) in
      let a = ref (Tensor.randn [| 10; 10 |]) in
      for _ = 1 to 5 do
        a := Tensor.randn [| 10; 10 |];
        ignore (Tiny_jit.call j [ !a; Tensor.randn [| 10; 10 |] ])
      done;
      let bad = Tensor.randn [| 20; 20 |] in
      (match Tiny_jit.call j [ !a; bad ] with
       | _ -> fail "expected Invalid_argument"
       | exception Invalid_argument m ->
         let has s = let ls = String.length s and lm = String.length m in
           let rec go i = i + ls <= lm && (String.sub m i ls = s || go (i + 1)) in go 0 in
         check (has "(20, 20)" && has "(10, 10)") "message names the shapes: %s" m);
      check_invalid_arg ~what:"dtype mismatch" (fun () ->
          Tiny_jit.call j [ !a; Tensor.cast (Tensor.randn [| 10; 10 |]) Dtype.float16 ]);
      check_invalid_arg ~what:"input count mismatch" (fun () -> Tiny_jit.call j [ !a ]));
  ("jit_shape_views_mismatch", fun () ->
      let j = Tiny_jit.create (function [ a ] -> Tensor.realize (Tensor.add a (Tensor.scalar 1.)) | _ -> fail "one input") in
      check_invalid_arg ~what:"view offset mismatch" (fun () ->
          for i = 1 to 4 do
            (* a has an offset that the kernel doesn't know about *)
            let a = Tensor.getitem (Tensor.realize (Tensor.randn [| 10; 10 |])) [ Tensor.S (None, None, None); Tensor.S (Some i, Some (i + 2), None) ] in
            ignore (Tiny_jit.call j [ a ])
          done));
  ("jit_duplicate_fail", fun () ->
      let j = Tiny_jit.create (fun l -> Tensor.realize (add2 l)) in
      let a = Tensor.randn [| 10; 10 |] in
      raises_jit_error ~what:"duplicate" (fun () -> Tiny_jit.call j [ a; a ]));
  ("jit_size1_input", fun () ->
      let j = Tiny_jit.create (fun l -> Tensor.realize (add2 l)) in
      let a = arr1 [ 1.; 2.; 3. ] in
      for i = 0 to 4 do
        let fi = float_of_int i in
        close ~what:"a+i" [| 1. +. fi; 2. +. fi; 3. +. fi |] (vals (Tiny_jit.call j [ a; arr1 [ fi ] ]))
      done;
      check_cache_len ~what:"size1" 1 j);
  ("jit_input_view", fun () ->
      let j = Tiny_jit.create (function
          | [ x ] -> Tensor.realize (Tensor.add (Tensor.contiguous (Tensor.getitem x [ Tensor.S (Some 2, Some 5, None) ])) (Tensor.scalar 1.))
          | _ -> fail "one input") in
      for i = 0 to 4 do
        let x = Tensor.realize (Tensor.clone (Tensor.add (Tensor.cast (Tensor.arange 10) Dtype.float32) (Tensor.scalar (float_of_int (i * 10))))) in
        let xv = vals x in
        close ~what:"x[2:5]+1" (Array.map (fun v -> v +. 1.) (Array.sub xv 2 3)) (vals (Tiny_jit.call j [ x ]))
      done);
  ("jit_random_regen", fun () ->
      let f = function
        | [ a; b ] -> let rn = Tensor.randn (Tensor.shape a) in Tensor.realize (Tensor.mul (Tensor.add a b) rn)
        | _ -> fail "two inputs" in
      let a = Tensor.realize (Tensor.randn [| 10; 10 |]) in
      let b = Tensor.realize (Tensor.randn [| 10; 10 |]) in
      let run seed =
        Tensor.manual_seed seed;
        let j = Tiny_jit.create f in
        List.init 5 (fun _ -> (vals (Tiny_jit.call j [ a; b ])).(0)) in
      let r1 = run 1234 and r2 = run 1234 and r3 = run 3421 in
      check_int ~what:"all values different" 5 (List.length (List.sort_uniq compare r1));
      check (r1 = r2) "Jit rand is not reproducible with the same seed";
      check (r3 <> r2) "Jit rand is diff with diff seeds");
  ("jit_v_nojit_random_regen", fun () ->
      let f = function
        | [ a; b ] ->
          let rn = Tensor.randn (Tensor.shape a) in
          let rn = Tensor.mul rn a in
          let rn2 = Tensor.randn (Tensor.shape a) in
          let rn2 = Tensor.mul rn2 b in
          let rn = Tensor.add rn rn2 in
          let rn2 = Tensor.add rn2 (Tensor.randn (Tensor.shape a)) in
          let o1 = Tensor.realize (Tensor.mul (Tensor.add a b) rn) in
          let o2 = Tensor.realize (Tensor.mul (Tensor.add a b) rn2) in
          [ o1; o2 ]
        | _ -> fail "two inputs" in
      Tensor.manual_seed 0;
      let a = Tensor.realize (Tensor.randn [| 10; 10 |]) in
      let b = Tensor.realize (Tensor.randn [| 10; 10 |]) in
      Tensor.manual_seed 1234;
      let without = List.init 5 (fun _ -> List.map vals (f [ a; b ])) in
      Tensor.manual_seed 1234;
      let j = Tiny_jit.create_list f in
      let with_jit = List.init 5 (fun _ -> List.map vals (Tiny_jit.call j [ a; b ])) in
      List.iteri (fun i (w, n) -> List.iter2 (same ~what:(Printf.sprintf "call %d" i)) n w) (List.combine with_jit without);
      let firsts = List.concat_map (List.map (fun v -> v.(0))) with_jit in
      check_int ~what:"all values different" 10 (List.length (List.sort_uniq compare firsts)));
  ("jit_random_after_unrealized_random", fun () ->
      let j = Tiny_jit.create (fun _ -> Tensor.rand [||]) in
      Tensor.manual_seed 1234;
      ignore (Tensor.rand [||]);
      let res = List.init 3 (fun _ -> (vals (Tiny_jit.call j [])).(0)) in
      check (List.nth res 1 <> List.nth res 2) "rand in jit repeats");
  ("jit_randint_rangeify", fun () ->
      (* tinygrad TestJitRandom.test_jit_rangeify: JIT=0 and JIT=1 draw the same numbers *)
      let draws r =
        with_var Helpers.jit r (fun () ->
            Tensor.manual_seed 1337;
            ignore (Tensor.randint ~high:3 [| 4 |]);
            ignore (Tensor.randint ~high:3 [| 4 |]);
            let j = Tiny_jit.create (fun _ -> Tensor.randint ~high:5 [| 20 |]) in
            List.init 5 (fun _ -> Tensor.to_int_array (Tiny_jit.call j []))) in
      let d0 = draws 0 and d1 = draws 1 in
      List.iteri (fun i (a, b) -> check (a = b) "mismatch at list %d" i) (List.combine d0 d1));
  ("jit_realization_and_sampling", fun () ->
      let w = Tensor.eye 5 in
      let j = Tiny_jit.create (function [ x ] -> Tensor.realize (Tensor.dot w x) | _ -> fail "one input") in
      let args = [ [ 1.; 2.; 3.; 4.; 5. ]; [ 1.; 3.; 3.; 4.; 6. ]; [ 1.; 2.; 5.; 4.; 7. ]; [ 0.; 2.; 3.; 1.; 0. ] ] in
      let ys = List.map (fun e -> vals (Tiny_jit.call j [ arr1 e ])) args in
      ignore (Tiny_jit.call j [ arr1 [ 7.; 7.; 7.; 7.; 7. ] ]);
      List.iter2 (fun e y -> close ~what:"eye dot" (Array.of_list e) y) args ys);
  ("jit_buffer_behavior", fun () ->
      let j = Tiny_jit.create (function [ x ] -> Tensor.realize (Tensor.sum x) | _ -> fail "one input") in
      let r1 = Tiny_jit.call j [ arr1 [ 1.; 1. ] ] in
      let r2 = Tiny_jit.call j [ arr1 [ 2.; 2. ] ] in
      let r3 = Tiny_jit.call j [ arr1 [ 3.; 3. ] ] in
      (* the captured output buffer is shared from the capture on *)
      close ~what:"result_1" [| 2. |] [| Tensor.item r1 |];
      close ~what:"result_2" [| 6. |] [| Tensor.item r2 |];
      close ~what:"result_3" [| 6. |] [| Tensor.item r3 |]);
  ("jit_output_clone", fun () ->
      let j = Tiny_jit.create (function [ x ] -> Tensor.realize (Tensor.add x (Tensor.scalar 1.)) | _ -> fail "one input") in
      ignore (Tiny_jit.call j [ arr1 [ 0. ] ]);
      ignore (Tiny_jit.call j [ arr1 [ 0. ] ]);
      let a = Tensor.realize (Tensor.clone (Tiny_jit.call j [ arr1 [ 1. ] ])) in
      let b = Tiny_jit.call j [ arr1 [ 2. ] ] in
      check (Float.abs (Tensor.item (Tensor.sub a b)) > 0.5) "clone of a jit output is overwritten");
  ("jit_init_empty", fun () ->
      let j = Tiny_jit.create (function [ x ] -> Tensor.realize (Tensor.add x (Tensor.scalar 1.)) | _ -> fail "one input") in
      ignore (Tiny_jit.call j [ Tensor.empty [| 1 |] ]);
      ignore (Tiny_jit.call j [ Tensor.empty [| 1 |] ]);
      (* scalar const input is not allowed *)
      raises_jit_error ~what:"const input" (fun () -> Tensor.item (Tiny_jit.call j [ Tensor.scalar 2.0 ])));
  ("jit_init_empty_alt", fun () ->
      let j = Tiny_jit.create (function [ a; b ] -> Tensor.assign b (Tensor.add a (Tensor.scalar 1.)) | _ -> fail "two inputs") in
      for i = 0 to 3 do
        let a = arr1 [ float_of_int i ] in
        let b = Tensor.empty_like a in
        close ~what:"b = a+1" [| float_of_int (i + 1) |] [| Tensor.item (Tiny_jit.call j [ a; b ]) |]
      done);
  ("jit_assign", fun () ->
      List.iter (fun dt ->
          let j = Tiny_jit.create_unit (function
              | [ a ] -> ignore (Tensor.realize (Tensor.assign a (Tensor.add a (Tensor.scalar_int 1))))
              | _ -> fail "one input") in
          let a = Tensor.realize (Tensor.contiguous (Tensor.zeros ~dtype:dt [| 1 |])) in
          for _ = 1 to 5 do Tiny_jit.call j [ a ] done;
          close ~what:("a " ^ Dtype.to_string dt) [| 5. |] [| Tensor.item a |]) [ Dtype.float32; Dtype.int8 ]);
  ("jit_copyin", fun () ->
      let j = Tiny_jit.create (function [ a ] -> Tensor.add a (arr1 [ 1.; 2.; 3. ]) | _ -> fail "one input") in
      for _ = 1 to 5 do
        let b = Tensor.randn [| 3 |] in
        let c = Tiny_jit.call j [ b ] in
        close ~what:"b+[1,2,3]" (map2 ( +. ) (vals b) [| 1.; 2.; 3. |]) (vals c)
      done);
  ("jitted_clone", fun () ->
      let j = Tiny_jit.create (function [ a ] -> Tensor.realize (Tensor.clone a) | _ -> fail "one input") in
      for _ = 1 to 5 do
        let a = Tensor.realize (Tensor.randn [| 10; 10 |]) in
        close ~what:"clone" (vals a) (vals (Tiny_jit.call j [ a ]))
      done);
  ("jit_output_fed_back", fun () ->
      (* the third call's input is the buffer the capture writes: it is copied first (tinygrad _copy_input) *)
      let j = Tiny_jit.create (function [ x ] -> Tensor.realize (Tensor.add x (Tensor.scalar 1.)) | _ -> fail "one input") in
      let x = ref (arr1 [ 0.; 10. ]) in
      for i = 1 to 6 do
        x := Tiny_jit.call j [ !x ];
        close ~what:(Printf.sprintf "step %d" i) [| float_of_int i; 10. +. float_of_int i |] (vals !x)
      done);
  ("global_counters_jit", fun () ->
      let j = Tiny_jit.create (function
          | [ a; b ] ->
            let c = Tensor.realize (Tensor.add a b) in
            let d = Tensor.realize (Tensor.mul c (Tensor.scalar 2.)) in
            Tensor.realize (Tensor.sub d a)
          | _ -> fail "two inputs") in
      let a = Tensor.realize (Tensor.randn [| 64; 64 |]) and b = Tensor.realize (Tensor.randn [| 64; 64 |]) in
      for _ = 1 to 4 do
        Global_counters.reset ();
        ignore (Tiny_jit.call j [ a; b ]);
        check (Global_counters.global_mem () > 0) "global_mem > 0";
        check (Global_counters.global_ops () > 0) "global_ops > 0";
        check_int ~what:"kernel_count" 3 (Global_counters.kernel_count ())
      done);
  ("simple_prune", fun () ->
      let weights = Tensor.realize (Tensor.rand [| 16 |]) in
      let w2 = function [ x ] -> Tensor.add (Tensor.contiguous (Tensor.mul weights (Tensor.scalar 2.))) x | _ -> fail "one input" in
      let noprune = Tiny_jit.create w2 and prune = Tiny_jit.create ~prune:true w2 in
      let wv = vals weights in
      List.iter (fun (j, n) ->
          for _ = 1 to 3 do
            let a = Tensor.realize (Tensor.rand [| 16 |]) in
            let out = Tiny_jit.call j [ a ] in
            close ~what:"w*2+x" (map2 (fun w x -> (w *. 2.) +. x) wv (vals a)) (vals out)
          done;
          check_cache_len ~what:"prune" n j) [ (noprune, 2); (prune, 1) ]);
  ("jit_jit_error", fun () ->
      let f = Tiny_jit.create (function [ t ] -> Tensor.add t (Tensor.scalar 1.) | _ -> fail "one input") in
      let g = Tiny_jit.create (function [ t ] -> Tensor.mul (Tiny_jit.call f [ t ]) (Tensor.scalar 3.) | _ -> fail "one input") in
      (* NOTE: first does not raise *)
      ignore (Tensor.realize (Tiny_jit.call g [ arr1 [ 1. ] ]));
      match Tensor.realize (Tiny_jit.call g [ arr1 [ 1. ] ]) with
      | _ -> fail "expected Failure"
      | exception Failure m -> check (String.length m >= 21 && String.sub m 0 21 = "having TinyJit inside") "message: %s" m);
  ("jit_no_data_access_during_capture", fun () ->
      let j = Tiny_jit.create (function [ t ] -> let y = Tensor.add t (Tensor.scalar 1.) in ignore (Tensor.item (Tensor.sum y)); y | _ -> fail "one") in
      ignore (Tiny_jit.call j [ arr1 [ 1. ] ]);
      raises_jit_error ~what:"item while capturing" (fun () -> Tiny_jit.call j [ arr1 [ 1. ] ]));
  ("free_intermediates", fun () ->
      let ext = arr1 [ 1.; 24.; 23.; 45.; 1. ] in
      let j = Tiny_jit.create (function
          | [ x ] ->
            let t1 = Tensor.realize (Tensor.contiguous (Tensor.mul x (Tensor.scalar 2.))) in
            let t2 = Tensor.realize (Tensor.contiguous (Tensor.add t1 ext)) in
            Tensor.realize (Tensor.contiguous (Tensor.sum t2))
          | _ -> fail "one input") in
      for i = 0 to 4 do
        close ~what:"out" [| 114. +. 2. *. float_of_int i |]
          [| Tensor.item (Tiny_jit.call j [ arr1 [ float_of_int i; 1.; 2.; 3.; 4. ] ]) |]
      done;
      let c = Option.get (Tiny_jit.captured j) in
      let pre = Global_counters.mem_used () in
      Tiny_jit.free_intermediates c;
      (* tinygrad: expected_savings = (t1 and t2) + out *)
      check (pre - Global_counters.mem_used () >= (5 * 4 * 2) + 4)
        "free_intermediates saves t1, t2 and out (%d bytes)"
        (pre - Global_counters.mem_used ());
      close ~what:"after free" [| 136. |] [| Tensor.item (Tiny_jit.call j [ arr1 [ 11.; 1.; 2.; 3.; 4. ] ]) |];
      let pre = Global_counters.mem_used () in
      Tiny_jit.free_intermediates c;
      Tiny_jit.free_intermediates c;  (* 2nd time to validate *)
      check (pre - Global_counters.mem_used () >= (5 * 4 * 2) + 4)
        "2nd free_intermediates saves t1, t2 and out (%d bytes)"
        (pre - Global_counters.mem_used ());
      close ~what:"after 2nd free" [| 136. |] [| Tensor.item (Tiny_jit.call j [ arr1 [ 11.; 1.; 2.; 3.; 4. ] ]) |]);
  ("updated_not_freed", fun () ->
      let x = Tensor.realize (arr1 [ 1. ]) in
      let j = Tiny_jit.create (function [ y ] -> Tensor.assign x (Tensor.add x y) | _ -> fail "one input") in
      for _ = 1 to 5 do ignore (Tiny_jit.call j [ arr1 [ 1. ] ]) done;
      close ~what:"x" [| 6. |] [| Tensor.item x |];
      let pre = Global_counters.mem_used () in
      Tiny_jit.free_intermediates (Option.get (Tiny_jit.captured j));
      check_int ~what:"savings" 0 (pre - Global_counters.mem_used ());
      ignore (Tiny_jit.call j [ arr1 [ 2. ] ]);
      close ~what:"x" [| 8. |] [| Tensor.item x |]);
  ("replay_does_not_call_function", fun () ->
      let calls = ref 0 in
      let j = Tiny_jit.create (function [ a; b ] -> incr calls; Tensor.add a b | _ -> fail "two inputs") in
      for i = 1 to 6 do
        ignore (Tiny_jit.call j [ arr1 [ 1. ]; arr1 [ 2. ] ]);
        check_int ~what:(Printf.sprintf "function calls after call %d" i) (min i 2) !calls;
        check_int ~what:"cnt" i (Tiny_jit.cnt j)
      done);
  ("jit_lazy_grad_after_replay", fun () ->
      (* the lazy grad created during capture is read outside the JIT: the memory planner must not suballocate its
         buffers (tinygrad issue #16571); nn.Conv2d(3, 4, 3, padding=1) written out with Tensor.conv2d *)
      Tensor.manual_seed 42;
      let w = Tensor.realize (Tensor.mul (Tensor.randn [| 4; 3; 3; 3 |]) (Tensor.scalar 0.2)) in
      let bias = Tensor.realize (Tensor.mul (Tensor.randn [| 4 |]) (Tensor.scalar 0.2)) in
      let x = Tensor.realize (Tensor.randn [| 4; 8; 8; 3 |]) in
      let y = Tensor.realize (Tensor.randn [| 4; 4 * 8 * 8 |]) in
      let step = function
        | [ x; y ] ->
          let out = Tensor.flatten ~start_dim:1 (Tensor.relu (Tensor.conv2d ~bias ~padding:1 (Tensor.contiguous (Tensor.permute x [| 0; 3; 1; 2 |])) w)) in
          let loss = Tensor.sum ~axis:[ 1 ] (Tensor.mul out y) in  (* per-example loss *)
          Tensor.backward (Tensor.sum loss);
          Tensor_base.set_grad w None;
          Tensor.backward (Tensor.sum (Tensor.mul loss (Tensor.scalar 0.5)));
          Tensor.realize (Tensor.mean loss)
        | _ -> fail "two inputs" in
      ignore (step [ x; y ]);
      let grad_of t = match Tensor.grad t with Some g -> vals g | None -> fail "no grad" in
      let reference = grad_of w in
      let j = Tiny_jit.create step in
      for i = 1 to 4 do
        ignore (Tiny_jit.call j [ x; y ]);
        close ~what:(Printf.sprintf "w.grad after call %d" i) reference (grad_of w)
      done);
  ("sgd_step_jit_equals_nojit", fun () ->
      (* a small regression trained by gradient + assign: the JIT gives bit-identical parameters to no JIT *)
      let train use_jit =
        Tensor.manual_seed 42;
        let w = Tensor.realize (Tensor.contiguous (Tensor.randn [| 4; 3 |])) in
        let bias = Tensor.realize (Tensor.contiguous (Tensor.zeros [| 3 |])) in
        let step = function
          | [ x; y ] ->
            let pred = Tensor.add (Tensor.matmul x w) bias in
            let loss = Tensor.mean (Tensor.square (Tensor.sub pred y)) in
            (match Tensor.gradient loss [ w; bias ] with
             | [ gw; gb ] ->
               let lr = Tensor.scalar 0.1 in
               Tensor.realize_all [ loss; Tensor.assign w (Tensor.sub w (Tensor.mul lr gw));
                                    Tensor.assign bias (Tensor.sub bias (Tensor.mul lr gb)) ]
             | _ -> fail "two grads");
            loss
          | _ -> fail "two inputs" in
        let j = Tiny_jit.create step in
        let losses = List.init 6 (fun i ->
            let x = Tensor.realize (Tensor.randn [| 8; 4 |]) in
            let y = Tensor.realize (Tensor.randn [| 8; 3 |]) in
            ignore i;
            Tensor.item (if use_jit then Tiny_jit.call j [ x; y ] else step [ x; y ])) in
        (losses, vals w, vals bias) in
      let l0, w0, b0 = train false and l1, w1, b1 = train true in
      same ~what:"losses" (Array.of_list l0) (Array.of_list l1);
      same ~what:"w" w0 w1;
      same ~what:"bias" b0 b1);
]
