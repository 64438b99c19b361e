# herotable — set-up and checks. Every target builds the local virtual environment it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench clean

# Compiled modules are kept (in __pycache__): every test worker and every server a test starts would otherwise
# compile each module it imports again.
unexport PYTHONDONTWRITEBYTECODE

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/herotable serve --demo

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
