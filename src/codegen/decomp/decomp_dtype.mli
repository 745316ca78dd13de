(** Emulation of dtypes a renderer lacks. tinygrad: [codegen/decomp/dtype.py]: long (int64/uint64) as two 32-bit
    words ([l2i], [pm_long_decomp]), and floats (fp8s, half, bfloat16, ...) stored as their bits and computed in a
    wider float ([f2f], [pm_float_decomp]). *)

(** tinygrad's [(set(), ren)]: the dtypes seen so far, and the renderer. *)
type ctx = (Dtype.t, unit) Hashtbl.t * Renderer.t

(** {1 long as 2 ints} *)

(** [l2i_dt]: int64 -> int32, uint64 -> uint32. *)
val l2i_dt : Dtype.t -> Dtype.t

(** [unpack32 v]: the low and high 16 bits of a 32-bit word, as uint32. *)
val unpack32 : Uop.t -> Uop.t * Uop.t

(** [reindex ?mul idx off]: [idx] with its index [i] replaced by [i*mul+off] (a SHRINK becomes an INDEX). *)
val reindex : ?mul:int -> Uop.t -> int -> Uop.t

(** What [l2i] builds: a (low, high) word pair, or a single value (comparisons, casts out of long). *)
type l2i_res = Pair of Uop.t * Uop.t | One of Uop.t

(** [l2i op dt words]: [op] on longs given as 32-bit words (dt is the word dtype, or the cast target). *)
val l2i : Ops.t -> Dtype.t -> Uop.t list -> l2i_res

(** The memo of [split_l2i] for one pass. *)
type long_ctx = (Ops.t * Dtype.t * int list, l2i_res) Hashtbl.t

(** [split_l2i ctx op dt uops]: decompose the (tagged) inputs to words, then [l2i]; memoised in [ctx]. *)
val split_l2i : long_ctx -> Ops.t -> Dtype.t -> Uop.t list -> l2i_res

(** The long decomposition rules (tags [(word, dtype)] say which word a node becomes). *)
val pm_long_decomp : long_ctx Upat.matcher

(** {1 floats} *)

(** [f2f_dt]: the unsigned int dtype of a float's width. *)
val f2f_dt : Dtype.t -> Dtype.t

(** [rne v s]: [v >> s] rounded to nearest even. *)
val rne : Uop.t -> int -> Uop.t

(** [f2f ?sat v fr to_]: convert the bits [v] of a [fr] value to [to_] (widening returns a [to_] value, narrowing
    the bits of one). Denormals are flushed to zero. *)
val f2f : ?sat:bool -> Uop.t -> Dtype.t -> Dtype.t -> Uop.t

(** [f2f_clamp ?sat v dt]: clamp [v] to the finite range of [dt] (saturating for fp8s). *)
val f2f_clamp : ?sat:bool -> Uop.t -> Dtype.t -> Uop.t

(** [f2f_load pm x fr to_]: a LOAD of [fr] values as loads of their bits converted to [to_]; [pm] (the float
    decomposition) rewrites the load's index first. *)
val f2f_load : (Dtype.t * Dtype.t) Upat.matcher -> Uop.t -> Dtype.t -> Dtype.t -> Uop.t

(** [f2f_store st idx v fr to_]: a STORE of [to_] values as stores of their [fr] bits. *)
val f2f_store : Uop.t -> Uop.t -> Uop.t -> Dtype.t -> Dtype.t -> Uop.t

(** The float decomposition rules; the context is [(fr, to_)]. *)
val pm_float_decomp : (Dtype.t * Dtype.t) Upat.matcher

(** {1 The pass} *)

(** The dtypes named in EMULATED_DTYPES ({!Helpers.emulated_dtypes}). *)
val emulated_dtypes : unit -> Dtype.t list

(** Emulate the collected dtypes the renderer does not support (or that EMULATED_DTYPES names), then clear the set. *)
val do_dtype_decomps : Uop.t -> ctx -> Uop.t

(** The pass: collect fp8/bf16/half/long dtypes, then [do_dtype_decomps] on the SINK. *)
val pm_dtype_decomps : ctx Upat.matcher
