# The two set-up commands of README.md: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# pinned versions of every dependency (the Dockerfile installs the same): `make constraints` refreshes it
CONSTRAINTS := constraints.txt
# what a developer's venv holds beyond the runtime; the `train` extra (torch) only on request
EXTRAS := test,reports,proto

.PHONY: run test test-full proto bench clean constraints system

$(STAMP): pyproject.toml $(CONSTRAINTS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e ".[$(EXTRAS)]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/c4 up

# chromium, redis-server and a Compose binary: installed as root, else named (deploy/setup-system.sh)
system: $(STAMP)
	bash deploy/setup-system.sh $(VENV)

# the training tests need PyTorch: the train extra (torch==2.13.0, CPU, from this machine's local files)
test: system
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e ".[train]"
	$(BIN)/python tools/gen_proto.py --check
	$(BIN)/python -m pytest -m "not full"

test-full: system
	$(BIN)/python -m pytest

proto: $(STAMP)
	$(BIN)/python tools/gen_proto.py

# Refresh constraints.txt from pyproject.toml (uv's resolver; every extra but train).
constraints: $(STAMP)
	$(BIN)/pip install --quiet "uv==0.13.*"
	$(BIN)/uv pip compile pyproject.toml --extra test --extra reports --extra proto \
	    --python-version 3.11 --python-platform x86_64-manylinux_2_28 --strip-extras --quiet -o $(CONSTRAINTS)

clean:
	rm -rf $(VENV) .pytest_cache
