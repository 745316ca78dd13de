(** dtype sugar shared by Tensor and UOp. tinygrad: [mixin/dtype.py] ([DTypeMixin]). *)

(** [cast x dt]: CAST to [dt] ([x] when already [dt]). tinygrad [DTypeMixin.cast]. *)
val cast : Uop.t -> Dtype.t -> Uop.t

(** [bitcast x dt]: BITCAST between concrete dtypes; [Invalid_argument] for weak ones. tinygrad [DTypeMixin.bitcast]. *)
val bitcast : Uop.t -> Dtype.t -> Uop.t

(** Bytes per element; [Invalid_argument] for a weak dtype. tinygrad [DTypeMixin.element_size]. *)
val element_size : Uop.t -> int

(** Whether the dtype is a float (weak float included). tinygrad [DTypeMixin.is_floating_point]. *)
val is_floating_point : Uop.t -> bool

(** Cast to float32. tinygrad [float]. *)
val float : Uop.t -> Uop.t

(** Cast to float16. tinygrad [half]. *)
val half : Uop.t -> Uop.t

(** Cast to int32. tinygrad [int]. *)
val int : Uop.t -> Uop.t

(** Cast to bool. tinygrad [bool]. *)
val bool : Uop.t -> Uop.t

(** Cast to bfloat16. tinygrad [bfloat16]. *)
val bfloat16 : Uop.t -> Uop.t

(** Cast to float64. tinygrad [double]. *)
val double : Uop.t -> Uop.t

(** Cast to int64. tinygrad [long]. *)
val long : Uop.t -> Uop.t

(** Cast to int16. tinygrad [short]. *)
val short : Uop.t -> Uop.t
