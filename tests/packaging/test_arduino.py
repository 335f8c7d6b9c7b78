"""``treegen export --layout arduino``: library.properties against the Arduino library
specification (1.5 format, as arduino-lint checks it), library.json against
PlatformIO's manifest schema, and the example sketch compiled for the ATmega328P with
avr-gcc and avr-g++ against a stand-in for the Arduino core that has nothing but
``Serial.begin``, ``Serial.print`` and ``Serial.println``, then run under simavr: it
prints the class the Python model gives for its row."""

from __future__ import annotations

import json
import pickle
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from treegen.cli.main import main
from treegen.kinds import kind_of
from treegen.model.file import load_model, save_model

from support import codegen_models as cm
from support.sklearn_regressors import fit_regressor, regression_data

# --- library.properties: the Arduino library specification (rev. 2.2) --------------

PROPERTIES = {
    "name", "version", "author", "maintainer", "email", "sentence", "paragraph",
    "category", "url", "architectures", "depends", "dot_a_linkage", "includes",
    "precompiled", "ldflags",
}  # fmt: skip
REQUIRED = ("name", "version", "author", "maintainer", "sentence", "paragraph", "category",
            "url", "architectures")  # fmt: skip
CATEGORIES = (
    "Display", "Communication", "Signal Input/Output", "Sensors", "Device Control", "Timing",
    "Data Storage", "Data Processing", "Other",
)  # fmt: skip
NAME = re.compile(
    r"(([a-zA-Z][a-zA-Z0-9 _.\-]*)|([0-9][a-zA-Z0-9 _.\-]*[a-zA-Z][a-zA-Z0-9 _.\-]*))*"
)
SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(-((0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(\+([0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*))?"
)
URI = re.compile(r"[a-zA-Z][a-zA-Z0-9+.\-]*:[^\s]+")
SKETCH = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9_.\-]{0,62}")


def properties_problems(text: str, library: Path) -> list[str]:
    """What the specification finds wrong with library.properties (empty: valid)."""
    problems: list[str] = []
    props: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        key, eq, value = line.partition("=")
        if not eq:
            problems.append(f"not key=value: {line!r}")
        elif key in props:
            problems.append(f"{key} twice")
        props[key] = value
    problems += [f"unknown field {k}" for k in props if k not in PROPERTIES]
    problems += [f"missing field {k}" for k in REQUIRED if not props.get(k)]
    name = props.get("name", "")
    if not NAME.fullmatch(name) or not 1 <= len(name) <= 63:
        problems.append(f"name {name!r}")
    if name.lower().startswith("arduino") or props.get("maintainer", "").startswith("Arduino"):
        problems.append("Arduino's own prefix")
    if not SEMVER.fullmatch(props.get("version", "")):
        problems.append(f"version {props.get('version')!r} is not semver")
    if props.get("category") not in CATEGORIES:
        problems.append(f"category {props.get('category')!r}")
    if not URI.fullmatch(props.get("url", "")):
        problems.append(f"url {props.get('url')!r} is not a URI")
    archs = props.get("architectures", "").split(",")
    if not all(re.fullmatch(r"\*|[a-zA-Z0-9_\-]+", a.strip()) for a in archs):
        problems.append(f"architectures {props.get('architectures')!r}")
    for header in props.get("includes", "").split(","):
        if header and not (library / "src" / header.strip()).is_file():
            problems.append(f"includes {header} not in src/")
    if not (library / "src").is_dir():
        problems.append("no src/ (1.5 format)")
    for ino in (library / "examples").glob("*/*.ino"):
        if ino.stem != ino.parent.name or not SKETCH.fullmatch(ino.stem):
            problems.append(f"sketch {ino.parent.name}/{ino.name}")
    return problems


# --- library.json: PlatformIO's manifest schema -------------------------------------

MANIFEST_FIELDS = {
    "name", "version", "description", "keywords", "authors", "repository", "homepage",
    "license", "frameworks", "platforms", "headers", "examples", "dependencies", "export",
    "build", "downloadUrl",
}  # fmt: skip
PIO_ID = re.compile(r"[a-z\d\-_]+|\*")


def manifest_problems(text: str, library: Path) -> list[str]:
    problems: list[str] = []
    m: dict[str, Any] = json.loads(text)
    problems += [f"unknown field {k}" for k in m if k not in MANIFEST_FIELDS]
    name = m.get("name", "")
    if not (1 <= len(name) <= 100 and re.fullmatch(r"[^:;/,@<>]+", name)):
        problems.append(f"name {name!r}")
    version = str(m.get("version", ""))
    if "." not in version or not SEMVER.fullmatch(version):
        problems.append(f"version {version!r}")
    if not 1 <= len(m.get("description", "x")) <= 1000:
        problems.append("description length")
    for k in m.get("keywords", []):
        if not (1 <= len(k) <= 50 and re.fullmatch(r"[a-z\d\-+. ]+", k)):
            problems.append(f"keyword {k!r}")
    for a in m.get("authors", []):
        if not 1 <= len(a.get("name", "")) <= 50 or set(a) - {"name", "email", "url", "maintainer"}:
            problems.append(f"author {a!r}")
    for key in ("frameworks", "platforms"):
        value = m.get(key, [])
        for v in [value] if isinstance(value, str) else value:
            if not (len(v) <= 50 and PIO_ID.fullmatch(v)):
                problems.append(f"{key} {v!r}")
    for header in m.get("headers", []):
        if not (library / "src" / header).is_file():
            problems.append(f"header {header} not in src/")
    return problems


@pytest.fixture()
def library(tmp_path: Path) -> Path:
    save_model(cm.golf(), tmp_path / "golf.tree")
    out = tmp_path / "golf"
    assert (
        main(["export", str(tmp_path / "golf.tree"), "-o", str(out), "--layout", "arduino", "-q"])
        == 0
    )
    return out


def test_library_properties_follows_the_specification(library: Path) -> None:
    text = (library / "library.properties").read_text()
    assert properties_problems(text, library) == []
    assert (
        "\nname=golf\n" in text
        and "\narchitectures=*\n" in text
        and "\nincludes=predict.h\n" in text
    )


def test_library_json_follows_platformio_s_schema(library: Path) -> None:
    text = (library / "library.json").read_text()
    assert manifest_problems(text, library) == []
    m = json.loads(text)
    assert m["name"] == "golf" and m["frameworks"] == ["*"] and m["headers"] == ["predict.h"]


def test_the_checks_find_what_the_rules_forbid(library: Path) -> None:
    """The validators are not vacuous: the usual mistakes are caught."""
    text = (library / "library.properties").read_text()
    for old, new, problem in [
        ("version=1.0.0", "version=1.0", "not semver"),
        ("category=Data Processing", "category=Uncategorized", "category"),
        ("name=golf", "name=my/golf", "name"),
        ("\nurl=", "\n#url=", "missing field url"),
        ("architectures=*", "architecture=*", "unknown field architecture"),
        ("includes=predict.h", "includes=golf.h", "not in src/"),
    ]:
        assert any(problem in p for p in properties_problems(text.replace(old, new), library))
    m = json.loads((library / "library.json").read_text())
    for key, value, problem in [
        ("version", "1", "version"),
        ("keywords", ["Decision Tree"], "keyword"),
        ("frameworks", ["Arduino Core"], "frameworks"),
        ("name", "a:b", "name"),
    ]:
        bad = json.dumps({**m, key: value})
        assert any(p.startswith(problem) for p in manifest_problems(bad, library)), key


# --- the example sketch on an ATmega328P ---------------------------------------------

ARDUINO_H = """\
/* A stand-in for the Arduino core's Arduino.h: Serial with begin, print and println,
   and nothing else, so a sketch that uses anything more does not compile. */
#ifndef ARDUINO_H
#define ARDUINO_H
class StandInSerial {
public:
    void begin(unsigned long baud);
    void print(const char *text);
    void print(int value);
    void print(double value, int digits);
    void println(const char *text);
    void println(int value);
    void println();
};
extern StandInSerial Serial;
void setup();
void loop();
#endif
"""

CORE_CPP = """\
/* The stand-in's Serial on the ATmega328P's USART0 (simavr shows it), and a main that
   runs setup() and loop() once, then stops the simulation (cli + sleep). */
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
#include "Arduino.h"

StandInSerial Serial;

static void put(char c)
{
    while (!(UCSR0A & (1 << UDRE0))) {
    }
    UDR0 = (uint8_t)c;
}

void StandInSerial::begin(unsigned long baud)
{
    uint16_t ubrr = (uint16_t)(F_CPU / 16 / baud - 1);
    UBRR0H = (uint8_t)(ubrr >> 8);
    UBRR0L = (uint8_t)ubrr;
    UCSR0B = (1 << TXEN0);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
}

void StandInSerial::print(const char *text)
{
    while (*text) {
        put(*text++);
    }
}

static void put_unsigned(unsigned long v)
{
    char digits[10];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n) {
        put(digits[--n]);
    }
}

void StandInSerial::print(int value)
{
    if (value < 0) {
        put('-');
    }
    put_unsigned(value < 0 ? (unsigned long)(-(long)value) : (unsigned long)value);
}

/* As the Arduino core's Print::printFloat prints a number (a float on the ATmega328P). */
void StandInSerial::print(double value, int digits)
{
    double rounding = 0.5;
    unsigned long whole;
    int i;
    if (value != value) {
        print("nan");
        return;
    }
    if (value > 4294967040.0 || value < -4294967040.0) {
        print("ovf");
        return;
    }
    if (value < 0) {
        put('-');
        value = -value;
    }
    for (i = 0; i < digits; i++) {
        rounding /= 10.0;
    }
    value += rounding;
    whole = (unsigned long)value;
    value -= (double)whole;
    put_unsigned(whole);
    put('.');
    for (i = 0; i < digits; i++) {
        value *= 10.0;
        put((char)('0' + (int)value));
        value -= (int)value;
    }
}

void StandInSerial::println(const char *text) { print(text); put('\\n'); }
void StandInSerial::println(int value) { print(value); put('\\n'); }
void StandInSerial::println() { put('\\n'); }

int main()
{
    setup();
    loop();
    cli();
    set_sleep_mode(SLEEP_MODE_PWR_DOWN);
    sleep_enable();
    sleep_cpu();
    for (;;) {
    }
}
"""

AVR = ["-mmcu=atmega328p", "-DF_CPU=16000000UL", "-Os", "-Wall", "-Wextra"]


def need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


def build_sketch(
    library: Path, work: Path, sketch_text: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Compile and link the example as the Arduino builder would, without its
    generated prototypes: the library's .c as C (avr-gcc), the .ino as C++ (avr-g++)
    after an #include of Arduino.h, against the stand-in core."""
    work.mkdir(exist_ok=True)
    (work / "Arduino.h").write_text(ARDUINO_H)
    (work / "core.cpp").write_text(CORE_CPP)
    (ino,) = (library / "examples").glob("*/*.ino")
    text = sketch_text if sketch_text is not None else ino.read_text()
    (work / "sketch.cpp").write_text(f'#include <Arduino.h>\n#line 1 "{ino.name}"\n{text}')
    inc = [f"-I{work}", f"-I{library / 'src'}"]
    cxx = ["avr-g++", *AVR, "-std=gnu++11", "-fno-exceptions", *inc, "-c"]
    steps = [
        ["avr-gcc", *AVR, "-std=gnu11", *inc, "-c", str(library / "src" / "predict.c")],
        [*cxx, str(work / "sketch.cpp")],
        [*cxx, str(work / "core.cpp")],
    ]
    steps = [[*cmd, "-o", str(work / (Path(cmd[-1]).stem + ".o"))] for cmd in steps]
    objects = [str(work / f"{stem}.o") for stem in ("sketch", "predict", "core")]
    steps.append(["avr-g++", *AVR, "-o", str(work / "sketch.elf"), *objects])
    for cmd in steps:
        p = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if p.returncode != 0 or p.stderr.strip():
            return p
    return p


def run_sketch(library: Path, work: Path) -> list[str]:
    """The lines the example prints on a simulated ATmega328P."""
    need("avr-gcc", "avr-g++", "simavr", "timeout")
    p = build_sketch(library, work)
    assert p.returncode == 0 and not p.stderr.strip(), p.stderr
    run = subprocess.run(
        ["timeout", "20", "simavr", "-m", "atmega328p", "-f", "16000000", str(work / "sketch.elf")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # simavr shows the UART on stderr, in colour, each newline as a final '.'.
    return [
        re.sub(r"\x1b\[[0-9;]*m", "", line).strip().removesuffix(".")
        for line in run.stderr.splitlines()
    ]


@pytest.mark.toolchain
def test_the_sketch_builds_for_the_atmega328p_and_prints_the_class(
    library: Path, tmp_path: Path
) -> None:
    lines = run_sketch(library, tmp_path / "build")
    model = cm.golf()
    cls = int(kind_of(model).predict(model, np.zeros((1, 4)))[0])
    assert f"class {cls} ({model.schema.classes[cls]})" in lines, lines


@pytest.mark.toolchain
def test_a_regressor_s_sketch_prints_its_values_bit_for_bit(tmp_path: Path) -> None:
    """A regressor's predict writes its outputs (no class): its sketch prints each
    output's value and float64 bits, the estimator's predict for the sketch's row."""
    pytest.importorskip("sklearn")
    est = fit_regressor("multi_tree")
    pkl, model, out = tmp_path / "multi.pkl", tmp_path / "multi.trees", tmp_path / "multi"
    pkl.write_bytes(pickle.dumps(est))
    assert main(["import-sklearn", str(pkl), "-o", str(model), "--target", "y", "-q"]) == 0
    assert main(["export", str(model), "-o", str(out), "--layout", "arduino", "-q"]) == 0
    lib = (out / "library.properties").read_text()
    assert "regressor of" in lib and "into 2 outputs" in lib and "classifier" not in lib
    lines = run_sketch(out, tmp_path / "build")
    X, _ = regression_data("multi_tree")
    want = np.asarray(est.predict(np.zeros((1, X.shape[1]))), dtype=np.float64).reshape(-1)
    for o, v in enumerate(want):
        bits = f"{int(np.float64(v).view(np.uint64)):016x}"
        (line,) = [ln for ln in lines if ln.startswith(f"y[{o}] = ")]
        assert line.endswith(f"(float64 0x{bits})"), (line, v)


@pytest.mark.toolchain
def test_an_integer_sketch_with_an_ignored_feature_prints_the_class(tmp_path: Path) -> None:
    """With --input-type int16 the sketch's row is integers (a float's 0.0f was never
    tried there), an ignored feature's cell is marked unused, and the class printed is
    the model's for that row."""
    golf = Path(__file__).resolve().parents[1] / "data" / "reference" / "golf" / "golf.arff"
    model, out = tmp_path / "golf.tree", tmp_path / "golf"
    assert main(["train", str(golf), "--ignore", "windy", "-o", str(model), "-q"]) == 0
    argv = ["export", str(model), "-o", str(out), "--layout", "arduino", "--input-type", "int16"]
    assert main([*argv, "-q"]) == 0
    (ino,) = (out / "examples").glob("*/*.ino")
    text = ino.read_text()
    assert "    0, /* outlook = sunny */\n" in text and "    0 /* windy (not used) */\n" in text
    assert "0.0" not in text
    lines = run_sketch(out, tmp_path / "build")
    tree = load_model(str(model))
    cls = int(kind_of(tree).predict(tree, np.zeros((1, 4)))[0])
    assert f"class {cls} ({tree.schema.classes[cls]})" in lines, lines


@pytest.mark.toolchain
def test_the_stand_in_has_nothing_but_serial(library: Path, tmp_path: Path) -> None:
    """A sketch using more of the core (delay) does not build against it, and neither
    does one that calls a helper before declaring it (the IDE would add a prototype)."""
    need("avr-gcc", "avr-g++")
    (ino,) = (library / "examples").glob("*/*.ino")
    text = ino.read_text()
    assert "Serial.begin(" in text and "Serial.println(" in text
    with_delay = text.replace("void loop()\n{\n", "void loop()\n{\n    delay(1000);\n")
    p = build_sketch(library, tmp_path / "delay", with_delay)
    assert p.returncode != 0 and "delay" in p.stderr
    helper = text.index("/* Prints 'class INDEX (NAME)'")
    end = text.index("void setup()")
    late = text[:helper] + text[end:] + text[helper:end]  # the helper after setup()
    p = build_sketch(library, tmp_path / "late", late)
    assert p.returncode != 0 and "golf_print_class" in p.stderr


def test_the_manifest_calls_a_regressor_s_predict_with_its_outputs(tmp_path: Path) -> None:
    """library.properties says how to call PREFIX_predict: a regressor's writes its
    outputs into y (``void PREFIX_predict(const PREFIX_input_t *x, double *y)``), so
    'Call multi_predict(x)' named a call that does not compile."""
    pytest.importorskip("sklearn")
    pkl, model, out = tmp_path / "multi.pkl", tmp_path / "multi.trees", tmp_path / "multi"
    pkl.write_bytes(pickle.dumps(fit_regressor("multi_tree")))
    assert main(["import-sklearn", str(pkl), "-o", str(model), "--target", "y", "-q"]) == 0
    assert main(["export", str(model), "-o", str(out), "--layout", "arduino", "-q"]) == 0
    lib = (out / "library.properties").read_text()
    header = (out / "src" / "predict.h").read_text()
    assert "void multi_predict(const multi_input_t *x, double *y);" in header
    assert "Call multi_predict(x, y) with the row x[MULTI_N_FEATURES] of multi_input_t" in lib
    assert "and its outputs y[MULTI_N_OUTPUTS] of double" in lib
