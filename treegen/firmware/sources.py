"""Where the firmware examples' sources are: the installed package
``treegen.firmware_examples`` (top-level ``firmware_examples/`` in the checkout,
mapped by pyproject's package-dir), so the driver compiles the very files the
examples' READMEs and Makefiles use -- one copy of each."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

AVR_DIR = "avr-atmega328p"
CORTEX_M_DIR = "cortex-m"
RISCV_DIR = "riscv"  # with cortex-m/'s main.c, startup.h and icount.c
FAMILY_DIRS = {"avr": AVR_DIR, "cortex-m": CORTEX_M_DIR, "riscv": RISCV_DIR}
"""A target family's firmware folder."""


def examples_dir() -> Path:
    try:
        root = Path(str(importlib.resources.files("treegen.firmware_examples")))
        if (root / AVR_DIR / "main.c").is_file():
            return root
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parents[2] / "firmware_examples"
