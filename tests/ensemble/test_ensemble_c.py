"""An ensemble's C: verify holds it to the numpy arithmetic in every input mode, it
compiles warning-free under the strict flags (c89 and c99, gcc and clang; the cross
compilers in the toolchain set), and its bytes are deterministic."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from treegen.codegen.options import ExportOptions
from treegen.kinds.check import verify
from treegen.kinds.export import render
from treegen.verify.build import STRICT_FLAGS

from support.modes import EXPORT_MODES
from support.sklearn_models import NAMES
from support.sklearn_models import fit_setup as _fit

sklearn = pytest.importorskip("sklearn")

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


MODES = ["float", "double", "int16", "uint8", "keys", "fixed"]


@pytest.mark.parametrize("style", ["table", "ifs"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_verify_every_mode(name: str, mode: str, style: str) -> None:
    ens = _fit(name)
    kw = dict(EXPORT_MODES[mode], style=style)
    categorical = any(any(t.categorical) for t in ens.trees)
    if categorical and mode not in ("float", "double"):
        with pytest.raises(Exception, match="categorical"):
            verify(ens, ExportOptions(prefix="e", **kw), n_random=50)  # type: ignore[arg-type]
        return
    if mode == "int16":
        kw["scale"] = 10  # the features are small numbers: tenths fit int16
    report = verify(ens, ExportOptions(prefix="e", **kw), n_random=400)  # type: ignore[arg-type]
    assert report.rows > 400 and report.ok, report.text()


def _compile(
    cc: str, std: str, files: dict[str, str], tmp: Path, extra: list[str] | None = None
) -> None:
    for name, text in files.items():
        (tmp / name).write_text(text)
    flags = [f for f in STRICT_FLAGS if not f.startswith("-std=")]
    r = subprocess.run(
        [cc, std, *flags, *(extra or []), "-c", "predict.c", "-o", "p.o"],
        cwd=tmp,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("std", ["-std=c89", "-std=c99"])
@pytest.mark.parametrize("name", NAMES)
def test_strict_c89_and_c99(name: str, std: str, tmp_path: Path) -> None:
    ens = _fit(name)
    categorical = any(any(t.categorical) for t in ens.trees)
    for style in ("table", "ifs"):
        for mode in ("float", "double") if categorical else ("float", "double", "int16", "keys"):
            opts = ExportOptions(prefix="e", style=style, **EXPORT_MODES[mode])  # type: ignore[arg-type]
            files = render(ens, opts).files
            _compile("gcc", std, files, tmp_path)
            # Both sums: the C library's double and the file's own binary64 routines.
            _compile("gcc", std, files, tmp_path, ["-De_SOFT64=1"])


@pytest.mark.toolchain
@pytest.mark.parametrize("cc", ["clang", "arm-none-eabi-gcc"])
def test_other_compilers_strict(cc: str, tmp_path: Path) -> None:
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    for name in NAMES:
        for style in ("table", "ifs"):
            files = render(_fit(name), ExportOptions(prefix="e", style=style)).files
            for std in ("-std=c89", "-std=c99"):
                _compile(cc, std, files, tmp_path)


@pytest.mark.parametrize("style", ["table", "ifs"])
def test_the_same_ensemble_gives_the_same_bytes(style: str) -> None:
    a = render(_fit("hist"), ExportOptions(prefix="e", style=style)).files
    b = render(_fit("hist"), ExportOptions(prefix="e", style=style)).files
    assert a == b
    assert "predict_proba" not in a["predict.h"] and "int e_predict(" in a["predict.h"]
