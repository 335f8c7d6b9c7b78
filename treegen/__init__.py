"""treegen: train C4.5 decision trees and compile them to portable, exact C."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
