"""Command-line front end: ``treegen SUBCOMMAND ...`` (placeholder, see issue 2)."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    raise SystemExit("not yet")
