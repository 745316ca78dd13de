(** Decompositions of the transcendental ops into elementwise arithmetic (SLEEF-style, 1 ULP).
    tinygrad: [codegen/decomp/transcendental.py]. *)

(** float16, float32, float64: the dtypes the decompositions handle natively (others go through float32). *)
val transcendental_dtypes : Dtype.t list

(** Mantissa bits of a float dtype. *)
val mantissa_bits : Dtype.t -> int

(** Exponent bias of a float dtype (fnuz fp8s have one more). *)
val exponent_bias : Dtype.t -> int

(** All-ones mask of the exponent field of a float dtype. *)
val exponent_mask : Dtype.t -> int

(** [shr x y] is [x // 2**y] (FLOORDIV by a constant). *)
val shr : Uop.t -> int -> Uop.t

(** [shl x y] is [x * 2**y]. *)
val shl : Uop.t -> int -> Uop.t

(** [helpers.polyN]: Horner evaluation starting from a python [0.0]. *)
val poly_n : Uop.t -> float list -> Uop.t

(** Round a float to an int, halves away from zero. *)
val rintk : Uop.t -> Uop.t

(** [pow2if q float_dtype]: the float [2^q] built from its bits. *)
val pow2if : Uop.t -> Dtype.t -> Uop.t

(** Integer part of log2 of a normalized non-negative float. *)
val ilogb2k : Uop.t -> Uop.t

(** [ldexp3k d e]: [d * 2^e] by exponent addition ([e] a float holding an integer). *)
val ldexp3k : Uop.t -> Uop.t -> Uop.t

(** [ldexp2k d e]: [d * 2^e] by two multiplications ([e] an int). *)
val ldexp2k : Uop.t -> Uop.t -> Uop.t

(** [(mantissa, exponent)] of a non-zero float. *)
val frexp : Uop.t -> Uop.t * Uop.t

(** Payne-Hanek reduction modulo pi/2 for large arguments: [(r, quadrant)]. *)
val payne_hanek_reduction : Uop.t -> Uop.t * Uop.t

(** Cody-Waite reduction modulo pi/2 for [|d| <= 39800]: [(r, quadrant)]. *)
val cody_waite_reduction : Uop.t -> Uop.t * Uop.t

(** Sine polynomial on [-pi/2, pi/2]. *)
val sin_poly : Uop.t -> Uop.t

(** [xsin ?fast ?switch_over d]: SIN decomposed (fast: Cody-Waite only; switch_over 30.0). *)
val xsin : ?fast:bool -> ?switch_over:float -> Uop.t -> Uop.t

(** EXP2 decomposed. *)
val xexp2 : Uop.t -> Uop.t

(** Not in tinygrad: float32 exp2 with its input clamped to [-150, 128] and one select (NaN) after the polynomial;
    the CPU mode's EXP2 ([Codegen_cpu.decomp_exp2]). *)
val xexp2_clamped : Uop.t -> Uop.t

(** LOG2 decomposed. *)
val xlog2 : Uop.t -> Uop.t

(** [base ** exponent] through exp2/log2 (this is {!Symbolic.xpow}: it stays in symbolic.ml, which must not
    depend on codegen). *)
val xpow : Uop.t -> Uop.t -> Uop.t

(** [get_transcendental_patterns ops force]: rules replacing EXP2/LOG2/SIN (and SQRT by [xpow 0.5]) that
    are not in [ops], or all of them when [force]. Cached per arguments. *)
val get_transcendental_patterns : Ops.t list -> bool -> Renderer.t Upat.matcher
