"""The ruleset file (``treegen rules -o``), and eval/predict/``treegen.load`` on it.

The broken-file cases (one FILE:LINE error, exit 2) are in tests/data/broken/rules/.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import treegen
from treegen.cli.main import main
from treegen.data.readers import read_dataset
from treegen.errors import ModelFileError
from treegen.rules.core import Condition, Rule, RuleSet, predict
from treegen.rules.file import (
    load_ruleset,
    ruleset_from_json,
    ruleset_to_json,
)
from treegen.rules.generate import generate
from treegen.trainer import TrainOptions, train

REF = Path(__file__).resolve().parents[1] / "data" / "reference"


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _final(name: str) -> RuleSet:
    ds = read_dataset(str(REF / name / f"{name}.data"))
    return generate(ds, train(ds, TrainOptions(prune=False)))[1]


def _saved(tmp_path: Path, name: str) -> Path:
    """``treegen rules`` on the reference set ``name``, saved with -o."""
    rules = tmp_path / f"{name}.rules"
    assert _run(["-q", "rules", str(REF / name / f"{name}.data"), "-o", str(rules)])[0] == 0
    return rules


@pytest.mark.parametrize("name", ["labor-neg", "vote-r8", "hypo", "crx"])
def test_round_trip_is_exact(name: str) -> None:
    rs = _final(name)
    text = ruleset_to_json(rs)
    back = ruleset_from_json(text)
    assert back == rs
    assert ruleset_to_json(back) == text
    # Thresholds survive bit for bit.
    cuts = [c.threshold for r in rs.rules for c in r.conditions if c.op in ("<=", ">")]
    again = [c.threshold for r in back.rules for c in r.conditions if c.op in ("<=", ">")]
    assert [t.hex() for t in cuts] == [t.hex() for t in again]


def test_cli_writes_the_final_ruleset(tmp_path: Path) -> None:
    data = REF / "vote-r8" / "vote-r8.data"
    out = tmp_path / "vote.rules"
    status, printed, err = _run(["rules", str(data), "-o", str(out)])
    assert status == 0 and f"wrote {out}" in err
    rs = load_ruleset(out)
    assert rs == _final("vote-r8")
    # The printed "Final rules" list rule 2, which the last step drops: the file has not got it.
    assert "\nRule 2:\n" in printed and 2 not in [r.number for r in rs.rules]
    d = json.loads(out.read_text())
    assert d["format"] == "treegen-rules" and d["version"] == 1
    assert d["class_order"] == [0, 1] and d["default"] == 0
    assert [r["confidence"] for r in d["rules"]] == [1.0 - r.error for r in rs.rules]


def test_rules_refuses_to_overwrite_its_data(tmp_path: Path) -> None:
    data = tmp_path / "golf.csv"
    data.write_text("a,b,class\n1,2,x\n3,4,y\n")
    status, _, err = _run(["rules", str(data), "-o", str(data)])
    assert status == 2 and "would overwrite the input file" in err
    assert data.read_text() == "a,b,class\n1,2,x\n3,4,y\n"


def test_predict_cli_equals_first_firing_rule(tmp_path: Path) -> None:
    rules = tmp_path / "labor.rules"
    test = REF / "labor-neg" / "labor-neg.test"
    assert (
        _run(["-q", "rules", str(REF / "labor-neg" / "labor-neg.data"), "-o", str(rules)])[0] == 0
    )
    status, out, _ = _run(["predict", str(rules), str(test), "--header"])
    assert status == 0
    rs = load_ruleset(rules)
    ds = read_dataset(str(test), schema=rs.schema)
    want = ["class"] + [rs.schema.classes[c] for c in predict(rs, ds.X)]
    assert out.splitlines() == want
    # By hand: the first rule whose conditions all hold, else the default.
    for x, got in zip(ds.X, out.splitlines()[1:], strict=True):
        cls = rs.default
        for r in rs.rules:
            ok = True
            for c in r.conditions:
                v = x[c.attribute]
                ok &= not math.isnan(v) and (v <= c.threshold if c.op == "<=" else v > c.threshold)
            if ok:
                cls = r.cls
                break
        assert got == rs.schema.classes[cls]


def test_predict_proba_and_unpruned_are_refused(tmp_path: Path) -> None:
    rules = tmp_path / "labor.rules"
    data = REF / "labor-neg" / "labor-neg.data"
    assert _run(["-q", "rules", str(data), "-o", str(rules)])[0] == 0
    status, _, err = _run(["predict", str(rules), str(data), "--proba"])
    assert status == 2 and err.startswith("treegen: error: --proba:") and err.count("\n") == 1
    status, _, err = _run(["eval", str(rules), str(data), "--unpruned", str(rules)])
    assert status == 2 and err.startswith("treegen: error: --unpruned:")


def test_eval_on_training_data_says_training(tmp_path: Path) -> None:
    rules = tmp_path / "vote.rules"
    data = REF / "vote-r8" / "vote-r8.data"
    assert _run(["-q", "rules", str(data), "-o", str(rules)])[0] == 0
    status, out, _ = _run(["eval", str(rules), str(data)])
    assert status == 0
    assert out.startswith("\n\nEvaluation on training data (300 items):\n")
    # The saved ruleset's table is the one c4.5rules prints after "Drop rule 2".
    ref = (REF / "vote-r8" / "c45rules.out").read_text()
    assert (
        out
        == "\n\nEvaluation on training data (300 items):\n"
        + ref[ref.index("Drop rule 2\n") + len("Drop rule 2\n") :]
    )


def test_missing_values_satisfy_no_condition() -> None:
    ds = read_dataset(str(REF / "golf" / "golf.data"))
    rs = RuleSet(
        ds.schema,
        (
            Rule(1, (Condition(2, "<=", threshold=75.0),), 0, 0.1),
            Rule(2, (Condition(2, ">", threshold=75.0),), 1, 0.1),
            Rule(3, (Condition(0, "=", value=0),), 1, 0.1),
        ),
        default=0,
    )
    X = np.array(
        [
            [np.nan, 70.0, np.nan, 0.0],  # humidity missing: neither <= nor >; outlook too
            [0.0, 70.0, np.nan, 0.0],  # outlook sunny: rule 3
            [2.0, 70.0, 75.0, 0.0],  # rule 1
            [2.0, 70.0, 75.00001, 0.0],  # rule 2 (float32(75.00001) > 75)
            [2.0, 70.0, 75.000001, 0.0],  # float32(75.000001) == 75: rule 1
            [7.0, 70.0, np.nan, 0.0],  # a code outside the values: not sunny
        ]
    )
    assert predict(rs, X).tolist() == [0, 1, 0, 1, 0, 0]


def test_api_load_returns_a_ruleset(tmp_path: Path) -> None:
    rules = tmp_path / "labor.rules"
    data = REF / "labor-neg" / "labor-neg.test"
    assert (
        _run(["-q", "rules", str(REF / "labor-neg" / "labor-neg.data"), "-o", str(rules)])[0] == 0
    )
    loaded = treegen.load(rules)
    assert isinstance(loaded, treegen.Model) and isinstance(loaded.value, RuleSet)
    status, out, _ = _run(["predict", str(rules), str(data)])
    assert loaded.predict(data).tolist() == out.splitlines()
    ds = read_dataset(str(data), schema=loaded.schema)
    with pytest.warns(UserWarning, match="valid feature names"):
        assert loaded.predict(ds.X).tolist() == out.splitlines()
    saved = loaded.save(tmp_path / "again.rules")
    assert saved.path == str(tmp_path / "again.rules")
    assert (tmp_path / "again.rules").read_text() == rules.read_text()


def test_a_model_file_is_still_a_model(tmp_path: Path) -> None:
    model = tmp_path / "golf.tree"
    assert _run(["-q", "train", str(REF / "golf" / "golf.data"), "-o", str(model)])[0] == 0
    assert isinstance(treegen.load(model), treegen.Model)


def test_show_prints_a_ruleset_as_c45rules_does(tmp_path: Path) -> None:
    rules = tmp_path / "labor.rules"
    assert (
        _run(["-q", "rules", str(REF / "labor-neg" / "labor-neg.data"), "-o", str(rules)])[0] == 0
    )
    status, out, _ = _run(["show", str(rules)])
    ref = (REF / "labor-neg" / "c45rules.out").read_text()
    assert status == 0
    assert out == ref[ref.index("\nFinal rules") : ref.index("\n\nEvaluation on training")]
    status, _, err = _run(["show", str(rules), "--format", "dot"])
    assert status == 2 and err.startswith("treegen: error: --format:") and err.count("\n") == 1


def test_ruleset_where_a_model_is_needed_is_one_line(tmp_path: Path) -> None:
    rules = tmp_path / "labor.rules"
    assert (
        _run(["-q", "rules", str(REF / "labor-neg" / "labor-neg.data"), "-o", str(rules)])[0] == 0
    )
    status, _, err = _run(["plot", str(rules), "-o", str(tmp_path / "t.svg")])
    assert status == 2 and err.count("\n") == 1
    assert f"{rules}: a ruleset has no tree to draw" in err
    assert not (tmp_path / "t.svg").exists()


def test_info_on_a_ruleset_counts_its_rules_and_conditions(tmp_path: Path) -> None:
    rules = tmp_path / "crx.rules"
    assert _run(["-q", "rules", str(REF / "crx" / "crx.data"), "-o", str(rules)])[0] == 0
    rs = load_ruleset(rules)
    assert isinstance(rs, RuleSet)
    status, out, _ = _run(["info", str(rules)])
    assert status == 0
    n_cond = sum(len(r.conditions) for r in rs.rules)
    assert out.startswith(f"rules {len(rs.rules)}, conditions {n_cond}, default class ")
    for k, name in enumerate(rs.schema.classes):
        assert re.search(rf"^  {re.escape(name)}\s+{sum(r.cls == k for r in rs.rules)}$", out, re.M)
    for a, attr in enumerate(rs.schema.attributes):
        used = sum(c.attribute == a for r in rs.rules for c in r.conditions)
        assert re.search(rf"^  {re.escape(attr.name)}\s+{used}  \(", out, re.M)
    assert f"data fingerprint: {rs.data_fingerprint}" in out and "cf=0.25" in out
    # No flash estimate, so no input type for it to assume: the option was ignored.
    status, out, err = _run(["info", str(rules), "--input-type", "int16"])
    assert (status, out) == (2, "") and err == (
        "treegen: error: --input-type: a ruleset has no flash estimate to assume an input "
        "type for (export it and compile it)\n"
    )


def test_info_on_a_ruleset_of_no_rule_says_none(tmp_path: Path) -> None:
    # A ruleset of its default class alone (one class in the data) printed the header
    # "rules with N conditions:" over nothing.
    (tmp_path / "one.names").write_text("yes, no.\na: continuous.\n")
    (tmp_path / "one.data").write_text("1,yes\n2,yes\n3,yes\n")
    rules = tmp_path / "one.rules"
    assert _run(["-q", "rules", str(tmp_path / "one.names"), "-o", str(rules)])[0] == 0
    assert load_ruleset(rules).rules == ()
    status, out, _ = _run(["info", str(rules)])
    assert status == 0 and "\nrules with N conditions: none\ntraining options: " in out


def test_tampered_threshold_is_caught() -> None:
    text = ruleset_to_json(_final("labor-neg"))
    bad = text.replace('"threshold": 2.5,', '"threshold": 2.6,', 1)
    assert bad != text
    with pytest.raises(ModelFileError, match=r"does not equal threshold_hex"):
        ruleset_from_json(bad, "x.rules")


def test_eval_on_data_without_a_class_value_is_the_one_line_error(tmp_path: Path) -> None:
    # A ruleset's eval printed "Tested 0, errors 0 (0.0%)" and exited 0 on rows that all
    # lack their class, where a tree's and a committee's eval refuse such data.
    rules = _saved(tmp_path, "labor-neg")
    rows = (REF / "labor-neg" / "labor-neg.test").read_text().splitlines()[:3]
    data = tmp_path / "unlabelled.data"
    data.write_text("".join(row.rsplit(",", 1)[0] + ",?\n" for row in rows))
    (tmp_path / "unlabelled.names").write_text((REF / "labor-neg" / "labor-neg.names").read_text())
    tree = tmp_path / "labor.tree"
    assert _run(["-q", "train", str(REF / "labor-neg" / "labor-neg.data"), "-o", str(tree)])[0] == 0
    want = _run(["eval", str(tree), str(data)])
    assert want[0] == 2 and want[2].startswith(f"treegen: error: {data}: no row has a value")
    assert _run(["eval", str(rules), str(data)]) == want


@pytest.mark.parametrize(
    "flags, recorded",
    [
        ([], {"cf": 0.25, "min_cases": 2}),
        (["--subsets"], {"cf": 0.25, "min_cases": 2, "subsets": True}),
        (["--criterion", "gain", "-m", "3"], {"cf": 0.25, "min_cases": 3, "criterion": "gain"}),
    ],
)
def test_the_file_records_how_the_tree_was_grown(
    tmp_path: Path, flags: list[str], recorded: dict[str, object]
) -> None:
    # --subsets and --criterion gain changed the rules but the file (and so `info`) said
    # nothing of them, as if the ruleset had come from the default tree.  A default
    # option stays out of the file, whose bytes are then those rules always wrote.
    rules = tmp_path / "soy.rules"
    data = REF / "soybean-r8" / "soybean-r8.data"
    assert _run(["-q", "rules", str(data), "-o", str(rules), *flags])[0] == 0
    assert json.loads(rules.read_text())["options"] == recorded
    status, out, _ = _run(["info", str(rules)])
    shown = ", ".join(f"{k}={v}" for k, v in recorded.items())
    assert status == 0 and f"training options: {shown}\n" in out
    api = treegen.train_rules(str(data), **{k: v for k, v in recorded.items() if k != "cf"})
    assert api.save(tmp_path / "api.rules").path is not None
    assert (tmp_path / "api.rules").read_bytes() == rules.read_bytes()
