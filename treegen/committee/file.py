"""The committee file (format ``treegen-committee``): JSON, its trees as tree files.

Layout::

    {
      "format": "treegen-committee", "version": 1,
      "treegen_version": ..., "data_fingerprint": ..., "options": {...},
      "method": "boost",                 (or "bag")
      "stopped": "",                     (why boosting made fewer rounds than asked)
      "shift": 27,                       (the integer votes' scale, 2**shift)
      "betas": ["0x1.9087...p+0", ...],  (the double vote weights, float.hex)
      "votes": [210068529, ...],         (the integer vote weights)
      "members": [
        {a whole tree file (treegen.model.file), one node per line},
        ...
      ]
    }

Each member is a complete ``treegen-model`` object, checked as a tree file is
(:func:`treegen.model.check.check_model_dict`); the members must share their attributes,
classes and flavour.  :func:`committee_from_data` checks every field and raises one
:class:`~treegen.errors.ModelFileError` naming the field and its line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from treegen.committee.core import METHODS, Committee
from treegen.committee.vote import MAX_SHIFT, VOTE_LIMIT, integer_votes
from treegen.errors import ModelFileError
from treegen.model.check import (
    InvalidField,
    as_int,
    as_object,
    as_str,
    check_header,
    check_keys,
    check_labels_field,
    hex_float,
)
from treegen.model.core import Model
from treegen.model.file import model_from_data, model_to_json
from treegen.model.jsontext import field_error

_Scan = Callable[[str, int], tuple[Any, int]]  # the JSON scanner: a value and its end

FORMAT = "treegen-committee"
VERSION = 1
_TOP = {
    "format", "version", "treegen_version", "data_fingerprint", "options", "method",
    "stopped", "shift", "betas", "votes", "members",
}  # fmt: skip


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def committee_to_json(c: Committee) -> str:
    """The file's text (deterministic: the same committee gives the same bytes)."""
    head = [
        "{",
        f'  "format": {_dumps(FORMAT)},',
        f'  "version": {VERSION},',
        f'  "treegen_version": {_dumps(c.treegen_version)},',
        f'  "data_fingerprint": {_dumps(c.data_fingerprint)},',
        f'  "options": {_dumps(c.options)},',
        f'  "method": {_dumps(c.method)},',
        f'  "stopped": {_dumps(c.stopped)},',
        f'  "shift": {c.shift},',
        f'  "betas": {_dumps([float(b).hex() for b in c.betas])},',
        f'  "votes": {_dumps(list(c.votes))},',
        '  "members": [',
    ]
    members = []
    for m in c.members:
        text = model_to_json(m).rstrip("\n")
        members.append("\n".join("    " + line for line in text.split("\n")))
    return "\n".join(head) + "\n" + ",\n".join(members) + "\n  ]\n}\n"


def _member_spans(text: str) -> list[tuple[int, int]]:
    """Where each member lies in the file ``text`` (character offsets, its first
    character to past its last): the items of the decoded ``"members"`` list, whose
    places the JSON decoder's Python scanner reports as it decodes ``text`` again.

    So a member is found wherever it is and whatever it lacks (matching the members'
    ``"format"`` lines put every member at the file's start when one had lost that
    line), and a repeated ``"members"`` key's last list is the one decoded.  Called for
    an error only: the Python scanner is several times slower than the C one.
    """
    items: dict[int, list[tuple[int, int]]] = {}  # by the id of each decoded list

    def parse_array(
        s_and_end: tuple[str, int], scan_once: _Scan, *hooks: Any
    ) -> tuple[list[Any], int]:
        spans: list[tuple[int, int]] = []

        def scan(s: str, i: int) -> tuple[Any, int]:  # one item, from its first character
            value, end = scan_once(s, i)
            spans.append((i, end))
            return value, end

        array, end = json.decoder.JSONArray(s_and_end, scan, *hooks)  # type: ignore[attr-defined]
        items[id(array)] = spans  # (over a list freed before, whose id it reuses)
        return array, end

    decoder = json.JSONDecoder()
    decoder.parse_array = parse_array  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    return items[id(decoder.decode(text)["members"])]


def _member(raw: Any, i: int, text: str, filename: str) -> Model:
    """Member ``i`` (decoded ``raw``), checked as a tree file; its error names the
    member and the file's line."""
    try:
        return model_from_data(raw, "", filename)  # the text places an error only
    except ModelFileError:
        lo, hi = _member_spans(text)[i]
    try:
        model_from_data(raw, text[lo:hi], filename)  # the same error, at its line
    except ModelFileError as err:
        line = text.count("\n", 0, lo) + (err.line or 1)
        # A tree file's error names a field, but where the whole value is no object.
        field = f"members[{i}]" + ("." if isinstance(raw, dict) else ": ")
        raise ModelFileError(field + err.message, file=filename, line=line) from None
    raise AssertionError("a member's check passed the second time")


def committee_from_data(data: Any, text: str, filename: str) -> Committee:
    """Validate the decoded committee file ``data`` and build the Committee."""
    try:
        d = check_header(data, FORMAT, VERSION, "committee")
        check_keys(d, _TOP, "")
        as_str(d["treegen_version"], "treegen_version")
        as_str(d["data_fingerprint"], "data_fingerprint")
        options = as_object(d["options"], "options")
        method = d["method"]
        if method not in METHODS:
            raise InvalidField("method", f"must be one of {', '.join(METHODS)}")
        stopped = as_str(d["stopped"], "stopped")
        shift = as_int(d["shift"], "shift", 0, MAX_SHIFT + 1)
        members_raw = d["members"]
        if not isinstance(members_raw, list) or not members_raw:
            raise InvalidField("members", "must be a non-empty list of trees")
        n = len(members_raw)
        betas = _betas(d["betas"], n)
        votes = _votes(d["votes"], n, method)
        _check_votes_follow_betas(method, betas, votes, shift)
    except InvalidField as err:
        raise field_error(err, text, filename) from None
    members = [_member(raw, i, text, filename) for i, raw in enumerate(members_raw)]
    first = members[0]
    for i, m in enumerate(members[1:], 1):
        problem = ""
        if m.schema != first.schema:
            problem = "attributes or classes differ from member 0's"
        elif m.compares_float32 != first.compares_float32:
            problem = "flavour differs from member 0's"
        if problem:
            line = text.count("\n", 0, _member_spans(text)[i][0]) + 1  # its "{"'s line
            raise ModelFileError(f"members[{i}]: {problem}", file=filename, line=line)
    try:
        check_labels_field(options, list(first.schema.classes))
    except InvalidField as err:
        raise field_error(err, text, filename) from None
    return Committee(
        schema=first.schema,
        method=method,
        members=tuple(members),
        betas=betas,
        votes=votes,
        shift=shift,
        options=dict(options),
        treegen_version=d["treegen_version"],
        data_fingerprint=d["data_fingerprint"],
        stopped=stopped,
    )


def _betas(value: Any, n: int) -> tuple[float, ...]:
    if not isinstance(value, list) or len(value) != n:
        raise InvalidField("betas", f"must be a list of {n} hexadecimal floats (one per member)")
    out = []
    for i, b in enumerate(value):
        if not isinstance(b, str):
            raise InvalidField(f"betas[{i}]", "must be a string (float.hex)")
        x = hex_float(b)
        if x is None:
            raise InvalidField(f"betas[{i}]", f"'{b}' is not a hexadecimal float")
        if not math.isfinite(x) or x < 0:
            raise InvalidField(f"betas[{i}]", "must be a finite number >= 0")
        out.append(x)
    return tuple(out)


def _check_votes_follow_betas(
    method: str, betas: tuple[float, ...], votes: tuple[int, ...], shift: int
) -> None:
    """The integer votes are the betas' (integer_votes; a bag's all 1 at shift 0): the C
    and predict sum the votes, show and the double vote the betas, so hand-edited votes
    would make them disagree."""
    if method == "bag":
        if any(b != 1.0 for b in betas):
            raise InvalidField("betas", "must all be 1 for a bagged committee")
        if shift != 0:
            raise InvalidField("shift", "must be 0 for a bagged committee")
        return
    try:
        expected = integer_votes(betas)
    except ValueError:
        raise InvalidField("betas", "too large for 32-bit vote sums") from None
    if (votes, shift) != expected:
        raise InvalidField("votes", "are not the betas scaled by 2**shift and rounded")


def _votes(value: Any, n: int, method: str) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != n:
        raise InvalidField("votes", f"must be a list of {n} integers (one per member)")
    votes = tuple(as_int(v, f"votes[{i}]", 1, VOTE_LIMIT + 1) for i, v in enumerate(value))
    if sum(votes) > VOTE_LIMIT:
        raise InvalidField("votes", f"sum to more than {VOTE_LIMIT}")
    if method == "bag" and any(v != 1 for v in votes):
        raise InvalidField("votes", "must all be 1 for a bagged committee")
    return votes
