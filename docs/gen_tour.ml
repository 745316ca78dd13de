(* Prints docs/tour.md: a guided tour of the compiler, every quoted output produced here by the real code.
   Regenerate with `make tour`; test/test_docs.ml fails when the committed tour differs from this program's
   output. Keep it deterministic: no timings, no addresses, no absolute paths, fixed seeds, pinned knobs. *)

open Tinygrad.Compiler

(* ---------- output ---------- *)

let md = Buffer.create 65536
let p s = Buffer.add_string md s; Buffer.add_char md '\n'
let pf fmt = Printf.ksprintf p fmt
let code ?(lang = "") s =
  let rec lstrip s = if String.length s > 0 && s.[0] = '\n' then lstrip (String.sub s 1 (String.length s - 1)) else s in
  let s = lstrip s in
  let s = if String.length s > 0 && s.[String.length s - 1] = '\n' then String.sub s 0 (String.length s - 1) else s in
  pf "```%s\n%s\n```\n" lang s

(* ---------- instruments ---------- *)

(* the named graph_rewrites run by [f] at the outermost level (the passes), each with its input and output *)
let trace_passes f =
  let depth = ref 0 and log = ref [] in
  let trace name inp run =
    incr depth;
    let out = Fun.protect ~finally:(fun () -> decr depth) run in
    if !depth = 0 then log := (name, inp, out) :: !log;
    out in
  let r = Upat.with_rewrite_tracer trace f in
  (r, List.rev !log)

(* what [f] prints on stdout (the DEBUG printers write there), ANSI colors removed *)
let capture_stdout f =
  flush stdout;
  let tmp = Filename.temp_file "tour" ".txt" in
  let fd = Unix.openfile tmp [ Unix.O_WRONLY; Unix.O_TRUNC ] 0o600 in
  let saved = Unix.dup Unix.stdout in
  Unix.dup2 fd Unix.stdout;
  Unix.close fd;
  let r = Fun.protect f ~finally:(fun () -> flush stdout; Unix.dup2 saved Unix.stdout; Unix.close saved) in
  let ic = open_in_bin tmp in
  let s = really_input_string ic (in_channel_length ic) in
  close_in ic;
  Sys.remove tmp;
  (r, Helpers.ansistrip s)

let strip_prefix pre s =
  let n = String.length pre in
  if String.length s >= n && String.sub s 0 n = pre then String.sub s n (String.length s - n) else s

let op_name (u : Uop.t) = strip_prefix "Ops." (Ops.to_string u.op)
let dtype_name dt = strip_prefix "dtypes." (Dtype.to_string dt)

(* one line per node, sources by line number, constants inline: a compact print_uops *)
let listing ?(mark = fun _ -> false) (nodes : Uop.t list) =
  let index = Uop.Tbl.create 64 in
  List.iteri (fun i u -> Uop.Tbl.replace index u i) nodes;
  String.concat "" (List.mapi (fun i (u : Uop.t) ->
      let srcs = Array.to_list (Array.map (fun (x : Uop.t) ->
          if x.op == Ops.Const then Dtype.const_to_string (Uop.const_val x)
          else match Uop.Tbl.find_opt index x with Some j -> string_of_int j | None -> "?") u.src) in
      let arg = match u.arg with
        | Uop.No_arg -> ""
        | Uop.Kernel_info k -> Printf.sprintf "KernelInfo(name=%s, opts=[%s])" k.kname
                                 (String.concat "; " (List.map Opt.to_string k.applied_opts))
        | a -> Uop.arg_to_string a in
      let line = Printf.sprintf "%s%3d %-8s %-8s %-16s %s" (if mark u then "+" else " ") i (op_name u)
          (dtype_name u.dtype) ("(" ^ String.concat ", " srcs ^ ")") arg in
      let rec rstrip s =
        if s <> "" && s.[String.length s - 1] = ' ' then rstrip (String.sub s 0 (String.length s - 1)) else s in
      rstrip line ^ "\n") nodes)

(* "+2 LOAD, -1 REDUCE": how the op counts changed *)
let op_delta (a : Uop.t) (b : Uop.t) =
  let count u =
    let t = Hashtbl.create 16 in
    List.iter (fun x -> let k = op_name x in Hashtbl.replace t k (1 + Option.value (Hashtbl.find_opt t k) ~default:0))
      (Uop.toposort u);
    t in
  let ca = count a and cb = count b in
  let keys = List.sort_uniq compare (Hashtbl.fold (fun k _ l -> k :: l) ca [] @ Hashtbl.fold (fun k _ l -> k :: l) cb []) in
  let parts = List.filter_map (fun k ->
      let d = Option.value (Hashtbl.find_opt cb k) ~default:0 - Option.value (Hashtbl.find_opt ca k) ~default:0 in
      if d = 0 then None else Some (Printf.sprintf "%+d %s" d k)) keys in
  if parts = [] then "same ops, new nodes" else String.concat ", " parts

let source_of_program (prg : Uop.t) =
  match List.find_opt (fun (x : Uop.t) -> x.op == Ops.Source) (Array.to_list prg.src) with
  | Some { arg = Uop.Str s; _ } -> s
  | _ -> failwith "gen_tour: PROGRAM without SOURCE"

let linear_of_program (prg : Uop.t) =
  match List.find_opt (fun (x : Uop.t) -> x.op == Ops.Linear) (Array.to_list prg.src) with
  | Some l -> Array.to_list l.src
  | None -> failwith "gen_tour: PROGRAM without LINEAR"

let info_of_program (prg : Uop.t) =
  match prg.arg with Uop.Program_info i -> i | _ -> failwith "gen_tour: not a PROGRAM"

let kernel_info (sink : Uop.t) = match sink.arg with Uop.Kernel_info k -> Some k | _ -> None

let sints l = "[" ^ String.concat ", " (List.map Uop.sint_to_string l) ^ "]"

let same_text what ours theirs =
  if String.trim ours = String.trim theirs then pf "Identical to %s." what
  else pf "**Differs from %s** (recorded in `docs/gen_tour.ml`): the port changed, or tinygrad's output was re-recorded." what

(* ---------- what tinygrad 0.14.0 prints (DEBUG=4 / DEBUG=2), recorded from /work/ref/venv ---------- *)

let tinygrad_noopt_c = {|void r_4_4(float* restrict data0_4, float* restrict data1_16, float* restrict data2_16) {
  float buf0[1];
  for (int Lidx1 = 0; Lidx1 < 4; Lidx1++) {
    *(buf0+0) = 0.0f;
    for (int Ridx0 = 0; Ridx0 < 4; Ridx0++) {
      int alu1 = ((Lidx1<<2)+Ridx0);
      float val0 = (*(data1_16+alu1));
      float val1 = (*(data2_16+alu1));
      float alu2 = (val0+val1);
      float alu3 = ((0.0f<alu2)?alu2:0.0f);
      *(buf0+0) = ((*(buf0+0))+alu3);
    }
    *(data0_4+Lidx1) = (*(buf0+0));
  }
}|}

let tinygrad_opt_c = {|typedef float float4 __attribute__((aligned(16),ext_vector_type(4)));
void r_4_4(float* restrict data0_4, float* restrict data1_16, float* restrict data2_16) {
  for (int Lidx1 = 0; Lidx1 < 4; Lidx1++) {
    int alu0 = (Lidx1<<2);
    float4 val0 = (*((float4*)((data1_16+alu0))));
    float4 val1 = (*((float4*)((data2_16+alu0))));
    float alu1 = (val0[0]+val1[0]);
    float alu2 = (val0[1]+val1[1]);
    float alu3 = (val0[2]+val1[2]);
    float alu4 = (val0[3]+val1[3]);
    float alu5 = ((0.0f<alu1)?alu1:0.0f);
    float alu6 = ((0.0f<alu2)?alu2:0.0f);
    float alu7 = ((0.0f<alu3)?alu3:0.0f);
    float alu8 = ((0.0f<alu4)?alu4:0.0f);
    *(data0_4+Lidx1) = (alu5+alu6+alu7+alu8);
  }
}|}

let tinygrad_cuda_c = {|typedef unsigned int uint;
#define INFINITY (__int_as_float(0x7f800000))
#define NAN (__int_as_float(0x7fffffff))
template <class T, class F> __device__ __forceinline__ T tg_bitcast(F v) { union U { F f; T t; }; U u; u.f = v; return u.t; }
extern "C" __global__ void __launch_bounds__(4) r_4_4(float* data0_4, float* data1_16, float* data2_16) {
  int lidx0 = threadIdx.x; /* 4 */
  int alu0 = (lidx0<<2);
  float4 val0 = (*((float4*)((data1_16+alu0))));
  float4 val1 = (*((float4*)((data2_16+alu0))));
  float alu1 = (val0.x+val1.x);
  float alu2 = (val0.y+val1.y);
  float alu3 = (val0.z+val1.z);
  float alu4 = (val0.w+val1.w);
  float alu5 = ((0.0f<alu1)?alu1:0.0f);
  float alu6 = ((0.0f<alu2)?alu2:0.0f);
  float alu7 = ((0.0f<alu3)?alu3:0.0f);
  float alu8 = ((0.0f<alu4)?alu4:0.0f);
  *(data0_4+lidx0) = (alu5+alu6+alu7+alu8);
}|}

let tinygrad_mlp_calls =
  [ "r_4_16_8"; "copy 4 B, CPU <- PYTHON"; "r_4_4_16"; "r_4_4"; "r_4_4"; "r_4"; "E_4"; "E_4_4"; "r_16_4_4"; "r_4_16_4";
    "r_4_4"; "r_16_8_4"; "r_16_4"; "E_16_4"; "E_4"; "E_32_4"; "E_4_4" ]
let tinygrad_mlp_loss = "1.3454"  (* 1.3453850746154785; 4 digits: FMA contraction may differ between machines *)

(* ---------- the passes of full_rewrite_to_sink, explained ---------- *)

let pass_notes = [
  "early movement ops", "`Rangeify.pm_mops`: movement ops still in the AST are pushed into INDEX expressions.";
  "load collapse", "`Simplify.pm_load_collapse`: a reduce that only selects one element (indexing by a tensor) collapses.";
  "split ranges", "`Simplify.pm_split_ranges`: a RANGE used as `r//n` and `r%n` is split in two ranges.";
  "initial symbolic", "`Symbolic.sym`: the symbolic simplifier (constant folding, algebra on index expressions).";
  "simplify ranges", "`Simplify.pm_simplify_ranges`: adjacent ranges that are always used together merge into one.";
  "flatten range", "run inside `Postrange.apply_opts` (the optimizer): ranges are listed flat on their END/REDUCE.";
  "postopt symbolic", "symbolic again, WHERE moved onto loads, REDUCEs whose ranges disappeared are folded.";
  "expander", "`Codegen.expander2`: UPCAST/UNROLL ranges become vectors (shaped values) and horizontal reduces.";
  "remove reduces", "`Codegen.pm_reduce_local`: a REDUCE becomes an accumulator, a BUFFER in registers (REG) set to the \
                     identity before the loop, updated inside it (AFTER/STORE/END) and read after it.";
  "add local buffers", "LOCAL (shared-memory) staging buffers for GPUs; nothing to do here.";
  "add gpudims", "`Gpudims.pm_add_gpudims`: on a GPU, global and local ranges become thread indices (SPECIAL).";
  "*** expand broadcast / add loads", "`Codegen.pm_add_loads` and `pm_expand_broadcast`: every read of memory gets an \
                                       explicit LOAD, and operands are broadcast to their users' vector shape.";
  "devectorize2", "`Codegen.devectorizer2`: vector ops become scalar ops (or float4 loads/stores); the accumulator is \
                   indexed as element 0 of its one-element buffer.";
  "early symbolic", "symbolic again: some coalescing needs it.";
  "add images", "symbolic_simple, `Codegen.ew_devectorizer` (elementwise ops on vectors split per lane) and the image \
                  rules (not used here); here it simplifies away nodes the coalescing step made (the row before it).";
  "extra symbolic", "symbolic plus `Coalesce.indexing_simplify`, while indices are still `weakint`.";
  "lower all index dtypes", "`Weak.pm_lower_index_dtype`: index arithmetic is `weakint` (unbounded) until now; it gets \
                             the smallest concrete dtype its bounds allow, here `int`.";
  "final symbolic", "symbolic once more before the decompositions.";
  "cast float alu operands", "SIN/LOG2/EXP2/SQRT/RECIPROCAL get operands of their own float dtype.";
  "early decompositions", "`Decomp_op.get_simplifying_rewrite_patterns`: ops the renderer does not have are rewritten \
                           in simpler ones; C has no MAX op, so MAX becomes a compare and a WHERE.";
  "decomp dtypes", "`Decomp_dtype`: dtypes the device lacks are emulated; weak dtypes are committed.";
  "late decompositions", "`Decomp_op.get_late_rewrite_patterns` and `Transcendental` (exp2/log2/sin as polynomials \
                          where the device lacks them); a multiply by a power of two becomes a shift.";
  "move gates from index", "`Gater`: conditions on INDEX move to the LOAD/STORE they guard.";
  "final rewrite", "the renderer's own rules (`extra_matcher`), ENDs split per range, Invalid removed.";
  "casted consts", "every constant of a concrete dtype becomes `CAST(dtype, CONST)`, as tinygrad spells literals.";
  "add implicit barriers", "barriers between writes and reads of LOCAL memory (GPU only).";
  "add control flow", "`Linearizer.pm_add_control_flow`: ranges get edges to what must run before them, so a \
                       toposort is a valid program order.";
  "number params with -1", "Variables without a slot get one after the buffers.";
]

let md_escape name = String.concat "\\*" (String.split_on_char '*' name)

(* one row per pass; a row "(between passes)" where the graph changed outside a named graph_rewrite *)
let pass_table (log : (string * Uop.t * Uop.t) list) =
  p "| # | pass (graph_rewrite name) | nodes | what changed |";
  p "|---|---|---|---|";
  let n u = List.length (Uop.toposort u) in
  let prev = ref None and i = ref 0 in
  List.iter (fun (name, inp, out) ->
      (match !prev with
       | Some o when o != inp -> pf "| | (between passes) | %d -> %d | %s |" (n o) (n inp) (op_delta o inp)
       | _ -> ());
      incr i;
      pf "| %d | %s | %d -> %d | %s |" !i (md_escape name) (n inp) (n out)
        (if inp == out then "unchanged" else op_delta inp out);
      prev := Some out) log;
  p ""

(* ---------- the tour ---------- *)

let header () =
  p "# A guided tour of the compiler";
  p "";
  p "<!-- Generated by docs/gen_tour.ml (`make tour`); do not edit by hand. test/test_docs.ml checks that this file \
     is what the generator prints now. -->";
  p "";
  p "This tour follows two small programs through every stage of the port, from the lazy tensor graph to C source \
     and a kernel launch. Every block of output below is printed by `docs/gen_tour.ml` calling the real modules, \
     and a test fails when this file and the program's output drift apart, so what you read is what the code does.";
  p "";
  p "Each stage names the OCaml module and the tinygrad 0.14.0 file it ports: read them side by side. The \
     generator pins the knobs that change generated code (`NUM_CPU_THREADS=8`, `THREADS=1`, `DEBUG=0`, \
     `BEAM=0`; `NOOPT` as each section says), so the tour reads the same on every machine.";
  p "";
  p "Notation: graphs are printed as tinygrad prints a UOp (`UOp(Ops.ADD, dtypes.float, arg=..., src=(...))`, a \
     node used twice is named `x3:=` the first time and `x3` after). Long graphs are printed as a listing, one \
     node per line in topological order: line number, op, dtype, sources (line numbers, constants inline), arg.";
  p ""

let example1 () =
  p "## Part 1: `(a + b).relu().sum(axis=1)`";
  p "";
  code ~lang:"ocaml" {|let a = Tensor.of_float_array [| 4; 4 |] (Array.init 16 float_of_int)
let b = Tensor.of_float_array [| 4; 4 |] (Array.init 16 (fun i -> float_of_int (i mod 3) -. 8.))
let c = Tensor.(sum ~axis:[ 1 ] (relu (add a b)))|};
  let a = Tensor.of_float_array [| 4; 4 |] (Array.init 16 float_of_int) in
  let b = Tensor.of_float_array [| 4; 4 |] (Array.init 16 (fun i -> float_of_int (i mod 3) -. 8.)) in
  let c = Tensor.(sum ~axis:[ 1 ] (relu (add a b))) in

  p "### 1. The tensor graph";
  p "";
  p "Module: `src/tensor.ml` and `src/mixin/*.ml` (tinygrad `tensor.py`, `mixin/*.py`). Nothing has run yet: \
     `c` is a `Tensor.t` holding a UOp graph. `Tensor.uop c` is:";
  p "";
  code (Uop.pretty_print (Tensor.uop c));
  p "Read it bottom up. The inputs are BUFFERs of 16 floats (their `ParamArg` gives a buffer number and the device) seen \
     through a RESHAPE to `(4, 4)` (the new shape is itself a UOp, a STACK of two constants 4). `relu` is not a \
     primitive: tinygrad composes it as `(0 < x).where(x, 0)`, the CMPLT and WHERE. `sum ~axis:[1]` permutes the \
     reduced axis to the front and REDUCEs the first axis: `arg=(Ops.ADD, 1)`. The constant 0 is `weakfloat`, a \
     weak dtype that adopts the dtype of the value it meets.";
  p "";

  p "### 2. Callify: the graph becomes a function call";
  p "";
  p "Module: `src/schedule/callify.ml` (tinygrad `tensor.py`: `transform_to_call`). Realizing `c` first turns \
     the graph into a CALL: the body is a SINK of what must be stored, every buffer becomes a numbered PARAM, and \
     the CALL's other sources are the actual buffers, in PARAM order (PARAM 0 is the CALL's second source). The \
     output gets a fresh 4-float buffer, PARAM 0, written by a STORE; the AFTER says \"PARAM 0, once the STORE \
     is done\".";
  p "";
  let big_sink, _ = Callify.transform_to_call (Uop.sink [ Tensor.uop c ]) in
  code (Uop.pretty_print big_sink);
  let fn = big_sink.src.(0) in

  p "### 3. Rangeify: ranges instead of shapes, and where buffers go";
  p "";
  p "Modules: `src/schedule/rangeify.ml` (`get_kernel_graph`, tinygrad `schedule/rangeify.py`) and \
     `src/schedule/indexing.ml` (`run_rangeify`, tinygrad `schedule/indexing.py`). This is the heart of the \
     scheduler. Walking the graph from the outputs to the inputs, `run_rangeify` gives every node the loop \
     ranges it is computed over, and decides which nodes are *realized* (written to a buffer). Nodes that are not \
     realized are recomputed inline by their consumer: that is kernel fusion. `DEBUG_RANGEIFY=1` prints the \
     decision, one line per node:";
  p "";
  let t1 = Rangeify.kernel_graph_before_rangeify fn in
  let t2, table = capture_stdout (fun () -> Indexing.run_rangeify ~debug:true t1) in
  code table;
  p "Columns: `***` when the node is realized, the number of consumers, the op, its shape, the number of ranges \
     ending at it, and the ranges. `[r0 -> r1]` is an axis whose input range differs from its output range, \
     `in -> out` a node whose input ranges differ from its output ranges. Here the STORE is realized (it writes \
     the output) and gives the output axis a range `r0`. The REDUCE creates a new range `r1` for the axis it \
     reduces, the PERMUTE swaps the two, the elementwise ops inherit them, and each RESHAPE turns `[r0][r1]` into \
     the flat index `r0*4+r1`, which is where the PARAMs are read. The ADD has two consumers (the CMPLT and the \
     WHERE of `relu`) that agree on its ranges, so it is not realized either: the whole expression is one kernel.";
  p "";
  p "After `run_rangeify` the movement ops are gone: INDEX nodes read the PARAMs at index expressions over RANGE \
     nodes, and the REDUCE lists the range it reduces:";
  p "";
  code (Uop.pretty_print t2);
  let t3 = Rangeify.kernel_graph_after_rangeify t2 in
  p "The last passes of `get_kernel_graph` clean up (symbolic rules turn the `relu` WHERE into a MAX), give the \
     kernel its own PARAMs, and split the graph into kernels: each closed STORE becomes a CALL of a kernel SINK \
     (with a `KernelInfo` arg) on its buffers. `Schedule.create_schedule` (`src/schedule/schedule.ml`, tinygrad \
     `schedule/__init__.py`) orders the CALLs by their dependencies into a LINEAR:";
  p "";
  let lin = Schedule.create_schedule t3 in
  code (Uop.pretty_print lin);

  p "#### Where buffers are placed, and why";
  p "";
  p "Fusion stops where a value is needed over ranges its consumer does not have. A reduce whose result is \
     broadcast back over the axis it reduced is the classic case: `a - a.max(axis=1, keepdim=True)`.";
  p "";
  code ~lang:"ocaml" {|let d = Tensor.(sub a (max ~axis:[ 1 ] ~keepdim:true a))|};
  let d = Tensor.(sub a (max ~axis:[ 1 ] ~keepdim:true a)) in
  let dsink, _ = Callify.transform_to_call (Uop.sink [ Tensor.uop d ]) in
  let d1 = Rangeify.kernel_graph_before_rangeify dsink.src.(0) in
  let d2, dtable = capture_stdout (fun () -> Indexing.run_rangeify ~debug:true d1) in
  code dtable;
  p "`sub` is an ADD of a MUL by -1, and the ADD broadcasts the `(4, 1)` max to `(4, 4)`: broadcasting is \
     implicit in elementwise ops. The axis it broadcasts over (range `r1`, the axis the max reduced) is a range \
     that *ends* at the MUL and the RESHAPE below it (the `1` in the ending-ranges column). When ending ranges \
     reach a REDUCE, the REDUCE is realized: it gets new ranges, output `r2` and reduce `r3`, its own loop nest, \
     so it is a second kernel (its column shows 0 because realizing ends them). The RESHAPE of `a` is also \
     marked, because its two consumers index it differently (`[r0][r1]` and `[r2][r3]`); that STAGE is \
     `removable`, and the `symbolic+reduce_collapse+debuf` pass inlines it again because reading the input twice \
     is cheap (`remove_bufferize`). Two kernels come out:";
  p "";
  let dlin = Schedule.create_schedule (Rangeify.kernel_graph_after_rangeify d2) in
  Array.iteri (fun i (call : Uop.t) -> pf "Kernel %d:\n" (i + 1); code (Render.pyrender call.src.(0))) dlin.src;
  p "These ASTs are printed with `Render.pyrender` (tinygrad `pyrender`, what `DEBUG=5` prints): Python that \
     rebuilds the graph.";
  p "";

  (* ---- the kernel AST ---- *)
  let ast = lin.src.(0).src.(0) in
  p "### 4. The kernel AST";
  p "";
  p "The kernel of part 1, as `DEBUG=5` prints it:";
  p "";
  code (Render.pyrender ast);
  p "Everything the kernel does is here: range `c2` (4 outputs) and the reduce range `c8` (4 inputs each), the \
     loads `c6.index(c9)`, the MAX (relu), the REDUCE, the STORE at `c1.index(c2)`, and the END that closes `c2`.";
  p "";

  (* ---- codegen, NOOPT ---- *)
  let ren = Device.renderer "CPU" in
  p "### 5. Codegen: the passes of `full_rewrite_to_sink` (NOOPT=1)";
  p "";
  p "Module: `src/codegen/codegen.ml` (tinygrad `codegen/__init__.py`). `full_rewrite_to_sink` is a list of \
     `graph_rewrite` calls, each a named list of rules. The generator records every named pass with \
     `Upat.with_rewrite_tracer` (the names are tinygrad's). First without the optimizer, `NOOPT=1`:";
  p "";
  let noopt = [ Helpers.Bind (Helpers.noopt, 1) ] in
  let sink0, log0 = Helpers.context noopt (fun () -> trace_passes (fun () -> Codegen.full_rewrite_to_sink ast ren)) in
  pass_table log0;
  p "A row `(between passes)` is a change made outside a named `graph_rewrite`, as in tinygrad: \
     `Postrange.apply_opts` (the optimizer; its own `flatten range` rewrite shows up as a pass) and \
     `Coalesce.memory_coalescing` (tinygrad `codegen/late/coalesce.py`), which runs between `early symbolic` and \
     `add images`.";
  p "";
  p "What the passes that changed the kernel did:";
  p "";
  let seen = Hashtbl.create 16 in
  List.iter (fun (name, inp, out) ->
      if inp != out && not (Hashtbl.mem seen name) then begin
        Hashtbl.replace seen name ();
        pf "- **%s**: %s" (md_escape name) (match List.assoc_opt name pass_notes with Some s -> s | None -> "(no note yet)")
      end) log0;
  p "";
  let show_after name =
    match List.find_opt (fun (n, i, o) -> n = name && i != o) log0 with
    | None -> ()
    | Some (_, inp, out) ->
      let old = Uop.Tbl.create 64 in
      List.iter (fun u -> Uop.Tbl.replace old u ()) (Uop.toposort inp);
      pf "After **%s** (`+`: a node this pass created):" name;
      p "";
      code (listing ~mark:(fun u -> not (Uop.Tbl.mem old u)) (Uop.toposort out)) in
  show_after "remove reduces";
  let acc_line = match List.find_opt (fun (n, i, o) -> n = "remove reduces" && i != o) log0 with
    | Some (_, _, out) ->
      let rec find k = function
        | [] -> "?" | (u : Uop.t) :: t -> if u.op == Ops.Buffer then string_of_int k else find (k + 1) t in
      find 0 (Uop.toposort out)
    | None -> "?" in
  pf "The REDUCE is gone: line %s is the accumulator, a one-element BUFFER in the REG address space. It is set \
      to 0.0 inside the output range (the STORE after the first AFTER), the reduce range adds to it (the ADD and \
      STORE inside both ranges), END closes the reduce range, and the value read after it is stored to the \
      output." acc_line;
  p "";
  pf "The sink handed to the linearizer has %d nodes:" (List.length (Uop.toposort sink0));
  p "";
  code (listing (Uop.toposort sink0));

  (* ---- linearize, render, launch ---- *)
  let prg0 = Helpers.context noopt (fun () -> Codegen.do_to_program ast ren) in
  p "### 6. The linearized program";
  p "";
  p "Module: `src/codegen/late/linearizer.ml` and `Codegen.do_to_program` (tinygrad `codegen/late/linearizer.py`, \
     `codegen/__init__.py`). The sink is put in program order: a toposort guided by the control-flow edges, with \
     IF/ENDIF for gated stores. `DEBUG=6` prints it with `Render.print_uops` (tinygrad `print_uops`); the columns \
     are the line, the op, the ranges it is inside, the dtype, the sources and the arg:";
  p "";
  code (Render.uops_str (linear_of_program prg0));

  p "### 7. The C source";
  p "";
  p "Module: `src/renderer/cstyle.ml` (tinygrad `renderer/cstyle.py`, `ClangRenderer`). Each line of the program \
     is rendered by a list of string rules; values used once are inlined. Buffer parameters are named \
     `data<slot>_<size>`, loop variables by axis type (`L` loop, `R` reduce):";
  p "";
  let src0 = source_of_program prg0 in
  code ~lang:"c" src0;
  same_text "what tinygrad 0.14.0 prints for this kernel with `NOOPT=1 DEBUG=4`" src0 tinygrad_noopt_c;
  p "";

  p "### 8. The launch";
  p "";
  let info = info_of_program prg0 in
  p "Modules: `src/engine/realize.ml` (tinygrad `engine/realize.py`), `src/device.ml` (`device.py`), \
     `src/runtime/cpu/` (`runtime/ops_cpu.py`, `support/compiler_cpu.py`). The PROGRAM carries a `ProgramInfo`:";
  p "";
  code (Printf.sprintf "name        %s\nglobal_size %s\nlocal_size  %s\n\
                        globals     %s  (buffer slots the kernel takes)\nouts        %s\nins         %s\nvars        [%s]"
          info.pname (sints info.global_size)
          (match info.local_size with None -> "None" | Some l -> sints l)
          (String.concat ", " (List.map string_of_int info.globals) |> Printf.sprintf "[%s]")
          (String.concat ", " (List.map string_of_int info.outs) |> Printf.sprintf "[%s]")
          (String.concat ", " (List.map string_of_int info.ins) |> Printf.sprintf "[%s]")
          (String.concat ", " (List.map Uop.expr info.vars)));
  p "The CPU compiler (`Compiler_cpu`) appends one uniform entry point to every kernel, so the runtime calls all \
     kernels the same way, with an array of buffer addresses and an array of integer variables:";
  p "";
  code ~lang:"c" (String.trim (Compiler_cpu.entry_wrapper src0));
  p "clang compiles the source to a shared object (cached on disk by a hash of source and flags), `dlopen` loads \
     it once, and `Realize.run_linear` calls the entry for each CALL of the schedule with the CALL's buffers. On \
     the CPU the global size is the number of `core_id` shards (1 here: no THREAD opt). Realizing `c` runs it:";
  p "";
  Global_counters.reset ();
  let values = Helpers.context noopt (fun () -> Tensor.to_float_array c) in
  code (Printf.sprintf "Tensor.to_float_array c = [| %s |]   (kernels run: %d)"
          (String.concat "; " (Array.to_list (Array.map (Printf.sprintf "%g") values)))
          (Global_counters.kernel_and_copy_count ()));

  (* ---- opts ---- *)
  p "### 9. The same kernel with the optimizer";
  p "";
  p "Modules: `src/codegen/opt/postrange.ml`, `heuristic.ml`, `search.ml` (tinygrad `codegen/opt/`). Without \
     `NOOPT`, `Postrange.apply_opts` runs between the early passes and the expander. It applies a list of `Opt`s \
     (UPCAST, UNROLL, LOCAL, THREAD, GROUP, ...), each a rewrite of the ranges: an UNROLL of 4 turns a reduce \
     range of 4 into an UNROLL axis that the expander later turns into a vector. The default list comes from \
     `Heuristic.hand_coded_optimizations` (tinygrad `heuristic.py`); `BEAM=n` replaces it with \
     `Search.beam_search`, which compiles and times candidate opt lists, keeping the n fastest at each step \
     (timed, so not shown here).";
  p "";
  let sink1, log1 = trace_passes (fun () -> Codegen.full_rewrite_to_sink ast ren) in
  (match kernel_info sink1 with
   | Some k -> pf "The heuristic chose `[%s]` and named the kernel `%s`. The passes now:"
                 (String.concat "; " (List.map Opt.to_string k.applied_opts)) k.kname
   | None -> ());
  p "";
  pass_table log1;
  let prg1 = Codegen.do_to_program ast ren in
  let src1 = source_of_program prg1 in
  code ~lang:"c" src1;
  same_text "what tinygrad 0.14.0 prints with `DEBUG=4`" src1 tinygrad_opt_c;
  p "The reduce loop is gone: the eight scalar loads became two `float4` loads (`Coalesce.memory_coalescing`, tinygrad \
     `codegen/late/coalesce.py`), and the four partial sums are added in one expression with no accumulator.";
  p "";

  (* ---- GPU renderers ---- *)
  p "### 10. The same kernel for CUDA and Metal";
  p "";
  p "Renderers are data: the same AST goes through the same passes with another `Renderer.t`, whose options \
     (`has_local`, `global_max`, `supports_float4`, ...) steer the optimizer and whose string rules spell the \
     code. Only the renderer is needed to see the source; running it needs the device.";
  p "";
  let gpu ?expected name r =
    begin
      let prg = Codegen.do_to_program ast r in
      let info = info_of_program prg in
      let opts = match kernel_info prg.src.(0) with
        | Some k -> String.concat "; " (List.map Opt.to_string k.applied_opts) | None -> "" in
      pf "%s: opts `[%s]`, global size %s, local size %s:" name opts (sints info.global_size)
        (match info.local_size with None -> "None" | Some l -> sints l);
      p "";
      let src = source_of_program prg in
      code ~lang:"c" src;
      Option.iter (fun (what, theirs) -> same_text what src theirs; p "") expected
    end in
  gpu ~expected:("what tinygrad 0.14.0's `CUDARenderer` renders for this AST", tinygrad_cuda_c)
    "CUDA, `Cstyle.cuda_renderer ~arch:\"sm_89\"` (tinygrad `CUDARenderer`)" (Cstyle.cuda_renderer ~arch:"sm_89");
  gpu "Metal, `Cstyle.metal_renderer ()` (tinygrad `MetalRenderer`)" (Cstyle.metal_renderer ());
  p "On a GPU the heuristic makes the output axis a LOCAL axis (threads of one workgroup) instead of a loop, and \
     the loop variable becomes a thread index (`threadIdx.x`, `lid.x`).";
  p ""

let example2 () =
  p "## Part 2: one training step of a 2-layer MLP";
  p "";
  code ~lang:"ocaml" {|Tensor.manual_seed 0;
let l1 = Nn.Linear.create 8 16 and l2 = Nn.Linear.create 16 4 in
let params = [ l1.weight; Option.get l1.bias; l2.weight; Option.get l2.bias ] in
Tensor.realize_all params;
let x = Tensor.of_float_array [| 4; 8 |] (Array.init 32 (fun i -> float_of_int (i mod 7) /. 7.)) in
let y = Tensor.of_int_array [| 4 |] [| 0; 1; 2; 3 |] in
let opt = Nn.Optim.sgd ~lr:0.1 params in
Helpers.set Helpers.training 1;
Nn.Optim.zero_grad opt;
let loss = Tensor.sparse_categorical_crossentropy (Nn.Linear.forward l2 (Tensor.relu (Nn.Linear.forward l1 x))) y in
Tensor.backward loss;
Tensor.realize_all (loss :: Nn.Optim.schedule_step opt)|};
  Tensor.manual_seed 0;
  let l1 = Nn.Linear.create 8 16 and l2 = Nn.Linear.create 16 4 in
  let params = [ l1.weight; Option.get l1.bias; l2.weight; Option.get l2.bias ] in
  Tensor.realize_all params;
  let x = Tensor.of_float_array [| 4; 8 |] (Array.init 32 (fun i -> float_of_int (i mod 7) /. 7.)) in
  let y = Tensor.of_int_array [| 4 |] [| 0; 1; 2; 3 |] in
  let opt = Nn.Optim.sgd ~lr:0.1 params in
  Helpers.set Helpers.training 1;
  Nn.Optim.zero_grad opt;
  let loss = Tensor.sparse_categorical_crossentropy (Nn.Linear.forward l2 (Tensor.relu (Nn.Linear.forward l1 x))) y in
  Tensor.backward loss;
  let outs = loss :: Nn.Optim.schedule_step opt in
  let nodes = List.length (Uop.toposort (Uop.sink (List.map Tensor.uop outs))) in
  pf "The parameters are realized first, so the step's schedule holds only the step. `Tensor.backward` \
      (`src/gradient.ml`, tinygrad `gradient.py`) adds the backward graph with the `pm_gradient` rules, and \
      `schedule_step` (`src/nn/optim.ml`, tinygrad `nn/optim.py`) adds the SGD updates as ASSIGNs to the \
      parameters: one graph of %d UOps for the loss and the four new parameters. It is scheduled as one \
      program:" nodes;
  p "";
  let lin, _ = Tensor.linear_with_vars outs in
  let clin = Realize.compile_linear lin in
  let named = [ ("x", x); ("y", y); ("loss", loss); ("l1.weight", l1.weight); ("l1.bias", Option.get l1.bias); ("l2.weight", l2.weight);
                ("l2.bias", Option.get l2.bias) ] in
  let buf_name (u : Uop.t) =
    let b = Device.Buffer.base (Callify.buffer u) in
    List.find_map (fun (n, t) ->
        if Device.Buffer.base (Callify.buffer (Buffers.buf_uop (Tensor.uop t))) == b then Some n else None) named in
  p "| # | call | buffers | writes | reads |";
  p "|---|---|---|---|---|";
  let names = ref [] in
  Array.iteri (fun i (call : Uop.t) ->
      let name = Helpers.ansistrip (Realize.get_call_name call) in
      let squeeze s = String.concat " " (List.filter (( <> ) "") (String.split_on_char ' ' s)) in
      names := squeeze name :: !names;
      let args = Realize.get_call_arg_uops call in
      let size (u : Uop.t) =
        Printf.sprintf "%s[%d]%s" (dtype_name u.dtype) (Uop.max_numel u)
          (match buf_name u with Some n -> " (" ^ n ^ ")" | None -> "") in
      let writes, reads =
        if call.src.(0).op == Ops.Program then
          let info = info_of_program call.src.(0) in
          (List.map (fun j -> size (List.nth args j)) info.outs, List.map (fun j -> size (List.nth args j)) info.ins)
        else ([ size (List.hd args) ], [ size (List.nth args 1) ]) in
      pf "| %d | `%s` | %d | %s | %s |" (i + 1) (squeeze name) (List.length args) (String.concat " " writes)
        (String.concat " " reads)) clin.src;
  p "";
  p "Kernel names tell the loop nest: `r_` kernels reduce, `E_` kernels are elementwise, and the numbers are the \
     sizes of their axes (`r_4_16_8`: 4 x 16 outputs, each a reduce over 8, the first layer's matmul). The one \
     copy brings the learning rate to the CPU: `Optim` keeps it as a 1-element tensor made on the host \
     (`PYTHON` device). Buffers are labelled where they belong to a named tensor: the update kernels read the \
     old parameters and write the new values to fresh buffers, and the last four kernels copy them into the \
     parameters' own buffers, the targets of the ASSIGNs. Everything else (activations, gradients) lives in \
     buffers of this one schedule, placed by the memory planner (`src/schedule/memory.ml`).";
  p "";
  if List.rev !names = tinygrad_mlp_calls then
    pf "tinygrad 0.14.0 runs the same %d calls in the same order (`DEBUG=2`, recorded in `docs/gen_tour.ml`)."
      (List.length tinygrad_mlp_calls)
  else p "**The calls differ from tinygrad 0.14.0's** (recorded in `docs/gen_tour.ml`).";
  p "";
  let src_of name =
    Array.to_list clin.src |> List.find_map (fun (c : Uop.t) ->
        if c.src.(0).op == Ops.Program && Helpers.ansistrip (info_of_program c.src.(0)).pname = name then Some (source_of_program c.src.(0))
        else None) in
  (match src_of "r_4_16_8" with
   | Some s ->
     p "The first layer, `x @ W1.T + b1` (the bias add is fused into the matmul's store):";
     p "";
     code ~lang:"c" s
   | None -> ());
  (match src_of "r_4_16_4" with
   | Some s ->
     p "The update of `W2` (4 x 16): the gradient is a reduce over the batch of 4, and instead of reading a \
        stored `relu(h)` the kernel recomputes the relu from the first layer's output; `data4_1` is the \
        learning rate:";
     p "";
     code ~lang:"c" s
   | None -> ());
  Realize.run_linear lin;
  let l = Printf.sprintf "%.4f" (Tensor.item loss) in
  code (Printf.sprintf "loss = %s" l);
  if l = tinygrad_mlp_loss then p "tinygrad 0.14.0 prints the same loss (1.3453850746154785) for the same seed and data."
  else pf "**tinygrad 0.14.0 prints %s** for the same seed and data." tinygrad_mlp_loss;
  p ""

let footer () =
  p "## Where to go next";
  p "";
  p "- `DEBUG=2` prints one line per kernel run, `DEBUG=4` the source, `DEBUG=5` the AST, `DEBUG=6` the \
     linearized program, `DEBUG_RANGEIFY=1` the rangeify table above.";
  p "- The README's layer map lists every module with its tinygrad file.";
  p "- Regenerate this file with `make tour` after changing the compiler; `make test` fails until you do."

let () =
  Helpers.context
    [ Helpers.Bind (Helpers.num_cpu_threads, 8); Helpers.Bind (Helpers.threads, 1); Helpers.Bind (Helpers.debug, 0);
      Helpers.Bind (Helpers.beam, 0); Helpers.Bind (Helpers.noopt, 0); Helpers.Bind (Indexing.debug_rangeify, 0);
      Helpers.Bind (Helpers.cpu_opt, Helpers.Cpu_tinygrad) ]
    (fun () ->
       header ();
       example1 ();
       example2 ();
       footer ());
  print_string (Helpers.ansistrip (Buffer.contents md))
