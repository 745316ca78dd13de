(** Helpers shared by the symbolic test ports ([test_uop_symbolic], [test_simplify_valid_idx],
    [test_simplify_ranges]): Python's operators on UOps, tinygrad's [check_uop_against_string] and a UOp
    evaluator used in place of z3. *)

open Tinygrad.Compiler

(** Python's operators on UOps ([Uop.O] without its [b]/[f] literals): [land lor lxor lsl lsr] are
    [& | ^ << >>], [<>] is [!=], [i] is [Uop.const_int]. *)
module O : sig
  (** [a + b] *)
  val ( + ) : Uop.t -> Uop.t -> Uop.t

  (** [a - b] *)
  val ( - ) : Uop.t -> Uop.t -> Uop.t

  (** [a * b] *)
  val ( * ) : Uop.t -> Uop.t -> Uop.t

  (** [a // b] *)
  val ( / ) : Uop.t -> Uop.t -> Uop.t

  (** [a % b] *)
  val ( mod ) : Uop.t -> Uop.t -> Uop.t

  (** [a < b] *)
  val ( < ) : Uop.t -> Uop.t -> Uop.t

  (** [a > b] *)
  val ( > ) : Uop.t -> Uop.t -> Uop.t

  (** [a <= b] *)
  val ( <= ) : Uop.t -> Uop.t -> Uop.t

  (** [a >= b] *)
  val ( >= ) : Uop.t -> Uop.t -> Uop.t

  (** [a != b] *)
  val ( <> ) : Uop.t -> Uop.t -> Uop.t

  (** [a & b] *)
  val ( land ) : Uop.t -> Uop.t -> Uop.t

  (** [a | b] *)
  val ( lor ) : Uop.t -> Uop.t -> Uop.t

  (** [a ^ b] *)
  val ( lxor ) : Uop.t -> Uop.t -> Uop.t

  (** [a << b] *)
  val ( lsl ) : Uop.t -> Uop.t -> Uop.t

  (** [a >> b] *)
  val ( lsr ) : Uop.t -> Uop.t -> Uop.t

  (** [-a] *)
  val ( ~- ) : Uop.t -> Uop.t

  (** [Uop.const_int] *)
  val i : ?dtype:Dtype.t -> int -> Uop.t
end

(** [Render.render ~simplify:false]. *)
val render : Uop.t -> string

(** The name [check_uop_against_string] gives a variable ([v.render()] of RANGE, SPECIAL and PARAM), or [None]. *)
val var_name : Uop.t -> string option

(** tinygrad's [check_uop_against_string v s]: [s] evaluated as Python with [v]'s variables, canonicalised with
    [commutative], must be [v] itself; fails the test otherwise. *)
val check_uop_against_string : Uop.t -> string -> unit

(** The value of a [CAST] to [dt] of a constant (C semantics: floats truncate toward zero, bools are 0/1). *)
val cast_value : Dtype.t -> Dtype.const -> Dtype.const

(** [eval_uop ?truncate_output leaf u]: the value of [u], with [leaf x] giving the value of a variable (checked
    first at every node); other nodes are CONST, AFTER, CAST, BITCAST, WHERE or ALU ([Uop.exec_alu ?truncate_output]). *)
val eval_uop : ?truncate_output:bool -> (Uop.t -> Dtype.const option) -> Uop.t -> Dtype.const
