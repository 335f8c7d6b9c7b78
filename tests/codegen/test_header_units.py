"""predict.h says what each x[i] holds (issue: the unit comment listed nominal
features as scaled, and a user who followed it fed a scaled code and got a wrong class).

Only continuous features with a scale K != 1 are listed in the fixed-point unit comment;
each nominal feature's index says which code is which value (and, in a scaled export,
that codes are not scaled); the per-code macros follow.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from treegen.codegen.emit import emit
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions

from support import codegen_models as cm


def _header(**kw: object) -> str:
    opts = ExportOptions(prefix="golf", **kw)  # type: ignore[arg-type]
    return emit(lower(cm.golf(), opts))["predict.h"]


def _units(header: str) -> dict[str, str]:
    m = re.search(
        r"Fixed point, one unit is (.*?)(?: \(nominal codes are not scaled\))?\. \*/", header
    )
    assert m is not None, header
    return dict(part.split(": ") for part in m.group(1).split(", "))


@pytest.mark.parametrize(
    ("kw", "units"),
    [
        (
            {"input_type": "int16", "scale": Fraction(10)},
            {"temperature": "1/10", "humidity": "1/10"},
        ),
        (
            {"input_type": "int32", "feature_scales": (("humidity", Fraction(4)),)},
            {"humidity": "1/4"},
        ),
    ],
)
def test_only_scaled_continuous_features_have_a_unit(
    kw: dict[str, object], units: dict[str, str]
) -> None:
    header = _header(**kw)
    assert _units(header) == units
    assert "(nominal codes are not scaled)" in header
    assert (
        "#define GOLF_F_OUTLOOK 0 /* outlook (nominal, codes not scaled: "
        "0 = sunny, 1 = overcast, 2 = rain) */" in header
    )
    assert (
        "#define GOLF_F_HUMIDITY 2 /* humidity (continuous, fixed point: x is humidity * " in header
    )
    assert "#define GOLF_OUTLOOK_OVERCAST 1 /* overcast */" in header


def test_unscaled_exports_name_the_codes_only() -> None:
    header = _header()
    assert "Fixed point" not in header and "not scaled" not in header
    assert "/* windy (nominal, codes: 0 = true, 1 = false) */" in header
    lean = _header(missing="none")
    assert "Codes of nominal feature windy; any other value takes the rule above." in lean


def test_many_values_point_to_the_code_macros() -> None:
    ir = lower(cm.wide_nominal(20), ExportOptions(prefix="w"))
    header = emit(ir)["predict.h"]
    assert "/* v (nominal, codes: 0 .. 19, listed below) */" in header
    assert "#define W_V_V19 19 /* v19 */" in header
