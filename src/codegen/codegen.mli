(** The kernel code generation pipeline. tinygrad: [codegen/__init__.py] (and [ProgramInfo.from_sink] from
    [uop/ops.py]). A kernel AST (a SINK with KernelInfo) goes through [full_rewrite_to_sink] (optimization, expansion,
    reduce removal, devectorization, index lowering, decompositions), is linearized, and rendered. *)

(** tinygrad's [pm_number_params]: PARAMs with slot -1 get the next slot (the context is the counter). *)
val pm_number_params : int ref Upat.matcher

(** tinygrad's [build_range_map]: UNROLL/UPCAST axis id -> position of its expanded axis. *)
val build_range_map : Uop.t -> (int, int) Hashtbl.t

(** tinygrad's [expander2]: UNROLL/UPCAST ranges become shaped constants, REDUCEs over them horizontal. *)
val expander2 : (int, int) Hashtbl.t Upat.matcher

(** tinygrad's [pm_expand_broadcast]: sources of ALUs and STOREs are expanded to the broadcast shape. *)
val pm_expand_broadcast : unit Upat.matcher

(** tinygrad's [ew_devectorizer]: elementwise ops on shaped values become STACKs of scalar ops. *)
val ew_devectorizer : unit Upat.matcher

(** tinygrad's [devectorizer2]: [ew_devectorizer] for loads/stores too, and INDEX/RESHAPE/EXPAND unpacking. *)
val devectorizer2 : unit Upat.matcher

(** tinygrad's [ReduceContext]: the number of REG accumulators made so far; [reduce_to_acc] (not in
    tinygrad): the CPU mode's accumulators ({!Codegen_cpu.reduce_to_vector_acc}), tried before tinygrad's. *)
type reduce_context = { mutable acc_num : int; reduce_to_acc : Codegen_cpu.reduce_to_acc option }

(** tinygrad's [pm_reduce_local]: REDUCEs become REG accumulators (init, update, mergeable END). *)
val pm_reduce_local : reduce_context Upat.matcher

(** tinygrad's [pm_add_loads]: memory read by ALUs and STOREs gets an explicit LOAD. *)
val pm_add_loads : unit Upat.matcher

(** tinygrad's [pm_add_local_buffers]: a STAGE becomes a buffer (ctx: the next slot, [itertools.count(0)]). *)
val pm_add_local_buffers : int ref Upat.matcher

(** tinygrad's [pm_cast_float_alu]: SIN/LOG2/EXP2/SQRT/RECIPROCAL get an operand of their own (float) dtype. *)
val pm_cast_float_alu : unit Upat.matcher

(** tinygrad's [pm_implicit_barriers]: barriers for LOCAL memory read-after-write and write-after-read. *)
val pm_implicit_barriers : unit Upat.matcher

(** tinygrad's [pm_casted_consts]: every CONST of a concrete dtype becomes [CAST(dt, CONST(value))]. *)
val pm_casted_consts : unit Upat.matcher

(** Not in tinygrad: the passes of a kernel for a renderer: the CPU mode's where [Renderer.cpu_fast] holds, else
    tinygrad's. *)
val passes : Renderer.t -> Codegen_cpu.passes

(** The heuristic the pipeline applies to a kernel: [Heuristic_cpu]'s under the CPU mode, else tinygrad's. *)
val hand_coded_optimizations : Postrange.t -> Postrange.t

(** The heuristic the pipeline applies to a kernel with a STAGE for a renderer: [Heuristic_cpu]'s under the
    CPU mode, none (no opts) else. *)
val multiblock_optimizations : Renderer.t -> (Postrange.t -> Postrange.t) option

(** tinygrad's [full_rewrite_to_sink ast ren optimize]: every codegen pass, in tinygrad's order. *)
val full_rewrite_to_sink : ?optimize:bool -> Uop.t -> Renderer.t -> Uop.t

(** tinygrad's [pm_linearize_cleanups] as a line rule: a gated STORE becomes IF, STORE, ENDIF. *)
val pm_linearize_cleanups : Uop.t -> (Uop.t * Uop.t list) option

(** tinygrad's [line_rewrite]: rewrite a toposorted list line by line (a rule may expand one line to several). *)
val line_rewrite : Uop.t list -> (Uop.t -> (Uop.t * Uop.t list) option) -> Uop.t list

(** tinygrad's [ProgramInfo.from_sink]: name, launch dims, variables and param slots of a rewritten sink. *)
val program_info_from_sink : Uop.t -> Uop.program_info

(** tinygrad's [pm_to_program]: PROGRAM(SINK) -> +LINEAR -> estimates -> +SOURCE. *)
val pm_to_program : Renderer.t Upat.matcher

(** tinygrad's [do_to_program]: a kernel AST (or PROGRAM) to PROGRAM(SINK, LINEAR, SOURCE). *)
val do_to_program : Uop.t -> Renderer.t -> Uop.t

(** tinygrad's [to_program]: [do_to_program], cached per AST and renderer device. *)
val to_program : Uop.t -> Renderer.t -> Uop.t

(** Empties the [to_program] cache (tinygrad: [to_program.cache_clear()]). *)
val clear_program_cache : unit -> unit

(** The SOURCE text of a PROGRAM; raises [Invalid_argument] when it has none. *)
val program_source : Uop.t -> string

(** The rendered source text of a kernel AST (the SOURCE of [to_program]). *)
val get_program_source : Uop.t -> Renderer.t -> string
