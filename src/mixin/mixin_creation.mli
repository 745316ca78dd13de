(** Tensor creation shared by Tensor and UOp. tinygrad: [mixin/creation.py] ([CreationMixin]) and the
    UOp buffer constructors it calls ([UOp.new_buffer], [UOp.empty_like]). A negative dimension or the void dtype
    raises [Invalid_argument] naming the op. *)

(** A CONST (the value's weak dtype by default). tinygrad [UOp.const]. *)
val const : ?dtype:Dtype.t -> Dtype.const -> Uop.t

(** A CONST with [x]'s dtype (or [dtype]), expanded to [x]'s shape. tinygrad [CreationMixin.const_like]. *)
val const_like : ?dtype:Dtype.t -> Uop.t -> Dtype.const -> Uop.t

(** The next buffer slot. tinygrad [next(UOp.unique_num)]. *)
val next_unique : unit -> int

(** [new_buffer device size dtype]: a 1-d BUFFER of [size] elements; weak dtypes are refused. tinygrad [UOp.new_buffer]. *)
val new_buffer : ?num:int -> string -> int -> Dtype.t -> Uop.t

(** The canonical device name; [Invalid_argument] naming [op] for an unknown device. tinygrad [canonicalize_device]. *)
val canonicalize_device : ?op:string -> string option -> string

(** [check_dtype op dtype]: [Invalid_argument] naming [op] for the void dtype, which no CONST has. *)
val check_dtype : string -> Dtype.t option -> unit

(** Symbolic dims replaced by their vmax. tinygrad [to_max_shape]. *)
val to_max_shape : Uop.sint list -> int list

(** An uninitialised buffer of the shape (default float32 on the default device). tinygrad [CreationMixin.empty]. *)
val empty : ?device:string -> ?dtype:Dtype.t -> Uop.sint list -> Uop.t

(** An empty buffer shaped like [x] (its strong dtype and device by default); without [device], a value on a tuple
    of devices gets a buffer of its shard's shape on each device, keeping its axis. tinygrad [UOp.empty_like]. *)
val empty_like : ?dtype:Dtype.t -> ?device:string -> Uop.t -> Uop.t

(** A buffer filled with the value (AFTER(buf, STORE(buf, const))), or with [~buffer:false] the broadcast CONST.
    tinygrad [CreationMixin.full]. *)
val full : ?dtype:Dtype.t -> ?device:string -> ?buffer:bool -> Uop.sint list -> Dtype.const -> Uop.t

(** {!full} with a UOp fill value. tinygrad [CreationMixin.full] with a UOp. *)
val full_uop : ?dtype:Dtype.t -> ?device:string -> ?buffer:bool -> Uop.sint list -> Uop.t -> Uop.t

(** [multi_like x make]: [make shape device] on each device of the multi-device value [x]: one value of
    [x]'s shape replicated (device [None]), or one of its shard's shape per device unsharded along its axis;
    [Invalid_argument] for a one-device value. tinygrad [CreationMixin._multi_like]. *)
val multi_like : Uop.t -> (Uop.sint list -> string option -> Uop.t) -> Uop.t

(** {!full} with [x]'s shape, dtype and device. tinygrad [CreationMixin.full_like]. *)
val full_like : ?dtype:Dtype.t -> ?device:string -> ?buffer:bool -> Uop.t -> Dtype.const -> Uop.t

(** A buffer filled with Invalid. tinygrad [CreationMixin.invalids]. *)
val invalids : ?device:string -> ?dtype:Dtype.t -> Uop.sint list -> Uop.t

(** Zeros (fill 0.0). tinygrad [CreationMixin.zeros]. *)
val zeros : ?dtype:Dtype.t -> ?device:string -> ?buffer:bool -> Uop.sint list -> Uop.t

(** Ones (fill 1.0). tinygrad [CreationMixin.ones]. *)
val ones : ?dtype:Dtype.t -> ?device:string -> ?buffer:bool -> Uop.sint list -> Uop.t

(** Zeros like [x]. tinygrad [CreationMixin.zeros_like]. *)
val zeros_like : ?dtype:Dtype.t -> ?device:string -> Uop.t -> Uop.t

(** Ones like [x]. tinygrad [CreationMixin.ones_like]. *)
val ones_like : ?dtype:Dtype.t -> ?device:string -> Uop.t -> Uop.t

(** The creation ops over a carrier: concrete shapes (int arrays) and float fill values; the [_like] ops keep the
    carrier's device. *)
module Make (C : Mixin_intf.CARRIER) : Mixin_intf.CREATION with type t := C.t
