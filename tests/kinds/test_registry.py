"""A kind added at run time works with every command, with no change to cli/ or api/.

The toy kind is a constant classifier: its file names the class it always predicts, its
C returns that class.  It is registered here (what a new kind's entry does in the table),
then written, shown, evaluated, predicted, exported and verified through the command line
and the Python API exactly as a tree is.  The registry is the only place that asks which
kind a value is (test_no_kind_isinstance_outside_the_registry).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import treegen
from treegen import kinds
from treegen.cli.main import main
from treegen.codegen.ir import Encoding, Feature, ProbaApi
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Attribute, Dataset, Schema
from treegen.errors import EncodingError, ModelFileError
from treegen.kinds.spec import Kind
from treegen.verify.report import Report, check_against, tally

FORMAT = "toy-constant"


@dataclass(frozen=True)
class Constant:
    """The toy kind's value: always class ``cls``."""

    schema: Schema
    cls: int
    options: dict[str, object] = field(default_factory=dict)
    data_fingerprint: str = ""

    @property
    def compares_float32(self) -> bool:
        return False


@dataclass(frozen=True)
class ToyC:
    """The lowered toy: the C interface verify needs, and the class."""

    prefix: str
    encoding: Encoding
    features: tuple[Feature, ...]
    n_classes: int
    cls: int
    provenance: tuple[tuple[str, str], ...]
    proba: bool = True

    @property
    def n_features(self) -> int:
        return len(self.features)

    @property
    def proba_api(self) -> ProbaApi | None:
        return ProbaApi("predict_proba", "uint16_t", self.n_classes) if self.proba else None


def _from_data(data: Any, text: str, filename: str) -> Constant:
    try:
        attrs = tuple(Attribute(a, "continuous") for a in data["attributes"])
        schema = Schema(attrs, tuple(data["classes"]), data["target"])
        cls = data["cls"]
    except (KeyError, TypeError):
        raise ModelFileError("not a toy constant file", file=filename, line=1) from None
    if not isinstance(cls, int) or not 0 <= cls < len(schema.classes):
        raise ModelFileError("cls: out of range", file=filename, line=1)
    return Constant(schema, cls)


def _to_json(c: Constant) -> str:
    attrs = [a.name for a in c.schema.attributes]
    doc = {
        "format": FORMAT,
        "attributes": attrs,
        "classes": list(c.schema.classes),
        "target": c.schema.target,
        "cls": c.cls,
    }
    return json.dumps(doc) + "\n"


def _proba(c: Constant, X: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out = np.zeros((len(X), len(c.schema.classes)))
    out[:, c.cls] = 1.0
    return out


def _check_options(opts: ExportOptions) -> None:
    if opts.input_type != "float":
        raise EncodingError("the toy takes float inputs only", option="--input-type")


def _lower(c: Constant, opts: ExportOptions, provenance: tuple[tuple[str, str], ...]) -> ToyC:
    assert opts.prefix is not None  # the registry's export settles it
    feats = tuple(Feature(a.name, a.name.upper(), "continuous") for a in c.schema.attributes)
    return ToyC(opts.prefix, Encoding("float"), feats, len(c.schema.classes), c.cls, provenance)


def _emit(t: ToyC, opts: ExportOptions) -> dict[str, str]:
    P, U = t.prefix, t.prefix.upper()
    comment = "".join(f"/* {k}: {v} */\n" for k, v in t.provenance)
    header = (
        f"{comment}#ifndef {U}_H\n#define {U}_H\n#include <stdint.h>\n"
        f"typedef float {P}_input_t;\n#define {U}_N_CLASSES {t.n_classes}\n"
        f"#define {U}_N_FEATURES {t.n_features}\n"
        f"int {P}_predict(const {P}_input_t *x);\n"
        f"void {P}_predict_proba(const {P}_input_t *x, uint16_t *proba);\n#endif\n"
    )
    source = (
        f'{comment}#include "predict.h"\n'
        f"int {P}_predict(const {P}_input_t *x)\n{{\n    (void)x;\n    return {t.cls};\n}}\n"
        f"void {P}_predict_proba(const {P}_input_t *x, uint16_t *proba)\n{{\n"
        f"    int c;\n    (void)x;\n    for (c = 0; c < {U}_N_CLASSES; c++) {{\n"
        f"        proba[c] = (uint16_t)(c == {t.cls} ? 32768u : 0u);\n    }}\n}}\n"
    )
    return {"predict.h": header, "predict.c": source}


def _rows(
    c: Constant,
    t: ToyC,
    opts: ExportOptions,
    data: Sequence[Dataset],
    n_random: int,
    seed: int,
    report: Report,
) -> npt.NDArray[np.generic]:
    rng = np.random.default_rng(seed)
    parts = [ds.X.astype(np.float32) for ds in data]
    parts.append(rng.normal(size=(n_random, t.n_features)).astype(np.float32))
    X = np.concatenate(parts)
    report.lines.append(f"toy: {len(X)} rows")
    return X


def _compare(
    c: Constant,
    t: ToyC,
    opts: ExportOptions,
    X: npt.NDArray[np.generic],
    c_cls: npt.NDArray[np.int32],
    c_proba: npt.NDArray[np.uint16],
    report: Report,
) -> None:
    want = np.full(len(X), c.cls, dtype=np.int32)
    proba = np.zeros((len(X), t.n_classes), dtype=np.uint16)
    proba[:, c.cls] = 32768
    every = np.ones(len(X), dtype=bool)
    tally(report, len(X), check_against(report, "constant", X, every, c_cls, want, c_proba, proba))


TOY: Kind[Constant, ToyC] = Kind(
    name="constant",
    noun="constant",
    format=FORMAT,
    suffix=".const",
    default_name="const",
    value_type=Constant,
    from_data=_from_data,
    to_json=_to_json,
    predict=lambda c, X: np.full(len(X), c.cls, dtype=np.intp),
    predict_proba=_proba,
    evaluate=lambda c, ds, label, unpruned: f"{label}: {int((ds.y != c.cls).sum())} errors\n",
    show={"c45": lambda c: f"always {c.schema.classes[c.cls]}\n"},
    info=lambda c, input_type: f"a constant: {c.schema.classes[c.cls]}, {input_type}\n",
    dot=None,
    styles=("ifs",),
    check_options=_check_options,
    lower=_lower,
    emit=_emit,
    api=lambda t: t,
    rows=_rows,
    compare=_compare,
    summary=lambda t, opts: "a constant",
)


@pytest.fixture
def toy(tmp_path: Path) -> Iterator[Path]:
    """The toy kind registered, and a file of it (3 features, always class "b")."""
    kinds.register(TOY)
    try:
        path = tmp_path / "always.const"
        schema = Schema(tuple(Attribute(n, "continuous") for n in "xyz"), ("a", "b", "c"), "k")
        path.write_text(_to_json(Constant(schema, 1)))
        yield path
    finally:
        kinds.unregister(TOY.name)


def test_toy_kind_exports_and_verifies_through_the_cli(
    toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "c"
    assert main(["export", str(toy), "-o", str(out)]) == 0
    source = (out / "predict.c").read_text()
    assert "int always_predict(" in source  # the prefix is the file's name
    assert "constant: sha256:" in source and "--prefix always" in source  # the provenance
    capsys.readouterr()
    assert main(["verify", str(toy), "--random", "50"]) == 0
    text = capsys.readouterr().out
    assert "C vs constant: 50 rows, classes and probabilities identical" in text
    assert main(["show", str(toy)]) == 0 and capsys.readouterr().out == "always b\n"
    assert main(["info", str(toy)]) == 0 and "a constant: b" in capsys.readouterr().out


def test_toy_kind_predicts_and_evaluates_through_the_cli(
    toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "d.csv"
    data.write_text("x,y,z,k\n1,2,3,a\n4,5,6,b\n7,8,9,b\n")
    assert main(["predict", str(toy), str(data), "--proba"]) == 0
    assert capsys.readouterr().out.splitlines() == ["b\t0.000000\t1.000000\t0.000000"] * 3
    assert main(["eval", str(toy), str(data)]) == 0
    assert capsys.readouterr().out == "test: 1 errors\n"


def test_toy_kind_answers_info_s_input_type_and_weights_itself(
    toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """info passes --input-type as given (None when not) and the kind answers; eval
    reads an ARFF file's instance weights where the kind says its evaluation counts
    them.  The CLI asks no kind's name (it refused --input-type for "ruleset", and read
    weights for "tree" alone)."""
    assert main(["info", str(toy)]) == 0
    assert capsys.readouterr().out == "a constant: b, None\n"
    assert main(["info", str(toy), "--input-type", "int16"]) == 0
    assert capsys.readouterr().out == "a constant: b, int16\n"
    data = tmp_path / "w.arff"
    data.write_text(
        "@relation w\n@attribute x numeric\n@attribute y numeric\n@attribute z numeric\n"
        "@attribute k {a,b,c}\n@data\n1,2,3,a,{2}\n4,5,6,b,{3}\n"
    )
    assert main(["eval", str(toy), str(data)]) == 2
    assert "weight" in capsys.readouterr().err
    kinds.unregister(TOY.name)
    kinds.register(replace(TOY, reads_weights=True))
    assert main(["eval", str(toy), str(data)]) == 0
    assert capsys.readouterr().out == "test: 1 errors\n"


def test_toy_kind_refuses_what_it_has_no_c_for(
    toy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(toy), "--input-type", "int16", "-o", str(tmp_path / "c")]) == 2
    assert "--input-type: the toy takes float inputs only" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()
    assert main(["show", str(toy), "--format", "j48"]) == 2
    assert "a constant prints as c45 only" in capsys.readouterr().err
    assert main(["plot", str(toy), "-o", str(tmp_path / "p.svg")]) == 2


def test_toy_kind_verify_fails_on_wrong_c(
    toy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The verify the toy gets is real: C that answers another class fails it."""
    wrong = {"predict.c": "", "predict.h": ""}

    def emit(t: ToyC, opts: ExportOptions) -> dict[str, str]:
        files = _emit(t, opts)
        wrong["predict.c"] = files["predict.c"].replace(f"return {t.cls};", "return 0;")
        return {**files, "predict.c": wrong["predict.c"]}

    kinds.unregister(TOY.name)
    from dataclasses import replace

    kinds.register(replace(TOY, emit=emit))
    assert main(["verify", str(toy), "--random", "20"]) == 1
    assert (
        "C vs constant: 20 rows, classes and probabilities 20 rows differ"
        in capsys.readouterr().out
    )


def test_toy_kind_through_the_python_api(toy: Path, tmp_path: Path) -> None:
    model = treegen.load(toy)
    assert model.kind.name == "constant" and model.name == "always"
    X = {"x": np.zeros(4), "y": np.zeros(4), "z": np.zeros(4)}
    assert list(model.predict(X)) == ["b"] * 4
    assert model.predict_proba(X)[:, 1].tolist() == [1.0] * 4
    assert model.verify(n_random=30).ok
    paths = model.export_c(tmp_path / "out", prefix="toy")
    assert "int toy_predict(" in (tmp_path / "out" / "predict.c").read_text() and len(paths) == 2
    saved = model.save(tmp_path / "again.const")
    assert saved.path is not None and treegen.load(saved.path) == model


def test_a_format_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="registered already"):
        kinds.register(kinds.kind_named("tree"))


def test_registering_a_kind_needs_no_change_to_the_cli() -> None:
    """cli/ and api/ never name a kind's value type: they cannot tell a toy from a tree."""
    root = Path(treegen.__file__).parent
    for folder in ("cli", "api"):
        for path in sorted((root / folder).rglob("*.py")):
            text = path.read_text("utf-8")
            for name in ("RuleSet", "core.Model", "Constant"):
                assert f"isinstance(model, {name})" not in text


def _qualified_names(tree: ast.Module, module: str) -> dict[str, str]:
    """What each imported or defined name of a module stands for, fully qualified."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name
        elif isinstance(node, ast.ClassDef):
            names[node.name] = f"{module}.{node.name}"
    return names


def _resolve(node: ast.expr, names: dict[str, str]) -> str:
    if isinstance(node, ast.Name):
        return names.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        return f"{_resolve(node.value, names)}.{node.attr}"
    return ""


def test_no_kind_isinstance_outside_the_registry() -> None:
    """No ``isinstance(x, T)`` on a registered kind's value type anywhere but the registry
    (treegen/kinds/__init__.py): everything else asks the registry."""
    root = Path(treegen.__file__).parent
    value_types = {
        f"{k.value_type.__module__}.{k.value_type.__qualname__}" for k in kinds.KINDS.values()
    }
    assert "treegen.rules.core.RuleSet" in value_types
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == root / "kinds" / "__init__.py":
            continue
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        tree = ast.parse(path.read_text("utf-8"))
        names = _qualified_names(tree, module)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "isinstance"
                and len(node.args) == 2
            ):
                targets = (
                    node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
                )
                if {_resolve(t, names) for t in targets} & value_types:
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert found == []


def test_isinstance_finder_resolves_imported_names() -> None:
    tree = ast.parse("from treegen.rules.core import RuleSet as R\nisinstance(x, R)\n")
    names = _qualified_names(tree, "m")
    call = tree.body[1].value  # type: ignore[attr-defined]
    assert _resolve(call.args[1], names) == "treegen.rules.core.RuleSet"
