(** Emulation of dtypes a renderer lacks. tinygrad: [codegen/decomp/dtype.py]. Only the detection and the
    choice of what to emulate are ported; the long/float rewrites (l2i, f2f) are not yet and fail loudly. *)

(** tinygrad's [(set(), ren)]: the dtypes seen so far, and the renderer. *)
type ctx = (Dtype.t, unit) Hashtbl.t * Renderer.t

(** The dtypes named in the EMULATED_DTYPES environment variable. *)
val emulated_dtypes : unit -> Dtype.t list

(** Emulate the collected dtypes the renderer does not support (raises: not ported), then clear the set. *)
val do_dtype_decomps : Uop.t -> ctx -> Uop.t

(** The pass: collect fp8/bf16/half/long dtypes, then [do_dtype_decomps] on the SINK. *)
val pm_dtype_decomps : ctx Upat.matcher
