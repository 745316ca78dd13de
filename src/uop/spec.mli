(** The UOp verifier. tinygrad: [uop/spec.py] ([type_verify] and the specs it checks against).

    A spec is an ordered list of rules; a node is well formed when the first rule that decides on it says so.
    The compiler runs the verifier where tinygrad does when [SPEC] ({!Helpers.spec}) is set: the tensor graph
    before scheduling, the kernel graph after rangeify, each kernel AST before codegen and each program after. *)

(** An ordered list of rules: a pattern and a decision ([None]: the next rule decides). *)
type t

(** Raised by {!type_verify}: the position in the toposort, the op, dtype, sources and arg of the bad node. *)
exception Verification_failed of string

(** Ops that are valid both in the tensor graph and in programs. tinygrad [spec_shared]. *)
val spec_shared : t

(** The tensor graph and kernel ASTs (movement ops allowed). tinygrad [spec_tensor]. *)
val spec_tensor : t

(** Programs after codegen (no movement ops, no weak dtypes but literals). tinygrad [spec_program]. *)
val spec_program : t

(** The graph of kernel CALLs out of rangeify. tinygrad [spec_kernel_graph]. *)
val spec_kernel_graph : t

(** [Some true] / [Some false] when a rule decides on the node, [None] when none does. *)
val check : t -> Uop.t -> bool option

(** Checks every node of the toposort (not entering CALL bodies with [~enter_calls:false]); raises
    {!Verification_failed} on the first node that is not valid. tinygrad [type_verify]. *)
val type_verify : ?enter_calls:bool -> t -> Uop.t -> unit

(** {!type_verify} over a list of nodes in order. *)
val type_verify_list : t -> Uop.t list -> unit
