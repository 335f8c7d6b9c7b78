"""Shared pytest fixtures: the bundled reference datasets and golden-file updates.

Golden outputs live next to the tests (the generated C under ``tests/golden``); a test that
compares against one regenerates it instead when pytest runs with
``--update-golden`` (then review the diff before committing).
"""

from __future__ import annotations

from pathlib import Path

import pytest

DATA_DIR = Path(__file__).resolve().parent / "data"


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


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The per-variant counts of the Release 8 corpus comparisons that ran
    (tests/test_r8_corpus.py), so a run shows how much of the corpus is equal."""
    from support import r8corpus

    text = r8corpus.summary()
    if text:
        terminalreporter.write_line(text)
