# Two commands for a newcomer: `make demo` and `make test` (both create .venv first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# compiled kernels are cached here, keyed by a hash of the engine sources (simcore/cache.py)
export BALANCE_CACHE_DIR ?= $(CURDIR)/.cache/balance
DEMO_GAMES ?= 200000
# each skill tier plays until settled, until it cannot settle, or this many seconds (docs/search.md)
DEMO_TIER_SECONDS ?= 6

.PHONY: demo test test-fast bench bench-peers bench-search-peers check-peers clean

$(BIN)/balance: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	@touch $@

# the balance book: every game at every player count, one report each, reports/book/index.html
demo: $(BIN)/balance
	$(BIN)/balance book --out reports/book --games $(DEMO_GAMES) --seed 1 --skill-games 20000 --search-games 32000 --tier-seconds $(DEMO_TIER_SECONDS) --force

# one test process per core (pytest-xdist); they share compiled kernels through the cache above:
# a kernel one process has compiled, the other loads from disk
test: $(BIN)/balance
	$(BIN)/python -m pytest -q -n auto --dist worksteal

# the quick loop while changing code: everything but the long tiers (pyproject.toml's markers:
# differential, fairness, browser, docs, slow), which `make test` still runs
test-fast: $(BIN)/balance
	$(BIN)/python -m pytest -q -n auto --dist worksteal -m "not slow and not differential and not fairness and not browser and not docs"

bench: $(BIN)/balance
	$(BIN)/balance bench

# OpenSpiel (PyPI open_spiel) in an environment of its own; PEERS_VENV=/some/venv reuses one that has it
PEERS_VENV ?= .venv-peers
OPEN_SPIEL ?= open_spiel==2.0.2

$(PEERS_VENV)/bin/python:
	$(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(PEERS_VENV)/bin/python -m pip install --quiet "$(OPEN_SPIEL)"

# our kernels against OpenSpiel's C++ oh_hell, hearts, spades and euchre, random players, one thread, interleaved repeats
bench-peers: $(BIN)/balance $(PEERS_VENV)/bin/python
	$(BIN)/python tools/bench_peers.py --peers-python $(PEERS_VENV)/bin/python

# our compiled search (BIRD & WEATHER 4p) against OpenSpiel's ISMCTS bot on oh_hell, same simulations per decision
bench-search-peers: $(BIN)/balance $(PEERS_VENV)/bin/python
	$(BIN)/python tools/search_vs_ismcts.py --peers-python $(PEERS_VENV)/bin/python

# rules-file games against OpenSpiel, deal for deal: examples/games/hearts.toml = hearts,
# examples/games/oh-hell.toml = oh_hell (3, 4, 5 players), examples/games/spades.toml = spades and
# examples/games/euchre.toml = euchre (calls, the dealer's discard, going alone),
# 10,000 random deals each: the same legal choices at every decision, the same trick winners and
# returns (docs/rules-files.md)
check-peers: $(BIN)/balance $(PEERS_VENV)/bin/python
	$(BIN)/python tools/check_peers.py --peers-python $(PEERS_VENV)/bin/python

clean:
	rm -rf $(VENV) $(PEERS_VENV) .cache runs
