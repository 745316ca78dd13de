(** The arena memory planner. tinygrad: [schedule/memory.py] and the TLSFAllocator of
    [runtime/support/memory.py]. *)

(** tinygrad [TLSFAllocator]: a Two-Level Segregated Fit suballocator over \[0, size). *)
module Tlsf : sig
  (** An allocator. *)
  type t

  (** [create size]: everything free ([block_size] 16, [lv2_cnt] 16 by default, as tinygrad). *)
  val create : ?base:int -> ?block_size:int -> ?lv2_cnt:int -> int -> t

  (** The start of a free block of at least this many bytes; [Failure] when none fits. *)
  val alloc : ?align:int -> t -> int -> int

  (** Frees the block at this start and merges it with free neighbours. *)
  val free : t -> int -> unit
end

(** tinygrad [_collect_bufs]: the BUFFERs of a call argument. *)
val collect_bufs : Uop.t -> Uop.t list

(** tinygrad [memory_plan_rewrite linear held_bufs]: internal buffers (not in [held_bufs]) become SHRINK/BITCAST
    views of one int8 arena per device and lane; NO_MEMORY_PLANNER=1 returns [linear]. *)
val memory_plan_rewrite : ?held_bufs:Uop.t list -> Uop.t -> Uop.t
