"""Golden tests: ``treegen rules`` against c4.5rules' own output (``c45rules.out``).

Release 8's ``c4.5rules -f NAME`` prints the ruleset and its training evaluation;
everything from "Final rules" on must be equal, text for text (line 2, the date,
and the header before it are not compared), on all nine reference sets (monk2 since
the description length codes a condition's attribute and value, docs/C45.md,
"c4.5rules").
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from treegen.data.readers import read_dataset
from treegen.rules.core import format_condition
from treegen.rules.generate import candidates, generate
from treegen.rules.show import format_rules, format_rules_evaluation
from treegen.trainer import TrainOptions, train
from treegen.trainer.stats import ErrorBound

REF = Path(__file__).resolve().parents[1] / "data" / "reference"
DATASETS = sorted(p.name for p in REF.iterdir() if (p / "c45rules.out").exists())


@functools.cache
def _ours_and_ref(name: str) -> tuple[str, str]:
    ds = read_dataset(str(REF / name / f"{name}.data"))
    printed, _ = generate(ds, train(ds, TrainOptions(prune=False)))
    ours = format_rules(printed) + format_rules_evaluation(
        printed, "training", ds.X, ds.y, drop=True
    )
    ref = (REF / name / "c45rules.out").read_text()
    return ours, ref[ref.index("\nFinal rules") :]


def test_all_nine_reference_sets_present() -> None:
    assert len(DATASETS) == 9


@pytest.mark.parametrize("name", DATASETS)
def test_rules_equal_release8(name: str) -> None:
    ours, ref = _ours_and_ref(name)
    assert ours == ref


def _printed_rules(name: str) -> dict[int, tuple[list[str], str, str]]:
    """Rule number -> (conditions, class, confidence) of the rules c45rules.out prints."""
    text = (REF / name / "c45rules.out").read_text()
    text = text[text.index("Final rules") : text.index("Default class")]
    pattern = r"Rule (\d+):\n((?:    \t.*\n)*)\t->  class (.*)  \[(.*)%\]"
    return {
        int(m.group(1)): ([c.strip() for c in m.group(2).splitlines()], m.group(3), m.group(4))
        for m in re.finditer(pattern, text)
    }


# On all nine sets the printed rules equal the candidates of the same numbers (steps 1-2
# of treegen.rules.generate; which candidates are chosen is steps 3-5).
@pytest.mark.parametrize("name", DATASETS)
def test_printed_rules_are_our_candidates(name: str) -> None:
    """Every rule c4.5rules prints is, under its number, one of our candidates: the same
    conditions in the same order, class and confidence."""
    ds = read_dataset(str(REF / name / f"{name}.data"))
    cands = candidates(ds, train(ds, TrainOptions(prune=False)), ErrorBound(0.25, "c45"))
    ours = {
        r.number: (
            [format_condition(c, ds.schema) for c in r.conditions],
            ds.classes[r.cls],
            f"{100 - 100 * r.error:.1f}",
        )
        for r in cands
    }
    ref = _printed_rules(name)
    assert {k: ours.get(k) for k in ref} == ref


TEST_SETS = [n for n in DATASETS if (REF / n / "c45rules_u.out").exists()]


@pytest.mark.parametrize("name", TEST_SETS)
def test_eval_on_test_set_equals_release8(name: str, tmp_path: Path) -> None:
    """``treegen rules -o`` then ``treegen eval RULES STEM.test``: c4.5rules -u's test block
    (the saved ruleset is the one after the "Drop rule" steps; vote-r8's rule 13, used by
    no test case, is not listed)."""
    import contextlib
    import io

    from treegen.cli.main import main

    rules = tmp_path / f"{name}.rules"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["-q", "rules", str(REF / name / f"{name}.data"), "-o", str(rules)]) == 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["eval", str(rules), str(REF / name / f"{name}.test")]) == 0
    ref = (REF / name / "c45rules_u.out").read_text()
    assert out.getvalue() == ref[ref.index("\n\nEvaluation on test data") :]


def _u_ref(name: str) -> str:
    """c4.5rules -u's output from "Final rules" on: the training block, then the test's."""
    ref = (REF / name / "c45rules_u.out").read_text()
    return ref[ref.index("\nFinal rules") :]


@pytest.mark.parametrize("name", TEST_SETS)
def test_cli_rules_evaluates_stem_test_as_release8_u(name: str, tmp_path: Path) -> None:
    """``treegen rules STEM.data`` with STEM.test beside it prints what ``c4.5rules -u``
    prints from "Final rules" on, its test block included (``treegen train`` evaluates
    STEM.test too; rules did not); the ruleset saved with -o is the same as without."""
    import contextlib
    import io

    from treegen.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["-q", "rules", str(REF / name / f"{name}.data")]) == 0
    assert "\n\nEvaluation on test data (" in out.getvalue()
    assert out.getvalue() == _u_ref(name)
    assert _u_ref(name).startswith(_ours_and_ref(name)[1].removesuffix("\n"))
    # STEM.test is one of the files rules reads: -o may not replace it.
    test = tmp_path / f"{name}.test"
    for ext in ("names", "data", "test"):
        test.with_suffix(f".{ext}").write_bytes((REF / name / f"{name}.{ext}").read_bytes())
    assert main(["-q", "rules", str(tmp_path / f"{name}.data"), "-o", str(test)]) == 2
    assert test.read_bytes() == (REF / name / f"{name}.test").read_bytes()


@pytest.mark.parametrize("name", DATASETS)
def test_cli_rules_prints_the_same(name: str, tmp_path: Path) -> None:
    """``treegen rules`` grows from the trainer's context, generalises on the values as
    float32 and evaluates with the rows it has: the same text as :func:`generate` and
    the evaluation from the values, and the same ruleset file (fingerprint included)."""
    import contextlib
    import io

    from treegen.cli.main import main
    from treegen.rules.file import ruleset_to_json

    out = io.StringIO()
    saved = tmp_path / "r.json"
    with contextlib.redirect_stdout(out):
        assert main(["--quiet", "rules", str(REF / name / f"{name}.data"), "-o", str(saved)]) == 0
    # With STEM.test beside, its block follows (test_cli_rules_evaluates_stem_test_...).
    assert out.getvalue() == (_u_ref(name) if name in TEST_SETS else _ours_and_ref(name)[0])
    ds = read_dataset(str(REF / name / f"{name}.data"))
    _, final = generate(ds, train(ds, TrainOptions(prune=False)))
    assert saved.read_text() == ruleset_to_json(final)


@pytest.mark.parametrize("name", DATASETS)
def test_generate_cover_is_cover_rows(name: str) -> None:
    """``treegen rules`` evaluates on the training data with the rows generate already
    has (``cover=``): they are the ones cover_rows works out, rule for rule."""
    import numpy as np

    from treegen.rules.core import cover_rows

    ds = read_dataset(str(REF / name / f"{name}.data"))
    cover: list[np.ndarray] = []
    printed, _ = generate(ds, train(ds, TrainOptions(prune=False)), cover=cover)
    want = cover_rows(printed.rules, ds.X, printed.compares_float32)
    assert len(cover) == len(want) == len(printed.rules)
    for got, expected in zip(cover, want, strict=True):
        assert got.dtype == expected.dtype
        assert np.array_equal(got, expected)


@pytest.mark.parametrize("name", DATASETS)
def test_select_lists_are_the_evaluations(name: str) -> None:
    """``treegen rules`` prints the final pass's rule lists as select made them
    (``lists=``): they are those the evaluation works out from the cases, list for list,
    and the saved ruleset is the last one's rules."""
    import numpy as np

    from treegen.rules.final import ListState, dropping
    from treegen.rules.generate import generalise, select

    ds = read_dataset(str(REF / name / f"{name}.data"))
    found = generalise(ds, train(ds, TrainOptions(prune=False)), 0.25)
    cover: list[np.ndarray] = []
    lists: list[ListState] = []
    printed, final = select(found, ds.y, ds.schema, ds.fingerprint(), None, cover, lists)
    want = dropping(cover, [r.cls for r in printed.rules], printed.default, ds.y, drop=True)
    assert len(lists) == len(want) >= 1
    for got, expected in zip(lists, want, strict=True):
        for field in ("index", "fired", "gain", "loss"):
            assert np.array_equal(getattr(got, field), getattr(expected, field))
    assert final.rules == tuple(printed.rules[i] for i in lists[-1].index)
