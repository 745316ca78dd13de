(* tinygrad: extra/models/llama.py — the LLaMA Transformer that tinygrad's multi-device tests shard: RoPE as
   complex products, a KV cache of max_context positions written at start_pos, SwiGLU feed-forward, RMSNorm.
   Left out: the WQKV fused projection, qk_norm, STUB_ATTENTION, alternative linear/embedding/feed-forward
   classes, and sampling at a positive temperature (top-k, top-p, alpha); the Hugging Face conversion
   helpers. *)

open Tinygrad
module T = Tensor
module S = Nn.State

let s = Sint.of_int

(* tinygrad: precompute_freqs_cis — (1, end, 1, dim/2, 2) of cos and sin *)
let precompute_freqs_cis ?(theta = 10000.0) dim end_ =
  let exps = T.div (T.shrink (T.arange ~step:2 dim) [| (0, dim / 2) |]) (T.scalar_int dim) in
  let freqs = T.reciprocal (T.pow (T.scalar theta) exps) in
  let freqs = T.mul (T.unsqueeze (T.arange end_) 1) (T.unsqueeze freqs 0) in
  T.reshape (T.stack ~dim:(-1) [ T.cos freqs; T.sin freqs ]) [| 1; end_; 1; dim / 2; 2 |]

(* the last axis [lo, lo + 1) *)
let last_slice t lo =
  let sh = T.Sym.shape t in
  let n = Array.length sh in
  T.Sym.shrink t (Array.mapi (fun i d -> if i = n - 1 then (s lo, s (lo + 1)) else (s 0, d)) sh)

(* tinygrad: complex_mult — (a + ib)(c + id) *)
let complex_mult a_ c d =
  let a = last_slice a_ 0 and b = last_slice a_ 1 in
  let ro = T.sub (T.mul a c) (T.mul b d) and co = T.add (T.mul a d) (T.mul b c) in
  T.cat ~dim:(-1) [ ro; co ]

(* tinygrad: apply_rotary_emb *)
let apply_rotary_emb xq xk freqs_cis =
  let pairs x =
    let sh = T.Sym.shape x in
    T.Sym.reshape x (Array.append (Array.sub sh 0 3) [| s (-1); s 2 |]) in
  let xq = pairs xq and xk = pairs xk in
  let c = last_slice freqs_cis 0 and d = last_slice freqs_cis 1 in
  (T.flatten ~start_dim:3 (complex_mult xq c d), T.flatten ~start_dim:3 (complex_mult xk c d))

(* tinygrad: repeat_kv (x.repeat((1, 1, 1, n_rep)), not along the heads) *)
let repeat_kv x n_rep =
  if n_rep = 1 then x
  else
    let sh = T.Sym.shape x in
    T.Sym.reshape (T.repeat x [| 1; 1; 1; n_rep |])
      [| sh.(0); sh.(1); Sint.(sh.(2) * of_int n_rep); sh.(3) |]

type attention = {
  n_heads : int;
  n_kv_heads : int;
  head_dim : int;
  max_context : int;
  wq : Nn.Linear.t;
  wk : Nn.Linear.t;
  wv : Nn.Linear.t;
  wo : Nn.Linear.t;
  mutable cache_kv : T.t option;
}

type feed_forward = { w1 : Nn.Linear.t; w2 : Nn.Linear.t; w3 : Nn.Linear.t }

type block = {
  attention : attention;
  feed_forward : feed_forward;
  attention_norm : Nn.RMSNorm.t;
  ffn_norm : Nn.RMSNorm.t;
}

type t = {
  layers : block list;
  norm : Nn.RMSNorm.t;
  tok_embeddings : Nn.Embedding.t;
  output : Nn.Linear.t;
  max_context : int;
  freqs_cis : T.t;
  forward_jit : T.t Tiny_jit.t option;
}

(* tinygrad: Attention.__init__ *)
let attention_create ?n_kv_heads ~max_context dim n_heads =
  let n_kv_heads = Option.value n_kv_heads ~default:n_heads in
  let head_dim = dim / n_heads in
  let wq = Nn.Linear.create ~bias:false dim (n_heads * head_dim) in
  let wk = Nn.Linear.create ~bias:false dim (n_kv_heads * head_dim) in
  let wv = Nn.Linear.create ~bias:false dim (n_kv_heads * head_dim) in
  let wo = Nn.Linear.create ~bias:false (n_heads * head_dim) dim in
  { n_heads; n_kv_heads; head_dim; max_context; wq; wk; wv; wo; cache_kv = None }

(* the cache, made on first use: zeros of x's dtype, replicated on x's devices when x is sharded *)
let cache a x ~bsz =
  match a.cache_kv with
  | Some c -> c
  | None ->
    let shape = [| 2; bsz; a.max_context; a.n_kv_heads; a.head_dim |] in
    let c = T.realize (T.contiguous (T.zeros ~dtype:(T.dtype x) shape)) in
    if T.is_sharded x then ignore (T.realize (T.shard_ c (T.devices x)));
    a.cache_kv <- Some c;
    c

(* tinygrad: Attention.__call__ (start_pos an int or a bound Variable) *)
let attention_forward a x ~(start_pos : Sint.t) freqs_cis mask =
  let xq = Nn.Linear.forward a.wq x and xk = Nn.Linear.forward a.wk (T.contiguous_backward x)
  and xv = Nn.Linear.forward a.wv x in
  let sh = T.Sym.shape x in
  let heads t n = T.Sym.reshape t [| sh.(0); sh.(1); s n; s a.head_dim |] in
  let xq, xk = apply_rotary_emb (heads xq a.n_heads) (heads xk a.n_kv_heads) freqs_cis in
  let xv = heads xv a.n_kv_heads in
  let bsz = Sint.to_int_exn sh.(0) and seqlen = sh.(1) in
  let stop = Sint.(start_pos + seqlen) in
  let keys, values =
    if a.max_context > 0 then begin
      let c = cache a x ~bsz in
      let whole = T.Sym.shape c in
      let window first positions =
        T.Sym.shrink c [| first; (s 0, whole.(1)); positions; (s 0, whole.(3)); (s 0, whole.(4)) |] in
      ignore (T.realize (T.assign (window (s 0, s 2) (start_pos, stop)) (T.stack [ xk; xv ])));
      let part i =
        T.Sym.reshape (window (s i, s (i + 1)) (s 0, stop)) [| whole.(1); stop; whole.(3); whole.(4) |] in
      (part 0, part 1)
    end else begin
      if Sint.to_int start_pos <> Some 0 then
        invalid_arg "llama Attention: start_pos must be 0 without a KV cache";
      (xk, xv)
    end in
  let tr t = T.transpose ~dim0:1 ~dim1:2 t in
  let attn =
    if a.max_context > 0 then
      let n_rep = a.n_heads / a.n_kv_heads in
      T.scaled_dot_product_attention ?attn_mask:mask (tr xq) (tr (repeat_kv keys n_rep))
        (tr (repeat_kv values n_rep))
    else T.scaled_dot_product_attention ~is_causal:true ~enable_gqa:true (tr xq) (tr keys) (tr values) in
  Nn.Linear.forward a.wo (T.Sym.reshape (tr attn) [| sh.(0); seqlen; s (-1) |])

(* tinygrad: FeedForward.__init__, FeedForward.__call__ *)
let feed_forward_create dim hidden_dim =
  let w1 = Nn.Linear.create ~bias:false dim hidden_dim in
  let w2 = Nn.Linear.create ~bias:false hidden_dim dim in
  let w3 = Nn.Linear.create ~bias:false dim hidden_dim in
  { w1; w2; w3 }

let feed_forward_forward f x =
  let w1 = T.silu (Nn.Linear.forward f.w1 x) and w3 = Nn.Linear.forward f.w3 (T.contiguous_backward x) in
  Nn.Linear.forward f.w2 (T.mul w1 w3)

(* tinygrad: TransformerBlock.__init__, TransformerBlock.__call__ *)
let block_create ?n_kv_heads ~max_context ~norm_eps dim hidden_dim n_heads =
  let attention = attention_create ?n_kv_heads ~max_context dim n_heads in
  let feed_forward = feed_forward_create dim hidden_dim in
  let attention_norm = Nn.RMSNorm.create ~eps:norm_eps dim in
  let ffn_norm = Nn.RMSNorm.create ~eps:norm_eps dim in
  { attention; feed_forward; attention_norm; ffn_norm }

let block_forward b x ~start_pos freqs_cis mask =
  let normed = Nn.RMSNorm.forward b.attention_norm x in
  let attn = attention_forward b.attention normed ~start_pos freqs_cis mask in
  let h = T.add x attn in
  let ff = feed_forward_forward b.feed_forward (Nn.RMSNorm.forward b.ffn_norm h) in
  T.contiguous_backward (T.contiguous (T.add h ff))

(* tinygrad: sample with a temperature under 1e-6: the argmax *)
let sample ~temperature logits =
  if temperature < 1e-6 then T.argmax logits
  else
    invalid_arg
      (Printf.sprintf "llama sample: temperature %g: only greedy sampling (temperature 0) is ported"
         temperature)

(* tinygrad: Transformer.forward (start_pos an int or a bound Variable) *)
let forward_with ~layers ~norm ~tok_embeddings ~output ~max_context ~freqs_cis ?(temperature = 0.0) tokens
    ~start_pos =
  let seqlen = (T.shape tokens).(1) in
  let h = T.contiguous (Nn.Embedding.forward tok_embeddings tokens) in
  let fc = T.Sym.shape freqs_cis in
  let freqs = T.Sym.shrink (T.cast freqs_cis (T.dtype h))
      [| (s 0, fc.(0)); (start_pos, Sint.(start_pos + of_int seqlen)); (s 0, fc.(2)); (s 0, fc.(3));
         (s 0, fc.(4)) |] in
  let mask =
    if max_context <> 0 && seqlen > 1 then
      let sp = Sint.to_int_exn start_pos in
      let full = T.full ~dtype:(T.dtype h) [| 1; 1; seqlen; sp + seqlen |] Float.neg_infinity in
      let m = T.triu ~diagonal:(sp + 1) full in
      Some (if T.is_sharded h then T.to_devices m (T.devices h) else m)
    else None in
  let h = List.fold_left (fun h l -> block_forward l h ~start_pos freqs mask) h layers in
  let normed = T.contiguous_backward (T.contiguous (Nn.RMSNorm.forward norm h)) in
  let logits = T.contiguous_backward (Nn.Linear.forward output normed) in
  if Float.is_nan temperature then logits
  else
    let sh = T.Sym.shape logits in
    let last = T.Sym.shrink logits [| (s 0, sh.(0)); (Sint.(sh.(1) - of_int 1), sh.(1)); (s 0, sh.(2)) |] in
    sample ~temperature (T.flatten last)

let forward ?temperature m tokens ~start_pos =
  forward_with ~layers:m.layers ~norm:m.norm ~tok_embeddings:m.tok_embeddings ~output:m.output
    ~max_context:m.max_context ~freqs_cis:m.freqs_cis ?temperature tokens ~start_pos

(* tinygrad: Transformer.__init__ (the layers' parameters first, then the norm, the embeddings and the
   output) *)
let create ?n_kv_heads ?(rope_theta = 10000.) ?(max_context = 1024) ?(jit = true) ~dim ~hidden_dim ~n_heads
    ~n_layers ~norm_eps ~vocab_size () =
  let layers =
    List.init n_layers (fun _ -> block_create ?n_kv_heads ~max_context ~norm_eps dim hidden_dim n_heads) in
  let norm = Nn.RMSNorm.create ~eps:norm_eps dim in
  let tok_embeddings = Nn.Embedding.create vocab_size dim in
  let output = Nn.Linear.create ~bias:false dim vocab_size in
  let freqs_cis = T.contiguous (precompute_freqs_cis ~theta:rope_theta (dim / n_heads) (max_context * 2)) in
  Tinygrad.Compiler.Tensor_base.set_is_param freqs_cis false;
  (* the JIT'd forward of the one-token steps, start_pos a bound Variable; the output is realized as
     TinyJit's *)
  let forward_jit = if jit then Some (Tiny_jit.create_v (fun inputs vars ->
      match inputs, vars with
      | [ tokens ], [ start_pos ] ->
        T.realize
          (forward_with ~layers ~norm ~tok_embeddings ~output ~max_context ~freqs_cis tokens ~start_pos)
      | _ -> invalid_arg "llama forward_jit: one token tensor and start_pos")) else None in
  { layers; norm; tok_embeddings; output; max_context; freqs_cis; forward_jit }

(* tinygrad: Transformer.__call__ — a one-token step after the first goes through the JIT with start_pos a
   Variable in [1, max_context - 1] *)
let call ?temperature m tokens start_pos =
  match m.forward_jit, T.shape tokens with
  | Some j, [| 1; 1 |] when start_pos <> 0 && Option.value temperature ~default:0. < 1e-6 ->
    let v = Variable.create "start_pos" 1 (m.max_context - 1) in
    Tiny_jit.call_v j [ tokens ] [ Variable.bind v start_pos ]
  | _ -> forward ?temperature m tokens ~start_pos:(s start_pos)

let linear_state (l : Nn.Linear.t) = S.of_named (Nn.Linear.state_dict l)
let norm_state (n : Nn.RMSNorm.t) = S.of_named (Nn.RMSNorm.state_dict n)

(* tinygrad: get_state_dict(model): the attributes in the order __init__ sets them (the cache once made) *)
let state m =
  let block b =
    let a = b.attention and f = b.feed_forward in
    let cache = Option.fold ~none:[] ~some:(fun c -> [ ("cache_kv", S.Tensor c) ]) a.cache_kv in
    let linears l = S.Dict (List.map (fun (k, w) -> (k, linear_state w)) l) in
    S.Dict [ ("attention", S.Dict ([ ("wq", linear_state a.wq); ("wk", linear_state a.wk);
                                     ("wv", linear_state a.wv); ("wo", linear_state a.wo) ] @ cache));
             ("feed_forward", linears [ ("w1", f.w1); ("w2", f.w2); ("w3", f.w3) ]);
             ("attention_norm", norm_state b.attention_norm); ("ffn_norm", norm_state b.ffn_norm) ] in
  S.Dict [ ("layers", S.List (List.map block m.layers)); ("norm", norm_state m.norm);
           ("tok_embeddings", S.of_named (Nn.Embedding.state_dict m.tok_embeddings));
           ("output", linear_state m.output); ("freqs_cis", S.Tensor m.freqs_cis) ]
