"""Growth and pruning in Release 8's own case order (docs/C45.md section 0).

Release 8's float sums of case weights run in the order of its case array, which
its grouping and sorting permute as it grows and prunes the tree.  This engine
keeps that array (:mod:`~.cases`, :mod:`~.order`) and does every step where
Release 8 does it: attribute evaluation (:mod:`~.evaluate`), ``FormTree``
(:mod:`~.grow`) and ``EstimateErrors`` (:mod:`~.prune`).  treegen.trainer.fit uses it
for the c45 flavour up to ``RELEASE8_ORDER_MAX_ROWS`` rows.
"""

from __future__ import annotations
