(** tinygrad's LLaMA Transformer (extra/models/llama.py), the model of tinygrad's multi-device transformer
    test: RoPE, grouped-query attention with a KV cache written at [start_pos], a SwiGLU feed-forward and
    RMSNorm. Greedy sampling only (temperature 0). *)

open Tinygrad

(** [(1, end, 1, dim/2, 2)]: the cos and sin of each position times each frequency. tinygrad
    [precompute_freqs_cis]. *)
val precompute_freqs_cis : ?theta:float -> int -> int -> Tensor.t

(** [xq], [xk] of shape (batch, seqlen, heads, head_dim) rotated by [freqs_cis]
    (1, seqlen, 1, head_dim/2, 2). tinygrad [apply_rotary_emb]. *)
val apply_rotary_emb : Tensor.t -> Tensor.t -> Tensor.t -> Tensor.t * Tensor.t

(** The kv heads repeated [n_rep] times along the head_dim axis, then reshaped. tinygrad [repeat_kv]. *)
val repeat_kv : Tensor.t -> int -> Tensor.t

(** An attention layer; [cache_kv] (2, batch, max_context, kv heads, head_dim) is made on the first call,
    replicated on the input's devices when the input is sharded. tinygrad [Attention]. *)
type attention = {
  n_heads : int;
  n_kv_heads : int;
  head_dim : int;
  max_context : int;
  wq : Nn.Linear.t;
  wk : Nn.Linear.t;
  wv : Nn.Linear.t;
  wo : Nn.Linear.t;
  mutable cache_kv : Tensor.t option;
}

(** [w2(silu(w1 x) * w3 x)]. tinygrad [FeedForward]. *)
type feed_forward = { w1 : Nn.Linear.t; w2 : Nn.Linear.t; w3 : Nn.Linear.t }

(** tinygrad [TransformerBlock]. *)
type block = {
  attention : attention;
  feed_forward : feed_forward;
  attention_norm : Nn.RMSNorm.t;
  ffn_norm : Nn.RMSNorm.t;
}

(** The model; [forward_jit] serves the one-token steps after the first. tinygrad [Transformer]. *)
type t = {
  layers : block list;
  norm : Nn.RMSNorm.t;
  tok_embeddings : Nn.Embedding.t;
  output : Nn.Linear.t;
  max_context : int;
  freqs_cis : Tensor.t;
  forward_jit : Tensor.t Tiny_jit.t option;
}

(** The model with parameters drawn in tinygrad's order ([rope_theta] 10000, [max_context] 1024, [jit] true,
    [n_kv_heads] = [n_heads]). tinygrad [Transformer.__init__]. *)
val create :
  ?n_kv_heads:int -> ?rope_theta:float -> ?max_context:int -> ?jit:bool -> dim:int -> hidden_dim:int ->
  n_heads:int -> n_layers:int -> norm_eps:float -> vocab_size:int -> unit -> t

(** [forward m tokens ~start_pos]: the next token (the argmax of the last position's logits), or the logits
    (batch, seqlen, vocab) when [temperature] is nan; a positive temperature raises [Invalid_argument].
    Writes the caches at [start_pos] (an int or a bound Variable). tinygrad [Transformer.forward]. *)
val forward : ?temperature:float -> t -> Tensor.t -> start_pos:Sint.t -> Tensor.t

(** [call m tokens start_pos]: {!forward}, through [forward_jit] with [start_pos] a Variable bound in
    [1, max_context - 1] for a (1, 1) token after position 0. tinygrad [Transformer.__call__]. *)
val call : ?temperature:float -> t -> Tensor.t -> int -> Tensor.t

(** The state tinygrad's [get_state_dict] walks: [layers.0.attention.wq.weight], ..., [norm.weight],
    [tok_embeddings.weight], [output.weight], [freqs_cis] (and each [cache_kv] once made). *)
val state : t -> Nn.State.obj
