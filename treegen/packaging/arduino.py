"""``treegen export --layout arduino``: the export folder as an Arduino library that is
also a PlatformIO library.

    DIR/library.properties                  Arduino's metadata (library specification 1.5)
    DIR/library.json                        PlatformIO's
    DIR/src/predict.c, DIR/src/predict.h    compiled as C by both
    DIR/examples/PREFIX_predict/PREFIX_predict.ino   predicts one row, prints its class

The library is named after the C prefix.  Its version is 1.0.0 whatever the model:
a generated library is installed from its folder (Arduino's libraries folder, a
PlatformIO project's lib/), where the version is not compared; the fingerprint of the
model it holds is in both manifests.  ``url``, which the specification requires, is
that fingerprint as a URN (``urn:treegen:sha256:...``): there is no project page.
"""

from __future__ import annotations

import json

from treegen.kinds import a_kind
from treegen.packaging import sketch
from treegen.packaging.library import Library, sketch_name

VERSION = "1.0.0"
CATEGORY = "Data Processing"  # one of the specification's categories


def _sentence(lib: Library) -> str:
    n, k = len(lib.features), len(lib.classes)
    into = f"{k} output{'s' * (k != 1)}" if lib.regressor else f"{k} class{'es' * (k != 1)}"
    return (
        f"{lib.prefix}_predict(): {a_kind(lib.kind)} {lib.role} of {n} "
        f"feature{'s' * (n != 1)} into {into}, exported by treegen."
    )


def _paragraph(lib: Library) -> str:
    # A regressor's predict writes its outputs (void PREFIX_predict(x, y)): the call
    # named here is the one predict.h declares.
    args, outputs = "x", ""
    if lib.regressor:
        args, outputs = "x, y", f" and its outputs y[{lib.upper}_N_OUTPUTS] of double"
    return (
        f"Dependency-free C ({lib.source}, {lib.header}): no heap, no libm, no "
        f"recursion. Call {lib.prefix}_predict({args}) with the row "
        f"x[{lib.upper}_N_FEATURES] of {lib.prefix}_input_t{outputs}; the example prints "
        f"{'the values' if lib.regressor else 'the class'} of one row over Serial."
    )


def library_properties(lib: Library) -> str:
    # One property a line, its value the rest of the line: no value may hold a newline
    # (the prefix is a C identifier, the rest is written here).
    return lib.comment_lines("# ") + "".join(
        f"{key}={value}\n"
        for key, value in (
            ("name", lib.prefix),
            ("version", VERSION),
            ("author", "treegen"),
            ("maintainer", "treegen"),
            ("sentence", _sentence(lib)),
            ("paragraph", _paragraph(lib)),
            ("category", CATEGORY),
            ("url", f"urn:treegen:{lib.fingerprint}"),
            ("architectures", "*"),
            ("includes", lib.header),
        )
    )


def library_json(lib: Library) -> str:
    manifest = {
        "name": lib.prefix,
        "version": VERSION,
        "description": f"{_sentence(lib)} Model {lib.fingerprint}.",
        "keywords": [lib.role, "machine learning", lib.kind, "treegen"],
        "authors": [{"name": "treegen", "maintainer": True}],
        "frameworks": ["*"],
        "platforms": ["*"],
        "headers": [lib.header],
    }
    return json.dumps(manifest, indent=2) + "\n"


def files(lib: Library) -> dict[str, str]:
    name = sketch_name(lib.prefix)
    return {
        "library.properties": library_properties(lib),
        "library.json": library_json(lib),
        f"src/{lib.source}": lib.files[lib.source],
        f"src/{lib.header}": lib.files[lib.header],
        f"examples/{name}/{name}.ino": sketch.example(lib),
    }
