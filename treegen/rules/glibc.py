"""glibc's ``random()``: the generator Release 8's c4.5rules draws from, never seeded.

glibc's default state (TYPE_3) is an additive lagged Fibonacci generator over 34
32-bit words: ``srandom(seed)`` (seed 0 counts as 1; never calling it is seed 1)
fills ``r[0] = seed`` and ``r[i] = 16807 * r[i-1] mod (2**31 - 1)`` for i = 1..30
(computed in signed 32-bit arithmetic, a negative result wrapped by adding
2**31 - 1), copies ``r[i] = r[i-31]`` for i = 31..33, then steps
``r[i] = r[i-31] + r[i-3] (mod 2**32)``; the first 310 steps are discarded and each
later step returns ``r[i] >> 1``, a number in 0 .. 2**31 - 1.  This is the
documented algorithm (glibc manual, "BSD Random Number Functions", and its
published descriptions), not glibc's code; ``tests/rules/test_rules_random.py`` checks
it against outputs of the real ``random()``.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import numpy.typing as npt

MODULUS = 2**31 - 1
_WARM_UP = 310
_DEG = 31  # r[i] depends on r[i-31] ...
_SEP = 3  # ... and r[i-3]


class GlibcRandom:
    """``random()`` after ``srandom(seed)``; :meth:`next` is one call."""

    def __init__(self, seed: int = 1) -> None:
        seed &= 0xFFFFFFFF
        r = [seed or 1]
        for _ in range(1, _DEG):
            # 16807 * r mod (2**31 - 1), as glibc computes it: r read as a signed int,
            # Schrage's split, a negative result wrapped once.
            prev = r[-1] - 2**32 if r[-1] >= 2**31 else r[-1]
            hi = abs(prev) // 127773 * (1 if prev >= 0 else -1)  # C's division truncates
            lo = prev - hi * 127773
            word = 16807 * lo - 2836 * hi
            if word < 0:
                word += MODULUS
            r.append(word & 0xFFFFFFFF)
        r += r[:_SEP]  # r[31..33] = r[0..2]
        self._r: deque[int] = deque(r[-_DEG:], maxlen=_DEG)
        for _ in range(_WARM_UP):
            self._step()

    def _step(self) -> int:
        word = (self._r[0] + self._r[_DEG - _SEP]) & 0xFFFFFFFF
        self._r.append(word)
        return word

    def next(self) -> int:
        """The next ``random()`` value, 0 .. 2**31 - 1."""
        return self._step() >> 1

    def draws(self, k: int) -> npt.NDArray[np.uint32]:
        """The next ``k`` ``random()`` values, as ``k`` calls of :meth:`next` give them:
        one step each in a plain list (a call of :meth:`next` a value was a sixth of the
        subset search at 100k rows)."""
        r = list(self._r)  # r[i] = r[i - 31] + r[i - 3]: the new word's inputs in r
        lag = _DEG - _SEP
        for i in range(k):
            r.append((r[i] + r[i + lag]) & 0xFFFFFFFF)
        self._r = deque(r[-_DEG:], maxlen=_DEG)
        words = np.asarray(r[_DEG:], dtype=np.uint32)
        words >>= np.uint32(1)
        return words
