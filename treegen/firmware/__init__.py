"""The generated C on simulated microcontrollers: the firmware examples' driver.

* :mod:`~treegen.firmware.targets` -- the chips (``avr``, ``m0plus``, ``m3``, ``m4f``,
  ``rv32imc``, ``rv32imafc``), their compilers and simulators, and the one-line error
  when one is missing;
* :mod:`~treegen.firmware.build` -- compile ``firmware_examples/`` with a generated
  predict.c and link it with the rows as vectors.c, one image per chunk of rows;
* :mod:`~treegen.firmware.sim` -- run those images under ``timeout``, parse what they
  print (:func:`~treegen.firmware.sim.run_vectors`);
* :mod:`~treegen.firmware.parity` -- ``treegen verify --on``;
* :mod:`~treegen.firmware.objinfo` and :mod:`~treegen.firmware.report` -- flash,
  RAM and stack bound of predict.o (``treegen export --report``);
* :mod:`~treegen.firmware.check` -- ``make firmware``.
"""
