(** tinygrad [codegen/opt/heuristic.py]: the hand-coded kernel optimizations. Linking this module sets
    [Postrange.hand_coded_optimizations_hook]. *)

(** [hand_coded_optimizations k]: a copy of [k] with tinygrad's heuristic opts applied (tensor cores, matvec, grouping,
    masked/stride upcasts, reduce unrolls, locals, THREAD). Under [CPU_OPT=fast] on the CPU (not in tinygrad) a CPU
    branch replaces the upcast/unroll stages: a BLAS-micro-kernel register tile for a matmul-shaped reduce, a
    direct-convolution tile for a convolution (lanes along the output's contiguous columns, output channels as
    broadcast rows), the output axis upcast by 8 vectors (padded where needed) for a matrix-vector product along the
    contiguous axis of its matrix or a sum over its rows, an 8x8 tile of output axes that each factor alone depends
    on for a nested reduce (a convolution's input gradient), for a reduce along rows contiguous in both factors (a
    convolution's weight gradient) the row unrolled into one vector accumulator per output of a channel tile with the
    batch swapped outermost (rows of 6 to 32 lanes) or the window upcast whole with a channel by 4 (longer rows), a
    cache-blocked tile (BLOCK) for a matmul whose operand outgrows the cache, an unroll by the vector width for a
    reduce over a contiguous axis, and no upcast at all for a kernel with a decomposed transcendental or an
    elementwise kernel that divides or takes a square root (clang vectorizes its rolled loops); the thread threshold
    counts float ops per point, and a big kernel that no thread count divides is padded to thread. *)
val hand_coded_optimizations : Postrange.t -> Postrange.t
