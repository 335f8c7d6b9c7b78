"""Code generation: a model to portable, exact C.

For a tree: ``lower`` (model -> :mod:`~.ir`, every comparison encoded for the chosen
input type, :mod:`~.options` being the typed export options) -> ``emit`` (the IR as
typed :mod:`~.views`, then through the Jinja2 templates in ``templates/``: nested ifs,
a static node table, or under ``--missing none`` the lean forms of :mod:`~.lean`).
:mod:`~.ctype` is the one table of the C scalar types, :mod:`~.keys` the float order
key, :mod:`~.literals` and :mod:`~.names` format every literal, identifier and comment.
Other kinds lower to their own forms on this machinery (a ruleset:
:mod:`treegen.rules.ccode`).  Writing the files is :mod:`treegen.kinds.export`'s,
checking them :mod:`treegen.verify`'s.
"""
