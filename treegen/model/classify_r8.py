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

import numpy as np
import numpy.typing as npt

from treegen.model.classify import branches_of, classifier, native_classifier
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
    """The class Release 8 gives each row: the first largest of :func:`class_sums`
    (with the C accelerator, the same classes from C: ``model/native/classify.c``)."""
    return release8_classifier(model)(X)


def predict_r8_numpy(model: Model, X: npt.ArrayLike) -> npt.NDArray[np.intp]:
    """:func:`predict_r8` without the C accelerator: the reference."""
    x = np.asarray(X, dtype=np.float64)
    if x.shape[0] == 0:
        return np.zeros(0, dtype=np.intp)
    out: npt.NDArray[np.intp] = np.argmax(class_sums(model, x), axis=1).astype(np.intp)
    return out


def release8_classifier(model: Model) -> Callable[[npt.ArrayLike], npt.NDArray[np.intp]]:
    """:func:`predict_r8` for many blocks of rows: the C accelerator's tables are made
    once (:func:`~treegen.model.classify.native_classifier`), then each call classifies
    one block (in numpy where C does not apply)."""
    run = native_classifier(model, release8=True) if model.compares_float32 else None

    def classify(X: npt.ArrayLike) -> npt.NDArray[np.intp]:
        x = np.asarray(X, dtype=np.float64)
        fast = None if run is None else run(x)
        return predict_r8_numpy(model, x) if fast is None else fast

    return classify


def evaluation_classifier(model: Model) -> Callable[[npt.ArrayLike], npt.NDArray[np.intp]]:
    """The classes ``treegen eval`` counts errors by, for many blocks of rows: Release
    8's (:func:`predict_r8`) for a c45 tree, so that its counts are the ones Release 8
    prints; :func:`~treegen.model.classify.predict`'s for a j48 tree, whose are J48's
    (its C tables made once: :func:`~treegen.model.classify.classifier`)."""
    return release8_classifier(model) if model.compares_float32 else classifier(model)
