(** Rendering UOps as short Python-like expressions. tinygrad: [uop/render.py] and [UOp.render].

    Linking this module sets [Uop.render_hook], so [Uop.render] works. *)

(** Strings already rendered for the nodes seen so far, keyed by node identity. *)
type ctx = string Uop.Tbl.t

(** tinygrad's [strip_parens]: drop one pair of enclosing parentheses when they match each other. *)
val strip_parens : string -> string

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
