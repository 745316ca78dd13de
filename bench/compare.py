#!/usr/bin/env python3
"""Side-by-side benchmark of this port (bench/bench_ops.exe) and tinygrad 0.14.0 (bench/bench_ops.py).

Usage: python3 bench/compare.py [--ours PATH] [--modes default,beam2[,cpu_tinygrad]] [--profile NAME,...]
(make bench runs it)

- tinygrad's python: $PYTHON when it imports tinygrad 0.14.0 (e.g. PYTHON=/work/ref/venv/bin/python), else the
  venv in $BENCH_VENV (default bench/.venv, gitignored), created with `pip install tinygrad==0.14.0 numpy` if needed.
- Each mode runs both frameworks, each in its own process (BEAM is read from the environment at start):
  default (BEAM=0: hand-coded opts) and beam2 (BEAM=2). NUM_CPU_THREADS is left to each framework's default, the
  CPU count (set it in the environment to change both).
- Timing (identical on both sides): inputs realized first; warm-up runs (compile, BEAM search, JIT capture) not
  timed; the median of N timed runs, each realizing the result and synchronizing the device.
- BEAM caches: ours in ~/.cache/tinygrad/ocaml/beam_search, tinygrad's in its cache.db (CACHELEVEL). The first
  BEAM run searches (reported as a cold cache with the number of searches); the search is in the warm-up, never
  in the timed runs.
- --cache-dir DIR: both frameworks keep their caches (BEAM, compiled kernels) under DIR (XDG_CACHE_HOME); an empty
  DIR gives a cold BEAM cache. Caches filled on a busy machine keep the picks its noisy timings made.
- PyTorch: when $PYTHON (or tinygrad's python) imports torch, bench/bench_torch.py runs the same workloads once
  (eager, NUM_CPU_THREADS threads, the CPU count by default) and every row gains a torch column and ours/torch.
- Load: every row shows the CPUs that other processes kept busy while ours and torch ran that workload ("others
  o/t", the machine's busy time in /proc/stat less the benchmark process's own, over the wall time). The frameworks
  run one after another, so on a machine shared with other work the two sides of a ratio may see different loads.
- --profile NAME,...: where a workload's time goes: ours and tinygrad rerun it with DEBUG=2 and the kernels are
  listed by total time, with calls, mean time, GFLOPS and GB/s (from each framework's DEBUG=2 lines).
- BENCH_QUICK=1: 3 reps, no matmul 1024/2048 and no beautiful_mnist step. BENCH_ONLY=name,... selects workloads.
- --skip MODE:NAME,...: leaves a workload out of one mode only (e.g. beam2:mnist_step_jit, whose cold BEAM search
  takes hours on 2 cores for tinygrad); its cells print as "-".
- --no-tinygrad: ours (and torch) only; the tinygrad column prints as "-" (tinygrad's cold BEAM=2 search of matmul
  2048 alone takes a long time on 2 cores).
- Cold start (rows "cold start: first/second step", mode "cold"): each framework in a fresh process with
  XDG_CACHE_HOME at a new empty folder (no compiled kernel, no BEAM result; the realize and schedule caches are
  in-memory) and default opts runs beautiful_mnist's first JIT step (every kernel compiled), then the second (the
  JIT's capture); each is timed once, synchronized. torch compiles nothing: its two steps are its first eager
  ones. Left out by --no-cold and by BENCH_QUICK=1 (BENCH_ONLY=cold_start runs it alone).
"""
import argparse, os, subprocess, sys, tempfile, time, venv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# cpu_tinygrad (not in the default --modes): our default opts with CPU_OPT=tinygrad, tinygrad 0.14.0's CPU kernels
# (tinygrad has no such knob: its column is its plain default)
MODES = {"default": {"BEAM": "0"}, "beam2": {"BEAM": "2"}, "cpu_tinygrad": {"BEAM": "0", "CPU_OPT": "tinygrad"}}
ORDER = ["elementwise", "sum_axis1", "matmul_256", "matmul_512", "matmul_1024", "matmul_2048",
         "gemv_kn_768_2304", "gemv_nk_768_2304", "gemv_kn_768_3072", "gemv_nk_768_3072", "gemv_kn_3072_768",
         "gemv_nk_3072_768", "gemv_kn_768_50257", "gemv_nk_768_50257", "gemv_kn_768_3072_bias_gelu",
         "gemv_nk_768_3072_bias_gelu", "gemv_half_kn_1024_4096_gate", "gemv_half_nk_1024_4096_gate", "softmax",
         "conv2d_1_32", "conv2d_32_64", "mlp_adam_eager", "mlp_adam_jit", "mnist_step_jit", "dispatch_eager",
         "dispatch_eager_x1000", "dispatch_jit", "cold_step1", "cold_step2"]
DESC = {"elementwise": "relu(a*b+1), 4M floats", "sum_axis1": "sum axis 1, 4096x4096",
        "matmul_256": "matmul 256", "matmul_512": "matmul 512", "matmul_1024": "matmul 1024",
        "matmul_2048": "matmul 2048",
        **{f"gemv_{l}_{k}_{n}": f"x(1,{k}) @ W{'(%d,%d)' % (k, n) if l == 'kn' else '(%d,%d).T' % (n, k)}"
           for l in ("kn", "nk") for k, n in ((768, 2304), (768, 3072), (3072, 768), (768, 50257))}, "gemv_kn_768_3072_bias_gelu": "gelu(x(1,768) @ W(768,3072) + b)",
        "gemv_nk_768_3072_bias_gelu": "gelu(x(1,768) @ W(3072,768).T + b)", "softmax": "softmax rows, 4096x1024",
        **{f"gemv_half_{l}_1024_4096_gate": f"half x(1,1024) @ W{'(1024,4096)' if l == 'kn' else '(4096,1024).T'} * gate"
           for l in ("kn", "nk")}, "conv2d_1_32": "conv2d 1->32 3x3 b32 28x28",
        "conv2d_32_64": "conv2d 32->64 3x3 b32 28x28", "mlp_adam_eager": "MLP 784-128-10 Adam b128 eager",
        "mlp_adam_jit": "MLP 784-128-10 Adam b128 JIT", "mnist_step_jit": "beautiful_mnist step b512 JIT",
        "dispatch_eager": "1-element add, eager",
        "dispatch_eager_x1000": "1000 such adds (ms = us/add)", "dispatch_jit": "1-element add, JIT",
        "cold_step1": "cold start: first mnist step", "cold_step2": "cold start: second mnist step"}

def has_tinygrad(py):
  try:
    out = subprocess.run([py, "-c", "import tinygrad, numpy, importlib.metadata as m; print(m.version('tinygrad'))"],
                         capture_output=True, text=True, timeout=120)
    return out.returncode == 0 and out.stdout.strip() == "0.14.0"
  except (OSError, subprocess.TimeoutExpired): return False

def tinygrad_python():
  py = os.environ.get("PYTHON")
  if py and has_tinygrad(py): return py
  d = os.environ.get("BENCH_VENV", os.path.join(ROOT, "bench", ".venv"))
  py = os.path.join(d, "bin", "python")
  if not has_tinygrad(py):
    print(f"creating {d} with tinygrad==0.14.0 and numpy ...", flush=True)
    venv.create(d, with_pip=True)
    subprocess.run([py, "-m", "pip", "install", "-q", "tinygrad==0.14.0", "numpy"], check=True)
  return py

def has_torch(py):
  try: return subprocess.run([py, "-c", "import torch"], capture_output=True, timeout=120).returncode == 0
  except (OSError, subprocess.TimeoutExpired): return False

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

def busy_cpu_seconds():
  """CPU seconds the whole machine has spent busy since boot (Linux /proc/stat: all but idle and iowait), or None"""
  try:
    with open("/proc/stat") as f: v = [int(x) for x in f.readline().split()[1:]]
  except (OSError, ValueError): return None
  return (sum(v) - v[3] - v[4]) / CLK_TCK

def process_cpu_seconds(pid):
  """user + system CPU seconds of process [pid], all its threads (Linux /proc/PID/stat), or None"""
  try:
    with open(f"/proc/{pid}/stat") as f: fields = f.read().rsplit(")", 1)[1].split()
  except (OSError, IndexError): return None
  return (int(fields[11]) + int(fields[12])) / CLK_TCK

# /proc/stat counts in clock ticks (10 ms): over a shorter window than this the load would be off by more than
# 0.04 of a CPU
LOAD_MIN_WALL_S = 0.25

def others_cpus(busy0, busy1, own0, own1, wall):
  """the CPUs that other processes kept busy on average over [wall] seconds: the machine's busy CPU time less the
  benchmarked process's own, over the wall time (None when a sample is missing or the window too short)"""
  if None in (busy0, busy1, own0, own1) or wall < LOAD_MIN_WALL_S: return None
  return max(0.0, (busy1 - busy0) - (own1 - own0)) / wall

def run(cmd, env_extra):
  """runs one benchmark process; returns its RESULT rows, its INFO fields and, per workload, the CPUs other processes
  kept busy from its first (untimed) call to its RESULT line (others_cpus), the timed runs included"""
  env = dict(os.environ, **env_extra)
  # PYTHON is also tinygrad's PYTHON device flag (an int): never pass ours on
  for k in ("DEBUG", "NOOPT", "JITBEAM", "PYTHON"): env.pop(k, None)
  res, info, load, started, out = {}, {}, {}, {}, []
  with tempfile.TemporaryFile(mode="w+") as err:
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=err, text=True, cwd=ROOT, bufsize=1)
    for line in p.stdout:
      # sampled as each line arrives: every benchmark flushes its lines as it prints them
      now, busy, own = time.perf_counter(), busy_cpu_seconds(), process_cpu_seconds(p.pid)
      out.append(line)
      f = line.rstrip("\n").split("\t")
      if f[0] == "RESULT":
        res[f[1]] = (float(f[2]), float(f[3]), int(f[4]))
        if f[1] in started:
          t0, busy0, own0 = started.pop(f[1])
          load[f[1]] = others_cpus(busy0, busy, own0, own, now - t0)
      elif f[0] == "INFO" and f[1] == "first_call": started[f[2]] = (now, busy, own)
      elif f[0] == "INFO" and f[1] == "beam_searches": info["searches"], info["warmup_s"] = int(f[2]), float(f[4])
      elif f[0] == "INFO" and f[1] == "config": info["config"] = f[2]
    p.wait()
    if p.returncode != 0:
      err.seek(0)
      sys.stderr.write("".join(out)[-3000:] + err.read()[-3000:])
      print(f"!! {' '.join(cmd)} failed with exit code {p.returncode}", flush=True)
  info["load"] = load
  return res, info

def kernel_lines(out):
  """(name, seconds, GFLOPS, GB/s) of each DEBUG=2 kernel line ("*** CPU  n NAME arg .. tm T/.. (G GFLOPS M|L GB/s)")"""
  unit = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
  for line in out.splitlines():
    f = line.split()
    if len(f) < 8 or f[0] != "***" or "tm" not in f or "GFLOPS" not in f: continue
    t = f[f.index("tm") + 1].split("/")[0]
    num = t.rstrip("usm")
    try: sec = float(num) * unit[t[len(num):] or "s"]
    except (ValueError, KeyError): continue
    g = f.index("GFLOPS")
    yield f[3], sec, float(f[g - 1]), float(f[g + 1].split("|")[0])

def profile(cmd, env_extra, name, top=10):
  env = dict(os.environ, **env_extra, DEBUG="2", NO_COLOR="1", BENCH_ONLY=name)
  env.pop("PYTHON", None)
  p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
  agg = {}
  for k, sec, gf, gb in kernel_lines(p.stdout):
    a = agg.setdefault(k, [0, 0.0, 0.0, 0.0])
    a[0] += 1; a[1] += sec; a[2] += gf * sec; a[3] += gb * sec
  total = sum(a[1] for a in agg.values()) or 1e-20
  print(f"  {'kernel':48s} {'calls':>6s} {'total ms':>9s} {'share':>6s} {'mean us':>9s} {'GFLOPS':>7s} {'GB/s':>6s}")
  for k, (n, sec, gfs, gbs) in sorted(agg.items(), key=lambda kv: -kv[1][1])[:top]:
    print(f"  {k[:48]:48s} {n:6d} {sec*1e3:9.2f} {100*sec/total:5.1f}% {sec/n*1e6:9.1f} {gfs/sec:7.1f} {gbs/sec:6.1f}")
  print(f"  ({len(agg)} kernels, {total*1e3:.1f} ms in all over every run, warm-up included)")

def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("--ours", default=os.path.join(ROOT, "_build", "default", "bench", "bench_ops.exe"))
  ap.add_argument("--modes", default="default,beam2")
  ap.add_argument("--cache-dir", help="XDG_CACHE_HOME for both frameworks (an empty folder: a cold BEAM cache)")
  ap.add_argument("--skip", default="", help="MODE:NAME,... workloads left out of one mode")
  ap.add_argument("--profile", default="", help="NAME,...: the top kernels of these workloads, ours and tinygrad's")
  ap.add_argument("--no-tinygrad", action="store_true", help="run ours (and torch) only")
  ap.add_argument("--no-cold", action="store_true", help="leave out the cold start rows")
  args = ap.parse_args()
  if args.cache_dir: os.environ["XDG_CACHE_HOME"] = os.path.abspath(args.cache_dir)
  py = tinygrad_python()
  modes = [m for m in args.modes.split(",") if m]
  table = []
  skip = [tuple(s.split(":", 1)) for s in args.skip.split(",") if ":" in s]
  only = [p for p in os.environ.get("BENCH_ONLY", "").split(",") if p]
  for mode in ([] if only == ["cold_start"] else modes):
    env = dict(MODES[mode])
    skipped = [n for m, n in skip if m == mode]
    if skipped:
      names = [n for n in ORDER if (not only or any(n.startswith(p) for p in only)) and n not in skipped]
      env["BENCH_ONLY"] = ",".join(names)
    print(f"running mode {mode}: ours ...", flush=True)
    ours, oi = run([args.ours], env)
    if args.no_tinygrad: tg, ti = {}, {}
    else:
      print(f"running mode {mode}: tinygrad ...", flush=True)
      tg, ti = run([py, os.path.join(ROOT, "bench", "bench_ops.py")], env)
    table.append((mode, ours, oi, tg, ti))
  torch_res, tti = {}, {}
  tpy = os.environ.get("PYTHON") if os.environ.get("PYTHON") and has_torch(os.environ["PYTHON"]) else py
  torch_ok = has_torch(tpy)
  if torch_ok and not only == ["cold_start"]:
    print("running torch ...", flush=True)
    env = {"BENCH_ONLY": os.environ.get("BENCH_ONLY", "")}
    torch_res, tti = run([tpy, os.path.join(ROOT, "bench", "bench_torch.py")], env)
  elif not torch_ok: print(f"torch does not import in {tpy}: no torch column", flush=True)
  quick = os.environ.get("BENCH_QUICK", "0") not in ("", "0")
  if not args.no_cold and (only == ["cold_start"] or not (only or quick)):
    # each in a fresh process over an empty cache folder of its own, removed afterwards
    def cold(cmd):
      with tempfile.TemporaryDirectory(prefix="cold_") as d:
        return run(cmd, {"BEAM": "0", "BENCH_ONLY": "cold_start", "XDG_CACHE_HOME": d})[0]
    print("running the cold start: ours ...", flush=True)
    ours_c = cold([args.ours])
    tg_c = {}
    if not args.no_tinygrad:
      print("running the cold start: tinygrad ...", flush=True)
      tg_c = cold([py, os.path.join(ROOT, "bench", "bench_ops.py")])
    if torch_ok:
      print("running the cold start: torch ...", flush=True)
      torch_res.update(cold([tpy, os.path.join(ROOT, "bench", "bench_torch.py")]))
    if "cold_compiled" in ours_c:
      procs = f" in {int(ours_c['cold_clang_processes'][0])} clang processes" if "cold_clang_processes" in ours_c else ""
      print(f"cold start: ours compiled {int(ours_c['cold_compiled'][0])} kernels{procs}", flush=True)
    table.append(("cold", ours_c, {}, tg_c, {}))
  print()
  for mode, _, oi, _, ti in table:
    if mode not in MODES: continue
    for who, i in (("ours", oi), ("tinygrad", ti)):
      if who == "tinygrad" and args.no_tinygrad: continue
      cache = ""
      if MODES[mode]["BEAM"] != "0" and "searches" in i:
        cache = f", BEAM cache {'cold: ' + str(i['searches']) + ' kernels searched' if i['searches'] else 'warm (no search)'}"
      print(f"{mode:8s} {who:9s}: {i.get('config', '?')}; warm-up (untimed) {i.get('warmup_s', float('nan')):.1f} s{cache}")
  if tti: print(f"{'':8s} {'torch':9s}: {tti.get('config', '?')}")
  print()
  hdr = (f"{'workload':32s} {'mode':12s} {'ours ms':>10s} {'tinygrad ms':>12s} {'torch ms':>9s} {'tg/ours':>7s} "
         f"{'ours/torch':>10s}  {'GFLOPS ours / tinygrad / torch':>30s}  {'others o/t':>10s}")
  print(hdr); print("-" * len(hdr))
  for name in ORDER:
    for mode, ours, oi, tg, _ in table:
      if name not in ours and name not in tg: continue
      o, t, pt = ours.get(name), tg.get(name), torch_res.get(name)
      ratio = f"{t[0]/o[0]:6.2f}x" if o and t else "      -"
      vs_torch = f"{o[0]/pt[0]:9.2f}x" if o and pt else "        -"
      fl = (o or t)[1]
      gfl = lambda x: f"{fl/x[0]/1e6:.1f}" if x else "-"
      gf = f"{gfl(o)} / {gfl(t)} / {gfl(pt)}" if fl else ""
      # a matrix-vector product reads its matrix once: 4 bytes per 2 flops (2 in float16); its row shows GB/s
      bpf = 1 if "half" in name else 2
      if name.startswith("gemv") and fl: gf = " / ".join(f"{bpf*fl/x[0]/1e6:.1f}" if x else "-" for x in (o, t, pt)) + " GB/s"
      # the dispatch rows take microseconds: 4 decimals (0.1 us) so that a 3 us bound can be read off the ms column
      fmt = lambda x: (f"{x[0]:.4f}" if name.startswith("dispatch") else f"{x[0]:.3f}") if x else "-"
      # the CPUs other processes kept busy while ours and torch ran this workload: on a shared machine a kernel
      # threaded over every core runs about as many times slower as the cores others take
      busy = lambda i: (f"{i['load'][name]:.2f}" if i.get("load", {}).get(name) is not None else "-")
      others = f"{busy(oi)}/{busy(tti)}"
      print(f"{DESC.get(name, name):32s} {mode:12s} {fmt(o):>10s} {fmt(t):>12s} {fmt(pt):>9s} {ratio:>7s} {vs_torch:>10s}  {gf:>30s}"
            f"  {others:>10s}")
  print("\ntg/ours = tinygrad time / our time (>1: we are faster); ours/torch = our time / torch's (<1: we are faster)."
        "\nMedian of N runs after untimed warm-up (the cold start rows: one run each, in a fresh process)."
        "\nothers o/t = the CPUs that other processes kept busy on average while ours / torch ran the workload (from its"
        "\nfirst call to its result; Linux /proc/stat): a ratio whose two sides saw different loads compares machines.")
  for name in [n for n in args.profile.split(",") if n]:
    for mode in modes:
      print(f"\nprofile {name}, mode {mode}, ours:")
      profile([args.ours], MODES[mode], name)
      if args.no_tinygrad: continue
      print(f"profile {name}, mode {mode}, tinygrad:")
      profile([py, os.path.join(ROOT, "bench", "bench_ops.py")], MODES[mode], name)

if __name__ == "__main__": main()
