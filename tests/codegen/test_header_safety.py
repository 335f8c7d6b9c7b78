"""predict.h answers what firmware engineers ask first: is predict reentrant and safe in
an interrupt handler, does it allocate, how much work and how deep a stack at worst.

The numbers come from the IR (treegen.codegen.costs): tests on the longest path; under
C4.5's rule the walks from the root with every value missing (one per leaf) and the
tests over all of them; the walk data on the stack and how deep calls nest.  Each is
checked here against an independent count: the leaves' depths in the IR, the walks the
C makes with every value missing (counted by instrumenting it), and the call chain of
the compiled object (gcc -O0, no inlining: the deepest it can be).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from treegen.codegen.costs import Costs, costs, path_costs
from treegen.codegen.emit import emit
from treegen.codegen.ir import IR, Leaf
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.firmware.objinfo import _calls
from treegen.firmware.targets import HOST
from treegen.model.core import Model
from treegen.verify.build import have_compiler

from support import codegen_models as cm

needs_gcc = pytest.mark.skipif(not have_compiler("gcc"), reason="gcc is not installed")


def _leaf_depths(ir: IR) -> list[int]:
    """Tests above each leaf, by walking down from the root (a second count)."""
    out, stack = [], [(0, 0)]
    while stack:
        i, d = stack.pop()
        node = ir.nodes[i]
        if isinstance(node, Leaf):
            out.append(d)
        else:
            stack += [(c, d + 1) for c in node.children]
    return out


@pytest.mark.parametrize(
    "make", [cm.golf, cm.tiny, lambda: cm.synthetic(4, 200), lambda: cm.chain(120)]
)
@pytest.mark.parametrize("missing", ["c45", "none"])
def test_path_costs_are_the_leaf_depths(make: object, missing: str) -> None:
    assert callable(make)
    ir = lower(make(), ExportOptions(prefix="m", missing=missing))  # type: ignore[arg-type]
    depths = _leaf_depths(ir)
    assert path_costs(ir) == (max(depths), len(depths), sum(depths))


def test_golf_header_states_it() -> None:
    header = emit(lower(cm.golf(), ExportOptions(prefix="golf")), "ifs")["predict.h"]
    text = " ".join(header.split())
    assert (
        "Calling golf_predict and golf_predict_proba: reentrant, so safe in several threads "
        "or interrupt handlers at once (nothing is kept between calls: every variable is "
        "local, every table constant); nothing is allocated and nothing recurses." in text
    )
    assert "2 tests on the longest path when no value is missing" in text
    assert "at most 5 walks from the root (one per leaf reached), 9 tests in all" in text
    # The state: a 32-bit weight, two 16-bit counters, 2 x 2 choices; two 32-bit sums.
    assert "Stack: 20 bytes of walk data" in text
    lean = emit(lower(cm.golf(), ExportOptions(prefix="golf", missing="none")), "ifs")
    # Under --missing none outlook's three codes are two comparisons, then humidity.
    assert "Worst case per call: 3 tests, the longest path." in " ".join(lean["predict.h"].split())


def _chain_depth(obj: Path, root: str) -> int:
    """Functions on the deepest call chain from ``root`` in the object (no recursion)."""
    calls = _calls(obj, HOST)
    memo: dict[str, int] = {}

    def depth(f: str) -> int:
        if f not in memo:
            memo[f] = 1 + max(
                (depth(g) for g in calls.get(f, ()) if g in calls or g.startswith("m_")), default=0
            )
        return memo[f]

    return depth(root)


CALL_CASES = [
    ("golf", "ifs", "c45"),
    ("golf", "table", "c45"),
    ("chain", "ifs", "c45"),  # 120 tests deep: walk functions split at 48
    ("alt", "ifs", "none"),  # member tests: PREFIX_in, PREFIX_key
    ("alt", "table", "none"),
    ("chain", "table", "none"),
]
MODELS = {"golf": cm.golf, "chain": lambda: cm.chain(120), "alt": lambda: cm.alternating(5, 7)}


@needs_gcc
@pytest.mark.parametrize(("which", "style", "missing"), CALL_CASES)
def test_nested_calls_bound_the_compiled_chain(
    which: str, style: str, missing: str, tmp_path: Path
) -> None:
    model: Model = MODELS[which]()
    opts = ExportOptions(prefix="m", style=style, missing=missing, float_compare="int")  # type: ignore[arg-type]
    files = emit(lower(model, opts), style)
    stated = int(
        re.search(r"at most (\d+) nested calls", " ".join(files["predict.h"].split())).group(1)
    )  # type: ignore[union-attr]
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    obj = tmp_path / "p.o"
    subprocess.run(
        ["gcc", "-O0", "-ffunction-sections", "-c", str(tmp_path / "predict.c"), "-o", str(obj)],
        check=True,
    )
    deepest = max(
        _chain_depth(obj, "m_predict"),
        _chain_depth(obj, "m_predict_proba") if "m_predict_proba" in files["predict.h"] else 0,
    )
    assert deepest <= stated, (deepest, stated)
    assert stated - deepest <= 2, (deepest, stated)  # a bound, and a close one


@needs_gcc
def test_walks_with_every_value_missing(tmp_path: Path) -> None:
    """The C's own count of walks from the root on an all-missing row is the number
    the header states (instrumented: a counter in PREFIX_walk0)."""
    model = cm.synthetic(4, 120)
    ir = lower(model, ExportOptions(prefix="m"))
    c: Costs = costs(ir, (), table=True)
    files = emit(ir, "table")
    src = files["predict.c"].replace(
        "static uint8_t m_walk0(", "static unsigned long walks;\nstatic uint8_t m_walk0("
    )
    src = re.sub(
        r"(static \w+ m_walk0\(const m_input_t \*x, m_state \*s\)\n\{\n)", r"\1    walks++;\n", src
    )
    assert "walks++" in src
    (tmp_path / "predict.h").write_text(files["predict.h"])
    (tmp_path / "predict.c").write_text(
        src
        + "\n#include <stdio.h>\n#include <math.h>\nint main(void) {\n"
        + "    m_input_t x[M_N_FEATURES];\n    int i;\n"
        + "    for (i = 0; i < M_N_FEATURES; i++) x[i] = NAN;\n"
        + '    (void)m_predict(x);\n    printf("%lu\\n", walks);\n    return 0;\n}\n'
    )
    exe = tmp_path / "a.out"
    subprocess.run(["gcc", str(tmp_path / "predict.c"), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    assert int(out) == c.walks == sum(isinstance(n, Leaf) for n in ir.nodes)
    assert f"at most {c.walks} walks from the root" in " ".join(files["predict.h"].split())
