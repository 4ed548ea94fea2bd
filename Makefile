# Two commands for a newcomer: `make demo` and `make test` (both create .venv first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# compiled kernels are cached here, keyed by a hash of the engine sources (simcore/__init__.py)
export BALANCE_CACHE_DIR ?= $(CURDIR)/.cache/balance
DEMO_GAMES ?= 1000000

.PHONY: demo test bench clean

$(BIN)/balance: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	@touch $@

# BIRD & WEATHER at 3, 4 and 5 players, every seat heuristic: is the game fair under skilled play?
demo: $(BIN)/balance
	@mkdir -p runs reports
	@for p in 3 4 5; do \
	  $(BIN)/balance simulate bird-weather --players $$p --games $(DEMO_GAMES) --seed 1 --strategies heuristic \
	    --out runs/bird-weather-$${p}p.parquet || exit 1; \
	  $(BIN)/balance report runs/bird-weather-$${p}p.parquet --out reports/bird-weather-$${p}p || exit 1; \
	done

test: $(BIN)/balance
	$(BIN)/python -m pytest -q

bench: $(BIN)/balance
	$(BIN)/balance bench

clean:
	rm -rf $(VENV) .cache runs
