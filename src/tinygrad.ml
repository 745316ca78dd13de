(* The library's entry point: what a program needs at the top, the compiler's modules under Compiler. *)

module Tensor = Tensor
module Dtype = Dtype
module Device = Device
module Nn = Nn
module Optim = Optim
module State = State
module Datasets = Datasets
module Tiny_jit = Tiny_jit
module Variable = Variable
module Sint = Sint
module Global_counters = Global_counters

module Context = struct
  type 'a var = 'a Helpers.context_var = { key : string; mutable value : 'a }
  type binding = Helpers.binding = Bind : 'a var * 'a -> binding
  type cpu_opt = Helpers.cpu_opt = Cpu_tinygrad | Cpu_fast
  let run = Helpers.context
  let debug = Helpers.debug
  let noopt = Helpers.noopt
  let beam = Helpers.beam
  let jit = Helpers.jit
  let training = Helpers.training
  let cpu_opt = Helpers.cpu_opt
  let cpu_vec = Helpers.cpu_vec
  let threads = Helpers.threads
  let spec = Helpers.spec
end

module Compiler = struct
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
  module Indexing = Indexing
  module Inflate = Inflate
  module Linearizer = Linearizer
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
