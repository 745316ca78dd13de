# tinygrad for OCaml. `make test` works on a fresh Debian 12 machine (root or sudo).
DEBS := ocaml ocaml-dune ocaml-findlib libctypes-ocaml-dev libffi-dev libzarith-ocaml-dev clang
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build test test-ops test-long demo demo-symbolic dataset bench bench-mnist clean

deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	dune build @install test/test_main.exe bench/bench_symbolic.exe bench/bench_launch.exe bench/bench_schedule.exe examples/demo.exe examples/beautiful_mnist.exe

test: build
	dune exec --no-build test/test_main.exe

# the whole golden op suite (the default run replays the first case of each test function)
test-ops: build
	OPS_ALL=1 TEST_FILTER=ops_golden. dune exec --no-build test/test_main.exe

# the long training checks (a 2,000-step MLP loop with resident memory flat)
test-long: build
	TRAINING_LONG=1 TEST_FILTER=training. dune exec --no-build test/test_main.exe

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

# side by side with tinygrad when a python with tinygrad 0.14.0 is given: make bench PYTHON=/path/to/venv/bin/python
PYTHON ?= python3
bench: build
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

clean:
	dune clean
