(* tinygrad's test/helpers.py: the codegen entry points tinygrad's tests share *)

open Tinygrad.Compiler

(* tinygrad: test/helpers.py full_rewrite — a SINK without an arg gets [KernelInfo()], then
   [full_rewrite_to_sink(sink, ren, optimize=sink.tag is None)]; the default renderer is the base [Renderer] *)
let full_rewrite ?(ren = Renderer.default) (sink : Uop.t) : Uop.t =
  let sink = match sink.arg with Uop.No_arg -> Uop.replace ~arg:(Uop.Kernel_info Uop.default_kernel_info) sink | _ -> sink in
  Codegen.full_rewrite_to_sink ~optimize:(match sink.tag with Uop.No_arg -> true | _ -> false) sink ren

(* [full_rewrite] under tinygrad's [Context(NOOPT=1, SPEC=0)] *)
let full_rewrite_noopt ?ren sink =
  Helpers.context [ Helpers.Bind (Helpers.noopt, 1); Helpers.Bind (Helpers.spec, 0) ] (fun () -> full_rewrite ?ren sink)
