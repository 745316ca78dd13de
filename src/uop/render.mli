(** Rendering UOps as short Python-like expressions. tinygrad: [uop/render.py] and [UOp.render].

    Linking this module sets [Uop.render_hook], so [Uop.render] works. *)

(** Strings already rendered for the nodes seen so far, keyed by node identity. *)
type ctx = string Uop.Tbl.t

(** tinygrad's [renderer]: the string for one node, its sources already in the context. *)
val renderer : ctx -> Uop.t -> string

(** tinygrad's [renderer_infer]: [renderer] with div/mod, casts and bitcasts as Python calls. *)
val renderer_infer : ctx -> Uop.t -> string

(** tinygrad's [UOp.render(simplify, pm)]: simplify (default true), then render every node in toposort order. *)
val render_with : ?simplify:bool -> (ctx -> Uop.t -> string) -> Uop.t -> string

(** tinygrad's [UOp.render()] with [renderer], e.g. ["(a*4+b)"], ["max(a, b)"], ["(x if c else y)"]. *)
val render : ?simplify:bool -> Uop.t -> string

(** [render] with [renderer_infer]. *)
val render_infer : ?simplify:bool -> Uop.t -> string

(** tinygrad's [pyrender]: Python source that rebuilds the graph ([c<i> = ...] lines, the root as [ast = ...]);
    what [DEBUG>=5] prints for a kernel AST and the golden corpus stores. *)
val pyrender : Uop.t -> string

(** The text [print_uops] prints: one line per UOp of a linearized program (index, op, ranges, dtype, sources, arg). *)
val uops_str : Uop.t list -> string

(** tinygrad's [print_uops]: prints [uops_str] to stdout. *)
val print_uops : Uop.t list -> unit

(** tinygrad's [multirange_str(rngs, color=True, pad)]: the ranges' ids, colored by axis type, sorted. *)
val multirange_str : ?pad:int -> Uop.t list -> string
