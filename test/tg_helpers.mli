(** tinygrad's [test/helpers.py] codegen entry points shared by the ported tests. *)

(** tinygrad's [full_rewrite(sink, ren)]: [KernelInfo()] on an arg-less SINK, then [full_rewrite_to_sink]
    (optimizing unless the sink is tagged); [ren] defaults to the base renderer ([Renderer.default]). *)
val full_rewrite : ?ren:Tinygrad.Compiler.Renderer.t -> Tinygrad.Compiler.Uop.t -> Tinygrad.Compiler.Uop.t

(** [full_rewrite] inside tinygrad's [Context(NOOPT=1, SPEC=0)]. *)
val full_rewrite_noopt : ?ren:Tinygrad.Compiler.Renderer.t -> Tinygrad.Compiler.Uop.t -> Tinygrad.Compiler.Uop.t
