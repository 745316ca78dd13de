"""GPT-2 generation in tinygrad 0.14.0, for bench/gpt2_compare.py.

The model and the generation loop are tinygrad's own examples/gpt2.py (Attention, FeedForward, TransformerBlock,
Transformer, GPT2.generate: a KV cache of MAX_CONTEXT positions, one-token steps with the token and start_pos as
bound Variables under TinyJit), restated here because the pip package does not ship examples/. Weights come from a
Hugging Face model.safetensors instead of pytorch_model.bin (same key names, Conv1D weights transposed, lm_head tied
to wte).

    python bench/gpt2_tinygrad.py MODEL_DIR --prompt-ids 1,2,3 --count 32 --repeat 3
"""
import time
T_START = time.perf_counter()  # the time to the first token counts from here, imports included
import argparse, json, os
from typing import Optional
from tinygrad import Tensor, TinyJit, Variable, Device
from tinygrad.helpers import getenv
from tinygrad.nn import Embedding, Linear, LayerNorm
from tinygrad.nn.state import safe_load, load_state_dict

MAX_CONTEXT = getenv("MAX_CONTEXT", 128)

# tinygrad 0.14.0 has no .val on a bound Variable (examples/gpt2.py predates it): its value is unbind()[1]
def val(start_pos): return start_pos.unbind()[1]

class Attention:
  def __init__(self, dim, n_heads):
    self.c_attn, self.c_proj = Linear(dim, 3*dim, bias=True), Linear(dim, dim, bias=True)
    self.n_heads, self.dim, self.head_dim = n_heads, dim, dim // n_heads

  def __call__(self, x:Tensor, start_pos, mask:Optional[Tensor]) -> Tensor:
    if mask is not None or val(start_pos) == 0: start_pos = val(start_pos)
    xqkv = self.c_attn(x)
    xq, xk, xv = [xqkv.shrink((None, None, (i*self.dim, (i+1)*self.dim))).reshape(None, None, self.n_heads, self.head_dim)
                  for i in range(3)]
    bsz, seqlen, _, _ = xq.shape
    if not hasattr(self, "cache_kv"):
      self.cache_kv = Tensor.zeros(2, bsz, MAX_CONTEXT, self.n_heads, self.head_dim, dtype=x.dtype).contiguous().realize()
    self.cache_kv.shrink((None, None, (start_pos, start_pos+seqlen), None, None)).assign(Tensor.stack(xk, xv)).realize()
    if start_pos > 0:
      keys = self.cache_kv[0].shrink((None, (0, start_pos+seqlen), None, None))
      values = self.cache_kv[1].shrink((None, (0, start_pos+seqlen), None, None))
    else: keys, values = xk, xv
    xq, keys, values = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
    return self.c_proj(xq.scaled_dot_product_attention(keys, values, mask).transpose(1, 2).reshape(bsz, seqlen, self.dim))

class FeedForward:
  def __init__(self, dim, hidden_dim): self.c_fc, self.c_proj = Linear(dim, hidden_dim), Linear(hidden_dim, dim)
  def __call__(self, x): return self.c_proj(self.c_fc(x).gelu())

class TransformerBlock:
  def __init__(self, dim, n_heads, norm_eps):
    self.attn, self.mlp = Attention(dim, n_heads), FeedForward(dim, 4*dim)
    self.ln_1, self.ln_2 = LayerNorm(dim, norm_eps), LayerNorm(dim, norm_eps)
  def __call__(self, x, start_pos, mask):
    h = x + self.attn(self.ln_1(x), start_pos, mask).float()
    return h + self.mlp(self.ln_2(h))

class Transformer:
  def __init__(self, dim, n_heads, n_layers, norm_eps, vocab_size, max_seq_len=1024):
    self.vocab_size = vocab_size
    self.wte, self.wpe = Embedding(vocab_size, dim), Embedding(max_seq_len, dim)
    self.h = [TransformerBlock(dim, n_heads, norm_eps) for _ in range(n_layers)]
    self.ln_f, self.lm_head = LayerNorm(dim, norm_eps), Linear(dim, vocab_size, bias=False)
    self.forward_jit = TinyJit(self.forward)

  def forward(self, tokens, start_pos, temperature:float=0.0):
    if not hasattr(self, 'allpos'): self.allpos = Tensor.arange(0, MAX_CONTEXT).reshape(1, -1).realize()
    if isinstance(tokens, Tensor):
      seqlen, tok_emb = tokens.shape[1], self.wte(tokens)
    else:
      seqlen, tok_emb = 1, self.wte.weight.shrink(((tokens, tokens+1), None))
    h = tok_emb + self.wpe(self.allpos.shrink((None, (start_pos, start_pos+seqlen))))
    mask = Tensor.full((1, 1, seqlen, val(start_pos)+seqlen), float("-inf"), dtype=h.dtype).triu(val(start_pos)+1) if seqlen > 1 else None
    for hi in self.h: h = hi(h, start_pos, mask)
    logits = self.lm_head(self.ln_f(h))[:, -1, :]
    ret = logits.argmax(-1) if temperature < 1e-6 else (logits / temperature).softmax().multinomial()
    return ret.flatten().realize()

  def __call__(self, tokens, start_pos, temperature:float=0.0):
    fwd = self.forward_jit if (not isinstance(tokens, Tensor) or tokens.shape[1] == 1) and getenv("JIT", 1) else self.forward
    return fwd(tokens, start_pos, temperature)

def build(model_dir):
  cfg = json.load(open(os.path.join(model_dir, "config.json")))
  model = Transformer(cfg["n_embd"], cfg["n_head"], cfg["n_layer"], cfg["layer_norm_epsilon"], cfg["vocab_size"], cfg["n_positions"])
  weights = {k.removeprefix("transformer."): v for k, v in safe_load(os.path.join(model_dir, "model.safetensors")).items()}
  for k in weights:
    if k.endswith(('attn.c_attn.weight', 'attn.c_proj.weight', 'mlp.c_fc.weight', 'mlp.c_proj.weight')): weights[k] = weights[k].T
  weights['lm_head.weight'] = weights['wte.weight']
  load_state_dict(model, weights, verbose=False)
  return model

first_token_s = None

def generate(model, prompt, count, temperature=0.0):
  global first_token_s
  toks, start_pos = prompt[:], 0
  for _ in range(count):
    if len(toks[start_pos:]) == 1: tokens = Variable("tokens", 0, model.vocab_size).bind(toks[start_pos])
    else: tokens = Tensor([toks[start_pos:]])
    tok = model(tokens, Variable("start_pos", 1 if start_pos else 0, MAX_CONTEXT).bind(start_pos), temperature).tolist()[0]
    if first_token_s is None:
      first_token_s = time.perf_counter() - T_START
      print(f"first token {first_token_s:.3f} s after the process started", flush=True)
    start_pos = len(toks)
    toks.append(tok)
  return toks[len(prompt):]

if __name__ == "__main__":
  p = argparse.ArgumentParser()
  p.add_argument("model_dir")
  p.add_argument("--prompt-ids", required=True)
  p.add_argument("--count", type=int, default=32)
  p.add_argument("--repeat", type=int, default=3)
  a = p.parse_args()
  Tensor.no_grad = True
  prompt = [int(x) for x in a.prompt_ids.split(",")]
  t0 = time.perf_counter()
  model = build(a.model_dir)
  print(f"loaded in {time.perf_counter()-t0:.2f} s on {Device.DEFAULT}", flush=True)
  for run in range(1, a.repeat+1):
    st = time.perf_counter()
    out = generate(model, prompt, a.count)
    dt = time.perf_counter() - st
    if run == 1: print(",".join(map(str, out)))
    print(f"run {run}: {a.count} tokens from a {len(prompt)}-token prompt in {dt:.3f} s, {a.count/dt:.2f} tok/s", flush=True)
