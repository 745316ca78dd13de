(** GPT-2, as tinygrad's [examples/gpt2.py] writes it (Attention, FeedForward, TransformerBlock, Transformer,
    GPT2.build, GPT2.generate), over a Hugging Face [GPT2LMHeadModel] checkpoint ([model.safetensors] and
    [config.json]).

    Each attention layer keeps a KV cache of [max_context] positions, written at [start_pos] by a shrink and an assign.
    A prompt runs in one step with concrete shapes and a causal mask; each following step takes one token and its
    position as bound Variables, so the cache's keys have the symbolic length [start_pos + 1] and one compiled set of
    kernels (one {!Tinygrad.Tiny_jit} capture) serves every position. *)

open Tinygrad

(** The hyperparameters (Hugging Face's [n_layer], [n_head], [n_embd], [layer_norm_epsilon], [vocab_size],
    [n_positions]). *)
type config = { n_layers : int; n_heads : int; dim : int; norm_eps : float; vocab_size : int; max_seq_len : int }

(** GPT-2 small (124M): 12 layers, 12 heads, width 768, vocabulary 50257, 1024 positions. *)
val gpt2_small : config

(** The model with its caches. *)
type t

(** The hyperparameters. *)
val config : t -> config

(** The KV cache's length: the most positions a generation may use. *)
val max_context : t -> int

(** The config of a Hugging Face [config.json] (missing keys take {!gpt2_small}'s values). *)
val config_of_json : State.Json.t -> config

(** [of_state_dict config sd]: the model of a Hugging Face state dict, keys with or without the ["transformer."]
    prefix, as tinygrad's [GPT2.build]: the Conv1D weights ([in, out]) go transposed (views of the checkpoint's
    tensors, no copy) into {!State.load_state_dict} over freshly made layers; [lm_head] is tied to [wte].
    [max_context] defaults to the smaller of 128 and [n_positions]. A missing tensor or a wrong shape raises
    [Invalid_argument] naming it. *)
val of_state_dict : ?max_context:int -> config -> (string * Tensor.t) list -> t

(** [load dir]: {!of_state_dict} of [dir/model.safetensors] (mapped, {!State.safe_load}), or without it of
    [dir/pytorch_model.bin] ({!State.torch_load}), with [dir/config.json] (GPT-2 small's config when absent). *)
val load : ?max_context:int -> string -> t

(** [shard m devices]: model parallelism — every attention and MLP weight split in halves over [devices] (the qkv
    and MLP-up projections along their input features, the output projections along their output features), the
    rest replicated; the cache and the inputs follow the devices. tinygrad's llama shards its weights the same way
    with [Tensor.shard_]. *)
val shard : t -> string list -> unit

(** The contents of a file. *)
val read_file : string -> string

(** The tokens of a step: ids of shape (batch, seqlen), or one token as a bound Variable ({!Variable.bind}). *)
type tokens = Ids of Tensor.t | Token of Sint.t

(** [logits m tokens ~start_pos]: the logits (batch, seqlen, vocab) of tokens at positions [start_pos...], reading
    and writing the cache; [start_pos] is an int or a bound Variable. [Invalid_argument] when tokens are not 2-d or
    the positions leave the context. *)
val logits : t -> tokens -> start_pos:Sint.t -> Tensor.t

(** [forward m tokens ~start_pos]: the next token of each batch row (int32, realized): the argmax of the last
    position's logits, or a sample of their softmax when [temperature] (default 0) is positive. tinygrad
    [Transformer.forward]. *)
val forward : ?temperature:float -> t -> tokens -> start_pos:Sint.t -> Tensor.t

(** The JIT of the one-token step for a temperature (made on first use, kept by the model). *)
val step_jit : ?temperature:float -> t -> Tensor.t Tiny_jit.t

(** {!forward}, through {!step_jit} for a [Token] step when [jit] (default true). tinygrad [Transformer.__call__]. *)
val step : ?temperature:float -> ?jit:bool -> t -> tokens -> start_pos:Sint.t -> Tensor.t

(** A (1, n) int tensor of ids. *)
val tokens_tensor : int list -> Tensor.t

(** [generate m prompt count]: [count] new token ids after [prompt]. With [use_cache] (default) the prompt runs in
    one step and each new token in a one-token step (under the JIT when [jit], default true); without it every step
    runs the whole sequence, padded to [max_context] so that all steps share one shape (and one JIT capture).
    [on_token] is called with each new token as soon as it is known. [Invalid_argument] for an empty prompt or one
    that does not fit with [count] tokens in [max_context]. tinygrad [GPT2.generate] (batch 1). *)
val generate :
  ?temperature:float -> ?use_cache:bool -> ?jit:bool -> ?on_token:(int -> unit) -> t -> int list -> int -> int list
