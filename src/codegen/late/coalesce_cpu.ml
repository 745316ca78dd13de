(* Not in tinygrad: the CPU mode's memory coalescing (CPU_OPT=fast on the CPU, Renderer.cpu_fast), a policy
   for tinygrad's Coalesce.memory_coalescing. Float32 accesses coalesce to the host's vector lengths at any
   offset (the renderer's vectors are element-aligned), loads gated lane by lane group into vectors under a
   mask of lanes, and the per-output vector accumulators of Codegen_cpu load and store whole vectors. *)

open Uop
module P = Upat

(* where a condition holds that bounds a remainder, [e mod m < c], the quotient and the remainder of e may be
   affine. For a term v*a of e (a not a multiple of m), q = v * ceil(a/m) and t = e - m*q: when t lies in (-m,
   m) and c <= m + min t, a negative t gives e mod m = m + t >= c (the condition fails), so where it holds e
   div m = q and e mod m = t. tinygrad's _pool backward indexes a convolution's output gradient through
   (r*24+x) div 25 and mod 25 (a 6x6 window over a 5x5 kernel): under its mask they are r and x - r, and the
   index of each lane of x is affine in x. The pairs (e div m, q) and (e mod m, t) for the clauses [holds]. *)
let fold_divmod_given (holds : Uop.t list) : (Uop.t * Uop.t) list =
  let int_const (u : Uop.t) = if u.op == Ops.Const then (match const_val u with Dtype.I i ->
    Some (Z.to_int i) | _ -> None) else None in
  List.concat_map (fun (c : Uop.t) ->
      match c.op, (if Array.length c.src = 2 then int_const c.src.(1) else None) with
      | Ops.Cmplt, Some bound when c.src.(0).op == Ops.Floormod ->
        let md = c.src.(0) in
        let e = md.src.(0) in
        (match int_const md.src.(1) with
         | Some m when m > 1 && Z.geq (zi (vmin e)) Z.zero ->
           let term_coef (t : Uop.t) = match t.op with
             | Ops.Mul -> (match int_const t.src.(1) with Some a -> Some (t.src.(0), a) | None -> None)
             | _ -> None in
           let fold = List.find_map (fun t ->
               match term_coef t with
               | Some (v, a) when a > 0 && a mod m <> 0 ->
                 let q = simplify (mul v (const_like_int v ((a + m - 1) / m))) in
                 let rem = simplify (sub e (mul q (const_like_int q m))) in
                 let lo = Z.to_int (zi (vmin rem)) and hi = Z.to_int (zi (vmax rem)) in
                 if lo > - m && hi < m && bound <= m + lo then Some (q, rem) else None
               | _ -> None) (split_uop e Ops.Add) in
           (match fold with
            | Some (q, rem) -> [ (md, rem); (idiv e md.src.(1), q) ]
            | None -> [])
         | _ -> [])
      | _ -> []) holds

(* the vectors a row of [l] float32 lanes coalesces to, with the vector [lengths] of cpu_float_lengths (widest
   first): the widest that fits, then the rest the same way (20 lanes = 16 + 4: 2) *)
let rec row_vectors lengths l =
  if l <= 0 then 0 else 1 + row_vectors lengths (l - Option.value ~default:1 (List.find_opt (fun w ->
    w <= l) lengths))

(* the vector registers the accumulators of a tile may take: half the register file (32 vector registers with
   AVX-512, 16 below it), the rest holding the operands *)
let acc_registers ~widest = if widest >= 16 then 16 else 8

(* a reduce of several outputs with unrolled axes of at least 6 lanes in all (a convolution's weight
   gradient: co outputs, the image row ox unrolled, maybe with a few rows oy) keeps one vector accumulator
   per output when they fit in the vector registers: [lanes] split as the coalescer splits a row (20 = 16 +
   4: 2 registers) on each of the outputs, at most half the register file, the rest holding the operands.
   Each is a REG buffer of its own, marked [vector_acc], which the coalescer loads and stores as whole
   vectors: a single buffer of all of them had its rows straddle vectors (the 16-lane groups of 20-lane
   rows), and clang shuffled every update; as scalars, clang left the accumulators scalar. *)
let vector_acc_fits lengths ~lanes ~outs =
  match lengths with
  | widest :: _ when lanes >= 6 -> outs * row_vectors lengths lanes <= acc_registers ~widest
  | _ -> false

(* a REG buffer that holds vector accumulators (Codegen_cpu.reduce_to_vector_acc) *)
let rec is_vector_acc (u : Uop.t) =
  if u.op == Ops.After then is_vector_acc u.src.(0)
  else match u.arg with Param { vector_acc; _ } -> vector_acc | _ -> false

(* the values [lanes] (one per lane of an [n]-lane vector) as one vector value, where they are lane i of one
   vector in lane i, one scalar in every lane (broadcast), or one elementwise op of such values *)
let rec lanes_as_vector n (lanes : Uop.t list) : Uop.t option =
  let lane_const (u : Uop.t) = let c = if u.op == Ops.Cast then u.src.(0) else u in
    if c.op == Ops.Const then Some (zi (const_val c)) else None in
  match lanes with
  | [] -> None
  | l0 :: _ when List.for_all (fun l -> l == l0) lanes && max_numel l0 = 1 -> Some (broadcast l0 n)
  | l0 :: _ when l0.op == Ops.Index && Array.length l0.src = 2 && max_numel l0.src.(0) = n ->
    let v = l0.src.(0) in
    let lane_i (l : Uop.t) i = l.op == Ops.Index && Array.length l.src = 2 && l.src.(0) == v
                               && lane_const l.src.(1) = Some (Z.of_int i) in
    if List.for_all2 lane_i lanes (List.init n Fun.id) then Some v else None
  | l0 :: _ when Ops.Group.is_alu l0.op && l0.op != Ops.Where
                 && List.for_all (fun (l : Uop.t) -> l.op == l0.op && l.dtype == l0.dtype
                                                     && Array.length l.src = Array.length l0.src) lanes ->
    let srcs = List.init (Array.length l0.src) (fun j ->
        lanes_as_vector n (List.map (fun (l : Uop.t) -> l.src.(j)) lanes)) in
    if List.for_all Option.is_some srcs
    then Some (create l0.op ~dtype:l0.dtype ~src:(Array.of_list (List.map Option.get srcs)) ~arg:l0.arg)
    else None
  | _ -> None

(* a store of a vector accumulator whose value is built lane by lane (the devectorized update acc + x * w)
   stores one vector expression of it instead. A register tile whose lanes are not contiguous in the output
   (a convolution's output channels, Heuristic_cpu.cpu_conv_channel_lanes) has no vector store of its
   outputs for clang's SLP vectorizer to start from: clang built the tile's vectors along the output row,
   across the accumulators, and shuffled every update *)
let vector_acc_updates (sink : Uop.t) =
  let subs = List.filter_map (fun (u : Uop.t) ->
      if u.op == Ops.Store && (u.src.(0).op == Ops.Index || u.src.(0).op == Ops.Shrink)
         && is_vector_acc u.src.(0).src.(0)
         && u.src.(1).op == Ops.Stack then
        Option.map (fun v -> (u.src.(1), v))
          (lanes_as_vector (Array.length u.src.(1).src) (Array.to_list u.src.(1).src))
      else None) (toposort sink) in
  match subs with [] -> sink | _ -> Upat.substitute sink subs

(* [idx] where [valid] holds: the quotients and remainders that a clause of [valid] bounds folded *)
let index_given (valid : Uop.t) (idx : Uop.t) =
  match fold_divmod_given (split_uop valid Ops.And) with
  | [] -> idx
  (* a loop whose bound holds the expression (Codegen_cpu.gate_reduce_loops) stays the same loop *)
  | folds -> simplify (Symbolic.hiding_computed_ranges (toposort idx) (fun i -> P.substitute i folds) idx)

(* float32 loads from a global buffer group without regard to their gates (the valid None): lanes gated one by
   one load as one vector under a mask of lanes, and their indices fold their quotients and remainders where
   the gate bounds them (index_given). The index to group by, for such a load. *)
let lane_gated (u : Uop.t) (buf : Uop.t) (valid : Uop.t) (idx : Uop.t) =
  if u.op == Ops.Load && buf.dtype == Dtype.Float32 && addrspace buf = Some Dtype.Global
     && not (valid.op == Ops.Const && const_val valid = Dtype.B true) then Some (index_given valid idx)
  else None

(* the loads of a lane-gated group (see lane_gated), as the pairs of a load and its replacement. Consecutive
   offsets with one gate each load as vectors of the CPU's lengths: under their common gate where the lanes
   share one, else under a mask of lanes (bit i the gate of lane i; the renderer loads no lane outside the
   mask, renderer/cstyle.ml). An offset loaded under several gates (a weight broadcast to lanes of different
   windows) is loaded once, where any of them holds, and each lane keeps its value where its own gate holds,
   else 0 (a bitwise and). *)
let lane_gated_loads (ren : Renderer.t) buf (base : Coalesce.root_src) offsets =
  let replacements = ref [] in
  let lengths = Renderer.float_lengths ren @ [ 1 ] in
  let valid_of (u : Uop.t) = get_valid u.src.(0).src.(1) in
  let find = Coalesce.at_offset offsets in
  let valids g = Helpers.dedupq (List.map valid_of (find g)) in
  let at k = match base with
    | Coalesce.Root b -> add b (const_int (Z.to_int k))
    | Coalesce.Root_invalid | Coalesce.Root_const -> const_int (Z.to_int k) in
  let multi = List.filter (fun k -> List.length (valids k) > 1) (List.map fst offsets) in
  List.iter (fun k ->
      let vs = valids k in
      let ld = load (index buf [ Uop.valid (at k) (List.fold_left or_ (List.hd vs) (List.tl vs)) ]) [] in
      (* each lane's value is [valid ? ld : 0.0f] as the bits of ld and'ed with -(int)valid, which is that
         select exactly (NaN and infinities included): clang computes the masks once, outside the loop, and
         vectorizes the and'ed lanes, where it rebuilds the selected lanes of each broadcast with shuffles on
         every iteration *)
      let lane_value v = bitcast Dtype.Float32 (and_ (bitcast Dtype.Int32 ld) (neg (cast Dtype.Int32 v))) in
      List.iter (fun (u : Uop.t) -> replacements := (u, lane_value (valid_of u)) :: !replacements)
        (find k)) multi;
  let groups = Coalesce.consecutive_runs (List.filter (fun (k, _) ->
    not (List.exists (Z.equal k) multi)) offsets) in
  List.iter (fun grp ->
      let rec chunks = function
        | [] -> ()
        | first :: _ as grp ->
          let n = List.length grp in
          let len = List.find (fun l -> l <= n) lengths in
          let chunk = List.filteri (fun i _ -> i < len) grp in
          let vs = List.map (fun k -> List.hd (valids k)) chunk in
          let ld =
            if List.for_all (fun v -> v == List.hd vs) vs then
              let offset = Uop.valid (at first) (List.hd vs) in
              load (if len > 1 then create Ops.Shrink ~src:[| buf; offset; const_int len |] else
                index buf [ offset ]) []
            else begin
              let shrink = create Ops.Shrink ~src:[| buf; at first; const_int len |] in
              let l = load shrink [] in
              let bit i v = mul (cast Dtype.Uint32 v) (const ~dtype:Dtype.Uint32 (Dtype.I (Z.shift_left Z.one i))) in
              let mask = List.fold_left or_ (bit 0 (List.hd vs)) (List.mapi (fun i v ->
                bit (i + 1) v) (List.tl vs)) in
              load shrink [ broadcast (const ~dtype:l.dtype (Dtype.F 0.)) (Z.to_int (Weak.max_numel l)); mask ]
            end in
          List.iteri (fun i k -> List.iter (fun oo ->
            replacements := (oo, if len > 1 then index ld [ const_int i ] else ld) :: !replacements)
                         (find k)) chunk;
          chunks (List.filteri (fun i _ -> i >= len) grp) in
      chunks grp) groups;
  List.rev !replacements

(* float16 loads from a global buffer group to the float32 lengths too, at any offset: a float16 operand
   unrolled beside a quantized weight (a norm's weight in a matrix-vector kernel that dequantizes its matrix)
   loads as one vector that clang converts whole; tinygrad's 4-lane groups came out of clang as lane-by-lane
   inserts *)
let float16_global (buf : Uop.t) = buf.dtype == Dtype.Float16 && addrspace buf = Some Dtype.Global

(* gated uint8 loads from a global buffer group to the float32 lengths too, at any offset: a gather of a
   uint8 dataset's rows (a batch taken by a one-hot over the samples, each split of the samples gating its
   loads) loads each gated run as one vector under one branch on the gate, where each byte selected its own
   address and value. Ungated bytes stay scalar: a convolution that broadcasts each byte of an image row
   loads it straight into its broadcast, where a vector of them was extracted lane by lane *)
let uint8_global (buf : Uop.t) = buf.dtype == Dtype.Uint8 && addrspace buf = Some Dtype.Global

(* the policy of the CPU mode for a renderer: its float32 lengths *)
let policy (ren : Renderer.t) : Coalesce.policy =
  let lengths = Renderer.float_lengths ren in
  { Coalesce.lane_gated;
    coalesces_reg = is_vector_acc;
    (* float32 vectors are rendered element-aligned (renderer/cstyle.ml), so a group may start at any offset:
       an odd row stride still loads whole vectors, and the window of a convolution shifted by kx loads its 16
       + 8 + 2 lanes as three vectors; the vector accumulators (one REG buffer per output, of its lanes) load
       and store whole vectors *)
    lengths = (fun (buf : Uop.t) ->
        if float16_global buf then Some lengths
        else if buf.dtype != Dtype.Float32 then None
        else if addrspace buf = Some Dtype.Reg then (if is_vector_acc buf then Some lengths else None)
        else Some lengths);
    gated_lengths = (fun (buf : Uop.t) -> if uint8_global buf then Some lengths else None);
    lane_gated_loads = lane_gated_loads ren }
