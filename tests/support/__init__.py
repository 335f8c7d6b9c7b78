"""What the tests share, in one place: ``from support import ...`` (pytest puts ``tests/``
on the path).

* :mod:`support.cli`: :func:`~support.cli.run_cli` runs ``treegen ARGV`` in the
  test's process (exit status, stdout, stderr through ``capsys``),
  :func:`~support.cli.run_process` as a real ``python -m treegen`` process, and
  :func:`~support.cli.subcommands` lists the subcommands the parser defines.
* :mod:`support.modes`: the one table of export modes (input type, float
  compare, scale, missing value) the code-generation tests run through.
* :mod:`support.codegen_models`: hand-built models for the code-generation tests.
* :mod:`support.reftrees` (over :mod:`support.reftypes` and
  :mod:`support.refparse`): the printed trees of C4.5 Release 8 and Weka J48,
  and treegen's models, in one canonical order-free form for the golden and
  differential tests.
* :mod:`support.segments`: random nodes' continuous segments, scored by the C scan
  and by the numpy path, for the trainer's scoring tests.
* :mod:`support.floatbits`: floats compared as their IEEE bits (:func:`~support.floatbits.bits`,
  :func:`~support.floatbits.same_bits`), the one exact comparison: NaN payloads and
  signed zeros count.
* :mod:`support.batch`: many exported models (trees, ensembles) compiled into one
  shared library, each called through verify's own batch wrapper, for the fuzz tests.

The synthetic datasets the tests train on are a package feature,
:mod:`treegen.data.synthetic`, because the benchmark uses them too.
"""
