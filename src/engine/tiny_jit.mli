(** TinyJit: capture a step function on its second call and replay it from the third. tinygrad: [engine/jit.py]
    (TinyJit / _TinyJit, CapturedJit, _prepare_jit_inputs, jit_lower, prune_linear, _copy_input). The function's
    inputs are the tensors of the list it is called with; it is replayed with the new inputs' buffers, and returns
    the value captured on the second call (whose tensors the replay overwrites). Graph runners are not ported: the
    captured calls run one by one; the capture is compiled with BEAM=JITBEAM (default BEAM). JIT=0 runs the function every time. *)

(** tinygrad [JitError]: nothing captured, duplicate or virtual inputs, reading tensor data while capturing. *)
exception Jit_error of string

(** A captured step (tinygrad [CapturedJit]). *)
type 'r captured

(** A JIT-wrapped function returning ['r] (tinygrad [_TinyJit]). *)
type 'r t

(** [make ~outputs f]: the JIT of [f]; [outputs] gives the tensors of a result to realize after each run
    (tinygrad realizes [get_parameters(ret)]). [prune] runs once the calls that do not depend on the inputs. *)
val make : ?prune:bool -> outputs:('r -> Tensor.t list) -> (Tensor.t list -> 'r) -> 'r t

(** [create f]: the JIT of a function returning one tensor. *)
val create : ?prune:bool -> (Tensor.t list -> Tensor.t) -> Tensor.t t

(** [create_list f]: the JIT of a function returning tensors. *)
val create_list : ?prune:bool -> (Tensor.t list -> Tensor.t list) -> Tensor.t list t

(** [create_unit f]: the JIT of a function run for its effects (assigns). *)
val create_unit : ?prune:bool -> (Tensor.t list -> unit) -> unit t

(** {1 Bound Variables as arguments}
    A function that also takes bound Variables ({!Variable.bind}), as tinygrad's jitted functions take
    [start_pos]: it receives the tensors and the bound Variables of {!call_v}, is captured once, and every replay
    runs the captured kernels with the Variables' new values (tinygrad [_prepare_jit_inputs]: the values come from
    the bound-Variable arguments and from the symbolic shapes of the input tensors). *)

(** [make_v ~outputs f]: {!make} for a function of tensors and bound Variables. *)
val make_v : ?prune:bool -> outputs:('r -> Tensor.t list) -> (Tensor.t list -> Sint.t list -> 'r) -> 'r t

(** {!create} for a function of tensors and bound Variables. *)
val create_v : ?prune:bool -> (Tensor.t list -> Sint.t list -> Tensor.t) -> Tensor.t t

(** {!create_list} for a function of tensors and bound Variables. *)
val create_list_v : ?prune:bool -> (Tensor.t list -> Sint.t list -> Tensor.t list) -> Tensor.t list t

(** {!create_unit} for a function of tensors and bound Variables. *)
val create_unit_v : ?prune:bool -> (Tensor.t list -> Sint.t list -> unit) -> unit t

(** [call_v j inputs vars]: {!call} with bound Variables [vars] (each must be a {!Variable.bind} result, else
    [Invalid_argument]); a replay needs the same Variables (by name, in order), bound to any values in their
    bounds, and the same Variable bound to one value in [vars] and in the inputs' shapes. *)
val call_v : 'r t -> Tensor.t list -> Sint.t list -> 'r

(** [call j inputs]: run (1st call), capture (2nd) or replay (3rd on). Unrealized inputs are realized first.
    [Invalid_argument] when the inputs' number, shapes, views, dtypes or devices differ from the captured ones;
    {!Jit_error} on duplicate or device-less inputs, or when the capture realized nothing; [Failure] for a JIT
    called while another captures. [call j inputs] is [call_v j inputs []]. *)
val call : 'r t -> Tensor.t list -> 'r

(** tinygrad [_TinyJit.reset]: forget the capture; the next call runs the function again. *)
val reset : 'r t -> unit

(** The number of calls so far (tinygrad [cnt]). *)
val cnt : 'r t -> int

(** The capture, once made. *)
val captured : 'r t -> 'r captured option

(** A JIT replaying a capture (tinygrad [TinyJit(None, captured)]); it cannot be reset. *)
val of_captured : outputs:('r -> Tensor.t list) -> 'r captured -> 'r t

(** The captured, compiled LINEAR of calls. *)
val captured_linear : 'r captured -> Uop.t

(** The number of calls in the captured LINEAR, 0 before capture (tinygrad's [assert_jit_cache_len] count). *)
val jit_cache_len : 'r t -> int

(** tinygrad [CapturedJit.free_intermediates]: deallocate the buffers the capture writes (reallocated on the
    next replay). *)
val free_intermediates : 'r captured -> unit

(** tinygrad [prune_linear linear needed]: (the calls depending on the [needed] buffers, the others). *)
val prune_linear : Uop.t -> Uop.t list -> Uop.t * Uop.t

(** tinygrad [jit_lower linear held_bufs input_uops]: inputs to PARAMs, memory plan, compile. *)
val jit_lower : Uop.t -> Uop.t list -> Uop.t list -> Uop.t
