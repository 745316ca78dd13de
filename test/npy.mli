(** A reader (and writer) for NumPy's [.npy] files: format 1.0/2.0/3.0, little-endian, C order, dtypes
    float16/32/64, int8/16/32/64, uint8/16/32/64 and bool. *)

(** An array: its dtype, its shape and its raw little-endian element bytes. *)
type t = { dtype : Tinygrad.Dtype.t; shape : int list; data : string }

(** Raised on an unsupported or malformed file. *)
exception Error of string

(** [of_string s] parses the bytes of a .npy file. *)
val of_string : string -> t

(** [read path] reads a .npy file. *)
val read : string -> t

(** [to_string a] is the .npy (format 1.0) encoding of [a]. *)
val to_string : t -> string

(** The number of elements (product of the shape). *)
val numel : t -> int

(** Every element as a float (ints and bools converted, float16 widened). *)
val to_floats : t -> float array

(** Every element of an int/bool array as an int ([Error] for floats; uint64 above max_int wraps). *)
val to_ints : t -> int array

(** [of_floats dtype shape xs] packs floats into an array of float dtype [dtype]. *)
val of_floats : Tinygrad.Dtype.t -> int list -> float array -> t

(** [of_ints dtype shape xs] packs ints into an array of int/bool dtype [dtype] (two's-complement truncation). *)
val of_ints : Tinygrad.Dtype.t -> int list -> int array -> t
