"""Operands for add_pos and div_pos (treegen/codegen/f64.py POS_OPS) on their domain:
+0 or positive normal operands, a finite sum, a normal quotient.  Random over the whole
domain (every exponent, close in value and many binades apart, exact ties, rounding up
to the next binade) and a forest's own (class fractions n / N, their sums over up to
1,000 trees, those sums divided by the number of trees); shared by the host and the
simulated-AVR tests."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from support.floatbits import U64, bits

LEAST_NORMAL = 0x0010000000000000
EXP = np.uint64(52)


def positive(rng: np.random.Generator, n: int, lo: int = 1, hi: int = 0x7FE) -> U64:
    """Positive normal numbers: exponents lo..hi (the ends as often as the rest),
    fractions random, zero, all ones or one bit; a tenth +0."""
    exp = rng.integers(lo, hi + 1, n, dtype=np.uint64)
    ends = rng.random(n) < 0.2
    exp[ends] = np.where(rng.random(int(ends.sum())) < 0.5, lo, hi).astype(np.uint64)
    frac = rng.integers(0, 1 << 52, n, dtype=np.uint64)
    kind = rng.integers(0, 6, n)
    frac[kind == 0] = 0
    frac[kind == 1] = (1 << 52) - 1
    frac[kind == 2] = np.uint64(1) << rng.integers(0, 52, int((kind == 2).sum()), dtype=np.uint64)
    out: U64 = (exp << EXP) | frac
    out[rng.random(n) < 0.1] = 0
    return out


def add_pairs(rng: np.random.Generator, n: int) -> tuple[U64, U64]:
    """Pairs with a finite sum: random, close (same or neighbouring binade), a few to
    70 binades apart, ties (b half an ulp of a, or one and a half), and the forest's
    sums of fractions."""
    q = n // 5
    a = positive(rng, q, hi=0x7FD)
    b = positive(rng, q, hi=0x7FD)
    near_a = positive(rng, q, hi=0x7FD)
    near_b = near_a + rng.integers(-300, 300, q).astype(np.uint64)  # wraps: masked below
    near_b[(near_b >> EXP) >= np.uint64(0x7FE)] = np.uint64(0x3FF) << EXP
    near_b[near_b < LEAST_NORMAL] = LEAST_NORMAL
    far_a = positive(rng, q, lo=80, hi=0x7FD)
    shift = rng.integers(0, 70, q).astype(np.uint64)
    far_b = (((far_a >> EXP) - shift) << EXP) | rng.integers(0, 1 << 52, q, dtype=np.uint64)
    far_b[far_a == 0] = 0
    # Ties: b is half an ulp of a (or 3/2, 5/2): to even decides.
    tie_a = positive(rng, q, lo=60, hi=0x7FD)
    tie_a[tie_a == 0] = np.uint64(0x3FF) << EXP
    k = rng.choice(np.array([1, 3, 5], dtype=np.uint64), q)
    tie_b = bits(k.astype(np.float64) * np.ldexp(1.0, ((tie_a >> EXP).astype(np.int64) - 1076)))
    m = n - 4 * q
    fa, fb = forest_sums(rng, m)
    return (
        np.concatenate([a, near_a, far_a, tie_a, fa]),
        np.concatenate([b, near_b, far_b, tie_b, fb]),
    )


def forest_sums(rng: np.random.Generator, n: int) -> tuple[U64, U64]:
    """A forest's additions: a running sum of fractions n / N (N up to 65,535) over up
    to 1,000 trees, and the next fraction."""
    total = rng.integers(1, 65536, n)
    count = rng.integers(1, total + 1)
    frac = count.astype(np.float64) / total.astype(np.float64)
    trees = rng.integers(0, 1000, n).astype(np.float64)
    running = trees * rng.random(n)
    return bits(running), bits(frac)


def div_pairs(rng: np.random.Generator, n: int) -> tuple[U64, U64]:
    """Pairs with a normal (or zero) quotient: random exponents that keep it in range,
    close significands (quotients near 1, exact ones), and a forest's: n / N and
    sums divided by the number of trees."""
    q = n // 3
    a = positive(rng, q)
    ea = (a >> EXP).astype(np.int64)
    eb = np.clip(ea - rng.integers(-1000, 1000, q), 1, 0x7FE)
    eb = np.clip(eb, ea - 1020, ea + 1020)  # the quotient's exponent stays normal
    eb = np.clip(eb, 1, 0x7FE).astype(np.uint64)
    b = (eb << EXP) | rng.integers(0, 1 << 52, q, dtype=np.uint64)
    same = rng.random(q) < 0.2
    b[same] = (eb[same] << EXP) | (a[same] & np.uint64((1 << 52) - 1))  # a power of two
    m = n - 2 * q
    total = rng.integers(1, 65536, m)
    count = rng.integers(1, total + 1)
    trees = rng.integers(1, 2000, m)
    sums = bits(rng.random(m) * trees)
    return (
        np.concatenate([a, bits(count.astype(np.float64)), sums]),
        np.concatenate([b, bits(total.astype(np.float64)), bits(trees.astype(np.float64))]),
    )


def in_domain(op: str, a: U64, b: U64) -> npt.NDArray[np.bool_]:
    x, y = a.view(np.float64), b.view(np.float64)
    with np.errstate(all="ignore"):
        r = x + y if op == "add_pos" else x / y
    normal = (r == 0) | (r >= np.ldexp(1.0, -1022))
    ok = (a == 0) | (a >= LEAST_NORMAL)
    ok &= ((b == 0) | (b >= LEAST_NORMAL)) if op == "add_pos" else (b >= LEAST_NORMAL)
    ok &= np.isfinite(x) & np.isfinite(y) & np.isfinite(r) & normal
    return ok
