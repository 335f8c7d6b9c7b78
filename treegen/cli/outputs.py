"""What ``-o`` may replace: never a command's own input, nor a file of another kind.

:func:`refuse_to_overwrite_inputs` runs before every command (:mod:`treegen.cli.main`),
before anything is read or written; :func:`refuse_to_replace` is its check of what a
file holds, which ``synth`` also calls for the files it writes.  Both are usage errors
naming ``-o/--output``, one line and exit status 2.
"""

from __future__ import annotations

import argparse
import os

from treegen.data.filekind import file_kind
from treegen.data.readers import DATA_SUFFIXES, detect_format
from treegen.data.readers.c45 import c45_paths
from treegen.errors import UsageError

# The arguments that name files a subcommand reads (DATA, MODEL, FILE, and options).
_INPUTS = ("data", "model", "file", "unpruned", "validation")
# The subcommands whose -o is a model file.
_MODEL_WRITERS = ("train", "rules", "import-sklearn", "import-xgboost", "import-lightgbm")


def _files_read(path: str, command: str | None) -> list[str]:
    """The files reading ``path`` opens: C4.5 DATA is its .names and cases files (and, for
    train and rules, the STEM.test beside them)."""
    if detect_format(path) != "c45":
        return [path]
    # (here: the evaluation module is not needed by a train on other files)
    from treegen.analysis.evaluate import test_set_beside

    test = test_set_beside(path) if command in ("train", "rules") else None
    return [path, *c45_paths(path), *([test] if test else [])]


def refuse_to_overwrite_inputs(args: argparse.Namespace) -> None:
    """A usage error, before anything is read or written, when ``-o`` is empty, or when
    it (or the default output a subcommand names with ``default_output``, a function of
    DATA) would replace one of the command's own input files (export: the C source or
    header in its folder, predict.c and predict.h unless --prefix or --name names them,
    or another file of its --layout)."""
    out = getattr(args, "output", None)
    if out == "":
        raise UsageError("is an empty file name", option="-o/--output")
    default = getattr(args, "default_output", None)
    if out is None and default is not None:
        out = str(default(args.data))
    if not isinstance(out, str):
        return
    command = getattr(args, "command", None)
    if command == "export":  # every file of its layout (the sketch's name aside)
        # Imported here: the other commands do not load code generation.
        from treegen.codegen.options import stem_of
        from treegen.codegen.parts import file_names
        from treegen.packaging.library import placed

        stem = stem_of(getattr(args, "prefix", None), getattr(args, "name", None))
        names = placed(
            getattr(args, "layout", "plain"),
            bool(getattr(args, "cmake", False)),
            *file_names(stem),
            getattr(args, "prefix", None) or "model",
        )
        outputs = [os.path.join(out, *n.split("/")) for n in names]
    else:
        outputs = [out]
    outputs = [o for o in outputs if os.path.exists(o)]
    for name in _INPUTS:
        path = getattr(args, name, None)
        if not outputs or not isinstance(path, str):
            continue
        for f in _files_read(path, command):
            if os.path.exists(f) and any(os.path.samefile(o, f) for o in outputs):
                raise UsageError(
                    f"would overwrite the input file {f}; choose another", option="-o/--output"
                )
    if command in _MODEL_WRITERS and outputs:
        refuse_to_replace(outputs[0], "model", "a model")


def refuse_to_replace(path: str, role: str, what: str) -> None:
    """A usage error when ``path`` holds a file of another kind than ``role`` ("model",
    "data"), which ``what`` ("a model") would replace: a slip of the name (``train -o
    test.csv``, ``synth -o golf.tree``).  A model replaces a model, data replaces data,
    either replaces a file of no kind known; never a pickle or C source.  Nor does a
    model replace a file named as data (``.csv``, ``.arff``, ...) whose content tells no
    kind (a CSV file of a header alone, or of one column), unless it is empty."""
    kind = file_kind(path)
    if kind is not None and kind.role != role:
        raise UsageError(
            f"{path} is {kind.name}; {what} would replace it "
            "(choose another name, or remove it first)",
            option="-o/--output",
        )
    suffix = os.path.splitext(path)[1].lower()
    if kind is None and role == "model" and suffix in DATA_SUFFIXES and _not_empty(path):
        raise UsageError(
            f"{path} is named as a data file ({suffix}) and is no model file; {what} would "
            "replace it (choose another name, or remove it first)",
            option="-o/--output",
        )


def _not_empty(path: str) -> bool:
    """Whether ``path`` is a regular file with something in it."""
    try:
        return os.path.isfile(path) and os.path.getsize(path) > 0
    except OSError:
        return False
