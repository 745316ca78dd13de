(* MOCK (type-checking only): the one type of metal 0.1.1's vendored runtime library that metal.mli names. *)
module Objc : sig
  type object_t
end
