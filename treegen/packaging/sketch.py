"""The Arduino library's example sketch: one row through ``PREFIX_predict``, its class
(a regressor's values) printed over Serial.

It uses nothing of the Arduino core but ``Serial.begin``, ``Serial.print`` and
``Serial.println``, and defines each helper before its use, so it compiles as plain
C++ too (the IDE's generated prototypes are not needed).  The row is every feature at
0 (a nominal feature's first value, code 0): a placeholder for a real one.
"""

from __future__ import annotations

from treegen.codegen.literals import c_string
from treegen.codegen.names import comment_text
from treegen.packaging.library import Library, sketch_name

BAUD = 9600


def _zero(lib: Library) -> str:
    if not lib.input_is_float:
        return "0"
    return "0.0f" if lib.input_ctype == "float" else "0.0"


def _row(lib: Library) -> list[str]:
    cells = []
    for i, f in enumerate(lib.features):
        what = f.name if f.kind != "nominal" else f"{f.name} = {f.values[0]}"
        if f.kind == "ignore":
            what += " (not used)"
        sep = "," if i + 1 < len(lib.features) else ""
        cells.append(f"    {_zero(lib)}{sep} /* {comment_text(what)} */")
    return cells or [f"    {_zero(lib)} /* no feature */"]


def _head(lib: Library, prints: str, verb: str) -> str:
    P = lib.prefix
    size = f"{lib.upper}_N_FEATURES" if lib.features else "1"
    provenance = "".join(f" * {comment_text(f'{k}: {v}')}\n" for k, v in lib.provenance)
    return (
        f"/*\n{provenance} *\n"
        f" * {sketch_name(P)}.ino: predicts one row with {P}_predict() and prints {prints}\n"
        f" * over Serial ({BAUD} baud).  It uses nothing of the Arduino core but Serial.begin,\n"
        " * Serial.print and Serial.println.\n"
        " */\n"
        f"#include <{lib.header}>\n\n"
        f"/* The row to {verb}: every feature 0 here (a nominal feature's first value);\n"
        "   put a real row in its place. */\n"
        f"static const {P}_input_t {P}_row[{size}] = {{\n" + "\n".join(_row(lib)) + "\n};\n\n"
    )


def _regressor(lib: Library) -> str:
    """A regressor's predict writes its outputs (no class): each is printed as a
    decimal (Serial.print's 6 digits, of a float where double has 32 bits) and as its
    exact float64 bits from predict_bits, 16 hex digits."""
    P, U = lib.prefix, lib.upper
    names = ",\n".join(f"    {c_string(c)}" for c in lib.classes)
    return (
        _head(lib, "its values", "predict") + "/* The output names, by their index in y[]. */\n"
        f"static const char *const {P}_names[{U}_N_OUTPUTS] = {{\n{names}\n}};\n\n"
        "/* Prints a 32-bit word as 8 hex digits. */\n"
        f"static void {P}_print_hex(uint32_t word)\n"
        "{\n"
        "    char text[9];\n"
        "    int i;\n"
        "    for (i = 7; i >= 0; i--) {\n"
        '        text[i] = "0123456789abcdef"[word & 15u];\n'
        "        word >>= 4;\n"
        "    }\n"
        "    text[8] = 0;\n"
        "    Serial.print(text);\n"
        "}\n\n"
        "/* Prints 'NAME = VALUE (float64 0xBITS)', one line per output. */\n"
        f"static void {P}_print_values(const {P}_input_t *x)\n"
        "{\n"
        f"    double y[{U}_N_OUTPUTS];\n"
        f"    uint32_t bits[2 * {U}_N_OUTPUTS];\n"
        "    int o;\n"
        f"    {P}_predict(x, y);\n"
        f"    {P}_predict_bits(x, bits);\n"
        f"    for (o = 0; o < {U}_N_OUTPUTS; o++) {{\n"
        f"        Serial.print({P}_names[o]);\n"
        '        Serial.print(" = ");\n'
        "        Serial.print(y[o], 6);\n"
        '        Serial.print(" (float64 0x");\n'
        f"        {P}_print_hex(bits[2 * o]);\n"
        f"        {P}_print_hex(bits[2 * o + 1]);\n"
        '        Serial.println(")");\n'
        "    }\n"
        "}\n\n"
        "void setup()\n"
        "{\n"
        f"    Serial.begin({BAUD});\n"
        f"    {P}_print_values({P}_row);\n"
        "}\n\n"
        "void loop()\n"
        "{\n"
        "}\n"
    )


def example(lib: Library) -> str:
    if lib.regressor:
        return _regressor(lib)
    P, U = lib.prefix, lib.upper
    names = ",\n".join(f"    {c_string(c)}" for c in lib.classes)
    return (
        _head(lib, "its class", "classify")
        + "/* The class names, by the index the classifier returns. */\n"
        f"static const char *const {P}_names[{U}_N_CLASSES] = {{\n{names}\n}};\n\n"
        "/* Prints 'class INDEX (NAME)' on one line. */\n"
        f"static void {P}_print_class(int c)\n"
        "{\n"
        '    Serial.print("class ");\n'
        "    Serial.print(c);\n"
        '    Serial.print(" (");\n'
        f"    Serial.print({P}_names[c]);\n"
        '    Serial.println(")");\n'
        "}\n\n"
        "void setup()\n"
        "{\n"
        f"    Serial.begin({BAUD});\n"
        f"    {P}_print_class({P}_predict({P}_row));\n"
        "}\n\n"
        "void loop()\n"
        "{\n"
        "}\n"
    )
