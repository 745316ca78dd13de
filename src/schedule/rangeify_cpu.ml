(* Not in tinygrad: the CPU mode's rewrite of the tensor graph before rangeify (CPU_OPT=fast on the CPU,
   Renderer.cpu_fast_device), rules appended to Rangeify's earliest rewrites. *)

open Uop
module P = Upat
module M = Mixin_movement

let enabled () = Renderer.cpu_fast_device "CPU"

(* an operand at least this big (4 MiB) does not stay in L2 beside the others: a matmul streams its column
   panels through L2 and L1, where the set conflicts below evict them *)
let padded_operand_bytes = 4 lsl 20

(* a row stride that is a multiple of 4 KiB maps the rows of a panel to a few cache sets *)
let conflict_stride_bytes = 4096

(* a cache line of padding on each row: consecutive rows then start in consecutive sets *)
let pad_bytes = 64

(* the copy reads and writes the operand once; a product reads it once per tile of the outputs that do not
   index it (rows of A), so with fewer than this many such outputs (a matrix-vector product: one) the copy
   costs more than the conflicts it removes *)
let min_reuse = 64

let rec under_mops (u : Uop.t) = if List.memq u.op Ops.Group.movement then under_mops u.src.(0) else u

(* a float32 buffer on the CPU, or the value a kernel stored into one ([stored_assign_targets]) *)
let rec cpu_float32 (buf : Uop.t) =
  if buf.op == Ops.After then cpu_float32 buf.src.(0)
  else buf.op == Ops.Param && buf.dtype == Dtype.Float32
       && (match (param_arg buf).device with Some (One "CPU") -> true | _ -> false)

(* ---------- rows held in a stack buffer (partial contiguous) ---------- *)

(* a row of at most this many elements (16 KiB of float32) is held in a stack buffer of its kernel, which
   stays in L1 beside the input row that the kernel reads again *)
let row_buffer_max = 4096

(* a tensor of fewer elements than this (256K) keeps tinygrad's kernels: the threads of the one row kernel
   then get too little work each to pay for their start (GPT-2's layernorm of 128 tokens), and launches,
   not passes over memory, bound it *)
let row_buffer_min_numel = 1 lsl 18

(* a node on one CPU device *)
let on_cpu (x : Uop.t) = match Uop.mdevice x with Some (One d) -> Device.is_cpu d | _ -> false

(* the static shape of a float node on the CPU *)
let cpu_float_shape (x : Uop.t) =
  if not (on_cpu x && Dtype.is_float x.dtype) then None
  else match shape_opt x with
    | Some s when List.for_all (function Sint _ -> true | Suop _ -> false) s ->
      Some (List.map (function Sint n -> n | Suop _ -> 0) s)
    | _ -> None

(* a row shorter than this (a pooling's window, a product over ten classes) leaves its kernel too little to
   vectorize per row: tinygrad's kernels, which run along the rows, are kept *)
let row_buffer_min = 32

(* [axes] are the trailing ones of [ndim] axes *)
let trailing axes ndim =
  List.sort compare axes = List.init (List.length axes) (fun i -> ndim - List.length axes + i)

(* a row of [x] of [row] elements (its [axes]) that a kernel may hold in a stack buffer *)
let row_fits (x : Uop.t) ~axes =
  match cpu_float_shape x with
  | Some s ->
    let row = Helpers.prod (List.map (List.nth s) axes) in
    Helpers.prod s >= row_buffer_min_numel && row >= row_buffer_min && row <= row_buffer_max
    && trailing axes (List.length s)
  | None -> false

(* the consumer hops (elementwise ops, reshapes) between a row reduce and the nodes that lead to it or follow
   it: log_softmax's log of the sum, softmax's exp before its sum *)
let row_hops = 4

(* the tensor whose rows the REDUCE [r] reduces: a PERMUTE of it brings its trailing axes, a row of
   [row_buffer_min] to [row_buffer_max] elements, to the front *)
let row_source (r : Uop.t) =
  match r.op, r.arg, r.src with
  | Ops.Reduce, Reduce_arg (_, n), [| { op = Ops.Permute; arg = Ints perm; src = [| y |]; _ } |]
    when n > 0 && row_fits y ~axes:(Helpers.take n perm) -> Some y
  | _ -> None

let passes_rows (u : Uop.t) = Ops.Group.is_elementwise u.op || u.op == Ops.Reshape

(* [u] reaches [found] through at most [row_hops] consumers that [passes_rows] *)
let rec downstream ~consumers ~found depth (u : Uop.t) =
  List.exists (fun c ->
      found c || (depth > 0 && passes_rows c && downstream ~consumers ~found (depth - 1) c)) (consumers u)

(* tinygrad's PCONTIG=2 for [x] in run_rangeify, under the CPU mode: [x]'s consumers read it along the same
   leading axes and differ on the [realized] ones, its trailing axes, a row of [row_buffer_min] to
   [row_buffer_max] elements, and one of them reduces that row (the exp of softmax, read by the sum and by
   the normalize): the row alone is realized, in a stack buffer of the consumers' kernel *)
let row_buffer (x : Uop.t) ~realized ~consumers =
  enabled () && realized <> [] && row_fits x ~axes:realized
  && downstream ~consumers row_hops x ~found:(fun c ->
      c.op == Ops.Permute && List.exists (fun r -> row_source r <> None) (consumers c))

(* tinygrad's PCONTIG=2 for [x] in run_rangeify, under the CPU mode: [x] is a row reduce (row_source), or an
   elementwise op of one, whose result is broadcast back over the rows it reduced (softmax's max,
   log_softmax's log of the sum): the loops over the rows stay open, so the kernel that computes it also uses
   it *)
let row_reduce (x : Uop.t) ~consumers =
  let rec source depth (u : Uop.t) =
    match row_source u with
    | Some y -> Some y
    | None when depth > 0 && passes_rows u -> Array.fold_left (fun acc s ->
        match acc with Some _ -> acc | None -> source (depth - 1) s) None u.src
    | None -> None in
  enabled ()
  && match source row_hops x with
  | Some y ->
    (* a broadcast back: an EXPAND, or an op that broadcasts its operands (x - max x), to the rows' shape *)
    let same_shape (c : Uop.t) = let s = shape c and t = shape y in
      List.length s = List.length t && equal_sints s t in
    downstream ~consumers row_hops x ~found:(fun c ->
        (c.op == Ops.Expand || Ops.Group.is_broadcastable c.op) && same_shape c)
  | None -> false

(* the reads of a sum of products on the CPU *)
type reads = {
  reduce_rngs : (Uop.t * int) list;  (** ranges over the reduced axes of the product's shape, and sizes *)
  out_rngs : (Uop.t * int) list;  (** ranges over its other axes, and their sizes *)
  operands : (Uop.t * Uop.t * Uop.t) list;  (** operand, its buffer, its flat index in it *)
}

(* [idx], an INDEX, rewritten by [mops] at its root until no rule applies: the index pushed through the
   movement ops over its base one at a time, where a graph_rewrite would also walk the base's whole graph (a
   computed operand: the forward and backward graphs below it) *)
let rec push_index ~mops (idx : Uop.t) =
  match P.rewrite mops () idx with Some idx' -> push_index ~mops idx' | None -> idx

(* the reads of a float32 sum of products on the CPU, REDUCE(x) with x a product of a static shape, for the
   operands that [worth] takes (movement ops over a buffer, broadcast to the product's shape: each dim the
   product's or 1) and that index their buffer directly, over ranges of x's shape *)
let product_reads ~mops ~worth (reduce : Uop.t) (x : Uop.t) =
  let nred = match reduce.arg with Reduce_arg (Ops.Add, n) -> n | _ -> 0 in
  let prod = under_mops x in
  let broadcast (operand : Uop.t) =
    let s = max_shape operand and ps = max_shape prod in
    List.length s = List.length ps && List.for_all2 (fun d pd -> d = pd || d = 1) s ps in
  let worth (operand : Uop.t) = worth operand && broadcast operand in
  let xshape = shape x in
  if nred = 0 || not (enabled ()) || prod.op != Ops.Mul || x.dtype != Dtype.Float32
     || not (List.for_all (function Sint _ -> true | Suop _ -> false) xshape)
     || not (Array.exists worth prod.src) then None else
    let rngs = List.mapi (fun i s -> range s i) xshape in
    let sizes = List.map (function Sint n -> n | Suop _ -> 0) xshape in
    let push u = push_index ~mops u in
    match push (index x rngs) with
    | { op = Ops.Index; src; _ } as pushed when src.(0) == prod ->
      let idxs = List.tl (Array.to_list pushed.src) in
      let read (operand : Uop.t) =
        let at = List.map2 (fun d i -> if d = 1 then const_int 0 else i) (max_shape operand) idxs in
        push (index operand at) in
      let operands = List.filter_map (fun (operand : Uop.t) ->
          if not (worth operand) then None else
            match read operand with
            | { op = Ops.Index; src; _ } when Array.length src >= 2 && src.(0) == under_mops operand ->
              (* a computed base is indexed per dim: its flat index in the base's contiguous layout *)
              let buf = src.(0) in
              let idxs = List.tl (Array.to_list src) in
              let dims = max_shape buf in
              if List.length idxs = 1 then Some (operand, buf, simplify (List.hd idxs))
              else if List.length idxs <> List.length dims then None
              else
                let strides = Helpers.contiguous_strides dims in
                let flat = List.fold_left2 (fun acc i st -> add acc (mul i (const_int st))) (const_int 0)
                    idxs strides in
                Some (operand, buf, simplify flat)
            | _ -> None) (Array.to_list prod.src) in
      let sized = List.combine rngs sizes in
      Some { reduce_rngs = Helpers.take nred sized; out_rngs = Helpers.drop nred sized; operands }
    | _ -> None

(* the outputs that do not index a read at [flat] (the rows of A for B of a matmul): how often it is
   reused *)
let reuse (r : reads) flat =
  let used = toposort flat in
  List.fold_left (fun acc (rng, n) -> if List.memq rng used then acc else acc * n) 1 r.out_rngs

(* the operand of a sum of products on the CPU whose reduce steps its rows by a multiple of 4 KiB and whose
   outputs run along a row, its buffer and its row: B of a matmul A @ B, B K x N with N a multiple of 1024
   floats. Only a chain of movement ops over a buffer. *)
let conflicting_operand ~mops (reduce : Uop.t) (x : Uop.t) =
  (* the operands worth the index walk: movement ops over a big float32 CPU buffer *)
  let big (operand : Uop.t) =
    let buf = under_mops operand in
    cpu_float32 buf && Helpers.prod (max_shape buf) * Dtype.itemsize buf.dtype >= padded_operand_bytes in
  match product_reads ~mops ~worth:big reduce x with
  | None -> None
  | Some r ->
    List.find_map (fun (operand, (buf : Uop.t), flat) ->
        let size = Helpers.prod (max_shape buf) and itemsize = Dtype.itemsize buf.dtype in
        let row = List.fold_left (fun acc (rng, _) -> max acc (term_coefficient rng flat)) 0 r.reduce_rngs in
        if row > 1 && row * itemsize mod conflict_stride_bytes = 0 && size mod row = 0
           && reuse r flat >= min_reuse
           && List.exists (fun (rng, _) -> term_coefficient rng flat = 1) r.out_rngs
        then Some (operand, buf, row) else None) r.operands

(* [reduce] with [operand] (movement ops over [buf]) read through [view] (a view with [buf]'s shape and
   values) in place of [buf]: the operand's movement ops rebuilt over the view (a substitution of the buffer
   by the view, which holds it, would not end) *)
let read_through (reduce : Uop.t) ~operand ~(buf : Uop.t) (view : Uop.t) =
  let rec rebase (u : Uop.t) =
    if u == buf then Some view
    else if List.memq u.op Ops.Group.movement then
      Option.map (fun s ->
          Uop.replace ~src:(Array.append [| s |] (Array.sub u.src 1 (Array.length u.src - 1))) u)
        (rebase u.src.(0))
    else None in
  Option.map (fun operand' -> P.substitute reduce [ (operand, operand') ]) (rebase operand)

(* A matmul whose B operand (the one its outputs run along) has rows a multiple of 4 KiB long reads B through
   a copy with a cache line of padding at the end of each row: the loop over the reduce steps through B by
   rows, and with such a stride every column panel of B falls in a few sets of L2, which then keeps a small
   part of the panel that the cache block (Opt.BLOCK) means to keep. The copy is one more kernel, reading and
   writing B once. *)
let pad_rows ~mops (reduce : Uop.t) (x : Uop.t) =
  match conflicting_operand ~mops reduce x with
  | None -> None
  | Some (operand, buf, row) ->
    let rows = Helpers.prod (max_shape buf) / row in
    let pad = pad_bytes / Dtype.itemsize buf.dtype in
    let rows_of_buf = M.reshape buf [ Sint rows; Sint row ] in
    let padded = Buffers.contiguous (M.pad rows_of_buf [ None; Some (Sint 0, Sint pad) ]) in
    read_through reduce ~operand ~buf
      (M.reshape (M.shrink padded [ None; Some (Sint 0, Sint row) ]) (shape buf))

(* the output channels of the CPU mode's widest vectors: a multiple of 16 floats (AVX-512) is a multiple of
   every host's widest (Renderer.float_lengths) *)
let channel_lanes = 16

(* the weight of a convolution read with a strided lane axis, its buffer, its output channels and the points
   of its reduce: a sum of products over several reduced axes (input channels and window) with
   Heuristic_cpu's channel-lane bounds, one operand of which, movement ops over a float32 buffer, is indexed
   by one output axis only (the output channels, a multiple of [channel_lanes]), with the reduce's points as
   its stride, and by every reduced axis: the buffer is (cout, cin, kh, kw), read whole for each output
   point, at least [min_reuse] outputs (pixels) do not index it, and the output row (the last axis) has
   rows for the tile (Heuristic_cpu.channel_lane_rows). The image may be read under a gate (padded) *)
let strided_weight ~mops (reduce : Uop.t) (x : Uop.t) =
  let weight (operand : Uop.t) = cpu_float32 (under_mops operand) in
  match product_reads ~mops ~worth:weight reduce x with
  | Some ({ out_rngs = _ :: _; _ } as r) when List.length r.reduce_rngs >= 2 ->
    let points = Helpers.prod (List.map snd r.reduce_rngs) in
    let row, row_len = Helpers.last r.out_rngs in
    if points < Heuristic_cpu.conv_channel_reduce_min || points > Heuristic_cpu.conv_reduce_max
       || Heuristic_cpu.channel_lane_rows ~widest:channel_lanes row_len = None then None
    else List.find_map (fun (operand, (buf : Uop.t), flat) ->
        let used = toposort flat in
        match List.filter (fun (rng, _) -> List.memq rng used) r.out_rngs with
        | [ (co, cout) ] when cout mod channel_lanes = 0 && term_coefficient co flat = points
                              && Helpers.prod (max_shape buf) = cout * points
                              && List.for_all (fun (rng, _) -> List.memq rng used) r.reduce_rngs
                              && reuse r flat >= min_reuse && co != row ->
          Some (operand, buf, cout, points)
        | _ -> None) r.operands
  | _ -> None

(* the first PAD in the chain of movement ops [u] reads its buffer through, if any *)
let rec pad_in_mops (u : Uop.t) =
  if u.op == Ops.Pad then Some u
  else if List.memq u.op Ops.Group.movement then pad_in_mops u.src.(0)
  else None

(* A convolution (a sum of products over several reduced axes, at least
   Heuristic_cpu.conv_channel_reduce_min points: each image value loaded feeds that many multiply-adds) whose
   float32 CPU operand is read through a PAD (a padded image; the padded input of a weight gradient) reads a
   contiguous copy of the padded operand instead, one more kernel of its size: the convolution's loads are
   then ungated. A gated row of the channel-lane tile (Heuristic_cpu.cpu_conv_channel_lanes) loads a masked
   vector and extracts each lane, where an ungated one multiplies by a broadcast memory operand; the other
   tiles load whole vectors where they loaded under a mask of lanes. *)
let padded_image ~mops (reduce : Uop.t) (x : Uop.t) =
  let image (operand : Uop.t) = cpu_float32 (under_mops operand) in
  match product_reads ~mops ~worth:image reduce x with
  | Some r when List.length r.reduce_rngs >= 2
             && Helpers.prod (List.map snd r.reduce_rngs) >= Heuristic_cpu.conv_channel_reduce_min ->
    let pads = List.filter_map (fun (operand : Uop.t) ->
        if not (image operand) then None
        else Option.map (fun p -> (p, Buffers.contiguous p)) (pad_in_mops operand))
        (Array.to_list (under_mops x).src) in
    if pads = [] then None else Some (P.substitute ~walk:true reduce pads)
  | _ -> None

(* A convolution whose weight is read with a strided lane axis (the output channels, stride cin x kh x kw)
   reads it through a channels-last copy, (cin x kh x kw, cout) contiguous, viewed back as the weight: the
   convolution then loads a vector of output channels per reduce step, and takes the implicit-GEMM tile whose
   lanes are the output channels (Heuristic_cpu.cpu_conv_channel_lanes), where every lane works whatever the
   output row's length. The copy is one more kernel of the weight's size. *)
let channels_last ~mops (reduce : Uop.t) (x : Uop.t) =
  match strided_weight ~mops reduce x with
  | None -> None
  | Some (operand, buf, cout, points) ->
    let copy = Buffers.contiguous (M.permute (M.reshape buf [ Sint cout; Sint points ]) [ 1; 0 ]) in
    read_through reduce ~operand ~buf (M.reshape (M.permute copy [ 1; 0 ]) (shape buf))

(* a row of [row_len] points that neither fills whole vectors nor packs into them whole (8 lanes, two rows
   to a vector): such a row keeps the weight gradient's tile along the row
   (Heuristic_cpu.cpu_conv_weight_grad) *)
let ragged_row row_len = row_len mod channel_lanes <> 0 && channel_lanes mod row_len <> 0

(* what strided_out_gradient asks of the reduce's shape alone, asked before product_reads walks the index
   through the operands' movement ops (a walk of a computed operand's whole graph): a float32 product of two
   factors over at least two reduced axes, the innermost a ragged row, and among the outputs the channels
   (whole vectors), an axis that both factors may index and at least [min_reuse] other points *)
let split_wgrad_shape (reduce : Uop.t) (x : Uop.t) =
  match reduce.arg, under_mops x with
  | Reduce_arg (Ops.Add, nred), { op = Ops.Mul; src = [| a; b |]; _ }
    when nred >= 2 && a.dtype == Dtype.Float32 && b.dtype == Dtype.Float32 ->
    (match Helpers.drop (nred - 1) (shape x) with
     | Sint row_len :: outs when ragged_row row_len ->
       let sizes = List.map (function Sint n -> n | Suop _ -> 0) outs in
       let points = Helpers.prod sizes in
       (* the channels [co] and a shared axis [s], two of the outputs, leave [min_reuse] points or more *)
       List.exists (fun (i, co) ->
           co > 0 && co mod channel_lanes = 0
           && List.exists (fun (j, s) -> j <> i && s > 0 && points / (co * s) >= min_reuse)
             (List.mapi (fun j s -> (j, s)) sizes))
         (List.mapi (fun i co -> (i, co)) sizes)
     | _ -> false)
  | _ -> false

(* the output gradient of a convolution's weight gradient whose reduce the scheduler split (an output axis
   indexes both factors: the batch's groups), read with a strided channel axis, its base (the tensor under
   its movement ops, computed or a buffer), the base's dim of the channels and its static shape: a float32
   sum of products over several reduced axes, one factor of which is indexed by one output axis that the
   other factor does not index (the output channels, a multiple of [channel_lanes], strided in the base),
   the other factor by at least [min_reuse] output points that this one does not index (input channels by
   the window), and the innermost reduced axis (the output row) contiguous in both *)
let strided_out_gradient ~mops (reduce : Uop.t) (x : Uop.t) =
  let float32 (operand : Uop.t) = operand.dtype == Dtype.Float32 in
  if not (split_wgrad_shape reduce x) then None else
  match product_reads ~mops ~worth:float32 reduce x with
  | Some ({ operands = [ (a, abase, aflat); (b, bbase, bflat) ]; _ } as r)
    when List.length r.reduce_rngs >= 2 ->
    let outs flat = let used = toposort flat in List.filter (fun (rng, _) -> List.memq rng used) r.out_rngs in
    let row, row_len = Helpers.last r.reduce_rngs in
    let ragged = ragged_row row_len in
    let pick (g, (gbase : Uop.t), gflat) (xflat : Uop.t) =
      let gouts = outs gflat and xouts = outs xflat in
      let shared = List.filter (fun o -> List.memq o xouts) gouts in
      let own = List.filter (fun o -> not (List.memq o xouts)) gouts in
      let gshape = max_shape gbase in
      match own with
      | [ (co, cout) ] when ragged && shared <> [] && cout mod channel_lanes = 0
                            && term_coefficient row gflat = 1 && term_coefficient row xflat = 1
                            && reuse r gflat >= min_reuse ->
        let coef = term_coefficient co gflat in
        let strides = Helpers.contiguous_strides gshape in
        let dims = List.filter (fun i -> List.nth strides i = coef && List.nth gshape i = cout)
            (List.init (List.length gshape) Fun.id) in
        (match dims with
         | [ d ] when coef > 1 && d < List.length gshape - 1 -> Some (g, gbase, d, gshape)
         | _ -> None)
      | _ -> None in
    (match pick (a, abase, aflat) bflat with
     | Some _ as found -> found
     | None -> pick (b, bbase, bflat) aflat)
  | _ -> None

(* A convolution's weight gradient whose reduce the scheduler split into groups of the batch reads its output
   gradient, when it is read with a strided channel axis (strided_out_gradient), through a channels-last
   copy, (batch, rows, columns, channels) contiguous, viewed back in its own layout: the gradient, a computed
   tensor, is then computed once into the copy's order, a kernel of its size, and the weight gradient loads a
   vector of output channels per reduce step and takes the tile whose lanes are the output channels
   (Heuristic_cpu.cpu_wgrad_channel_lanes), where every lane of a short row (rows of 20: 16 + 4) works. *)
let gradient_channels_last ~mops (reduce : Uop.t) (x : Uop.t) =
  match strided_out_gradient ~mops reduce x with
  | None -> None
  | Some (operand, base, d, gshape) ->
    let perm = List.filter (fun i -> i <> d) (List.init (List.length gshape) Fun.id) @ [ d ] in
    let copy = Buffers.contiguous (M.permute base perm) in
    read_through reduce ~operand ~buf:base (M.permute copy (Helpers.argsort perm))

let rules ~mops : unit P.matcher =
  P.(matcher [ rule (pat Ops.Reduce ~name:"reduce" ~src:(In_order [ var "x" ])) (fun m ->
      pad_rows ~mops (get m "reduce") (get m "x"));
               rule (pat Ops.Reduce ~name:"reduce" ~src:(In_order [ var "x" ])) (fun m ->
                   channels_last ~mops (get m "reduce") (get m "x"));
               rule (pat Ops.Reduce ~name:"reduce" ~src:(In_order [ var "x" ])) (fun m ->
                   padded_image ~mops (get m "reduce") (get m "x"));
               rule (pat Ops.Reduce ~name:"reduce" ~src:(In_order [ var "x" ])) (fun m ->
                   gradient_channels_last ~mops (get m "reduce") (get m "x")) ])

(* ---------- assigned values stored before they are read ---------- *)

(* an assign realized while its target is still an expression (a parameter's init, an optimizer's zeros):
   tinygrad stores only the assigned value, and each kernel of the realize that reads the expression computes
   it inline. Stored into the target's buffer first, those kernels read a buffer, as the later realizes read
   the assigned buffer: the first step's kernels are the later steps' kernels, compiled once *)
let stored_assign_targets (roots : Uop.t list) =
  if not (enabled ()) then []
  else begin
    let assign (u : Uop.t) =
      u.op == Ops.After && Array.length u.src = 2
      && u.src.(1).op == Ops.Store && u.src.(1).src.(0) == u.src.(0) in
    (* the first target of a chain of assigns *)
    let rec first (u : Uop.t) =
      if not (assign u) then None
      else if u.src.(0).op == Ops.After then first u.src.(0)
      else Some u.src.(0) in
    let expression (t : Uop.t) =
      on_cpu t && t.op != Ops.Bitcast && not (Ops.Group.is_movement t.op)
      && not (has_buffer_identity ~after_ok:true t) && not (is_virtual t)
      && not (List.mem (Sint 0) (shape t)) in
    List.filter_map (fun r ->
        match first r with
        | Some t when expression t ->
          (match Buffers.contiguous t with c when c != t -> Some (t, c) | _ -> None)
        | _ -> None) roots
  end
