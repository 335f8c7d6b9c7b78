"""Pruning in Python for a while: the reference the C pruners are held to."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from treegen.trainer import native


@contextmanager
def python_pruner(on: bool = True) -> Iterator[None]:
    """Within the block, with ``on``, the trainer prunes in Python: the C pruner the
    pruning modules consult (treegen.trainer.native.cprune) is None, and afterwards
    what it was."""
    saved = native.cprune
    if on:
        native.cprune = None
    try:
        yield
    finally:
        native.cprune = saved
