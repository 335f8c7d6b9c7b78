"""The export modes the code-generation tests run through, in one table.

A mode is a name for a set of :class:`~treegen.codegen.lower.ExportOptions`
keywords (input type, float compare, scale, missing value, missing rule, proba); the style
(``ifs``/``table``) is crossed with it separately.  :data:`CORE` is the set
most suites cover; the compile test adds the remaining integer types.
"""

from __future__ import annotations

from fractions import Fraction

EXPORT_MODES: dict[str, dict[str, object]] = {
    "float": {},
    "double": {"input_type": "double"},
    "int16": {"input_type": "int16"},
    "uint8": {"input_type": "uint8", "missing_value": 255},
    "keys": {"float_compare": "int"},
    "fixed": {"input_type": "int32", "scale": Fraction(1000)},
    "uint32": {"input_type": "uint32", "missing_value": 4294967295},
    "int8": {"input_type": "int8"},
    # --missing none (lean): no missing-value code; a NaN or sentinel takes the none rule.
    "lean_float": {"missing": "none"},
    "lean_double": {"input_type": "double", "missing": "none"},
    "lean_int16": {"input_type": "int16", "missing": "none"},
    "lean_uint8": {"input_type": "uint8", "missing_value": 255, "missing": "none"},
    "lean_keys": {"float_compare": "int", "missing": "none"},
    "lean_fixed": {"input_type": "int32", "scale": Fraction(1000), "missing": "none"},
    # ... with predict_proba (--missing none --proba).
    "lean_float_proba": {"missing": "none", "proba": True},
    "lean_int16_proba": {"input_type": "int16", "missing": "none", "proba": True},
}

# Every input domain once: float32, double, a narrow and a byte integer with a
# missing sentinel, float32 compared as integer keys, and fixed point.
CORE = ("float", "double", "int16", "uint8", "keys", "fixed")

# The --missing none modes: every input domain of CORE, and two with --proba.
LEAN = (
    "lean_float",
    "lean_double",
    "lean_int16",
    "lean_uint8",
    "lean_keys",
    "lean_fixed",
    "lean_float_proba",
    "lean_int16_proba",
)

STYLES = ("ifs", "table")


def modes(
    names: tuple[str, ...] = CORE, **overrides: dict[str, object]
) -> dict[str, dict[str, object]]:
    """``{name: keywords}`` for ``names`` from the table; ``overrides`` replaces a mode's
    keywords (a suite that needs another scale, say)."""
    return {name: dict(overrides.get(name, EXPORT_MODES[name])) for name in names}


def cli_args(keywords: dict[str, object], style: str = "ifs") -> list[str]:
    """The export/verify command-line options for ``keywords`` (defaults left out)."""
    out = [] if style == "ifs" else ["--style", style]
    for key, value in keywords.items():
        if isinstance(value, bool):
            out.append(("--" if value else "--no-") + key)
        else:
            out += ["--" + key.replace("_", "-"), str(value)]
    return out
