(** Launch dimensions. tinygrad: [codegen/gpudims.py]. *)

(** tinygrad [get_grouped_dims prefix dims max_sizes]: SPECIAL indices for [dims], grouped/split to fit [max_sizes]. *)
val get_grouped_dims : ?reverse:bool -> string -> Uop.sint list -> int list option -> Uop.t list

(** tinygrad [UOp.addrspace]. *)
val addrspace : Uop.t -> Dtype.addrspace option

(** tinygrad [add_gpudims]: GLOBAL/LOCAL (and THREAD) ranges of a kernel SINK become SPECIALs or [core_id]. *)
val add_gpudims : Renderer.t -> Uop.t -> Uop.t option

(** tinygrad [pm_device_to_var]: DEVICE ranges become the [_device_num] variable. *)
val pm_device_to_var : unit Upat.matcher

(** tinygrad [pm_add_gpudims] (ctx: the renderer). *)
val pm_add_gpudims : Renderer.t Upat.matcher
