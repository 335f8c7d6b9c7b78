"""Shared pytest fixtures (the bundled reference datasets, golden-file updates) and the
split of the suite into the fast loop and the rest.

Golden outputs live next to the tests (the generated C under ``tests/golden``); a test that
compares against one regenerates it instead when pytest runs with
``--update-golden`` (then review the diff before committing).

Markers (pyproject.toml): ``slow`` for long runs and for the rest of a parameter sweep,
``toolchain`` for tests that need cross compilers, simulators, Java with Weka, Graphviz or
cppcheck.  ``make test-fast`` runs neither; ``make test`` runs everything.  A parametrized
test keeps its first case (:data:`FAST_CASES`) in the fast loop and the rest of its sweep
is marked ``slow`` here.  A test whose one case takes a second or more (a property sweep,
a strict build under two standards, a command in a child process) carries ``slow``
itself, where a quicker test of the same module stays in the fast loop: every test module
but the toolchain ones and the three long ones (the wheel, determinism across hash seeds,
the differential fuzz) runs in the fast loop, which takes about two minutes on 2 cores.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

DATA_DIR = Path(__file__).resolve().parent / "data"


FAST_CASES = 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark a parametrized test's cases beyond the first FAST_CASES ``slow``."""
    seen: Counter[str] = Counter()
    for item in items:
        base, bracket, _ = item.nodeid.partition("[")
        if not bracket or item.get_closest_marker("slow"):
            continue
        seen[base] += 1
        if seen[base] > FAST_CASES:
            item.add_marker(pytest.mark.slow)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files (tests/golden) instead of comparing against them",
    )


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """``tests/data``: every input the tests use is copied here."""
    return DATA_DIR


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """``tests/data/reference``: the 9 reference datasets with C4.5 R8 / J48 outputs."""
    return DATA_DIR / "reference"


@pytest.fixture(scope="session")
def update_golden(request: pytest.FixtureRequest) -> bool:
    """True when golden files should be rewritten (``--update-golden``)."""
    return bool(request.config.getoption("--update-golden"))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Collect what the Release 8 corpus tests recorded (``record_property("r8corpus",
    ...)`` in tests/reference/test_r8_corpus.py).  The reports reach this hook in the
    controlling process, also when pytest-xdist runs the tests in workers."""
    if report.when != "call":
        return
    outcomes = [value for key, value in report.user_properties if key == "r8corpus"]
    if outcomes:
        from support import r8corpus

        for name, variant, equal, release8_bug in outcomes:
            r8corpus.record(name, variant, equal, release8_bug)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The per-variant counts of the Release 8 corpus comparisons that ran
    (tests/reference/test_r8_corpus.py), so a run shows how much of the corpus is equal."""
    from support import r8corpus

    text = r8corpus.summary()
    if text:
        terminalreporter.write_line(text)
