(** tinygrad for OCaml. [open Tinygrad] gives what a program needs: {!Tensor} (lazy tensors with autograd),
    {!Dtype}, {!Device}, the layers and optimizers ({!Nn}, {!Optim}), weights ({!State}), datasets
    ({!Datasets}), the JIT ({!Tiny_jit}), counters ({!Global_counters}) and knobs ({!Context}). The compiler's
    modules (UOps, rewrite rules, scheduler, codegen, renderers, runtimes) are under {!Compiler}, one module
    per tinygrad file, for readers and tools. *)

(** Lazy tensors: creation, ops, autograd, realize, data in and out. *)
module Tensor = Tensor

(** Scalar dtypes and promotion. *)
module Dtype = Dtype

(** Devices, buffers and the default device. *)
module Device = Device

(** Layers (Linear, Conv2d, BatchNorm, LayerNorm, Embedding, ...). *)
module Nn = Nn

(** Optimizers (SGD, Adam, ...). *)
module Optim = Optim

(** Learning-rate schedulers (OneCycleLR). *)
module Lr_scheduler = Lr_scheduler

(** State dicts and safetensors. *)
module State = State

(** MNIST-style IDX datasets. *)
module Datasets = Datasets

(** Capture a step's kernels once, replay them. *)
module Tiny_jit = Tiny_jit

(** Variables for symbolic shapes: named bounded ints, bound to a value for a run. *)
module Variable = Variable

(** Symbolic ints: the dimensions of symbolic shapes ({!Tensor.Sym}). *)
module Sint = Sint

(** Kernels run, operations, memory. *)
module Global_counters = Global_counters

(** Knobs: environment variables read once (tinygrad's names), overridable for a scope with {!Context.run}:
    [Context.run [ Bind (Context.debug, 4) ] f] is tinygrad's [with Context(DEBUG=4): f()]. *)
module Context : sig
  (** A knob and its current value. *)
  type 'a var = 'a Helpers.context_var = private { key : string; mutable value : 'a }

  (** A knob and the value it takes inside {!run}. *)
  type binding = Helpers.binding = Bind : 'a var * 'a -> binding

  (** [CPU_OPT]: tinygrad's CPU kernels byte for byte, or the faster ones (the default). *)
  type cpu_opt = Helpers.cpu_opt = Cpu_tinygrad | Cpu_fast

  (** Runs the function with the knobs set, restoring them afterwards (also on exceptions). *)
  val run : binding list -> (unit -> 'a) -> 'a

  (** Sets a knob from now on. *)
  val set : 'a var -> 'a -> unit

  (** [DEBUG]: 2 prints a line per kernel, 4 the generated source. *)
  val debug : int var

  (** [NOOPT]: 1 turns kernel optimizations off. *)
  val noopt : int var

  (** [BEAM]: the width of the beam search over kernel optimizations (0: heuristics). *)
  val beam : int var

  (** [JIT]: 0 makes {!Tiny_jit} run the function every time. *)
  val jit : int var

  (** [TRAINING]: dropout and friends are active. *)
  val training : int var

  (** [CPU_OPT]: see {!cpu_opt}. *)
  val cpu_opt : cpu_opt var

  (** [CPU_VEC]: the CPU vector width in floats (0: the host's). *)
  val cpu_vec : int var

  (** [THREADS]: 0 keeps CPU kernels on one core. *)
  val threads : int var

  (** [SPEC]: 1 verifies UOp graphs at each stage (tinygrad's type_verify). *)
  val spec : int var
end

(** The compiler, one module per tinygrad file. *)
module Compiler : sig
  module Allreduce = Allreduce
  module Buffers = Buffers
  module Callify = Callify
  module Coalesce = Coalesce
  module Codegen = Codegen
  module Codegen_cpu = Codegen_cpu
  module Compiler_cpu = Compiler_cpu
  module Cstyle = Cstyle
  module Datasets = Datasets
  module Decomp_dtype = Decomp_dtype
  module Decomp_op = Decomp_op
  module Device = Device
  module Divandmod = Divandmod
  module Dtype = Dtype
  module Gater = Gater
  module Global_counters = Global_counters
  module Gpu_errors = Gpu_errors
  module Gpu_launch = Gpu_launch
  module Gpudims = Gpudims
  module Gradient = Gradient
  module Helpers = Helpers
  module Heuristic = Heuristic
  module Heuristic_cpu = Heuristic_cpu
  module Id_tbl = Id_tbl
  module Indexing = Indexing
  module Inflate = Inflate
  module Linearizer = Linearizer
  module Lr_scheduler = Lr_scheduler
  module Memory = Memory
  module Mixin_creation = Mixin_creation
  module Mixin_dtype = Mixin_dtype
  module Mixin_elementwise = Mixin_elementwise
  module Mixin_intf = Mixin_intf
  module Mixin_movement = Mixin_movement
  module Mixin_op = Mixin_op
  module Mixin_rand = Mixin_rand
  module Mixin_reduce = Mixin_reduce
  module Movement = Movement
  module Multi = Multi
  module Nn = Nn
  module Ops = Ops
  module Ops_cpu = Ops_cpu
  module Ops_emu = Ops_emu
  module Opt = Opt
  module Optim = Optim
  module Pickle = Pickle
  module Postrange = Postrange
  module Rangeify = Rangeify
  module Realize = Realize
  module Realize_cache = Realize_cache
  module Render = Render
  module Renderer = Renderer
  module Schedule = Schedule
  module Search = Search
  module Search_cpu = Search_cpu
  module Simplify = Simplify
  module Sint = Sint
  module Spec = Spec
  module State = State
  module Symbolic = Symbolic
  module Tc = Tc
  module Tensor = Tensor
  module Tensor_base = Tensor_base
  module Tiny_jit = Tiny_jit
  module Transcendental = Transcendental
  module Uop = Uop
  module Upat = Upat
  module Variable = Variable
  module Weak = Weak
end
