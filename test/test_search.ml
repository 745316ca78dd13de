(* BEAM search (codegen/opt/search): the action list against tinygrad 0.14.0's, and the CPU search of CPU_OPT=fast
   against the NOOPT kernel's values. *)

open Tinygrad.Compiler
open Test_util

(* tinygrad 0.14.0's search.py [actions] with its defaults (TC=1, TC_OPT=2, no BEAM_PADTO, no NOLOCALS), each as
   OP:axis:arg, in order (printed from tinygrad's module) *)
let tinygrad_actions = String.split_on_char ' ' (String.concat " " (List.map String.trim (String.split_on_char '\n' {|
    UPCAST:0:0 UPCAST:1:0 UPCAST:2:0 UPCAST:3:0 UPCAST:4:0 UPCAST:5:0 UPCAST:6:0 UPCAST:7:0 UPCAST:0:2 UPCAST:1:2
    UPCAST:2:2 UPCAST:3:2 UPCAST:4:2 UPCAST:5:2 UPCAST:6:2 UPCAST:7:2 UPCAST:0:3 UPCAST:1:3 UPCAST:2:3 UPCAST:3:3
    UPCAST:4:3 UPCAST:5:3 UPCAST:6:3 UPCAST:7:3 UPCAST:0:4 UPCAST:1:4 UPCAST:2:4 UPCAST:3:4 UPCAST:4:4 UPCAST:5:4
    UPCAST:6:4 UPCAST:7:4 UPCAST:0:5 UPCAST:1:5 UPCAST:2:5 UPCAST:3:5 UPCAST:4:5 UPCAST:5:5 UPCAST:6:5 UPCAST:7:5
    UPCAST:0:7 UPCAST:1:7 UPCAST:2:7 UPCAST:3:7 UPCAST:4:7 UPCAST:5:7 UPCAST:6:7 UPCAST:7:7 UNROLL:0:0 UNROLL:1:0
    UNROLL:2:0 UNROLL:3:0 UNROLL:4:0 UNROLL:0:4 UNROLL:1:4 UNROLL:2:4 UNROLL:3:4 UNROLL:4:4 UNROLL:0:7 UNROLL:1:7
    UNROLL:2:7 UNROLL:3:7 UNROLL:4:7 LOCAL:0:2 LOCAL:1:2 LOCAL:2:2 LOCAL:3:2 LOCAL:4:2 LOCAL:5:2 LOCAL:0:3 LOCAL:1:3
    LOCAL:2:3 LOCAL:3:3 LOCAL:4:3 LOCAL:5:3 LOCAL:0:4 LOCAL:1:4 LOCAL:2:4 LOCAL:3:4 LOCAL:4:4 LOCAL:5:4 LOCAL:0:8
    LOCAL:1:8 LOCAL:2:8 LOCAL:3:8 LOCAL:4:8 LOCAL:5:8 LOCAL:0:13 LOCAL:1:13 LOCAL:2:13 LOCAL:3:13 LOCAL:4:13
    LOCAL:5:13 LOCAL:0:16 LOCAL:1:16 LOCAL:2:16 LOCAL:3:16 LOCAL:4:16 LOCAL:5:16 LOCAL:0:29 LOCAL:1:29 LOCAL:2:29
    LOCAL:3:29 LOCAL:4:29 LOCAL:5:29 GROUPTOP:0:13 GROUPTOP:1:13 GROUPTOP:2:13 GROUPTOP:0:16 GROUPTOP:1:16
    GROUPTOP:2:16 GROUPTOP:0:28 GROUPTOP:1:28 GROUPTOP:2:28 GROUPTOP:0:29 GROUPTOP:1:29 GROUPTOP:2:29 GROUPTOP:0:32
    GROUPTOP:1:32 GROUPTOP:2:32 GROUPTOP:0:49 GROUPTOP:1:49 GROUPTOP:2:49 GROUPTOP:0:64 GROUPTOP:1:64 GROUPTOP:2:64
    GROUPTOP:0:256 GROUPTOP:1:256 GROUPTOP:2:256 GROUP:0:0 GROUP:1:0 GROUP:2:0 GROUP:0:4 GROUP:1:4 GROUP:2:4
    GROUP:0:8 GROUP:1:8 GROUP:2:8 GROUP:0:16 GROUP:1:16 GROUP:2:16 LOCAL:0:32 LOCAL:6:2 TC:0:(-1,0,1) TC:0:(-1,2,1)
    TC:1:(-1,2,1) TC:2:(-1,2,1) TC:3:(-1,2,1) TC:4:(-1,2,1) TC:5:(-1,2,1) TC:6:(-1,2,1) TC:7:(-1,2,1) TC:8:(-1,2,1)
    SWAP:0:1 SWAP:0:2 SWAP:0:3 SWAP:0:4 SWAP:1:2 SWAP:1:3 SWAP:1:4 SWAP:2:3 SWAP:2:4 SWAP:3:4 THREAD:0:2 THREAD:1:2
    THREAD:2:2 THREAD:0:3 THREAD:1:3 THREAD:2:3 THREAD:0:4 THREAD:1:4 THREAD:2:4 THREAD:0:5 THREAD:1:5 THREAD:2:5
    THREAD:0:8 THREAD:1:8 THREAD:2:8 THREAD:0:12 THREAD:1:12 THREAD:2:12 THREAD:0:16 THREAD:1:16 THREAD:2:16
    THREAD:0:24 THREAD:1:24 THREAD:2:24 THREAD:0:32 THREAD:1:32 THREAD:2:32 THREAD:0:64 THREAD:1:64 THREAD:2:64
|})))
  |> List.filter (fun s -> s <> "")

let action_str (o : Opt.t) = String.concat "" (String.split_on_char ' ' (Test_opts.our_opt o))

(* under CPU_OPT=tinygrad the CPU's action list is tinygrad's, element for element; under CPU_OPT=fast it is
   tinygrad's followed by upcasts and unrolls by 8 and by the forced vector width (16) and cache BLOCKs *)
let test_actions () =
  let ren = Device.renderer "CPU" in
  let tg = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_tinygrad) ] (fun () -> List.map action_str (Search.kernel_actions ren)) in
  check_int ~what:"CPU_OPT=tinygrad action count" (List.length tinygrad_actions) (List.length tg);
  List.iteri (fun i (a, b) -> check (a = b) "action %d: ours %s, tinygrad %s" i a b) (List.combine tg tinygrad_actions);
  let fast = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (cpu_vec, 16) ]
      (fun () -> List.map action_str (Search.kernel_actions ren)) in
  check (Helpers.take (List.length tinygrad_actions) fast = tinygrad_actions) "CPU_OPT=fast: tinygrad's actions are not first";
  List.iter (fun a -> check (List.mem a fast) "CPU_OPT=fast: no %s" a)
    [ "UPCAST:0:16"; "UPCAST:7:8"; "UNROLL:4:16"; "UNROLL:0:8"; "BLOCK:0:2"; "BLOCK:2:8" ]

(* the CPU search (CPU_OPT=fast, CPU_VEC=16, not skipped for being short) of a 64x64 @ 64x64 matmul: the actions
   offered on the hand-coded kernel include one of the CPU's, the beam starts from the hand-coded kernel (its opts
   come first in the result) and the kernel found gives the NOOPT kernel's buffers *)
let test_cpu_beam () =
  let a = Tensor.realize (Tensor.rand [| 64; 64 |]) and b = Tensor.realize (Tensor.rand [| 64; 64 |]) in
  match Test_opts.reduce_kernels (Tensor.matmul a b) with
  | [ ast ] ->
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (cpu_vec, 16); Bind (no_color, 1) ] @@ fun () ->
    let ren = Device.renderer "CPU" in
    let sched () = let s = Postrange.create ast ren in Postrange.convert_loop_to_global s; s in
    let hc = Postrange.hand_coded ~heuristic:Codegen.hand_coded_optimizations (sched ()) in
    let n_tg = List.length tinygrad_actions in
    (* the search's upcast limit on the CPU: 4x BEAM_UPCAST_MAX *)
    check (List.exists (fun (i, _) -> i > n_tg) (Search.get_kernel_actions ~max_up:(4 * Helpers.beam_upcast_max.value) hc))
      "no CPU action applies to the hand-coded kernel";
    let n0 = (Search.searches ()) in
    let r = Search.beam_search ~disable_cache:true ~min_time:0. (sched ()) 2 in
    check_int ~what:"searches run" (n0 + 1) (Search.searches ());
    let hopts = List.map action_str hc.applied_opts and ropts = List.map action_str r.applied_opts in
    Printf.printf "search cpu_beam: hand-coded [%s], BEAM=2 [%s]\n" (String.concat " " hopts) (String.concat " " ropts);
    check (List.filteri (fun i _ -> i < List.length hopts) ropts = hopts) "the result does not extend the hand-coded opts";
    let opt_ast = Postrange.get_optimized_ast r in
    Test_opts.same_buffers ~what:"beam" (Test_opts.run_with ~vec:16 ~noopt:1 ast) (Test_opts.run_with ~vec:16 ~noopt:0 opt_ast)
  | l -> fail "%d reduce kernels, expected 1" (List.length l)

(* [shrink_loops]: the hand-coded 512x512 @ 512x512 matmul cut by 8 keeps its reduce and tile and runs about 1/8 of
   its output loops; the ratio is the product of the loops before over after *)
let test_shrink_loops () =
  let a = Tensor.realize (Tensor.rand [| 512; 512 |]) and b = Tensor.realize (Tensor.rand [| 512; 512 |]) in
  match Test_opts.reduce_kernels (Tensor.matmul a b) with
  | [ ast ] ->
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (cpu_vec, 16) ] @@ fun () ->
    let s = Postrange.create ast (Device.renderer "CPU") in
    Postrange.convert_loop_to_global s;
    let hc = Postrange.hand_coded ~heuristic:Codegen.hand_coded_optimizations s in
    let size k types = List.fold_left ( * ) 1 (List.map (fun a -> Postrange.sint_int (List.nth (Postrange.full_shape k) a))
                                                 (Postrange.axes_of k types)) in
    let cut, ratio = Search_cpu.shrink_loops hc 8. in
    let loops = Uop.[ Global; Loop; Weak ] in
    check (size hc loops > 8) "the hand-coded kernel has %d output loop iterations" (size hc loops);
    check (Float.abs (ratio -. float_of_int (size hc loops) /. float_of_int (size cut loops)) < 1e-9) "ratio %g" ratio;
    check (ratio >= 8. && ratio <= 16.) "ratio %g, expected about 8" ratio;
    List.iter (fun t -> check_int ~what:"size kept" (size hc [ t ]) (size cut [ t ])) Uop.[ Reduce; Upcast; Unroll; Thread ];
    let same, r1 = Search_cpu.shrink_loops hc 1.5 in
    check (same == hc && r1 = 1.) "a fraction under 2 cut the kernel"
  | l -> fail "%d reduce kernels, expected 1" (List.length l)

(* the CPU search under a BEAM_UOPS_MAX that the hand-coded 64x64 @ 64x64 matmul exceeds: the search still starts
   from the hand-coded kernel (what runs without BEAM, never held to the limit) and returns it, as no candidate
   compiles under the limit, where it would otherwise start from the kernel without opts *)
let test_cpu_beam_uops_max () =
  let a = Tensor.realize (Tensor.rand [| 64; 64 |]) and b = Tensor.realize (Tensor.rand [| 64; 64 |]) in
  match Test_opts.reduce_kernels (Tensor.matmul a b) with
  | [ ast ] ->
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (cpu_vec, 16); Bind (no_color, 1); Bind (beam_uops_max, 50) ]
    @@ fun () ->
    let ren = Device.renderer "CPU" in
    let sched () = let s = Postrange.create ast ren in Postrange.convert_loop_to_global s; s in
    let hc = Postrange.hand_coded ~heuristic:Codegen.hand_coded_optimizations (sched ()) in
    check (hc.applied_opts <> []) "the hand-coded kernel has no opts";
    let r = Search.beam_search ~disable_cache:true ~min_time:0. (sched ()) 2 in
    check (List.map action_str r.applied_opts = List.map action_str hc.applied_opts)
      "BEAM=2 under BEAM_UOPS_MAX=50 gave [%s], expected the hand-coded [%s]"
      (String.concat " " (List.map action_str r.applied_opts)) (String.concat " " (List.map action_str hc.applied_opts))
  | l -> fail "%d reduce kernels, expected 1" (List.length l)

(* a disk cache entry holding a BLOCK (written as the search writes one) answers BEAM=2 on a 64x128 @ 128x256
   matmul under CPU_OPT=fast: no search runs, and the kernel has the entry's opts, the block loop among its loops *)
let test_cached_block () =
  let a = Tensor.realize (Tensor.rand [| 64; 128 |]) and b = Tensor.realize (Tensor.rand [| 128; 256 |]) in
  match Test_opts.reduce_kernels (Tensor.matmul a b) with
  | [ ast ] ->
    Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast); Bind (cpu_vec, 16); Bind (no_color, 1) ] @@ fun () ->
    let ren = Device.renderer "CPU" in
    (* the scheduler takes the loop opts of the mode's passes, as Codegen's apply_opts gives them *)
    let s = Postrange.create ~loop_opts:(Codegen.passes ren).loop_opts ast ren in
    Postrange.convert_loop_to_global s;
    let path = Search.cache_path s 2 (Helpers.beam_estimate.value <> 0) in
    Helpers.mkdir_p (Filename.dirname path);
    let oc = open_out_bin path in
    output_string oc "beam_search v2\nUPCAST 1 16\nUPCAST 0 8\nBLOCK 1 4\nend\n";
    close_out oc;
    let n0 = (Search.searches ()) in
    let r = Search.beam_search s 2 in
    Sys.remove path;
    check_int ~what:"searches run" n0 (Search.searches ());
    check (List.map action_str r.applied_opts = [ "UPCAST:1:16"; "UPCAST:0:8"; "BLOCK:1:4" ])
      "opts [%s]" (String.concat " " (List.map action_str r.applied_opts));
    check (List.map Postrange.sint_int (Postrange.full_shape r) = [ 4; 8; 4; 16; 8; 128 ])
      "shape %s" (Postrange.colored_shape r)
  | l -> fail "%d reduce kernels, expected 1" (List.length l)

let tests : case list = [ ("actions", test_actions); ("shrink_loops", test_shrink_loops); ("cpu_beam", test_cpu_beam);
                          ("cpu_beam_uops_max", test_cpu_beam_uops_max); ("cached_block", test_cached_block) ]
