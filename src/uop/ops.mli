(** The UOp opcodes and their groups. tinygrad: [uop/__init__.py].

    Constructors follow tinygrad's declaration order, which is the tie-break order of toposort and
    linearize. *)

type t =
  | Special
  | Buffer
  | Noop
  | Rewrite_error
  | Param
  | Function
  | Call
  | Program
  | Linear
  | Source
  | Binary
  | Sink
  | After
  | Group
  | Stack
  | Tuple
  | Gettuple
  | Getaddr
  | Index
  | Shrink
  | Load
  | Store
  | Wmma
  | Cast
  | Bitcast
  | Exp2
  | Log2
  | Sin
  | Sqrt
  | Reciprocal
  | Neg
  | Trunc
  | Add
  | Mul
  | Shl
  | Shr
  | Cdiv
  | Max
  | Cmod
  | Cmplt
  | Cmpne
  | Cmpeq
  | Xor
  | Or
  | And
  | Threefry
  | Sub
  | Fdiv
  | Pow
  | Floordiv
  | Floormod
  | Where
  | Mulacc
  | Barrier
  | Range
  | If
  | End
  | Endif
  | Const
  | Custom
  | Customi
  | Ins
  | Contiguous
  | Contiguous_backward
  | Detach
  | Stage
  | Copy
  | Mselect
  | Mstack
  | Custom_function
  | Reshape
  | Permute
  | Expand
  | Pad
  | Flip
  | Unshard
  | Reduce
  | Allreduce
  | Pyliteral

(** Every op, in declaration order. *)
val all : t array

(** Number of ops (79). *)
val count : int

(** ["Ops.ADD"], as Python prints an op. *)
val to_string : t -> string

(** ["ADD"], the enum member name. *)
val name : t -> string

(** The enum value (1-based declaration index), used for ordering. *)
val value : t -> int

(** Order by declaration. *)
val compare : t -> t -> int

(** Identity. *)
val equal : t -> t -> bool

(** tinygrad's [GroupOp] sets, as lists and O(1) predicates. *)
module Group : sig

  (** EXP2 LOG2 SIN SQRT RECIPROCAL NEG TRUNC (CAST/BITCAST are not unary). *)
  val unary : t list

  (** The 19 binary ops. *)
  val binary : t list

  (** WHERE, MULACC. *)
  val ternary : t list

  (** Unary, binary and ternary. *)
  val alu : t list

  (** Binary and ternary. *)
  val broadcastable : t list

  (** ALU plus CAST and BITCAST. *)
  val elementwise : t list

  (** PARAM, BUFFER. *)
  val defines : t list

  (** CONST SPECIAL RANGE PARAM GETADDR. *)
  val irreducible : t list

  (** RESHAPE EXPAND PERMUTE PAD SHRINK FLIP. *)
  val movement : t list

  (** Binary ops that can be flipped. *)
  val commutative : t list

  (** f(f(a,b),c) = f(a,f(b,c)). *)
  val associative : t list

  (** f(x,x) = x. *)
  val idempotent : t list

  (** Valid reduce ops: ADD MUL MAX. *)
  val reduce : t list

  (** CMPLT CMPNE CMPEQ. *)
  val comparison : t list

  (** Every op. *)
  val all : t list


  (** Membership in [unary]. *)
  val is_unary : t -> bool

  (** Membership in [binary]. *)
  val is_binary : t -> bool

  (** Membership in [ternary]. *)
  val is_ternary : t -> bool

  (** Membership in [alu]. *)
  val is_alu : t -> bool

  (** Membership in [broadcastable]. *)
  val is_broadcastable : t -> bool

  (** Membership in [elementwise]. *)
  val is_elementwise : t -> bool

  (** Membership in [defines]. *)
  val is_defines : t -> bool

  (** Membership in [irreducible]. *)
  val is_irreducible : t -> bool

  (** Membership in [movement]. *)
  val is_movement : t -> bool

  (** Membership in [commutative]. *)
  val is_commutative : t -> bool

  (** Membership in [associative]. *)
  val is_associative : t -> bool

  (** Membership in [idempotent]. *)
  val is_idempotent : t -> bool

  (** Membership in [reduce]. *)
  val is_reduce : t -> bool

  (** Membership in [comparison]. *)
  val is_comparison : t -> bool
end
