(** Scalar data types, constants and the promotion lattice. tinygrad: [dtype.py].

    tinygrad 0.14 has no vector or pointer dtypes: vector width lives in a UOp's shape and pointer-ness in
    its address space. Python literals get the {e weak} dtypes [Weakint]/[Weakfloat] (JAX-style). *)

(** A scalar dtype, in tinygrad's declaration order. *)
type t =
  | Void
  | Weakint
  | Bool
  | Int8
  | Uint8
  | Int16
  | Uint16
  | Int32
  | Uint32
  | Int64
  | Uint64
  | Uint128
  | Uint256
  | Weakfloat
  | Fp8e4m3
  | Fp8e5m2
  | Fp8e4m3fnuz
  | Fp8e5m2fnuz
  | Float16
  | Bfloat16
  | Float32
  | Float64

(** Where a buffer lives; [Alu] is a scalar value such as a Variable. tinygrad: [AddrSpace]. *)
type addrspace = Global | Local | Reg | Alu

(** A constant value. Ints are unbounded like Python's; [Invalid] poisons a lane or an index. *)
type const = I of Z.t | F of float | B of bool | Invalid

(** {1 Properties} *)

(** Promotion priority (tinygrad's [DType.priority]). *)
val priority : t -> int

(** Size in bits (800 for the weak dtypes). *)
val bitsize : t -> int

(** Size in bytes, [(bitsize + 7) / 8]. *)
val itemsize : t -> int

(** The C name, as tinygrad's [DType.name] (["float"], ["unsigned char"], ["__bf16"], ...). *)
val name : t -> string

(** The struct format character, if any. *)
val fmt : t -> char option

(** The attribute name in [dtypes] (["float32"], ["weakint"], ...). *)
val short_name : t -> string

(** Python [repr]: ["dtypes.float"]; tinygrad prints the alias of the C name. *)
val to_string : t -> string

(** tinygrad's [DType.__lt__]: order by (priority, bitsize, name, fmt). *)
val compare : t -> t -> int

(** Structural equality (dtypes are interned, so this is identity). *)
val equal : t -> t -> bool

(** Parses a dtype name or alias (["float"], ["half"], ["int32"], ...); [None] if unknown. *)
val of_string : string -> t option

(** {1 Classes} *)

(** Floats, including [Weakfloat]. *)
val is_float : t -> bool

(** Ints, including [Weakint]. *)
val is_int : t -> bool

(** Unsigned ints. *)
val is_unsigned : t -> bool

(** [Bool] only. *)
val is_bool : t -> bool

(** [Weakint] or [Weakfloat]. *)
val is_weak : t -> bool

(** The fp8 dtypes. *)
val fp8s : t list

(** All storage floats (fp8s, half, bfloat16, float, double). *)
val floats : t list

(** Unsigned ints, then signed ints. *)
val uints : t list

(** Signed ints. *)
val sints : t list

(** All storage ints. *)
val ints : t list

(** Every storage dtype: floats, ints and bool. *)
val all : t list

(** (exponent bits, mantissa bits) of a float dtype. Raises [Invalid_argument] otherwise. *)
val finfo : t -> int * int

(** Smallest value: [-inf] for floats, [False] for bool. *)
val min : t -> const

(** Largest value: [inf] for floats, [True] for bool. *)
val max : t -> const

(** {1 Defaults and weak types} *)

(** [DEFAULT_FLOAT] (float32 unless the environment says otherwise). *)
val default_float : unit -> t

(** [DEFAULT_INT] (int32 unless the environment says otherwise). *)
val default_int : unit -> t

(** The dtype of a Python-style literal: bool for bools and Invalid, weak otherwise. *)
val from_const : const -> t

(** Weak dtypes become the default int/float; others are unchanged. *)
val strong_dtype : t -> t

(** Floats become [Weakfloat], ints [Weakint]; others are unchanged. *)
val weak_dtype : t -> t

(** {1 Promotion} *)

(** The least upper bound in tinygrad's JAX-style promotion lattice. *)
val least_upper_dtype : t list -> t

(** The least float dtype above [t] ([Weakint] goes to [Weakfloat]). *)
val least_upper_float : t -> t

(** Whether every value of the first dtype survives a cast to the second. *)
val can_lossless_cast : t -> t -> bool

(** Accumulator dtype for sums (ints to int32/uint32, floats to [SUM_DTYPE], float32 by default). *)
val sum_acc_dtype : t -> t

(** {1 Constants} *)

(** Canonicalises a value for a dtype, tinygrad's [DType.const]: floats are truncated to the dtype's
    grid (nan canonical), bools become [Bool], everything else [Int]. *)
val const : t -> const -> const

(** Value conversion as C/ctypes does it (float32 rounding, int wrap-around, bool). Weak and void
    dtypes are unbounded: the value is returned unchanged. *)
val truncate : t -> const -> const

(** Equality of constants: floats by bits (so [-0.0 <> 0.0] and [nan = nan]). *)
val equal_const : const -> const -> bool

(** A hash consistent with [equal_const]. *)
val hash_const : const -> int

(** Python's [str] of the value: ["3"], ["1.5"], ["inf"], ["True"], ["Invalid"]. *)
val const_to_string : const -> string

(** Python's [repr] of a float (shortest round-trip form, ["1.0"], ["1e-05"], ["inf"], ["nan"]). *)
val float_repr : float -> string

(** Python truthiness of a constant. *)
val const_truthy : const -> bool

(** The value as a float (ints and bools converted). Raises on [Invalid]. *)
val const_to_float : const -> float

(** Python-style ordering of numeric constants (bool < int < float by value; Invalid raises). *)
val compare_const : const -> const -> int

(** {1 Storage conversions} *)

(** Round a float to half precision (infinity on overflow). *)
val float_to_fp16 : float -> float

(** Round a float to bfloat16 (via float32, round to nearest even). *)
val float_to_bf16 : float -> float

(** Encode a float as an fp8 byte of the given fp8 dtype. *)
val float_to_fp8 : float -> t -> int

(** Decode an fp8 byte of the given fp8 dtype. *)
val fp8_to_float : int -> t -> float

(** Reinterpret the bits of a value of one dtype as another of the same itemsize. *)
val bitcast : const -> t -> t -> const

(** {1 Lower-case names: [Dtype.float32] is [Float32], with tinygrad's aliases} *)

(** [Void]. *)
val void : t

(** [Bool]. *)
val bool : t

(** [Int8]. *)
val int8 : t

(** [Uint8]. *)
val uint8 : t

(** [Int16]. *)
val int16 : t

(** [Uint16]. *)
val uint16 : t

(** [Int32]. *)
val int32 : t

(** [Uint32]. *)
val uint32 : t

(** [Int64]. *)
val int64 : t

(** [Uint64]. *)
val uint64 : t

(** [Float16]. *)
val float16 : t

(** [Bfloat16]. *)
val bfloat16 : t

(** [Float32]. *)
val float32 : t

(** [Float64]. *)
val float64 : t

(** [Float16] (tinygrad alias [dtypes.half]). *)
val half : t

(** [Float32] (tinygrad alias [dtypes.float]). *)
val float : t

(** [Float64] (tinygrad alias [dtypes.double]). *)
val double : t
