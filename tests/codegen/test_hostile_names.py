"""Hostile names give warning-free C, no escape from comments, stable identifiers."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.kinds.export import render
from treegen.model.core import Leaf, Model, SubsetTest
from treegen.model.file import load_model, save_model
from treegen.trainer import TrainOptions, train
from treegen.verify.build import STRICT_FLAGS

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# Identifiers a name must never become outside a comment or string.
PAYLOADS = ("pwned_attr", "pwned_val", "pwned_cls", "PWNED", "PWNED2", "PWNED3", "PWNED4")
HOSTILE = [
    'a"b',
    "back\\slash",
    "*/ int pwned_attr = 1; /*",
    "// pwned_attr",
    "x\\",
    "new\nline\n#define PWNED 1\n",
    "#define PWNED2 1",
    "int",
    "class",
    "1st",
    "2nd",
    "ünïcødé ☃",
    "x-y",
    "x_y",
    "X Y",
    "??=",
    "??/",
    "tab\there",
    "_Bool",
    "main",
    "trailing\\",
    "\r\n#undef NULL",
    '"; int pwned_val; char *s = "',
]
VALUES = [
    "*/",
    "/*",
    '"',
    "\\",
    "\n#define PWNED3 1\n",
    "a-b",
    "a_b",
    "A B",
    "int",
    "NULL",
    "1",
    "ü",
    "*/ pwned_val /*",
    "?" * 3,
    "\\\n",
    "'",
]
CLASSES = [
    'yes"',
    "no\\",
    "*/ pwned_cls /*",
    "new\n#define PWNED4 1",
    "int",
    "int ",
    "??/",
    "é",
    "1",
    "\\",
]


def hostile_model() -> Model:
    rng = np.random.default_rng(15)
    attrs = []
    cols = []
    n = 250
    for j, name in enumerate(HOSTILE):
        if j % 2 == 0:
            vals = tuple(
                VALUES[(j + k) % len(VALUES)] + ("" if k < len(VALUES) else str(k))
                for k in range(3 + j % 5)
            )
            attrs.append(Attribute(name, "nominal", vals))
            cols.append(rng.integers(0, len(vals), n).astype(np.float64))
        else:
            attrs.append(Attribute(name, "continuous"))
            cols.append(np.round(rng.normal(0, 10, n), 1))
    X = np.stack(cols, axis=1)
    y = ((X[:, 0] + X[:, 2] * 2 + (X[:, 1] > 0) + X[:, 4]) % len(CLASSES)).astype(np.int32)
    X[rng.random(X.shape) < 0.05] = np.nan
    ds = Dataset(Schema(tuple(attrs), tuple(CLASSES), "class // */"), X, y)
    return train(ds, TrainOptions(min_cases=2, prune=False, subsets=True))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    model = hostile_model()
    tmp = tmp_path_factory.mktemp("hostile")
    # Through the model file, as a user's names travel.
    save_model(model, tmp / "evil.tree")
    loaded = load_model(tmp / "evil.tree")
    assert loaded.schema == model.schema
    used = {n.attribute for n in loaded.nodes if not isinstance(n, Leaf)}
    assert len(used) >= 6  # the names really reach the generated tests
    out = {}
    for style in ("ifs", "table"):
        # The lean exports (--missing none, with --proba too) name things in their own
        # templates: they go through the same checks.
        for t, missing, proba in (
            ("float", "c45", None),
            ("int16", "c45", None),
            ("float", "none", None),
            ("int16", "none", True),
        ):
            opts = ExportOptions(style=style, input_type=t, missing=missing, proba=proba)
            lean = "" if missing == "c45" else "-lean" + ("-proba" if proba else "")
            out[f"{style}-{t}{lean}"] = render(loaded, opts, path="evil.tree").files
    return out


MODES = [
    f"{style}-{mode}"
    for style in ("ifs", "table")
    for mode in ("float", "int16", "float-lean", "int16-lean-proba")
]


def _strip_comments_and_strings(src: str) -> str:
    """The C text with every comment, string and character literal removed (a small
    lexer: what a name may safely live in)."""
    out = []
    i = 0
    while i < len(src):
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            assert j >= 0, "unterminated comment"
            i = j + 2
            out.append(" ")
        elif src.startswith("//", i):
            raise AssertionError(f"a // comment: {src[i : i + 60]!r}")
        elif src[i] in "\"'":
            q = src[i]
            j = i + 1
            while src[j] != q:
                assert src[j] != "\n", "a newline inside a literal"
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            out.append(" 0 ")
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_no_name_escapes(mode: str, exported: dict[str, dict[str, str]]) -> None:
    for name, text in exported[mode].items():
        assert "??" not in text.replace("\\?", ""), name  # no trigraph anywhere
        assert "\\\n" not in text, name  # no line splice
        code = _strip_comments_and_strings(text)
        tokens = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))
        assert not tokens & set(PAYLOADS), (name, tokens & set(PAYLOADS))
        # Every directive is one treegen writes, on a macro of its own.
        for line in code.splitlines():
            if line.lstrip().startswith("#"):
                assert re.match(
                    r"\s*#\s*(if|ifdef|ifndef|endif|else|elif|define|include|error)\b", line
                ), (name, line)
        defines = re.findall(r"^\s*#\s*define\s+(\w+)", code, flags=re.M)
        if name == "predict.h":  # (predict.c defines some twice, in #if / #else)
            assert len(defines) == len(set(defines)), name
        assert all(d.startswith("EVIL_") or d == "TREEGEN_EVIL_H" for d in defines), (name, defines)


def _compile(cmd: list[str], d: Path) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=d)
    assert r.returncode == 0 and not r.stderr.strip(), (cmd, r.stderr[:3000])


@pytest.mark.parametrize("mode", MODES)
def test_compiles_warning_free(
    mode: str, exported: dict[str, dict[str, str]], tmp_path: Path
) -> None:
    for name, text in exported[mode].items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    names = "-DEVIL_WANT_CLASS_NAMES"
    for cc in ("gcc", "clang"):
        if shutil.which(cc) is None:
            continue
        _compile(
            [cc, *STRICT_FLAGS, "-Wcomment", names, "-c", "predict.c", "-o", f"{cc}.o"], tmp_path
        )
    _compile(
        [
            "gcc",
            *[f for f in STRICT_FLAGS if f != "-std=c99"],
            "-std=c89",
            names,
            "-c",
            "predict.c",
            "-o",
            "c89.o",
        ],
        tmp_path,
    )
    if shutil.which("g++"):
        (tmp_path / "use.cpp").write_text(
            '#include "predict.h"\nint f(const evil_input_t *x);\n'
            "int f(const evil_input_t *x) "
            "{ return evil_predict(x); }\n",
            encoding="utf-8",
        )
        _compile(
            [
                "g++",
                "-std=c++11",
                "-Wall",
                "-Wextra",
                "-pedantic",
                "-Werror",
                names,
                "-c",
                "use.cpp",
                "-o",
                "use.o",
            ],
            tmp_path,
        )


@pytest.mark.slow
def test_identifiers_stable_across_processes(
    exported: dict[str, dict[str, str]], tmp_path: Path
) -> None:
    """The same names give the same identifiers in another process (other hash seed)."""
    script = (
        "import sys, json; sys.path.insert(0, %r)\n"
        "import test_hostile_names as t\n"
        "from treegen.codegen.options import ExportOptions\n"
        "from treegen.kinds.export import render\n"
        "from treegen.model.file import save_model, load_model\n"
        "m = t.hostile_model(); save_model(m, %r); m = load_model(%r)\n"
        "o = ExportOptions(style='ifs', input_type='float')\n"
        "sys.stdout.write(json.dumps(render(m, o, path=%r).files))\n"
    )
    here = str(Path(__file__).parent)
    path = str(tmp_path / "evil.tree")
    import json
    import os

    for seed in ("1", "12345"):
        r = subprocess.run(
            [sys.executable, "-c", script % (here, path, path, path)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        got = json.loads(r.stdout)
        # The provenance names the model path, which differs; everything else is equal.
        strip = lambda s: re.sub(r"(treegen export )\S+", r"\1X", s)  # noqa: E731
        assert {k: strip(v) for k, v in got.items()} == {
            k: strip(v) for k, v in exported["ifs-float"].items()
        }


def test_templates_define_no_macro_beyond_the_reserved_ones() -> None:
    """Every ``PREFIX_NAME`` macro the templates write is in TEMPLATE_MACROS, the list that
    keeps names made from data away from them."""
    import importlib.resources

    from treegen.codegen.emit import TEMPLATE_MACROS

    root = importlib.resources.files("treegen.codegen").joinpath("templates")
    used: set[str] = set()
    for entry in root.iterdir():
        used |= set(re.findall(r"\{\{ ?U ?\}\}_(\w+)", entry.read_text("utf-8")))
    assert used, "no template macro found: the pattern is stale"
    assert used <= set(TEMPLATE_MACROS), used - set(TEMPLATE_MACROS)


def test_data_names_spelling_the_templates_macros_stay_apart(tmp_path: Path) -> None:
    """A feature and value whose macro would spell one of the templates' own macros, or the
    include guard, gets another name: predict.h redefines nothing, and the user's
    ``-DPREFIX_INLINE_TOP`` / ``-DPREFIX_WANT_CLASS_NAMES`` still compile warning-free."""
    from treegen.codegen.emit import TEMPLATE_MACROS

    pairs = [tuple(m.lower().split("_", 1)) for m in TEMPLATE_MACROS if "_" in m]
    pairs += [("treegen", "h"), ("rom", "x")]  # the guard of prefix treegen: TREEGEN_TREEGEN_H
    rng = np.random.default_rng(3)
    n = 64
    attrs = [Attribute(f, "nominal", (v, "other")) for f, v in pairs]
    attrs.append(Attribute("x", "continuous"))
    X = np.column_stack(
        [rng.integers(0, 2, n).astype(np.float64) for _ in pairs] + [rng.normal(0, 1, n)]
    )
    y = (X[:, -1] > 0).astype(np.int32) ^ X[:, 0].astype(np.int32)
    model = train(Dataset(Schema(tuple(attrs), ("a", "b"), "y"), X, y), TrainOptions())
    reserved = {f"TREEGEN_{m}" for m in TEMPLATE_MACROS} | {"TREEGEN_TREEGEN_H"}
    for missing in ("c45", "none"):
        opts = ExportOptions(style="table", missing=missing, input_type="float")
        files = render(model, opts, path="treegen.tree").files
        header = files["predict.h"]
        defined = re.findall(r"^#define (\w+)", header, flags=re.M)
        assert len(defined) == len(set(defined))  # the guard and N_CLASSES, once each
        # The value codes: "#define MACRO CODE /* value */".
        values = dict(re.findall(r"^#define (\w+) [01] /\* (\w+) \*/$", header, flags=re.M))
        assert len(values) == 2 * len(pairs) + 2  # (and the two classes)
        assert not set(values) & reserved, set(values) & reserved
        assert values["TREEGEN_INLINE_TOP_2"] == "top"  # feature inline, value top: renamed
        for name, text in files.items():
            (tmp_path / name).write_text(text, encoding="utf-8")
        for knob in ("-DTREEGEN_INLINE_TOP=1", "-DTREEGEN_INLINE_TOP=0"):
            _compile(
                ["gcc", *STRICT_FLAGS, knob, "-DTREEGEN_WANT_CLASS_NAMES", "-c", "predict.c"],
                tmp_path,
            )


LONG_CLASS = ("é'\\??=n" * 800)[:5000]  # beyond C99's 4095-byte literal, let alone C89's 509


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind, export_args",
    [
        ("tree", ["--style", "ifs"]),
        ("tree", ["--style", "table", "--missing", "none"]),
        ("rules", []),
    ],
)
def test_a_class_name_too_long_for_a_string_literal(
    kind: str, export_args: list[str], tmp_path: Path
) -> None:
    """A class name longer than C lets a string literal be is a char array of its own:
    PREFIX_class_names compiles warning-free under c89 and c99 and holds the name's bytes."""
    rows = ["x,cls"] + [f"{v},{c}" for v in (1, 2, 3) for c in ("a", LONG_CLASS)]
    rows += [f"{v},{c}" for v in (7, 8, 9) for c in ("b", "b", LONG_CLASS)]
    (tmp_path / "long.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    cli = [sys.executable, "-m", "treegen", "-q"]
    if kind == "tree":
        made = [*cli, "train", "long.csv", "--target", "cls", "-o", "long.model"]
    else:
        made = [*cli, "rules", "long.csv", "--target", "cls", "-o", "long.model"]
    subprocess.run(made, cwd=tmp_path, check=True, capture_output=True)
    export = [*cli, "export", "long.model", "-o", "out", "--prefix", "lc", *export_args]
    subprocess.run(export, cwd=tmp_path, check=True, capture_output=True)
    out = tmp_path / "out"  # --prefix lc names the files lc_predict.c and lc_predict.h
    assert f'"{LONG_CLASS[:8]}' not in (out / "lc_predict.c").read_text("utf-8")
    (out / "main.c").write_text(
        '#include <stdio.h>\n#include "lc_predict.h"\n'
        "int main(void) { int c; for (c = 0; c < LC_N_CLASSES; c++) "
        'printf("%s\\n", lc_class_names[c]); return 0; }\n',
        encoding="utf-8",
    )
    for std in ("-std=c89", "-std=c99"):
        flags = [f for f in STRICT_FLAGS if not f.startswith("-std=")]
        _compile(["gcc", *flags, std, "-DLC_WANT_CLASS_NAMES", "-c", "lc_predict.c"], out)
    _compile(["gcc", "-DLC_WANT_CLASS_NAMES", "main.c", "lc_predict.c", "-o", "names"], out)
    got = subprocess.run([str(out / "names")], capture_output=True, check=True).stdout
    # A CSV's labels sort as text (code point order): the long one, "é...", after "b".
    assert got.decode("utf-8").split("\n")[:-1] == ["a", "b", LONG_CLASS]


def test_long_names_keep_macros_and_lines_within_c99s_limits() -> None:
    """C99 promises 63 significant characters of a macro name and 4095 characters of a
    source line: names that differ only after their first 100 characters, one of 5000
    characters and a subset of many long values still give macros of at most 63
    characters, distinct, and lines within the limit."""
    long = "very_long_attribute_name_" * 4
    values = tuple(f"{long}value_{k}" for k in range(40))
    attrs = (
        Attribute(long + "one", "continuous"),
        Attribute(long + "two", "continuous"),
        Attribute("z" * 5000, "nominal", values),
    )
    rng = np.random.default_rng(5)
    n = 400
    X = np.column_stack([rng.normal(0, 1, n), rng.normal(0, 1, n), rng.integers(0, 40, n)])
    y = ((X[:, 0] > 0) ^ (X[:, 2] % 3 == 0)).astype(np.int32)
    classes = (long + "class_a", long + "class_b")
    model = train(
        Dataset(Schema(attrs, classes, "y"), X.astype(np.float64), y), TrainOptions(subsets=True)
    )
    assert any(isinstance(node, SubsetTest) for node in model.nodes)
    for style, missing in (("ifs", "c45"), ("ifs", "none"), ("table", "c45")):
        opts = ExportOptions(prefix="p" * 31, style=style, missing=missing)  # type: ignore[arg-type]
        for name, text in render(model, opts).files.items():
            defined = re.findall(r"^#define (\w+)", text, flags=re.M)
            assert max(len(d) for d in defined) <= 63, (name, max(defined, key=len))
            if name.endswith(".h"):  # (predict.c defines ROM and RD* in #if and #else)
                assert len(defined) == len({d[:63] for d in defined}), name
            assert max(len(line) for line in text.splitlines()) <= 4095, name
