(** A symbolic int: a dimension or an offset that is an int or a UOp expression over Variables. tinygrad's [sint]
    ([int | UOp]) and the Python operators on it ([uop/ops.py] [ssimplify], [sym_infer], [UOp.__add__] ...).
    Shapes of {!Tensor.Sym} are arrays of [t]; results are simplified, and an expression that simplifies to a
    constant becomes [Sint]. *)

(** An int ([Sint]) or a symbolic expression ([Suop], an int UOp over Variables). tinygrad [sint]. *)
type t = Uop.sint = Sint of int | Suop of Uop.t

(** The int as a sint. *)
val of_int : int -> t

(** A UOp expression as a sint (an int CONST becomes [Sint]). *)
val of_uop : Uop.t -> t

(** The sint as a UOp (an int as a weak int CONST). tinygrad [sint_to_uop]. *)
val to_uop : t -> Uop.t

(** [Some i] for an int, [None] for a symbolic expression. *)
val to_int : t -> int option

(** The int; a symbolic expression raises [Invalid_argument]. *)
val to_int_exn : t -> int

(** Whether the sint is symbolic. *)
val is_symbolic : t -> bool

(** Sum. tinygrad [sint + sint]. *)
val ( + ) : t -> t -> t

(** Difference. tinygrad [sint - sint]. *)
val ( - ) : t -> t -> t

(** Product. tinygrad [sint * sint]. *)
val ( * ) : t -> t -> t

(** Floor division, tinygrad's [//] on sints (rounds toward minus infinity, as Python's; a FLOORDIV UOp when an
    operand is symbolic). Division by the int 0 raises [Invalid_argument]. *)
val ( / ) : t -> t -> t

(** The smallest and largest values the sint can take (the Variables' bounds). tinygrad [vmin] / [vmax]. *)
val bounds : t -> int * int

(** Equality: ints by value, expressions by identity after simplification (tinygrad's [==] on sints resolved
    without bounds). *)
val equal : t -> t -> bool

(** The value under an assignment of the Variables by name (a bound Variable takes its bound value when the
    assignment lacks it). tinygrad [sym_infer]. *)
val eval : ?var_vals:(string * int) list -> t -> int

(** The sint rendered as tinygrad renders it ([i+2], [(i*3)]). tinygrad [srender]. *)
val to_string : t -> string

(** Format printer. *)
val pp : Format.formatter -> t -> unit
