# The two set-up commands of README.md: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test test-full proto bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/c4 up

test: $(STAMP)
	$(BIN)/python tools/gen_proto.py --check
	$(BIN)/python -m pytest -m "not full"

test-full: $(STAMP)
	$(BIN)/python -m pytest

proto: $(STAMP)
	$(BIN)/python tools/gen_proto.py

clean:
	rm -rf $(VENV) .pytest_cache
