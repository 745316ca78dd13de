(** tinygrad [codegen/opt/heuristic.py]: the hand-coded kernel optimizations. Linking this module sets
    [Postrange.hand_coded_optimizations_hook]. *)

(** [hand_coded_optimizations k]: a copy of [k] with tinygrad's heuristic opts applied (tensor cores, matvec, grouping,
    masked/stride upcasts, reduce unrolls, locals, THREAD). Under [CPU_OPT=fast] on the CPU (not in tinygrad) a CPU
    branch replaces the upcast/unroll stages: a BLAS-micro-kernel register tile for a matmul-shaped reduce big enough
    to pay, the output axis upcast by 8 vectors (padded where needed) for a matrix-vector product along the contiguous
    axis of its matrix, an unroll by the vector width for a reduce over a contiguous axis, and no upcast at all for
    a kernel with a decomposed transcendental (clang vectorizes its rolled loops), an 8x8 tile of output axes that each
    factor alone depends on for a nested reduce (a convolution's input gradient), the window upcast whole with a
    channel by 4 for a reduce along long rows contiguous in both factors (a convolution's weight gradient); a big
    kernel that no thread count divides is padded to thread. *)
val hand_coded_optimizations : Postrange.t -> Postrange.t
