"""glibc's random() (treegen/rules/glibc.py) against the real one's outputs.

tests/data/glibc_random.txt holds outputs of glibc 2.36's random() (its header says
how they were made): unseeded, as c4.5rules calls it, and after srandom(S) for a few S,
among them 0 (glibc treats it as 1) and 2**32 - 1 (a negative int inside glibc).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from treegen.rules.glibc import BLOCK, GlibcRandom

DATA = Path(__file__).resolve().parents[1] / "data" / "glibc_random.txt"


def _sequences() -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    current: list[int] = []
    for line in DATA.read_text().splitlines():
        if line.startswith("#"):
            continue
        if line.startswith("seed "):
            current = out.setdefault(line.split()[1], [])
        else:
            current.append(int(line))
    return out


SEQUENCES = _sequences()


def test_the_data_file_has_every_sequence() -> None:
    assert set(SEQUENCES) == {"none", "0", "2", "12345", "4294967295"}
    assert len(SEQUENCES["none"]) == 1000
    assert all(len(v) == 100 for k, v in SEQUENCES.items() if k != "none")


@pytest.mark.parametrize("seed", sorted(SEQUENCES))
def test_equals_glibc(seed: str) -> None:
    want = SEQUENCES[seed]
    g = GlibcRandom() if seed == "none" else GlibcRandom(int(seed))
    assert [g.next() for _ in want] == want


def test_outputs_are_31_bits() -> None:
    g = GlibcRandom(7)
    values = [g.next() for _ in range(5000)]
    assert all(0 <= v < 2**31 for v in values)
    assert max(values) > 2**30  # not stuck below the top bit


@pytest.mark.parametrize("seed", [1, 12345])
def test_draws_are_the_calls_of_next(seed: int) -> None:
    """A block of draws is the same values as calls of next, and the stream goes on
    from where the block ended (blocks and calls mixed)."""
    one, many = GlibcRandom(seed), GlibcRandom(seed)
    want = [one.next() for _ in range(700)]
    got = many.draws(0).tolist() + many.draws(250).tolist() + [many.next()]
    got += many.draws(449).tolist()
    assert got == want
    assert many.next() == one.next()


def test_draws_across_blocks() -> None:
    """Draws longer than a block (glibc.BLOCK words a product), ending inside one and on
    its edge, and shorter than the 31 words a step reads, are the calls of next."""
    one, many = GlibcRandom(99), GlibcRandom(99)
    sizes = [2 * BLOCK + 17, 5, BLOCK, 30, BLOCK + 1, 0, 3 * BLOCK - 7]
    want = [one.next() for _ in range(sum(sizes) + 1)]
    got: list[int] = []
    for k in sizes:
        block = many.draws(k)
        assert block.dtype == np.uint32 and block.shape == (k,)
        got += block.tolist()
    got.append(many.next())
    assert got == want
