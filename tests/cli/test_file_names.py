"""Two models in one firmware: the files are named after the prefix or --name.

Every export wrote predict.c and predict.h, so a second export into a flat source
folder replaced the first.  predict.c stays the default; an explicit --prefix names the
files PREFIX_predict.c / .h, and --name NAME names them NAME.c / NAME.h; the source
includes its own header, verify and the regenerate command follow the names.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from treegen.codegen.options import ExportOptions
from treegen.errors import UsageError
from treegen.model.file import save_model
from treegen.verify.build import have_compiler

from support import codegen_models as cm
from support.cli import run_cli


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path]:
    golf, tiny = tmp_path / "golf.tree", tmp_path / "tiny.tree"
    save_model(cm.golf(), golf)
    save_model(cm.tiny(), tiny)
    return golf, tiny


def _export(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    code, out, err = run_cli(capsys, "export", *argv)
    assert code == 0, err
    return [Path(p).name for p in out.split()]


def test_names(
    trees: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golf, _ = trees
    assert _export(capsys, str(golf), "-o", str(tmp_path / "a")) == ["predict.c", "predict.h"]
    named = _export(capsys, str(golf), "--prefix", "golf", "-o", str(tmp_path / "b"))
    assert named == ["golf_predict.c", "golf_predict.h"]
    assert '#include "golf_predict.h"' in (tmp_path / "b" / "golf_predict.c").read_text()
    assert _export(capsys, str(golf), "--name", "m1", "-o", str(tmp_path / "c")) == ["m1.c", "m1.h"]
    assert '#include "m1.h"' in (tmp_path / "c" / "m1.c").read_text()


@pytest.mark.parametrize(
    "words", [[], ["--prefix", "g2"], ["--name", "mine"], ["--prefix", "g3", "--name", "x.y"]]
)
def test_regenerate_reproduces_the_names(
    words: list[str], trees: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golf, _ = trees
    names = _export(capsys, str(golf), *words, "-o", str(tmp_path / "a"))
    text = (tmp_path / "a" / names[0]).read_text()
    line = next(x for x in text.splitlines() if "regenerate with:" in x)
    argv = shlex.split(line.split("regenerate with:", 1)[1])
    argv[argv.index("-o") + 1] = str(tmp_path / "b")
    assert _export(capsys, *argv[2:]) == names
    assert (tmp_path / "b" / names[0]).read_text().replace(
        str(tmp_path / "b"), str(tmp_path / "a")
    ) == text


@pytest.mark.skipif(not have_compiler("gcc"), reason="needs gcc")
def test_two_models_in_one_folder(
    trees: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both exports side by side, compiled and linked into one program."""
    golf, tiny = trees
    src = tmp_path / "src"
    _export(capsys, str(golf), "--prefix", "golf", "-o", str(src))
    _export(capsys, str(tiny), "--prefix", "tiny", "-o", str(src))
    assert sorted(p.name for p in src.iterdir()) == [
        "golf_predict.c",
        "golf_predict.h",
        "tiny_predict.c",
        "tiny_predict.h",
    ]
    (src / "main.c").write_text(
        '#include <stdio.h>\n#include "golf_predict.h"\n#include "tiny_predict.h"\n'
        "int main(void) {\n"
        "    golf_input_t g[GOLF_N_FEATURES] =\n"
        "        {GOLF_OUTLOOK_OVERCAST, 70.0f, 70.0f, GOLF_WINDY_TRUE};\n"
        "    tiny_input_t t[TINY_N_FEATURES] = {-1.0f, 1.0f};\n"
        '    printf("%d %d\\n", golf_predict(g), tiny_predict(t));\n'
        "    return 0;\n}\n"
    )
    exe = tmp_path / "two"
    c_files = [str(src / n) for n in ("main.c", "golf_predict.c", "tiny_predict.c")]
    subprocess.run(["gcc", "-Wall", "-Werror", *c_files, "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "0"]  # overcast: Play; temp <= -0.0: class 0


@pytest.mark.skipif(not have_compiler("gcc"), reason="needs gcc")
def test_verify_follows_the_names(
    trees: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    golf, _ = trees
    for words in (["--prefix", "golf"], ["--name", "m1"]):
        code, out, err = run_cli(capsys, "verify", str(golf), *words, "--random", "100")
        assert code == 0 and " 0 failed" in out, err


def test_a_bad_name_is_a_usage_error(
    trees: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for bad in ("a/b", ".hidden", "x.c", ""):
        with pytest.raises(UsageError):
            ExportOptions(name=bad)
    code, _, err = run_cli(
        capsys, "export", str(trees[0]), "--name", "a/b", "-o", str(tmp_path / "o")
    )
    assert code == 2 and err.startswith("treegen: error: --name:") and not (tmp_path / "o").exists()


def test_overwrite_check_knows_the_names(
    trees: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """export refuses to write over its own model file whatever it is named."""
    golf = tmp_path / "m.c"
    save_model(cm.golf(), golf)
    code, _, err = run_cli(capsys, "export", str(golf), "--name", "m", "-o", str(tmp_path))
    assert code == 2 and "would overwrite the input file" in err
