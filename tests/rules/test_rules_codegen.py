"""Rulesets to C (``treegen export RULES``): verify finds 0 mismatches in every input
mode, the C compiles warning-free with every compiler, the verifier sees a wrong C."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.cli.main import main
from treegen.codegen.lower import FLT_MAX
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Attribute, Schema
from treegen.data.readers import read_dataset
from treegen.kinds.check import verify
from treegen.rules.ccode import emit_ruleset, lower_ruleset
from treegen.rules.check import evaluate, ruleset_inputs
from treegen.rules.core import Condition, Rule, RuleSet, predict
from treegen.rules.file import save_ruleset
from treegen.rules.generate import generate
from treegen.trainer import TrainOptions, train
from treegen.verify.build import STRICT_FLAGS, build

from support.modes import EXPORT_MODES, cli_args, modes
from support.strict import firmware_warnings

REF = Path(__file__).resolve().parents[1] / "data" / "reference"
# Every input mode of the table (the lean modes are --missing none, which rulesets refuse).
MODES = modes(tuple(n for n in EXPORT_MODES if not n.startswith("lean")))
STRICT = [f for f in STRICT_FLAGS if not f.startswith("-std=")]


@functools.cache
def _generated(name: str) -> RuleSet:
    ds = read_dataset(str(REF / name / f"{name}.data"))
    return generate(ds, train(ds, TrainOptions(prune=False)))[1]


def _edges() -> RuleSet:
    """Conditions at the edges: 0, negative, subnormal and huge thresholds, FLT_MAX, both
    sides of one attribute, subsets, code 0, a rule no value satisfies, and a last rule
    without conditions (it always fires)."""
    schema = Schema(
        (
            Attribute("a", "continuous"),
            Attribute("colour", "nominal", ("red", "green", "blue", "grey")),
            Attribute("b", "continuous"),
            Attribute("skip", "ignore"),
        ),
        ("x", "y", "z"),
        "class",
    )
    # c45 thresholds are float32 values (the ruleset file insists).
    tiny, huge = float(np.float32(1e-40)), float(np.float32(1e30))
    rules = (
        Rule(1, (Condition(0, ">", threshold=0.0), Condition(0, "<=", threshold=2.5)), 0, 0.1),
        Rule(2, (Condition(1, "=", value=0), Condition(2, "<=", threshold=-3.25)), 1, 0.2),
        Rule(3, (Condition(1, "in", values=(1, 3)), Condition(2, ">", threshold=tiny)), 2, 0.3),
        Rule(4, (Condition(0, ">", threshold=FLT_MAX),), 0, 0.4),  # only +inf passes
        Rule(5, (Condition(2, "<=", threshold=FLT_MAX), Condition(1, "=", value=2)), 1, 0.1),
        Rule(6, (Condition(0, "<=", threshold=-FLT_MAX),), 2, 0.2),
        Rule(7, (Condition(2, ">", threshold=huge),), 1, 0.3),
        Rule(8, (), 0, 0.45),
        Rule(9, (Condition(0, "<=", threshold=1.0),), 2, 0.1),  # after an always-rule
    )
    return RuleSet(schema, rules, default=1)


def _j48_edges() -> RuleSet:
    """The edge rules in the j48 flavour (doubles compared, not float32), with a threshold
    that is no float32 value and one beyond float32's range."""
    e = _edges()
    extra = (
        Rule(10, (Condition(0, "<=", threshold=0.1),), 2, 0.1),
        Rule(11, (Condition(2, ">", threshold=1e300),), 0, 0.1),
    )
    return dataclasses.replace(e, flavor="j48", rules=e.rules[:7] + extra)


SYNTHETIC = {
    "edges": _edges,
    "j48": _j48_edges,
    "empty": lambda: dataclasses.replace(_edges(), rules=()),  # only the default class
}
RULESETS = ["labor-neg", "vote-r8", "hypo", "crx", *SYNTHETIC]


def _ruleset(name: str) -> RuleSet:
    return SYNTHETIC[name]() if name in SYNTHETIC else _generated(name)


def _data(name: str) -> list:
    if name in SYNTHETIC:
        return []
    rs = _ruleset(name)
    return [read_dataset(str(REF / name / f"{name}.data"), schema=rs.schema)]


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", RULESETS)
def test_verify_every_mode(name: str, mode: str) -> None:
    kw = dict(MODES[mode])
    opts = ExportOptions(prefix=f"r_{mode}", **kw)  # type: ignore[arg-type]
    report = verify(_ruleset(name), opts, _data(name), n_random=300)
    assert report.ok, report.text()
    assert report.rows > 300 and "C vs Python ruleset" in report.text()


def test_edges_lower_as_intended() -> None:
    rir = lower_ruleset(_edges(), ExportOptions())
    # Rule 9 never gets a turn after rule 8, which always fires: it is left out.
    assert [r.number for r in rir.rules] == [1, 2, 3, 4, 5, 6, 7, 8]
    ops = {r.number: [t.op for t in r.tests] for r in rir.rules}
    assert ops[1] == ["gt", "le"] and ops[3] == ["in", "gt"] and ops[4] == ["gt"]
    assert ops[5] == ["le", "in"]  # +inf is not <= FLT_MAX
    assert ops[6] == ["le"] and rir.rules[5].tests[0].threshold == -FLT_MAX
    assert ops[8] == []
    # No int16 value is above FLT_MAX or 1e30, or at most -FLT_MAX: rules 4, 6 and 7
    # can never fire there.
    ints = lower_ruleset(_edges(), ExportOptions(input_type="int16"))
    assert [r.number for r in ints.rules] == [1, 2, 3, 5, 8]
    assert [t.op for t in ints.rules[3].tests] == ["known", "in"]  # every int16 is <= FLT_MAX
    keys = lower_ruleset(_edges(), ExportOptions(float_compare="int"))
    assert keys.rules[1].tests[0].values == (0x80000000, 0x7FFFFFFF)  # +0.0 and -0.0


def test_a_rule_that_never_fires_is_left_out() -> None:
    """A rule whose error rate is above 0.7 never fires (c4.5rules prints it and keeps
    it): the C leaves it out, and the Python ruleset passes over it too."""
    rs = _edges()
    never = Rule(10, (Condition(0, ">", threshold=0.0),), 2, 0.75)
    rs = RuleSet(rs.schema, (never, *rs.rules), rs.default)
    rir = lower_ruleset(rs, ExportOptions())
    assert [r.number for r in rir.rules] == [1, 2, 3, 4, 5, 6, 7, 8]
    X = np.array([[1.0, 0.0, -4.0, np.nan]])
    assert predict(rs, X).tolist() == evaluate(rir, X).tolist() == [0]  # rule 1's class


def test_a_missing_value_fails_every_condition() -> None:
    rir = lower_ruleset(_edges(), ExportOptions(input_type="int16"))
    m = rir.frame.encoding.missing
    X = np.array([[m, m, m, 0], [m, 0, m, 0], [1, m, m, 0]], dtype=np.int16)
    # Row 0 and 1 reach rule 8 (no condition): class 0; row 2 meets rule 1 (0 < 1 <= 2.5).
    assert evaluate(rir, X).tolist() == [0, 0, 0]
    X2 = np.array([[m, 2, 5, 0]], dtype=np.int16)  # colour blue, b known: rule 5
    assert evaluate(rir, X2).tolist() == [1]


def test_scale_overflow_folds_and_names_the_rule() -> None:
    """A condition whose threshold scales outside the type folds as a tree's test does
    (one rule at every --scale), and the export's note names the rule."""
    opts = ExportOptions(input_type="int32", scale=MODES["fixed"]["scale"])  # type: ignore[arg-type]
    rir = lower_ruleset(_edges(), opts)
    assert any(f.startswith("rule 4, condition 1 (") for f in rir.folds), rir.folds
    assert 4 not in [r.number for r in rir.rules]  # x > FLT_MAX never holds
    report = verify(_edges(), opts, n_random=300)
    assert report.ok and "note: " in report.text() and "rule 4, condition 1" in report.text()


def test_verifier_catches_a_wrong_comparison(tmp_path: Path) -> None:
    """The same check verify runs, on a predict.c where rule 4's 'x <= 4' became
    'x < 4': the threshold rows tell them apart."""
    rs = _generated("labor-neg")
    rir = lower_ruleset(rs, ExportOptions())
    files = emit_ruleset(rir)
    assert files["predict.c"].count("x[1] <= 4.0f") == 1
    files["predict.c"] = files["predict.c"].replace("x[1] <= 4.0f", "x[1] < 4.0f")
    X = ruleset_inputs(rir, rs, n_random=0)
    c_cls, _ = build(rir.frame, files, tmp_path).run(X)
    assert int(np.count_nonzero(c_cls != evaluate(rir, X))) > 0


def _variants(tmp: Path) -> dict[str, Path]:
    out = {}
    for name in RULESETS:
        for mode, kw in MODES.items():
            kw = dict(kw)
            if name in SYNTHETIC and mode == "fixed":
                kw["scale"] = None
            rir = lower_ruleset(_ruleset(name), ExportOptions(prefix=f"r_{mode}", **kw))  # type: ignore[arg-type]
            d = tmp / f"{name}-{mode}"
            d.mkdir()
            for fname, text in emit_ruleset(rir).items():
                (d / fname).write_text(text)
            out[f"{name}-{mode}"] = d
    return out


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _variants(tmp_path_factory.mktemp("rules-c"))


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed")
    return path


def _compile(cmd: list[str]) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return "" if r.returncode == 0 and not r.stderr.strip() else (r.stderr or "failed")[:2000]


@pytest.mark.parametrize("opt", ["-O0", "-O3"])
@pytest.mark.parametrize("std", ["c99", "c89"])
@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.slow
def test_host_compilers_strict(variants: dict[str, Path], cc: str, std: str, opt: str) -> None:
    exe = _need(cc)
    errors = {
        name: _compile(
            [exe, f"-std={std}", opt, *STRICT, "-c", str(d / "predict.c"), "-o", str(d / "h.o")]
        )
        for name, d in variants.items()
    }
    assert {k: v for k, v in errors.items() if v} == {}


@pytest.mark.parametrize(
    "tool,flags",
    [
        ("arm-none-eabi-gcc", ["-mcpu=cortex-m0plus", "-mthumb"]),
        ("avr-gcc", ["-mmcu=atmega328p"]),
    ],
)
@pytest.mark.toolchain
def test_cross_compilers_strict(variants: dict[str, Path], tool: str, flags: list[str]) -> None:
    exe = _need(tool)
    errors = {}
    for name, d in variants.items():
        cmd = [exe, *flags, "-Os", "-std=c99", *STRICT, *firmware_warnings(tool), "-c"]
        cmd.append(str(d / "predict.c"))
        cmd += ["-o", str(d / "x.o")]
        if tool == "avr-gcc" and name.endswith("-double"):
            r = subprocess.run(cmd, capture_output=True, text=True, check=False)
            assert r.returncode != 0 and "--input-type float" in r.stderr
            continue
        errors[name] = _compile(cmd)
    assert {k: v for k, v in errors.items() if v} == {}


@pytest.mark.slow
def test_float_compare_int_uses_no_float_operation(variants: dict[str, Path]) -> None:
    exe = _need("arm-none-eabi-gcc")
    for name in RULESETS:
        asm = {
            mode: subprocess.run(
                [exe, "-mcpu=cortex-m0plus", "-mthumb", "-Os", "-S", "-o", "-"]
                + [str(variants[f"{name}-{mode}"] / "predict.c")],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            for mode in ("keys", "float")
        }
        assert "__aeabi_f" not in asm["keys"], name
        if name not in ("vote-r8", "empty"):  # no threshold to compare as float
            assert "__aeabi_f" in asm["float"], name


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def test_cli_export_and_verify(tmp_path: Path) -> None:
    rules = tmp_path / "hypo.rules"
    save_ruleset(_generated("hypo"), rules)
    status, out, _ = _run(
        ["export", str(rules), "-o", str(tmp_path / "c"), *cli_args(MODES["fixed"])]
    )
    assert status == 0 and out.splitlines() == [
        f"{tmp_path}/c/predict.c",
        f"{tmp_path}/c/predict.h",
    ]
    c = (tmp_path / "c" / "predict.c").read_text()
    h = (tmp_path / "c" / "predict.h").read_text()
    assert " * ruleset: sha256:" in c and "int hypo_predict(const hypo_input_t *x);" in h
    assert "predict_proba" not in h and "#define HYPO_MISSING" in h
    assert c.count("/* Rule ") == len(_generated("hypo").rules)
    data = REF / "hypo" / "hypo.test"
    for mode in ("float", "keys", "uint8"):
        status, out, _ = _run(["verify", str(rules), str(data), *cli_args(MODES[mode])])
        assert status == 0, out
        assert re.search(r"^\d+ passed, 0 failed$", out, re.M), out


@pytest.mark.parametrize(
    "args,option",
    [
        (["--style", "table"], "--style"),
        (["--missing", "none"], "--missing"),
        (["--proba"], "--proba"),
    ],
)
def test_cli_tree_only_options_are_one_line_errors(
    tmp_path: Path, args: list[str], option: str
) -> None:
    rules = tmp_path / "vote.rules"
    save_ruleset(_generated("vote-r8"), rules)
    status, _, err = _run(["export", str(rules), "-o", str(tmp_path / "c"), *args])
    assert status == 2 and err.startswith(f"treegen: error: {option}:") and err.count("\n") == 1
    assert not (tmp_path / "c").exists()


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="no arm-none-eabi-gcc")
def test_export_report_measures_a_ruleset(tmp_path: Path) -> None:
    """A ruleset's C is measured per compiler as a tree's is (the firmware tools take
    every kind through the registry)."""
    rules = tmp_path / "vote.rules"
    save_ruleset(_generated("vote-r8"), rules)
    status, out, err = _run(["export", str(rules), "-o", str(tmp_path / "c"), "--report"])
    assert status == 0, err
    assert "ruleset of " in out and "Cortex-M0+ (arm-none-eabi-gcc)" in out


def test_api_export_and_verify_are_the_clis(tmp_path: Path) -> None:
    rules = tmp_path / "labor.rules"
    save_ruleset(_generated("labor-neg"), rules)
    loaded = treegen.load(rules)
    assert isinstance(loaded, treegen.Model) and isinstance(loaded.value, RuleSet)
    written = loaded.export_c(tmp_path / "api", input_type="int16", scale=10)
    api = {p.name: p.read_text() for p in written}
    status, _, _ = _run(
        ["export", str(rules), "-o", str(tmp_path / "cli"), "--input-type", "int16"]
        + ["--scale", "10"]
    )
    assert status == 0
    cli = {p.name: p.read_text() for p in (tmp_path / "cli").iterdir()}
    assert sorted(api) == ["predict.c", "predict.h"]
    # The same bytes but the output folder in the "regenerate with" line.
    assert api["predict.h"].replace(str(tmp_path / "api"), "DIR") == cli["predict.h"].replace(
        str(tmp_path / "cli"), "DIR"
    )
    assert api["predict.c"].replace(str(tmp_path / "api"), "DIR") == cli["predict.c"].replace(
        str(tmp_path / "cli"), "DIR"
    )
    report = loaded.verify(REF / "labor-neg" / "labor-neg.test", float_compare="int")
    assert report.ok and report.failed == 0 and report.passed > 1000


def test_folded_conditions_test_a_known_value_once() -> None:
    """Two conditions on one feature that both fold to 'the value is known' (thresholds
    beyond int16) wrote "(x[0] != R_MISSING) && (x[0] != R_MISSING)", which gcc
    -Wlogical-op calls a logical 'and' of equal expressions: the C tests it once, and
    not at all beside another test of the feature, which a missing value fails too."""
    e = _edges()
    big = float(np.float32(1e6))
    rules = (
        Rule(1, (Condition(0, ">", threshold=-big), Condition(0, "<=", threshold=big)), 0, 0.1),
        Rule(2, (Condition(2, "<=", threshold=big), Condition(2, ">", threshold=2.0)), 2, 0.1),
    )
    rs = RuleSet(e.schema, rules, default=1)
    opts = ExportOptions(input_type="int16", prefix="r")
    rir = lower_ruleset(rs, opts)
    assert [[t.op for t in r.tests] for r in rir.rules] == [["known", "known"], ["known", "gt"]]
    source = emit_ruleset(rir, opts)["predict.c"]
    ifs = [line.strip() for line in source.splitlines() if line.strip().startswith("if (")]
    assert ifs == ["if ((x[0] != R_MISSING)) {", "if ((x[2] != R_MISSING && x[2] > 2)) {"]
    report = verify(rs, opts, [], n_random=300)
    assert report.ok, report.text()
