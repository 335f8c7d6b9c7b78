"""Build of treegen's optional C accelerator (the metadata is in pyproject.toml).

The trainer's hot loops (running sums over sorted cases, partitioning the
sorted arrays, the pessimistic error bound) have C versions in
``treegen/trainer/native/`` (Release 8's case order among them, order.c), the
model's classifier in ``treegen/model/native/``, c4.5rules' generalisation and subset
search in ``treegen/rules/native/``, and the data readers a C tokenizer
in ``treegen/data/native/``: each kernel lives beside the Python it stands in for.  They compute the same numbers as the numpy and
Python code, bit for bit, so the accelerator is optional: where no C compiler
is available the build prints a warning and treegen falls back to that code.

Flags: ``-ffp-contract=off`` because a fused multiply-add rounds once where
the numpy code rounds twice (aarch64 compilers contract by default).  The
numbers Python and C share (node-kind codes, tolerances, the class limit)
come from ``treegen/trainer/constants.py`` as ``TG_<NAME>`` macros.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

FLAGS = ["-O2", "-std=c99", "-ffp-contract=off", "-fno-fast-math"]
PACKAGE = Path(__file__).resolve().parent / "treegen"
MODEL_CONSTANTS = PACKAGE / "model" / "constants.py"
TRAINER_CONSTANTS = PACKAGE / "trainer" / "constants.py"
RULES_CONSTANTS = PACKAGE / "rules" / "constants.py"
# The headers every module includes first (Python.h, the float guard, buffer helpers).
NATIVE_INCLUDE = ["treegen/model/native"]
BUFFERS = "treegen/model/native/buffers.c"


def shared_macros(*paths: Path) -> list[tuple[str, str | None]]:
    """``TG_<NAME>`` for every constant of the constants modules ``paths``.

    Each module holds only literal assignments; it is read, not imported (the
    package is not importable while it is being built).  ``repr`` of a float
    is the shortest text that reads back as the same double, in C as in Python.
    """
    macros: list[tuple[str, str | None]] = []
    for path in paths:
        macros += _macros(path)
    return macros


def _macros(path: Path) -> list[tuple[str, str | None]]:
    macros: list[tuple[str, str | None]] = []
    for node in ast.parse(path.read_text("utf-8")).body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            raise SystemExit(f"{path}:{node.lineno}: only NAME = literal assignments belong here")
        value = ast.literal_eval(node.value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SystemExit(f"{path}:{node.lineno}: a C macro must be an int or a float")
        macros.append((f"TG_{node.targets[0].id}", f"({value!r})"))
    return macros


class OptionalBuildExt(build_ext):
    """Build the accelerator if possible; otherwise warn and go on without it."""

    def build_extensions(self) -> None:
        if self.compiler.compiler_type == "unix":
            for ext in self.extensions:
                ext.extra_compile_args = FLAGS + list(ext.extra_compile_args or [])
        super().build_extensions()

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - no compiler, no headers...: numpy fallback
            self._skip(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 - as in run()
            self._skip(exc)

    @staticmethod
    def _skip(exc: Exception) -> None:
        print(
            f"warning: treegen's C accelerator was not built ({exc}); "
            "the trainer will use its numpy code (same trees, slower)",
            file=sys.stderr,
        )


setup(
    # The package, and the firmware examples (top-level firmware_examples/ in the
    # checkout, where users read them) as package treegen.firmware_examples, so that
    # `treegen verify --on` builds the same sources from an installed wheel.
    packages=find_packages(include=["treegen", "treegen.*"]) + ["treegen.firmware_examples"],
    package_dir={"treegen.firmware_examples": "firmware_examples"},
    ext_modules=[
        Extension(
            "treegen.model.native._cclassify",
            sources=[
                "treegen/model/native/cclassify.c",
                "treegen/model/native/classify.c",
                "treegen/model/native/wekaprobs.c",
                "treegen/model/native/libm.c",
                BUFFERS,
            ],
            include_dirs=NATIVE_INCLUDE,
            depends=["treegen/model/native/native.h", "treegen/model/constants.py"],
            define_macros=shared_macros(MODEL_CONSTANTS),
        ),
        Extension(
            "treegen.trainer.native._cscan",
            sources=[
                f"treegen/trainer/native/{name}.c"
                for name in (
                    "cscan",
                    "scan",
                    "scanj48",
                    "nominal",
                    "part",
                    "route",
                    "counts",
                    "order",
                    "sparse",
                    "sparseinfo",
                    "r8prep",
                    "r8score",
                    "r8node",
                    "cuts",
                    "presort",
                )
            ]
            + [BUFFERS],
            include_dirs=NATIVE_INCLUDE,
            depends=[
                "treegen/model/native/native.h",
                "treegen/trainer/native/common.h",
                "treegen/trainer/native/cscan.h",
                "treegen/trainer/native/scanwalk.h",
                "treegen/trainer/native/logbound.h",
                "treegen/trainer/native/r8order.h",
                "treegen/trainer/native/classset.h",
                "treegen/model/constants.py",
                "treegen/trainer/constants.py",
            ],
            define_macros=shared_macros(MODEL_CONSTANTS, TRAINER_CONSTANTS),
        ),
        Extension(
            "treegen.trainer.native._cprune",
            sources=[
                f"treegen/trainer/native/{name}.c"
                for name in ("cprune", "cestimate", "r8prune", "r8walk")
            ]
            + [BUFFERS],
            include_dirs=NATIVE_INCLUDE,
            depends=[
                "treegen/model/native/native.h",
                "treegen/trainer/native/common.h",
                "treegen/trainer/native/bound.h",
                "treegen/trainer/native/cprune.h",
                "treegen/trainer/native/cprunewalk.h",
                "treegen/trainer/native/r8prune.h",
                "treegen/trainer/native/r8order.h",
                "treegen/model/constants.py",
                "treegen/trainer/constants.py",
            ],
            define_macros=shared_macros(MODEL_CONSTANTS, TRAINER_CONSTANTS),
        ),
        Extension(
            "treegen.rules.native._crules",
            sources=[
                f"treegen/rules/native/{name}.c"
                for name in (
                    "crules", "rpaths", "rfold", "rwalk", "rwalknew", "rsearch", "rclimb",
                    "rgroups", "rtheory",
                    "rcases", "rlists", "rpack", "rorder", "rkeys",
                )
            ]
            + [BUFFERS],
            include_dirs=NATIVE_INCLUDE + ["treegen/trainer/native"],
            depends=[
                "treegen/model/native/native.h",
                "treegen/trainer/native/common.h",
                "treegen/trainer/native/bound.h",
                "treegen/rules/native/crules.h",
                "treegen/rules/native/rprune.h",
                "treegen/rules/native/rwalk.h",
                "treegen/rules/native/rtheory.h",
                "treegen/rules/native/rgroups.h",
                "treegen/model/constants.py",
                "treegen/trainer/constants.py",
                "treegen/rules/constants.py",
            ],
            define_macros=shared_macros(MODEL_CONSTANTS, TRAINER_CONSTANTS, RULES_CONSTANTS),
        ),
        Extension(
            "treegen.data.native._ctok",
            sources=["treegen/data/native/ctok.c"],
            depends=[
                f"treegen/data/native/{name}.h"
                for name in ("ctok", "ctokdict", "ctoknum", "ctokrow")
            ],
        ),
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
