(* MOCK (type-checking only, no implementation): the part of sexplib0's Sexp that tinygrad.cuda uses. *)
module Sexp : sig
  type t = Atom of string | List of t list
  val to_string : t -> string
end
