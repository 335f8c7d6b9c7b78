"""Each codegen constant has one home: the C takes it from the Python definition.

The C scalar types come from one record (treegen.codegen.ctype), checked against
numpy here; the table opcodes and the nominal maps' 'no branch' code are renumbered
in treegen.codegen.layout and the compiled C must still agree with the oracle, which
fails if a template spells one of them itself.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen import layout
from treegen.codegen.ctype import INPUT_TYPES, TYPES, smallest_int, smallest_uint
from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.model.fixedpoint import FixedPointClassifier
from treegen.verify.build import build, have_compiler
from treegen.verify.inputs import comparison_inputs
from treegen.verify.oracle import evaluate

from support import codegen_models as cm


@pytest.mark.parametrize("name", INPUT_TYPES)
def test_ctype_record_matches_numpy(name: str) -> None:
    t = TYPES[name]
    assert t.name == name
    assert np.dtype(t.dtype).itemsize * 8 == t.bits
    if t.is_int:
        info = np.iinfo(np.dtype(t.dtype).name)
        assert t.range == (int(info.min), int(info.max))
        assert t.signed == (info.min < 0)
        assert t.c_name == f"{name}_t"
    else:
        assert np.issubdtype(t.dtype, np.floating) and t.c_name == name


def test_smallest_types_at_their_limits() -> None:
    assert [smallest_uint(v).name for v in (0, 255, 256, 65535, 65536, 2**32 - 1)] == [
        "uint8",
        "uint8",
        "uint16",
        "uint16",
        "uint32",
        "uint32",
    ]
    assert smallest_int(-128, 127).name == "int8"
    assert smallest_int(-129, 0).name == "int16"
    assert smallest_int(-1, 32768).name == "int32"
    assert smallest_int(0, 300).name == "uint16"
    with pytest.raises(ValueError):
        smallest_uint(2**32)


def test_templates_do_not_spell_q15() -> None:
    """The fixed-point ones and the shifts to Q15 come from the view; only
    PREFIX_mul, the Q31 product written for W_SHIFT == 31, splits into 16-bit halves."""
    root = importlib.resources.files("treegen.codegen").joinpath("templates")
    for entry in root.iterdir():
        text = entry.read_text("utf-8")
        if "_mul(uint32_t w, uint32_t s)" in text:
            start = text.index("_mul(uint32_t w, uint32_t s)")
            text = text[:start] + text[text.index("\n}\n", start) :]
        for literal in ("32768", "0x8000u", "2147483648", ">> 15"):
            assert literal not in text, f"{entry.name} writes {literal!r}; use the view"


@pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")
@pytest.mark.parametrize("style", ["ifs", "table"])
def test_renumbered_opcodes_and_map_code_reach_the_c(
    style: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Same order as the originals (the walk relies on it), every value different.
    le, lt, left, right, switch = 2, 4, 6, 8, 11
    for attr, value in (
        ("OP_LE", le),
        ("OP_LT", lt),
        ("OP_LEFT", left),
        ("OP_RIGHT", right),
        ("OP_SWITCH", switch),
        ("MAP_NONE", 200),
    ):
        monkeypatch.setattr(layout, attr, value)
    monkeypatch.setattr(layout, "OPS", {"le": le, "lt": lt, "left": left, "right": right})
    model = cm.synthetic(5, 120)  # has subset tests with a code in no subset
    ir = lower(model, ExportOptions(prefix="renum", style=style))
    files = emit(ir, style)
    table = layout.flatten(ir)
    maps = table.maps if style == "table" else layout.ifs_layout(ir).maps
    assert 200 in maps  # a code in no subset is in the test
    assert le in table.op and max(table.op) >= switch
    # A template writing the old code itself is caught here, before its C (whose
    # branch index then runs past the map) is run.
    assert "255u" not in files["predict.c"]
    X = comparison_inputs(ir, n_random=300)
    c_cls, c_proba = build(ir, files, tmp_path).run(X)
    e_cls, e_proba = evaluate(ir, X)
    f_cls, f_proba = FixedPointClassifier(model, ir.encoding).predict(X)
    assert np.array_equal(c_cls, e_cls) and np.array_equal(c_proba, e_proba)
    assert np.array_equal(c_cls, f_cls) and np.array_equal(c_proba, f_proba)
