"""What tests/test_wheel.py and tests/test_sdist.py share to build the package."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def no_build_isolation() -> list[str]:
    """``["--no-build-isolation"]`` when this Python can build the wheel without fetching
    setuptools (faster, and offline), else ``[]`` (pip fetches what the build needs)."""
    try:
        import setuptools
    except ImportError:
        return []
    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    if (major, minor) >= (70, 1):
        return ["--no-build-isolation"]  # bdist_wheel is part of setuptools
    try:
        import wheel  # noqa: F401
    except ImportError:
        return []
    return ["--no-build-isolation"] if major >= 64 else []


def copy_source(repo: Path, dst: Path) -> None:
    """What a clean clone builds from, copied to ``dst``: the build files and the
    package folders, without an in-place build's compiled accelerator (the build must
    make its own) or caches."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in ("pyproject.toml", "setup.py", "README.md", "MANIFEST.in"):
        shutil.copy(repo / name, dst / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so")
    for top in ("treegen", "firmware_examples"):
        shutil.copytree(repo / top, dst / top, ignore=ignore)


def pip_wheel(source: Path, out: Path) -> list[str]:
    """The command that builds ``source`` (a folder or an sdist) into a wheel in ``out``."""
    return [
        sys.executable,
        *("-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check"),
        *no_build_isolation(),
        *("-w", str(out), str(source)),
    ]
