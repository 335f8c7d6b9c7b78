"""A row longer than simavr's UART buffer: many scores, printed in pieces, still read."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.firmware import targets
from treegen.firmware.parity import verify_on
from treegen.firmware.sim import parse_output

sklearn = pytest.importorskip("sklearn")
from sklearn.ensemble import GradientBoostingClassifier  # noqa: E402


def _as_simavr_prints(text: str) -> str:
    """``text`` as simavr shows a UART's output: 256 characters at a time, each piece in
    colour codes on its own line, a newline shown as '.' and ending its piece."""
    out: list[str] = []
    piece = ""
    for ch in text:
        piece += "." if ch == "\n" else ch
        if ch == "\n" or len(piece) == 256:
            out.append(f"\x1b[32m{piece}\n\x1b[0m")
            piece = ""
    return "Loaded 7788 .text at address 0x0\nLoaded 24 .data\n" + "".join(out)


def test_a_row_broken_by_simavr_is_joined() -> None:
    scores = [f"{k:08x}" for k in range(40)]  # 40 doubles' bytes in hex: 363 characters
    text = "#nop10,17\n0,3,1234," + ",".join(scores) + "\n1,0,99\n#done,2\n"
    printed = _as_simavr_prints(text)
    assert printed.count("\x1b[32m") > 4  # the row really was broken
    out = parse_output(printed)
    assert out.rows == {0: (3, 1234, tuple(scores)), 1: (0, 99, ())}
    assert out.meta == {"nop10": "17", "done": "2"}


def test_qemu_lines_are_read_as_printed() -> None:
    """qemu's lines have no colour codes and no final '.': none is joined."""
    out = parse_output("0,1,5,aa,bb\n1,2,6,cc,dd\n#done,2\n")
    assert out.rows == {0: (1, 5, ("aa", "bb")), 1: (2, 6, ("cc", "dd"))}


@pytest.mark.toolchain
def test_thirty_two_scores_come_back_from_the_atmega() -> None:
    """32 classes' scores (a row of about 300 characters): every row back, equal."""
    t = targets.target("avr")
    if shutil.which("avr-gcc") is None or shutil.which("simavr") is None:
        pytest.skip("needs avr-gcc and simavr (gcc-avr, avr-libc, simavr)")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3)).astype(np.float32)
    y = rng.integers(0, 32, 400)
    from treegen.ensemble.sklearn import ensemble_from_sklearn

    est = GradientBoostingClassifier(n_estimators=1, max_depth=1, random_state=0).fit(X, y)
    ens = ensemble_from_sklearn(est)
    assert len(ens.schema.classes) == 32
    result = verify_on(ens, ExportOptions(prefix="e", scores=True), [], [t.name], n_random=5)
    assert result.report.ok, result.report.text()
    assert result.report.rows == len(result.rows) > 0
    run = result.runs[t.name]
    assert (run.cls >= 0).all()  # every row came back
