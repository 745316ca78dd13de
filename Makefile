# tinygrad for OCaml. `make test` works on a fresh Debian 12 machine (root or sudo).
DEBS := ocaml ocaml-dune ocaml-findlib libctypes-ocaml-dev libffi-dev libzarith-ocaml-dev clang
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build test test-ops demo bench clean

deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	dune build @install test/test_main.exe bench/bench_symbolic.exe bench/bench_launch.exe bench/bench_schedule.exe examples/demo.exe

test: build
	dune exec --no-build test/test_main.exe

# the whole golden op suite (the default run replays the first case of each test function)
test-ops: build
	OPS_ALL=1 TEST_FILTER=ops_golden. dune exec --no-build test/test_main.exe

demo: build
	dune exec --no-build examples/demo.exe

# side by side with tinygrad when a python with tinygrad 0.14.0 is given: make bench PYTHON=/path/to/venv/bin/python
PYTHON ?= python3
bench: build
	dune exec --no-build bench/bench_symbolic.exe
	dune exec --no-build bench/bench_launch.exe
	dune exec --no-build bench/bench_schedule.exe
	@if $(PYTHON) -c "import tinygrad" 2>/dev/null; then $(PYTHON) bench/bench_symbolic.py; $(PYTHON) bench/bench_schedule.py; \
	else echo "(tinygrad not importable with $(PYTHON): skipping the side-by-side run)"; fi

clean:
	dune clean
