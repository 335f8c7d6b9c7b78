"""``python -m treegen`` entry point."""

from __future__ import annotations

from treegen.cli import run

if __name__ == "__main__":
    run()
