# herotable — set-up and checks. Every target builds the local virtual environment it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
RUNTIME := $(VENV)/.runtime
PORT   ?= 8000

.PHONY: run test lint bench clean

# Compiled modules are kept (in __pycache__): every test worker and every server a test starts would otherwise
# compile each module it imports again.
unexport PYTHONDONTWRITEBYTECODE

# Running needs only herotable and what it imports; the test tools (a browser driver, type checker, fuzzer…) come
# with the first `make test`, into the same environment.
$(RUNTIME): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# `make run PORT=8080` serves on another port; the address and the demo logins are printed as it starts.
run: $(RUNTIME)
	$(BIN)/herotable serve --demo --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests
	$(BIN)/mypy --strict src/herotable

# The suite runs on TEST_WORKERS processes (pytest-xdist), each with its own databases, Redis prefix and files, and
# prints its 20 slowest tests. Two per core, eight at most: a test often waits (a browser, a server process, a
# disk flush), and another worker uses the core meanwhile. `make test TEST_WORKERS=0` runs it in one process.
TEST_WORKERS ?= $(shell n=$$(( $$(nproc) * 2 )); [ $$n -gt 8 ] && n=8; echo $$n)
test: lint
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal --durations=20

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m herotable.bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
