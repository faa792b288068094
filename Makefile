# Two commands on a fresh machine: `make demo` and `make test`. Both create .venv when needed.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
EXTRAS ?= test,notebook,onnx,migrate,browser

.PHONY: demo test test-no-browser browser-deps lint gpu-test clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[$(EXTRAS)]'
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/trtsafe-lab demo --out out/demo

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy trtsafe_lab

# The whole suite, the browser test included: its chromium is found or installed first.
test: lint browser-deps
	$(PY) -m pytest

# Everything but the browser test (no chromium needed).
test-no-browser: lint
	$(PY) -m pytest -m "not browser"

browser-deps:
	.ci/ensure-chromium

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache
