"""The generated C under ASan+UBSan on hostile inputs: no report; cppcheck clean."""

from __future__ import annotations

import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from treegen.codegen.ctype import TYPES
from treegen.codegen.ir import IR
from treegen.codegen.options import ExportOptions
from treegen.errors import EncodingError
from treegen.model.core import Model
from treegen.verify.build import STRICT_FLAGS
from treegen.verify.inputs import comparison_inputs, missing_value
from treegen.verify.report import Report
from treegen.verify.tree import compare

from support import codegen_models as cm
from support.fuzz import Mode, all_modes, export

# ASan/UBSan runtimes (gcc, clang) and cppcheck: the toolchain set.
pytestmark = pytest.mark.toolchain

SAN = [
    "-fsanitize=address,undefined,float-cast-overflow",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
    "-g",
    "-O1",
]
F32 = np.finfo(np.float32)
F64 = np.finfo(np.float64)


def hostile_rows(ir: IR) -> npt.NDArray[np.generic]:
    """comparison_inputs plus every special value in every position, with the other
    features at 0 and at the missing value."""
    enc = ir.encoding
    m = ir.n_features
    miss = missing_value(ir)
    specials: list[float] = [0.0, -1.0, 1.0, 255.0, 256.0, 65535.0, 65536.0, 2.0**31, 2.0**32]
    specials += [float(len(f.values)) for f in ir.features] + [
        float(len(f.values) - 1) for f in ir.features
    ]
    if enc.is_int:
        lo, hi = enc.int_range
        specials += [lo, lo + 1, hi - 1, hi, miss]
        specials = [v for v in specials if lo <= v <= hi]
    else:
        specials += [
            np.nan,
            np.inf,
            -np.inf,
            -0.0,
            0.5,
            -0.5,
            1e30,
            -1e30,
            2.0**63,
            float(F32.max),
            -float(F32.max),
            float(F32.tiny),
            1e-45,
            -1e-45,
            float(F32.tiny) / 2,
            float(np.nextafter(np.float32(1), np.float32(2))),
        ]
        if enc.input_type == "double":
            specials += [float(F64.max), -float(F64.max), 5e-324, -5e-324, 1e-310, 1e300]
    rows: list[list[float]] = []
    for fill in (0.0, miss):
        for j in range(m):
            for v in specials:
                r = [fill] * m
                r[j] = v
                rows.append(r)
    rows.append([miss] * m)
    dtype = TYPES[enc.input_type].dtype
    with np.errstate(over="ignore", invalid="ignore"):
        extra = np.asarray(rows, dtype=np.float64).astype(dtype)
    return np.concatenate([comparison_inputs(ir, None, n_random=300, seed=3), extra])


def _driver(irs: list[IR]) -> str:
    """A main() that runs model n on the rows in file argv[n + 1], one row in a
    malloc'd block of exactly N_FEATURES values (an over-read hits ASan's redzone)."""
    out = [
        "#include <stdio.h>",
        "#include <stdlib.h>",
        "#include <string.h>",
        "#include <stdint.h>",
    ]
    out += [f'#include "m{n}/predict.h"' for n in range(len(irs))]
    for ir in irs:
        P, U = ir.prefix, ir.prefix.upper()
        # Without predict_proba (--no-proba) the driver prints zeros in its place.
        proba = (
            f"{P}_predict_proba(x, p);"
            if ir.proba
            else f"memset(p, 0, sizeof(*p) * {U}_N_CLASSES);"
        )
        out.append(f"""
static int run_{P}(const char *path)
{{
    FILE *f = fopen(path, "rb");
    {P}_input_t *x = ({P}_input_t *)malloc(sizeof(*x) * {U}_N_FEATURES);
    uint16_t *p = (uint16_t *)malloc(sizeof(*p) * {U}_N_CLASSES);
    int k;
    if (f == NULL || x == NULL || p == NULL) return 1;
    while (fread(x, sizeof(*x), {U}_N_FEATURES, f) == {U}_N_FEATURES) {{
        printf("%d", {P}_predict(x));
        {proba}
        for (k = 0; k < {U}_N_CLASSES; k++) printf(" %u", (unsigned)p[k]);
        printf("\\n");
    }}
    free(x);
    free(p);
    fclose(f);
    printf("end\\n");
    return 0;
}}""")
    out.append(
        "\nint main(int argc, char **argv)\n{\n    int rc = 0;\n"
        f"    if (argc != {len(irs) + 1}) return 2;\n"
    )
    out += [f"    rc |= run_{ir.prefix}(argv[{n + 1}]);" for n, ir in enumerate(irs)]
    out.append("    return rc;\n}\n")
    return "\n".join(out)


def _models() -> list[tuple[Model, Mode]]:
    syn = cm.synthetic(seed=4, size=50)
    out = [(syn, mode) for mode in all_modes() if mode.scale is None]
    # Fixed point with scales, on a model whose thresholds fit the types.
    out += [(cm.golf(), mode) for mode in all_modes() if mode.scale is not None]
    out += [
        (model, Mode(style, t, fc))
        for model in (cm.as_c45(syn), cm.tiny(), cm.single_leaf())
        for style in ("ifs", "table")
        for t, fc in (("float", "float"), ("float", "int"), ("double", "float"), ("uint8", "float"))
    ]
    out += [(cm.golf(), Mode("table", "int16", scale=Fraction(1, 3)))]
    return out


@pytest.fixture(scope="module")
def exported(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, list[IR], list[tuple[Model, ExportOptions]]]:
    tmp = tmp_path_factory.mktemp("san")
    irs: list[IR] = []
    models: list[tuple[Model, ExportOptions]] = []
    for model, mode in _models():
        n = len(irs)
        try:
            ir, files = export(model, mode, f"s{n}")
        except EncodingError as exc:  # only an explicit scale may refuse a model
            assert mode.scale is not None, exc
            continue
        d = tmp / f"m{n}"
        d.mkdir()
        for name, text in files.items():
            (d / name).write_text(text, encoding="utf-8")
        rows = hostile_rows(ir)
        dtype = TYPES[ir.encoding.input_type].dtype
        np.ascontiguousarray(rows, dtype=dtype).tofile(tmp / f"in{n}.bin")
        irs.append(ir)
        models.append((model, mode.options(f"s{n}")))
    (tmp / "main.c").write_text(_driver(irs), encoding="utf-8")
    return tmp, irs, models


def _links_sanitized(cc: str, tmp: Path) -> bool:
    probe = tmp / f"probe_{cc}.c"
    probe.write_text("int main(void) { return 0; }\n", encoding="utf-8")
    r = subprocess.run(
        [cc, *SAN, "-o", str(tmp / f"probe_{cc}"), str(probe)],
        capture_output=True,
        text=True,
        check=False,
    )
    return r.returncode == 0


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_sanitizers_report_nothing(
    cc: str, exported: tuple[Path, list[IR], list[tuple[Model, ExportOptions]]]
) -> None:
    if shutil.which(cc) is None:
        pytest.skip(f"needs {cc}")
    tmp, irs, models = exported
    if not _links_sanitized(cc, tmp):
        pytest.skip(f"{cc} has no sanitizer runtime (Debian: libclang-rt-14-dev for clang)")
    exe = tmp / f"driver_{cc}"
    srcs = [str(tmp / "main.c")] + [str(tmp / f"m{n}" / "predict.c") for n in range(len(irs))]
    r = subprocess.run(
        [cc, *STRICT_FLAGS, *SAN, "-I", str(tmp), "-o", str(exe), *srcs],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr[:3000]
    r = subprocess.run(
        [str(exe), *[str(tmp / f"in{n}.bin") for n in range(len(irs))]],
        capture_output=True,
        text=True,
        check=False,
        env={
            "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
        },
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr[:3000]
    blocks = r.stdout.split("end\n")
    assert len(blocks) == len(irs) + 1 and blocks[-1] == ""
    for n, (ir, (model, opts)) in enumerate(zip(irs, models, strict=True)):
        X = np.fromfile(tmp / f"in{n}.bin", dtype=TYPES[ir.encoding.input_type].dtype)
        X = X.reshape(-1, ir.n_features)
        got = np.asarray([[int(v) for v in line.split()] for line in blocks[n].splitlines()])
        assert got.shape == (len(X), 1 + ir.n_classes)
        # The same comparison as verify: the fixed-point model and the IR evaluator (or,
        # with --missing none, the none rule and the model where nothing is missing).
        report = Report()
        c_proba = np.ascontiguousarray(got[:, 1:], dtype=np.uint16)
        compare(model, ir, opts, X, got[:, 0].astype(np.int32), c_proba, report)
        assert report.ok, (n, ir.encoding, report.text())
        if not ir.proba:
            assert not c_proba.any()


def test_cppcheck_is_clean(
    exported: tuple[Path, list[IR], list[tuple[Model, ExportOptions]]],
) -> None:
    if shutil.which("cppcheck") is None:
        pytest.skip("needs cppcheck")
    tmp, irs, _ = exported
    for n in range(len(irs)):
        r = subprocess.run(
            [
                "cppcheck",
                "--enable=warning,portability",
                "--error-exitcode=1",
                "--quiet",
                "--std=c99",
                "--inline-suppr",
                str(tmp / f"m{n}" / "predict.c"),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        ctype = TYPES[irs[n].encoding.input_type].c_name
        assert r.returncode == 0 and r.stderr.strip() == "", (n, ctype, r.stderr[:2000])
