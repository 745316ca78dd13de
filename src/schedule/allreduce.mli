(** tinygrad: [schedule/allreduce.py] — the allreduce of a value on a tuple of devices, lowered to copies between
    the devices and elementwise reduces: naive (every device copies every other's value), RING (a ring
    reduce-scatter and allgather of [ndev] chunks) or ALL2ALL, chosen by the [RING], [ALL2ALL] and
    [RING_ALLREDUCE_THRESHOLD] knobs as tinygrad chooses. The allreduce is lowered in place, tinygrad's
    [LATE_ALLREDUCE=0] path (the port has no precompiled FUNCTIONs for [create_allreduce_function]). *)

(** [handle_allreduce buf red]: the lowering of [red] (an ALLREDUCE of [buf] with arg [(op, device)]); [None] when
    [buf] is not on a tuple of devices. tinygrad [handle_allreduce]. *)
val handle_allreduce : Uop.t -> Uop.t -> Uop.t option

(** One value per device, as a multi-device value (the node itself for one source). tinygrad [UOp.mstack]. *)
val mstack : Uop.t list -> Uop.t
