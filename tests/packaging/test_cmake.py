"""``treegen export --cmake``: the CMakeLists.txt builds, with the system cmake, a tiny
application that links ``PREFIX_predict`` through ``add_subdirectory`` -- for the host
(where the application runs and prints the classes the Python model gives) and, with a
toolchain file, for Cortex-M0+ -- and the library adds nothing to the compile line but
its include folder and C99."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from treegen.cli.main import main
from treegen.kinds import kind_of
from treegen.model.file import save_model

from support import codegen_models as cm

pytestmark = pytest.mark.toolchain

ROWS = [[0, 85, 85, 1], [1, 83, 78, 1], [2, 65, 70, 0], [2, 71, 91, 0], [0, 72, 95, 1]]

APP = """\
#include <stdio.h>
#include "predict.h"

static const golf_input_t rows[][GOLF_N_FEATURES] = {
%s
};

int main(void)
{
    unsigned i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        printf("%%d\\n", golf_predict(rows[i]));
    return 0;
}
"""

PROJECT = """\
cmake_minimum_required(VERSION 3.10)
project(app C)
add_subdirectory(model)
add_executable(app main.c)
target_link_libraries(app PRIVATE golf_predict)
"""

CORTEX_M0PLUS = """\
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m0plus -mthumb")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nosys.specs")
"""


def need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """app/ with main.c, its CMakeLists.txt and model/ written by export --cmake."""
    save_model(cm.golf(), tmp_path / "golf.tree")
    app = tmp_path / "app"
    assert (
        main(["export", str(tmp_path / "golf.tree"), "-o", str(app / "model"), "--cmake", "-q"])
        == 0
    )
    rows = ",\n".join("    {" + ", ".join(f"{v}.0f" for v in r) + "}" for r in ROWS)
    (app / "main.c").write_text(APP % rows)
    (app / "CMakeLists.txt").write_text(PROJECT)
    return app


def build(app: Path, build_dir: Path, *configure: str) -> None:
    cmd = ["cmake", "-S", str(app), "-B", str(build_dir), "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"]
    p = subprocess.run([*cmd, *configure], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    p = subprocess.run(
        ["cmake", "--build", str(build_dir)], capture_output=True, text=True, check=False
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "warning" not in p.stdout + p.stderr


def predict_c_flags(build_dir: Path) -> list[str]:
    """The compile line of predict.c, without the compiler, the file and the output."""
    entries = json.loads((build_dir / "compile_commands.json").read_text())
    (entry,) = [e for e in entries if e["file"].endswith("predict.c")]
    words = shlex.split(entry["command"])[1:]
    out = []
    skip = False
    for w in words:
        if skip:
            skip = False
        elif w in ("-o", "-c"):
            skip = True
        else:
            out.append(w)
    return out


def test_the_host_app_links_and_predicts(project: Path, tmp_path: Path) -> None:
    need("cmake", "cc")
    b = tmp_path / "host"
    build(project, b)
    out = subprocess.run([str(b / "app")], capture_output=True, text=True, check=True).stdout
    X = np.array(ROWS, dtype=np.float64)
    want = kind_of(cm.golf()).predict(cm.golf(), X)
    assert [int(v) for v in out.split()] == want.tolist()
    assert len(set(want.tolist())) == 2  # both classes come out
    # Nothing but the public include folder and the C standard.
    assert sorted(predict_c_flags(b)) == [f"-I{project / 'model'}", "-std=c99"]


def test_the_cortex_m_app_builds_with_a_toolchain_file(project: Path, tmp_path: Path) -> None:
    need("cmake", "arm-none-eabi-gcc", "arm-none-eabi-readelf")
    toolchain = tmp_path / "cortex-m0plus.cmake"
    toolchain.write_text(CORTEX_M0PLUS)
    b = tmp_path / "m0plus"
    build(project, b, f"-DCMAKE_TOOLCHAIN_FILE={toolchain}")
    # The toolchain's flags and the library's own, nothing else.
    flags = predict_c_flags(b)
    assert sorted(flags) == sorted(
        ["-mcpu=cortex-m0plus", "-mthumb", f"-I{project / 'model'}", "-std=c99"]
    )
    header = subprocess.run(
        ["arm-none-eabi-readelf", "-h", str(b / "app")], capture_output=True, text=True, check=True
    ).stdout
    assert "Machine:                           ARM" in header
    symbols = subprocess.run(
        ["arm-none-eabi-nm", str(b / "model" / "libgolf_predict.a")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert " T golf_predict\n" in symbols


RV32IMC = """\
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_C_FLAGS_INIT "-march=rv32imc -mabi=ilp32 --specs=picolibc.specs")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--oslib=semihost")
"""

FETCH = """\
cmake_minimum_required(VERSION 3.14)
project(app C)
include(FetchContent)
FetchContent_Declare(golf_model SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/model)
FetchContent_MakeAvailable(golf_model)
add_executable(app main.c)
target_link_libraries(app PRIVATE golf_predict)
"""


def test_fetch_content_takes_it_too(project: Path, tmp_path: Path) -> None:
    need("cmake", "cc")
    (project / "CMakeLists.txt").write_text(FETCH)
    b = tmp_path / "fetch"
    build(project, b)
    out = subprocess.run([str(b / "app")], capture_output=True, text=True, check=True).stdout
    want = kind_of(cm.golf()).predict(cm.golf(), np.array(ROWS, dtype=np.float64))
    assert [int(v) for v in out.split()] == want.tolist()


def test_the_rv32imc_app_builds_with_a_toolchain_file(project: Path, tmp_path: Path) -> None:
    need("cmake", "riscv64-unknown-elf-gcc", "riscv64-unknown-elf-readelf")
    toolchain = tmp_path / "rv32imc.cmake"
    toolchain.write_text(RV32IMC)
    b = tmp_path / "rv32imc"
    build(project, b, f"-DCMAKE_TOOLCHAIN_FILE={toolchain}")
    flags = predict_c_flags(b)
    assert sorted(flags) == sorted(
        ["-march=rv32imc", "-mabi=ilp32", "--specs=picolibc.specs"]
        + [f"-I{project / 'model'}", "-std=c99"]
    )
    header = subprocess.run(
        ["riscv64-unknown-elf-readelf", "-h", str(b / "app")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "RISC-V" in header and "ELF32" in header
