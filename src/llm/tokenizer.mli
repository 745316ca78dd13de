(** The byte-level BPE tokenizer of a GGUF vocabulary (the llama-3 and gpt2 BPE kinds). tinygrad:
    [llm/cli.py] [SimpleTokenizer]. Special tokens (token type other than 1) are matched whole; the text
    between them is split by llama-3's pre-tokenizer pattern, and each piece's bytes are merged greedily, the
    pair whose token has the lowest id first. *)

(** A tokenizer. *)
type t

(** The presets tinygrad accepts ([tokenizer.ggml.pre]); all split text with llama-3's pattern. *)
val presets : string list

(** [create ~preset ~tokens ~token_types ()]: the tokenizer of a vocabulary (tokens in GPT-2's byte alphabet,
    ggml token types). [Invalid_argument] for an unknown preset, lengths that differ, or a normal token with
    a character outside the byte alphabet. tinygrad [SimpleTokenizer.__init__]. *)
val create :
  ?bos_id:int -> ?eos_id:int -> ?eot_id:int -> preset:string -> tokens:string array ->
  token_types:int array -> unit -> t

(** The tokenizer of a GGUF file's metadata ([tokenizer.ggml.*]). tinygrad [SimpleTokenizer.from_gguf_kv]. *)
val of_gguf_kv : (string * Gguf.value) list -> t

(** The pieces llama-3's pre-tokenizer pattern splits a text into, in order. *)
val pretokenize : string -> string list

(** The ids of a text (no BOS added). [Invalid_argument] when some bytes have no token. tinygrad
    [SimpleTokenizer.encode]. *)
val encode : t -> string -> int list

(** The text of ids; bytes that are not UTF-8 become U+FFFD, as Python's [errors="replace"].
    [Invalid_argument] for an id outside the vocabulary. tinygrad [SimpleTokenizer.decode]. *)
val decode : t -> int list -> string

(** A decoder for a stream of ids: each call gives the text completed so far (a character split across tokens
    comes out whole, with the token that ends it); [None] flushes. tinygrad [SimpleTokenizer.stream_decoder].
    *)
val stream_decoder : t -> int option -> string

(** Whether an id ends a generation (the EOS or EOT token). tinygrad [SimpleTokenizer.is_end]. *)
val is_end : t -> int -> bool

(** The BOS id, when the vocabulary asks for one. *)
val bos_id : t -> int option

(** The number of ids. *)
val vocab_size : t -> int
