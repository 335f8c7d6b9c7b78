"""An estimate of the flash a model's ``predict.c`` takes, without compiling it.

The one place this estimate lives (``treegen info`` prints it); when the C
encoding changes, refit the constants here.  The model: flash =
``base`` (the classifier's code) + ``per_node`` x nodes (the node table) +
``per_leaf_class`` x leaves x classes (the Q15 leaf probabilities) +
(width - 4) x continuous tests (a threshold is stored in the input type, and
the constants were fitted with 4-byte floats).  The constants were fitted by
least squares to ``size`` (text + data) of ``--style table`` exports of the
golf, crx, hypo and soybean-r8 reference trees compiled with ``-Os``
(avr-gcc -mmcu=atmega328p; arm-none-eabi-gcc -mcpu=cortex-m0 -mthumb), refitted when
the weights and shares became 31-bit (4-byte shares, the Q31 product); on those four
the estimate is within 6% of the compiled size.  It is an estimate:
compile (``treegen export --report`` where available) for the real number.
"""

from __future__ import annotations

from dataclasses import dataclass

from treegen.codegen.ctype import TYPES
from treegen.model.core import Model


@dataclass(frozen=True, slots=True)
class FlashModel:
    """The fitted cost of one target, in bytes."""

    target: str
    base: float
    per_node: float
    per_leaf_class: float


TARGETS: tuple[FlashModel, ...] = (
    FlashModel("avr (atmega328p, -Os)", 1571.0, 5.66, 1.51),
    FlashModel("cortex-m0 (thumb, -Os)", 701.0, 6.01, 1.38),
)


def input_width(input_type: str) -> int:
    """Bytes of one input value of ``input_type`` (float 4, double 8, intN N/8)."""
    assert input_type in TYPES, input_type
    return TYPES[input_type].bits // 8


def estimate_flash(model: Model, input_type: str = "float") -> dict[str, int]:
    """Estimated flash bytes of the model's table-style ``predict.c`` per target."""
    nodes = len(model.nodes)
    leaves = model.n_leaves
    classes = len(model.schema.classes)
    continuous = sum(1 for n in model.nodes if n.kind == "continuous")
    extra = (input_width(input_type) - 4) * continuous
    return {
        t.target: round(t.base + t.per_node * nodes + t.per_leaf_class * leaves * classes + extra)
        for t in TARGETS
    }
