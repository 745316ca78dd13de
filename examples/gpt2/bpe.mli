(** GPT-2's byte-level BPE tokenizer, read from a Hugging Face [vocab.json] and [merges.txt]. Text is split by
    GPT-2's pre-tokenizer pattern
    ['s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+], each piece's bytes are mapped to
    printable characters (GPT-2's [bytes_to_unicode]) and merged pair by pair in the order of [merges.txt].
    Special tokens of the form [<|...|>] found in the vocabulary are matched whole. *)

type t

(** [load ~vocab ~merges]: the tokenizer of the two files (paths). Raises [Invalid_argument] naming the file on a
    malformed one. *)
val load : vocab:string -> merges:string -> t

(** [of_strings ~vocab ~merges]: the same, from the files' contents. *)
val of_strings : vocab:string -> merges:string -> t

(** The number of ids. *)
val vocab_size : t -> int

(** The ids of a text. *)
val encode : t -> string -> int list

(** The text of ids (bytes that do not form UTF-8 are kept as they are). Raises [Invalid_argument] on an unknown
    id. *)
val decode : t -> int list -> string

(** The pieces of GPT-2's pre-tokenizer pattern, as byte strings, in order. *)
val pretokenize : string -> string list
