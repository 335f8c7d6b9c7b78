"""``treegen export --layout zephyr``: zephyr/module.yml as Zephyr's module loader
(scripts/zephyr_module.py) reads and checks it -- YAML, its schema's fields and types,
the ``build.cmake`` folder holding a CMakeLists.txt, ``build.kconfig`` naming a file --,
the Kconfig option the CMakeLists.txt tests, and that CMakeLists.txt configured and
built with the system cmake against stand-ins for the Zephyr CMake functions it calls,
with the option on (the application links and predicts) and off (nothing is built)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from treegen.cli.main import main
from treegen.kinds import kind_of
from treegen.model.file import save_model

from support import codegen_models as cm

# The loader's schema (a pykwalify map): each field, its type, and for build its own.
SCHEMA: dict[str, type] = {"name": str, "build": dict, "tests": list, "samples": list,
                           "boards": list, "blobs": list}  # fmt: skip
BUILD: dict[str, type] = {
    "cmake": str, "kconfig": str, "cmake-ext": bool, "kconfig-ext": bool,
    "sysbuild-cmake": str, "sysbuild-kconfig": str, "sysbuild-cmake-ext": bool,
    "sysbuild-kconfig-ext": bool, "depends": list, "settings": dict,
}  # fmt: skip


def loader_problems(module: Path) -> list[str]:
    """What Zephyr's module loader would stop at (empty: the module loads)."""
    path = module / "zephyr" / "module.yml"
    if not path.is_file():
        return ["no zephyr/module.yml"]
    meta: Any = yaml.safe_load(path.read_text())
    if not isinstance(meta, dict):
        return ["module.yml is not a map"]
    problems = [f"unknown field {k}" for k in meta if k not in SCHEMA]
    problems += [
        f"{k} is not {SCHEMA[k].__name__}"
        for k, v in meta.items()
        if k in SCHEMA and not isinstance(v, SCHEMA[k])
    ]
    build = meta.get("build", {}) if isinstance(meta.get("build"), dict) else {}
    problems += [f"unknown build field {k}" for k in build if k not in BUILD]
    problems += [
        f"build.{k} is not {BUILD[k].__name__}"
        for k, v in build.items()
        if k in BUILD and not isinstance(v, BUILD[k])
    ]
    cmake = build.get("cmake", "zephyr")
    if not (module / cmake / "CMakeLists.txt").is_file():
        problems.append(f"build.cmake {cmake!r} holds no CMakeLists.txt")
    kconfig = build.get("kconfig", "zephyr/Kconfig")
    if "kconfig" in build and not (module / kconfig).is_file():
        problems.append(f"build.kconfig {kconfig!r} is no file")
    return problems


def kconfig_symbols(text: str) -> dict[str, str]:
    """Each ``config`` symbol and its type line (the Kconfig language's grammar for a
    symbol: ``config NAME`` then an indented type with its prompt)."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.fullmatch(r"config ([A-Z0-9_]+)", line)
        if m:
            out[m.group(1)] = lines[i + 1].strip()
    return out


@pytest.fixture()
def module(tmp_path: Path) -> Path:
    save_model(cm.golf(), tmp_path / "golf.tree")
    out = tmp_path / "golf"
    assert (
        main(["export", str(tmp_path / "golf.tree"), "-o", str(out), "--layout", "zephyr", "-q"])
        == 0
    )
    return out


def test_module_yml_is_what_the_loader_needs(module: Path) -> None:
    assert loader_problems(module) == []
    meta = yaml.safe_load((module / "zephyr" / "module.yml").read_text())
    assert meta == {"name": "golf", "build": {"cmake": ".", "kconfig": "Kconfig"}}
    # The loader's sanitized name makes ZEPHYR_GOLF_MODULE_DIR and the like.
    assert re.sub("[^a-zA-Z0-9]", "_", meta["name"]) == "golf"


def test_the_loader_check_finds_a_broken_module(module: Path) -> None:
    (module / "Kconfig").rename(module / "Kconfig.off")
    assert loader_problems(module) == ["build.kconfig 'Kconfig' is no file"]
    (module / "zephyr" / "module.yml").write_text("name: golf\nbuild:\n  cmake: src\n  extra: 1\n")
    assert loader_problems(module) == [
        "unknown build field extra",
        "build.cmake 'src' holds no CMakeLists.txt",
    ]


def test_the_kconfig_option_is_the_one_cmake_tests(module: Path) -> None:
    symbols = kconfig_symbols((module / "Kconfig").read_text())
    assert list(symbols) == ["TREEGEN_GOLF"]
    assert re.fullmatch(r'bool "[^"]+"', symbols["TREEGEN_GOLF"])
    cmake = (module / "CMakeLists.txt").read_text()
    assert "if(CONFIG_TREEGEN_GOLF)\n  zephyr_library()\n" in cmake
    assert "zephyr_library_sources(predict.c)" in cmake


# Stand-ins for the Zephyr CMake extensions the module calls (cmake/modules/
# extensions.cmake): zephyr_library() makes the current library, zephyr_library_sources
# adds to it, zephyr_include_directories adds to every Zephyr target's interface.
ZEPHYR_APP = """\
cmake_minimum_required(VERSION 3.20)
project(zephyr_app C)
add_library(zephyr_interface INTERFACE)
macro(zephyr_library)
  set(ZEPHYR_CURRENT_LIBRARY module_library)
  add_library(${ZEPHYR_CURRENT_LIBRARY} STATIC)
  target_link_libraries(${ZEPHYR_CURRENT_LIBRARY} PUBLIC zephyr_interface)
endmacro()
function(zephyr_library_sources)
  target_sources(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${ARGN})
endfunction()
function(zephyr_include_directories)
  target_include_directories(zephyr_interface INTERFACE ${ARGN})
endfunction()
set(CONFIG_TREEGEN_GOLF ${OPTION})
add_subdirectory(${MODULE} module)
add_executable(app main.c)
target_link_libraries(app PRIVATE zephyr_interface)
if(TARGET module_library)
  target_link_libraries(app PRIVATE module_library)
endif()
"""

MAIN = """\
#include <stdio.h>
#include "predict.h"
int main(void)
{
    static const golf_input_t x[GOLF_N_FEATURES] = {2.0f, 71.0f, 91.0f, 0.0f};
    printf("%d\\n", golf_predict(x));
    return 0;
}
"""


@pytest.mark.toolchain
def test_the_cmake_lists_builds_with_zephyr_s_functions(module: Path, tmp_path: Path) -> None:
    for tool in ("cmake", "cc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    app = tmp_path / "app"
    app.mkdir()
    (app / "CMakeLists.txt").write_text(ZEPHYR_APP)
    (app / "main.c").write_text(MAIN)
    results = {}
    for option in ("y", "n"):
        b = tmp_path / f"build-{option}"
        p = subprocess.run(
            ["cmake", "-S", str(app), "-B", str(b), f"-DMODULE={module}", f"-DOPTION={option}"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert p.returncode == 0, p.stdout + p.stderr
        p = subprocess.run(
            ["cmake", "--build", str(b)], capture_output=True, text=True, check=False
        )
        results[option] = p
    assert results["y"].returncode == 0, results["y"].stdout + results["y"].stderr
    out = subprocess.run(
        [str(tmp_path / "build-y" / "app")], capture_output=True, text=True, check=True
    )
    model = cm.golf()
    want = kind_of(model).predict(model, [[2.0, 71.0, 91.0, 0.0]])  # type: ignore[arg-type]
    assert int(out.stdout) == int(want[0])
    # Off: neither the library nor its include folder, so the application cannot
    # include predict.h.
    off = results["n"]
    assert off.returncode != 0 and "predict.h: No such file" in off.stdout + off.stderr
