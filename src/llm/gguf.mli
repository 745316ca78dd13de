(** GGUF files: the header, the metadata (kv) and the tensors, the quantized ones dequantized with tensor ops
    (no host loops). tinygrad: [llm/gguf.py] ([gguf_load], [ggml_data_to_tensor], [_gguf_parse]). A file is
    mapped privately, as {!Tinygrad.State.safe_load} maps one: each tensor is a lazy graph over the mapping's
    bytes. Multi-part splits ([split.count] > 1) are not merged. *)

open Tinygrad

(** A metadata value. Every GGUF integer type is [Int] (a uint64 above [max_int] raises); float32 and float64
    are [Float]. *)
type value = Int of int | Float of float | Bool of bool | String of string | Array of value list

(** The ggml tensor types tinygrad 0.14.0's [ggml_data_to_tensor] supports. *)
type ggml_type =
  | F32 | F16 | Q4_0 | Q4_1 | Q5_0 | Q5_1 | Q8_0 | Q4_K | Q5_K | Q6_K | IQ3_XXS | IQ3_S | IQ2_S | IQ4_XS
  | I8 | I16 | I32 | I64 | F64 | BF16 | MXFP4 | Q1_0

(** Every supported type, in ggml's id order. *)
val all_ggml_types : ggml_type list

(** ggml's id of a type ([ggml.h] [enum ggml_type]). *)
val ggml_type_id : ggml_type -> int

(** The type of a ggml id, [None] when unsupported. *)
val ggml_type_of_id : int -> ggml_type option

(** ggml's name of a type (["Q8_0"]). *)
val ggml_type_name : ggml_type -> string

(** The bytes that [n] elements of a type take; [Invalid_argument] when [n] is not whole blocks. *)
val nbytes : ggml_type -> int -> int

(** [ggml_data_to_tensor t n typ]: the [n] elements (1-d) that the uint8 tensor [t] holds from its start as
    [typ]: native types bitcast, quantized ones dequantized to float32 (float16 for Q1_0, as tinygrad).
    [Invalid_argument] when [t] is too short. tinygrad [ggml_data_to_tensor]. *)
val ggml_data_to_tensor : Tensor.t -> int -> ggml_type -> Tensor.t

(** [gguf_load fn]: the metadata, in file order, and the state dict (tensors in file order, shaped as ggml's
    dimensions reversed). A malformed file raises [Invalid_argument] naming the file and the problem: a bad
    magic or version, a truncated header, an unknown metadata or tensor type, a string that is not UTF-8,
    tensor data past the end of the file. tinygrad [gguf_load]. *)
val gguf_load : string -> (string * value) list * (string * Tensor.t) list

(** {!gguf_load} of a 1-d uint8 tensor holding a GGUF file. *)
val gguf_load_tensor : Tensor.t -> (string * value) list * (string * Tensor.t) list

(** [get_int kv key]: an integer (or bool) metadata value; [Invalid_argument] for another kind. *)
val get_int : (string * value) list -> string -> int option

(** [get_float kv key]: a number metadata value; [Invalid_argument] for another kind. *)
val get_float : (string * value) list -> string -> float option

(** [get_string kv key]: a string metadata value; [Invalid_argument] for another kind. *)
val get_string : (string * value) list -> string -> string option
