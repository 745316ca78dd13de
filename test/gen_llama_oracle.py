# tinygrad 0.14.0's extra/models/llama.py Transformer with the arguments of test_multitensor.py's
# test_transformer, for test/test_multitensor.ml (llama_transformer_vs_tinygrad): seed 0, the parameters
# realized when drawn, five greedy tokens each fed back from token 0, and the sum of the layer-0 KV cache.
# Run: PYTHONPATH=<a tinygrad checkout, for extra/> DEV=CPU /work/venv/bin/python test/gen_llama_oracle.py
from tinygrad import Tensor, Device, nn
from tinygrad.nn.state import get_parameters
from extra.models.llama import Transformer
args = {"dim": 32, "n_heads": 1, "n_kv_heads": 1, "n_layers": 2, "norm_eps": 1e-5, "rope_theta": 500000,
        "vocab_size": 1024,
        "hidden_dim": 32, "max_context": 12}
Tensor.manual_seed(0)
real_model = Transformer(**args)
Tensor.realize(*get_parameters(real_model))
last_tok, toks = 0, []
for i in range(5):
  last_tok = real_model(Tensor([[last_tok]], device=Device.DEFAULT), i).item()
  toks.append(last_tok)
print("tokens", toks, "cache sum", real_model.layers[0].attention.cache_kv.numpy().sum())
