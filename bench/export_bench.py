"""Export benchmark: lowering + emitting a ~6,000-node model, and compiling the C.

The model is the unpruned c45 tree on 10k rows of the scaling data (about
6,700 nodes, close to the 6,000-node pruned tree of the 100k-row run, and
cheap to train).  For both styles (nested ifs, static table) it reports the
time of ``lower`` + ``emit``, the size of predict.c, and the time of
``gcc -O2 -c predict.c`` (when gcc exists).  Skipped with a message while
treegen.codegen does not offer ``lower``/``emit``.  ``python -m bench.export_bench`` runs
it alone.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from treegen.data import synthetic


def run_export_bench(rows: int = 10_000, seed: int = 0) -> None:
    try:
        from treegen.codegen.emit import emit
        from treegen.codegen.lower import lower
        from treegen.codegen.options import ExportOptions
    except ImportError as exc:
        print(f"export bench: skipped (treegen.codegen not available: {exc})")
        return
    from treegen.errors import TreegenError
    from treegen.trainer import TrainOptions, train

    ds = synthetic.generate(synthetic.summary_spec(rows, seed))
    model = train(ds, TrainOptions(prune=False))
    print(f"Export ({model.size}-node model, {model.n_leaves} leaves, unpruned, {rows} rows):")
    gcc = shutil.which("gcc")
    print(f"{'style':>6} | {'lower+emit':>10} | {'predict.c':>10} | {'gcc -O2 -c':>10} | .o text")
    with tempfile.TemporaryDirectory(prefix="treegen-export-") as tmp:
        for style in ("ifs", "table"):
            t0 = time.perf_counter()
            try:
                ir = lower(model, ExportOptions(style=style))
                files = emit(ir, style)
            except TreegenError as exc:  # a codegen limit is a result worth printing
                print(f"{style:>6} | failed: {exc}")
                continue
            t_emit = time.perf_counter() - t0
            out = Path(tmp) / style
            out.mkdir()
            for name, text in files.items():
                (out / name).write_text(text)
            src = next(p for p in out.iterdir() if p.suffix == ".c")
            compile_s, text_size = "-", "-"
            if gcc:
                t0 = time.perf_counter()
                proc = subprocess.run(
                    [gcc, "-O2", "-c", src.name, "-o", "predict.o"],
                    cwd=out,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                dt = time.perf_counter() - t0
                compile_s = f"{dt:.2f} s" if proc.returncode == 0 else "error"
                size = shutil.which("size")
                if proc.returncode == 0 and size:
                    res = subprocess.run(
                        [size, "predict.o"], cwd=out, capture_output=True, text=True, check=False
                    )
                    lines = res.stdout.split("\n")
                    text_size = lines[1].split()[0] + " B" if len(lines) > 1 else "-"
            kb = src.stat().st_size / 1024
            print(f"{style:>6} | {t_emit:>8.2f} s | {kb:>7.0f} KB | {compile_s:>10} | {text_size}")


if __name__ == "__main__":
    run_export_bench()
