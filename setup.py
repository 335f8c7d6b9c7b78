"""Build of treegen's optional C accelerator (the metadata is in pyproject.toml).

The trainer's hot loops (running sums over sorted cases, partitioning the
sorted arrays, the pessimistic error bound) have C versions in
``treegen/trainer/native/``, and the data readers a C tokenizer in
``treegen/data/native/``.  They compute the same numbers as the numpy and
Python code, bit for bit, so the accelerator is optional: where no C compiler
is available the build prints a warning and treegen falls back to that code.

Flags: ``-ffp-contract=off`` because a fused multiply-add rounds once where
the numpy code rounds twice (aarch64 compilers contract by default).
"""

from __future__ import annotations

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

FLAGS = ["-O2", "-std=c99", "-ffp-contract=off", "-fno-fast-math"]


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
    ext_modules=[
        Extension(
            "treegen.trainer.native._cscan",
            sources=[
                f"treegen/trainer/native/{name}.c"
                for name in ("cscan", "scan", "scanj48", "nominal", "part", "counts")
            ],
            depends=[
                "treegen/trainer/native/common.h",
                "treegen/trainer/native/cscan.h",
                "treegen/trainer/native/scanwalk.h",
            ],
        ),
        Extension(
            "treegen.data.native._ctok",
            sources=["treegen/data/native/ctok.c"],
        ),
        Extension(
            "treegen.trainer.native._cprune",
            sources=["treegen/trainer/native/cprune.c"],
            depends=["treegen/trainer/native/common.h"],
        ),
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
