"""Running Weka's J48 for the differential tests: the JVM, the batch driver, the files.

One JVM runs J48 on every file through the tiny driver tests/java/J48Batch.java
when javac is there; otherwise J48's own command line runs once per file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from treegen.data import synthetic
from treegen.data.dataset import Dataset
from treegen.model.core import Model
from treegen.model.show import format_tree

from . import reftrees as rt

TESTS = Path(__file__).resolve().parents[1]
REF = TESTS / "data" / "reference"
DRIVER = TESTS / "java" / "J48Batch.java"
WEKA_JAR = Path(os.environ.get("TREEGEN_WEKA_JAR", "/usr/share/java/weka.jar"))
SEEDS = list(range(100))  # the generated datasets both differential tests use
REFERENCE = sorted(p.name for p in REF.iterdir() if p.is_dir())


def java_or_skip(what: str) -> str:
    """The ``java`` command, or skip ``what`` naming the Debian package."""
    java = shutil.which("java")
    if java is None or not WEKA_JAR.exists():
        pytest.skip(f"{what} needs java and {WEKA_JAR} (apt-get install weka)")
    return java


def differential_files(work: Path) -> list[Path]:
    """ARFF files of the generated datasets (SEEDS), the corner cases and the references."""
    files = [
        synthetic.write_arff(synthetic.generate(synthetic.random_spec(s)), work / f"gen{s}.arff")
        for s in SEEDS
    ]
    files += [
        synthetic.write_arff(ds, work / f"special-{name}.arff")
        for name, ds in synthetic.special_datasets().items()
    ]
    return files + [REF / name / f"{name}.arff" for name in REFERENCE]


def compile_driver(work: Path) -> Path | None:
    """The class directory of the compiled batch driver, or None without javac."""
    javac = shutil.which("javac")
    if javac is None:
        return None
    classdir = work / "classes"
    classdir.mkdir()
    subprocess.run(
        [javac, "-nowarn", "-d", str(classdir), "-cp", str(WEKA_JAR), str(DRIVER)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return classdir


def run_j48(
    java: str, classdir: Path | None, files: list[Path], options: tuple[str, ...] = ()
) -> dict[str, str]:
    """File stem -> J48's printed output for that file, trained with ``options``."""
    if classdir is None:
        outputs = {}
        for f in files:
            proc = subprocess.run(
                [
                    java,
                    "-cp",
                    str(WEKA_JAR),
                    "weka.classifiers.trees.J48",
                    *options,
                    "-t",
                    str(f),
                    "-no-cv",
                ],
                capture_output=True,
                text=True,
                timeout=300,
                check=True,
            )
            outputs[f.stem] = proc.stdout
        return outputs
    extra = ["--options", " ".join(options)] if options else []
    proc = subprocess.run(
        [
            java,
            "-Xmx1g",
            "-cp",
            f"{WEKA_JAR}{os.pathsep}{classdir}",
            "J48Batch",
            *extra,
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    outputs = file_blocks(proc.stdout)
    assert len(outputs) == len(files), proc.stderr
    return outputs


COMMITTEE_DRIVER = TESTS / "java" / "CommitteeBatch.java"


def write_weighted_arff(ds: Dataset, weights: np.ndarray, path: Path) -> Path:
    """``ds`` as ARFF with an instance weight ``{w}`` on every data line (exact: repr)."""
    head, _, body = synthetic.arff_text(ds).partition("@data\n")
    rows = body.splitlines()
    assert len(rows) == len(weights)
    lines = [f"{r},{{{float(w)!r}}}" for r, w in zip(rows, weights, strict=True)]
    path.write_text(head + "@data\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def compile_java(driver: Path, classdir: Path, what: str) -> Path:
    """``classdir`` holding the compiled Java ``driver`` (skips ``what`` without javac)."""
    javac = shutil.which("javac")
    if javac is None:
        pytest.skip(f"{what} needs javac (apt-get install default-jdk-headless)")
    classdir.mkdir(exist_ok=True)
    subprocess.run(
        [javac, "-nowarn", "-d", str(classdir), "-cp", str(WEKA_JAR), str(driver)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return classdir


def file_blocks(stdout: str) -> dict[str, str]:
    """File stem -> its block of a batch driver's output (``=== FILE path`` ... ``=== END``)."""
    outputs = {}
    for block in stdout.split("=== FILE ")[1:]:
        head, _, body = block.partition("\n")
        assert body.rstrip().endswith("=== END"), head
        outputs[Path(head).stem] = body
    return outputs


def compile_committee_driver(work: Path) -> Path:
    """The class directory of tests/java/CommitteeBatch.java (skips without javac)."""
    return compile_java(COMMITTEE_DRIVER, work / "committee-classes", "the committee comparison")


def run_batch(java: str, classdir: Path, driver: str, args: list[str]) -> dict[str, str]:
    """File stem -> the block for that file of the batch driver class ``driver``
    (compiled into ``classdir``) run on ``args``."""
    proc = subprocess.run(
        [java, "-Xmx2g", "-cp", f"{WEKA_JAR}{os.pathsep}{classdir}", driver, *args],
        capture_output=True,
        text=True,
        timeout=3600,
        check=True,
    )
    return file_blocks(proc.stdout)


def run_committee(java: str, classdir: Path, args: list[str]) -> dict[str, str]:
    """File stem -> CommitteeBatch's block for that file (``args``: mode, its numbers,
    then the ARFF files)."""
    return run_batch(java, classdir, "CommitteeBatch", args)


def printed_j48(model: Model) -> rt.Tree:
    """treegen's tree as ``treegen show --format j48`` prints it, read like Weka's output.

    J48 prints a leaf's N/E from its parent's counts (``dumpLabel(branch)``), which
    Weka sums in another order than the leaf's own: the two can part in the last bit
    and print differently at a rounding edge (seed 1572: N 36.125 at the leaf,
    36.12499.. in its parent, printed 36.12).  treegen's printer reads the parent's
    counts too (:mod:`treegen.model.show`), so the printout is what is compared.
    """
    return rt.parse_j48(format_tree(model, "j48")).tree
