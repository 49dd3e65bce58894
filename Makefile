# Set-up is folded into every target: a fresh clone needs only `make run` or `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# ANALYZER_PURE_PYTHON=1 installs without compiling the engines (setup.py); the stamp names the
# build, so switching between the two reinstalls
PURE := $(filter 1,$(ANALYZER_PURE_PYTHON))
STAMP := $(VENV)/.installed$(if $(PURE),-pure)

.PHONY: run test lint bench clean

# setup.py compiles the game engines with mypyc: a changed module is rebuilt here
$(STAMP): pyproject.toml setup.py $(wildcard analyzer/model/*.py) $(wildcard analyzer/games/*/*.py)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(if $(PURE),rm -f analyzer/model/*.so analyzer/games/*/*.so)
	@echo "Installing analyzer and its dependencies into $(VENV)$(if $(PURE), (pure Python: the engines are not compiled),; compiling the game engines with mypyc takes about 2 minutes the first time (ANALYZER_PURE_PYTHON=1 skips it))..."
	$(BIN)/python -m pip install --quiet -e '.[test,dask]'
	@$(BIN)/analyzer --version  # compiled or pure Python engines (no C compiler: setup.py falls back)
	rm -f $(VENV)/.installed $(VENV)/.installed-pure
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
	rm -rf $(VENV) build *.egg-info analyzer/model/*.so analyzer/games/*/*.so
