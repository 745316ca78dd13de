(** tinygrad's llm Transformer ([llm/model.py]): token embedding, blocks of RMSNorm, attention with RoPE,
    grouped query heads and optional QK-norm, a SwiGLU feed-forward or a mixture of experts (with an optional
    shared expert), and a KV cache at a symbolic [start_pos] under TinyJit. Loaded from GGUF with tinygrad's
    architecture mapping ([from_gguf]); tested on [llama], [qwen3], [qwen3moe] and [olmoe]. Not ported:
    multi-head latent attention (deepseek2, kimi) and the gated delta-net blocks (qwen35, kimi-linear):
    [from_gguf] refuses them by name. *)

open Tinygrad

(** How a mixture of experts weighs its experts. tinygrad [ExpertGating]. *)
type expert_gating = Softmax | Sigmoid | Softmax_weight | Sqrt_softplus

(** The hyperparameters. tinygrad [TransformerConfig] (without the MLA and SSM fields). *)
type config = {
  num_blocks : int;
  dim : int;
  hidden_dim : int;
  n_heads : int;
  n_kv_heads : int;
  norm_eps : float;
  vocab_size : int;
  head_dim : int;
  rope_theta : float;
  rope_dim : int;
  max_context : int;
  qk_norm : int;  (** 0: none; [head_dim]: per head; else over the whole projection (OLMoE) *)
  num_experts : int;
  num_experts_per_tok : int;
  norm_topk_prob : bool;
  expert_gating_func : expert_gating;
  shared_expert_dim : int;
  shared_expert_gate : bool;
  leading_dense_blocks : int;
  dense_hidden_dim : int;
  routed_scaling_factor : float;
  qkv_bias : bool;
  expert_bias : bool;
}

(** The model with its KV caches. *)
type t

(** The hyperparameters. *)
val config : t -> config

(** [(end, dim)]: the cosines then the sines of each position's rotary angles. tinygrad
    [precompute_freqs_cis]. *)
val precompute_freqs_cis : int -> int -> float -> Tensor.t

(** The [k] largest values of the last axis of a 3-d tensor and their indices, without a sort. tinygrad
    [pairwise_topk]. *)
val pairwise_topk : Tensor.t -> int -> Tensor.t * Tensor.t

(** [from_gguf fn]: the model of a GGUF file and its metadata. [max_context] caps the context (default the
    file's [context_length]); [half] (default true, tinygrad's [HALF=1]) casts the weights and the KV cache
    to float16, else both stay float32; [realize] (default true; tinygrad's [REALIZE], which defaults to 0
    there) dequantizes the weights into buffers once at load, where false keeps each weight a graph over the
    file's bytes that the kernels using it dequantize (a Q8_0 matrix-vector product then reads the quantized
    bytes). [Invalid_argument] for a missing tensor or metadata, a wrong shape, or an architecture not
    ported. tinygrad [Transformer.from_gguf]. *)
val from_gguf :
  ?max_context:int -> ?half:bool -> ?realize:bool -> string -> t * (string * Gguf.value) list

(** {!from_gguf} of a loaded file ({!Gguf.gguf_load}'s result). *)
val from_gguf_kv :
  ?max_context:int -> ?half:bool -> ?realize:bool -> (string * Gguf.value) list * (string * Tensor.t) list ->
  t * (string * Gguf.value) list

(** [logits m tokens ~start_pos]: float32 logits (batch, seqlen, vocab) of the tokens (batch, seqlen) at
    positions [start_pos...], writing the cache. [Invalid_argument] for tokens not 2-d or positions past the
    context. *)
val logits : t -> Tensor.t -> start_pos:Sint.t -> Tensor.t

(** [forward m tokens ~start_pos ~temperature]: the next token (batch, 1) of the last position, sampled at
    the temperature (a (1,) tensor; 0 is greedy) by the Gumbel-max trick. Lazy. tinygrad
    [Transformer.forward]. *)
val forward : t -> Tensor.t -> start_pos:Sint.t -> temperature:Tensor.t -> Tensor.t

(** {!forward}, realized; a one-token step goes through the rollout JIT (when [jit], default true) with
    [start_pos] as a bound Variable, so one capture serves every position. tinygrad [Transformer.__call__].
    *)
val step : ?jit:bool -> t -> Tensor.t -> start_pos:Sint.t -> temperature:Tensor.t -> Tensor.t

(** [generate m prompt count]: up to [count] new tokens after [prompt] (fewer at the end of the context): the
    prompt in one step from position 0, then one JIT step per token. [temperature] defaults to 0 (greedy);
    [on_token] sees each token as soon as it is known. [Invalid_argument] for an empty prompt or one that
    fills the context. tinygrad [Transformer.generate] (without chunked prefill and prefix reuse). *)
val generate : ?temperature:float -> ?jit:bool -> ?on_token:(int -> unit) -> t -> int list -> int -> int list

(** Forget the KV caches (the next step starts a new sequence). *)
val reset_cache : t -> unit

(** The rollout JIT (made on first use). *)
val rollout_jit : t -> Tensor.t Tiny_jit.t
