"""GPT-2 generation speed, side by side: this port (examples/gpt2.exe), tinygrad 0.14.0 (bench/gpt2_tinygrad.py, its
examples/gpt2.py) and torch's Hugging Face `generate` with the KV cache, on one GPT-2-small-shaped model.

    python3 bench/gpt2_compare.py [--model DIR] [--python /work/venv/bin/python] [--tinygrad-python PY] [--count 32]
                                  [--prompt-len 16]

The model is a randomly initialised GPT2LMHeadModel (GPT-2 small's config with initializer_range 0.2, torch seed 0,
so that greedy tokens vary with the position) saved by transformers as model.safetensors in DIR (default
$TMPDIR/gpt2-small-random-init02, made when missing; it is about 500 MB and is never part of the repository). Each implementation runs in a fresh process that loads the model and generates COUNT tokens
greedily from the same PROMPT_LEN-token prompt REPEAT times: the first generation includes every compile (each
process gets an empty XDG_CACHE_HOME: no cached kernel), "first token" is the time from the process's start (imports
included) to the first generated token, tok/s is COUNT over the best later
generation (tinygrad generates twice by default: its steps take seconds). torch runs with 2 threads. The three
must generate the same tokens (they are checked).
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

TORCH_DRIVER = r'''
import time
T_START = time.perf_counter()
import sys, torch
from transformers import GPT2LMHeadModel
model_dir, ids, count, repeat = sys.argv[1], [int(x) for x in sys.argv[2].split(",")], int(sys.argv[3]), int(sys.argv[4])
device = sys.argv[5] if len(sys.argv) > 5 else "cpu"
sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
torch.set_num_threads(2)
t0 = time.perf_counter()
m = GPT2LMHeadModel.from_pretrained(model_dir).eval().to(device)
print(f"loaded in {time.perf_counter()-t0:.2f} s", flush=True)
x = torch.tensor([ids], device=device)
with torch.no_grad():
  m(x, attention_mask=torch.ones_like(x))  # the prompt's step: its argmax is the first token
  sync()
print(f"first token {time.perf_counter()-T_START:.3f} s after the process started", flush=True)
for run in range(1, repeat+1):
  st = time.perf_counter()
  with torch.no_grad():
    out = m.generate(x, max_new_tokens=count, min_new_tokens=count, do_sample=False, use_cache=True,
                     attention_mask=torch.ones_like(x), pad_token_id=0)
  sync()
  dt = time.perf_counter() - st
  if run == 1: print(",".join(map(str, out[0, len(ids):].tolist())))
  print(f"run {run}: {count} tokens from a {len(ids)}-token prompt in {dt:.3f} s, {count/dt:.2f} tok/s", flush=True)
'''

# initializer_range 0.2 instead of GPT-2's 0.02: with the small init every position's logits are nearly the same and
# greedy decoding repeats one token, so neither the positions nor the KV cache would be exercised
MAKE_MODEL = r'''
import sys, torch
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
GPT2LMHeadModel(GPT2Config(initializer_range=0.2)).eval().save_pretrained(sys.argv[1], safe_serialization=True)
'''

RUN_RE = re.compile(r"run (\d+): (\d+) tokens from a (\d+)-token prompt in ([0-9.]+) s")
FIRST_RE = re.compile(r"first token ([0-9.]+) s after the process started")

def run(name, cmd, env):
  shown = [("<script>" if prev == "-c" else c) for prev, c in zip([""] + cmd, cmd)]
  print(f"--- {name}: {' '.join(shown)}", flush=True)
  st = time.perf_counter()
  full_env = {**os.environ, **env}
  # PYTHON is also tinygrad's PYTHON device flag (an int): never pass make's on
  full_env.pop("PYTHON", None)
  p = subprocess.run(cmd, env=full_env, capture_output=True, text=True)
  wall = time.perf_counter() - st
  if p.returncode != 0:
    print(p.stdout[-2000:], p.stderr[-4000:])
    return None
  lines = p.stdout.strip().splitlines()
  for l in lines: print("   ", l[:200])
  runs = [float(m.group(4)) for m in map(RUN_RE.search, lines) if m]
  tokens = next((l for l in lines if re.fullmatch(r"[0-9,]+", l.strip())), None)
  ttft = next((float(m.group(1)) for m in map(FIRST_RE.search, lines) if m), float("nan"))
  return {"first": runs[0], "best": min(runs[1:] or runs), "tokens": tokens, "wall": wall, "ttft": ttft}

def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--model", default=os.path.join(tempfile.gettempdir(), "gpt2-small-random-init02"))
  ap.add_argument("--python", default=os.environ.get("PYTHON", sys.executable))
  ap.add_argument("--tinygrad-python", help="the python with tinygrad 0.14.0 (default: --python)")
  ap.add_argument("--ours", default=os.path.join(ROOT, "_build/default/examples/gpt2.exe"))
  ap.add_argument("--count", type=int, default=32)
  ap.add_argument("--prompt-len", type=int, default=16)
  ap.add_argument("--repeat", type=int, default=3)
  ap.add_argument("--tinygrad-repeat", type=int, default=2, help="tinygrad's generations (its steps take seconds)")
  ap.add_argument("--only", default="ours,tinygrad,torch", help="comma-separated subset of ours,tinygrad,torch")
  ap.add_argument("--device", default="cpu", help="cpu, or cuda: the three run on the GPU (DEV=CUDA, torch's cuda)")
  a = ap.parse_args()
  tpy = a.tinygrad_python or a.python
  caches = []  # the empty cache folders given to the processes, removed at the end
  def fresh():
    caches.append(tempfile.mkdtemp(prefix="gpt2_cold_"))
    return {"XDG_CACHE_HOME": caches[-1]}
  if not os.path.exists(os.path.join(a.model, "model.safetensors")):
    if subprocess.run([a.python, "-c", "import torch, transformers"], capture_output=True).returncode != 0:
      sys.exit(f"no {a.model}/model.safetensors, and {a.python} cannot import torch and transformers to make one")
    print(f"making a random GPT-2 small in {a.model}", flush=True)
    subprocess.run([a.python, "-c", MAKE_MODEL, a.model], check=True)
  prompt = ",".join(str((1000 + 397 * i) % 50257) for i in range(a.prompt_len))
  rows = {}
  only = a.only.split(",")
  gpu = a.device != "cpu"
  dev_env = {"DEV": "CUDA"} if gpu else {}
  for mod in ("tinygrad", "torch"):
    if mod in only and subprocess.run([tpy if mod == "tinygrad" else a.python, "-c", f"import {mod}, safetensors" + (", transformers" if mod == "torch" else "")],
                                      capture_output=True).returncode != 0:
      print(f"({mod} not importable with {a.python}: skipping its row; pass --python or PYTHON=)")
      only.remove(mod)
  if "ours" in only:
    rows["ours (examples/gpt2.exe)"] = run("ours", [a.ours, "--model", a.model, "--prompt-ids", prompt, "--count",
                                      str(a.count), "--temperature", "0", "--repeat", str(a.repeat)], {**fresh(), **dev_env})
  if "tinygrad" in only:
    rows["tinygrad 0.14.0 (examples/gpt2.py, JIT=1)"] = run("tinygrad", [tpy, os.path.join(HERE, "gpt2_tinygrad.py"),
                                      a.model, "--prompt-ids", prompt, "--count", str(a.count), "--repeat", str(a.tinygrad_repeat)],
                                      {**fresh(), **dev_env, "JIT": "1"})
  if "torch" in only:
    # torch's OpenMP threads spin while they wait (OMP_WAIT_POLICY=ACTIVE); on a machine where other processes run,
    # that spinning slows it several times, so it also runs with PASSIVE and the faster of the two is the reference
    for policy in (("ACTIVE",) if gpu else ("ACTIVE", "PASSIVE")):
      rows[f"torch (HF generate, cache, 2 threads, OMP_WAIT_POLICY={policy})"] = run(
          f"torch {policy}", [a.python, "-c", TORCH_DRIVER, a.model, prompt, str(a.count), str(a.repeat), a.device],
          {**fresh(), "OMP_WAIT_POLICY": policy})
  torch_rows = [r for n, r in rows.items() if n.startswith("torch") and r]
  torch_row = min(torch_rows, key=lambda r: r["best"]) if torch_rows else None
  print(f"\nGPT-2 small shape (12 layers, width 768, vocabulary 50257), {a.count} tokens from a {a.prompt_len}-token prompt, greedy")
  print(f"| implementation | tok/s | first token, s | first generation, s (compiles included) | process, s | vs the faster torch |")
  print(f"|---|---|---|---|---|---|")
  for name, r in rows.items():
    if r is None: print(f"| {name} | failed | | | | |"); continue
    tps = a.count / r["best"]
    rel = f"{tps / (a.count / torch_row['best']):.2f}x" if torch_row else ""
    print(f"| {name} | {tps:.1f} | {r['ttft']:.2f} | {r['first']:.1f} | {r['wall']:.1f} | {rel} |")
  # the last COUNT ids of each (ours prints the prompt too)
  toks = {n: ",".join(r["tokens"].split(",")[-a.count:]) for n, r in rows.items() if r and r["tokens"]}
  if len(set(toks.values())) > 1: print("WARNING: the implementations generated different tokens:", toks)
  elif toks: print("all generated the same tokens")
  for n, t in toks.items():
    if len(set(t.split(","))) == 1: print(f"WARNING: {n} generated one token repeated: {t}")
  for d in caches: shutil.rmtree(d, ignore_errors=True)

if __name__ == "__main__":
  main()
