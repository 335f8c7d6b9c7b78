"""Which C form each test takes: the one place that chooses (``views.TestForm``).

A tree's comparison node becomes a :class:`~treegen.codegen.views.Test` here, for the
C4.5 missing-value rule (:func:`c45_test`) or for ``--missing none``
(:func:`lean_test`); a ruleset's conditions take the same forms
(:mod:`treegen.rules.ccode`).  The templates write each form's C text once
(``templates/_macros.j2: condition``) and choose nothing.
"""

from __future__ import annotations

from treegen.codegen.ir import IR, Compare, Encoding, Member
from treegen.codegen.literals import c_hex32, compared_literal
from treegen.codegen.views import Cmp, MissingKind, Test, TestForm

CMP: dict[str, Cmp] = {"le": "<=", "lt": "<", "gt": ">", "ge": ">="}
"""A comparison op of the IR (or of a ruleset's condition) as C spells it."""

NEGATED: dict[str, Cmp] = {"le": ">", "lt": ">="}
"""The comparison a known value that fails ``le`` / ``lt`` passes (NaN fails both)."""

_SPLIT: dict[MissingKind, TestForm] = {
    "nan": "split_nan",
    "key": "split_key",
    "sentinel": "split_sentinel",
}


def missing_kind(enc: Encoding) -> MissingKind:
    """How a missing value of the input encoding looks in the C."""
    if enc.uses_keys:
        return "key"
    return "sentinel" if enc.is_int else "nan"


def c45_test(ir: IR, node: Compare, at: int) -> Test:
    """A comparison under C4.5's rule: a missing value chooses a branch with
    PREFIX_miss (its shares at ``at``); a folded test (``left``/``right``) only asks
    whether the value is missing."""
    enc = ir.encoding
    kind = missing_kind(enc)
    if node.op in ("le", "lt"):
        return Test(
            _SPLIT[kind],
            node.feature,
            keyed=enc.uses_keys,
            missing=kind,
            cmp=CMP[node.op],
            ncmp=NEGATED[node.op] if kind == "nan" else "",
            threshold=compared_literal(enc, node.threshold),
            at=at,
        )
    form: TestForm = "known_or_split" if node.op == "left" else "missing_and_split"
    return Test(form, node.feature, keyed=enc.uses_keys, missing=kind, at=at)


NEG_INF_BITS = 0xFF800000  # -inf's bit pattern; above it are the negative NaNs


def key_bits_test(key: int) -> tuple[TestForm, int]:
    """The lean ifs style's form of the key test ``key(x) <= key``, as a compare of
    x's bit pattern u (uint32) with the threshold's bits b, so the C needs no key
    function (a call on the AVR at -Os): ``("bits_pos", b)`` for a threshold t >= +0,
    tested as ``u <= b || (u >= 0x80000000 && u <= NEG_INF_BITS)`` (x <= t, or x
    negative and not NaN); ``("bits_neg", b)`` for t < +0, tested as ``u >= b && u <=
    NEG_INF_BITS`` (x negative, at least as far below 0 as t, and not NaN).  NaN of
    either sign fails both, as the none rule wants (its key is above every
    threshold); -0.0 keys just below +0.0, as in treegen.verify.oracle.float_keys."""
    # Thresholds are keys of non-NaN floats: key(-inf) = 0x007FFFFF .. key(+inf).
    assert 0x007FFFFF <= key <= NEG_INF_BITS, hex(key)
    if key >= 0x80000000:
        return "bits_pos", key & 0x7FFFFFFF
    return "bits_neg", ~key & 0xFFFFFFFF


def lean_test(ir: IR, i: int, sets: dict[int, int]) -> Test:
    """Test node ``i`` under ``--missing none``: ``x <= t`` goes left when true (float
    keys compare the value's bits with the threshold's, :func:`key_bits_test`); a
    member test's value goes left when its code is in its set (at ``sets[i]``)."""
    node = ir.nodes[i]
    if isinstance(node, Member):
        return Test("member", node.feature, at=sets[i], n_codes=node.n_codes)
    assert isinstance(node, Compare)
    enc = ir.encoding
    if enc.uses_keys:
        # A key threshold is above key(-inf) > 0, so lean_ir made it "le".
        assert node.op == "le"
        form, bits = key_bits_test(int(node.threshold))
        return Test(form, node.feature, threshold=c_hex32(bits))
    return Test(
        "cmp", node.feature, cmp=CMP[node.op], threshold=compared_literal(enc, node.threshold)
    )


ASSIGNS_K: frozenset[TestForm] = frozenset({"split_key", "bits_pos", "bits_neg"})
"""The forms that assign the walk function's local key/bits variable."""
