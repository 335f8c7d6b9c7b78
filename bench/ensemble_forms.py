"""The C each generator writes for a fitted ensemble, behind one API (bench/ensemble_bench.py).

Every form is a predict.c and predict.h with treegen's C interface, so one host
harness and treegen's firmware (treegen.firmware.sim.run_vectors) run them all::

    typedef float bench_input_t;                      /* BENCH_N_FEATURES floats */
    int bench_predict(const bench_input_t *x);        /* index into classes_ */
    int bench_vector(const bench_input_t *x, double *out);  /* where the tool has one */

``bench_vector`` writes the doubles the tool computes besides the class and returns
how many: a forest's ``predict_proba``, a boosted model's ``decision_function`` (the
raw scores; one for two classes).  The bench compares them with scikit-learn's by their
bits.  treegen's comes from a second export (``--proba`` or ``--scores``, the
``vector_files``: the measured form is the plain one); emlearn's C has float32
probabilities only (its loadable form), never scikit-learn's doubles, so it has none.

treegen's predict.c is its own (``--prefix bench``); its int16 forms of a forest
(``--input-type int16``, ``--prefix tg``, the header inlined) sit behind a
``bench_predict`` that hands ``(int16_t)x[i]`` over as emlearn's int16 forms do (a
form's ``input`` says which it takes; the bench hands an int16 form integers only).
For the others, predict.c holds
the generator's output as it wrote it (its includes inlined, so the file stands
alone) and a wrapper ``bench_predict`` that hands the floats over as the generator's
own API takes them and picks the class by the estimator's rule:

* emlearn (RandomForest, ExtraTrees): ``em_predict(features, n)``; its int16 forms get
  ``(int16_t)x[i]``, the conversion emlearn's own Python wrapper performs;
* m2cgen: ``score(double *input, double *output)``, ``input[i] = x[i]``; the class is the
  first largest output (forests: the mean probabilities);
* tl2cgen: ``predict(union Entry *data, int pred_margin, double *result)``, a NaN as
  ``missing = -1`` (what its DMatrix does), everything else ``fvalue = x[i]``; forests
  with ``pred_margin = 0`` (the mean probabilities, the first largest), boosted models
  with ``pred_margin = 1`` (the raw scores: the first largest, or for one output
  GradientBoosting's ``>= 0`` and HistGradientBoosting's ``> 0``, as ``predict`` decides).

A generator that refuses the model gives a form with ``error`` set (its message).
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORESTS = ("RandomForestClassifier", "ExtraTreesClassifier")

HEADER = """#ifndef BENCH_PREDICT_H
#define BENCH_PREDICT_H
#include <stdint.h>
typedef float bench_input_t;
#define BENCH_N_FEATURES {n_features}
#define BENCH_N_CLASSES {n_classes}
int bench_predict(const bench_input_t *x);
int bench_vector(const bench_input_t *x, double *out);
#endif
"""


@dataclass
class Form:
    """One generator's C for one model: predict.c and predict.h, or why there is none."""

    tool: str
    form: str
    files: dict[str, str]
    error: str = ""
    exact_by_design: bool = False  # the form claims estimator.predict's classes
    # "proba" or "scores": what bench_vector writes, in vector_files' predict.c ("": none).
    vector: str = ""
    vector_files: dict[str, str] | None = None
    # What the C takes: "float", or "int16" (int16_t features: handed the int16 rows,
    # ensemble_models.int16_rows, as ``(int16_t)x[i]``).
    input: str = "float"

    @property
    def label(self) -> str:
        return f"{self.tool} {self.form}"


def _header(est: Any) -> str:
    return HEADER.format(n_features=int(est.n_features_in_), n_classes=len(est.classes_))


def _failed(tool: str, form: str, exc: BaseException) -> Form:
    text = str(exc).strip().splitlines()
    msg = f"{type(exc).__name__}: {text[0] if text else ''}".strip().rstrip(":")
    return Form(tool, form, {}, error=msg[:100])


def vector_kind(est: Any) -> str:
    """What the estimator's doubles are: ``proba`` (a forest) or ``scores``."""
    return "proba" if type(est).__name__ in FORESTS else "scores"


def treegen_forms(est: Any) -> list[Form]:
    from treegen.codegen.options import ExportOptions
    from treegen.ensemble.sklearn import ensemble_from_sklearn
    from treegen.kinds.export import render

    try:
        ens = ensemble_from_sklearn(est)
    except Exception as exc:  # noqa: BLE001 -- any refusal is a result to report
        return [_failed("treegen", s, exc) for s in ("table", "ifs")]
    kind = vector_kind(est)
    proba = kind == "proba"
    fn, size = ("predict_proba", "N_PROBA") if proba else ("decision_function", "N_SCORES")
    wrapper = (
        "\nint bench_vector(const bench_input_t *x, double *out);\n"
        "int bench_vector(const bench_input_t *x, double *out)\n"
        f"{{\n    bench_{fn}(x, out);\n    return BENCH_{size};\n}}\n"
    )
    out = []
    for s in ("table", "ifs"):
        files = render(ens, ExportOptions(prefix="bench", style=s, name="predict")).files
        extra = ExportOptions(
            prefix="bench", style=s, proba=proba or None, scores=not proba, name="predict"
        )
        vec = dict(render(ens, extra).files)
        vec["predict.c"] += wrapper
        out.append(Form("treegen", s, files, "", True, kind, vec))
    return out


TREEGEN_INT16: dict[str, dict[str, Any]] = {
    # --input-type int16: integer compares, -32768 the missing value
    "ifs int16": {"missing": "c45"},
    # the same without missing values (each test one compare), emlearn's int16 contract
    "ifs int16 none": {"missing": "none"},
}


def _int16_call(fn: str, n: int, extra: str = "") -> str:
    """The body handing ``x`` to an int16_t function as emlearn's int16 forms get it."""
    return (
        f"    int16_t f[{n}]; int i;\n"
        f"    for (i = 0; i < {n}; i++) f[i] = (int16_t)x[i];\n"
        f"    return {fn}(f{extra});"
    )


def treegen_int16_forms(est: Any) -> list[Form]:
    """treegen's ifs C of a forest with int16_t input (``--input-type int16``, prefix
    ``tg``, its header inlined), behind ``bench_predict`` as emlearn's int16 forms are."""
    from treegen.codegen.options import ExportOptions
    from treegen.ensemble.sklearn import ensemble_from_sklearn
    from treegen.kinds.export import render

    try:
        ens = ensemble_from_sklearn(est)
    except Exception as exc:  # noqa: BLE001 -- any refusal is a result to report
        return [_failed("treegen", s, exc) for s in TREEGEN_INT16]
    n = int(est.n_features_in_)
    out = []
    for form, kw in TREEGEN_INT16.items():
        sources = []
        for proba in (None, True):
            opts = ExportOptions(
                prefix="tg", style="ifs", input_type="int16", proba=proba, name="tg", **kw
            )
            got = render(ens, opts).files
            body = got["tg.c"].replace('#include "tg.h"', got["tg.h"], 1)
            wrapper = (
                "\nint bench_predict(const bench_input_t *x)\n{\n"
                + _int16_call("tg_predict", n)
                + "\n}\n"
            )
            if proba:
                wrapper += (
                    "\nint bench_vector(const bench_input_t *x, double *out)\n{\n"
                    + _int16_call("tg_predict_proba", n, ", out").replace("return ", "")
                    + "\n    return TG_N_PROBA;\n}\n"
                )
            sources.append(
                {"predict.c": '#include "predict.h"\n' + body + wrapper, "predict.h": _header(est)}
            )
        out.append(Form("treegen", form, sources[0], "", True, "proba", sources[1], "int16"))
    return out


_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](eml_\w+\.h)[>"]\s*$', re.M)


def _inline_includes(text: str, folder: Path, done: set[str] | None = None) -> str:
    """``text`` with every ``#include <eml_*.h>`` replaced by the header (once each)."""
    done = set() if done is None else done

    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in done:
            return f"/* {name}: included above */"
        done.add(name)
        return _inline_includes((folder / name).read_text(), folder, done)

    return _INCLUDE.sub(one, text)


EMLEARN_FORMS: dict[str, dict[str, Any]] = {
    # inline float, hard voting: emlearn's smallest float form
    "inline float lb0": {"method": "inline", "dtype": "float", "leaf_bits": 0},
    # soft voting on 8-bit class proportions
    "inline float lb8": {"method": "inline", "dtype": "float", "leaf_bits": 8},
    # emlearn's defaults for a classifier: inline, int16_t features, hard voting
    "inline int16 (default)": {"method": "inline"},
    "loadable int16": {"method": "loadable", "dtype": "int16_t"},
}


def emlearn_forms(est: Any) -> list[Form]:
    import emlearn

    out = []
    n = int(est.n_features_in_)
    for form, kw in EMLEARN_FORMS.items():
        try:
            conv = emlearn.convert(est, **kw)
            text = conv.save(name="em", format="c")
        except Exception as exc:  # noqa: BLE001
            out.append(_failed("emlearn", form, exc))
            continue
        ctype = str(conv.dtype)
        body = _inline_includes(text, Path(emlearn.includedir))
        if ctype == "float":
            call = f"return (int)em_predict(x, {n});"
        else:
            call = (
                f"{ctype} f[{n}]; int i;\n"
                f"    for (i = 0; i < {n}; i++) f[i] = ({ctype})x[i];\n"
                f"    return (int)em_predict(f, {n});"
            )
        wrapper = f"\nint bench_predict(const bench_input_t *x)\n{{\n    {call}\n}}\n"
        source = '#include "predict.h"\n' + body + wrapper
        files = {"predict.c": source, "predict.h": _header(est)}
        out.append(Form("emlearn", form, files, input="float" if ctype == "float" else "int16"))
    return out


def _argmax(var: str, n: int) -> str:
    return (
        f"    {{ int c, best = 0;\n"
        f"      for (c = 1; c < {n}; c++) if ({var}[c] > {var}[best]) best = c;\n"
        f"      return best; }}\n"
    )


def m2cgen_forms(est: Any) -> list[Form]:
    import m2cgen

    try:
        text = m2cgen.export_to_c(est)
    except Exception as exc:  # noqa: BLE001 (RecursionError, NotImplementedError, ...)
        return [_failed("m2cgen", "C", exc)]
    n, k = int(est.n_features_in_), len(est.classes_)
    wrapper = (
        "\nint bench_predict(const bench_input_t *x)\n{\n"
        f"    double in[{n}], out[{k}]; int i;\n"
        f"    for (i = 0; i < {n}; i++) in[i] = x[i];\n"
        "    score(in, out);\n" + _argmax("out", k) + "}\n"
        "\nint bench_vector(const bench_input_t *x, double *out)\n{\n"
        f"    double in[{n}]; int i;\n"
        f"    for (i = 0; i < {n}; i++) in[i] = x[i];\n"
        f"    score(in, out);\n    return {k};\n}}\n"
    )
    source = '#include "predict.h"\n' + text + wrapper
    files = {"predict.c": source, "predict.h": _header(est)}
    # m2cgen's score writes predict_proba for a classifier (forests: their mean).
    kind = "proba" if type(est).__name__ in FORESTS else ""
    return [Form("m2cgen", "C", files, vector=kind, vector_files=files if kind else None)]


def tl2cgen_source(est: Any) -> str:
    """tl2cgen's C for the fitted ``est`` as one text: header.h, then every source
    without its include of it.  Raises whatever treelite or tl2cgen raises."""
    import tl2cgen
    import treelite

    model = treelite.sklearn.import_model(est)
    with tempfile.TemporaryDirectory(prefix="bench-tl2cgen-") as tmp:
        tl2cgen.generate_c_code(model, tmp, params={})
        files = {p.name: p.read_text() for p in Path(tmp).iterdir()}
    sources = sorted(f for f in files if f.endswith(".c"))
    return files["header.h"] + "".join(
        re.sub(r'^#include "header.h"$', "", files[s], flags=re.M) for s in sources
    )


def tl2cgen_forms(est: Any) -> list[Form]:
    kind = type(est).__name__
    try:
        body = tl2cgen_source(est)
    except Exception as exc:  # noqa: BLE001
        return [_failed("tl2cgen", "C", exc)]
    n, k = int(est.n_features_in_), len(est.classes_)
    margin = 0 if kind in FORESTS else 1
    width = k if k > 2 or kind in FORESTS else 1
    # The result array: N_TARGET * MAX_N_CLASS doubles (header.h).
    if width == 1:
        rule = ">= 0.0" if kind == "GradientBoostingClassifier" else "> 0.0"
        decide = f"    return r[0] {rule};\n"
    else:
        decide = _argmax("r", k)
    wrapper = (
        "\nstatic void bench_run(const bench_input_t *x, double *r)\n{\n"
        f"    union Entry d[{n}]; int i;\n"
        f"    for (i = 0; i < {n}; i++) {{\n"
        "        if (x[i] != x[i]) d[i].missing = -1; else d[i].fvalue = x[i];\n"
        "    }\n"
        "    for (i = 0; i < N_TARGET * MAX_N_CLASS; i++) r[i] = 0.0;\n"
        f"    predict(d, {margin}, r);\n}}\n"
        "\nint bench_predict(const bench_input_t *x)\n{\n"
        "    double r[N_TARGET * MAX_N_CLASS];\n"
        "    bench_run(x, r);\n" + decide + "}\n"
        "\nint bench_vector(const bench_input_t *x, double *out)\n{\n"
        "    double r[N_TARGET * MAX_N_CLASS]; int i;\n"
        "    bench_run(x, r);\n"
        f"    for (i = 0; i < {width}; i++) out[i] = r[i];\n"
        f"    return {width};\n}}\n"
    )
    source = '#include "predict.h"\n' + body + wrapper
    files = {"predict.c": source, "predict.h": _header(est)}
    # pred_margin 0 gives a forest's mean probabilities, 1 a boosted model's raw scores.
    return [Form("tl2cgen", "C", files, vector=vector_kind(est), vector_files=files)]


def all_forms(
    est: Any, tools: tuple[str, ...] = ("treegen", "emlearn", "m2cgen", "tl2cgen")
) -> list[Form]:
    """Every tool's forms for ``est``; emlearn only for the forests it reads."""
    out: list[Form] = []
    for tool in tools:
        if tool == "treegen":
            out += treegen_forms(est)
            if type(est).__name__ in FORESTS:
                out += treegen_int16_forms(est)
        elif tool == "emlearn":
            if type(est).__name__ in FORESTS:
                out += emlearn_forms(est)
            else:
                try:
                    import emlearn

                    emlearn.convert(est)
                    out.append(Form("emlearn", "-", {}, error="accepted, not benchmarked"))
                except Exception as exc:  # noqa: BLE001
                    out.append(_failed("emlearn", "-", exc))
        elif tool == "m2cgen":
            out += m2cgen_forms(est)
        elif tool == "tl2cgen":
            out += tl2cgen_forms(est)
    return out
