# treegen developer tasks.  Fresh Debian machine with Python 3.11 and gcc:
#     make demo     # venv + install + train/show/export/verify on the golf data
#     make test     # venv + install + the whole test suite
PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
TG     := $(VENV)/bin/treegen
STAMP  := $(VENV)/.installed
DEMO   := demo-out
GOLF   := tests/data/reference/golf/golf.names

.PHONY: all venv demo test check bench firmware clean

all: test

# Created once; reinstalled when the package metadata changes.  Editable
# install, so the checkout's code is what runs.
$(STAMP): pyproject.toml
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	@echo "installing treegen and its test dependencies into $(VENV) ..."
	@$(VPY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $@

venv: $(STAMP)

# The main job on the bundled golf data.  Each stage runs for real once its
# issue has landed; a subcommand that is still a placeholder is named as a
# stage still to come instead of failing the demo.  Any other failure fails.
demo: $(STAMP)
	@rm -rf $(DEMO) && mkdir -p $(DEMO); \
	placeholder() { $(VPY) -c "import sys, treegen.cmd_$$1 as m; sys.exit(0 if hasattr(m, '_not_yet') else 1)"; }; \
	stage() { name=$$1; module=$$2; shift 2; echo; echo "== $$name: treegen $$*"; \
	  if placeholder $$module; then \
	    echo "demo: the '$$name' stage is still to come (its issue has not landed yet)"; return 1; fi; \
	  $(TG) "$$@" || exit 1; }; \
	if stage train train train $(GOLF) -o $(DEMO)/golf.tree; then \
	  stage show train show $(DEMO)/golf.tree; \
	  stage export export export $(DEMO)/golf.tree --target c -o $(DEMO)/c; \
	  stage verify export verify $(DEMO)/golf.tree tests/data/reference/golf/golf.data; \
	else echo "demo: without a trained model, show, export and verify are still to come"; fi; \
	echo; echo "demo: finished; outputs are in $(DEMO)/"

test: $(STAMP)
	$(VPY) -m pytest -q

check: $(STAMP)
	$(VPY) -m pip install --quiet --disable-pip-version-check ruff mypy
	$(VENV)/bin/ruff check treegen/
	$(VENV)/bin/mypy treegen/

bench: $(STAMP)
	@if test -f bench/run.py; then $(VPY) bench/run.py; \
	else echo "bench: not yet (the benchmark issue adds bench/run.py)"; fi

firmware:
	@echo "firmware: not yet (the firmware examples issue adds firmware_examples/)"

clean:
	rm -rf $(DEMO) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
