"""Flash of the exported C per style and mode: ``python bench/lean_sizes.py``.

Trees: treegen trained on treegen.data.synthetic data (20 continuous attributes,
3 classes, 10% label noise, no missing values) with ``-m 1 --no-prune``, at two sizes
(649 and 6,901 nodes).  Each is exported ifs/table x lean (``--missing none``)
/full (default), float and int16 input, compiled with
``arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb -Os -c`` (the lean table with
``--inline-top 0``: the table alone); the table gives
.text+.rodata+.data of predict.o, bytes per test of the lean table, the
``avr-gcc -mmcu=atmega328p -Os`` size of the lean table (and its .data+.bss), and
the mismatches ``verify`` finds.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Literal

from treegen.api import train
from treegen.codegen.emit import emit
from treegen.codegen.ir import Compare
from treegen.codegen.lower import lower
from treegen.codegen.options import ExportOptions
from treegen.data.synthetic import Spec, generate
from treegen.kinds.check import verify

SIZES = {"s500": 1500, "s6900": 25000}  # rows: 649 and 6,901 nodes


def size(tool: str, flags: list[str], src: Path, out: Path) -> dict[str, int]:
    subprocess.run([tool, *flags, "-Os", "-c", str(src), "-o", str(out)], check=True)
    text = subprocess.run(
        [tool.replace("gcc", "size"), "-A", str(out)], check=True, capture_output=True, text=True
    ).stdout
    return {
        p[0]: int(p[1])
        for p in (line.split() for line in text.splitlines())
        if len(p) >= 2 and p[0].startswith(".") and p[1].isdigit()
    }


def main() -> int:
    rows = []
    for name, n in SIZES.items():
        ds = generate(Spec(n, 20, 0, 3, 0.0, 0.10, 7, seed=1))
        tree = train((ds.X, ds.y), min_cases=1, prune=False).value
        itype: Literal["float", "int16"]
        for itype in ("float", "int16"):
            # int16: x stands for x/10 (the attributes stay within +-951, some with
            # full precision: those are rounded); verify proves the exact cuts.
            for style in ("ifs", "table"):
                for mode in ("lean", "full"):
                    opts = ExportOptions(
                        prefix="m",
                        style=style,
                        missing="none" if mode == "lean" else "c45",
                        # The table alone: its bytes per test against the limit.
                        inline_top=0 if (style, mode) == ("table", "lean") else None,
                        input_type="int16" if itype == "int16" else "float",
                        scale=Fraction(10) if itype == "int16" else None,
                    )
                    ir = lower(tree, opts)
                    with tempfile.TemporaryDirectory() as tmp:
                        d = Path(tmp)
                        for fname, text in emit(ir, style).items():
                            (d / fname).write_text(text)
                        arm = size(
                            "arm-none-eabi-gcc",
                            ["-mcpu=cortex-m0plus", "-mthumb"],
                            d / "predict.c",
                            d / "arm.o",
                        )
                        avr = size("avr-gcc", ["-mmcu=atmega328p"], d / "predict.c", d / "avr.o")
                    flash = sum(arm.get(s, 0) for s in (".text", ".rodata", ".data"))
                    avr_flash = sum(
                        v
                        for k, v in avr.items()
                        if k in (".text", ".data") or k.startswith(".progmem")
                    )
                    ram = avr.get(".data", 0) + avr.get(".bss", 0)
                    tests = sum(isinstance(x, Compare) for x in ir.nodes)
                    bad = verify(tree, opts, [ds], n_random=2000).failed_rows
                    rows.append(
                        (
                            name,
                            tree.size,
                            itype,
                            style,
                            mode,
                            flash,
                            tests,
                            flash / max(tests, 1),
                            avr_flash,
                            ram,
                            bad,
                        )
                    )
                    print(*rows[-1], file=sys.stderr)
    print(
        "| tree (nodes) | input | style | mode | M0+ flash B | tests | B/test | "
        "AVR flash B | AVR .data+.bss | mismatches |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r[0]} ({r[1]}) | {r[2]} | {r[3]} | {r[4]} | {r[5]} | {r[6]} | {r[7]:.2f} | "
            f"{r[8]} | {r[9]} | {r[10]} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
