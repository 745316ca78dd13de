(** The replay harness of the golden op suite (/work/shared/golden/ops, see its README.md): loads the manifest's
    cases, feeds their stored inputs to an OCaml translation of the test's tinygrad lambda, and compares the output
    (and the gradients of [sum(out)]) with tinygrad's stored values under the stored tolerances. tinygrad:
    [test/backend/test_ops.py] [helper_test_op] / [compare] / [helper_test_exception]. *)

(** The case's [closure.tinygrad] values (the free variables of the lambda at call time). *)
type closure

(** An int closure value ([Failure] when absent or not an int). *)
val cl_int : closure -> string -> int

(** A float closure value (ints widen; "nan"/"inf"/"-inf" strings decode). *)
val cl_float : closure -> string -> float

(** A bool closure value. *)
val cl_bool : closure -> string -> bool

(** A str closure value. *)
val cl_str : closure -> string -> string

(** An int list/tuple closure value (inline or stored as npy; nested lists are flattened in C order). *)
val cl_ints : closure -> string -> int list

(** A float list/tuple closure value (inline or stored as npy; nested lists are flattened in C order). *)
val cl_floats : closure -> string -> float list

(** A tensor closure value: loads the npy stored for it (its dtype and shape; cast back to tinygrad's weak dtype
    when [orig_dtype] names one). *)
val cl_tensor : closure -> string -> Tinygrad.Tensor.t

(** A list/tuple of tensors closure value. *)
val cl_tensors : closure -> string -> Tinygrad.Tensor.t list

(** Whether the closure has that name (a [None] value counts as present; see {!cl_is_none}). *)
val cl_has : closure -> string -> bool

(** Whether the closure value is Python's [None]. *)
val cl_is_none : closure -> string -> bool

(** The raw JSON of a closure value (for dicts, nested lists, functions). *)
val cl_json : closure -> string -> Golden.json

(** The translation of one test function: [fwd closure call_index inputs] is the tinygrad lambda of that helper
    call applied to the case's inputs (in order). Exception cases must raise [Invalid_argument]. *)
type fwd = closure -> int -> Tinygrad.Tensor.t list -> Tinygrad.Tensor.t

(** A .npy array as a tensor of its dtype and shape. *)
val tensor_of_npy : Npy.t -> Tinygrad.Tensor.t

(** The golden op-suite directory ($GOLDEN_OPS or /work/shared/golden/ops). *)
val ops_dir : unit -> string

(** One recorded case of the manifest. *)
type case = {
  case_id : string;          (** e.g. ["test_abs__0"] *)
  test_name : string;        (** the key of the translations: ["test_abs"], ["TestOpsUint8.test_cast"] *)
  call_index : int;          (** the helper call's index within its test function *)
  category : string;         (** the manifest's coarse category *)
  kind : string;             (** ["op"] or ["exception"] *)
  inputs : string list;      (** input file names, in order *)
  grad_inputs : bool list;   (** whether each input requires grad *)
  out_file : string option;  (** ["out.npy"] for op cases *)
  out_dtype : string option; (** tinygrad's dtype of the output, e.g. ["dtypes.weakfloat"] (numpy stores its strong form) *)
  atol : float; rtol : float; grad_atol : float; grad_rtol : float;
  grads : (string * int) list;  (** (grad file, input index) when [grads_computed] *)
  closure : closure;
}

(** The recorded cases of the manifest, in manifest order ([] when the suite is absent). *)
val cases : unit -> case list

(** The manifest's category of each test function key (as {!case.test_name}), with the test's status. *)
val test_categories : unit -> (string * string * string) list

(** The outcome of one part of a case. *)
type outcome = Pass | Fail of string | Not_run of string

(** [compare_arrays ?tg_dtype ~atol ~rtol ~what actual golden]: upstream's [compare]: same shape, same dtype (tinygrad's
    [tg_dtype] name when given, else the npy dtype), floats allclose with equal NaN positions and exact infinities,
    ints/bools exactly equal. [None] when they match. *)
val compare_arrays :
  ?tg_dtype:string -> atol:float -> rtol:float -> what:string -> Tinygrad.Tensor.t -> Npy.t -> string option

(** [run_case fwd c]: (forward outcome, gradient outcome). The gradient is [Not_run] when the case computes no
    gradients or Tensor.backward is missing. *)
val run_case : fwd -> case -> outcome * outcome
