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

(** The root of a memory group: a UOp, or one of tinygrad's "INVALID"/"CONST" keys. *)
type root_src = Root of Uop.t | Root_invalid | Root_const

(** [consecutive_runs offsets]: the runs of consecutive offsets among the keys of [offsets], each sorted. *)
val consecutive_runs : (Z.t * 'a) list -> Z.t list list

(** [at_offset offsets g]: the loads/stores at offset [g]. *)
val at_offset : (Z.t * 'a list ref) list -> Z.t -> 'a list

(** Not in tinygrad: how a CPU mode changes {!memory_coalescing} (Coalesce_cpu.policy); tinygrad's without one. *)
type policy = {
  lane_gated : Uop.t -> Uop.t -> Uop.t -> Uop.t -> Uop.t option;
      (** [lane_gated u buf valid idx]: [Some idx'] when the access groups without its valid, by [idx'] *)
  coalesces_reg : Uop.t -> bool;  (** a REG buffer that coalesces like memory *)
  lengths : Uop.t -> int list option;  (** the vector lengths of a buffer's groups, at any offset *)
  gated_lengths : Uop.t -> int list option;
      (** the vector lengths, at any offset, of the gated groups of a buffer of a dtype that tinygrad does not
          coalesce *)
  lane_gated_loads : Uop.t -> root_src -> (Z.t * Uop.t list ref) list -> (Uop.t * Uop.t) list;
      (** the loads of a lane-gated group of a buffer, as (load, replacement) pairs in order *)
}

(** tinygrad's [memory_coalescing sink ren]: loads/stores at consecutive offsets from one base are grouped
    into vector accesses (SHRINK) of the lengths the renderer allows ([supports_float4]: 4 and 2; [device]
    "DSP": up to 128). DMC=1 disables it. [policy]: the CPU mode's changes (not in tinygrad). *)
val memory_coalescing : ?device:string -> ?policy:policy -> supports_float4:bool -> Uop.t -> Uop.t
