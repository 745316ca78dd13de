(** Random numbers. tinygrad: [mixin/rand.py] ([RandMixin]): counter-based threefry bits, rand / randn / randint /
    uniform / normal, the init helpers, randperm, multinomial, dropout and scaled dot-product attention, as
    functions over UOps and, in {!Make}, over a carrier. The per-device seed and counter are the carrier's
    (tinygrad [Tensor._next_counter]): the UOp functions take them as [~next_counter]. Shapes are int lists here
    and int arrays in {!Make}; bad input raises [Invalid_argument]. *)

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

(** [next_counter device num]: the device's (key, counter) UOps for a draw of [num] uint32 words, advancing the
    counter. tinygrad [RandMixin._next_counter]. *)
type next_counter = string -> int -> Uop.t * Uop.t

(** Uniform \[0, 1) of a concrete float dtype (default float); [devices] (a tuple of devices) raises
    [Invalid_argument]. tinygrad [RandMixin.rand]. *)
val rand :
  next_counter:next_counter -> ?device:string -> ?devices:string list -> ?dtype:Dtype.t ->
  ?contiguous:bool -> int list -> Uop.t

(** {!rand} with the shape and device of a node (its dtype unless [dtype]); [device] or [devices] draw
    elsewhere (passed to {!rand}), and raise [Invalid_argument] for a node on several devices. tinygrad
    [RandMixin.rand_like]. *)
val rand_like :
  next_counter:next_counter -> ?device:string -> ?devices:string list -> ?dtype:Dtype.t ->
  ?contiguous:bool -> Uop.t -> Uop.t

(** Standard normal (Box-Muller over float32 draws) like a node. tinygrad [RandMixin.randn_like]. *)
val randn_like : next_counter:next_counter -> ?dtype:Dtype.t -> Uop.t -> Uop.t

(** Standard normal. tinygrad [RandMixin.randn]. *)
val randn : next_counter:next_counter -> ?device:string -> ?dtype:Dtype.t -> int list -> Uop.t

(** [uniform_c ~low ~high shape]: {!uniform} with Python-number bounds (int or float constants, which decide the
    promotion as in tinygrad). *)
val uniform_c :
  next_counter:next_counter -> ?device:string -> ?dtype:Dtype.t -> low:Dtype.const -> high:Dtype.const -> int list ->
  Uop.t

(** Uniform in \[low, high) (default \[0, 1)). tinygrad [RandMixin.uniform]. *)
val uniform :
  next_counter:next_counter -> ?device:string -> ?dtype:Dtype.t -> ?low:float -> ?high:float -> int list -> Uop.t

(** Uniform integers in \[low, high) (default \[0, 10), int32). tinygrad [RandMixin.randint]. *)
val randint :
  next_counter:next_counter -> ?device:string -> ?low:int -> ?high:int -> ?dtype:Dtype.t -> int list -> Uop.t

(** Normal with [mean] and [std]. tinygrad [RandMixin.normal]. *)
val normal :
  next_counter:next_counter -> ?device:string -> ?dtype:Dtype.t -> ?mean:float -> ?std:float -> int list -> Uop.t

(** Uniform in \[-prod(shape)^-0.5, prod(shape)^-0.5). tinygrad [RandMixin.scaled_uniform]. *)
val scaled_uniform : next_counter:next_counter -> ?device:string -> ?dtype:Dtype.t -> int list -> Uop.t

(** Glorot (Xavier) uniform. tinygrad [RandMixin.glorot_uniform]. *)
val glorot_uniform : next_counter:next_counter -> ?device:string -> ?dtype:Dtype.t -> int list -> Uop.t

(** Kaiming uniform ([a] default 0.01). tinygrad [RandMixin.kaiming_uniform]. *)
val kaiming_uniform : next_counter:next_counter -> ?device:string -> ?dtype:Dtype.t -> ?a:float -> int list -> Uop.t

(** Kaiming normal ([a] default 0.01). tinygrad [RandMixin.kaiming_normal]. *)
val kaiming_normal : next_counter:next_counter -> ?device:string -> ?dtype:Dtype.t -> ?a:float -> int list -> Uop.t

(** A random permutation of [0 .. n-1] (int32 unless [dtype]): the argsort of a draw. tinygrad [RandMixin.randperm]. *)
val randperm : next_counter:next_counter -> ?device:string -> ?dtype:Dtype.t -> int -> Uop.t

(** Indices sampled from the weights (1-d or 2-d): by the CDF with [replacement] or for one sample, else by
    Efraimidis-Spirakis keys and topk. tinygrad [RandMixin.multinomial]. *)
val multinomial : next_counter:next_counter -> ?num_samples:int -> ?replacement:bool -> Uop.t -> Uop.t

(** Dropout with probability [p] (default 0.5) when [Helpers.training] is set, else the node itself.
    tinygrad [RandMixin.dropout]. *)
val dropout : next_counter:next_counter -> ?p:float -> Uop.t -> Uop.t

(** [scaled_dot_product_attention q k v]: [softmax(q k^T / sqrt d + mask) v]; a bool mask selects, [is_causal] uses
    the lower triangle. tinygrad [RandMixin.scaled_dot_product_attention]. *)
val scaled_dot_product_attention :
  next_counter:next_counter -> ?attn_mask:Uop.t -> ?dropout_p:float -> ?is_causal:bool -> ?enable_gqa:bool -> Uop.t ->
  Uop.t -> Uop.t -> Uop.t

(** The random ops over a carrier, drawing from its {!Mixin_intf.RAND_CARRIER.next_counter}; an op's
    [Invalid_argument] starts with its name. *)
module Make (C : Mixin_intf.RAND_CARRIER) : Mixin_intf.RAND with type t := C.t
