"""A committee file edited by hand: every check of its own fields (method, members,
betas, votes, shift) and of its members' agreement is one line naming the file, the
line of the field and the field, exit 2, nothing on stdout."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import treegen
from treegen.committee.file import committee_from_data, committee_to_json

from support.cli import refused_json, run_cli
from support.weka import REF

VOTE = str(REF / "vote-r8" / "vote-r8.arff")

Edit = Callable[[dict[str, Any]], None]
NOT_FINITE = "must be a finite number >= 0"


@pytest.fixture(scope="module")
def files() -> dict[str, dict[str, Any]]:
    """A boosted and a bagged j48 committee, and a c45 one (another flavour's members)."""
    made = {
        "boost": treegen.train(VOTE, flavor="j48", boost=3),
        "bag": treegen.train(VOTE, flavor="j48", bag=2),
        "c45": treegen.train(VOTE, boost=2),
    }
    return {k: json.loads(committee_to_json(c)) for k, c in made.items()}  # type: ignore[arg-type]


def _line(text: str, needle: str) -> int:
    """The 1-based line of the first ``needle``."""
    return text.count("\n", 0, text.index(needle)) + 1


def _set(key: str, value: object) -> Edit:
    return lambda d: d.__setitem__(key, value)


def _set_item(key: str, i: int, value: object) -> Edit:
    return lambda d: d[key].__setitem__(i, value)


CASES: list[tuple[str, Edit, str, str]] = [
    # (committee, edit, the line's key, message)
    ("boost", _set("method", "stack"), '"method"', "method: must be one of boost, bag"),
    ("boost", _set("members", []), '"members"', "members: must be a non-empty list of trees"),
    (
        "boost",
        lambda d: d["betas"].pop(),
        '"betas"',
        "betas: must be a list of 3 hexadecimal floats (one per member)",
    ),
    ("boost", _set_item("betas", 1, 3.1), '"betas"', "betas[1]: must be a string (float.hex)"),
    (
        "boost",
        _set_item("betas", 1, "0xzz"),
        '"betas"',
        "betas[1]: '0xzz' is not a hexadecimal float",
    ),
    # Past a double's range fromhex raises OverflowError, not ValueError (model fuzz case
    # boost:8150): it reached show as a traceback.
    (
        "boost",
        _set_item("betas", 1, "0x1p+1024"),
        '"betas"',
        "betas[1]: '0x1p+1024' is not a hexadecimal float",
    ),
    ("boost", _set_item("betas", 1, "-0x1p+0"), '"betas"', f"betas[1]: {NOT_FINITE}"),
    ("boost", _set_item("betas", 1, "inf"), '"betas"', f"betas[1]: {NOT_FINITE}"),
    # A beta of 2**40 beside betas near 3: no shift scales them into 32-bit sums.
    ("boost", _set_item("betas", 1, "0x1p+40"), '"betas"', "betas: too large for 32-bit vote sums"),
    (
        "boost",
        lambda d: d["votes"].pop(),
        '"votes"',
        "votes: must be a list of 3 integers (one per member)",
    ),
    (
        "boost",
        _set("votes", [2**30, 2**30, 2**30]),
        '"votes"',
        "votes: sum to more than 2147483647",
    ),
    (
        "bag",
        _set_item("betas", 0, "0x1.8p+0"),
        '"betas"',
        "betas: must all be 1 for a bagged committee",
    ),
    ("bag", _set("shift", 3), '"shift"', "shift: must be 0 for a bagged committee"),
    ("bag", _set_item("votes", 0, 2), '"votes"', "votes: must all be 1 for a bagged committee"),
]


@pytest.mark.parametrize(("which", "edit", "key", "message"), CASES)
def test_a_committee_field_is_named_with_its_line(
    files: dict[str, dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    which: str,
    edit: Edit,
    key: str,
    message: str,
) -> None:
    data = json.loads(json.dumps(files[which]))
    edit(data)
    bad = tmp_path / "bad.committee"
    text, err = refused_json(capsys, bad, data)
    assert err == f"treegen: error: {bad}:{_line(text, key)}: {message}\n"


def test_a_members_own_field_is_named_at_its_line(
    files: dict[str, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The member's error, as a tree file's, prefixed members[i], at that member's line."""
    data = json.loads(json.dumps(files["boost"]))
    data["members"][1]["nodes"] = []
    bad = tmp_path / "bad.committee"
    text, err = refused_json(capsys, bad, data, "info")
    # The second member's "nodes" (the first member's own comes before it).
    line = text.count("\n", 0, text.index('"nodes"', text.index('"nodes"') + 1)) + 1
    assert err == f"treegen: error: {bad}:{line}: members[1].nodes: must be a non-empty list\n"


def test_members_of_another_flavour_are_refused(
    files: dict[str, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A c45 member (float32 tests) among j48 members: the vote would mix arithmetics."""
    data = json.loads(json.dumps(files["boost"]))
    data["members"][1] = files["c45"]["members"][0]
    bad = tmp_path / "bad.committee"
    text, err = refused_json(capsys, bad, data)
    # The line that opens the second member's object.
    second = text.index('"format": "treegen-model"', text.index('"format": "treegen-model"') + 1)
    line = text.count("\n", 0, second)
    assert err == f"treegen: error: {bad}:{line}: members[1]: flavour differs from member 0's\n"


@pytest.mark.parametrize("compact", [False, True])
def test_a_member_without_its_format_line_is_named_at_its_own_line(
    files: dict[str, dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    compact: bool,
) -> None:
    """The members were found by their "format" lines: where one had lost it, every
    member's error was placed from the file's start (line 2, the committee's own
    "format"), not at the member."""
    data = json.loads(json.dumps(files["boost"]))
    del data["members"][1]["format"]
    bad = tmp_path / "bad.committee"
    text, err = refused_json(capsys, bad, data, indent=None if compact else 2)
    # Its "{" is on the line before its first key left, "version" (the whole file is
    # one line when compact).
    first = text.index('"version"', text.index('"members"'))
    line = 1 if compact else text.count("\n", 0, text.index('"version"', first + 1))
    message = 'members[1].format: not a treegen model file (expected "treegen-model")'
    assert err == f"treegen: error: {bad}:{line}: {message}\n"


def _text(data: dict[str, Any], layout: str) -> str:
    """The committee's text as treegen writes it, indented by json.dumps or on one line,
    after a decoy on its first line: an earlier "members" key, of one member (JSON's
    last one counts)."""
    if layout == "treegen":
        text = committee_to_json(committee_from_data(data, "", "c"))
    else:
        text = json.dumps(data, indent=None if layout == "compact" else 2)
    return '{"members": [{"version": 1}], ' + text[1:]


@pytest.mark.parametrize(
    "where", [(i, layout) for layout in ("treegen", "indented", "compact") for i in range(3)]
)
def test_each_members_error_is_at_that_members_line(
    files: dict[str, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str], where: Any
) -> None:
    """Member i's broken "version" is named at its own line, in every layout, past a
    decoy "members" list."""
    i, layout = where
    text = _text(files["boost"], layout)
    members = text.rindex('"members"')
    at = [m.start() for m in re.finditer('"version": 1', text) if m.start() > members][i]
    bad = tmp_path / "bad.committee"
    bad.write_text(text[:at] + '"version": 0' + text[at + len('"version": 1') :])
    code, out, err = run_cli(capsys, "show", str(bad))
    line = text.count("\n", 0, at) + 1
    assert (code, out) == (2, "")
    assert (
        err == f"treegen: error: {bad}:{line}: members[{i}].version: must be a positive integer\n"
    )


def test_a_member_that_is_no_object_is_named_at_its_line(
    files: dict[str, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(json.dumps(files["boost"]))
    data["members"][1] = 12345
    bad = tmp_path / "bad.committee"
    text, err = refused_json(capsys, bad, data)
    assert (
        err == f"treegen: error: {bad}:{_line(text, '12345')}: members[1]: must be a JSON object\n"
    )
