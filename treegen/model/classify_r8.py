"""Release 8's classifier in its own arithmetic, for the evaluations it prints (section 6).

:func:`treegen.model.classify.predict` gives a row that meets a missing value the
class the exported C gives it, from 15-bit fixed-point sums.  Release 8 sums in
C ``float``: a row's weight at a branch for an unknown value is ``(w * branch
items) / node items`` and a leaf adds ``w * dist[c] / items`` to each class's sum,
each step rounded to float, the leaves met in depth-first branch order; the class
is the first with the largest sum.  Near ties (about one row in a thousand with a
missing value) can go the other way in the two, so the error counts and confusion
matrices ``treegen eval`` prints for a c45 model come from this module: they are
the numbers Release 8 prints.  A row without a missing value reaches one leaf, and
both take its first largest class share (as a float here, a double in ``predict``):
the same class unless two shares differ by less than a float resolves.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import numpy.typing as npt

from treegen.model.classify import branches_of, classifier
from treegen.model.core import Leaf, Model

F32 = np.float32


def class_sums(model: Model, X: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    """Release 8's ``ClassSum`` per row (shape ``(n, classes)``, float32)."""
    n = X.shape[0]
    out = np.zeros((n, len(model.schema.classes)), dtype=F32)
    nodes = model.nodes
    stack: list[tuple[int, npt.NDArray[np.intp], npt.NDArray[np.float32]]] = [
        (0, np.arange(n, dtype=np.intp), np.ones(n, dtype=F32))
    ]
    while stack:
        i, rows, wt = stack.pop()
        node = nodes[i]
        if isinstance(node, Leaf):
            if node.items > 0:
                items = F32(node.items)
                for c, d in enumerate(node.dist):
                    if d:
                        out[rows, c] += (wt * F32(d)) / items
            else:
                out[rows, node.cls] += wt
            continue
        branch = branches_of(model, node, X[rows, node.attribute])
        unknown = branch < 0
        pushed = []
        for b, child in enumerate(node.children):
            sel = branch == b
            r, w = rows[sel], wt[sel]
            if unknown.any():
                share = (wt[unknown] * F32(nodes[child].items)) / F32(node.items)
                r = np.concatenate((r, rows[unknown]))
                w = np.concatenate((w, share.astype(F32)))
            if r.size:
                pushed.append((child, r, w))
        stack.extend(reversed(pushed))  # the first branch's leaves are added first
    return out


def predict_r8(model: Model, X: npt.ArrayLike) -> npt.NDArray[np.intp]:
    """The class Release 8 gives each row: the first largest of :func:`class_sums`."""
    x = np.asarray(X, dtype=np.float64)
    if x.shape[0] == 0:
        return np.zeros(0, dtype=np.intp)
    out: npt.NDArray[np.intp] = np.argmax(class_sums(model, x), axis=1).astype(np.intp)
    return out


def evaluation_classifier(model: Model) -> Callable[[npt.ArrayLike], npt.NDArray[np.intp]]:
    """The classes ``treegen eval`` counts errors by, for many blocks of rows: Release
    8's (:func:`predict_r8`) for a c45 tree, so that its counts are the ones Release 8
    prints; :func:`~treegen.model.classify.predict`'s for a j48 tree, whose are J48's
    (its C tables made once: :func:`~treegen.model.classify.classifier`)."""
    # (Summing only the rows with an unknown value this way, the rest in C, measured
    # no faster at 1M rows: numpy's cost here is per node visited, not per row.)
    if model.compares_float32:
        return partial(predict_r8, model)
    return classifier(model)
