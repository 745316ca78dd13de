(** Variables: named ints with bounds that shapes and offsets may use, bound to a value for one run.
    tinygrad [Variable = UOp.variable] ([uop/ops.py] [variable], [bind], [unbind], [expr], [vmin]/[vmax]).

    [let i = Variable.create "i" 1 10] declares the Variable; [Variable.bind i 3] is a {!Sint.t} usable wherever a
    shape or offset is ({!Tensor.Sym}): kernels are compiled once for the Variable and take its value at run time,
    and {!Tiny_jit.call_v} captures once and replays for every bound value. *)

(** A Variable (unbound): a name and inclusive bounds. *)
type t

(** [create name min max]: a Variable taking values in [\[min, max\]]. [Invalid_argument] when [min > max] or the
    name is empty. tinygrad [Variable(name, min, max)]. *)
val create : string -> int -> int -> t

(** [bind v n]: the Variable bound to [n], as a shape or offset. [Invalid_argument] when [n] is out of bounds.
    tinygrad [UOp.bind]. *)
val bind : t -> int -> Sint.t

(** [unbind s]: the Variable and value of a bound Variable (as {!bind} returns it); other sints raise
    [Invalid_argument]. tinygrad [UOp.unbind]. *)
val unbind : Sint.t -> t * int

(** Whether the sint is a bound Variable. tinygrad [UOp.is_bound_var]. *)
val is_bound : Sint.t -> bool

(** The value of a bound Variable (tinygrad's [unbind()[1]]); other sints raise [Invalid_argument]. *)
val value : Sint.t -> int

(** The unbound Variable as a sint (its value supplied at realize time from a binding elsewhere in the graph). *)
val to_sint : t -> Sint.t

(** The name. tinygrad [UOp.expr]. *)
val name : t -> string

(** The inclusive bounds [(min, max)]. tinygrad [vmin], [vmax]. *)
val bounds : t -> int * int

(** The Variable's UOp (a 0-d BUFFER in the ALU address space). *)
val uop : t -> Uop.t

(** The Variable of a Variable UOp; other UOps raise [Invalid_argument]. *)
val of_uop : Uop.t -> t

(** The Variables a sint uses, sorted by name. tinygrad [UOp.variables]. *)
val variables : Sint.t -> t list

(** Same Variable (name, bounds: Variables are hash-consed). *)
val equal : t -> t -> bool

(** Format printer: the name and bounds. *)
val pp : Format.formatter -> t -> unit
