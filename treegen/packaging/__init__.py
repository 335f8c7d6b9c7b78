"""The exported C as a package for a firmware build system, written with predict.c and
predict.h in one all-or-nothing write: a CMake library (``export --cmake``), an Arduino
and PlatformIO library (``--layout arduino``) and a Zephyr module (``--layout zephyr``).

* :mod:`~treegen.packaging.library` -- what every layout writes about an export (names,
  interface, provenance) and where each layout puts its files;
* :mod:`~treegen.packaging.cmake`, :mod:`~treegen.packaging.arduino` (with the example
  sketch, :mod:`~treegen.packaging.sketch`) and :mod:`~treegen.packaging.zephyr` -- the
  files of each;
* :mod:`~treegen.packaging.cli` -- the options of ``treegen export``.
"""
