"""verify's batch wrapper (treegen.verify.build) holds a regressor's doubles against its
predict_bits words on a host of either byte order: built for s390x (big-endian) and run
under qemu-user, as on the host.  Skipped where the cross compiler or qemu is missing
(Debian: gcc-s390x-linux-gnu, qemu-user)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.codegen.parts import source_and_header
from treegen.ensemble.regress import from_estimator
from treegen.kinds.export import render
from treegen.verify.build import STRICT_FLAGS, _batch_source

sklearn_tree = pytest.importorskip("sklearn.tree")

N_ROWS = 64

DRIVER = """#include <stdio.h>
#include "{header}"

{decl};

int main(void)
{{
    static {P}_input_t x[{n} * {U}_N_FEATURES];
    static int cls[{n}];
    static uint32_t out[{n} * 2 * {U}_N_OUTPUTS];
    long i, bad = 0;
    for (i = 0; i < {n} * {U}_N_FEATURES; i++) {{
        x[i] = ({P}_input_t)(i % 23) / 4.0f - 2.5f;
    }}
    treegen_batch(x, {n}, cls, out);
    for (i = 0; i < {n}; i++) {{
        bad += cls[i];
    }}
    printf("%ld of %d\\n", bad, {n});
    return 0;
}}
"""

HOSTS = [
    pytest.param(["gcc"], [], id="host"),
    # gcc's ISO modes on s390 evaluate float in double (FLT_EVAL_METHOD 1), which an
    # ensemble's C refuses with #error; -fexcess-precision=fast is the hardware's own.
    pytest.param(
        ["s390x-linux-gnu-gcc", "-fexcess-precision=fast"],
        ["qemu-s390x"],
        id="s390x",
        marks=pytest.mark.toolchain,
    ),
]


@pytest.mark.parametrize(("cc", "runner"), HOSTS)
def test_regressor_batch_flags_no_row_on_either_byte_order(
    tmp_path: Path, cc: list[str], runner: list[str]
) -> None:
    missing = [t for t in cc[:1] + runner if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] * 1.7 - X[:, 2] ** 2 / 3
    est = sklearn_tree.DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    r = render(from_estimator(est, None, "y"), ExportOptions(prefix="reg"))
    api = r.kind.api(r.lowered)
    assert api.proba_api is not None and api.proba_api.values
    source, header = source_and_header(r.files)
    decl, batch = _batch_source(api, header)
    for name, text in {**r.files, "batch.c": batch}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "main.c").write_text(
        DRIVER.format(header=header, decl=decl, P="reg", U="REG", n=N_ROWS), encoding="utf-8"
    )
    exe = tmp_path / "a.out"
    build = subprocess.run(
        [*cc, *STRICT_FLAGS, "-O1", "-static", "-I", str(tmp_path), "-o", str(exe)]
        + [str(tmp_path / f) for f in (source, "batch.c", "main.c")],
        capture_output=True,
        text=True,
        check=False,
    )
    if build.returncode and "cannot find" in build.stderr:  # no static C library
        pytest.skip(f"{cc[0]}: {build.stderr.strip().splitlines()[-1]}")
    assert build.returncode == 0, build.stderr
    run = subprocess.run(
        [*runner, str(exe)], capture_output=True, text=True, timeout=60, check=True
    )
    # cls[i] is 1 where predict's double differs from predict_bits's words: none may.
    assert run.stdout.strip() == f"0 of {N_ROWS}"
