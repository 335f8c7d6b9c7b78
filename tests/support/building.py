"""What tests/test_wheel.py and tests/test_sdist.py share to build the package."""

from __future__ import annotations


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
