(* tinygrad 0.14.0's test/null/test_multitensor.py on CPU:N (tinygrad runs it on NULL:N), with tinygrad's
   assertions on bytes allocated (Global_counters.mem_used) and moved (global_mem), after the collections that
   stand for tinygrad's gc.collect(). allreduce_cast_dtype_memory narrows float16 where tinygrad's
   test uses bfloat16, which clang 14 cannot compile for the CPU (tinygrad 0.14.0 fails there too). Its own
   suite, run early: each collection is a few full major GCs, cheap while the heap is small. *)

open Tinygrad.Compiler
open Test_util
open Test_multitensor
module T = Tensor

(* tinygrad's gc.collect(): here full collections find the dropped handles and the Buffers no longer
   reachable (a dead UOp's Buffer is reached through ephemerons, which can take more than one cycle), and the
   owned outputs no live tensor reaches go back to the allocator (what the next realize would do first); until
   the count of bytes used settles *)
let collect () =
  let cycle () = Gc.full_major (); Tensor_base.release_unreached (); Global_counters.mem_used () in
  let rec settle n last = let now = cycle () in if n > 0 && now <> last then settle (n - 1) now in
  for _ = 1 to 3 do ignore (cycle ()) done;
  settle 8 (cycle ())

(* tinygrad: TestMultiRamUsage's setUp, assertUsed and assertDeviceUsed: bytes allocated since the baseline,
   in all and per device; [body] gets the two checks and keeps its tensors alive through them *)
let ram_case body () =
  collect ();
  let baseline = Global_counters.mem_used () in
  let per_device = Hashtbl.create 8 in
  let base_on d = match Hashtbl.find_opt per_device d with
    | Some v -> v
    | None -> let v = Global_counters.mem_used_on d in Hashtbl.replace per_device d v; v in
  List.iter (fun d -> ignore (base_on d)) (d0 :: dev_four @ devices_4);
  let used what amt =
    collect ();
    check_int ~what:("bytes used: " ^ what) amt (Global_counters.mem_used () - baseline) in
  let device_used what l =
    collect ();
    List.iter (fun (d, amt) ->
        check_int ~what:(Printf.sprintf "bytes used on %s: %s" d what) amt
          (Global_counters.mem_used_on d - base_on d)) l in
  body ~used ~device_used

let n_ram = 100
let zeros_realized () = T.realize (T.contiguous (T.zeros [| n_ram; n_ram |]))
let keep x = ignore (Sys.opaque_identity x)

(* [f ()] made in a frame of its own, so that no stack slot of the caller holds it when it is dropped *)
let[@inline never] drop f = ignore (Sys.opaque_identity (f ()))

(* tinygrad: Tensor.ones(256, buffer=False): the broadcast constant, no buffer *)
let const_ones n = T.expand (T.reshape (T.scalar 1.) [| 1 |]) [| n |]

(* tinygrad: _test_matmul_half — the bytes moved by a (sharded @ replicated) matmul of empty 32 x 32 matrices:
   half moves half of float's *)
let matmul_half_case dev_count () =
  let devs = List.init dev_count (Printf.sprintf "CPU:%d") in
  let mem dtype =
    Global_counters.reset ();
    let a = T.shard ~axis:0 (T.empty ~dtype ~device:(List.hd devs) [| 32; 32 |]) devs in
    let b = T.shard (T.empty ~dtype ~device:(List.hd devs) [| 32; 32 |]) devs in
    ignore (T.realize (T.matmul a b));
    Global_counters.global_mem () in
  let f = mem Dtype.Float32 and h = mem Dtype.Float16 in
  check_int ~what:(Printf.sprintf "half's bytes against float's %d / 2" f) (f / 2) h

let null_tests : case list = [
  ("ram_zeros", ram_case (fun ~used ~device_used:_ ->
       let t = zeros_realized () in used "zeros" (n_ram * n_ram * 4); keep t));
  ("ram_zeros_del", ram_case (fun ~used ~device_used:_ -> drop zeros_realized; used "dropped" 0));
  (* not in tinygrad's file: a dropped handle's buffer that a live lazy tensor still reads stays counted, and
     the lazy tensor computes from its values *)
  ("ram_zeros_read_after_drop", ram_case (fun ~used ~device_used:_ ->
       let[@inline never] reader () = T.add (zeros_realized ()) (T.scalar 1.) in
       let y = reader () in
       used "read by a lazy tensor" (n_ram * n_ram * 4);
       let v = T.to_float_array y in
       check_int ~what:"elements" (n_ram * n_ram) (Array.length v);
       if Array.exists (fun x -> x <> 1.) v then
         fail "0 + 1 computed from the dropped handle's buffer: not all 1"));
  ("ram_zeros_copy", ram_case (fun ~used ~device_used:_ ->
       let t = T.realize (T.to_devices (T.contiguous (T.zeros [| n_ram; n_ram |])) devices_2) in
       (* the one on the default device is freed *)
       used "copied to 2 devices" (n_ram * n_ram * 4 * 2); keep t));
  ("ram_zeros_shard", ram_case (fun ~used ~device_used:_ ->
       List.iter (fun devs ->
           let t = T.realize (T.shard ~axis:0 (T.contiguous (T.zeros [| n_ram; n_ram |])) devs) in
           used ("sharded on " ^ dev_list devs) (n_ram * n_ram * 4); keep t; collect ())
         [ devices_2; dev_pair ]));
  ("ram_zeros_contiguous_shard", ram_case (fun ~used ~device_used:_ ->
       let sharded = T.shard ~axis:0 (T.contiguous (T.zeros [| n_ram; n_ram |])) devices_2 in
       let t = T.realize (T.contiguous sharded) in
       used "sharded, contiguous" (n_ram * n_ram * 4); keep t));
  ("ram_sharded_memory_replicated", ram_case (fun ~used ~device_used:_ ->
       let x = T.realize (T.contiguous (T.ones [| 256 |])) in
       used "ones" (256 * 4);
       ignore (T.realize (T.shard_ x devices_4));
       used "replicated on 4" (256 * 4 * 4); keep x));
  ("ram_sharded_memory_const", ram_case (fun ~used ~device_used:_ ->
       List.iter (fun axis ->
           let x = T.realize (const_ones 256) in
           used "a constant" 0;
           ignore (T.realize (T.shard_ ?axis x devices_4));
           used ("a constant on 4, axis " ^ axis_name axis) 0; keep x) [ None; Some 0 ]));
  (* not in tinygrad's file: its refcount frees a dropped sharded result on every device *)
  ("ram_zeros_shard_del_per_device", ram_case (fun ~used:_ ~device_used ->
 drop (fun () -> T.realize (T.shard ~axis:0 (T.contiguous (T.zeros [| n_ram; n_ram |])) devices_2));
       device_used "sharded, dropped" [ (d1, 0); (d2, 0) ]));
  ("ram_zeros_per_device", ram_case (fun ~used:_ ~device_used ->
       let t = T.realize (T.contiguous (T.zeros ~device:d0 [| n_ram; n_ram |])) in
       device_used "zeros" [ (d0, n_ram * n_ram * 4) ]; keep t));
  ("ram_zeros_del_per_device", ram_case (fun ~used:_ ~device_used ->
 drop (fun () -> T.realize (T.contiguous (T.zeros ~device:d0 [| n_ram; n_ram |])));
       device_used "dropped" [ (d0, 0) ]));
  ("ram_zeros_copy_per_device", ram_case (fun ~used:_ ~device_used ->
       let t = T.realize (T.to_devices (T.contiguous (T.zeros [| n_ram; n_ram |])) devices_2) in
       device_used "copied" [ (d1, n_ram * n_ram * 4); (d2, n_ram * n_ram * 4) ]; keep t));
  ("ram_zeros_shard_per_device", ram_case (fun ~used:_ ~device_used ->
       let t = T.realize (T.shard ~axis:0 (T.contiguous (T.zeros [| n_ram; n_ram |])) devices_2) in
       device_used "sharded" [ (d1, n_ram * (n_ram / 2) * 4); (d2, n_ram * (n_ram / 2) * 4) ]; keep t));
  ("ram_sharded_memory_replicated_per_device", ram_case (fun ~used:_ ~device_used ->
       let x = T.realize (T.contiguous (T.ones ~device:d0 [| 256 |])) in
       device_used "ones" [ (d0, 256 * 4) ];
       ignore (T.realize (T.shard_ x devices_4));
       device_used "replicated" (List.map (fun d -> (d, 256 * 4)) devices_4); keep x));
  ("ram_matmul_half", matmul_half_case 2);
  ("ram_matmul_half_alt", matmul_half_case 4);
  (* tinygrad 0.14.0 on CPU:1, CPU:2: 51248 bytes after 2 layers and after 4 *)
  ("ram_multi_layer_allreduce", fun () ->
      let n = 32 in
      let make_inp () =
        let z axis = T.realize (T.shard ?axis (T.contiguous (T.zeros [| n; n |])) devices_2) in
        [ z None; z (Some 1); z (Some 0) ] in
      let run_layers n_layers =
        Global_counters.reset ();
        let f = Tiny_jit.create (function
            | [ x; w1; w2 ] ->
              let x = ref x in
              for _ = 1 to n_layers do x := T.matmul (T.matmul !x w1) w2 done;
              T.contiguous !x
            | _ -> assert false) in
        for _ = 1 to 3 do ignore (Tiny_jit.call f (make_inp ())) done;
        collect ();
        Global_counters.mem_used () in
      let mem_2 = run_layers 2 in
      let mem_4 = run_layers 4 in
      check_int ~what:"memory after 4 layers against 2 (it must not grow with the layers)" mem_2 mem_4);
  (* tinygrad's test uses bfloat16, which clang 14 cannot compile for the CPU (tinygrad 0.14.0 fails there
     too); ALLREDUCE_CAST narrows float16 sums the same way. tinygrad 0.14.0 on CPU:1, CPU:2 with float16:
     8832 and 8064 bytes *)
  ("ram_allreduce_cast_dtype_memory", fun () ->
      let mem cast =
        Global_counters.reset ();
        ctx [ (Helpers.allreduce_cast, cast); (Helpers.scache, 0) ] (fun () ->
            let x = T.shard ~axis:0 (T.empty ~dtype:Dtype.Float16 ~device:d1 [| 32; 32 |]) devices_2 in
            ignore (T.realize (T.sum ~axis:[ 0 ] x)));
        Global_counters.global_mem () in
      let m0 = mem 0 and m1 = mem 1 in
      if not (m1 < m0) then fail "ALLREDUCE_CAST=1 moved %d bytes, not fewer than %d without" m1 m0);
  ("scalar_alu_multi_times_replicated_scalar", fun () ->
      let x = T.shard ~axis:0 (T.contiguous (T.ones [| 4 |])) dev_pair in
      let r = T.mul x (T.to_devices (T.scalar 2.) dev_pair) in
      check_eq ~pp:shape_str ~eq:( = ) ~what:"shape"
        [| 4 |] (T.shape r);
      check_axis ~what:"axis" (Some 0) r;
      close ~what:"x * 2" (Array.make 4 2.) (floats r));
  ("scalar_alu_multi_add_replicated_scalar", fun () ->
      let x = T.shard ~axis:0 (T.contiguous (T.ones [| 4 |])) dev_pair in
      let r = T.add x (T.to_devices (T.scalar 1.) dev_pair) in
      check_axis ~what:"axis" (Some 0) r;
      close ~what:"x + 1" (Array.make 4 2.) (floats r));
  (* tinygrad: TestMultiScalarALU.test_multi_times_call_scalar. The body's PARAM stands for the whole sharded
     value, so the body's sum is over all of it (an allreduce inside the FUNCTION); tinygrad 0.14.0 gives 16
     on ones(4, 4) and 120 * x for x = 0..15 on CPU:0/CPU:1, split on either axis or replicated. Through
     UOp-level call/gettuple as tinygrad's test, and through Tensor.call *)
  ("scalar_alu_multi_times_call_scalar", fun () ->
      let body_of x =
        let t = T.of_uop (T.uop (T.as_param 0 x)) in
        let inner = if (T.uop t).op == Ops.Unshard then T.of_uop (T.uop t).src.(0) else t in
        T.sum inner in
      let per_dev_scalar body x = T.of_uop (Buffers.gettuple (Buffers.call (T.uop body) [ T.uop x ]) 0) in
      let x = T.shard ~axis:0 (T.contiguous (T.ones [| 4; 4 |])) dev_pair in
      let result = T.mul x (per_dev_scalar (body_of x) x) in
      check_eq ~pp:shape_str ~eq:( = ) ~what:"shape" [| 4; 4 |] (T.shape result);
      check_axis ~what:"axis" (Some 0) result;
      close ~what:"ones * sum(ones)" (Array.make 16 16.) (floats (T.realize result));
      let xs = Array.init 16 float_of_int in
      List.iter (fun axis ->
          let x = T.realize (T.shard ?axis (T.contiguous (T.of_float_array [| 4; 4 |] xs)) dev_pair) in
          let body = body_of x in
          let what how = Printf.sprintf "x * sum(x) %s, axis %s" how (axis_name axis) in
          let by_uop = T.mul x (per_dev_scalar body x) and by_tensor = T.mul x (T.call ~fxn:body [ x ]) in
          check_axis ~what:(what "axis") axis by_uop;
          close ~what:(what "by UOp.call") (Array.map (fun v -> 120. *. v) xs) (floats by_uop);
          close ~what:(what "by Tensor.call") (Array.map (fun v -> 120. *. v) xs) (floats by_tensor))
        [ Some 0; Some 1; None ]);
  (* not in tinygrad's file: an arg whose shape is not its PARAM's is refused when the FUNCTION is inlined
     (tinygrad's resolve_function raises "arg 0 shape mismatch" there too) *)
  ("call_arg_shape_mismatch", fun () ->
      let body = T.sum (T.as_param 0 (T.empty [| 4; 4 |])) in
      raises_invalid ~mentions:"shape mismatch" ~what:"a (2, 8) arg for a (4, 4) PARAM" (fun () ->
          T.realize (T.call ~fxn:body [ T.contiguous (T.ones [| 2; 8 |]) ])));
  (* not in tinygrad's file: gradients through a FUNCTION (tinygrad's call_gradient), on one device and
     sharded; values derived by hand, and tinygrad 0.14.0 gives the same: y = a * b + a,
     d(sum(y * w))/da = w * (b + 1) and /db = w * a; d(sum(x * x))/dx = 2x, split like x *)
  ("call_gradient", fun () ->
      let of_list l = T.of_float_array [| List.length l |] (Array.of_list l) in
      let a = of_list [ 1.; 2.; 3.; 4. ] and b = of_list [ 5.; -1.; 0.5; 2. ] in
      let w = of_list [ 1.; 2.; 3.; 4. ] in
      let body = T.add (T.mul (T.as_param 0 a) (T.as_param 1 b)) (T.as_param 0 a) in
      let y = T.call ~fxn:body [ a; b ] in
      (match T.gradient (T.sum (T.mul y w)) [ a; b ] with
       | [ ga; gb ] ->
         close ~what:"y" [| 6.; 0.; 4.5; 12. |] (floats y);
         close ~what:"dL/da" [| 6.; 0.; 4.5; 12. |] (floats ga);
         close ~what:"dL/db" [| 1.; 4.; 9.; 16. |] (floats gb)
       | _ -> fail "two gradients expected");
      let x = T.shard ~axis:0 (of_list [ 1.; 2.; 3.; 4. ]) dev_pair in
      let s = T.call ~fxn:(T.sum (T.mul (T.as_param 0 x) (T.as_param 0 x))) [ x ] in
      match T.gradient s [ x ] with
      | [ gx ] ->
        close ~what:"sum(x * x)" [| 30. |] (floats s);
        check_axis ~what:"dx's axis" (Some 0) gx;
        close ~what:"d sum(x * x)/dx" [| 2.; 4.; 6.; 8. |] (floats gx)
      | _ -> fail "one gradient expected");
  ("axis_reshape_shard_invalid", fun () ->
      let t = T.shard ~axis:0 (T.ones [| 4; 3 |]) dev_pair in
      raises_invalid ~mentions:"moved items between shards" ~what:"reshape (4, 3) split on axis 0 to (3, 4)"
        (fun () ->
          T.shard_axis (T.reshape t [| 3; 4 |])));
  ("axis_reshape_shard_valid", fun () ->
      let t = T.shard ~axis:0 (T.ones [| 4; 8 |]) dev_pair in
      check_axis ~what:"reshape (2, 16)" (Some 0) (T.reshape t [| 2; 16 |]);
      check_axis ~what:"reshape (2, 2, 8)" (Some 0) (T.reshape t [| 2; 2; 8 |]));
  ("axis_uop_shard_axis_none", fun () ->
      let u = T.uop (T.realize (T.contiguous (T.ones [| 8 |]))) in
      let axis_of a = Uop.axis (Multi.shard u dev_pair a) in
      check_eq ~pp:axis_name ~eq:( = ) ~what:"shard without an axis" None (axis_of None);
      check_eq ~pp:axis_name ~eq:( = ) ~what:"shard on axis 0" (Some 0) (axis_of (Some 0)));
  ("axis_empty_like_sharded", fun () ->
      let t = T.shard ~axis:0 (T.ones [| 4; 8 |]) dev_pair in
      let e = T.empty_like t in
      check_eq ~pp:shape_str ~eq:( = ) ~what:"shape"
        (T.shape t) (T.shape e);
      check_devices ~what:"devices" (T.devices t) e;
      check_axis ~what:"axis" (Some 0) e;
      check_bool ~what:"has buffer identity" true (Buffers.has_buffer_identity (T.uop e)));
  ("axis_symbolic_reshape_shard_axis", fun () ->
      let rows = Variable.bind (Variable.create "rows" 1 4) 3 in
      let x = T.shard ~axis:1 (T.empty [| 4; 2 |]) devices_2 in
      let x = T.Sym.shrink x [| (Sint.of_int 0, rows); (Sint.of_int 0, Sint.of_int 2) |] in
      check_axis ~what:"reshape (rows, 1, 2)" (Some 2)
        (T.Sym.reshape x [| rows; Sint.of_int 1; Sint.of_int 2 |]));
]

(* the final line of a fresh test process running the cases [filter] selects (the shard of this run unset) *)
let final_line_of_fresh_process filter =
  let out = Filename.temp_file "tg_null" ".out" in
  let exe = Sys.executable_name in
  let exe = if Filename.is_relative exe then Filename.concat (Sys.getcwd ()) exe else exe in
  let rc = Sys.command (Printf.sprintf "env -u TEST_SHARD TEST_FILTER=%s %s > %s 2>&1" (Filename.quote filter)
                          (Filename.quote exe) (Filename.quote out)) in
  let lines = List.filter (fun l -> String.trim l <> "") (String.split_on_char '\n' (read_file out)) in
  Sys.remove out;
  (rc, match List.rev lines with l :: _ -> String.trim l | [] -> "")

(* the byte counts hold whatever ran before in the process: each selection of the ram cases, run first in a
   process of its own, passes whole (the dropped tensor's buffer is not kept by the first realize's walks) *)
let fresh_process_tests : case list = [
  ("fresh_process_ram_cases", fun () ->
      List.iter (fun (filter, n) ->
          let rc, line = final_line_of_fresh_process filter in
          check_str ~what:(Printf.sprintf "TEST_FILTER=%s alone" filter)
            (Printf.sprintf "%d passed, 0 failed, 0 skipped" n) line;
          check_int ~what:(Printf.sprintf "TEST_FILTER=%s exit code" filter) 0 rc)
        [ ("multitensor_null.ram_zeros_d", 2); ("multitensor_null.ram_zeros_c", 3);
          ("multitensor_null.ram_zeros_r", 1); ("multitensor_null.ram_zeros", 11) ]);
]

let tests = null_tests @ fresh_process_tests
