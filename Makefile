# abstract-kg: make install | run | test | bench
VENV   := .venv
PY     := $(VENV)/bin/python
KG     := $(VENV)/bin/kg
STAMP  := $(VENV)/.installed

.PHONY: install run test bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[model,test]'
	touch $(STAMP)

run: install
	$(KG) build seeds/
	$(KG) shell

test: install
	$(PY) -m pytest -q

bench: install
	$(PY) -m kg.bench

clean:
	rm -rf $(VENV) .kg build *.egg-info
