(** Not in tinygrad: the CPU mode's memory coalescing (CPU_OPT=fast on the CPU), a {!Coalesce.policy} for tinygrad's
    [memory_coalescing]. *)

(** [fold_divmod_given holds]: where a clause [e mod m < c] of [holds] bounds a remainder, the pairs
    ([e div m], q) and ([e mod m], t) with q and t affine (t = e - m*q in (-m, m) and c <= m + min t). *)
val fold_divmod_given : Uop.t list -> (Uop.t * Uop.t) list

(** [index_given valid idx]: [idx] with the quotients and remainders that a clause of [valid] bounds folded
    ({!fold_divmod_given}), equal to [idx] wherever [valid] holds. *)
val index_given : Uop.t -> Uop.t -> Uop.t

(** [row_vectors lengths l]: the vectors a row of [l] float32 lanes coalesces to, given the vector lengths of
    [Renderer.float_lengths] (20 lanes with [[16; 8; 4; 2]]: 16 + 4, 2 vectors). *)
val row_vectors : int list -> int -> int

(** [acc_registers ~widest]: the vector registers that the accumulators of a tile may take, half the register file
    (16 with [widest] 16-lane vectors, else 8). *)
val acc_registers : widest:int -> int

(** [vector_acc_fits lengths ~lanes ~outs]: whether [outs] outputs reduced over unrolled axes of [lanes] lanes
    each keep a vector accumulator of their own (at least 6 lanes, all their vectors within {!acc_registers}).
    The heuristic sizes its tiles with it. *)
val vector_acc_fits : int list -> lanes:int -> outs:int -> bool

(** [u] (a buffer, or an AFTER of one) is a REG buffer marked [vector_acc] (the per-output vector
    accumulators of Codegen_cpu): the coalescer loads and stores them as whole vectors. *)
val is_vector_acc : Uop.t -> bool

(** [vector_acc_updates sink]: each store into a vector accumulator ({!is_vector_acc}) whose value is built
    lane by lane from the lanes of whole vectors, broadcast scalars and elementwise ops of them stores that
    vector expression instead (one vector op per update, where clang may build the lanes otherwise). *)
val vector_acc_updates : Uop.t -> Uop.t

(** The CPU mode's policy for a renderer (its float32 vector lengths). *)
val policy : Renderer.t -> Coalesce.policy
