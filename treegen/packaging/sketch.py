"""The Arduino library's example sketch: one row through ``PREFIX_predict``, its class
printed over Serial.

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


def example(lib: Library) -> str:
    P, U = lib.prefix, lib.upper
    size = f"{U}_N_FEATURES" if lib.features else "1"
    names = ",\n".join(f"    {c_string(c)}" for c in lib.classes)
    provenance = "".join(f" * {comment_text(f'{k}: {v}')}\n" for k, v in lib.provenance)
    return (
        f"/*\n{provenance} *\n"
        f" * {sketch_name(P)}.ino: predicts one row with {P}_predict() and prints its class\n"
        f" * over Serial ({BAUD} baud).  It uses nothing of the Arduino core but Serial.begin,\n"
        " * Serial.print and Serial.println.\n"
        " */\n"
        f"#include <{lib.header}>\n\n"
        "/* The row to classify: every feature 0 here (a nominal feature's first value);\n"
        "   put a real row in its place. */\n"
        f"static const {P}_input_t {P}_row[{size}] = {{\n" + "\n".join(_row(lib)) + "\n};\n\n"
        "/* The class names, by the index the classifier returns. */\n"
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
