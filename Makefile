# Two commands for a newcomer: `make demo` and `make test` (both create .venv first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# compiled kernels are cached here, keyed by a hash of the engine sources (simcore/cache.py)
export BALANCE_CACHE_DIR ?= $(CURDIR)/.cache/balance
DEMO_GAMES ?= 200000

.PHONY: demo test bench clean

$(BIN)/balance: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	@touch $@

# the balance book: every game at every player count, one report each, reports/book/index.html
demo: $(BIN)/balance
	$(BIN)/balance book --out reports/book --games $(DEMO_GAMES) --seed 1 --force

# one test process per core (pytest-xdist); they share compiled kernels through the cache above:
# a kernel one process has compiled, the other loads from disk
test: $(BIN)/balance
	$(BIN)/python -m pytest -q -n auto --dist worksteal

bench: $(BIN)/balance
	$(BIN)/balance bench

clean:
	rm -rf $(VENV) .cache runs
