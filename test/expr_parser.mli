(** Evaluation of the small Python expression subset that tinygrad's symbolic tests use as expected
    values ([check_uop_against_string]): ints, floats, True/False, names, [+ - * // / % & | ^ << >> **],
    comparisons, unary minus, parentheses, [x if c else y], [max(a, b)] on numbers and the methods
    [.where .maximum .minimum .reciprocal .ne .eq .logical_not .trunc]. *)

(** A Python value: a number, a bool, or a UOp. *)
type value = Int of Z.t | Float of float | Bool of bool | U of Tinygrad.Compiler.Uop.t

(** Raised on a syntax error, an unknown name or an unsupported construct. *)
exception Error of string

(** [UOp.const] of a Python number ([UOp.ufix]); a UOp is returned as is. *)
val to_uop : value -> Tinygrad.Compiler.Uop.t

(** Python's [str] of a number, the pretty-printed UOp otherwise. *)
val to_string : value -> string

(** Binary operators, as Python spells them. *)
type binop = Add | Sub | Mul | Floordiv | Truediv | Mod | And | Or | Xor | Shl | Shr

(** Comparison operators. *)
type cmpop = Lt | Gt | Le | Ge | Ne | Eq

(** [binop op a b]: Python's [a op b] (a UOp operand builds a UOp with the Uop sugar). *)
val binop : binop -> value -> value -> value

(** [cmpop op a b]: Python's [a op b], with the reflected operator when only [b] is a UOp. *)
val cmpop : cmpop -> value -> value -> value

(** Python's [**] ([UOp.pow] when a UOp is involved). *)
val pow : value -> value -> value

(** Python's unary minus. *)
val neg : value -> value

(** [eval env s]: evaluate the expression [s] with [env] binding names to UOps. *)
val eval : (string * Tinygrad.Compiler.Uop.t) list -> string -> value
