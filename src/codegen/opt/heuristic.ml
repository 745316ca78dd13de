(* tinygrad: codegen/opt/heuristic.py — hand_coded_optimizations *)

open Uop
module K = Postrange

let opt ?axis ?(arg = Opt.No_arg) op : Opt.t = { Opt.op; axis; arg }

let int_of_sint = function Sint i -> i | Suop u -> K.sint_int (Suop u)

(* Python [prod] of ints *)
let iprod l = List.fold_left ( * ) 1 l

(* [k.rngs.index(r)] *)
let index_of_rng k (r : Uop.t) =
  let rec go i = function [] -> raise (Opt.Kernel_opt_error "ValueError: range not in rngs") | x :: t -> if x == r then i else go (i + 1) t in
  go 0 (K.rngs k)

(* [x in u.backward_slice] (the node itself is not in its backward slice) *)
let in_backward_slice x (u : Uop.t) = x != u && in_backward_slice_with_self x u

let full_shape_int k i = int_of_sint (List.nth (K.full_shape k) i)

(* The stages of tinygrad's heuristic.py hand_coded_optimizations, in its order; [hand_coded_optimizations] at the
   end chains them. A stage that ends the heuristic returns the kernel to keep. *)

(* first try the tensor cores: the kernel with them, if any applies *)
let tensor_core_opts (k : K.t) : K.t option =
  (* NOTE: unless TC_OPT is > 0, we only trigger tensor cores if there's only one reduce axis *)
  if Helpers.use_tc.value > 0
  && (List.length (K.axes_of k [ Group_reduce; Reduce ]) = 1 || Helpers.tc_opt.value >= 1) then
    List.find_map (fun axis ->
        let tk = K.copy k in
        (* check TC first and apply hand-coded opts if successful *)
        match K.apply_tc tk axis (Helpers.tc_select.value, Helpers.tc_opt.value, Helpers.use_tc.value) with
        | exception Opt.Kernel_opt_error _ -> None
        | rngs ->
          let rngs = Array.of_list rngs in
          List.iter (fun tc_dim ->
              (* attempt to upcast M and N *)
              match List.filter (fun sz -> divides rngs.(tc_dim).src.(0) (Z.of_int sz) <> None) [ 5; 4; 3; 2 ] with
              | sz :: _ ->
                (* set it to the replaced range *)
                (match K.apply_opt tk (opt Opt.UPCAST ~axis:(index_of_rng tk rngs.(tc_dim)) ~arg:(Opt.Int sz)) with
                 | Some (r, _) -> rngs.(tc_dim) <- r
                 | None -> ())
              | [] -> ()) [ 1; 0 ];
          (* attempt to local N *)
          (match List.filter (fun sz -> divides rngs.(0).src.(0) (Z.of_int sz) <> None) [ 4; 2 ] with
           | sz :: _ -> ignore (K.apply_opt tk (opt Opt.LOCAL ~axis:(index_of_rng tk rngs.(0)) ~arg:(Opt.Int sz)))
           | [] -> ());
          Some tk) [ 0; 1; 2 ]
  else None

(* should use matvec - TODO: adjust/tune based on the wide vs tall/large vs small mat; true when applied (the
   heuristic then ends) *)
let matvec_opts (k : K.t) : bool =
  let mv_blocksize = Helpers.mv_blocksize.value and mv_threads_per_row = Helpers.mv_threads_per_row.value
  and mv_rows_per_thread = Helpers.mv_rows_per_thread.value in
  match K.reduceop k with
  | Some red when k.ren.has_local && Helpers.mv.value <> 0
                  && (mv_blocksize > 1 || mv_threads_per_row > 1 || mv_rows_per_thread > 1)
                  && (match red.arg with Reduce_arg (Ops.Add, _) -> true | _ -> false)
                  && List.length (K.full_shape k) >= 2 && k.ren.has_shared
                  && (let mulop = red.src.(0) in
                      mulop.op == Ops.Mul && mulop.src.(0).op == Ops.Index && mulop.src.(1).op == Ops.Index) ->
    let mulop = red.src.(0) in
    let idx0 = get_idx mulop.src.(0).src.(1) and idx1 = get_idx mulop.src.(1).src.(1) in
    (match K.ranges_of k [ Reduce ] with
     | first_reduce_rng :: _
       when List.exists (fun u -> u == first_reduce_rng) (split_uop idx0 Ops.Add)
         && List.for_all (fun r -> List.memq r (ranges idx1)) (ranges idx0) ->
       (match List.find_opt (fun global_idx ->
            divides first_reduce_rng.src.(0) (Z.of_int mv_threads_per_row) <> None
            && (match List.nth (K.full_shape k) global_idx with
                | Sint s -> s mod (mv_blocksize * mv_rows_per_thread) = 0 | Suop _ -> false)) (K.axes_of k [ Global ]) with
        | Some global_idx ->
          (try if mv_threads_per_row > 1 then
               ignore (K.apply_opt k (opt Opt.GROUP ~axis:0 ~arg:(Opt.Int mv_threads_per_row)))
           with Opt.Kernel_opt_error _ -> ());
          if mv_blocksize > 1 then ignore (K.apply_opt k (opt Opt.LOCAL ~axis:global_idx ~arg:(Opt.Int mv_blocksize)));
          if mv_rows_per_thread > 1 then
            ignore (K.apply_opt k (opt Opt.UPCAST ~axis:global_idx ~arg:(Opt.Int mv_rows_per_thread)));
          true
        | None -> false)
     | _ -> false)
  | _ -> false

let upcastable_output_prod k =
  let os = Array.of_list (K.output_shape k) in
  iprod (List.map (fun i -> int_of_sint os.(i)) (K.upcastable_dims k))

(* are we grouping? (requires local shape support) *)
let grouping_opts (k : K.t) =
  if upcastable_output_prod k <= (if Helpers.nolocals.value <> 0 then 240 else 2048) then
    ignore (List.find_opt (fun axis ->
        List.exists (fun sz ->
            try ignore (K.apply_opt k (opt Opt.GROUPTOP ~axis ~arg:(Opt.Int sz))); true
            with Opt.Kernel_opt_error _ -> false) [ 16 ]) [ 0; 1; 2 ])

(* if there are small dims with lots of valid masks, upcast them (they might be from Tensor.stack) *)
let masked_upcasts (k : K.t) =
  let to_upcast = ref [] in
  let where_gate_rngs =
    List.concat_map (fun (u : Uop.t) -> if u.op == Ops.Where then ranges u.src.(0) else []) (backward_slice k.ast) in
  (* upcast leading axes first (hack-ish for winograd; we actually want to upcast masked axes with low stride first) *)
  List.iter (fun axis ->
      (* for Schedule, we check if the range is used in INDEX gates or WHERE gates *)
      let is_masked = List.memq (List.nth (K.rngs k) axis) where_gate_rngs in
      let fs = full_shape_int k axis in
      if fs <= 7 && is_masked && iprod (List.map (full_shape_int k) !to_upcast) * fs <= 7 * 7 then
        (* the IMAGE occupancy check is not needed: IMAGE is not supported *)
        to_upcast := !to_upcast @ [ axis ]) (K.upcastable_dims k);
  List.iter (fun axis -> ignore (K.apply_opt k (opt Opt.UPCAST ~axis ~arg:(Opt.Int 0)))) (List.rev !to_upcast)

(* potentially do more upcasts of non reduce axes based on a heuristic *)
let output_upcasts (k : K.t) =
  let is_dsp = k.ren.device = "DSP" in
  let upcasted_axis = ref [] in
  let continue = ref true in
  while !continue && upcastable_output_prod k >= 1024 && K.upcast_size k < 32 do
    let xb_choices = ref [] in
    (* consider all upcastable axes with 3 or 4 upcast (128 on the DSP) *)
    let amounts = if is_dsp then (if !upcasted_axis = [] then [ 128 ] else []) else [ 3; 4 ] in
    List.iter (fun axis ->
        List.iter (fun upcast_amount ->
            (* if we haven't upcasted it, it mods, and buffer has stride 0 on axis while having no stride 0 in the
               upcasted axis already *)
            if List.mem axis !upcasted_axis || full_shape_int k axis mod upcast_amount <> 0 then ()
            else begin
              let rng = List.nth (K.rngs k) axis in
              let up_rngs = K.ranges_of k [ Upcast; Unroll ] in
              let bufs = K.bufs k in
              if List.exists (fun (b : Uop.t) ->
                  let idx = get_idx b.src.(1) in
                  (not (in_backward_slice rng idx)) && List.for_all (fun r2 -> in_backward_slice r2 idx) up_rngs) bufs
              then begin
                let num_strides = ref 0 and sum_strides = ref 0 in
                List.iter (fun (b : Uop.t) ->
                    let idx = get_idx b.src.(1) in
                    if in_backward_slice rng idx then incr num_strides;
                    List.iter (fun (c : Uop.t) ->
                        if c == rng then incr sum_strides;
                        if c.op == Ops.Mul && c.src.(0) == rng && c.src.(1).op == Ops.Const then
                          sum_strides := !sum_strides + Z.to_int (zi (const_val c.src.(1)));
                        if c.op == Ops.Mul && c.src.(1) == rng && c.src.(0).op == Ops.Const then
                          sum_strides := !sum_strides + Z.to_int (zi (const_val c.src.(0))))
                      (split_uop idx Ops.Add)) bufs;
                xb_choices := (!num_strides, !sum_strides, axis, upcast_amount) :: !xb_choices
              end
            end) amounts) (K.upcastable_dims k);
    match List.sort compare !xb_choices with
    | (_, _, axis, amt) :: _ ->
      ignore (K.apply_opt k (opt Opt.UPCAST ~axis ~arg:(Opt.Int amt)));
      upcasted_axis := axis :: !upcasted_axis
    | [] -> continue := false
  done

(* if last reduce dim is small(ish), loop unroll the reduce *)
(* NOTE: this can fail on multireduce with mismatching dimensions, this is okay *)
let reduce_unrolls (k : K.t) =
  try
    let ud = K.unrollable_dims k in
    if ud <> [] && (K.upcast_size k <= 4 || K.axes_of k [ Unroll ] = []) && K.upcast_size k < 64 then begin
      let last l = List.nth l (List.length l - 1) in
      let s = full_shape_int k (last ud) in
      if s <= 32 then begin
        ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int 0)));
        (* if it's small, upcast a second reduce dimension too *)
        let ud = K.unrollable_dims k in
        if ud <> [] && s <= 3 && full_shape_int k (last ud) <= 3 then
          ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int 0)))
      end else
        (match List.find_opt (fun splits -> full_shape_int k (last ud) mod splits = 0) [ 4 ] with
         | Some splits -> ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int splits)))
         | None -> ())
    end
  with Opt.Kernel_opt_error _ -> ()

(* not in tinygrad: the float32 vector lengths of a kernel that may deviate from tinygrad's (Renderer.cpu_fast:
   CPU_OPT=fast on the CPU), else None: every deviation of the CPU branch is guarded by it *)
let cpu_lengths (k : K.t) = if Renderer.cpu_fast k.ren then Coalesce.cpu_float_lengths () else None

(* if nothing at all is upcasted and it's easy to, do an upcast (not in tinygrad: by the vector width first, on the
   CPU under CPU_OPT=fast) *)
let default_upcast (k : K.t) =
  let widths = match cpu_lengths k with Some (w :: _) when w > 4 -> [ w; 4 ] | _ -> [ 4 ] in
  List.iter (fun splits ->
      let ud = K.upcastable_dims k in
      if K.upcasted k = 0 && ud <> [] then begin
        let last = List.nth ud (List.length ud - 1) in
        if full_shape_int k last mod splits = 0 then ignore (K.apply_opt k (opt Opt.UPCAST ~axis:last ~arg:(Opt.Int splits)))
      end) widths

(* **** local groups **** *)
let local_groups (k : K.t) =
  if k.ren.has_local then begin
    if Helpers.nolocals.value <> 0 then ignore (K.apply_opt k (opt Opt.NOLOCALS))
    else begin
      (* prioritize making expand axes local *)
      let rngs = Array.of_list (K.rngs k) in
      let local_axis_ranking =
        List.filter_map (fun axis ->
            if rngs.(axis).src.(0).op == Ops.Const then
              Some (List.exists (fun (b : Uop.t) -> not (in_backward_slice rngs.(axis) (get_idx b.src.(1)))) (K.bufs k), axis)
            else None) (K.axes_of k [ Global; Weak ]) in
      let to_local = ref [] in
      let key (b, a) = ((if b then -1 else 0), -a) in
      List.iter (fun (_, axis) ->
          let local_size = iprod (List.map snd !to_local) in
          let fs = full_shape_int k axis in
          let cands = (if axis = 0 then [ 32 ] else []) @ [ 16; 8; 4; 3; 2 ] in
          match List.find_opt (fun x -> fs mod x = 0 && local_size * x <= 128) cands with
          | Some local_sz -> to_local := !to_local @ [ (axis, local_sz) ]
          | None -> ())
        (List.stable_sort (fun a b -> compare (key a) (key b)) local_axis_ranking);
      let deleted_shape = ref 0 in
      List.iter (fun (axis, local_sz) ->
          let axis = axis - !deleted_shape in
          let will_delete_shape = local_sz = full_shape_int k axis in
          ignore (K.apply_opt k (opt Opt.LOCAL ~axis ~arg:(Opt.Int local_sz)));
          if will_delete_shape then incr deleted_shape)
        (List.sort compare (List.filteri (fun i _ -> i < 3) !to_local))
    end
  end

(* ---------- shared by the CPU branch (not in tinygrad) ---------- *)

(* [f] applied to a copy of [k]: the copy, or None when an opt does not apply *)
let try_on_copy (k : K.t) f = let k = K.copy k in try f k; Some k with Opt.Kernel_opt_error _ -> None

(* the stored buffers and the loaded ones *)
let stores_loads (k : K.t) =
  let stores = List.filter_map (fun (u : Uop.t) -> if u.op == Ops.Store then Some u.src.(0) else None) (toposort k.ast) in
  (stores, List.filter (fun b -> not (List.memq b stores)) (K.bufs k))

(* not in tinygrad: under CPU_OPT=fast, a kernel big enough to thread whose axes no thread count divides (GPT-2's
   vocabulary of 50,257 outputs) gets its outermost axis padded to a multiple of the thread count (a gate on that
   axis only: padded rows load and store nothing) and threaded over it *)
let cpu_padded_thread (k : K.t) gmax0 =
  (* once padded (cpu_matvec), a second pad and the thread range leave a gate per lane that symbolic does not fold
     (measured 2x slower than one thread) *)
  let threaded = List.exists (fun (o : Opt.t) -> o.op = Opt.THREAD || o.op = Opt.PADTO) k.applied_opts in
  match cpu_lengths k, K.axes_of k [ Weak ] with
  | Some _, axis :: _ when not threaded && gmax0 >= 2 ->
    let threads = gmax0 in
    let size = full_shape_int k axis in
    let ops = match sprod (K.full_shape k) with Sint p -> p | Suop _ -> 0 in
    if ops / (128 lsl 10) >= threads && size >= 4 * threads then begin
      try
        ignore (K.apply_opt k (opt Opt.PADTO ~axis ~arg:(Opt.Int threads)));
        ignore (K.apply_opt k (opt Opt.THREAD ~axis ~arg:(Opt.Int threads)))
      with Opt.Kernel_opt_error _ -> ()
    end
  | _ -> ()

(* **** threading **** *)

(* not in tinygrad: under CPU_OPT=fast, the float ALU ops computed per point of the kernel's shape (at least 1), so
   that the thread threshold counts ops and not points: Adam's update of a 784x128 weight (100,352 points, a dozen
   ops each, a division and a square root among them) was below tinygrad's threshold and ran on one thread.
   tinygrad counts points (1). *)
let cpu_ops_per_point (k : K.t) =
  if cpu_lengths k = None then 1
  else max 1 (List.length (List.filter (fun (u : Uop.t) -> Ops.Group.is_alu u.op && Dtype.is_float u.dtype)
                             (toposort k.ast)))

let thread_opts (k : K.t) =
  match k.ren.global_max with
  | Some (gmax0 :: _) when k.ren.has_threads ->
    (* a THREAD that applies ends the search, so the ops per point do not change within it *)
    let ops_per_point = cpu_ops_per_point k in
    ignore (List.find_opt (fun threads ->
        (* Skip if too many threads. Heuristic: use about 128K ops per thread *)
        let too_few_ops = match sprod (K.full_shape k) with
          | Sint p -> p * ops_per_point / (128 lsl 10) < threads
          | Suop p -> resolve (lt (idiv p (const_int (128 lsl 10))) (const_int threads)) in
        if threads > gmax0 || too_few_ops then false
        else begin
          (match List.find_opt (fun axis -> match List.nth (K.full_shape k) axis with
               | Sint s -> s mod threads = 0 | Suop _ -> false) (K.axes_of k [ Weak ]) with
           | Some axis ->
             (try ignore (K.apply_opt k (opt Opt.THREAD ~axis ~arg:(Opt.Int threads)))
              with Opt.Kernel_opt_error _ -> ())
           | None -> ());
          match List.rev k.applied_opts with { Opt.op = Opt.THREAD; _ } :: _ -> true | _ -> false
        end) [ 32; 16; 12; 8; 6; 5; 4; 3; 2 ]);
    cpu_padded_thread k gmax0
  | _ -> ()

(* ---------- the CPU branch (not in tinygrad) ---------- *)

(* [rng] appears with stride 1 in [idx] *)
let unit_stride (rng : Uop.t) (idx : Uop.t) = List.exists (fun c -> c == rng) (split_uop idx Ops.Add)

(* a REDUCE of Add *)
let is_sum (red : Uop.t) = match red.arg with Reduce_arg (Ops.Add, _) -> true | _ -> false

(* the product a REDUCE reduces (maybe cast), if it reduces one *)
let product_of (red : Uop.t) =
  let s = red.src.(0) in
  if s.op == Ops.Mul then Some s else if s.op == Ops.Cast && s.src.(0).op == Ops.Mul then Some s.src.(0) else None

(* a sum of products: a matmul's or a convolution's *)
let sum_of_products (red : Uop.t) = is_sum red && product_of red <> None

(* the index of the (first) stored buffer and those of the loaded ones; with [under], only the buffers loaded under
   it (the operands of a reduce: a bias added after it is not one) *)
let out_in_indices ?under (k : K.t) =
  let stores, loads = stores_loads k in
  let loads = match under with None -> loads | Some u -> List.filter (fun b -> in_backward_slice_with_self b u) loads in
  (get_idx (List.hd stores).src.(1), List.map (fun (b : Uop.t) -> get_idx b.src.(1)) loads)

(* not in tinygrad: under CPU_OPT=fast, a reduce of a product (a matmul, a convolution as an implicit GEMM) gets the
   register tile of a BLAS micro-kernel. The output axis that is contiguous in the output gets upcast by the widest
   vector that divides it (a row of accumulators is one register, loaded from the other operand with one vector load), a second
   output axis that one input does not depend on (the broadcast operand) gets upcast by a few rows, so that every
   vector loaded is reused by as many FMAs; the reduce stays a rolled loop. True when applied (the other upcast
   and unroll stages are skipped): the tiled copy of the kernel. *)
let cpu_register_tile (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceop k with
  | Some lengths, Some red when (* one reduce axis, as a matmul's: on convolutions (channels x window) the tile
                                     lost to tinygrad's upcasts (beautiful_mnist's convs ran 2x slower) *)
                                  List.length (K.axes_of k [ Group_reduce; Reduce ]) = 1
                                  (* no size threshold: on the MLP's small matmuls the tile ran 4-6x faster than
                                     tinygrad's upcasts (weight gradient 784x128, reduce 128: 118 us, was 464;
                                     hidden gradient 128x128, reduce 10: 5.3 us, was 25; 10x128, reduce 128: 5.6
                                     us, was 32). The MLP's forward (128x128, reduce 784) ran 12x slower when its
                                     bias, contiguous along the output, was taken for the vector operand: the
                                     operands are the loads under the reduce. *)
                                  && sum_of_products red ->
    let out_idx, in_idx = out_in_indices ~under:red.src.(0) k in
    let rngs = Array.of_list (K.rngs k) in
    let ups = K.upcastable_dims k in
    (* the vector axis, with the widest vector that divides it *)
    let find_n ~out_contiguous = List.find_map (fun vw ->
        Option.map (fun a -> (a, vw)) (List.find_opt (fun a -> (not out_contiguous || unit_stride rngs.(a) out_idx)
                                                               && full_shape_int k a mod vw = 0
                                                               && List.exists (unit_stride rngs.(a)) in_idx) ups))
        (* narrower than half a register, the tile loses to tinygrad's upcasts (measured on conv2d 26x26) *)
        (List.filter (fun l -> 2 * l >= List.hd lengths) lengths) in
    (* else an axis contiguous in an operand only: its lanes are stored one by one (once per output, after the
       loop), and the loop still loads whole vectors. beautiful_mnist's conv3 input gradient (an im2col product whose
       output runs along the 3x3 window) ran in 31 ms, was 39 with tinygrad's upcasts *)
    let n_axis = match find_n ~out_contiguous:true with Some n -> Some n | None -> find_n ~out_contiguous:false in
    (match n_axis with
     | None -> None
     | Some (n, vw) ->
       (* the broadcast axis: one input does not depend on it, another does *)
       let broadcast a = a <> n && List.exists (fun i -> not (in_backward_slice_with_self rngs.(a) i)) in_idx
                         && List.exists (fun i -> in_backward_slice_with_self rngs.(a) i) in_idx in
       (* rows of the tile: 8 (with one register per row, 8 FMA chains hide the FMA latency), else fewer *)
       let m_axis = List.find_map (fun rows ->
           Option.map (fun a -> (a, rows))
             (List.find_opt (fun a -> broadcast a && full_shape_int k a mod rows = 0) (List.rev ups))) [ 8; 4; 2 ] in
       (* a vector operand too big for the cache (the rows of the reduce times the vector axis, in bytes: B of a
          matmul): two vectors per row of the tile and a cache block of 4 tiles of the vector axis (Opt.BLOCK), so
          that B's panel (the reduce times 4 tiles) stays in L2 while the rows of A go by. Matmul 2048 (B 16 MiB),
          one core, CPU time, loaded machine: 75 GFLOPS, was 58 (8x16 tile, no block); two vectors without the
          block: 42. Matmul 1024 (B 4 MiB): 103 and 99, the same within noise, so smaller operands keep the tile
          of one vector per row *)
       let reduce_len = full_shape_int k (List.hd (K.axes_of k [ Group_reduce; Reduce ])) in
       let block = reduce_len * full_shape_int k n * Dtype.itemsize red.dtype >= 8 lsl 20
                   && full_shape_int k n mod (vw * 2 * 4) = 0 && full_shape_int k n > vw * 2 * 4 in
       (match m_axis with
        | None -> None
        | Some (m, rows) ->
          try_on_copy k (fun k ->
              ignore (K.apply_opt k (opt Opt.UPCAST ~axis:n ~arg:(Opt.Int vw)));
              ignore (K.apply_opt k (opt Opt.UPCAST ~axis:m ~arg:(Opt.Int rows)));
              if block && rows = 8 then begin
                ignore (K.apply_opt k (opt Opt.UPCAST ~axis:n ~arg:(Opt.Int 2)));
                ignore (K.apply_opt k (opt Opt.BLOCK ~axis:n ~arg:(Opt.Int 4)))
              end)))
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast, a convolution (a reduce of a product over several axes: input channels and
   the window) gets the register tile of a direct-convolution micro-kernel. The lanes run along the output's
   contiguous spatial axis (ox), which the image is contiguous along too: each window offset kx loads whole vectors
   at an element-aligned offset (late/coalesce.ml). A short ox is upcast whole, in two upcasts where it exceeds
   16 (26 = 13 x 2, coalesced as 16 + 8 + 2 lanes), so no lane is wasted on padding; a longer one by its divisor up
   to 32 with the most lanes per vector (56 -> 28, 54 -> 18), else by the widest vector (padded to it, gated). An
   ox shorter than half a register or of two vectors also takes two output rows (oy; beautiful_mnist's 20-wide
   5x5 convolution ran 1.25x faster). The output channels (the weight depends on them,
   the image does not) are the rows of the tile: each weight element is broadcast into one FMA per vector of lanes,
   8 rows when a row is one vector, else 4 (or fewer, to keep the accumulators in registers; 8 rows of 26 lanes ran
   1.7x slower). The reduce (channels, window) stays rolled loops: unrolling kx, clang shuffles the shifted windows
   out of one load. tinygrad's upcasts of batch and channels load the window lane by lane: conv2d 32->64 on 26x26
   took 3.5x the time of the tile, beautiful_mnist's 5x5 convolutions 2.6x (32->32) and 5.6x (1->32). The kernel gets
   the tile only when its reduce is short (a forward convolution's channels x window, not a weight gradient's
   batch x image). True when applied (the other upcast and unroll stages are skipped): the tiled copy. *)
let cpu_conv_tile (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceop k with
  | Some (widest :: _ as lengths), Some red when List.length (K.axes_of k [ Group_reduce; Reduce ]) > 1
                                                && Helpers.prod (List.map (full_shape_int k) (K.axes_of k [ Group_reduce; Reduce ])) <= 4096
                                                && sum_of_products red ->
    let out_idx, in_idx = out_in_indices k in
    let rngs = Array.of_list (K.rngs k) in
    let ups = K.upcastable_dims k in
    let dep a i = in_backward_slice_with_self rngs.(a) i in
    (* the spatial axis: contiguous in the output and in an input (the image), absent from another (the weight) *)
    let n_axis = List.find_opt (fun a -> unit_stride rngs.(a) out_idx && List.exists (unit_stride rngs.(a)) in_idx
                                         && List.exists (fun i -> not (dep a i)) in_idx) ups in
    (match n_axis with
     | None -> None
     | Some n ->
       let images = List.filter (unit_stride rngs.(n)) in_idx and weights = List.filter (fun i -> not (dep n i)) in_idx in
       let sz = full_shape_int k n in
       (* vectors per row of lanes, as the coalescer splits them *)
       let vectors = Coalesce.row_vectors lengths in
       (* f lanes then c / f, each an upcast of at most 16 *)
       let split c = List.find_opt (fun f -> c mod f = 0 && c / f <= 16) (List.init 15 (fun i -> 16 - i)) in
       (* the lanes: all of a short ox (a prime padded to a multiple of 4 under a gate: the padded lanes load and
          store nothing), else the divisor of ox up to 32 with the most lanes per vector (the longer on a tie), else
          (no divisor loads at least 4 lanes a vector) the widest vector, ox padded to it *)
       let pad4 = sz <= 32 && split sz = None in
       let lanes = if sz <= 32 then Some (if pad4 then Helpers.round_up sz 4 else sz)
         else List.fold_left (fun best c ->
             if sz mod c <> 0 || 4 * vectors c > c || split c = None then best
             else match best with
               | Some b when b * vectors c > c * vectors b -> best
               | _ -> Some c) None (List.init 31 (fun i -> i + 2)) in
       (* two output rows (the axis before ox, on which the image depends and the weight does not) where a row is
          short or two vectors (16 + 4 lanes): each weight broadcast then feeds twice the FMAs *)
       let oy = if not (2 * sz < widest || (match lanes with Some c -> vectors c = 2 | None -> false)) || n = 0 then None
         else let a = n - 1 in
           if List.mem a ups && full_shape_int k a mod 2 = 0 && List.exists (dep a) images
              && List.for_all (fun i -> not (dep a i)) weights then Some a else None in
       let vecs = (match lanes with Some c -> vectors c | None -> 1) * (if oy = None then 1 else 2) in
       (* 32 vector registers with AVX-512, 16 below it *)
       let budget = if widest >= 16 then 16 else 8 in
       let rows = List.find (fun r -> r * vecs <= budget || r = 2) (if vecs = 1 then [ 8; 4; 2 ] else [ 4; 2 ]) in
       (* the rows (output channels): the weight depends on them, the image does not *)
       let m_axis = List.find_opt (fun a -> a <> n && List.for_all (fun i -> not (dep a i)) images
                                            && List.exists (dep a) weights && full_shape_int k a mod rows = 0) (List.rev ups) in
       (match m_axis with
        | Some m ->
          let nr = rngs.(n) and mr = rngs.(m) and oyr = Option.map (fun a -> rngs.(a)) oy in
          try_on_copy k (fun k ->
              let up r amt = K.apply_opt k (opt Opt.UPCAST ~axis:(index_of_rng k r) ~arg:(Opt.Int amt)) in
              (* [r] padded to a multiple of [amt]: its new range *)
              let pad r amt =
                let i = index_of_rng k r in
                ignore (K.apply_opt k (opt Opt.PADTO ~axis:i ~arg:(Opt.Int amt)));
                List.nth (K.rngs k) i in
              let nr = if pad4 then pad nr 4 else nr in
              (match lanes, Option.bind lanes split with
               | Some c, _ when c <= 16 -> ignore (up nr c)
               | Some c, Some f ->
                 (* two upcasts: f lanes, then c / f of the outer axis, contiguous (ox = (o * c/f + u2) * f + u1) *)
                 (match up nr f with Some (outer, _) -> ignore (up outer (c / f)) | None -> ())
               | _ -> ignore (up (if sz mod widest = 0 then nr else pad nr widest) widest));
              ignore (up mr rows);
              Option.iter (fun r -> ignore (up r 2)) oyr)
        | None -> None))
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast, a reduce whose innermost reduce axis is contiguous in an input is unrolled
   by the vector width and nothing else: the lanes of each vector load stay in one vector accumulator
   (Codegen.reduce_context's vector_acc) and are folded once after the loop. An upcast output axis would interleave
   rows with lanes in the accumulator (clang then shuffles every iteration). *)
let cpu_vector_reduce (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceop k, K.unrollable_dims k with
  | Some (widest :: _), Some _, (_ :: _ as ud) ->
    let last = List.nth ud (List.length ud - 1) in
    let rng = List.nth (K.rngs k) last in
    let _, loads = stores_loads k in
    if full_shape_int k last mod widest = 0 && full_shape_int k last > widest
       && List.exists (fun (b : Uop.t) -> unit_stride rng (get_idx b.src.(1))) loads then
      try_on_copy k (fun k -> ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int widest))))
    else None
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast, a matrix-vector product whose matrix is contiguous along the output axis
   (x @ W with W (k, n) row-major) gets the output axis upcast by the vector width and again by 8 vectors (fewer
   where 8 does not divide): each step of the rolled reduce loop loads 8 whole vectors of one row of W and
   broadcasts one element of x into 8 vector accumulators (8 FMA chains hide the FMA latency). tinygrad's unroll
   of the reduce axis instead gathers a vector from 16 rows lane by lane (GPT-2's 768x3072 ran 20x slower). An
   output axis that the vector width does not divide (GPT-2's vocabulary, 50,257) is padded to a multiple of the
   tile: its last tile loads and stores under a gate. A matrix contiguous along the reduce axis (x @ W.T) is
   cpu_vector_reduce's. A plain sum over the rows of a matrix (a bias gradient, 128x128 summed over the batch)
   takes the same tile: 0.7-1.2 us, was 9 with tinygrad's unroll of the rows. *)
let cpu_matvec (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceop k with
  | Some (widest :: _), Some red when List.length (K.axes_of k [ Group_reduce; Reduce ]) = 1
                                     && is_sum red && (product_of red <> None || List.memq red.src.(0) (K.bufs k)) ->
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
           if full_shape_int k n mod widest <> 0 then ignore (K.apply_opt k (opt Opt.PADTO ~axis:n ~arg:(Opt.Int (8 * widest))));
           ignore (K.apply_opt k (opt Opt.UPCAST ~axis:n ~arg:(Opt.Int widest)));
           match List.find_opt (fun m -> full_shape_int k n mod m = 0) [ 8; 4; 2 ] with
           | Some m -> ignore (K.apply_opt k (opt Opt.UPCAST ~axis:n ~arg:(Opt.Int m)))
           | None -> ())
     | _ -> None)
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast, a reduce of a product whose innermost reduce axis is contiguous in both
   factors and longer than a narrow output axis contiguous in one factor is a convolution's weight gradient:
   dw[co,ci,ky,kx] sums dy[n,co,oy,ox] * x[n,ci,oy+ky,ox+kx] over n, oy and ox (a forward convolution has the window
   on the reduce side, shorter than its output row).
   With a row (ox) of 6 to 32 lanes, it gets vector accumulators along the row: ox unrolled whole, and a tile of
   outputs, each a vector accumulator (Codegen.vector_acc_fits): the output axis that only dy depends on (co) upcast
   by 4 and one that only x depends on (ci) by what fills the registers (2 with rows of two vectors, 4 with rows of
   one on AVX-512), else co alone; each step of the rolled loop then multiplies whole rows (each row of dy meets
   the ci_t rows of x) and the lanes are folded once, after the loop. The window (kx) stays a loop: upcast, its
   shifted rows share one load and clang shuffled every lane. An output axis that both depend on (the batch, where
   the scheduler split the reduce) is swapped outermost (SWAP of two loops), so that one split's images stay in
   the cache across all the outputs: outermost among the outputs, each output tile streamed the whole batch from
   memory (the swap alone took conv2's 32->32 5x5 gradient from 453 to 161 ms of CPU time). beautiful_mnist's
   weight gradients, CPU time per call of the busier of 2 threads, with the earlier tile below or tinygrad's
   upcasts -> with this one: 1->32 5x5 (ox 24 = 16 + 8 lanes, co by 8) 35 -> 7.5 ms; 32->32 5x5 (ox 20 = 16 + 4)
   330 -> 120 ms (co by 8 alone: 161); 32->64 3x3 (ox 8) 58 -> 14 ms; 64->64 3x3 (ox 6 = 4 + 2, no batch split)
   64 -> 41 ms.
   Rows of 16 lanes and more without that tile (longer than 32, or no tile that fits) keep the earlier one: the
   window axis (kx) upcast whole, co upcast by 4, and the contiguous reduce axis (ox) unrolled (by 4 past 32): each unrolled row of dy meets the 5 shifted rows of x, which share their
   loads. tinygrad's upcasts of co and ci by 4 load 4 rows of each (beautiful_mnist's conv2 weight gradient ran
   1.3-1.5x slower). Shorter rows take tinygrad's upcasts. *)
let cpu_conv_weight_grad (k : K.t) : K.t option =
  match cpu_lengths k, K.reduceops k, K.unrollable_dims k with
  | Some _, [ red ], (_ :: _ :: _ as ud) when sum_of_products red ->
    let rngs = Array.of_list (K.rngs k) in
    let _, loads = stores_loads k in
    let idx (b : Uop.t) = get_idx b.src.(1) in
    let r = List.nth ud (List.length ud - 1) in
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
           let fits outs = Codegen.vector_acc_fits ~lanes:rlen ~outs in
           let c = List.find_map (fun amt ->
               if not (fits (4 * amt)) then None
               else Option.map (fun a -> (a, amt)) (List.find_opt (fun a -> only_x a && full_shape_int k a mod amt = 0) ups))
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
          try_on_copy k (fun k ->
              let up r amt = ignore (K.apply_opt k (opt Opt.UPCAST ~axis:(index_of_rng k r) ~arg:(Opt.Int amt))) in
              up mr co_amt;
              Option.iter (fun (r, amt) -> up r amt) cr;
              let ud = K.unrollable_dims k in
              ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int 0)));
              match br with
              | Some b when index_of_rng k b <> 0 ->
                ignore (K.apply_opt k (opt Opt.SWAP ~axis:0 ~arg:(Opt.Int (index_of_rng k b))))
              | _ -> ())
        (* rows of 16 and more: on shorter ones (beautiful_mnist's 8x8 and 6x6 convs) tinygrad's upcasts already take
           the window *)
        | None, Some m when rlen >= 16 ->
          try_on_copy k (fun k ->
              ignore (K.apply_opt k (opt Opt.UPCAST ~axis:m ~arg:(Opt.Int 4)));
              ignore (K.apply_opt k (opt Opt.UPCAST ~axis:w ~arg:(Opt.Int 0)));
              let ud = K.unrollable_dims k in
              ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int (if rlen <= 32 then 0 else 4)))))
        | _ -> None)
     | _ -> None)
  | _ -> None

(* not in tinygrad: under CPU_OPT=fast, a reduce whose source holds a second reduce of a product (a convolution's
   input gradient: tinygrad's _pool backward sums, over the window, the gated product reduced over the output
   channels) gets a register tile of 8x8 outputs: an output axis that one factor of the inner product does not
   depend on (the batch, for the weight) and one that the other factor does not depend on (the input channel, for
   the output gradient) are each upcast by 8, and no reduce axis is unrolled. Each step of the inner reduce loads 8
   values of each factor and does 64 multiply-adds, which clang vectorizes over the second axis (gathering its 8
   loads into one vector; the gated loads must render branch-free for that, renderer/cstyle.ml cpu_gated_load).
   tinygrad's 4x4 upcasts with a window axis unrolled put that axis innermost in the accumulators, which clang
   leaves scalar (beautiful_mnist's conv input gradients ran 2x slower). On a single reduce (a weight gradient) the
   same tile stays scalar (3x slower than tinygrad's unrolled reduce, which clang vectorizes).
   With AVX-512, an input row of up to 32 (a multiple of 8) is the vector axis instead: the row is upcast whole (in
   8 lanes and the rest where it is longer than 16), the batch by 2 and the input channel by 4. The window gates the
   output gradient lane by lane; its loads become vectors under a mask of lanes (late/coalesce.ml) and the loop over
   the output channels runs where any lane holds (Codegen.gate_reduce_loops). beautiful_mnist's conv2 input gradient
   (24-wide rows): 209 ms, was 337 with the 8x8 tile. *)
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
                                                              && in_backward_slice rngs.(ax) x && not (in_backward_slice rngs.(ax) y)) ups in
       let out_idx, _ = out_in_indices k in
       (* the lanes (AVX-512): an output axis of up to 32, a multiple of 8, contiguous in the output, on which both
          factors depend (the image's x, through the window) *)
       let lane_axis = if List.hd lengths < 16 then None else List.find_opt (fun ax -> let sz = full_shape_int k ax in
           sz <= 32 && sz mod 8 = 0 && unit_stride rngs.(ax) out_idx && in_backward_slice rngs.(ax) a
           && in_backward_slice rngs.(ax) b) ups in
       (match Option.map (fun l -> (l, only ~but:l 4 a b, only ~but:l 4 b a)) lane_axis with
        | Some (l, Some m, Some n) ->
          let lr = rngs.(l) and mr = rngs.(m) and nr = rngs.(n) in
          try_on_copy k (fun k ->
              let up r amt = K.apply_opt k (opt Opt.UPCAST ~axis:(index_of_rng k r) ~arg:(Opt.Int amt)) in
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

(* not in tinygrad: under CPU_OPT=fast, two kinds of kernel get no upcast nor unroll, so that clang's loop vectorizer
   runs their rolled scalar loops on full-width vectors:
   - a kernel computing a transcendental that the renderer lacks (exp2, log2, sin: decomposed into polynomials,
     codegen/decomp/transcendental.ml): upcast lanes become scalar copies of the polynomial that clang does not
     re-vectorize (softmax's exp ran at 2 GFLOPS); its reduce loops are marked for the vectorizer by
     renderer/cstyle.ml cpu_fast_lang;
   - an elementwise kernel that divides or takes a square root (Adam's update): tinygrad's output upcast by 4 leaves
     the divisions and square roots, whose throughput bounds the kernel, on 4-lane vectors (Adam's update of a
     784x128 weight: 38 us, was 80, one thread). An elementwise kernel of cheap ops is memory bound and keeps
     tinygrad's upcasts. *)
let cpu_rolled (k : K.t) =
  cpu_lengths k <> None
  (* a max keeps tinygrad's order: which NaN it keeps depends on it (the unrolled chain starts from the first
     element, a rolled loop from -inf, which drops a NaN) *)
  && List.for_all (fun (r : Uop.t) -> match r.arg with Reduce_arg (Ops.Max, _) -> false | _ -> true) (K.reduceops k)
  && (let nodes = toposort k.ast in
      List.exists (fun (u : Uop.t) -> List.memq u.op [ Ops.Exp2; Ops.Log2; Ops.Sin ] && not (List.memq u.op k.ren.code_for_op)) nodes
      || (not (List.exists (fun (u : Uop.t) -> u.op == Ops.Reduce) nodes)
          && List.exists (fun (u : Uop.t) -> List.memq u.op [ Ops.Fdiv; Ops.Reciprocal; Ops.Sqrt ] && Dtype.is_float u.dtype) nodes))

(* tinygrad: heuristic.py hand_coded_optimizations *)
let hand_coded_optimizations (k : K.t) : K.t =
  match tensor_core_opts k with
  | Some tk -> tk
  | None ->
    (* make a copy so it does not mutate the input *)
    let k = K.copy k in
    (* upcast float4 images, this must be early so we don't accidentally add locals before the upcast *)
    (* IMAGE (image_valid_dims) is not ported: it comes with the image dtypes of the QCOM/CL targets *)
    if Helpers.image.value <> 0 then failwith "hand_coded_optimizations: IMAGE is not supported";
    if matvec_opts k then k
    else begin
      grouping_opts k;
      (* no more opt if we are grouping *)
      if K.group_for_reduces k > 0 then k
      else begin
        (* **** below this line need to be optional and benchmarked **** *)
        let k = if cpu_rolled k then k else match cpu_register_tile k with
          | Some tk -> tk
          | None -> match cpu_conv_weight_grad k with Some wk -> wk | None ->
            match cpu_conv_tile k with Some ck -> ck | None -> match cpu_matvec k with Some mk -> mk | None ->
            match cpu_nested_reduce_tile k with Some nk -> nk | None -> match cpu_vector_reduce k with
            | Some vk -> vk
            | None -> masked_upcasts k; output_upcasts k; reduce_unrolls k; default_upcast k; k in
        local_groups k;
        thread_opts k;
        k
      end
    end

let () = K.hand_coded_optimizations_hook := hand_coded_optimizations
