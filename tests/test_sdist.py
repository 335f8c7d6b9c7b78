"""The source distribution builds the same package the checkout is.

``pip install treegen-X.tar.gz`` (or a platform without a wheel) builds from the
sdist alone: every module, template, firmware example and C source of the
accelerator must be in it (MANIFEST.in and pyproject's package data), and the wheel
built from it must carry the compiled accelerator.  tests/test_wheel.py builds its
wheel from a copy of the checkout's folders, which would not notice a file the sdist
leaves out.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from support.building import copy_source, pip_wheel

# Builds an sdist, then a wheel from it: the slow set.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
SKIP = ("__pycache__", ".so", ".pyc")
_SETUP = REPO / "setup.py"


def _package_files() -> set[str]:
    """The checkout's files under treegen/ and firmware_examples/, as the sdist names them."""
    return {
        q.relative_to(REPO).as_posix()
        for top in ("treegen", "firmware_examples")
        for q in (REPO / top).rglob("*")
        if q.is_file() and not any(s in q.as_posix() for s in SKIP)
    }


def _build(*argv: str, cwd: Path) -> None:
    p = subprocess.run(
        list(argv), cwd=cwd, capture_output=True, text=True, timeout=900, check=False
    )
    assert p.returncode == 0, f"{argv}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sdist")
    src = root / "src"
    copy_source(REPO, src)
    code = "from setuptools import build_meta as b; print(b.build_sdist('../dist'))"
    _build(sys.executable, "-c", code, cwd=src)
    (tarball,) = (root / "dist").glob("treegen-*.tar.gz")
    return tarball


def test_the_sdist_holds_every_package_file(sdist: Path) -> None:
    with tarfile.open(sdist) as tar:
        top = tar.getnames()[0].split("/")[0]
        names = {n.removeprefix(f"{top}/") for n in tar.getnames()}
    assert sorted(_package_files() - names) == []
    assert {"setup.py", "pyproject.toml", "README.md"} <= names


def test_a_wheel_built_from_the_sdist_has_the_accelerator(sdist: Path, tmp_path: Path) -> None:
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler: the wheel is pure Python, by design")
    _build(*pip_wheel(sdist, tmp_path), cwd=tmp_path)
    (wheel,) = tmp_path.glob("treegen-*.whl")
    with zipfile.ZipFile(wheel) as z:
        native = sorted(Path(n).name.split(".")[0] for n in z.namelist() if n.endswith(".so"))
        templates = [n for n in z.namelist() if n.startswith("treegen/codegen/templates/")]
    # setup.py's extensions, each built: none left out for a source the sdist lacks
    extensions = re.findall(r'Extension\(\s*"treegen\.\w+\.native\.(\w+)"', _SETUP.read_text())
    assert native == sorted(extensions) and native
    assert len(templates) == len(list(REPO.glob("treegen/codegen/templates/*.j2")))
