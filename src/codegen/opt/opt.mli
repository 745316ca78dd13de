(** Kernel optimisation actions. tinygrad: [codegen/opt/__init__.py]. *)

(** The kinds of optimisation, in tinygrad's order (the order is used for sorting). [BLOCK] is not in tinygrad: under
    CPU_OPT=fast on the CPU, an output loop split into a block whose outer loop runs above all the kernel's other
    loops ([Postrange.apply_opt]); rejected elsewhere. [OVERLAP] is not in tinygrad either: under
    CPU_OPT=fast, an output loop covered by overlapping tiles of upcast lanes, the last one ending at the
    loop's end. *)
type opt_ops = TC | UPCAST | UNROLL | LOCAL | THREAD | GROUP | GROUPTOP | NOLOCALS | PADTO | SWAP | BLOCK
             | OVERLAP

(** The argument of an Opt: none, an amount, or the tensor-core selection triple. *)
type opt_arg = No_arg | Int of int | Tc of int * int * int

(** One optimisation: [Opt(op, axis, arg)]. *)
type t = { op : opt_ops; axis : int option; arg : opt_arg }

(** Raised when an opt cannot be applied. tinygrad: [KernelOptError]. *)
exception Kernel_opt_error of string

(** [check cond msg] raises [Kernel_opt_error msg] unless [cond]. *)
val check : bool -> string -> unit

(** ["OptOps.UPCAST"]. *)
val opt_ops_to_string : opt_ops -> string

(** Python repr: ["Opt(op=OptOps.UPCAST, axis=0, arg=4)"]. *)
val to_string : t -> string

(** tinygrad's dataclass ordering (op, axis, arg). *)
val compare : t -> t -> int

(** [on_axes op amts naxes]: [op] by each of [amts] on each of the first [naxes] axes (search.py's
    comprehensions of actions). *)
val on_axes : opt_ops -> int list -> int -> t list
