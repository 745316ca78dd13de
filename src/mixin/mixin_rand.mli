(** Random numbers shared by Tensor and UOp. tinygrad: [mixin/rand.py] ([RandMixin]): counter-based threefry bits,
    rand / randn / randint / uniform / normal and the init helpers, dropout and scaled dot-product attention.
    The per-device seed and counter are Tensor state (tinygrad [Tensor._next_counter]); Tensor installs them in
    {!next_counter_hook}. Shapes are int lists; bad input raises [Invalid_argument]. *)

(** SHA-256 digest (32 raw bytes) of a string; tinygrad hashes device indices with [hashlib.sha256]. *)
val sha256 : string -> string

(** The low 32 bits of [sha256(n.to_bytes(4, "big"))] read big-endian: the first word of device [n]'s key
    (tinygrad [Tensor._next_counter] stores it as uint32). *)
val device_seed_word : int -> int

(** [threefry_random_bits key counts0 counts1]: threefry2x32 of the uint32 counter halves under the 2-word key, as
    [cat(low words, high words)]. tinygrad [RandMixin._threefry_random_bits]. *)
val threefry_random_bits : Uop.t -> Uop.t -> Uop.t -> Uop.t

(** [random_bits key counter num]: [num] uint32 random words from the key and the 2-word counter.
    tinygrad [RandMixin.random_bits]. *)
val random_bits : Uop.t -> Uop.t -> int -> Uop.t

(** [bits_to_rand bits shape dtype]: uniform \[0, 1) floats of [dtype] from uint32 words (mantissa fill).
    tinygrad [RandMixin._bits_to_rand]. *)
val bits_to_rand : Uop.t -> int list -> Dtype.t -> Uop.t

(** [rand_from key counter shape dtype ~contiguous]: the draw itself. tinygrad [RandMixin._rand]. *)
val rand_from : Uop.t -> Uop.t -> int list -> Dtype.t -> contiguous:bool -> Uop.t

(** [!next_counter_hook device num]: the device's (key, counter) UOps for a draw of [num] words, advancing the
    counter. tinygrad [_next_counter]; raises until Tensor installs its state. *)
val next_counter_hook : (string -> int -> Uop.t * Uop.t) ref

(** Uniform \[0, 1) of a concrete float dtype (default float). tinygrad [RandMixin.rand]. *)
val rand : ?device:string -> ?dtype:Dtype.t -> ?contiguous:bool -> int list -> Uop.t

(** {!rand} with the shape and device of a node (its dtype unless [dtype]). tinygrad [RandMixin.rand_like]. *)
val rand_like : ?dtype:Dtype.t -> ?contiguous:bool -> Uop.t -> Uop.t

(** Standard normal (Box-Muller over float32 draws) like a node. tinygrad [RandMixin.randn_like]. *)
val randn_like : ?dtype:Dtype.t -> Uop.t -> Uop.t

(** Standard normal. tinygrad [RandMixin.randn]. *)
val randn : ?device:string -> ?dtype:Dtype.t -> int list -> Uop.t

(** [uniform_c ~low ~high shape]: {!uniform} with Python-number bounds (int or float constants, which decide the
    promotion as in tinygrad). *)
val uniform_c : ?device:string -> ?dtype:Dtype.t -> low:Dtype.const -> high:Dtype.const -> int list -> Uop.t

(** Uniform in \[low, high) (default \[0, 1)). tinygrad [RandMixin.uniform]. *)
val uniform : ?device:string -> ?dtype:Dtype.t -> ?low:float -> ?high:float -> int list -> Uop.t

(** Uniform integers in \[low, high) (default \[0, 10), int32). tinygrad [RandMixin.randint]. *)
val randint : ?device:string -> ?low:int -> ?high:int -> ?dtype:Dtype.t -> int list -> Uop.t

(** Normal with [mean] and [std]. tinygrad [RandMixin.normal]. *)
val normal : ?device:string -> ?dtype:Dtype.t -> ?mean:float -> ?std:float -> int list -> Uop.t

(** Uniform in \[-prod(shape)^-0.5, prod(shape)^-0.5). tinygrad [RandMixin.scaled_uniform]. *)
val scaled_uniform : ?device:string -> ?dtype:Dtype.t -> int list -> Uop.t

(** Glorot (Xavier) uniform. tinygrad [RandMixin.glorot_uniform]. *)
val glorot_uniform : ?device:string -> ?dtype:Dtype.t -> int list -> Uop.t

(** Kaiming uniform ([a] default 0.01). tinygrad [RandMixin.kaiming_uniform]. *)
val kaiming_uniform : ?device:string -> ?dtype:Dtype.t -> ?a:float -> int list -> Uop.t

(** Kaiming normal ([a] default 0.01). tinygrad [RandMixin.kaiming_normal]. *)
val kaiming_normal : ?device:string -> ?dtype:Dtype.t -> ?a:float -> int list -> Uop.t

(** Indices sampled from the weights (1-d or 2-d); with [replacement] or one sample only (the no-replacement path
    needs topk). tinygrad [RandMixin.multinomial]. *)
val multinomial : ?num_samples:int -> ?replacement:bool -> Uop.t -> Uop.t

(** Dropout with probability [p] (default 0.5) when [Helpers.training] is set, else the identity.
    tinygrad [RandMixin.dropout]. *)
val dropout : ?p:float -> Uop.t -> Uop.t

(** [scaled_dot_product_attention q k v]: [softmax(q k^T / sqrt d + mask) v]; a bool mask selects, [is_causal] uses
    the lower triangle. tinygrad [RandMixin.scaled_dot_product_attention]. *)
val scaled_dot_product_attention :
  ?attn_mask:Uop.t -> ?dropout_p:float -> ?is_causal:bool -> ?enable_gqa:bool -> Uop.t -> Uop.t -> Uop.t -> Uop.t
