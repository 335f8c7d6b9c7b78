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
from functools import cache

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
        """The next ``k`` ``random()`` values, as ``k`` calls of :meth:`next` give them.

        The generator is linear: each word is a sum (mod 2**32) of the 31 words before a
        block, with coefficients that do not depend on where the block starts, so a
        block of up to :data:`BLOCK` words is one product of those coefficients with
        the 31 words (in uint64, whose wrap-around keeps the low 32 bits exact); a
        step a value in a Python list took 0.02-0.03 s over the search's 33 starts at
        100k rows."""
        state = np.fromiter(self._r, dtype=np.uint64, count=_DEG)
        words = np.empty(k, dtype=np.uint64)
        coef = _block_coefficients()
        for start in range(0, k, BLOCK):
            size = min(BLOCK, k - start)
            block = coef[:size] @ state
            block &= _WORD
            words[start : start + size] = block
            state = np.concatenate((state, block))[-_DEG:]
        self._r = deque(state.tolist(), maxlen=_DEG)
        words >>= np.uint64(1)
        return words.astype(np.uint32)


BLOCK = 1024
"""Words made by one product in :meth:`GlibcRandom.draws` (its table: 256 KB)."""
_WORD = np.uint64(0xFFFFFFFF)


@cache
def _block_coefficients() -> npt.NDArray[np.uint64]:
    """Row t: word t of a block as a sum of the 31 words before it (mod 2**32), the
    coefficient of the i-th of them in column i."""
    rows = list(np.eye(_DEG, dtype=np.uint64))  # the words before the block
    lag = _DEG - _SEP
    for t in range(BLOCK):
        nxt = rows[t] + rows[t + lag]  # r[i] = r[i - 31] + r[i - 3]
        nxt &= _WORD
        rows.append(nxt)
    return np.stack(rows[_DEG:])
