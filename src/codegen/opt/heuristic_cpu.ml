(* Not in tinygrad: the CPU mode's heuristic (CPU_OPT=fast on the CPU, Renderer.cpu_fast). It keeps
   tinygrad's stages (Heuristic) and replaces the upcast/unroll stage by the CPU's tiles, tried in order
   (register tile, conv weight gradient on channel lanes, conv weight gradient, conv channel lanes, conv
   tile, matvec, nested reduce tile, vector reduce), falling back to tinygrad's upcasts and then the window's
   rest and lanes; the threading stage counts float ops per point and pads a kernel that no thread count
   divides. *)

open Uop
module K = Postrange

let opt = Heuristic.opt
let full_shape_int = Heuristic.full_shape_int
let index_of_rng = Heuristic.index_of_rng
let in_backward_slice = Heuristic.in_backward_slice

(* the float32 vector lengths of the kernel, widest first: the CPU mode is selected, so every stage may use
   them *)
let cpu_lengths (k : K.t) = Some (Renderer.float_lengths k.ren)

(* ---------- thresholds ---------- *)

(* the float ops a thread should get, as tinygrad's thread_opts counts them (about 128K) *)
let ops_per_thread = 128 lsl 10

(* a vector operand of at least this many bytes (4 MiB) does not stay in L2 next to the others: its matmul
   gets the cache-blocked tile *)
let block_operand_bytes = 4 lsl 20

(* the tiles of the vector axis in a cache block: a panel of B two tiles wide (2048 rows of 32 floats each:
   512 KiB) leaves half of L2 to the rows of A and the output *)
let block_tiles = 2

(* a forward convolution's reduce (channels x window) has at most this many points; a weight gradient's (batch
   x image) has more, and takes its own tile *)
let conv_reduce_max = 4096

(* a convolution whose reduce has fewer points than this keeps lanes along its output row: the channel-lane
   tile stores its outputs lane by lane (the lanes are not contiguous in the output), one store per lane of
   each accumulator, which a short reduce does not amortize *)
let conv_channel_reduce_min = 256

(* a pooling's output row shorter than this (a 6x6 image pooled to 3 columns) is not worth a vector *)
let window_lanes_min = 8

(* the reduce points that tinygrad's unrolls may leave of a window sum for cpu_window_rest to unroll: a 3x3
   window summed through _pool's backward spans 4x4 points (one row and one column gated off), of which
   tinygrad unrolls one axis of 4 *)
let window_rest_max = 4

(* ---------- shared by the CPU branch (not in tinygrad) ---------- *)

(* [f] applied to a copy of [k]: the copy, or None when an opt does not apply *)
let try_on_copy (k : K.t) f = let k = K.copy k in try f k; Some k with Opt.Kernel_opt_error _ -> None

(* UPCAST of the loop [r] by [amt] (0: whole), found by its range: the loop's index moves as opts apply *)
let upcast_range (k : K.t) r amt = K.apply_opt k (opt Opt.UPCAST ~axis:(index_of_rng k r) ~arg:(Opt.Int amt))

(* the lanes of a channel-lane tile: [r] upcast by [widest], then [vectors] of those vectors (the loop left of
   the lanes, upcast by their count) *)
let upcast_lane_vectors (k : K.t) r ~widest ~vectors =
  match upcast_range k r widest with
  | Some (outer, _) when vectors > 1 -> ignore (upcast_range k outer vectors)
  | _ -> ()

(* the stored buffers and the loaded ones *)
let stores_loads (k : K.t) =
  let stores = List.filter_map (fun (u : Uop.t) ->
    if u.op == Ops.Store then Some u.src.(0) else None) (toposort k.ast) in
  (stores, List.filter (fun b -> not (List.memq b stores)) (K.bufs k))

(* not in tinygrad: under CPU_OPT=fast, a kernel big enough to thread whose axes no thread count divides
   (GPT-2's vocabulary of 50,257 outputs) gets its outermost axis padded to a multiple of the thread count (a
   gate on that axis only: padded rows load and store nothing) and threaded over it *)
let cpu_padded_thread (k : K.t) gmax0 =
  (* once padded (cpu_matvec), a second pad and the thread range leave a gate per lane that symbolic does not
     fold, slower than one thread *)
  let threaded = List.exists (fun (o : Opt.t) -> o.op = Opt.THREAD || o.op = Opt.PADTO) k.applied_opts in
  match cpu_lengths k, K.axes_of k [ Weak ] with
  | Some _, axis :: _ when not threaded && gmax0 >= 2 ->
    let threads = gmax0 in
    let size = full_shape_int k axis in
    let ops = match sprod (K.full_shape k) with Sint p -> p | Suop _ -> 0 in
    if ops / ops_per_thread >= threads && size >= 4 * threads then begin
      try
        ignore (K.apply_opt k (opt Opt.PADTO ~axis ~arg:(Opt.Int threads)));
        ignore (K.apply_opt k (opt Opt.THREAD ~axis ~arg:(Opt.Int threads)))
      with Opt.Kernel_opt_error _ -> ()
    end
  | _ -> ()

(* not in tinygrad: under CPU_OPT=fast, the float ALU ops computed per point of the kernel's shape (at least
   1), so that the thread threshold counts ops and not points: Adam's update of a 784x128 weight (100,352
   points, a dozen ops each, a division and a square root among them) would stay below tinygrad's threshold
   and run on one thread. tinygrad counts points (1). *)
let cpu_ops_per_point (k : K.t) =
  if cpu_lengths k = None then 1
  else max 1 (List.length (List.filter (fun (u : Uop.t) -> Ops.Group.is_alu u.op && Dtype.is_float u.dtype)
                             (toposort k.ast)))

(* ---------- the CPU branch (not in tinygrad) ---------- *)

(* [rng] appears with stride 1 in [idx] *)
let unit_stride (rng : Uop.t) (idx : Uop.t) = List.exists (fun c -> c == rng) (split_uop idx Ops.Add)

(* a REDUCE of Add *)
let is_sum (red : Uop.t) = match red.arg with Reduce_arg (Ops.Add, _) -> true | _ -> false

(* the product a REDUCE reduces (maybe cast), if it reduces one *)
let product_of (red : Uop.t) =
  let s = red.src.(0) in
  if s.op == Ops.Mul then Some s
  else if s.op == Ops.Cast && s.src.(0).op == Ops.Mul then Some s.src.(0)
  else None

(* a sum of products: a matmul's or a convolution's *)
let sum_of_products (red : Uop.t) = is_sum red && product_of red <> None

(* the index of the (first) stored buffer and those of the loaded ones; with [under], only the buffers loaded
   under it (the operands of a reduce: a bias added after it is not one) *)
let out_in_indices ?under (k : K.t) =
  let stores, loads = stores_loads k in
  let loads = match under with None -> loads | Some u -> List.filter (fun b ->
    in_backward_slice_with_self b u) loads in
  (get_idx (List.hd stores).src.(1), List.map (fun (b : Uop.t) -> get_idx b.src.(1)) loads)

(* not in tinygrad: under CPU_OPT=fast, a reduce of a product (a matmul, a convolution as an implicit GEMM)
   gets the register tile of a BLAS micro-kernel. The output axis that is contiguous in the output gets upcast
   by the widest vector that divides it (a row of accumulators is one register, loaded from the other operand
   with one vector load), a second output axis that one input does not depend on (the broadcast operand) gets
   upcast by a few rows, so that every vector loaded is reused by as many FMAs; the reduce stays a rolled
   loop. True when applied (the other upcast and unroll stages are skipped): the tiled copy of the kernel. *)
let cpu_register_tile (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceop k with
  (* one reduce axis, as a matmul's: a convolution (channels x window) has its own tile below. No size
     threshold: small matmuls gain from the tile too. The operands are the loads under the reduce: a bias
     added after it, contiguous along the output, is not the vector operand *)
  | Some lengths, Some red
    when List.length (K.axes_of k [ Group_reduce; Reduce ]) = 1 && sum_of_products red ->
    let out_idx, in_idx = out_in_indices ~under:red.src.(0) k in
    let rngs = Array.of_list (K.rngs k) in
    let ups = K.upcastable_dims k in
    (* the vector axis, with the widest vector that divides it *)
    let find_n ~out_contiguous = List.find_map (fun vw ->
        Option.map (fun a -> (a, vw))
          (List.find_opt (fun a -> (not out_contiguous || unit_stride rngs.(a) out_idx)
                                   && full_shape_int k a mod vw = 0
                                   && List.exists (unit_stride rngs.(a)) in_idx) ups))
        (* narrower than half a register, the tile's lanes are mostly empty: tinygrad's upcasts do better *)
        (List.filter (fun l -> 2 * l >= List.hd lengths) lengths) in
    (* else an axis contiguous in an operand only: its lanes are stored one by one (once per output, after the
       loop), and the loop still loads whole vectors (an im2col product whose output runs along a 3x3 window)
       *)
    let n_axis = match find_n ~out_contiguous:true with Some n -> Some n | None ->
      find_n ~out_contiguous:false in
    (match n_axis with
     | None -> None
     | Some (n, vw) ->
       (* the broadcast axis: one input does not depend on it, another does *)
       let broadcast a = a <> n && List.exists (fun i -> not (in_backward_slice_with_self rngs.(a) i)) in_idx
                         && List.exists (fun i -> in_backward_slice_with_self rngs.(a) i) in_idx in
       (* rows of the tile: 8 (with one register per row, 8 FMA chains hide the FMA latency), else fewer *)
       let m_axis = List.find_map (fun rows ->
           Option.map (fun a -> (a, rows))
             (List.find_opt (fun a -> broadcast a
               && full_shape_int k a mod rows = 0) (List.rev ups))) [ 8; 4; 2 ] in
       (* a vector operand too big for the cache (the rows of the reduce times the vector axis, in bytes: B
          of a matmul): two vectors per row of the tile and a cache block of block_tiles tiles of the vector
          axis (Opt.BLOCK), so that B's panel (the reduce times the block's tiles) stays in L2 while the rows
          of A go by; two vectors per row without the block are slower than one. Smaller operands stay in the
          cache and keep the tile of one vector per row *)
       let reduce_len = full_shape_int k (List.hd (K.axes_of k [ Group_reduce; Reduce ])) in
       let block = reduce_len * full_shape_int k n * Dtype.itemsize red.dtype >= block_operand_bytes
                   && full_shape_int k n mod (vw * 2 * block_tiles) = 0
                   && full_shape_int k n > vw * 2 * block_tiles in
       (match m_axis with
        | None -> None
        | Some (m, rows) ->
          try_on_copy k (fun k ->
              ignore (K.apply_opt k (opt Opt.UPCAST ~axis:n ~arg:(Opt.Int vw)));
              ignore (K.apply_opt k (opt Opt.UPCAST ~axis:m ~arg:(Opt.Int rows)));
              if block && rows = 8 then begin
                ignore (K.apply_opt k (opt Opt.UPCAST ~axis:n ~arg:(Opt.Int 2)));
                ignore (K.apply_opt k (opt Opt.BLOCK ~axis:n ~arg:(Opt.Int block_tiles)))
              end)))
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast, the lanes of a short row of [sz] output points (up to 32) in
   overlapping tiles (Opt.OVERLAP): the widest vector, where the row takes fewer tiles of it than the
   vectors its upcast whole splits into (26 = 16 + 8 + 2: three vector FMAs per row, where two tiles of
   16 take two). Every vector op takes one issue slot, whatever its width. *)
let cpu_overlap_lanes lengths sz =
  match lengths with
  | widest :: _ ->
    let tiles = Helpers.ceildiv sz widest in
    if sz <= 32 && sz > widest && sz mod widest <> 0 && (sz - widest) mod (tiles - 1) = 0
       && tiles < Coalesce_cpu.row_vectors lengths sz then Some widest else None
  | [] -> None

(* a convolution's output row: an upcastable axis contiguous in the output and in an input (the image),
   absent from another (the weight) *)
let conv_row (rngs : Uop.t array) out_idx in_idx ups =
  List.find_opt (fun a -> unit_stride rngs.(a) out_idx && List.exists (unit_stride rngs.(a)) in_idx
                          && List.exists (fun i -> not (in_backward_slice_with_self rngs.(a) i)) in_idx) ups

(* not in tinygrad: under CPU_OPT=fast, a convolution (a reduce of a product over several axes: input channels
   and the window) gets the register tile of a direct-convolution micro-kernel. The lanes run along the
   output's contiguous spatial axis (ox), which the image is contiguous along too: each window offset kx loads
   whole vectors at an element-aligned offset (late/coalesce.ml). A short ox that the coalescer would split
   into more vectors than it takes tiles of the widest (26 = 16 + 8 + 2) is covered by overlapping tiles of
   the widest vector (cpu_overlap_lanes: two of 16); another short ox is upcast whole, in two upcasts where
   it exceeds 16 (20 = 10 x 2, coalesced as 16 + 4 lanes), so no lane is wasted on padding; a longer
   one by its divisor up to 32 with the most lanes per vector (56 -> 28, 54 -> 18), else by the widest vector
   (padded to it, gated). An ox shorter than half a register, of two vectors or in overlapping tiles also
   takes two output rows (oy), so each weight broadcast feeds twice the FMAs. The output channels (the weight
   depends on them, the image does not) are the rows of the tile: each weight element is broadcast into one
   FMA per vector of lanes, 8 rows when a row is one vector, else 4 (or fewer, to keep the accumulators in
   registers). The reduce (channels, window) stays rolled loops: unrolling kx, clang shuffles the shifted
   windows out of one load. tinygrad's upcasts of batch and channels load the window lane by lane. The kernel
   gets the tile only when its reduce is short ([conv_reduce_max]: a forward convolution's channels x window,
   not a weight gradient's batch x image). True when applied (the other upcast and unroll stages are
   skipped): the tiled copy. *)
let cpu_conv_tile (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceop k with
  | Some (widest :: _ as lengths), Some red
    when (let reduce_axes = K.axes_of k [ Group_reduce; Reduce ] in
          List.length reduce_axes > 1
          && Helpers.prod (List.map (full_shape_int k) reduce_axes) <= conv_reduce_max)
         && sum_of_products red ->
    let out_idx, in_idx = out_in_indices k in
    let rngs = Array.of_list (K.rngs k) in
    let ups = K.upcastable_dims k in
    let dep a i = in_backward_slice_with_self rngs.(a) i in
    (match conv_row rngs out_idx in_idx ups with
     | None -> None
     | Some n ->
       let images = List.filter (unit_stride rngs.(n)) in_idx and weights = List.filter (fun i ->
         not (dep n i)) in_idx in
       let sz = full_shape_int k n in
       (* vectors per row of lanes, as the coalescer splits them *)
       let vectors = Coalesce_cpu.row_vectors lengths in
       (* f lanes then c / f, each an upcast of at most 16 *)
       let split c = List.find_opt (fun f -> c mod f = 0 && c / f <= 16) (List.init 15 (fun i -> 16 - i)) in
       (* the lanes: all of a short ox (a prime padded to a multiple of 4 under a gate: the padded lanes load
          and store nothing), else the divisor of ox up to 32 with the most lanes per vector (the longer on a
          tie), else (no divisor loads at least 4 lanes a vector) the widest vector, ox padded to it *)
       let overlap = cpu_overlap_lanes lengths sz in
       let pad4 = sz <= 32 && split sz = None && overlap = None in
       let lanes = if sz <= 32 then Some (if pad4 then Helpers.round_up sz 4 else sz)
         else List.fold_left (fun best c ->
             if sz mod c <> 0 || 4 * vectors c > c || split c = None then best
             else match best with
               | Some b when b * vectors c > c * vectors b -> best
               | _ -> Some c) None (List.init 31 (fun i -> i + 2)) in
       (* two output rows (the axis before ox, on which the image depends and the weight does not) where a row
          is short or two vectors (16 + 4 lanes): each weight broadcast then feeds twice the FMAs *)
       let oy = if not (2 * sz < widest || overlap <> None
                        || (match lanes with Some c -> vectors c = 2 | None -> false))
         || n = 0 then None
         else let a = n - 1 in
           if List.mem a ups && full_shape_int k a mod 2 = 0 && List.exists (dep a) images
              && List.for_all (fun i -> not (dep a i)) weights then Some a else None in
       let vecs = (match overlap, lanes with None, Some c -> vectors c | _ -> 1)
                  * (if oy = None then 1 else 2) in
       (* the accumulators keep to half the vector registers *)
       let budget = Coalesce_cpu.acc_registers ~widest in
       let rows = List.find (fun r -> r * vecs <= budget || r = 2)
           (if vecs = 1 then [ 8; 4; 2 ] else [ 4; 2 ]) in
       (* the rows (output channels): the weight depends on them, the image does not *)
       let m_axis = List.find_opt (fun a -> a <> n && List.for_all (fun i -> not (dep a i)) images
                                            && List.exists (dep a) weights
                                              && full_shape_int k a mod rows = 0) (List.rev ups) in
       (match m_axis with
        | Some m ->
          let nr = rngs.(n) and mr = rngs.(m) and oyr = Option.map (fun a -> rngs.(a)) oy in
          try_on_copy k (fun k ->
              let up = upcast_range k in
              (* [r] padded to a multiple of [amt]: its new range *)
              let pad r amt =
                let i = index_of_rng k r in
                ignore (K.apply_opt k (opt Opt.PADTO ~axis:i ~arg:(Opt.Int amt)));
                List.nth (K.rngs k) i in
              let nr = if pad4 then pad nr 4 else nr in
              (match lanes, Option.bind lanes split with
               | _ when overlap <> None ->
                 ignore (K.apply_opt k (opt Opt.OVERLAP ~axis:(index_of_rng k nr)
                                          ~arg:(Opt.Int (Option.get overlap))))
               | Some c, _ when c <= 16 -> ignore (up nr c)
               | Some c, Some f ->
                 (* two upcasts: f lanes, then c / f of the outer axis, contiguous (ox = (o * c/f + u2) * f +
                    u1) *)
                 (match up nr f with Some (outer, _) -> ignore (up outer (c / f)) | None -> ())
               | _ -> ignore (up (if sz mod widest = 0 then nr else pad nr widest) widest));
              ignore (up mr rows);
              Option.iter (fun r -> ignore (up r 2)) oyr)
        | None -> None))
  | _ -> None

(* the rows of the channel-lane tile on an output row of [sz] points: the largest divisor of [sz] from 4 to
   the accumulator registers less two (26 -> 13), so that the rows' accumulators and the weight's vector stay
   in registers; None where none divides it (a prime row) *)
let channel_lane_rows ~widest sz =
  let most = Coalesce_cpu.acc_registers ~widest - 2 in
  List.find_opt (fun d -> sz mod d = 0) (List.init (most - 3) (fun i -> most - i))

(* the widest vectors of output channels per row of the channel-lane tile, and its rows, on [channels]
   channels and an output row of [sz] points: 4 or 2 vectors where the channels take them whole and a
   divisor of [sz] from 4 up gives that many rows of them within the accumulator registers (64 channels on a
   row of 8: 4 x 4; on a row of 6: 2 x 6; 32 channels on a row of 20: 2 x 5), else one vector on
   channel_lane_rows. Each image value loaded and broadcast then feeds as many multiply-adds as the row has
   vectors, where with one vector per row the broadcasts take as many slots as the multiply-adds. None where
   channel_lane_rows finds no rows *)
let channel_lane_tile ~widest ~channels sz =
  let acc = Coalesce_cpu.acc_registers ~widest in
  let rows v = let most = acc / v in
    if most < 4 then None
    else List.find_opt (fun d -> sz mod d = 0) (List.init (most - 3) (fun i -> most - i)) in
  let wide = List.find_map (fun v ->
      if channels mod (widest * v) <> 0 then None else Option.map (fun r -> (v, r)) (rows v)) [ 4; 2 ] in
  match wide with
  | Some _ -> wide
  | None -> Option.map (fun r -> (1, r)) (channel_lane_rows ~widest sz)

(* not in tinygrad: under CPU_OPT=fast, a convolution whose weight is contiguous along the output channels
   (stored so, or read through the channels-last copy of Rangeify_cpu) gets the register tile of an implicit
   GEMM: the lanes run along the output channels (a multiple of the widest vector), one vector load of the
   weight per reduce step, and the rows are output points of the row (ox), each loading one image value
   broadcast to the lanes. Every lane works whatever the row's length, where lanes along ox (cpu_conv_tile)
   leave the lanes past a short row empty (26 columns in two tiles of 16: 81%). The vectors of channels
   per row and the rows: channel_lane_tile; a row that none splits and a reduce shorter than
   [conv_channel_reduce_min] keep cpu_conv_tile. A padded image (read under gates where
   Rangeify_cpu.padded_image made no copy of it) loads each row's value under the row's gate. One vector
   accumulator per vector of a row (Codegen_cpu.tile_accumulators), updated by vector ops
   (Coalesce_cpu.vector_acc_updates). The tiled copy of [k] when applied. *)
let cpu_conv_channel_lanes (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceop k with
  | Some (widest :: _), Some red
    when (let reduce_axes = K.axes_of k [ Group_reduce; Reduce ] in
          let points = Helpers.prod (List.map (full_shape_int k) reduce_axes) in
          List.length reduce_axes > 1 && points >= conv_channel_reduce_min && points <= conv_reduce_max)
         && sum_of_products red ->
    (* the loads under the reduce: a bias added after it, contiguous along the channels, is not the weight *)
    let out_idx, in_idx = out_in_indices ~under:red.src.(0) k in
    let rngs = Array.of_list (K.rngs k) in
    let ups = K.upcastable_dims k in
    let dep a i = in_backward_slice_with_self rngs.(a) i in
    (match conv_row rngs out_idx in_idx ups with
     | Some n ->
       let images = List.filter (unit_stride rngs.(n)) in_idx in
       (* the output channels: contiguous in an input that the row is absent from (the weight), absent from
          the image *)
       let lanes = List.find_opt (fun a -> a <> n && full_shape_int k a mod widest = 0
                                           && List.for_all (fun i -> not (dep a i)) images
                                           && List.exists (fun i -> unit_stride rngs.(a) i
                                                                    && not (dep n i)) in_idx) ups in
       let sz = full_shape_int k n in
       (match lanes with
        | Some m ->
          (match channel_lane_tile ~widest ~channels:(full_shape_int k m) sz with
           | Some (vectors, rows) ->
             let nr = rngs.(n) and mr = rngs.(m) in
             try_on_copy k (fun k ->
                 upcast_lane_vectors k mr ~widest ~vectors;
                 ignore (upcast_range k nr rows))
           | None -> None)
        | None -> None)
     | _ -> None)
  | _ -> None

(* the loads contiguous along the innermost reduce axis, when the kernel has a reduce *)
let reduce_contiguous_loads (k : K.t) =
  match K.reduceop k, K.unrollable_dims k with
  | Some _, (_ :: _ as ud) ->
    let last = Helpers.last ud in
    let rng = List.nth (K.rngs k) last in
    let _, loads = stores_loads k in
    Some (last, List.filter (fun (b : Uop.t) -> unit_stride rng (get_idx b.src.(1))) loads)
  | _ -> None

(* a float buffer narrower than float32 (float16, bfloat16, fp8): the CPU mode's vectors and accumulators are
   float32's (Coalesce_cpu.policy), so its upcast lanes would be loaded and converted one by one *)
let narrow_float (b : Uop.t) = Dtype.is_float b.dtype && Dtype.itemsize b.dtype < 4

(* a transcendental that the renderer lacks, which codegen decomposes into polynomials *)
let decomposed_transcendental (k : K.t) (u : Uop.t) =
  List.memq u.op [ Ops.Exp2; Ops.Log2; Ops.Sin ] && not (List.memq u.op k.ren.code_for_op)

(* a decomposed transcendental computed for every element that a reduce reads (an exp inside a softmax's
   sum) *)
let reduce_transcendental (k : K.t) =
  List.exists (fun (r : Uop.t) -> List.exists (decomposed_transcendental k) (toposort r.src.(0)))
    (K.reduceops k)

(* a decomposed transcendental computed per element: in a reduce, or anywhere in a kernel without one; one
   after the reduces (an epilogue: a GELU on a matrix-vector product's outputs) runs once per output *)
let per_element_transcendental (k : K.t) =
  if K.reduceops k = [] then List.exists (decomposed_transcendental k) (toposort k.ast)
  else reduce_transcendental k

(* not in tinygrad: under CPU_OPT=fast, a reduce that reads 8-bit integers along its innermost reduce axis (a
   quantized weight dequantized where the matrix-vector product reads it, its blocks a reduce axis of their own)
   and computes its transcendentals only after the reduce (a SiLU or a log on the outputs). Rolled, clang
   vectorizes the loop within a block alone and folds its vector into the scalar accumulator on every block;
   unrolled by cpu_vector_reduce, the lanes keep one vector accumulator across the blocks, and the
   polynomials, outside the reduce, are not copied per lane. *)
let cpu_byte_reduce (k : K.t) =
  match reduce_contiguous_loads k with
  | Some (_, loads) ->
    List.exists (fun (b : Uop.t) -> Dtype.is_int b.dtype && Dtype.itemsize b.dtype = 1) loads
    && not (reduce_transcendental k)
  | None -> false

(* not in tinygrad: under CPU_OPT=fast, a matrix product whose two float32 operands are both contiguous along
   the reduce, each a row selected by an output axis of its own (x @ W.T: a Linear layer's forward), is left
   rolled: each output is a dot product of two rows, and unrolled by the vector width its lanes form one
   vector accumulator, one chain of dependent FMAs per output, bound by the FMA latency; rolled, the renderer
   marks the loop (renderer/cstyle.ml cpu_fast_lang) and clang's vectorizer interleaves several vector
   accumulators. Two factors read at the same point (a BatchNorm statistic's) are no product of rows: rolled,
   clang left that loop scalar. A matrix-vector product (one output axis) keeps the unroll: rolled, the padded
   and threaded vocabulary of GPT-2 (50,257 outputs) ran its gated loop without vectors *)
let cpu_rolled_dot_products (k : K.t) loads =
  match K.reduceops k, K.upcastable_dims k with
  | [ red ], (_ :: _ :: _ as ups) when sum_of_products red
                                    && List.for_all (fun (b : Uop.t) -> b.dtype == Dtype.Float32) loads ->
    let _, in_idx = out_in_indices ~under:red.src.(0) k in
    let rngs = Array.of_list (K.rngs k) in
    (* the operands' indices, each reading a row that one output axis alone selects *)
    let only a i = in_backward_slice_with_self rngs.(a) i
                   && List.for_all (fun b -> b = a || not (in_backward_slice_with_self rngs.(b) i)) ups in
    (match in_idx with
     | [ x; w ] -> List.exists (fun a -> only a x) ups && List.exists (fun a -> only a w) ups
                   && not (List.exists (fun a -> only a x && only a w) ups)
     | _ -> false)
  | _ -> false

(* not in tinygrad: under CPU_OPT=fast, a reduce whose innermost reduce axis is contiguous in an input is
   unrolled by the vector width and nothing else: the lanes of each vector load stay in one vector accumulator
   (Codegen_cpu.reduce_to_vector_acc) and are folded once after the loop. An upcast output axis would
   interleave rows with lanes in the accumulator (clang then shuffles every iteration). Where such an input
   is narrower than float32 (a matrix-vector product with float16 weights, x @ W.T), the kernel is left
   rolled instead: unrolled, its lanes were loaded and converted one at a time and no vector accumulator
   formed; rolled, the renderer marks the loop (renderer/cstyle.ml cpu_fast_lang) and clang loads, converts
   and accumulates whole vectors. A reduce over 8-bit integers (cpu_byte_reduce) is unrolled all the same. *)
let cpu_vector_reduce (k : K.t) : K.t option =
  match cpu_lengths k, reduce_contiguous_loads k with
  | Some (widest :: _), Some (last, (_ :: _ as loads)) ->
    let ud = K.unrollable_dims k in
    if (List.exists narrow_float loads || cpu_rolled_dot_products k loads) && not (cpu_byte_reduce k) then
      Some (K.copy k)
    else if full_shape_int k last mod widest = 0 && full_shape_int k last > widest then
      try_on_copy k (fun k ->
        ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int widest))))
    else None
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast, the multiple that a matrix-vector tile of [tile] lanes pads output
   axis [n] to: the tile, or, for a kernel big enough to thread whose padded tiles no thread count would
   divide (GPT-2's vocabulary: 393 tiles of 128), the tile times the threads, so that the threading stage
   splits the tiles between all the cores (394 tiles, the last one gated whole: it loads nothing). The
   lanes' gates then vary with the thread's index; the CPU mode's symbolic folds them to a few comparisons
   (Codegen_cpu.early_symbolic). *)
let matvec_pad (k : K.t) n tile =
  let tiles = Helpers.ceildiv (full_shape_int k n) tile in
  let ops = match sprod (K.full_shape k) with Sint p -> p | Suop _ -> 0 in
  match k.ren.global_max with
  | Some (threads :: _) when k.ren.has_threads && threads >= 2 && ops / ops_per_thread >= threads
                             && tiles mod threads <> 0 && tiles >= 4 * threads -> tile * threads
  | _ -> tile

(* not in tinygrad: under CPU_OPT=fast, a matrix-vector product whose matrix is contiguous along the output
   axis (x @ W with W (k, n) row-major) gets the output axis upcast by the vector width and again by 8 vectors
   (fewer where 8 does not divide): each step of the rolled reduce loop loads 8 whole vectors of one row of W
   and broadcasts one element of x into 8 vector accumulators (8 FMA chains hide the FMA latency). tinygrad's
   unroll of the reduce axis instead gathers a vector from 16 rows lane by lane. An output axis that the
   vector width does not divide (GPT-2's vocabulary, 50,257) is padded to a multiple of the tile: its last
   tile loads and stores under a gate. A matrix contiguous along the reduce axis (x @ W.T) is
   cpu_vector_reduce's. A plain sum over the rows of a matrix (a bias gradient, 128x128 summed over the batch)
   takes the same tile, where tinygrad unrolls the rows. *)
let cpu_matvec (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceop k with
  | Some (widest :: _), Some red when List.length (K.axes_of k [ Group_reduce; Reduce ]) = 1
                                     && is_sum red && (product_of red <> None
                                       || List.memq red.src.(0) (K.bufs k)) ->
    let stores, loads = stores_loads k in
    let rngs = Array.of_list (K.rngs k) in
    let r = rngs.(List.hd (K.axes_of k [ Group_reduce; Reduce ])) in
    (* one output axis (a vector times a matrix), contiguous in the output and in the matrix, whose rows run
       along the reduce *)
    (match K.upcastable_dims k, stores with
     | [ n ], [ out ] when full_shape_int k n >= 8 * widest
                           && unit_stride rngs.(n) (get_idx out.src.(1))
                           && List.exists (fun (b : Uop.t) -> let i = get_idx b.src.(1) in
                                            unit_stride rngs.(n) i && in_backward_slice_with_self r i
                                            && not (unit_stride r i)) loads ->
       try_on_copy k (fun k ->
           if full_shape_int k n mod widest <> 0 then
             ignore (K.apply_opt k (opt Opt.PADTO ~axis:n ~arg:(Opt.Int (matvec_pad k n (8 * widest)))));
           ignore (K.apply_opt k (opt Opt.UPCAST ~axis:n ~arg:(Opt.Int widest)));
           match List.find_opt (fun m -> full_shape_int k n mod m = 0) [ 8; 4; 2 ] with
           | Some m -> ignore (K.apply_opt k (opt Opt.UPCAST ~axis:n ~arg:(Opt.Int m)))
           | None -> ())
     | _ -> None)
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast (loop opts), the CPU loops at [positions] moved to the positions from
   [first] on, in that order, each by SWAPs of neighbouring loops: a SWAP exchanges two loops' places, so the
   loops a moved one passes keep their order, one place further in *)
let cpu_loops_first (k : K.t) ~first positions =
  let rec place target = function
    | [] -> ()
    | p :: rest ->
      for a = p downto target + 1 do
        ignore (K.apply_opt k (opt Opt.SWAP ~axis:(a - 1) ~arg:(Opt.Int a)))
      done;
      place (target + 1) (List.map (fun q -> if q >= target && q < p then q + 1 else q) rest) in
  place first positions

(* not in tinygrad: under CPU_OPT=fast, the rows of a weight gradient's output gradient taken per step of its
   reduce loop, beside the row of [rlen] lanes unrolled whole: where the reduce axis before the row (oy)
   strides every load of [grads] (the output gradient) by the row's length, f rows are f * rlen contiguous
   lanes of one vector accumulator, and the largest f that divides oy and takes no more vectors than one row
   is unrolled (rows of 6 lanes, 4 + 2, as 18 = 16 + 2: three times the lanes for the same vector ops). None
   where no f gains. The other factor's rows, further apart, are assembled from their loads *)
let cpu_rows_per_step lengths ~rlen (k : K.t) (grads : Uop.t list) ud =
  match List.rev ud with
  | _ :: oy :: _ when grads <> [] ->
    let rng = List.nth (K.rngs k) oy and size = full_shape_int k oy in
    let vectors = Coalesce_cpu.row_vectors lengths in
    if not (List.for_all (fun (b : Uop.t) -> term_coefficient rng (get_idx b.src.(1)) = rlen) grads) then None
    else List.find_opt (fun f -> size mod f = 0 && vectors (f * rlen) <= vectors rlen)
        (List.init (size - 1) (fun i -> size - i))
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast, a reduce of a product whose innermost reduce axis is contiguous in
   both factors and longer than a narrow output axis contiguous in one factor is a convolution's weight
   gradient: dw[co,ci,ky,kx] sums dy[n,co,oy,ox] * x[n,ci,oy+ky,ox+kx] over n, oy and ox (a forward
   convolution has the window on the reduce side, shorter than its output row). With a row (ox) of 6 to 32
   lanes, it gets vector accumulators along the row: ox unrolled whole, and a tile of outputs, each a vector
   accumulator (Coalesce_cpu.vector_acc_fits): the output axis that only dy depends on (co) upcast by 4 and
   one that only x depends on (ci) by what fills the registers (2 with rows of two vectors, 4 with rows of one
   on AVX-512), else co alone; each step of the rolled loop then multiplies whole rows (each row of dy meets
   the ci_t rows of x) and the lanes are folded once, after the loop. The window (kx) stays a loop: upcast,
   its shifted rows share one load and clang shuffled every lane. An output axis that both depend on (the
   batch, where the scheduler split the reduce) is swapped outermost (SWAP of two loops), so that one split's
   images stay in the cache across all the outputs: outermost among the outputs, each output tile streamed the
   whole batch from memory. The channel tiles' loops follow it, the window's loops (ky, kx) innermost among
   the outputs (cpu_loops_first): the window re-reads one tile's rows of dy and x, which stay in L1. A short
   row whose rows of dy lie end to end takes a few of them per step where they fill its vectors better
   (cpu_rows_per_step). Rows of 16 lanes and more without that tile (longer than 32, or no tile that fits)
   keep an earlier tile: the window axis (kx) upcast whole, co upcast by 4, and the contiguous reduce axis
   (ox) unrolled (by 4 past 32): each unrolled row of dy meets the 5 shifted rows of x, which share their
   loads, where tinygrad's upcasts of co and ci by 4 load 4 rows of each. Shorter rows take tinygrad's
   upcasts. *)
let cpu_conv_weight_grad (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceops k, K.unrollable_dims k with
  | Some lengths, [ red ], (_ :: _ :: _ as ud) when sum_of_products red ->
    let rngs = Array.of_list (K.rngs k) in
    let _, loads = stores_loads k in
    let idx (b : Uop.t) = get_idx b.src.(1) in
    let r = Helpers.last ud in
    let rlen = full_shape_int k r in
    let ups = K.upcastable_dims k in
    let window = List.find_opt (fun a -> let s = full_shape_int k a in
                                 s > 1 && s <= 8 && s < rlen
                                 && List.exists (fun b -> unit_stride rngs.(a) (idx b)) loads) ups in
    (match window with
     | Some w when List.length (List.filter (fun b -> unit_stride rngs.(r) (idx b)) loads) >= 2 ->
       (* the factor holding the window (x), and an output axis that only the other factor depends on (co) *)
       let holds_w b = in_backward_slice rngs.(w) (idx b) in
       let dep a b = in_backward_slice rngs.(a) (idx b) in
       let only_other a = a <> w && List.exists (fun b -> not (holds_w b) && dep a b) loads
                          && List.for_all (fun b -> not (holds_w b) || not (dep a b)) loads in
       let only_x a = a <> w && List.exists (fun b -> holds_w b && dep a b) loads
                      && List.for_all (fun b -> holds_w b || not (dep a b)) loads in
       let m = List.find_opt (fun a -> only_other a && full_shape_int k a mod 4 = 0) ups in
       let tile = match m with
         | Some m when rlen >= 6 && rlen <= 32 ->
           (* the outputs that fit: 4 of co times what of ci fills the rest, else co alone *)
           let fits outs = Coalesce_cpu.vector_acc_fits lengths ~lanes:rlen ~outs in
           let c = List.find_map (fun amt ->
               if not (fits (4 * amt)) then None
               else Option.map (fun a -> (a, amt)) (List.find_opt (fun a -> only_x a
                 && full_shape_int k a mod amt = 0) ups))
               [ 4; 2 ] in
           let co_amt = match c with
             | Some _ -> Some 4
             | None -> List.find_opt (fun amt -> fits amt && full_shape_int k m mod amt = 0) [ 8; 4; 2 ] in
           Option.map (fun co_amt -> (m, co_amt, c)) co_amt
         | _ -> None in
       (match tile, m with
        | Some (m, co_amt, c), _ ->
          let mr = rngs.(m) and cr = Option.map (fun (a, amt) -> (rngs.(a), amt)) c in
          (* the batch: an output axis that both factors depend on *)
          let batch = List.find_opt (fun a -> a <> w && List.for_all (dep a) loads) (K.axes_of k [ Weak ]) in
          let br = Option.map (fun a -> rngs.(a)) batch in
          let rows = cpu_rows_per_step lengths ~rlen k (List.filter (fun b -> not (holds_w b)) loads) ud in
          try_on_copy k (fun k ->
              (* the loop left of the channel axis after its upcast (None when the upcast took it whole) *)
              let up r amt =
                match upcast_range k r amt with
                | Some (outer, _) when List.memq outer (K.rngs k) -> Some outer
                | _ -> None in
              let co_loop = up mr co_amt in
              let ci_loop = Option.bind cr (fun (r, amt) -> up r amt) in
              let unroll amt = let ud = K.unrollable_dims k in
                ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int amt))) in
              unroll 0;
              (* the opt checks before it changes the kernel: refused, the rows stay one per step *)
              Option.iter (fun f -> try unroll f with Opt.Kernel_opt_error _ -> ()) rows;
              (* the channel loops' places, before the SWAPs below move them (a SWAP replaces its ranges) *)
              let channels = List.map (index_of_rng k) (List.filter_map Fun.id [ co_loop; ci_loop ]) in
              match br with
              | Some b ->
                let at = index_of_rng k b in
                if at <> 0 then ignore (K.apply_opt k (opt Opt.SWAP ~axis:0 ~arg:(Opt.Int at)));
                cpu_loops_first k ~first:1 (List.map (fun p -> if p = 0 then at else p) channels)
              | None -> cpu_loops_first k ~first:0 channels)
        (* rows of 16 and more: on shorter ones (beautiful_mnist's 8x8 and 6x6 convs) tinygrad's upcasts
           already take the window *)
        | None, Some m when rlen >= 16 ->
          try_on_copy k (fun k ->
              ignore (K.apply_opt k (opt Opt.UPCAST ~axis:m ~arg:(Opt.Int 4)));
              ignore (K.apply_opt k (opt Opt.UPCAST ~axis:w ~arg:(Opt.Int 0)));
              let ud = K.unrollable_dims k in
              let amt = if rlen <= 32 then 0 else 4 in
              ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int amt))))
        | _ -> None)
     | _ -> None)
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast, a convolution's weight gradient whose output gradient is contiguous
   along the output channels (read through the channels-last copy of Rangeify_cpu.gradient_channels_last)
   and whose reduce the scheduler split into groups of the batch (an output axis that both factors depend
   on) gets the tile of cpu_conv_channel_lanes turned around: the lanes run along the output channels, one
   to four vectors of them (as many as fit beside the window's rows), one vector load of the gradient per
   vector and reduce step; the rows are the window's offsets along the row (kx, upcast whole), each loading
   one image value broadcast to the lanes. The batch's groups run outermost (SWAP), so that one group's
   images and gradient stay in the cache while the tiles of the input channels and window rows go by. Every
   lane works whatever the image row's length, where lanes along a row of 20 (cpu_conv_weight_grad) leave
   a vector of 16 + 4 lanes: 62% of them. The tiled copy of [k] when applied. *)
let cpu_wgrad_channel_lanes (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceop k with
  | Some (widest :: _), Some red when sum_of_products red ->
    let _, in_idx = out_in_indices ~under:red.src.(0) k in
    let rngs = Array.of_list (K.rngs k) in
    let dep a i = in_backward_slice rngs.(a) i in
    let ups = K.upcastable_dims k in
    let row = Helpers.last (K.axes_of k [ Group_reduce; Reduce ]) in
    (match in_idx with
     | [ i1; i2 ] ->
       (* the output channels: contiguous in one factor (the gradient), absent from the other (the image) *)
       let channels (g, x) = List.find_opt (fun a ->
           full_shape_int k a mod widest = 0 && unit_stride rngs.(a) g && not (dep a x)) ups in
       let found = match channels (i1, i2) with
         | Some m -> Some (m, i1, i2)
         | None -> Option.map (fun m -> (m, i2, i1)) (channels (i2, i1)) in
       (match found with
        | Some (m, g, x) when unit_stride rngs.(row) x ->
          (* the window's offsets along the row: contiguous in the image, absent from the gradient *)
          let window = List.find_opt (fun a -> a <> m && full_shape_int k a <= 8 && unit_stride rngs.(a) x
                                               && not (dep a g)) ups in
          let batch = List.find_opt (fun a -> dep a g && dep a x) (K.axes_of k [ Weak ]) in
          (match window, batch with
           | Some w, Some b ->
             let acc = Coalesce_cpu.acc_registers ~widest and wsize = full_shape_int k w in
             let vectors = List.find_opt (fun v ->
                 full_shape_int k m mod (widest * v) = 0 && v * wsize <= acc) [ 4; 2; 1 ] in
             Option.bind vectors (fun v ->
                 let mr = rngs.(m) and wr = rngs.(w) and br = rngs.(b) in
                 try_on_copy k (fun k ->
                     upcast_lane_vectors k mr ~widest ~vectors:v;
                     ignore (upcast_range k wr 0);
                     let at = index_of_rng k br in
                     if at <> 0 then ignore (K.apply_opt k (opt Opt.SWAP ~axis:0 ~arg:(Opt.Int at)))))
           | _ -> None)
        | _ -> None)
     | _ -> None)
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast, a reduce whose source holds a second reduce of a product (a
   convolution's input gradient: tinygrad's _pool backward sums, over the window, the gated product reduced
   over the output channels) gets a register tile of 8x8 outputs: an output axis that one factor of the inner
   product does not depend on (the batch, for the weight) and one that the other factor does not depend on
   (the input channel, for the output gradient) are each upcast by 8, and no reduce axis is unrolled. Each
   step of the inner reduce loads 8 values of each factor and does 64 multiply-adds, which clang vectorizes
   over the second axis (gathering its 8 loads into one vector; the gated loads must render branch-free for
   that, renderer/cstyle.ml cpu_gated_load). tinygrad's 4x4 upcasts with a window axis unrolled put that axis
   innermost in the accumulators, which clang leaves scalar. On a single reduce (a weight gradient) the same
   tile stays scalar, where clang vectorizes tinygrad's unrolled reduce: this tile is for nested reduces only.
   With AVX-512, an input row of up to 32 (a multiple of 8) is the vector axis instead: the row is upcast
   whole (in 8 lanes and the rest where it is longer than 16), the batch by 2 and the input channel by 4. The
   window gates the output gradient lane by lane; its loads become vectors under a mask of lanes
   (late/coalesce.ml) and the loop over the output channels runs where any lane holds
   (Codegen_cpu.gate_reduce_loops): every lane then does useful work, where the 8x8 tile computes the window's
   masked half. Both sums keep one vector accumulator per row of the tile, its lanes the row's
   (Codegen_cpu.tile_accumulators), where scalar accumulators left clang to gather each update's lanes. *)
let cpu_nested_reduce_tile (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceops k with
  | Some lengths, (_ :: _ :: _ as reds) when List.for_all is_sum reds ->
    (* the innermost reduce: one whose source holds no other reduce *)
    let inner = List.find_opt (fun (r : Uop.t) ->
        not (List.exists (fun (r2 : Uop.t) -> r2 != r && in_backward_slice r2 r.src.(0)) reds)) reds in
    (match Option.bind inner product_of with
     | None -> None
     | Some mul ->
       let rngs = Array.of_list (K.rngs k) in
       let ups = K.upcastable_dims k in
       let a = mul.src.(0) and b = mul.src.(1) in
       (* an output axis other than [but], a multiple of [amt], that [x] depends on and [y] does not *)
       let only ?(but = -1) amt x y = List.find_opt (fun ax -> ax <> but && full_shape_int k ax mod amt = 0
                                                              && in_backward_slice rngs.(ax) x
                                                                && not (in_backward_slice rngs.(ax) y)) ups in
       let out_idx, _ = out_in_indices k in
       (* the lanes (AVX-512): an output axis of up to 32, a multiple of 8, contiguous in the output, on which
          both factors depend (the image's x, through the window) *)
       let lane_axis = if List.hd lengths < 16 then None else List.find_opt (fun ax ->
         let sz = full_shape_int k ax in
           sz <= 32 && sz mod 8 = 0 && unit_stride rngs.(ax) out_idx && in_backward_slice rngs.(ax) a
           && in_backward_slice rngs.(ax) b) ups in
       (match Option.map (fun l -> (l, only ~but:l 4 a b, only ~but:l 4 b a)) lane_axis with
        | Some (l, Some m, Some n) ->
          let lr = rngs.(l) and mr = rngs.(m) and nr = rngs.(n) in
          try_on_copy k (fun k ->
              let up = upcast_range k in
              let sz = full_shape_int k l in
              ignore (up mr 2);
              ignore (up nr 4);
              if sz <= 16 then ignore (up lr sz)
              else match up lr 8 with Some (outer, _) -> ignore (up outer (sz / 8)) | None -> ())
        | _ ->
       match only 8 a b, only 8 b a with
        | Some m, Some n ->
          try_on_copy k (fun k ->
              ignore (K.apply_opt k (opt Opt.UPCAST ~axis:m ~arg:(Opt.Int 8)));
              ignore (K.apply_opt k (opt Opt.UPCAST ~axis:n ~arg:(Opt.Int 8))))
        | _ -> None))
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast, two kinds of kernel get no upcast nor unroll, so that clang's loop
   vectorizer runs their rolled scalar loops on full-width vectors:
   - a kernel computing a transcendental that the renderer lacks (exp2, log2, sin: decomposed into
     polynomials, codegen/decomp/transcendental.ml) per element: upcast lanes become scalar copies of the
     polynomial that clang does not re-vectorize; its reduce loops are marked for the vectorizer by
     renderer/cstyle.ml cpu_fast_lang. [~epilogue:false] counts only per-element transcendentals: one in
     the epilogue alone leaves the kernel to the tiles that upcast its outputs (upcasts), and keeps it
     rolled where none applies, cpu_vector_reduce's unroll included: a reduce contiguous in its input gets
     its vectors from clang's vectorizer when rolled;
   - an elementwise kernel that divides or takes a square root (Adam's update): tinygrad's output upcast by 4
     leaves the divisions and square roots, whose throughput bounds the kernel, on 4-lane vectors. An
     elementwise kernel of cheap ops is memory bound and keeps tinygrad's upcasts. *)
let cpu_rolled ?(epilogue = true) (k : K.t) =
  cpu_lengths k <> None
  (* a max keeps tinygrad's order: which NaN it keeps depends on it (the unrolled chain starts from the first
     element, a rolled loop from -inf, which drops a NaN) *)
  && List.for_all (fun (r : Uop.t) -> match r.arg with Reduce_arg (Ops.Max, _) -> false | _ -> true)
    (K.reduceops k)
  && not (cpu_byte_reduce k)
  && (let nodes = toposort k.ast in
      (if epilogue then List.exists (decomposed_transcendental k) nodes else per_element_transcendental k)
      || (not (List.exists (fun (u : Uop.t) -> u.op == Ops.Reduce) nodes)
          && List.exists (fun (u : Uop.t) -> List.memq u.op [ Ops.Fdiv; Ops.Reciprocal; Ops.Sqrt ]
            && Dtype.is_float u.dtype) nodes))


(* not in tinygrad: under CPU_OPT=fast, a reduce that tinygrad's unrolls take whole (a pooling's window of 2x2
   or 3x3, forward or backward: no reduce loop is left) and that upcast no output axis gets the output's
   contiguous axis upcast as lanes: the row whole up to 32 (in two upcasts past 16, 20 = 10 x 2, coalesced as
   16 + 4 lanes), a longer one by the widest vector that divides it. Each output point is then a vector of
   lanes: the window's gated loads become vector loads (late/coalesce.ml) and the divisions of a max pool's
   backward (by the count of maxima) vector divisions, where tinygrad's kernel ran the row scalar. A row
   shorter than [window_lanes_min] stays scalar. Applied to the kernel in place, after tinygrad's upcasts. *)
let cpu_window_lanes (k : K.t) =
  match cpu_lengths k, K.reduceop k, stores_loads k with
  | Some lengths, Some _, ([ out ], _)
    when K.axes_of k [ Upcast ] = [] && K.axes_of k [ Group_reduce; Reduce ] = [] ->
    let rngs = Array.of_list (K.rngs k) in
    (match List.find_opt (fun a -> unit_stride rngs.(a) (get_idx out.src.(1))) (K.upcastable_dims k) with
     | Some a ->
       let sz = full_shape_int k a in
       let up axis amt = K.apply_opt k (opt Opt.UPCAST ~axis ~arg:(Opt.Int amt)) in
       (try
          if sz < window_lanes_min then ()
          else if sz <= 16 then ignore (up a 0)
          else if sz <= 32 && sz mod 2 = 0 then
            (match up a (sz / 2) with
             | Some (outer, _) -> ignore (up (index_of_rng k outer) 2)
             | None -> ())
          else match List.find_opt (fun l -> l > 1 && sz mod l = 0) lengths with
            | Some l -> ignore (up a l)
            | None -> ()
        with Opt.Kernel_opt_error _ -> ())
     | None -> ())
  | _ -> ()

(* not in tinygrad: under CPU_OPT=fast, a sum of gathered values (no product: the sum over a window of
   _pool's backward, which adds each output point's overlapping window entries back, as a convolution's input
   gradient does after its channel reduce) that tinygrad's unrolls took in part, leaving at most
   [window_rest_max] reduce points and no upcast, gets the rest of its reduce unrolled, so that
   cpu_window_lanes then takes the output row as lanes. Each lane's window offsets are then constants: the
   divisions and modulos of _pool's index fold per lane, the gates that are known false drop their loads, and
   the lanes share the gate of the output row. tinygrad's kernel computes a modulo, a division and a gate for
   every load of every output point. Applied to the kernel in place, after tinygrad's upcasts. *)
let cpu_window_rest (k : K.t) =
  match cpu_lengths k, K.reduceops k, K.unrollable_dims k with
  | Some _, (_ :: _ as reds), (_ :: _ as ud)
    when List.for_all (fun r -> is_sum r && product_of r = None) reds
         && K.axes_of k [ Unroll ] <> [] && K.axes_of k [ Upcast ] = []
         && Helpers.prod (List.map (full_shape_int k) ud) <= window_rest_max ->
    (* unrolled whole, each axis leaves the list of unrollable ones: the first is always the next *)
    (try List.iter (fun _ -> ignore (K.apply_opt k (opt Opt.UNROLL ~axis:0 ~arg:(Opt.Int 0)))) ud
     with Opt.Kernel_opt_error _ -> ())
  | _ -> ()

(* not in tinygrad: under CPU_OPT=fast, a sum along contiguous runs of its input (cpu_vector_reduce's) with
   two output loops, the outer one striding every load under the reduce less than the inner one (a
   BatchNorm statistic split by the scheduler: channels outer, 400 floats apart, groups of images inner,
   25,600 apart), gets the two loops swapped (Opt.SWAP), so that consecutive outputs read their runs at
   consecutive addresses (the channels of one group of images, one stretch of memory) and the hardware
   prefetcher follows the stream, where each step of tinygrad's order jumps by an image's stride to read a
   run of 1,600 bytes. The threads then split the inner loop's axis. Applied to the kernel in place. *)
let cpu_stream_order (k : K.t) =
  match cpu_lengths k, K.reduceops k, stores_loads k with
  | Some _, [ red ], (_, loads) when is_sum red ->
    let rngs = Array.of_list (K.rngs k) in
    let r = rngs.(Helpers.last (K.axes_of k [ Reduce; Unroll ])) in
    (* the loads that the reduce streams; a per-output operand (a mean subtracted) is read once per output *)
    let streamed = List.filter_map (fun (b : Uop.t) -> let i = get_idx b.src.(1) in
      if in_backward_slice_with_self r i then Some i else None) loads in
    (match K.axes_of k [ Global; Weak ] with
     | [ a0; a1 ] when streamed <> [] && List.for_all (fun i ->
         let c0 = term_coefficient rngs.(a0) i in
         c0 > 0 && c0 < term_coefficient rngs.(a1) i) streamed ->
       (try ignore (K.apply_opt k (opt Opt.SWAP ~axis:a0 ~arg:(Opt.Int a1)))
        with Opt.Kernel_opt_error _ -> ())
     | _ -> ())
  | _ -> ()

(* the upcast/unroll stage of the CPU mode: a kernel left rolled, else the first CPU output tile that
   applies, else (a kernel whose transcendentals follow its reduce left rolled) the reduce's unroll, else
   tinygrad's upcasts with the default upcast by the vector width first *)
let upcasts (k : K.t) =
  if cpu_rolled ~epilogue:false k then k
  else match List.find_map (fun stage -> stage k)
               [ cpu_register_tile; cpu_wgrad_channel_lanes; cpu_conv_weight_grad; cpu_conv_channel_lanes;
                 cpu_conv_tile; cpu_matvec; cpu_nested_reduce_tile ] with
  | Some tk -> tk
  | None when cpu_rolled k -> k
  | None ->
    match cpu_vector_reduce k with
    | Some tk -> cpu_stream_order tk; tk
    | None ->
      let widths = match cpu_lengths k with Some (w :: _) when w > 4 -> [ w; 4 ] | _ -> [ 4 ] in
      Heuristic.(masked_upcasts k; output_upcasts k; reduce_unrolls k; default_upcast ~widths k);
      cpu_window_rest k;
      cpu_window_lanes k;
      k

(* the threading stage of the CPU mode: tinygrad's, counting float ops per point, then the padded thread *)
let threads (k : K.t) =
  (* a THREAD that applies ends the search, so the ops per point do not change within it *)
  Heuristic.thread_opts ~ops_per_point:(cpu_ops_per_point k) k;
  match k.ren.global_max with
  | Some (gmax0 :: _) when k.ren.has_threads -> cpu_padded_thread k gmax0
  | _ -> ()

(* tinygrad's hand_coded_optimizations with the CPU mode's upcast and threading stages *)
let hand_coded_optimizations (k : K.t) : K.t =
  (* the CPU mode's kernels take its loop opts (SWAP of CPU loops, BLOCK) *)
  let k = K.copy k in
  k.loop_opts <- true;
  Heuristic.hand_coded_optimizations_with ~upcasts ~threads k

(* not in tinygrad: under CPU_OPT=fast, a kernel with a STAGE (the partial-contiguous rangeify keeps a row
   in a stack buffer between a reduce and its consumers: softmax's max, exp stored once, sum and normalize in
   one kernel) gets what its loops need, where tinygrad's heuristic gives it none: each reduce of loaded
   values unrolled by the widest vector that divides it (the vector accumulators of reduce_to_vector_acc),
   then the threads over its rows: the output loop that every STAGE lives in (the loops inside a row are not
   globalizable), padded where no thread count divides it. A reduce over the staged row stays rolled (the
   expander does not unroll an index into a STAGE), as do the loops without a reduction: the renderer marks
   them for clang's loop vectorizer (Cstyle.cpu_fast_lang). *)
let multiblock_optimizations (k : K.t) : K.t =
  let k = K.copy k in
  k.loop_opts <- true;
  let lengths = Renderer.float_lengths k.ren in
  (* the reduce ranges of the reduces of loads: one over the staged row indexes a STAGE *)
  let staged (r : Uop.t) = List.exists (fun (u : Uop.t) -> u.op == Ops.Stage) (toposort r.src.(0)) in
  let loaded_reduces =
    List.filter_map (fun (r : Uop.t) -> if staged r then None else Some r.src.(1)) (K.reduceops k) in
  List.iter (fun (rng : Uop.t) ->
      let ax = index_of_rng k rng in
      (* UNROLL's axis counts the unrollable dims *)
      let rec position j = function
        | [] -> None
        | a :: rest -> if a = ax then Some j else position (j + 1) rest in
      let width = List.find_opt (fun l -> l > 1 && full_shape_int k ax mod l = 0) lengths in
      match position 0 (K.unrollable_dims k), width with
      | Some j, Some l ->
        (try ignore (K.apply_opt k (opt Opt.UNROLL ~axis:j ~arg:(Opt.Int l)))
         with Opt.Kernel_opt_error _ -> ())
      | _ -> ()) loaded_reduces;
  (match k.ren.global_max, K.globalizable_rngs k with
   | Some (gmax0 :: _), row :: _ when k.ren.has_threads && gmax0 >= 2 ->
     let axis = index_of_rng k row in
     let size = full_shape_int k axis in
     let ops = match sprod (K.full_shape k) with Sint p -> p * cpu_ops_per_point k | Suop _ -> 0 in
     let fits t = t <= gmax0 && ops / ops_per_thread >= t in
     let thread t = ignore (K.apply_opt k (opt Opt.THREAD ~axis ~arg:(Opt.Int t))) in
     (try match List.find_opt (fun t -> fits t && size mod t = 0) [ 32; 16; 12; 8; 6; 5; 4; 3; 2 ] with
        | Some t -> thread t
        | None when fits gmax0 && size >= 4 * gmax0 ->
          ignore (K.apply_opt k (opt Opt.PADTO ~axis ~arg:(Opt.Int gmax0)));
          thread gmax0
        | None -> ()
      with Opt.Kernel_opt_error _ -> ())
   | _ -> ());
  k
