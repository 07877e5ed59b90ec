# The study's entry points. README command 1: `make all`; command 2: `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3.11
VENV := .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# uv does not read pip's configuration: pass on a local wheel folder (the CPU torch wheel) if pip has one.
FIND_LINKS := $(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null || true)
# --compile-bytecode: every later python process (each stage, dvc itself) imports instead of compiling,
# also where PYTHONDONTWRITEBYTECODE is set (a no-change `dvc repro` went from 4.8 s to 2.5 s).
UV := $(VENV)/bin/uv pip install --compile-bytecode --python $(VENV)/bin/python $(if $(FIND_LINKS),--find-links $(FIND_LINKS))

.PHONY: all setup env params wordnet browser plots-template nltk data pipeline test lint check-pipeline bench mutation sweep-verifier sweep-protocol lock clean

all: setup pipeline ## set up everything, pull the data, run the DVC pipeline

setup: env params nltk data plots-template ## environment, checked params.yaml, offline NLTK data, verified data, offline plots page

env: $(VENV)/.installed
$(VENV)/.installed: requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check uv==0.13.9
	$(UV) -q -r requirements.lock
	$(UV) -q --no-deps -e .
	touch $@

wordnet: ## Debian's WordNet 3.0 for METEOR (needs root; elsewhere see README)
	@if [ -f /usr/share/wordnet/index.sense ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wordnet-base wordnet-sense-index >/dev/null; \
	else echo "WordNet not installed and no root: install Debian's wordnet-base and wordnet-sense-index, then make nltk"; fi

browser: ## Debian's Chromium for the test that renders the front page headless (needs root; elsewhere see README)
	@if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	else echo "Chromium not installed and no root: install Debian's chromium (or any Chromium on PATH) for make test"; fi

params: env ## check params.yaml against every section's model (lib/schema.py; every problem, by dotted key)
	python -m lib.schema check

plots-template: env .dvc/plots/offline.html ## `dvc plots show` without a CDN: the chart libraries from the npm registry, inlined
.dvc/plots/offline.html: lib/site/plots.py
	python -m lib.site.plots template

NLTK_DATA := $(VENV)/share/nltk_data
nltk: env wordnet $(NLTK_DATA)/.built ## WordNet and Punkt where NLTK looks by default in .venv
$(NLTK_DATA)/.built: lib/resources.py
	python -m lib.resources
	touch $@

data: env ## pull data/ from the DVC remote and verify its checksums
	python -m lib.data remote-check
	dvc pull -q data.dvc
	python -m lib.data verify

# PROFILE=classroom (profiles/classroom.yaml): the same pipeline, smaller, in workspaces/classroom
PROFILE ?= study
WORKSPACE := $(if $(filter study,$(PROFILE)),.,workspaces/$(PROFILE))

pipeline: setup ## run the DVC pipeline (does nothing when nothing changed); PROFILE=classroom for the small one
ifneq ($(PROFILE),study)
	python -m lib.profiles prepare $(PROFILE)
endif
	cd $(WORKSPACE) && python -m lib.closure check
	cd $(WORKSPACE) && dvc repro
	cd $(WORKSPACE) && python -m lib.site.render headlines
	cd $(WORKSPACE) && python -m lib.timing table
ifneq ($(PROFILE),study)
	python -m lib.profiles commit $(PROFILE)
endif

test: env nltk data browser plots-template lint ## lint and the test suite
	python -m pytest -q

lint: env ## ruff: the lint rules and the formatting of pyproject.toml, on the whole tree
	ruff check --quiet .
	ruff format --check --quiet .

check-pipeline: pipeline ## slow check: a second repro has nothing to do, and the committed metrics, plot data and executed notebooks are reproduced (byte for byte on the recorded machine kind, metrics within references/reproduction.yaml elsewhere)
	dvc repro | tee /tmp/repro2.log
	grep -q "Data and pipelines are up to date" /tmp/repro2.log
	python -m lib.reproduction check

bench: setup ## slow: BM25, fusion and AVeriTeC scoring against straightforward implementations (~25 min; needs `make pipeline`)
	python -m benchmarks.bench_retrieval
	python -m benchmarks.bench_scoring
	python -m benchmarks.bench_knowledge_store

MUTMUT := mutmut==3.8.1
mutation: env nltk data ## slow: mutation testing of the study's instruments ([tool.mutmut] in pyproject.toml; ~25 min on 2 cores)
	$(UV) -q $(MUTMUT)
	rm -rf mutants
	python -m tests.mutation run
	python -m tests.mutation

sweep-verifier: setup ## slow: the verifier's learning-rate and epoch sweep, mixed training evidence, seeds -> sweeps/verifier.json (~1 h; needs `make pipeline`)
	python -m lib.verifier.sweep --learning-rates 2e-5 5e-5 1e-4 2e-4 --epochs 2 3
	python -m lib.verifier.sweep --at-pick --training-evidence mixed
	python -m lib.verifier.sweep --at-pick --seeds 1 2

PROTOCOL_PLANNERS := claim_only oracle bloom_qg qgen pursuit_seq_seq
sweep-protocol: setup ## slow: the verifier trained on gold and on retrieved evidence (the thesis' protocol), 3 seeds, retrained per k -> sweeps/protocol.json (~1 h; needs `make pipeline`)
	python -m lib.verifier.sweep --out sweeps/protocol.json --pick-from sweeps/verifier.json --training-evidence gold retrieved --seeds 0 --ablation-ks 1 5 10 --planners $(PROTOCOL_PLANNERS)
	python -m lib.verifier.sweep --out sweeps/protocol.json --pick-from sweeps/verifier.json --training-evidence gold retrieved --seeds 1 2 --planners $(PROTOCOL_PLANNERS)
	python -m lib.verifier.sweep --out sweeps/protocol.json --pick-from sweeps/verifier.json --training-evidence retrieved --ks 1 5 10 --planners $(PROTOCOL_PLANNERS)

lock: env ## regenerate requirements.lock from the current environment
	set -o pipefail; { echo "# Pinned environment (pip freeze of a working .venv; torch is the CPU build pip finds as torch==2.13.0)."; \
	  echo "# Regenerate with: make lock. ir_measures and pytrec_eval-terrier are test-only (the trec_eval reference)."; \
	  $(VENV)/bin/python -m pip freeze --exclude-editable | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; } > requirements.lock.tmp \
	  && mv requirements.lock.tmp requirements.lock || { rm -f requirements.lock.tmp; exit 1; }  # a failed freeze keeps the lock

clean: ## remove the rebuildable outputs (git-ignored); committed results, the LLM answer cache, data and environment stay
	git clean -q -f -d -X -- outputs reports
