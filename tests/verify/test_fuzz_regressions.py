"""Each failure the hardening fuzzers found, as a named test."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.dataset import Attribute, Schema
from treegen.model.core import ContinuousTest, Leaf, Model
from treegen.model.options import ModelOptions, TrainOptions
from treegen.verify.inputs import comparison_inputs


def _one_test(threshold: float, flavor: str) -> Model:
    schema = Schema((Attribute("x", "continuous"),), ("a", "b"), "class")
    nodes = (
        ContinuousTest(0, 2.0, 0.0, (1.0, 1.0), attribute=0, threshold=threshold, children=(1, 2)),
        Leaf(0, 1.0, 0.0, (1.0, 0.0)),
        Leaf(1, 1.0, 0.0, (0.0, 1.0)),
    )
    return Model(schema, nodes, ModelOptions(TrainOptions(flavor=flavor)))


def test_double_threshold_beyond_float32_makes_inputs_without_overflow_warning() -> None:
    # fuzz case (15, 22), mode ifs-double: a j48 threshold of 1e300 rounded to float32
    # warned "overflow encountered in cast" (an error under pytest, noise in verify).
    ir = lower(_one_test(1e300, "j48"), ExportOptions(input_type="double"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = comparison_inputs(ir)
    assert (rows[:, 0] == 1e300).any()


def test_export_of_threshold_beyond_float32_does_not_warn() -> None:
    # fuzz case (15, 26), mode ifs-*: the comment text of a j48 threshold -1e300 was made
    # from np.float32(-1e300), which warned "overflow encountered in cast" on export.
    from treegen.codegen.emit import emit

    ir = lower(_one_test(-1e300, "j48"), ExportOptions(input_type="double"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        files = emit(ir, "ifs")
    assert "x <= -1e+300" in files["predict.c"]


def test_lean_export_of_a_test_below_every_finite_float_does_not_warn() -> None:
    # fuzz case (15, 6), mode table-float-missing-none: a j48 threshold -1e300 on float
    # input lowers to x < -FLT_MAX; rewriting that as x <= (the float below -FLT_MAX)
    # took nextafter into -inf, which warned "overflow encountered in nextafter".
    from treegen.codegen.emit import emit
    from treegen.errors import EmitError
    from treegen.verify.oracle import evaluate

    model = _one_test(-1e300, "j48")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ir = lower(model, ExportOptions(missing="none"))
        files = emit(ir, "ifs")
        # The compact table has only x <= t rows: the strict test is refused, by name.
        with pytest.raises(EmitError, match=r"model node 0: a test x < -FLT_MAX does not fit"):
            emit(ir, "table")
    assert "predict" in files["predict.c"]
    # Only -inf is below the threshold: the lean IR keeps the strict test.
    cls, _ = evaluate(ir, np.asarray([[-np.inf], [np.finfo(np.float32).min], [0.0]]))
    assert cls.tolist() == [0, 1, 1]


def test_float32_floor_just_below_the_float32_range_does_not_warn() -> None:
    # Found by the fast reader's work: a threshold within half a float32 step below -FLT_MAX
    # casts to -FLT_MAX, and the step down to -inf warned "overflow in nextafter".
    from treegen.model.bounds import float32_floor

    t = -(float(np.finfo(np.float32).max) + 1e30)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float32_floor(t) == -np.inf
        assert float32_floor(-float(np.finfo(np.float32).max)) == -float(np.finfo(np.float32).max)
        model = _one_test(t, "c45")
        lower(model, ExportOptions())
