(* tinygrad's llm Transformer (llm/model.py): RoPE, RMSNorm, GQA, SwiGLU, QK-norm and mixture-of-experts,
   with a KV cache at a symbolic start_pos under TinyJit, loaded from GGUF with tinygrad's architecture
   mapping. Left out: MLA (MLATransformerBlock: deepseek2, kimi), the gated delta-net blocks (qwen35,
   kimi-linear) and the AMD kernels; from_gguf refuses those files by name. *)
open Tinygrad

type expert_gating = Softmax | Sigmoid | Softmax_weight | Sqrt_softplus

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
  qk_norm : int;
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

(* (num_experts, out, in) weights applied to the experts each token selected *)
type experts = { gate_exps : Tensor.t; up_exps : Tensor.t; down_exps : Tensor.t }

type shared_expert = { gate_shexp : Nn.Linear.t; up_shexp : Nn.Linear.t; down_shexp : Nn.Linear.t;
                       gate_inp_shexp : Tensor.t option }

type ffn =
  | Dense of { ffn_gate : Nn.Linear.t; ffn_up : Nn.Linear.t; ffn_down : Nn.Linear.t }
  | Moe of { ffn_gate_inp : Nn.Linear.t; exp_probs_b : Tensor.t option; experts : experts;
             shexp : shared_expert option }

type block = {
  cfg : config;
  attn_norm : Nn.RMSNorm.t;
  ffn_norm : Nn.RMSNorm.t;
  attn_q : Nn.Linear.t;
  attn_k : Nn.Linear.t;
  attn_v : Nn.Linear.t;
  attn_output : Nn.Linear.t;
  qk_norms : (Nn.RMSNorm.t * Nn.RMSNorm.t) option;
  ffn : ffn;
  cache_dtype : Dtype.t;
  (* (2, batch, n_kv_heads, max_context, head_dim), made on the first call *)
  mutable cache_kv : Tensor.t option;
}

type t = {
  config : config;
  blk : block array;
  token_embd : Nn.Embedding.t;
  output_norm : Nn.RMSNorm.t;
  output : Nn.Linear.t;
  freqs_cis : Tensor.t Lazy.t;
  mutable rollout_jit : Tensor.t Tiny_jit.t option;
}

let config m = m.config
let s = Sint.of_int
let dims sh = String.concat ", " (Array.to_list (Array.map string_of_int sh))

(* the value of a start position: an int, or a bound Variable's value *)
let value (p : Sint.t) = match p with Sint i -> i | Suop _ -> Variable.value p

(* tinygrad: llm/model.py precompute_freqs_cis — (end, dim): the cosines then the sines of each position's
   angles *)
let precompute_freqs_cis dim end_ theta =
  let half = Tensor.shrink (Tensor.arange ~step:2 dim) [| (0, dim / 2) |] in
  let exponent = Tensor.div half (Tensor.scalar_int dim) in
  let freqs = Tensor.div (Tensor.scalar 1.0) (Tensor.pow (Tensor.scalar theta) exponent) in
  let freqs = Tensor.mul (Tensor.unsqueeze (Tensor.arange end_) 1) (Tensor.unsqueeze freqs 0) in
  (* a clone gets a buffer of its own: a contiguous of a graph with no buffer input stays a graph, which
     each attention kernel would then evaluate, sines and cosines included, for every key it reads *)
  Tensor.realize (Tensor.clone (Tensor.cat ~dim:(-1) [ Tensor.cos freqs; Tensor.sin freqs ]))

(* tinygrad: llm/model.py apply_rope — the half-split rotation (the weights were permuted at load to match)
   *)
let apply_rope x freqs_cis =
  let sh = Tensor.shape x in
  let t = sh.(2) in
  match Tensor.chunk ~dim:(-1) (Tensor.reshape freqs_cis [| 1; 1; t; -1 |]) 2,
        Tensor.chunk ~dim:(-1) x 2 with
  | [ cos; sin ], [ x1; x2 ] ->
    Tensor.cat ~dim:(-1) Tensor.O.[ x1 * cos - x2 * sin; x2 * cos + x1 * sin ]
  | _ -> invalid_arg (Printf.sprintf "apply_rope: x (%s) has an odd last axis" (dims sh))

(* tinygrad: llm/model.py pairwise_topk — the [k] largest of the last axis (values, indices) without a sort:
   each element's rank is the count of elements it beats, ties broken by position *)
let pairwise_topk x k =
  let sh = Tensor.shape x in
  let n = sh.(Array.length sh - 1) in
  let ar = Tensor.arange n in
  let vals = Tensor.expand (Tensor.cast (Tensor.reshape ar [| 1; 1; n |]) (Tensor.dtype x)) sh in
  let xi = Tensor.unsqueeze x (-1) and xj = Tensor.unsqueeze x (-2) in
  let before = Tensor.lt (Tensor.reshape ar [| 1; 1; n; 1 |]) (Tensor.reshape ar [| 1; 1; 1; n |]) in
  let cmp = Tensor.bitwise_or (Tensor.gt xi xj) (Tensor.bitwise_and (Tensor.eq xi xj) before) in
  let rank = Tensor.cast (Tensor.sum ~axis:[ -1 ] cmp) Dtype.Int32 in
  let scattered = Tensor.scatter (Tensor.zeros_like x) ~dim:(-1) rank (`Tensor vals) in
  let sel = Tensor.cast (Tensor.shrink scattered [| (0, sh.(0)); (0, sh.(1)); (n - k, n) |]) Dtype.Int32 in
  (Tensor.gather x ~dim:(-1) sel, sel)

(* tinygrad: llm/model.py ExpertWeights.__call__ — sel (B, T, k), x (B, T, 1 or k, in) -> (B, T, k, out) *)
let expert_forward w sel x =
  let ws = Tensor.getitem w [ T sel ] in
  Tensor.squeeze ~dim:(-2)
    (Tensor.contiguous (Tensor.matmul (Tensor.unsqueeze x (-2)) (Tensor.transpose ~dim0:(-1) ~dim1:(-2) ws)))

let lin = Nn.Linear.forward

(* tinygrad: llm/model.py FFNBlock._feed_forward *)
let feed_forward b x =
  match b.ffn with
  | Dense { ffn_gate; ffn_up; ffn_down } ->
    lin ffn_down (Tensor.mul (Tensor.contiguous (Tensor.silu (lin ffn_gate x))) (lin ffn_up x))
  | Moe { ffn_gate_inp; exp_probs_b; experts; shexp } ->
    let h = Tensor.unsqueeze x 2 in
    let logits = lin ffn_gate_inp x in
    let gating, normalize =
      match b.cfg.expert_gating_func, exp_probs_b with
      (* without a selection bias, a normalized softmax is the softmax of the selected logits *)
      | Softmax, None when b.cfg.norm_topk_prob -> (Softmax_weight, false)
      | g, _ -> (g, b.cfg.norm_topk_prob) in
    let scores = match gating with
      | Softmax_weight -> logits
      | Softmax -> Tensor.softmax ~axis:(-1) logits
      | Sigmoid -> Tensor.sigmoid logits
      | Sqrt_softplus -> Tensor.sqrt (Tensor.softplus logits) in
    let biased = match exp_probs_b with None -> scores | Some bias -> Tensor.add scores bias in
    let _, sel = pairwise_topk biased b.cfg.num_experts_per_tok in
    let probs = Tensor.gather scores ~dim:(-1) sel in
    let probs = if gating = Softmax_weight then Tensor.softmax ~axis:(-1) probs else probs in
    let probs = if normalize then Tensor.div probs (Tensor.sum ~axis:[ -1 ] ~keepdim:true probs) else probs in
    let probs = Tensor.mul probs (Tensor.scalar b.cfg.routed_scaling_factor) in
    let gate = Tensor.silu (expert_forward experts.gate_exps sel h) in
    let gated = Tensor.mul gate (expert_forward experts.up_exps sel h) in
    let x_down = expert_forward experts.down_exps sel (Tensor.contiguous gated) in
    let out = Tensor.sum ~axis:[ 2 ] (Tensor.mul x_down (Tensor.unsqueeze probs (-1))) in
    (match shexp with
     | None -> out
     | Some sh ->
       let g = Tensor.contiguous (Tensor.silu (lin sh.gate_shexp x)) in
       let e = lin sh.down_shexp (Tensor.mul g (lin sh.up_shexp x)) in
       let e = match sh.gate_inp_shexp with
         | None -> e
         | Some g -> Tensor.mul e (Tensor.sigmoid (Tensor.sum ~axis:[ -1 ] ~keepdim:true (Tensor.mul x g))) in
       Tensor.add out e)

(* the causal mask of a [t]-token step at [start_pos]: -inf above the diagonal *)
let causal_mask dtype ~start_pos ~t =
  Tensor.triu ~diagonal:(start_pos + 1) (Tensor.full ~dtype [| 1; 1; t; start_pos + t |] Float.neg_infinity)

let cache_of b ~bsz =
  match b.cache_kv with
  | Some c -> c
  | None ->
    let shape = [| 2; bsz; b.cfg.n_kv_heads; b.cfg.max_context; b.cfg.head_dim |] in
    let c = Tensor.realize (Tensor.contiguous (Tensor.zeros ~dtype:b.cache_dtype shape)) in
    b.cache_kv <- Some c; c

(* tinygrad: llm/model.py TransformerBlock._attention — the keys and values of this step are written into the
   cache at [start_pos] (an assign to a shrink, realized with the block's input), then the cache's first
   [start_pos + T] positions are attended to. With a bound Variable as [start_pos] those shapes are symbolic
   and one set of kernels serves every position. *)
let attention b ~freqs_cis ~keep x ~(start_pos : Sint.t) =
  let c = b.cfg in
  let bsz, t = match Tensor.shape x with
    | [| bb; tt; _ |] -> (bb, tt)
    | sh -> invalid_arg ("llm attention: x is " ^ dims sh) in
  let q = lin b.attn_q x and k = lin b.attn_k x and v = lin b.attn_v x in
  let q, k = match b.qk_norms with
    | Some (qn, kn) when c.qk_norm <> c.head_dim -> (Nn.RMSNorm.forward qn q, Nn.RMSNorm.forward kn k)
    | _ -> (q, k) in
  let heads y n = Tensor.transpose ~dim0:1 ~dim1:2 (Tensor.reshape y [| bsz; t; n; c.head_dim |]) in
  let q = heads q c.n_heads and k = heads k c.n_kv_heads and v = heads v c.n_kv_heads in
  let q, k = match b.qk_norms with
    | Some (qn, kn) when c.qk_norm = c.head_dim -> (Nn.RMSNorm.forward qn q, Nn.RMSNorm.forward kn k)
    | _ -> (q, k) in
  let stop = Sint.(start_pos + of_int t) in
  let freqs = Tensor.Sym.shrink freqs_cis [| (start_pos, stop); (s 0, s c.rope_dim) |] in
  let rope y =
    let n = (Tensor.shape y).(1) in
    let part a z = Tensor.shrink y [| (0, bsz); (0, n); (0, t); (a, z) |] in
    if c.rope_dim = c.head_dim then apply_rope y freqs
    else Tensor.cat ~dim:(-1) [ apply_rope (part 0 c.rope_dim) freqs; part c.rope_dim c.head_dim ] in
  let q = rope q and k = rope k in
  let cache = cache_of b ~bsz in
  let all n = (s 0, s n) in
  let window = [| all 2; all bsz; all c.n_kv_heads; (start_pos, stop); all c.head_dim |] in
  (* tinygrad orders the read after the write with a STORE and an AFTER; here the write is realized first,
     with the block's input so that the later layers read it instead of computing the earlier ones again *)
  Tensor.realize_all
    (Tensor.assign (Tensor.Sym.shrink cache window) (Tensor.cast (Tensor.stack [ k; v ]) b.cache_dtype)
     :: keep);
  let cached i =
    Tensor.Sym.reshape
      (Tensor.Sym.shrink cache [| (s i, s (i + 1)); all bsz; all c.n_kv_heads; (s 0, stop); all c.head_dim |])
      [| s bsz; s c.n_kv_heads; stop; s c.head_dim |] in
  let k = Tensor.cast (cached 0) (Tensor.dtype q) and v = Tensor.cast (cached 1) (Tensor.dtype q) in
  let attn_mask =
    if t <> 1 then Some (causal_mask (Tensor.dtype x) ~start_pos:(value start_pos) ~t) else None in
  let attn = Tensor.scaled_dot_product_attention ?attn_mask ~enable_gqa:true q k v in
  lin b.attn_output (Tensor.reshape (Tensor.transpose ~dim0:1 ~dim1:2 attn) [| bsz; t; -1 |])

(* tinygrad: llm/model.py FFNBlock.__call__ *)
let block_forward b ~freqs_cis x ~start_pos =
  let h = Tensor.add x (attention b ~freqs_cis ~keep:[ x ] (Nn.RMSNorm.forward b.attn_norm x) ~start_pos) in
  Tensor.contiguous (Tensor.add h (feed_forward b (Nn.RMSNorm.forward b.ffn_norm h)))

let check_tokens m tokens ~start_pos =
  match Tensor.shape tokens with
  | [| _; t |] ->
    let sp = value start_pos in
    if sp < 0 || sp + t > m.config.max_context then
      invalid_arg (Printf.sprintf "llm forward: positions %d..%d outside the context of %d" sp (sp + t)
                     m.config.max_context)
  | sh -> invalid_arg (Printf.sprintf "llm forward: tokens must be (batch, seqlen), got (%s)" (dims sh))

let hidden m tokens ~start_pos =
  check_tokens m tokens ~start_pos;
  let freqs_cis = Lazy.force m.freqs_cis in
  let x = Tensor.float (Nn.Embedding.forward m.token_embd tokens) in
  Array.fold_left (fun x b -> block_forward b ~freqs_cis x ~start_pos) x m.blk

let logits m tokens ~start_pos =
  Tensor.float (lin m.output (Nn.RMSNorm.forward m.output_norm (hidden m tokens ~start_pos)))

(* tinygrad: llm/model.py Transformer.forward — the next token (B, 1) from the last position's logits,
   sampled by the Gumbel-max trick: argmax(logits / temperature - log(-log(u))) samples softmax(logits /
   temperature) *)
let forward m tokens ~start_pos ~temperature =
  let x = hidden m tokens ~start_pos in
  let sh = Tensor.shape x in
  let last = Tensor.shrink x [| (0, sh.(0)); (sh.(1) - 1, sh.(1)); (0, sh.(2)) |] in
  let lg = Tensor.reshape (lin m.output (Nn.RMSNorm.forward m.output_norm last)) [| sh.(0); -1 |] in
  let lg = Tensor.float lg in
  let u = Tensor.maximum (Tensor.rand_like lg) (Tensor.scalar 1e-12) in
  let gumbel = Tensor.log (Tensor.neg (Tensor.log u)) in
  Tensor.argmax ~axis:(-1) ~keepdim:true
    (Tensor.sub (Tensor.div lg (Tensor.maximum temperature (Tensor.scalar 1e-12))) gumbel)

let start_pos_var m = Variable.create "start_pos" 0 (m.config.max_context - 1)

(* tinygrad: llm/model.py Transformer.rollout_jit — the one-token step, captured once for every position *)
let rollout_jit m =
  match m.rollout_jit with
  | Some j -> j
  | None ->
    let j = Tiny_jit.create_v (fun inputs vars ->
        match inputs, vars with
        | [ tokens; temperature ], [ start_pos ] ->
          forward m (Tensor.contiguous tokens) ~start_pos ~temperature
        | _ -> invalid_arg "llm rollout: expected tokens, temperature and start_pos") in
    m.rollout_jit <- Some j; j

(* tinygrad: llm/model.py Transformer.__call__ *)
let step ?(jit = true) m tokens ~start_pos ~temperature =
  let t = match Tensor.shape tokens with [| _; t |] -> t | _ -> 0 in
  let sp = value start_pos in
  if t = 1 && jit then
    Tiny_jit.call_v (rollout_jit m) [ tokens; temperature ] [ Variable.bind (start_pos_var m) sp ]
  else Tensor.realize (forward m tokens ~start_pos:(s sp) ~temperature)

(* tinygrad: llm/model.py Transformer.generate — the prompt in one step, then one JIT step per token, its
   position a bound Variable; stops after [count] tokens or at the context's end *)
let generate ?(temperature = 0.0) ?(jit = true) ?(on_token = ignore) m prompt count =
  let n = List.length prompt in
  if n = 0 then invalid_arg "llm generate: empty prompt";
  if n >= m.config.max_context then
    invalid_arg
      (Printf.sprintf "llm generate: %d prompt tokens fill the context of %d" n m.config.max_context);
  let temp = Tensor.realize (Tensor.of_float_array [| 1 |] [| temperature |]) in
  let ids l = Tensor.of_int_array [| 1; List.length l |] (Array.of_list l) in
  let rec go tokens start_pos acc k =
    if k = 0 || start_pos + List.length tokens > m.config.max_context then List.rev acc
    else
      let out = step ~jit m (ids tokens) ~start_pos:(s start_pos) ~temperature:temp in
      let tok = (Tensor.to_int_array out).(0) in
      on_token tok;
      go [ tok ] (start_pos + List.length tokens) (tok :: acc) (k - 1) in
  go prompt 0 [] count

let reset_cache m = Array.iter (fun b -> b.cache_kv <- None) m.blk

(* ---- from GGUF ---- *)

let int_of kv key = match Gguf.get_int kv key with
  | Some i -> i | None -> invalid_arg (Printf.sprintf "from_gguf: the file has no metadata %s" key)

let float_of kv key = match Gguf.get_float kv key with
  | Some f -> f | None -> invalid_arg (Printf.sprintf "from_gguf: the file has no metadata %s" key)

let int_or kv key d = Option.value (Gguf.get_int kv key) ~default:d

(* tinygrad: llm/model.py from_gguf — "n (h two) d -> n (two h) d": each head's interleaved rotary pairs
   become the half-split layout apply_rope uses *)
let unpermute_rows w ~heads ~prefix =
  match Tensor.shape w with
  | [| rows; cols |] ->
    let hd = rows / heads in
    let w = Tensor.reshape w [| heads; hd; cols |] in
    let rot = Tensor.shrink w [| (0, heads); (prefix, hd); (0, cols) |] in
    let pairs = Tensor.reshape rot [| heads; (hd - prefix) / 2; 2; cols |] in
    let rot = Tensor.reshape (Tensor.permute pairs [| 0; 2; 1; 3 |]) [| heads; hd - prefix; cols |] in
    let w = if prefix = 0 then rot
      else Tensor.cat ~dim:1 [ Tensor.shrink w [| (0, heads); (0, prefix); (0, cols) |]; rot ] in
    Tensor.reshape w [| rows; cols |]
  | sh -> invalid_arg (Printf.sprintf "from_gguf: a rotary weight of shape (%s)" (dims sh))

let gating_of_int = function
  | 1 -> Softmax | 2 -> Sigmoid | 3 -> Softmax_weight | 4 -> Sqrt_softplus
  | g -> invalid_arg (Printf.sprintf "from_gguf: unknown expert_gating_func %d" g)

let array_length kv key = match List.assoc_opt key kv with
  | Some (Gguf.Array l) -> List.length l
  | _ -> invalid_arg (Printf.sprintf "from_gguf: the file has no array %s" key)

(* tinygrad: llm/model.py from_gguf (the TransformerConfig) *)
let config_of_kv kv ~has ~qk_norm ~max_context =
  let arch = match Gguf.get_string kv "general.architecture" with
    | Some a -> a | None -> invalid_arg "from_gguf: the file has no general.architecture" in
  let key k = arch ^ "." ^ k in
  (match arch with
   | "qwen35" | "qwen35moe" | "kimi-linear" ->
     invalid_arg
       (Printf.sprintf "from_gguf: architecture %s needs the gated delta-net blocks, not ported" arch)
   | _ -> ());
  if int_or kv (key "attention.kv_lora_rank") 0 > 0 then
    invalid_arg
      (Printf.sprintf "from_gguf: architecture %s uses multi-head latent attention (MLA), not ported" arch);
  let context = int_of kv (key "context_length") in
  let max_context = match max_context with Some c -> min c context | None -> context in
  let n_heads = int_of kv (key "attention.head_count") in
  let n_kv_heads = int_of kv (key "attention.head_count_kv") in
  let dim = int_of kv (key "embedding_length") in
  let head_dim = int_or kv (key "attention.key_length") (dim / n_heads) in
  let leading = int_or kv (key "leading_dense_block_count") 0 in
  let hidden_dim = int_or kv (key "expert_feed_forward_length") (int_or kv (key "feed_forward_length") 0) in
  let cfg = {
    num_blocks = int_of kv (key "block_count") - int_or kv (key "nextn_predict_layers") 0;
    dim; hidden_dim; n_heads; n_kv_heads; norm_eps = float_of kv (key "attention.layer_norm_rms_epsilon");
    vocab_size = array_length kv "tokenizer.ggml.tokens"; head_dim;
    rope_theta = float_of kv (key "rope.freq_base");
    rope_dim = int_or kv (key "rope.dimension_count") head_dim;
    max_context; qk_norm;
    num_experts = int_or kv (key "expert_count") 0;
    num_experts_per_tok = int_or kv (key "expert_used_count") 0;
    norm_topk_prob = (match Gguf.get_int kv (key "expert_weights_norm") with
        | Some v -> v <> 0 | None -> arch = "qwen3moe");
    expert_gating_func = gating_of_int (int_or kv (key "expert_gating_func") 1);
    shared_expert_dim = int_or kv (key "expert_shared_feed_forward_length")
        (int_or kv (key "expert_shared_count") 0 * int_or kv (key "expert_feed_forward_length") 0);
    shared_expert_gate = has (Printf.sprintf "blk.%d.ffn_gate_inp_shexp.weight" leading);
    leading_dense_blocks = leading;
    dense_hidden_dim = (if leading > 0 then int_or kv (key "feed_forward_length") 0 else 0);
    routed_scaling_factor = Option.value (Gguf.get_float kv (key "expert_weights_scale")) ~default:1.0;
    qkv_bias = has "blk.0.attn_q.bias";
    expert_bias = has (Printf.sprintf "blk.%d.exp_probs_b.bias" leading) } in
  (arch, cfg)

let of_state_dict ?(half = true) cfg sd =
  let tbl = Hashtbl.create 64 in
  List.iter (fun (k, v) -> Hashtbl.replace tbl k v) sd;
  let get name shape =
    match Hashtbl.find_opt tbl name with
    | None -> invalid_arg (Printf.sprintf "from_gguf: the file has no tensor %s" name)
    | Some t ->
      if Tensor.shape t <> shape then
        invalid_arg (Printf.sprintf "from_gguf: %s has shape (%s), expected (%s)" name (dims (Tensor.shape t))
                       (dims shape));
      t in
  let opt name shape = if Hashtbl.mem tbl name then Some (get name shape) else None in
  let linear ?(bias = false) name o i =
    { Nn.Linear.weight = get (name ^ ".weight") [| o; i |];
      bias = (if bias then Some (get (name ^ ".bias") [| o |]) else None) } in
  let norm name n = { Nn.RMSNorm.eps = cfg.norm_eps; weight = Some (get (name ^ ".weight") [| n |]) } in
  let block i =
    let p = Printf.sprintf "blk.%d." i in
    let c = if i < cfg.leading_dense_blocks then
        { cfg with num_experts = 0; num_experts_per_tok = 0; shared_expert_dim = 0;
                   hidden_dim = (if cfg.dense_hidden_dim > 0 then cfg.dense_hidden_dim else cfg.hidden_dim) }
      else cfg in
    let kv_out = c.head_dim * c.n_kv_heads in
    let ffn =
      if c.num_experts > 0 then
        let e n o i = get (p ^ n ^ ".weight") [| c.num_experts; o; i |] in
        let shexp = if c.shared_expert_dim > 0 then
            Some { gate_shexp = linear (p ^ "ffn_gate_shexp") c.shared_expert_dim c.dim;
                   up_shexp = linear (p ^ "ffn_up_shexp") c.shared_expert_dim c.dim;
                   down_shexp = linear (p ^ "ffn_down_shexp") c.dim c.shared_expert_dim;
                   gate_inp_shexp =
                     (if c.shared_expert_gate then Some (get (p ^ "ffn_gate_inp_shexp.weight") [| c.dim |])
                      else None) }
          else None in
        Moe { ffn_gate_inp = linear (p ^ "ffn_gate_inp") c.num_experts c.dim;
              exp_probs_b =
                (if c.expert_bias then Some (get (p ^ "exp_probs_b.bias") [| c.num_experts |]) else None);
              experts = { gate_exps = e "ffn_gate_exps" c.hidden_dim c.dim;
                          up_exps = e "ffn_up_exps" c.hidden_dim c.dim;
                          down_exps = e "ffn_down_exps" c.dim c.hidden_dim };
              shexp }
      else Dense { ffn_gate = linear (p ^ "ffn_gate") c.hidden_dim c.dim;
                   ffn_up = linear (p ^ "ffn_up") c.hidden_dim c.dim;
                   ffn_down = linear (p ^ "ffn_down") c.dim c.hidden_dim } in
    let qk_norms = if c.qk_norm > 0 then
        let kn = if c.qk_norm = c.head_dim then c.qk_norm else kv_out in
        Some (norm (p ^ "attn_q_norm") c.qk_norm, norm (p ^ "attn_k_norm") kn)
      else None in
    { cfg = c; attn_norm = norm (p ^ "attn_norm") c.dim; ffn_norm = norm (p ^ "ffn_norm") c.dim;
      attn_q = linear ~bias:c.qkv_bias (p ^ "attn_q") (c.head_dim * c.n_heads) c.dim;
      attn_k = linear ~bias:c.qkv_bias (p ^ "attn_k") kv_out c.dim;
      attn_v = linear ~bias:c.qkv_bias (p ^ "attn_v") kv_out c.dim;
      attn_output = linear (p ^ "attn_output") c.dim (c.head_dim * c.n_heads);
      qk_norms; ffn; cache_dtype = (if half then Dtype.Float16 else Dtype.Float32); cache_kv = None } in
  let token_embd = get "token_embd.weight" [| cfg.vocab_size; cfg.dim |] in
  (* some models (Llama 3.2) tie the output to the token embedding *)
  let output =
    match opt "output.weight" [| cfg.vocab_size; cfg.dim |] with Some w -> w | None -> token_embd in
  { config = cfg; blk = Array.init cfg.num_blocks block; token_embd = { Nn.Embedding.weight = token_embd };
    output_norm = norm "output_norm" cfg.dim; output = { Nn.Linear.weight = output; bias = None };
    freqs_cis = lazy (precompute_freqs_cis cfg.rope_dim cfg.max_context cfg.rope_theta); rollout_jit = None }

(* tinygrad: llm/model.py Transformer.from_gguf *)
let from_gguf_kv ?max_context ?(half = true) ?(realize = true) (kv, sd) =
  let sd = if half then List.map (fun (k, v) -> (k, Tensor.cast v Dtype.Float16)) sd else sd in
  let has k = List.mem_assoc k sd in
  let qk_norm =
    match List.assoc_opt "blk.0.attn_q_norm.weight" sd with Some t -> (Tensor.shape t).(0) | None -> 0 in
  let arch, cfg = config_of_kv kv ~has ~qk_norm ~max_context in
  (* llama's q and k weights are stored with interleaved rotary pairs (llama.cpp's rope) *)
  let sd = if arch <> "llama" then sd else
      List.map (fun (k, v) ->
          let ends suf = Filename.check_suffix k suf in
          if ends "attn_q.weight" then
            (k, unpermute_rows v ~heads:cfg.n_heads ~prefix:(cfg.head_dim - cfg.rope_dim))
          else if ends "attn_k.weight" then (k, unpermute_rows v ~heads:cfg.n_kv_heads ~prefix:0)
          else (k, v)) sd in
  (* realized once (tinygrad's REALIZE=1), a step does not unpack the weights again; lazy, the kernels that
     read a weight dequantize it. A vector (a norm's weight, a bias) is realized either way: the matrix-vector
     kernel it fuses into reads it for every row, and from the file that is its bytes reassembled each time *)
  let kept (_, v) = realize || Tensor.ndim v = 1 in
  let sd = List.map (fun (k, v as kv) -> if kept kv then (k, Tensor.contiguous v) else kv) sd in
  Tensor.realize_all (List.map snd (List.filter kept sd));
  (of_state_dict ~half cfg sd, kv)

let from_gguf ?max_context ?half ?realize fn = from_gguf_kv ?max_context ?half ?realize (Gguf.gguf_load fn)
