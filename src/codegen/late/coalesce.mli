(** Index and valid simplification of loads. tinygrad: [codegen/late/coalesce.py] (the
    [indexing_simplify] part; image transforms and memory coalescing come with the kernel-opts work). *)

(** tinygrad's [is_image_shape]: three dims whose last one is 4. *)
val is_image_shape : Uop.sint list option -> bool

(** tinygrad's [_drop_valid_stmts valid idx height width]: the clauses of [valid] that can be dropped
    because the image coordinates [idx] (a STACK of x and y) are out of bounds whenever they are False. *)
val drop_valid_stmts : Uop.t -> Uop.t -> Z.t -> Z.t -> Uop.t list

(** tinygrad's [simplify_valid_load buf idx valid]: [buf.index(idx.valid(valid))] with [idx] simplified
    given [valid], or [None] if that does not change it. *)
val simplify_valid_load : Uop.t -> Uop.t -> Uop.t -> Uop.t option

(** tinygrad's [simplify_valid_image_load buf idx_y idx_x valid]: simplify both image coordinates given
    [valid] and drop the clauses that out-of-bounds coordinates already enforce. *)
val simplify_valid_image_load : Uop.t -> Uop.t -> Uop.t -> Uop.t -> Uop.t option

(** tinygrad's [indexing_simplify]: valid-aware simplification of gated INDEX (buffer and image). *)
val indexing_simplify : unit Upat.matcher

(** tinygrad's [pm_simplify_add_image]: image loads/stores are float (half values are cast); the image
    transform itself (IMAGE on QCOM/CL) is not ported. *)
val pm_simplify_add_image : unit Upat.matcher

(** tinygrad's [memory_coalescing sink ren]: loads/stores at consecutive offsets from one base are grouped
    into vector accesses (SHRINK) of the lengths the renderer allows ([supports_float4]: 4 and 2; [device]
    "DSP": up to 128). DMC=1 disables it. *)
val memory_coalescing : ?device:string -> supports_float4:bool -> Uop.t -> Uop.t

(** Not in tinygrad: the vector lengths float32 accesses on the CPU coalesce to under [CPU_OPT=fast] (widest first,
    up to [CPU_VEC] or the host's vector width); [None] under [CPU_OPT=tinygrad]. *)
val cpu_float_lengths : unit -> int list option

(** [row_vectors lengths l]: the vectors a row of [l] float32 lanes coalesces to, given the vector lengths of
    {!cpu_float_lengths} (20 lanes with [[16; 8; 4; 2]]: 16 + 4, 2 vectors). *)
val row_vectors : int list -> int -> int

(** The name of the REG buffers holding the per-output vector accumulators of [Codegen.reduce_ranges_to_acc]
    (CPU_OPT=fast): the coalescer loads and stores them as whole vectors. *)
val vector_acc_name : string

(** [u] (a buffer, or an AFTER of one) is such an accumulator. *)
val is_vector_acc : Uop.t -> bool
