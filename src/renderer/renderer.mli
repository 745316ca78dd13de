(** The renderer interface and kernel cost estimates. tinygrad: [renderer/__init__.py]. *)

(** A renderer: tinygrad's [Renderer] class as a record of its options, with [render] as the method.
    [code_for_op] lists the ops the language renders natively (the decompositions test membership). *)
type t = {
  device : string;
  suffix : string;
  supports_float4 : bool;
  has_local : bool;
  has_threads : bool;
  has_shared : bool;
  global_max : int list option;
  local_max : int list option;
  global_prod_max : int list option;
  shared_max : int;
  tensor_cores : Tc.t list;  (** tinygrad [tensor_cores] *)
  code_for_op : Ops.t list;
  extra_matcher : t Upat.matcher option;
  supported_dtypes : Dtype.t list;  (** tinygrad's [supported_dtypes()] *)
  vector_width : int;
      (** Not in tinygrad: the float32 lanes of the target's widest vector register (4 unless the device says
          otherwise; the CPU device reads its host's when it opens: 16 with AVX-512F, 8 with AVX) *)
  render : t -> Uop.t list -> string;  (** render a linearized program *)
}

(** The defaults of tinygrad's base [Renderer] (its [render] fails with "needs a renderer"). *)
val default : t

(** [set(dtypes.all)] minus double when [Int64] is among the [emulated] dtypes. *)
val base_supported_dtypes : ?emulated:Dtype.t list -> unit -> Dtype.t list

(** [render r uops] is [r.render r uops]. *)
val render : t -> Uop.t list -> string

(** [supports r op] is [op in r.code_for_op]. *)
val supports : t -> Ops.t -> bool

(** Not in tinygrad: [r] renders CPU kernels under [CPU_OPT=fast], not NOOPT: the kernels that may deviate from
    tinygrad's for speed. The one question the kernel pipeline asks (Codegen.passes). *)
val cpu_fast : t -> bool

(** Not in tinygrad: {!cpu_fast} for the renderer of [device], for the scheduler's CPU-mode rewrites, which
    see a buffer's device and no renderer. *)
val cpu_fast_device : string -> bool

(** Not in tinygrad: the float32 vector lengths of the CPU mode, widest first: up to [CPU_VEC] lanes when set, else
    up to [r.vector_width] (16, 8, 4, 2). *)
val float_lengths : t -> int list

(** Kernel cost estimates. tinygrad: [Estimates]. *)
module Estimates : sig
  (** FLOPs, bytes loaded/stored, bytes of memory touched. *)
  type t = Uop.estimates = { ops : Uop.sint; lds : Uop.sint; mem : Uop.sint }

  (** All zero. *)
  val zero : t

  (** Field-wise sum ([__add__]). *)
  val add : t -> t -> t

  (** [ssimplify] of each field. *)
  val simplify : t -> t

  (** tinygrad [Estimates.from_uops] over a linearized program. *)
  val from_uops : ?ignore_indexing:bool -> Uop.t list -> t
end
