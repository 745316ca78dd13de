(** Compile and run a LINEAR schedule. tinygrad: [engine/realize.py] (compile_linear, run_linear, exec_kernel,
    exec_copy, track_stats with Global_counters and the DEBUG=2 line). CPU (Clang) only; no JIT graphs. *)

(** tinygrad [get_call_arg_uops]: the call's buffer arguments (bound Variables left out). *)
val get_call_arg_uops : Uop.t -> Uop.t list

(** tinygrad [get_call_name]: the kernel name, or the copy description. *)
val get_call_name : Uop.t -> string

(** tinygrad [first_run_cache]: ASTs already shown by DEBUG=2 (the line is green the first time). *)
val first_run_cache : unit Uop.Tbl.t

(** tinygrad [get_runtime device prg]: the loaded program (compiled through the device's compiler cache). *)
val get_runtime : string -> Uop.t -> Device.program

(** tinygrad [pm_flatten_linear]: LINEARs inside a LINEAR are inlined. *)
val pm_flatten_linear : unit Upat.matcher

(** tinygrad [lower_and_compile]: every kernel SINK becomes its PROGRAM (one [Codegen.to_program] per AST). *)
val lower_and_compile : Uop.t -> Uop.t

(** tinygrad [compile_linear]: lower and compile every kernel, BEAM-searching their opts when [beam] (default: the
    BEAM context var) is at least 1. *)
val compile_linear : ?beam:int -> Uop.t -> Uop.t

(** tinygrad [run_linear linear var_vals]: compile (unless [jit]) and execute every call in order, updating
    [Global_counters] (unless [update_stats] is false) and printing the DEBUG=2 line. *)
val run_linear :
  ?var_vals:(string * int) list -> ?input_uops:Uop.t array -> ?update_stats:bool -> ?jit:bool -> ?wait:bool -> Uop.t -> unit

(** {1 Prepared launches}
    Not in tinygrad: a kernel call made ready once (program loaded, sizes, Variable values and argument arrays
    resolved) so that running it again only fills in its buffers. *)

(** A kernel call or a copy on one device, ready to run. *)
type prepared

(** [prepare ~var_vals call]: the compiled [call] (a CALL of a PROGRAM or a COPY, on one device) prepared for these
    Variable values; [None] for a call on several devices. *)
val prepare : var_vals:(string * int) list -> Uop.t -> prepared option

(** The arguments of a call that {!exec_prepared} takes the buffers of, in order: the ones its program's buffers
    are bound to (tinygrad: the [bufs] of [exec_kernel]), or a copy's destination and source. *)
val prepared_args : Uop.t -> Uop.t list

(** [exec_prepared p bufs] runs a prepared call on [bufs] (the buffers of {!prepared_args}, allocated first if
    needed) and counts the run in [Global_counters]. *)
val exec_prepared : prepared -> Device.Buffer.t array -> unit

(** {1 Buffer lifetime} *)

(** [internal_buffers ~held linear]: the BUFFERs that {!free_internal_buffers} frees, in order of first use. *)
val internal_buffers : held:Uop.t list -> Uop.t -> Uop.t list

(** Deallocates a base BUFFER's memory (into the allocator's cache) and forgets its Buffer, if it has one. *)
val free_buffer : Uop.t -> unit

(** [free_internal_buffers ~held linear]: after [linear] ran, deallocates (into the allocator's cache) every
    buffer its calls use that is not under one of [held], the arguments of the realize CALL: the memory planner's
    arenas and the buffers made for the schedule, which no tensor can reach. tinygrad frees them by refcount when
    the schedule is dropped. *)
val free_internal_buffers : held:Uop.t list -> Uop.t -> unit

(** {1 JIT capture} *)

(** tinygrad [JitError] (engine/jit.py): misuse of the JIT (re-exported as [Tiny_jit.Jit_error]). *)
exception Jit_error of string

(** tinygrad [capturing]: the [add_linear] of the JIT capturing now (at most one); while there is one (and
    CAPTURING=1) [Schedule.create_linear_with_vars] hands its LINEAR to it and returns an empty one. *)
val capturing : unit -> (Uop.t -> (string * int) list -> unit) option

(** [with_capturing add_linear f] runs [f] with [add_linear] as the JIT capturing (tinygrad:
    [capturing.append(self)] ... [capturing.clear()]), none again afterwards, even when [f] raises. *)
val with_capturing : (Uop.t -> (string * int) list -> unit) -> (unit -> 'a) -> 'a
