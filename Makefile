# Set-up is folded into every target: a fresh clone needs only `make run` or `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

# setup.py compiles the game engines with mypyc: a changed module is rebuilt here
$(STAMP): pyproject.toml setup.py $(wildcard analyzer/games/*/*.py)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dask]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/analyzer simulate scenarios/africanus-sultan.toml --out reports/africanus-sultan

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check analyzer tests

bench: $(STAMP)
	$(BIN)/analyzer bench --memory

clean:
	rm -rf $(VENV) build *.egg-info analyzer/games/*/*.so
