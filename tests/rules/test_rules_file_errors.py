"""A ruleset file edited by hand, for the checks tests/data/broken/rules/ does not hold:
a set condition's values, a rule's error, confidence and conditions, the flavour, the
rules and class_order lists.  Each is one line naming the file, the line and the
field, exit 2, nothing on stdout."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import treegen
from treegen.rules.file import ruleset_to_json

from support.cli import refused_json
from support.weka import REF

Edit = Callable[[dict[str, Any]], None]


@pytest.fixture(scope="module")
def ruleset() -> dict[str, Any]:
    """vote's ruleset grown with value groups: its first rule's first condition is a set
    ("in")."""
    rs = treegen.train_rules(str(REF / "vote-r8" / "vote-r8.arff"), subsets=True)
    d: dict[str, Any] = json.loads(ruleset_to_json(rs))
    assert d["rules"][0]["conditions"][0]["op"] == "in"
    return d


def _cond(key: str, value: Callable[[list[int]], object]) -> Edit:
    def edit(d: dict[str, Any]) -> None:
        c = d["rules"][0]["conditions"][0]
        c[key] = value(c[key])

    return edit


def _rule(key: str, value: object) -> Edit:
    return lambda d: d["rules"][0].__setitem__(key, value)


RULE = "rules[0]"
CASES: list[tuple[Edit, str | None, str]] = [
    # (edit, the top-level key whose line it is, or None: the first rule's line; message)
    (
        _cond("values", lambda v: []),
        None,
        f"{RULE}.conditions[0].values: must be a non-empty list of value indices",
    ),
    (
        _cond("values", lambda v: [v[0], v[0]]),
        None,
        f"{RULE}.conditions[0].values: lists a value twice",
    ),
    (_rule("error", 1.5), None, f"{RULE}.error: must be a number from 0 to 1"),
    (_rule("confidence", True), None, f"{RULE}.confidence: must be a number from 0 to 1"),
    (_rule("conditions", {}), None, f"{RULE}.conditions: must be a list"),
    (lambda d: d.__setitem__("flavor", "cart"), '"flavor"', "flavor: must be one of c45, j48"),
    (lambda d: d.__setitem__("rules", {}), '"rules"', "rules: must be a list"),
    (
        lambda d: d.__setitem__("class_order", 0),
        '"class_order"',
        "class_order: must be a list of class indices",
    ),
]


@pytest.mark.parametrize(("edit", "key", "message"), CASES)
def test_a_ruleset_field_is_named_with_its_line(
    ruleset: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Edit,
    key: str | None,
    message: str,
) -> None:
    data = json.loads(json.dumps(ruleset))
    edit(data)
    bad = tmp_path / "bad.rules"
    text, err = refused_json(capsys, bad, data)
    if key is None:  # the line that opens the first rule's object, above its "number"
        line = text.count("\n", 0, text.index('"number"'))
    else:
        line = text.count("\n", 0, text.index(key)) + 1
    assert err == f"treegen: error: {bad}:{line}: {message}\n"


def test_a_rule_number_listed_twice_is_named_at_the_second(
    ruleset: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(json.dumps(ruleset))
    number = data["rules"][0]["number"]
    data["rules"][-1]["number"] = number  # the last rule repeats the first's number
    last = len(data["rules"]) - 1
    bad = tmp_path / "bad.rules"
    _, err = refused_json(capsys, bad, data)
    assert err.startswith(f"treegen: error: {bad}:")
    assert err.endswith(f": rules[{last}].number: rule {number} is listed twice\n")
