"""Language-model speed, side by side: this port (examples/llm.exe), llama.cpp (through llama-cpp-python) and torch
(Hugging Face `generate`, float32 and bfloat16), on one Llama-3.2-1B-shaped model with random weights.

    python3 bench/llm_compare.py --python /work/venv-llm/bin/python --llama-cpp DIR [--dir DIR] [--count 32]

The model (Llama 3.2 1B's shape: 16 blocks, width 2048, 32 heads, 8 KV heads, hidden 8192, vocabulary 128256, tied
embeddings) is a randomly initialised LlamaForCausalLM saved by transformers in DIR (default
$TMPDIR/llama-1b-random, made when missing, about 5 GB; never part of the repository), converted to Q8_0 and F16
GGUF files there by llama.cpp's convert_hf_to_gguf.py (from the llama.cpp source tree --llama-cpp names, e.g. the
vendor/llama.cpp of the llama-cpp-python sdist). PYTHON must import torch, transformers, tokenizers, sentencepiece
and llama_cpp. Each implementation runs in a fresh process, 2 threads, with the same 64-token prompt, generating
COUNT tokens greedily REPEAT times: prefill is the prompt's tokens over the time to the first new token, decode the
later tokens over their time; the best run counts (the port's first run compiles its kernels).
"""
import argparse, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROMPT = [(i * 7919) % 120000 + 100 for i in range(64)]
MODES = {"half": "float16 weights and cache", "f32": "float32 weights and cache",
         "lazy": "weights dequantized in the kernels, float16", "lazy-f32": "weights dequantized in the kernels"}

MAKE_MODEL = r'''
import sys, torch
from tokenizers import Tokenizer, models, pre_tokenizers, decoders, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
d = sys.argv[1]
torch.manual_seed(0)
cfg = LlamaConfig(vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                  num_attention_heads=32, num_key_value_heads=8, head_dim=64, rms_norm_eps=1e-5, rope_theta=500000.0,
                  max_position_embeddings=131072, tie_word_embeddings=True, bos_token_id=0, eos_token_id=1)
LlamaForCausalLM(cfg).save_pretrained(d)
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
tok.train_from_iterator(["a small corpus for a tokenizer"] * 4, trainers.BpeTrainer(vocab_size=300,
  special_tokens=["<|begin_of_text|>", "<|end_of_text|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|begin_of_text|>", eos_token="<|end_of_text|>").save_pretrained(d)
'''

CONVERT = r'''
import sys
lc, d, outtype, out = sys.argv[1:5]
sys.path[:0] = [lc, lc + "/gguf-py"]
import conversion.base as b
b.TextModel.get_vocab_base_pre = lambda self, tokenizer: "llama-bpe"
import convert_hf_to_gguf as c
sys.argv = ["convert", d, "--outtype", outtype, "--outfile", out]
c.main()
'''

LLAMA_CPP = r'''
import sys, time
import numpy as np
from llama_cpp import Llama
path, ids, count, repeat = sys.argv[1], [int(x) for x in sys.argv[2].split(",")], int(sys.argv[3]), int(sys.argv[4])
llm = Llama(model_path=path, n_ctx=256, n_threads=2, n_threads_batch=2, n_batch=64, logits_all=True, verbose=False)
for run in range(1, repeat + 1):
  llm.reset()
  t0 = time.perf_counter()
  llm.eval(ids)
  tok = int(np.argmax(llm.scores[llm.n_tokens - 1]))
  t1 = time.perf_counter()
  for _ in range(count - 1):
    llm.eval([tok]); tok = int(np.argmax(llm.scores[llm.n_tokens - 1]))
  t2 = time.perf_counter()
  print(f"run {run}: prefill: {len(ids)} tokens in {t1-t0:.3f} s ({len(ids)/(t1-t0):.1f} tok/s)")
  print(f"run {run}: decode: {count-1} tokens in {t2-t1:.3f} s ({(count-1)/(t2-t1):.2f} tok/s)", flush=True)
'''

TORCH = r'''
import sys, time, torch
from transformers import LlamaForCausalLM
d, ids, count, repeat, dtype = sys.argv[1], [int(x) for x in sys.argv[2].split(",")], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
torch.set_num_threads(2)
m = LlamaForCausalLM.from_pretrained(d, torch_dtype=getattr(torch, dtype)).eval()
x = torch.tensor([ids])
for run in range(1, repeat + 1):
  with torch.no_grad():
    t0 = time.perf_counter()
    m.generate(x, max_new_tokens=1, min_new_tokens=1, do_sample=False, attention_mask=torch.ones_like(x), pad_token_id=0)
    t1 = time.perf_counter()
    m.generate(x, max_new_tokens=count, min_new_tokens=count, do_sample=False, attention_mask=torch.ones_like(x), pad_token_id=0)
    t2 = time.perf_counter()
  dec = (t2 - t1) - (t1 - t0)
  print(f"run {run}: prefill: {len(ids)} tokens in {t1-t0:.3f} s ({len(ids)/(t1-t0):.1f} tok/s)")
  print(f"run {run}: decode: {count-1} tokens in {dec:.3f} s ({(count-1)/dec:.2f} tok/s)", flush=True)
'''

def run(cmd, env=None):
  print("$", cmd[0], cmd[1] if cmd[1] != "-c" else "-c <script>", *cmd[3:5], flush=True)
  p = subprocess.run(cmd, capture_output=True, text=True, env=env)
  if p.returncode != 0:
    print(p.stdout[-2000:], p.stderr[-4000:]); return None
  return p.stdout + p.stderr

def best(out, what):
  vals = [float(v) for v in re.findall(rf"{what}: \d+ tokens in [\d.]+ s \(([\d.]+) tok/s\)", out or "")]
  return max(vals) if vals else float("nan")

def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("--python", default=sys.executable)
  ap.add_argument("--llama-cpp", required=True)
  ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "llama-1b-random"))
  ap.add_argument("--count", type=int, default=32)
  ap.add_argument("--repeat", type=int, default=3)
  ap.add_argument("--only", default="ours,llama.cpp,torch-f32,torch-bf16")
  ap.add_argument("--ours-modes", default="half,lazy", help="half, f32, lazy, lazy-f32 (examples/llm.exe); the lazy "
                  "modes run on the quantized file only")
  a = ap.parse_args()
  only = a.only.split(",")
  if not os.path.exists(os.path.join(a.dir, "config.json")):
    run([a.python, "-c", MAKE_MODEL, a.dir])
  files = {}
  for typ in ["q8_0", "f16"]:
    files[typ] = os.path.join(a.dir, f"llama-1b-{typ}.gguf")
    if not os.path.exists(files[typ]): run([a.python, "-c", CONVERT, a.llama_cpp, a.dir, typ, files[typ]])
  ids = ",".join(map(str, PROMPT))
  rows = []
  env = dict(os.environ, THREADS="2")
  for typ, f in files.items():
    for mode in (a.ours_modes.split(",") if "ours" in only else []):
      # an F16 file has no quantized weights for the kernels to dequantize
      if mode.startswith("lazy") and typ == "f16": continue
      flags = {"half": [], "f32": ["--f32"], "lazy-f32": ["--f32", "--lazy"], "lazy": ["--lazy"]}[mode]
      out = run([os.path.join(ROOT, "_build/default/examples/llm.exe"), "--gguf", f, "--prompt-ids", ids, "--count",
                 str(a.count), "--repeat", str(a.repeat), "--max-context", "256", *flags], env)
      rows.append((f"this port, {typ}, {MODES[mode]}", best(out, "prefill"), best(out, "decode")))
    if "llama.cpp" in only:
      out = run([a.python, "-c", LLAMA_CPP, f, ids, str(a.count), str(a.repeat)])
      rows.append((f"llama.cpp, {typ}", best(out, "prefill"), best(out, "decode")))
  for dt in ["float32", "bfloat16"]:
    if f"torch-{dt[:1]}{dt[-2:]}" in only or f"torch-{'f32' if dt == 'float32' else 'bf16'}" in only:
      out = run([a.python, "-c", TORCH, a.dir, ids, str(a.count), str(a.repeat), dt])
      rows.append((f"torch {dt}, HF generate", best(out, "prefill"), best(out, "decode")))
  print(f"\n| Llama-3.2-1B shape, 64-token prompt, {a.count} tokens, 2 threads | prefill tok/s | decode tok/s |")
  print("|---|---|---|")
  for name, p, d in rows: print(f"| {name} | {p:.1f} | {d:.2f} |")

if __name__ == "__main__": main()
