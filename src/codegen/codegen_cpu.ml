(* Not in tinygrad: the CPU mode (CPU_OPT=fast on the CPU, Renderer.cpu_fast) as the passes of the kernel
   pipeline that depart from tinygrad's. Codegen asks Renderer.cpu_fast once per kernel and runs the passes it
   gets; every stage of the mode is listed in [fast]. *)

open Uop

(* a sum masked by a condition that its loops do not change, WHERE(g, REDUCE(x, r..), 0), becomes REDUCE(x',
   r'..) with each loop r' = RANGE(WHERE(g, n, 0)) (r's size where g holds, else 0): the loops run only where
   their result is kept, and an empty loop leaves the sum at 0, the WHERE's other side. A convolution's input
   gradient (tinygrad's _pool backward) sums, for every offset of a 6x6 window of which about half the offsets
   fall outside the 5x5 kernel, the product of the weight and the output gradient over the output channels,
   and masks the sum: the masked half was computed and thrown away. The loop's ranges keep their ids and
   bounds (the end's largest value is n), so indexing is unchanged. The loads inside the loops keep their
   gates: without them clang gathers the loads across unrolled iterations. A sum of several lanes (a register
   tile whose lanes run along the input row, Heuristic_cpu.cpu_nested_reduce_tile) has a gate per lane: its
   loops run where any lane's gate holds, and the WHERE stays to keep each lane's own gate (a lane whose gate
   fails sums loads its gate masks to 0, and is dropped). This is kept to the lane tile
   (Heuristic_cpu.cpu_nested_reduce_tile): an innermost float32 sum of at least 8 lanes. The rewrite needs the
   loops and the sum to be this WHERE's alone (no other node uses them; else the old loops would stay beside
   the gated ones, a loop rendered twice) and the condition to vary with an outer loop: a RANGE whose end
   depends on another range is then exactly one made here, which the symbolic rewrites that know a fact at one
   use (a valid, a WHERE's condition) leave alone (Symbolic.hiding_computed_ranges). *)
(* the users of each node of [topo] (a toposort) *)
let users_in (topo : Uop.t list) : Uop.t -> Uop.t list =
  let users : Uop.t list Tbl.t = Tbl.create 256 in
  List.iter (fun (u : Uop.t) -> Array.iter (fun s ->
      Tbl.replace users s (u :: Option.value (Tbl.find_opt users s) ~default:[])) u.src) topo;
  fun u -> Option.value (Tbl.find_opt users u) ~default:[]

let is_zero (z : Uop.t) = z.op == Ops.Const
  && (match const_val z with Dtype.F f -> f = 0. | Dtype.I i -> Z.equal i Z.zero | _ -> false)

let gate_reduce_loops (sink : Uop.t) : Uop.t =
  let topo = toposort sink in
  let users_of = users_in topo in
  let lanes (g : Uop.t) = Helpers.prod (List.map (function Sint n -> n | Suop _ -> 1) (shape g)) in
  let innermost (r : Uop.t) = not (List.exists (fun (u : Uop.t) ->
    u.op == Ops.Reduce) (toposort r.src.(0))) in
  let gated (w : Uop.t) =
    if w.op != Ops.Where then None else
      let g = w.src.(0) and r = w.src.(1) in
      match r.op, r.arg with
      | Ops.Reduce, Reduce_arg (Ops.Add, _)
        when is_zero w.src.(2) && ranges g <> []
             && (lanes g = 1 || (r.dtype == Dtype.Float32 && lanes g >= 8 && innermost r)) ->
        let rngs = List.tl (Array.to_list r.src) in
        let inside = lazy (let t = Tbl.create 64 in List.iter (fun u ->
          Tbl.replace t u ()) (toposort r); t) in
        (* the loops and the sum are the WHERE's alone, and the condition is computed outside the loops *)
        if rngs <> [] && users_of r = [ w ]
           && List.for_all (fun (rr : Uop.t) -> rr.op == Ops.Range && not (in_backward_slice_with_self rr g)
                                               && List.for_all (fun u ->
                                                 Tbl.mem (Lazy.force inside) u) (users_of rr)) rngs
        then begin
          (* the loops run where any lane's gate holds *)
          let any = match List.map (fun i -> index g (List.map (fun j ->
            const_int j) i)) (Helpers.product (max_shape g)) with
            | l :: rest when lanes g > 1 -> List.fold_left or_ l rest
            | _ -> g in
          let gated_rngs = List.map (fun (rr : Uop.t) ->
            Uop.replace ~src:[| where any rr.src.(0) (const_like rr.src.(0) (Dtype.I Z.zero)) |] rr) rngs in
          let x = Upat.substitute r.src.(0) (List.combine rngs gated_rngs) in
          let r' = Uop.replace ~src:(Array.of_list (x :: gated_rngs)) r in
          Some (w, if lanes g = 1 then r' else Uop.replace ~src:[| g; r'; w.src.(2) |] w)
        end else None
      | _ -> None in
  match List.filter_map gated topo with
  | [] -> sink
  | subs -> Upat.substitute sink subs

(* a comparison x < c of a sum of terms that share a factor d > 1 (and no constant term) is x/d < ceil(c/d),
   for integers: tinygrad's lt_folding divides only where d also divides c. A padded output axis split
   between threads (Heuristic_cpu.matvec_pad) gates each lane with its own scaled copy of one comparison
   ((t*394 + i*2) < 785 beside (t*197 + i) < 393); folded, the lanes share two gates, which the coalescer
   groups into whole vectors and clang takes out of the reduce loop; left scaled, every accumulator keeps a
   branch of its own and the tile runs scalar. *)
let lt_common_factor (m : Upat.captures) =
  let x = Upat.get m "x" and c = Upat.get m "c" in
  let terms = split_uop x Ops.Add in
  match const_val c with
  | Dtype.I cz when Z.gt cz Z.zero && List.for_all (fun (t : Uop.t) -> t.op != Ops.Const) terms ->
    let d = List.fold_left (fun acc t -> Z.gcd acc (const_factor t)) Z.zero terms in
    if Z.gt d Z.one && not (Z.equal (Z.rem cz d) Z.zero) then
      Option.map (fun q -> lt q (const_like c (Dtype.I (Z.cdiv cz d)))) (divides x d)
    else None
  | _ -> None

(* the symbolic pass before coalescing: tinygrad's, then lt_common_factor *)
let early_symbolic = lazy Upat.(Symbolic.sym @@@ matcher [
    rule (pat Ops.Cmplt ~src:(In_order [ var ~dtype:(Dtype.Weakint :: Dtype.ints) "x"; cvar "c" ]))
      lt_common_factor ])

(* the most combinations of upcast lanes whose gates broadcast_gated_loads ORs (a gate over more stays) *)
let max_gate_lanes = 64

(* A sum kept where a gate g holds, WHERE(g, REDUCE(x, r..), 0) with g varying over upcast lanes (the window's
   gate of a convolution's input gradient, tinygrad's _pool backward): a lane whose g fails is dropped by the
   WHERE, a select, whatever its sum is (NaN included). A load in x gated by clauses of g, whose index, folded
   where its gate holds (Coalesce_cpu.index_given), no longer varies over the upcast ranges its gate does (a
   weight broadcast to the lanes of a row), loads the folded index where its gate holds in any of those lanes:
   where g holds, its gate does and the value is the one loaded before; the index is one that a lane whose
   gate holds loads, so it is in bounds. The lanes then share one gate, and the coalescer loads the value once
   with no select per lane (Coalesce_cpu.lane_gated_loads). A load whose folded index still varies over the
   lanes (the output gradient along the image row) keeps its gate and takes the folded index, the one it
   loads where the gate holds: the row is then a plain term of it after the expander, where the register
   tile finds its vector accumulators (tile_accumulators). Runs before the expander, on scalar lanes. *)
let broadcast_gated_loads (sink : Uop.t) : Uop.t =
  let topo = toposort sink in
  let users_of = users_in topo in
  let upcast (u : Uop.t) = u.op == Ops.Range && u.src.(0).op == Ops.Const
                           && (match u.arg with Range (_, Upcast) -> true | _ -> false) in
  let size (u : Uop.t) = Z.to_int (zi (const_val u.src.(0))) in
  let any_lane gate lanes =
    let values = Helpers.product (List.map size lanes) in
    let at v = simplify (Upat.substitute gate (List.combine lanes (List.map (fun i -> const_int i) v))) in
    match Helpers.dedupq (List.map at values) with
    | first :: rest -> simplify (List.fold_left or_ first rest)
    | [] -> gate in
  let regate outer (u : Uop.t) =
    if u.op != Ops.Index || Array.length u.src <> 2 || u.src.(1).op != Ops.Where
       || not (is_invalid u.src.(1).src.(2)) then None else
      let gate = u.src.(1).src.(0) in
      let lanes = List.filter upcast (ranges gate) in
      if lanes = [] || Helpers.prod (List.map size lanes) > max_gate_lanes
         || not (List.for_all (fun c -> List.memq c outer) (split_uop gate Ops.And)) then None else
        let idx = Coalesce_cpu.index_given gate u.src.(1).src.(1) in
        if List.exists (fun l -> List.memq l lanes) (ranges idx) then
          (if idx == u.src.(1).src.(1) then None
           else Some (u, Uop.replace ~src:[| u.src.(0); valid idx gate |] u))
        else Some (u, Uop.replace ~src:[| u.src.(0); valid idx (any_lane gate lanes) |] u) in
  let kept (w : Uop.t) =
    if w.op != Ops.Where || not (is_zero w.src.(2)) then None else
      let g = w.src.(0) and r = w.src.(1) in
      match r.op, r.arg with
      | Ops.Reduce, Reduce_arg (Ops.Add, _) when users_of r = [ w ] && List.exists upcast (ranges g) ->
        let outer = split_uop g Ops.And in
        (match List.filter_map (regate outer) (toposort r.src.(0)) with
         | [] -> None
         | subs ->
           let x = Upat.substitute r.src.(0) subs in
           let r' = Uop.replace ~src:(Array.append [| x |] (Array.sub r.src 1 (Array.length r.src - 1))) r in
           Some (w, Uop.replace ~src:[| g; r'; w.src.(2) |] w))
      | _ -> None in
  match List.filter_map kept topo with
  | [] -> sink
  | subs -> Upat.substitute sink subs

(* The CPU mode's vector accumulators. With unrolled axes (n > 0) and a single output lane, the accumulator
   keeps the unrolled lanes (the shape of the REDUCE's input) and is updated lane by lane, so the loop
   carries vector accumulators; the lanes are folded by a horizontal REDUCE once, after the loop (tinygrad
   folds them inside the loop, a serial chain). With several outputs (Coalesce_cpu.vector_acc_fits), each
   output gets such an accumulator, a REG buffer marked [vector_acc] that the coalescer loads and stores
   whole, its lanes those of every unrolled axis in their order (a weight gradient's rows, oy by ox). Only
   for a reduce of one output lane (a row sum, softmax's max), or of a few that fit the registers: with more
   upcast outputs (a convolution's register tile) the lanes multiply the accumulators past the registers, and
   the tile already carries independent chains. *)
type reduce_to_acc = accumulate:(vector_acc:bool -> int list -> Uop.t -> Uop.t) -> Uop.t -> Uop.t option

(* the rows of lanes of [inp] (a REDUCE's expanded input) along which a float32 operand is loaded with stride
   1, in the order of the loads, each as its lane axes, outermost first: an upcast range expanded into its
   lanes is a term of the operand's index sum, not scaled (the vector axis of Heuristic_cpu.cpu_register_tile:
   a row of B, of the output; both the output channels of the weight and the output row of the image in
   Heuristic_cpu.cpu_conv_channel_lanes), alone or with a second lane axis scaled by the first's size (a row
   upcast in two parts, Heuristic_cpu.cpu_nested_reduce_tile's 24 = 3 x 8 lanes). A gated load's index is
   read where its gate holds. *)
let unit_stride_rows (inp : Uop.t) =
  let in_shape = max_shape inp in
  let nd = List.length in_shape in
  let iota (s : Uop.t) = s.op == Ops.Stack && List.for_all2 (fun i (c : Uop.t) ->
      c.op == Ops.Const && const_val c = Dtype.I (Z.of_int i))
      (List.init (Array.length s.src) Fun.id) (Array.to_list s.src) in
  let lane_axis (t : Uop.t) =
    if t.op != Ops.Reshape || not (iota t.src.(0)) then None else
      let s = max_shape t in
      match List.filter (fun i -> List.nth s i > 1) (List.init (List.length s) Fun.id) with
      | [ d ] when List.length s = nd -> Some d
      | _ -> None in
  let scaled_lane_axis (t : Uop.t) =
    if t.op != Ops.Mul || t.src.(1).op != Ops.Const then None
    else match lane_axis t.src.(0), const_val t.src.(1) with
      | Some e, Dtype.I c -> Some (e, Z.to_int c)
      | _ -> None in
  let rows idx =
    let terms = split_uop idx Ops.Add in
    let scaled = List.filter_map scaled_lane_axis terms in
    List.concat_map (fun d -> [ d ] :: List.filter_map (fun (e, c) ->
        if e <> d && c = List.nth in_shape d then Some [ e; d ] else None) scaled)
      (List.filter_map lane_axis terms) in
  Helpers.dedup (List.concat_map (fun (u : Uop.t) ->
      if u.op == Ops.Index && u.dtype == Dtype.Float32 && addrspace u.src.(0) = Some Dtype.Global
         && Array.length u.src = 2 then rows (get_idx u.src.(1))
      else []) (toposort inp))

(* a register tile (a reduce with no unrolled axis and upcast outputs, Heuristic_cpu.cpu_register_tile) keeps
   one vector accumulator per row of lanes along a unit-stride row (the widest whose rows fit the
   registers), as a REG buffer marked [vector_acc] of its own: held as scalars in one buffer, its 16 rows of
   16 lanes (a tile two vectors wide) left clang to vectorize the updates, which then copied and spilled
   accumulators on every iteration of the loop *)
let tile_accumulators lengths ~accumulate (r : Uop.t) =
  let inp = r.src.(0) in
  let in_shape = max_shape inp in
  let lanes_of row = Helpers.prod (List.map (List.nth in_shape) row) in
  let fits row = let lanes = lanes_of row in
    let rows = Helpers.prod in_shape / lanes in
    rows > 1 && Coalesce_cpu.vector_acc_fits lengths ~lanes ~outs:rows in
  (* the widest such row: the tile's vectors as full as they can be; a row of one axis before one of two, and
     one of two only where its inner axis is a whole vector (the input gradient's 3 x 8 lanes): a convolution
     tile's row of 10 x 2 keeps its scalar accumulators, which clang vectorizes along the row *)
  let widest rows = List.fold_left (fun best row -> match best with
      | Some b when lanes_of b >= lanes_of row -> best
      | _ -> Some row) None rows in
  let whole_vectors row = List.mem (List.nth in_shape (Helpers.last row)) lengths in
  let candidates = List.filter (fun row -> fits row && (List.length row = 1 || whole_vectors row))
      (unit_stride_rows inp) in
  let single, split = List.partition (fun row -> List.length row = 1) candidates in
  match (match widest single with None -> widest split | row -> row) with
  | Some row ->
    let lanes = lanes_of row in
    let others = List.filter (fun i -> not (List.mem i row)) (List.init (List.length in_shape) Fun.id) in
    let perm = others @ row in
    let by_row = Mixin_movement.permute inp perm in
    let at o = let l = index by_row (List.map (fun i -> const_int i) o) in
      if List.length row = 1 then l else mop Ops.Reshape l (`Shape [ Sint lanes ]) in
    let accs = List.map (fun o -> accumulate ~vector_acc:true [ lanes ] (at o))
        (Helpers.product (List.map (List.nth in_shape) others)) in
    let dims = List.map (fun i -> Sint (List.nth in_shape i)) perm in
    let tile = mop Ops.Reshape (stack accs) (`Shape dims) in
    let back = Mixin_movement.permute tile (Helpers.argsort perm) in
    let shp = shape r in
    Some (if equal_sints shp (shape back) then back else mop Ops.Reshape back (`Shape shp))
  | _ -> None

let reduce_to_vector_acc lengths : reduce_to_acc = fun ~accumulate r ->
  let n = match r.arg with Reduce_arg (_, n) -> n | _ -> invalid_arg "reduce_to_vector_acc: REDUCE arg" in
  let in_shape = max_shape r.src.(0) in
  let outs = Helpers.prod (max_shape r) and lanes = Helpers.prod (Helpers.take n in_shape) in
  if n = 0 && outs > 1 && r.dtype == Dtype.Float32 then
    tile_accumulators lengths ~accumulate r
  else if n >= 1 && outs > 1 && Coalesce_cpu.vector_acc_fits lengths ~lanes ~outs then begin
    (* the outputs first, then the lanes of each (the unrolled axes, flattened in their order) *)
    let nd = List.length in_shape in
    let inp = Mixin_movement.permute r.src.(0) (List.init (nd - n) (fun i -> i + n) @ List.init n Fun.id) in
    let lanes_of o =
      let l = index inp (List.map (fun i -> const_int i) o) in
      if n = 1 then l else mop Ops.Reshape l (`Shape [ Sint lanes ]) in
    let accs = List.map (fun o -> accumulate ~vector_acc:true [ lanes ] (lanes_of o))
        (Helpers.product (Helpers.drop n in_shape)) in
    (* each accumulator's lanes, one axis, folded after the loop *)
    let fold = match r.arg with Reduce_arg (op, _) -> Reduce_arg (op, 1) | a -> a in
    let stacked = stack (List.map (fun a -> create Ops.Reduce ~src:[| a |] ~arg:fold) accs) in
    let shp = shape r in
    Some (if List.length shp = List.length (shape stacked) && equal_sints shp (shape stacked) then stacked
          else mop Ops.Reshape stacked (`Shape shp))
  end
  else if n <> 0 && outs = 1 then
    Some (create Ops.Reduce ~src:[| accumulate ~vector_acc:false in_shape r.src.(0) |] ~arg:r.arg)
  else None

(* a*(1/b) stays a product where b is computed outside a loop that a runs in (softmax's division by its row
   sum): clang computes 1/b once, outside the loop, and the loop multiplies (a division per element bounded
   softmax's last kernel; the product may differ from the quotient in the last bit). Elsewhere it becomes a/b,
   as in tinygrad's late decompositions *)
let fuse_reciprocal (a : Uop.t) (b : Uop.t) =
  not (List.exists (fun r -> not (List.memq r (ranges b))) (ranges a))

(* float32 EXP2 decomposed with its input clamped (Transcendental.xexp2_clamped), where tinygrad's
   transcendental rules decompose EXP2: rules placed before them *)
let exp2_clamped = lazy (Upat.matcher [
    Upat.rule (Upat.pat Ops.Exp2 ~dtype:[ Dtype.Float32 ] ~src:(Upat.In_order [ Upat.var "d" ])) (fun c ->
        let d = Upat.get c "d" in
        if d.dtype == Dtype.Float32 then Some (Transcendental.xexp2_clamped d) else None) ])

let no_rules : unit Upat.matcher Lazy.t = lazy (Upat.matcher [])

let decomp_exp2 (ops : Ops.t list) (force_transcendental : bool) : unit Upat.matcher =
  Lazy.force (if force_transcendental || not (List.memq Ops.Exp2 ops) then exp2_clamped else no_rules)

(* the CPU mode's knobs, which change the generated programs: part of Codegen.to_program's cache key *)
let config () =
  string_of_int Helpers.cpu_vec.value ^ (match Helpers.cpu_opt.value with Cpu_tinygrad -> ",tinygrad" | Cpu_fast -> ",fast")

(* The passes in which a kernel's pipeline may depart from tinygrad's *)
type passes = {
  hand_coded : Postrange.t -> Postrange.t;
  multiblock : (Postrange.t -> Postrange.t) option;
  loop_opts : bool;
  before_expander : Uop.t -> Uop.t;
  before_reduces : Uop.t -> Uop.t;
  reduce_to_acc : reduce_to_acc option;
  fuse_reciprocal : (Uop.t -> Uop.t -> bool) option;
  decomps : Ops.t list -> bool -> unit Upat.matcher;
  coalescing : Coalesce.policy option;
  early_symbolic : unit Upat.matcher;
  before_linearize : Uop.t -> Uop.t;
}

(* tinygrad's pipeline *)
let tinygrad = { hand_coded = Heuristic.hand_coded_optimizations; multiblock = None; loop_opts = false;
                 before_expander = Fun.id; before_reduces = Fun.id;
                 reduce_to_acc = None; fuse_reciprocal = None; decomps = (fun _ _ -> Lazy.force no_rules);
                 coalescing = None; early_symbolic = Symbolic.sym; before_linearize = Fun.id }

(* the CPU mode's stages, in pipeline order: its heuristic (Heuristic_cpu: register tile, conv tiles, matvec,
   vector reduce, then tinygrad's upcasts), SWAP of CPU loops and BLOCK (Postrange.apply_opt), loads broadcast
   under one gate (broadcast_gated_loads), gated reduce loops, vector accumulators (reduce_to_vector_acc),
   gates folded by their common factor (lt_common_factor), coalescing to the host's vectors (Coalesce_cpu),
   products by loop-invariant reciprocals (fuse_reciprocal) and the clamped EXP2 (decomp_exp2) in the late
   decompositions, the vector accumulators' updates as vector ops (Coalesce_cpu.vector_acc_updates) *)
let fast (ren : Renderer.t) =
  { hand_coded = Heuristic_cpu.hand_coded_optimizations;
    multiblock = Some Heuristic_cpu.multiblock_optimizations; loop_opts = true;
    before_expander = broadcast_gated_loads; before_reduces = gate_reduce_loops;
    reduce_to_acc = Some (reduce_to_vector_acc (Renderer.float_lengths ren));
    fuse_reciprocal = Some fuse_reciprocal; decomps = decomp_exp2;
    coalescing = Some (Coalesce_cpu.policy ren);
    early_symbolic = Lazy.force early_symbolic; before_linearize = Coalesce_cpu.vector_acc_updates }
