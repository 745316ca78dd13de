(** Tensor core descriptions. tinygrad: [codegen/opt/tc.py]. *)

(** (local_swizzle, upcast_swizzle, reduce_swizzle): names like ["l0"], ["u1"], ["r2"]. *)
type swizzle_part = string list * string list * string list

(** tinygrad [TensorCore]: D = A * B + C, A is (M x K), B is (K x N), C and D are (M x N). *)
type t = {
  dims : int * int * int;  (** N, M, K *)
  threads : int;  (** number of threads that construct the warp *)
  elements_per_thread : int * int * int;  (** elements per-thread to load/store from A/B/C *)
  dtype_in : Dtype.t;  (** dtype for A and B *)
  dtype_out : Dtype.t;  (** dtype for C and D *)
  opts : string list;  (** ordered "ux"/"lx" opts: upcast or localize dim x *)
  swizzle : swizzle_part * swizzle_part;
}

(** Builds a tensor core and runs tinygrad's [__post_init__] checks ([Invalid_argument] on failure). *)
val make :
  dims:int * int * int -> threads:int -> elements_per_thread:int * int * int -> dtype_in:Dtype.t -> dtype_out:Dtype.t ->
  opts:string list -> swizzle:swizzle_part * swizzle_part -> t

(** tinygrad [__post_init__] consistency checks. *)
val check : t -> unit

(** tinygrad [_remaps]: for each of the two sources, forward axis name -> swizzled axis name. *)
val remaps : t -> (string * string) list list

(** tinygrad [permutes_for_shape_str]: the permutations for sources 0 and 1. *)
val permutes_for_shape_str : t -> string list -> int list * int list

(** tinygrad [base_shape_str]: ["u0"; "l0"; ...] followed by the reduce axes ["r0"; ...]. *)
val base_shape_str : t -> string list

(** tinygrad [get_reduce_axes]: [(i, 2)] for each of the log2(K) reduce axes. *)
val get_reduce_axes : t -> (int * int) list

(** tinygrad [get_upcast_axes]: the "u" opts. *)
val get_upcast_axes : t -> string list

(** tinygrad [get_local_axes]: the "l" opts. *)
val get_local_axes : t -> string list

(** tinygrad [base_upcast_axes]: reduce then upcast axis names, reversed. *)
val base_upcast_axes : t -> string list

(** tinygrad [__str__]: ["WMMA_N_M_K_<in>_<out>"]. *)
val to_string : t -> string

(** floor(log2 n) for n >= 1. *)
val log2_int : int -> int

(** NVIDIA sm_75 tensor cores. *)
val cuda_sm75 : t list

(** NVIDIA sm_80 tensor cores. *)
val cuda_sm80 : t list

(** NVIDIA sm_89 tensor cores. *)
val cuda_sm89 : t list

(** tinygrad [get_cuda arch] (arch like ["sm_89"]). *)
val get_cuda : string -> t list

(** Apple Metal simdgroup matrix tensor cores. *)
val metal : t list
