(** Not in tinygrad: the CPU mode's heuristic (CPU_OPT=fast on the CPU; [Codegen.passes] selects it). tinygrad's
    stages ([Heuristic]) with the upcast/unroll stage replaced by the CPU's tiles, tried in order:
    - a BLAS-micro-kernel register tile for a matmul-shaped reduce, cache-blocked (BLOCK) when its operand outgrows
      the cache;
    - for a convolution's weight gradient (a reduce along rows contiguous in both factors), the row unrolled into one
      vector accumulator per output of a channel tile with the batch swapped outermost and the window's loops
      innermost (rows of 6 to 32 lanes; a short row with a few rows of the output gradient beside it where
      they take no more vectors), or the window upcast whole with a channel by 4 (longer rows);
    - for a convolution's weight gradient whose output gradient is contiguous along the output channels and
      whose reduce the scheduler split by the batch, lanes along the output channels and the window's
      columns as broadcast rows, the batch's groups outermost;
    - an implicit-GEMM tile for a convolution whose weight is contiguous along its output channels (lanes
      along the output channels, output columns as broadcast rows);
    - a direct-convolution tile (lanes along the output's contiguous columns, output channels as broadcast rows);
    - the output axis upcast by 8 vectors (padded where needed, to a number of tiles the threads divide where
      the kernel is big enough to thread) for a matrix-vector product along the contiguous axis of its matrix,
      or a sum over its rows;
    - an 8x8 tile (or, with AVX-512, a lane tile along the input row) for a nested reduce (a convolution's input
      gradient);
    - an unroll by the vector width for a reduce over a contiguous axis, its two output loops swapped where
      the outer one strides the input less than the inner one;
    and else tinygrad's upcasts, the default upcast by the vector width first, after which a reduce that they
    unrolled whole (a pooling's window), or in part where a few points of a window sum are left, gets the rest
    unrolled and its output row as lanes. A kernel with a decomposed
    transcendental per element, or an elementwise kernel that divides or takes a square root, gets no upcast
    at all (clang vectorizes its rolled loops), unless it reduces over 8-bit integers (a quantized weight
    dequantized where it is read) and computes its transcendentals after the reduce: that reduce is unrolled.
    A reduce whose transcendentals all follow it (a GELU on a matrix product's outputs) takes the output tiles
    above, and is left rolled where none applies. The threading stage counts float ops per point, and a big
    kernel that no thread count divides is padded to thread. *)

(** The register tile of a matmul-shaped reduce, if it applies: the tiled copy of the kernel. *)
val cpu_register_tile : Postrange.t -> Postrange.t option

(** The vector-accumulator tile of a convolution's weight gradient, if it applies. *)
val cpu_conv_weight_grad : Postrange.t -> Postrange.t option

(** The bounds on a convolution's reduce (input channels x window, in points) for the implicit-GEMM tile
    whose lanes are the output channels: at least [conv_channel_reduce_min] (shorter, its lane-by-lane
    output stores are not amortized) and at most [conv_reduce_max] (a forward convolution's, not a weight
    gradient's). *)
val conv_channel_reduce_min : int
val conv_reduce_max : int

(** [channel_lane_rows ~widest sz]: the rows (output points of a row of [sz]) of the channel-lane tile with
    [widest]-lane vectors, if some divisor of [sz] fits the registers. *)
val channel_lane_rows : widest:int -> int -> int option

(** [channel_lane_tile ~widest ~channels sz]: the vectors of output channels per row and the rows of the
    channel-lane tile on [channels] channels and an output row of [sz] points: 4 or 2 vectors where the
    channels take them whole and a divisor of [sz] from 4 up gives as many rows of them within the
    accumulator registers, else one vector on {!channel_lane_rows}; None where that finds no rows. *)
val channel_lane_tile : widest:int -> channels:int -> int -> (int * int) option

(** The implicit-GEMM tile of a convolution whose weight is contiguous along the output channels (the vector
    lanes; output points of its row as the rows), if it applies. *)
val cpu_conv_channel_lanes : Postrange.t -> Postrange.t option

(** The direct-convolution tile, if it applies. *)
val cpu_conv_tile : Postrange.t -> Postrange.t option

(** The matrix-vector tile, if it applies. *)
val cpu_matvec : Postrange.t -> Postrange.t option

(** The tile of a nested reduce (a convolution's input gradient), if it applies. *)
val cpu_nested_reduce_tile : Postrange.t -> Postrange.t option

(** The unroll by the vector width of a reduce over a contiguous axis, if it applies. *)
val cpu_vector_reduce : Postrange.t -> Postrange.t option

(** [cpu_stream_order k]: a sum along contiguous runs of its input with two output loops, the outer striding
    its streamed loads less than the inner (a split BatchNorm statistic: channels outer, groups of images
    inner), gets them swapped, in place, so that consecutive outputs read consecutive memory. *)
val cpu_stream_order : Postrange.t -> unit

(** [cpu_window_rest k]: where tinygrad's unrolls took part of a short sum of gathered values (the window
    sum of a pooling's backward after a convolution's channel reduce) and upcast nothing, the rest of the
    reduce unrolled, in place, so that {!cpu_window_lanes} applies. *)
val cpu_window_rest : Postrange.t -> unit

(** [cpu_window_lanes k]: where tinygrad's unrolls took a reduce whole and no output axis is upcast (a
    pooling, forward or backward), the output's contiguous axis upcast as lanes, in place. *)
val cpu_window_lanes : Postrange.t -> unit

(** Whether the kernel is left rolled (no upcast nor unroll), for clang's loop vectorizer; [~epilogue:false]
    ignores the transcendentals computed only after the reduces (once per output). Default [true]. *)
val cpu_rolled : ?epilogue:bool -> Postrange.t -> bool

(** [hand_coded_optimizations k]: a copy of [k] with the CPU mode's heuristic applied; the copy takes the CPU mode's
    loop opts ([Postrange.t.loop_opts]). *)
val hand_coded_optimizations : Postrange.t -> Postrange.t

(** [multiblock_optimizations k]: a copy of [k], a kernel with a STAGE (a partial-contiguous row buffer),
    with each reduce unrolled by the widest vector that divides it and the threads over its rows. *)
val multiblock_optimizations : Postrange.t -> Postrange.t
