# treegen developer tasks.  Fresh Debian machine with Python 3.11 and gcc:
#     make demo     # venv + install + train/show/export/verify on the golf data
#     make test     # venv + install + the whole test suite
PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
TG     := $(VENV)/bin/treegen
STAMP  := $(VENV)/.installed
DEMO   := demo-out
GOLF   := tests/data/reference/golf/golf
# Extra arguments for the benchmark (python -m bench.run), e.g. make bench BENCH_ARGS="--no-1m --j48"
BENCH_ARGS ?=
FIRMWARE_ARGS ?=

.PHONY: all venv demo test test-fast test-slow docs golden check bench firmware coverage clean

all: test

# Created once; reinstalled when the package metadata changes.  Editable
# install, so the checkout's code is what runs.
$(STAMP): pyproject.toml setup.py treegen/model/constants.py treegen/trainer/constants.py \
  $(wildcard treegen/*/native/*.[ch])
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	@echo "installing treegen and its test dependencies into $(VENV) ..."
	@$(VPY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $@

venv: $(STAMP)

# The main job on the bundled golf data; make stops at the first stage that fails.
demo: $(STAMP)
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	@echo "== train"
	$(TG) train $(GOLF).names -o $(DEMO)/golf.tree
	@echo "== show"
	$(TG) show $(DEMO)/golf.tree
	@echo "== export"
	$(TG) export $(DEMO)/golf.tree --target c -o $(DEMO)/c
	@echo "== verify"
	$(TG) verify $(DEMO)/golf.tree $(GOLF).data
	@echo "demo: every stage passed; outputs are in $(DEMO)/"

# The whole suite, on PYTEST_JOBS processes (pytest-xdist; 2 cores on CI).
PYTEST_JOBS ?= 2
test: $(STAMP)
	$(VPY) -m pytest -q -n $(PYTEST_JOBS)

# The fast loop while working: every test but the slow ones (long runs, the rest of each
# parameter sweep, single tests of a second or more) and those that need cross compilers,
# simulators or Java (about two minutes on 2 cores; tests/conftest.py says which are which).
test-fast: $(STAMP)
	$(VPY) -m pytest -q -n $(PYTEST_JOBS) -m "not slow and not toolchain"

# The documentation site (mkdocs.yml: README.md, docs/ and the firmware examples' READMEs)
# into site/, with every warning an error: a broken link or anchor, or a page missing from
# the nav, fails.  mkdocs is pinned in pyproject.toml's docs extra.
docs: $(STAMP)
	@$(VPY) -m pip install --quiet --disable-pip-version-check $$($(VPY) -c \
	  "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['docs'])")
	$(VENV)/bin/mkdocs build --strict --site-dir site

# The slow set alone (make test runs it too): long fuzz runs, the rest of each parameter
# sweep, and the whole Release 8 corpus (tests/reference/test_r8_corpus.py).
test-slow: $(STAMP)
	$(VPY) -m pytest -q -n $(PYTEST_JOBS) -m slow

# Regenerate the golden C files, then fail if they changed (or new ones appeared):
# review the diff and commit it when the change is intended.
golden: $(STAMP)
	$(VPY) -m pytest -q tests/codegen/test_codegen_golden.py --update-golden
	@git diff --exit-code --stat -- tests/golden || \
	  { echo "golden: tests/golden changed (see git diff tests/golden)"; exit 1; }
	@new=$$(git ls-files --others --exclude-standard -- tests/golden); \
	  test -z "$$new" || { echo "golden: new, uncommitted files: $$new"; exit 1; }

# Lint (ruff: the rules in pyproject.toml) and types (mypy strict on the package and the
# bench), with the versions pinned in pyproject.toml's dev extra.  FORMAT_CHECK=1 also requires
# ruff format's layout (the default; FORMAT_CHECK=0 skips it).
FORMAT_CHECK ?= 1
LINTED := treegen/ tests/ bench/ docs/hooks.py
check: $(STAMP)
	@$(VPY) -m pip install --quiet --disable-pip-version-check $$($(VPY) -c \
	  "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['dev'])")
	$(VENV)/bin/ruff check $(LINTED)
	@if [ "$(FORMAT_CHECK)" = 1 ]; then echo "$(VENV)/bin/ruff format --check $(LINTED)"; \
	  $(VENV)/bin/ruff format --check $(LINTED); fi
	$(VENV)/bin/mypy treegen/ bench/

# Training speed/memory against its targets, the export benchmark, the codegen
# comparison with emlearn and m2cgen (installed by the bench extra), then flash and
# cycles or instructions per prediction on the simulated chips (AVR, Cortex-M0+/M4F,
# RV32IMC/RV32IMAFC; those installed), and scikit-learn ensembles through treegen,
# emlearn, m2cgen and tl2cgen (make bench BENCH_FULL=1 adds the big models).
bench: $(STAMP)
	@$(VPY) -m pip install --quiet --disable-pip-version-check -e '.[bench]'
	$(VPY) -m bench.run $(BENCH_ARGS)

# train and rules at 100k and 1M rows as a user runs them: CPU time, peak
# RSS, rules' time over train's, train's over J48's and scikit-learn's, and train on a
# set with one class per row.  Extra arguments, e.g. make bench-train BENCH_ARGS="--no-1m"
.PHONY: bench-train
bench-train: $(STAMP)
	$(VPY) -m bench.scale_bench $(BENCH_ARGS)

# The exported C on simulated chips (firmware_examples/): golf, crx and hypo, both
# styles, and a scikit-learn forest, boosted model and regressor, an XGBoost and a
# LightGBM model on hypo (table and ifs),
# float / --float-compare int / int16, on ATmega328P (simavr), Cortex-M0+,
# M3, M4F (qemu-system-arm) and RV32IMC, RV32IMAFC (qemu-system-riscv32), each compared
# with the Python model; then the table of flash, RAM and cycles or instructions.  Needs the cross compilers and simulators (.ci/run installs
# them).  Extra arguments, e.g. make firmware FIRMWARE_ARGS="--models golf --on avr"
firmware: $(STAMP)
	$(VPY) -m treegen.firmware.check $(FIRMWARE_ARGS)

# Line and branch coverage of the package, module by module (those fully covered left
# out), with the lines no test ran; the CLI tests' child processes are measured too
# (pyproject.toml's [tool.coverage]; the coverage extra).  COV_TESTS picks the tests
# (default: the fast set), e.g. make coverage COV_TESTS="tests/rules -m ''".
COV_TESTS ?= -m "not slow and not toolchain"
coverage: $(STAMP)
	@$(VPY) -m pip install --quiet --disable-pip-version-check $$($(VPY) -c \
	  "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['coverage'])")
	$(VPY) -m pytest -q -n $(PYTEST_JOBS) -p no:randomly --cov --cov-report=term-missing $(COV_TESTS)

clean:
	rm -rf $(DEMO) site build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .coverage .coverage.*
