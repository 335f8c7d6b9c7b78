"""The committee kind: C4.5 trees that vote, boosted (AdaBoost.M1) or bagged, as Weka's
``AdaBoostM1 -W J48`` and ``Bagging -W J48`` build them.

The value and its vote (``core``, ``vote``: integer arithmetic shared by Python and the
exported C), training (``boost``, ``bag``), a J48 tree's answers in Weka's double
arithmetic (``weka``), the file (``file``), printing (``show``), the C (``ccode``: every
member through the tree's code generator, then the vote) and verify's rows and
comparison (``check``).
"""
