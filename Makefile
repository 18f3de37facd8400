# Developer and CI entry points; `make help` lists them. CI (.ci/run) calls these same targets.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
PYTEST ?= $(PYTHON) -m pytest
export CARGO_TERM_COLOR := never

.DEFAULT_GOAL := help

.PHONY: help
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

.PHONY: install
install: ## build the wheel from this checkout and install it with the dev/test extras
	$(PIP) install --upgrade "maturin>=1.7,<2"
	$(PIP) install ".[dev,tokenizers,embed]"
	$(PIP) install -r requirements/tokenizer-files.txt
	$(PIP) install --no-deps -r requirements/tokenizer-files-nodeps.txt
	$(PIP) install -r requirements/corpus-sources.txt

.PHONY: build-dev
build-dev: ## editable install: Python from python/, the native module rebuilt in place
	$(PIP) install --no-deps --no-build-isolation -e .

.PHONY: build-prod
build-prod: ## release wheel (fat LTO, one codegen unit, stripped) into dist/
	maturin build --release --out dist

# Release artefacts (docs/release.md). The build tools live in a venv of their own: maturin,
# auditwheel and ziglang (maturin links against glibc 2.17 with zig, so the wheel is
# manylinux_2_17 on any build host; it finds zig as `python -m ziglang`, hence the venv first on
# PATH). The wheelhouse holds all that the offline smoke installs may take.
RELEASE_TOOLS ?= build/release-tools
WHEELHOUSE ?= build/wheelhouse
MANYLINUX ?= manylinux_2_17
RELEASE_BIN := $(RELEASE_TOOLS)/bin
# the oldest Python the abi3 wheel claims (cp310): both wheels are smoke-tested on it too when
# one is found (pyenv's, or python3.10 on PATH); empty: skipped, with a note
SMOKE_PYTHON_MIN ?= $(firstword $(wildcard $(HOME)/.pyenv/versions/3.10*/bin/python3.10) \
	$(shell command -v python3.10 2>/dev/null | grep -v /shims/))

.PHONY: dist
dist: ## release artefacts into a fresh dist/: abi3 manylinux wheel, py3-none-any wheel, sdist; each smoke-tested
	rm -rf dist $(WHEELHOUSE) $(WHEELHOUSE)-py310
	mkdir -p build
	$(PYTHON) -m venv $(RELEASE_TOOLS)
	$(RELEASE_BIN)/pip install -q "maturin>=1.7,<2" "ziglang>=0.13,<1" "auditwheel>=6"
	$(PYTHON) tools/smoke_release.py --requirements > build/release-requirements.txt
	$(RELEASE_BIN)/pip download -q -d $(WHEELHOUSE) -r build/release-requirements.txt
	MATURIN_NO_MISSING_BUILD_BACKEND_WARNING=1 $(RELEASE_BIN)/maturin sdist --out dist
	PATH="$(CURDIR)/$(RELEASE_BIN):$$PATH" MATURIN_NO_MISSING_BUILD_BACKEND_WARNING=1 maturin build --release --zig \
		--compatibility $(MANYLINUX) --auditwheel check --out dist
	CTXSIEVE_PURE_PYTHON=1 $(RELEASE_BIN)/pip wheel -q --no-deps --no-index --no-cache-dir \
		--find-links $(WHEELHOUSE) -w dist dist/ctxsieve-*.tar.gz
	$(PYTHON) tools/smoke_release.py --dist dist --wheelhouse $(WHEELHOUSE) \
		--auditwheel $(RELEASE_BIN)/auditwheel --platform-tag $(MANYLINUX)_$(shell uname -m)
	@if [ -n "$(SMOKE_PYTHON_MIN)" ]; then \
		echo "== both wheels again on $(SMOKE_PYTHON_MIN)"; \
		$(RELEASE_BIN)/pip download -q --python-version 3.10 --only-binary :all: -d $(WHEELHOUSE)-py310 \
			-r build/release-requirements.txt && \
		$(PYTHON) tools/smoke_release.py --dist dist --wheelhouse $(WHEELHOUSE)-py310 --python $(SMOKE_PYTHON_MIN) \
			--skip files --skip resolution --skip sdist --skip sdist-no-cargo; \
	else echo "no Python 3.10 found (SMOKE_PYTHON_MIN): the wheels were smoke-tested on $(PYTHON) only"; fi

.PHONY: format
format: ## format Rust and Python
	cargo fmt
	$(PYTHON) -m ruff format python tests benches tools examples
	$(PYTHON) -m ruff check --fix python tests benches tools examples

.PHONY: lint
lint: ## fmt and clippy with -D warnings, ruff, mypy, stubtest of the native module
	cargo fmt --check
	cargo clippy --all-targets --features python -- -D warnings
	$(PYTHON) -m ruff check python tests benches tools examples
	$(PYTHON) -m ruff format --check python tests benches tools examples
	$(PYTHON) -m mypy
	$(PYTHON) -m mypy.stubtest ctxsieve._native

.PHONY: test-rust
test-rust: ## Rust unit tests (no Python needed)
	cargo test

# Store tests need Redis and PostgreSQL: CTXSIEVE_REDIS_URL / CTXSIEVE_POSTGRES_URL name yours, else the
# suite starts real servers from the dev extra's wheels (tests/stores/store_servers.py). Skipping them
# takes CTXSIEVE_SKIP_STORE_TESTS=redis,postgres.
.PHONY: test-python
test-python: ## the pytest suite and the package's docstring examples, once per backend
	CTXSIEVE_BACKEND=native $(PYTEST) -q
	CTXSIEVE_BACKEND=native $(PYTEST) -q --pyargs ctxsieve
	CTXSIEVE_BACKEND=python $(PYTEST) -q
	CTXSIEVE_BACKEND=python $(PYTEST) -q --pyargs ctxsieve

.PHONY: test
test: install test-rust test-python bench-smoke ## install, then everything CI tests: Rust, Python on both backends, bench smoke

.PHONY: check
check: test-rust test-python bench-smoke ## `make test` without the install step, for a checkout already installed

.PHONY: bench-smoke
bench-smoke: ## each benchmark once as a test, and native must beat the reference (ratio floors)
	$(PYTEST) benches -q --benchmark-disable -p no:cacheprovider
	$(PYTHON) benches/report.py --quick --check

.PHONY: bench
bench: ## full benchmarks: pytest-benchmark groups, then the one-run table with peers
	CTXSIEVE_BOILERPLATE_SIZES=20000,40000 $(PYTEST) benches --benchmark-only --benchmark-group-by=group --benchmark-columns=median,iqr,rounds
	$(PYTHON) benches/report.py
	$(PYTHON) benches/bench_boilerplate.py

# Fuzzing (issue 12; docs/engine.md, "Kernel limits and fuzzing"). cargo-fuzz needs a nightly
# toolchain (`rustup toolchain install nightly`, `cargo install cargo-fuzz`); -s none because the
# crate has no unsafe code for AddressSanitizer to watch, and runs are several times faster.
FUZZ_TARGETS := text dedupe fill order bm25 calibrated
FUZZ_RUN = cd fuzz && for t in $(FUZZ_TARGETS); do \
	cargo +nightly fuzz run -s none -a $$t -- -max_total_time=$(1) -max_len=$(2) || exit 1; done

.PHONY: fuzz-tools
fuzz-tools: ## cargo-fuzz from crates.io (a no-op when this version is installed)
	cargo install --locked cargo-fuzz --version 0.13.2

.PHONY: fuzz-ci
fuzz-ci: fuzz-tools ## bounded fuzzing for CI (under 3 min once fuzz/target is built): 10 s per Rust target, then the API fuzz
	$(call FUZZ_RUN,10,4096)
	CTXSIEVE_FUZZ_EXAMPLES=150 $(PYTEST) -q -p no:cacheprovider tests/kernels/test_fuzz_api.py

.PHONY: fuzz
fuzz: fuzz-tools ## long local fuzzing: 5 min per Rust target (FUZZ_SECONDS), 20k examples per API test (FUZZ_EXAMPLES)
	$(call FUZZ_RUN,$(or $(FUZZ_SECONDS),300),65536)
	CTXSIEVE_FUZZ_EXAMPLES=$(or $(FUZZ_EXAMPLES),20000) $(PYTEST) -q -p no:cacheprovider tests/kernels/test_fuzz_api.py

.PHONY: all
all: test lint ## install and test, then lint, as CI does
