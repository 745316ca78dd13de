(** An evaluator for tinygrad's [pyrender] format (uop/render.py): the Python text [DEBUG=5] prints and the
    golden corpus stores as a kernel's [ast], e.g. [c3 = UOp.range(6, 5, AxisType.WEAK)] ... [ast = c50.sink(arg=...)].
    It rebuilds the UOp graph with the Uop builders, Python's operators mapping to Uop's elementwise sugar. *)

(** Raised on a syntax error, an unknown name/method or an unsupported construct (message says which). *)
exception Error of string

(** [eval_program s] runs the assignments in [s] and returns the bindings, in order. *)
val eval_program : string -> (string * Tinygrad.Compiler.Uop.t) list

(** [parse_ast s] is the UOp bound to [ast] by [s] (the last binding when there is no [ast]). *)
val parse_ast : string -> Tinygrad.Compiler.Uop.t

(** [eval_expr env s] evaluates one expression with the names of [env] bound. *)
val eval_expr : (string * Tinygrad.Compiler.Uop.t) list -> string -> Tinygrad.Compiler.Uop.t
