"""numpy's floating-point error state as treegen's arithmetic expects it.

treegen rounds to float32 on purpose (overflow to infinity, underflow to a subnormal or
zero are results) and leaves numpy's default state elsewhere: warn on overflow, a
division by zero and an invalid operation, ignore underflow.  A program may have changed
that state for its whole process (``numpy.seterr(all="raise")``; importing emlearn does
so), and treegen's public functions would then fail on a model or data set that is
perfectly good.  :func:`numpy_defaults` runs a public function under numpy's defaults;
the caller's state is back when it returns.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import numpy as np

P = ParamSpec("P")
R = TypeVar("R")


def numpy_defaults(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run under numpy's default floating-point error state."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        # numpy's own defaults (numpy.seterr's documentation).
        with np.errstate(divide="warn", over="warn", under="ignore", invalid="warn"):
            return fn(*args, **kwargs)

    return run
