# tinygrad for OCaml. `make test` works on a fresh Debian 12 machine (root or sudo).
DEBS := ocaml ocaml-dune ocaml-findlib libctypes-ocaml-dev libffi-dev libzarith-ocaml-dev clang
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build test test-emu test-sanitize gpu-bundle test-gpu check-gpu-backends test-ops test-long test-multi fuzz demo demo-symbolic dataset bench bench-quick bench-micro bench-llm bench-mnist tour doc clean

deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

# the CUDA backend plugin (src/runtime/cuda/dune) when cudajit is installed
CUDA_LIB := $(shell ocamlfind query cudajit.cuda >/dev/null 2>&1 && echo src/runtime/cuda/tinygrad_cuda.cmxa)

build: deps
	dune build @install $(CUDA_LIB) test/test_main.exe bench/bench_symbolic.exe bench/bench_launch.exe bench/bench_schedule.exe bench/bench_ops.exe examples/demo.exe examples/beautiful_mnist.exe \
	  examples/readme_example.exe examples/train_mlp.exe docs/gen_tour.exe test/fuzz/fuzz_runner.exe examples/gpt2.exe examples/llm.exe
	@if [ -n "$(CUDA_LIB)" ]; then cd _build/default/src/runtime/cuda && \
	  sh $(CURDIR)/src/runtime/cuda/link_plugin.sh tinygrad_cuda_plugin.cmxs tinygrad_cuda.cmxa; fi

test: build
	dune exec --no-build test/test_main.exe

# the whole golden op suite (the default run replays the first case of each test function)
test-ops: build
	OPS_ALL=1 TEST_FILTER=ops_golden. dune exec --no-build test/test_main.exe

# the long training soak: the MLP for 10,000 JIT steps and 2,000 without the JIT, beautiful_mnist for 200 steps, with
# resident memory flat within 5% after warm-up (uses Fashion-MNIST when `make dataset` installed it)
test-long: build
	TRAINING_LONG=1 TEST_FILTER=training. dune exec --no-build test/test_main.exe

# several devices: data-parallel beautiful_mnist for 20 JIT steps (float64 losses equal one device's within 1e-4)
test-multi: build
	MULTI_LONG=1 TEST_FILTER=multitensor. dune exec --no-build test/test_main.exe

# every CPU kernel built with clang's -fsanitize=address,undefined (SANITIZE=1, the ASan runtime preloaded): the whole
# golden op suite, the `make test` suites and `make fuzz N=500`, in both CPU modes (CPU_OPT=fast and tinygrad); a
# planted out-of-bounds read must be caught first. Long (not in `make test`); MODES, STEPS, FUZZ_N select parts.
test-sanitize: build
	PYTHON=$(PYTHON) sh tools/sanitize/run.sh

# the differential fuzzer: N random programs (seeded by SEED) run here and in tinygrad 0.14.0 (PYTHON when it imports
# it, else bench/.venv as `make bench`), default and NOOPT modes; a difference is minimised and printed in both languages
# GRAD=1: each program also runs backward on a weighted sum of its float outputs, and the gradients must agree
N ?= 2000
SEED ?= 0
GRAD ?= 0
fuzz: build
	PYTHON=$(PYTHON) python3 test/fuzz/fuzz.py --runner _build/default/test/fuzz/fuzz_runner.exe --n $(N) --seed $(SEED) \
	  $(if $(filter 1,$(GRAD)),--grad)

# the UOp emulator (src/runtime/emu): the whole golden op suite and the corpus on DEV=EMU::sm_80 and
# DEV=EMU::METAL with the default opts, then tinygrad's tensor-core tests (suite emu, TC=1, both targets);
# the last line sums the runs: "N passed, N failed" (EMU_TARGETS="sm_80 METAL" by default)
EMU_TARGETS ?= sm_80 METAL
test-emu: build
	@rm -f _build/test-emu.log; \
	for t in $(EMU_TARGETS); do for s in ops_golden. corpus.; do \
	  echo "== DEV=EMU::$$t TEST_FILTER=$$s"; \
	  DEV=EMU::$$t OPS_ALL=1 TEST_FILTER=$$s dune exec --no-build test/test_main.exe 2>&1 \
	    | tee -a _build/test-emu.log \
	    | grep -v "^[0-9]* passed, [0-9]* failed" ; \
	done; done; \
	echo "== TC=1 TEST_FILTER=emu.tc"; \
	TC=1 TEST_FILTER=emu.tc dune exec --no-build test/test_main.exe 2>&1 | tee -a _build/test-emu.log \
	  | grep -v "^[0-9]* passed, [0-9]* failed"; \
	grep -h "^[0-9]* passed, [0-9]* failed" _build/test-emu.log | \
	  awk '{p += $$1; f += $$3; s += $$5} END {printf "\n%d passed, %d failed, %d skipped\n", p, f, s; exit (f > 0)}'

# the golden op replay and the corpus on a GPU (GPU_DEV=CUDA by default, or METAL): needs the optional backend,
# i.e. opam's cudajit >= 0.7.2 (CUDA toolkit at $$CUDA_PATH, default /usr/local/cuda) or metal >= 0.1.1 (macOS)
GPU_DEV ?= CUDA
test-gpu: build
	@st=0; for s in gpu_runtime. ops_golden. corpus.; do \
	  echo "DEV=$(GPU_DEV) TEST_FILTER=$$s"; DEV=$(GPU_DEV) TEST_FILTER=$$s dune exec --no-build test/test_main.exe || st=1; \
	done; exit $$st

# a folder to copy to a GPU machine without OCaml (tools/gpu_bundle): test and bench executables, the CUDA plugin,
# the golden data (compressed, files over 1 MiB left out) and run.sh; fails saying so when cudajit is not installed
gpu-bundle: build
	sh tools/gpu_bundle/make_bundle.sh

# type-checks the optional CUDA/Metal backends against mock interfaces of cudajit 0.7.2 / metal 0.1.1 (no GPU,
# no packages needed; a separate dune workspace in _build_mockgpu, the real build is untouched)
check-gpu-backends:
	sh tools/mock_gpu_libs/check.sh

# Fashion-MNIST (MIT licence) from Debian's dataset-fashion-mnist, in /usr/share/datasets/fashion-mnist
dataset:
	@dpkg -s dataset-fashion-mnist >/dev/null 2>&1 || { echo "installing: dataset-fashion-mnist"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dataset-fashion-mnist; }

# tinygrad's beautiful_mnist on Fashion-MNIST (STEPS=70 BS=512 by default, as tinygrad; MNIST_DIR for other IDX files)
demo: build dataset
	dune exec --no-build examples/beautiful_mnist.exe

# the symbolic-simplifier demo
demo-symbolic: build
	dune exec --no-build examples/demo.exe

# ops and training steps side by side with tinygrad 0.14.0, default opts and BEAM=2 (bench/compare.py): PYTHON is
# used when it imports tinygrad 0.14.0, else bench/.venv is created with pip. The first BEAM run searches (minutes;
# hours for the beautiful_mnist step: BENCH_ARGS="--skip beam2:mnist_step_jit" leaves it out of BEAM=2).
PYTHON ?= python3
BENCH_ARGS ?=
bench: build
	PYTHON=$(PYTHON) python3 bench/compare.py --ours _build/default/bench/bench_ops.exe $(BENCH_ARGS)

# a quick smoke run of the same (3 reps, small sizes, default opts only)
bench-quick: build
	BENCH_QUICK=1 PYTHON=$(PYTHON) python3 bench/compare.py --ours _build/default/bench/bench_ops.exe --modes default

# GPT-2 generation speed on a random GPT-2-small checkpoint (made in $TMPDIR when missing): this port, tinygrad 0.14.0 and
# torch's HF generate, one fresh process each (GPT2_ARGS: --count, --prompt-len, --repeat, --only, --model)
GPT2_ARGS ?=
bench-gpt2: build
	python3 bench/gpt2_compare.py --python $(PYTHON) $(GPT2_ARGS)

# language-model speed on a Llama-3.2-1B-shaped random model at Q8_0 and F16 (made in $$TMPDIR when missing): this port,
# llama.cpp and torch (f32, bf16), prefill and decode tok/s. LLM_PYTHON imports torch, transformers and llama_cpp;
# LLAMA_CPP is a llama.cpp source tree (its convert_hf_to_gguf.py writes the GGUF files)
LLM_PYTHON ?= $(PYTHON)
LLAMA_CPP ?=
LLM_ARGS ?=
bench-llm: build
	python3 bench/llm_compare.py --python $(LLM_PYTHON) --llama-cpp $(LLAMA_CPP) $(LLM_ARGS)

# micro benchmarks: symbolic simplifier, kernel launch overhead and the thread pool, scheduler (side by side with
# tinygrad when PYTHON imports it)
bench-micro: build
	dune exec --no-build bench/bench_symbolic.exe
	dune exec --no-build bench/bench_launch.exe
	dune exec --no-build bench/bench_schedule.exe
	@if $(PYTHON) -c "import tinygrad" 2>/dev/null; then $(PYTHON) bench/bench_symbolic.py; $(PYTHON) bench/bench_schedule.py; \
	else echo "(tinygrad not importable with $(PYTHON): skipping the side-by-side run)"; fi

# tinygrad 0.14.0's beautiful_mnist on the same IDX files and steps: make bench-mnist PYTHON=/path/to/venv/bin/python
bench-mnist: build dataset
	dune exec --no-build examples/beautiful_mnist.exe
	@if $(PYTHON) -c "import tinygrad" 2>/dev/null; then $(PYTHON) bench/beautiful_mnist.py; \
	else echo "(tinygrad not importable with $(PYTHON): skipping the side-by-side run)"; fi

# docs/tour.md is printed by docs/gen_tour.exe; test/test_docs.ml fails until it is regenerated after a change
tour: build
	dune exec --no-build docs/gen_tour.exe > docs/tour.md.tmp && mv docs/tour.md.tmp docs/tour.md

# the API reference (odoc, from Debian's ocaml-odoc) in _build/default/_doc/_html/index.html. odoc prints its
# warnings only when it rebuilds, so the odoc files are removed first. "Couldn't find the following modules:
# Stdlib" is dune 2.9 not building the stdlib's docs (ocaml/dune#5229) and is not counted; any other warning fails.
doc: deps
	@dpkg -s ocaml-odoc >/dev/null 2>&1 || { echo "installing: ocaml-odoc"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ocaml-odoc; }
	@rm -rf _build/default/_doc; find _build/default -name '*.odoc' -delete 2>/dev/null || true
	@log=$$(mktemp); dune build @doc 2>$$log; rc=$$?; cat $$log; \
	n=$$(grep '^Warning:' $$log | grep -vc "Couldn't find the following modules"); rm -f $$log; \
	if [ $$rc -ne 0 ] || [ $$n -ne 0 ]; then echo "make doc: $$n odoc warnings"; exit 1; fi; \
	echo "make doc: no warnings; open _build/default/_doc/_html/index.html"

clean:
	dune clean
	rm -rf _build_mockgpu
