"""The documentation stays true: README.md and the docs/ pages.

Their Python, C and shell examples run, the command reference is the parser's, the
page that explains a subcommand names its options, the generated C's names they give
exist, every relative link leads to a file, every page is reachable from the README,
and the README stays short. (`make docs` builds the site with mkdocs --strict, which
checks links and anchors again as the site has them.)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from treegen.cli.main import build_parser
from treegen.verify.build import STRICT_FLAGS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
COMMANDS = ROOT / "docs" / "commands.md"
GOLF = ROOT / "tests" / "data" / "reference" / "golf" / "golf"
# The pages whose examples run: the README and docs/.
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
# Every user doc: those, and the firmware examples' READMEs.
ALL_DOCS = [*PAGES, *sorted((ROOT / "firmware_examples").rglob("*.md"))]
BEGIN, END = "<!-- cli-reference -->\n", "<!-- /cli-reference -->"
README_MAX_LINES = 250


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _blocks(lang: str) -> list[tuple[str, str]]:
    """(page, code) of every fenced block of language ``lang``, in page order."""
    pattern = re.compile(rf"^```{lang}\n(.*?)^```$", re.M | re.S)
    return [(_name(p), code) for p in PAGES for code in pattern.findall(p.read_text("utf-8"))]


def _ids(blocks: list[tuple[str, str]]) -> list[str]:
    return [f"{page}:{i}" for i, (page, _) in enumerate(blocks)]


def cli_reference() -> str:
    """``treegen --help`` and every subcommand's ``--help``, at a fixed width so the
    text does not depend on the terminal, one section per command."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse reads the width when it formats
    try:
        pages = [("treegen", parser)] + [(f"treegen {n}", p) for n, p in sub.choices.items()]
        return "\n\n".join(
            f"### {title}\n\n```text\n{p.format_help().strip()}\n```" for title, p in pages
        )
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def test_the_command_reference_is_the_parsers(update_golden: bool) -> None:
    """docs/commands.md holds argparse's help as Python 3.11 and 3.12 format it; 3.13's
    argparse lays the same help out otherwise (``-o, --output MODEL``, other columns), so
    there the page must name the same options and subcommands."""
    text = COMMANDS.read_text("utf-8")
    head, rest = text.split(BEGIN, 1)
    block, tail = rest.split(END, 1)
    if update_golden and sys.version_info < (3, 13):
        COMMANDS.write_text(f"{head}{BEGIN}{cli_reference()}\n{END}{tail}", "utf-8")
        return
    hint = "run: pytest tests/test_docs.py --update-golden (Python 3.11 or 3.12)"
    if sys.version_info < (3, 13):
        assert block.strip() == cli_reference(), hint
    else:
        words = re.compile(r"(?<![\w-])(?:--?[a-z][\w-]*|### treegen [\w-]+)")
        assert set(words.findall(block)) == set(words.findall(cli_reference())), hint


def test_every_help_line_fits_the_width() -> None:
    """argparse wraps help text to the terminal, but a raw description (export's, kept
    raw for its epilog's layout) is printed as written: no line of any --help may run
    past the 100 columns the reference is formatted at."""
    long = [line for line in cli_reference().splitlines() if len(line) > 100]
    assert long == []


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _command_pages() -> dict[str, list[Path]]:
    """The command reference's table: each subcommand -> the pages that explain it."""
    table = COMMANDS.read_text("utf-8").split("## Which page explains a command", 1)[1]
    table = table.split("\n## ", 1)[0]
    pages: dict[str, list[Path]] = {}
    for row in re.findall(r"^\| (.*) \|$", table, re.M):
        cells = row.split(" | ")
        targets = re.findall(r"\]\(([^)#]+)", cells[-1])
        for name in re.findall(r"`([\w-]+)`", cells[0]):
            pages[name] = [COMMANDS.parent / target for target in targets]
    return pages


def test_every_subcommand_has_a_page() -> None:
    """The command reference's table sends each subcommand to the page that explains
    it, so a new subcommand is not left with its --help alone."""
    assert set(_subparsers()) - set(_command_pages()) == set()


def test_every_option_is_named_on_its_commands_page() -> None:
    """The page that explains a subcommand names each of its options (one of its
    spellings), so an option added to the parser is explained, not only listed by
    --help (--help and --quiet are the command reference's conventions)."""
    pages = _command_pages()
    unnamed = []
    for name, sub in _subparsers().items():
        text = "\n".join(page.read_text("utf-8") for page in pages.get(name, []))
        for action in sub._actions:
            spellings = action.option_strings
            if action.dest in ("help", "quiet"):
                continue
            if spellings and not any(
                re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text) for o in spellings
            ):
                unnamed.append(f"{name} {'/'.join(spellings)}")
    assert unnamed == []


PYTHON = _blocks("python")


@pytest.mark.parametrize(("page", "code"), PYTHON, ids=_ids(PYTHON))
def test_every_python_example_runs(
    page: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each block runs as written from a folder holding a copy of the golf data, and each
    file it names in ``.save("...")`` and each ``export_c("DIR")`` is then there."""
    data = tmp_path / "tests" / "data" / "reference" / "golf"
    data.mkdir(parents=True)
    for suffix in (".names", ".data"):
        (data / f"golf{suffix}").write_text(GOLF.with_suffix(suffix).read_text())
    monkeypatch.chdir(tmp_path)
    exec(compile(code, page, "exec"), {})
    for saved in re.findall(r"\.save\(\"([^\"]+)\"\)", code):
        assert (tmp_path / saved).is_file(), saved
    for out_dir in re.findall(r"export_c\(\"([^\"]+)\"", code):
        assert (tmp_path / out_dir / "predict.c").is_file(), out_dir


C_EXAMPLES = _blocks("c")


@pytest.mark.parametrize(("page", "code"), C_EXAMPLES, ids=_ids(C_EXAMPLES))
def test_every_c_example_compiles_and_prints_the_models_answer(
    page: str, code: str, tmp_path: Path
) -> None:
    """Each C block, with golf's exported predict.c, under the strict flags; its one line
    of output is the Python model's class and fixed-point probability for the same row."""
    import numpy as np

    import treegen

    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    model = treegen.train(str(GOLF) + ".names")
    model = model.save(str(tmp_path / "golf.tree"))  # the C prefix comes from the file name
    model.export_c(str(tmp_path))
    (tmp_path / "main.c").write_text(code)
    exe = tmp_path / "example"
    subprocess.run(
        [cc, *STRICT_FLAGS, "-o", str(exe), str(tmp_path / "main.c"), str(tmp_path / "predict.c")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=30).stdout
    row = np.array([[0.0, 85.0, 85.0, 1.0]])  # sunny, 85, 85, windy=false as in the block
    with pytest.warns(UserWarning, match="valid feature names"):
        cls = list(model.classes_).index(model.predict(row)[0])
        q15 = int(np.floor(model.predict_proba(row)[0][cls] * 32768))
    assert out == f"class {cls} p {q15}/32768\n"


@pytest.mark.slow
def test_the_readme_shell_quick_start_runs_as_written(tmp_path: Path) -> None:
    """The README's command-line quick start, in a shell whose PATH has no treegen: its
    first line must put treegen there (activating the venv), as after ``make demo``.
    The venv is the one running this test, reached as ``.venv`` from a folder holding
    a copy of the golf data, where the commands write their files."""
    blocks = re.findall(r"^```sh\n(.*?)^```$", README.read_text("utf-8"), re.M | re.S)
    assert blocks, "README.md has no ```sh quick start"
    if not any(shutil.which(c) for c in (os.environ.get("CC", "cc"), "cc", "gcc", "clang")):
        pytest.skip("no C compiler for the quick start's verify")
    venv = Path(sys.prefix)
    if venv == Path(sys.base_prefix) or not (venv / "bin" / "treegen").is_file():
        pytest.skip("not running in a venv with treegen installed")
    (tmp_path / ".venv").symlink_to(venv, target_is_directory=True)
    data = tmp_path / "tests" / "data" / "reference" / "golf"
    data.mkdir(parents=True)
    for suffix in (".names", ".data"):
        shutil.copy(GOLF.with_suffix(suffix), data)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(
        d for d in env.get("PATH", "").split(os.pathsep) if not (Path(d) / "treegen").exists()
    )
    assert shutil.which("treegen", path=env["PATH"]) is None
    done = subprocess.run(
        ["bash", "-euc", blocks[0]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "golf.tree").is_file() and (tmp_path / "build" / "predict.c").is_file()
    assert re.search(r"^\d+ passed, 0 failed$", done.stdout, re.M), done.stdout


def test_the_readme_is_short() -> None:
    assert len(README.read_text("utf-8").splitlines()) <= README_MAX_LINES


def _prose(page: Path) -> str:
    """A page's text without its code blocks and code spans."""
    text = re.sub(r"^```.*?^```$", "", page.read_text("utf-8"), flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def _links(page: Path) -> list[str]:
    """The relative link targets of a page (outside code), without their anchors."""
    targets = re.findall(r"\]\(([^)\s]+)\)", _prose(page))
    return [t.split("#", 1)[0] for t in targets if "://" not in t and not t.startswith("#")]


def test_every_relative_link_leads_to_a_file() -> None:
    broken = [
        f"{_name(page)}: {target}"
        for page in ALL_DOCS
        for target in _links(page)
        if not (page.parent / target).exists()
    ]
    assert broken == []


def test_every_doc_is_reachable_from_the_readme() -> None:
    """Following the links from README.md reaches every user doc, the firmware examples'
    READMEs and every docs/ page (the site's nav is checked by make docs)."""
    seen, todo = {README.resolve()}, [README]
    while todo:
        page = todo.pop()
        for target in _links(page):
            path = (page.parent / target).resolve()
            if path.suffix == ".md" and path.is_file() and path not in seen:
                seen.add(path)
                todo.append(path)
    assert sorted(_name(p) for p in ALL_DOCS if p.resolve() not in seen) == []


def test_no_issue_numbers_in_user_docs() -> None:
    """User docs describe the product, not the tracker's history (an issue's number)."""
    cited = [
        f"{_name(page)}: {m.group(0)}"
        for page in ALL_DOCS
        for m in re.finditer(r"(?i)\bissues?[ -]#?\d+|(?<![\w&#])#\d+\b", _prose(page))
    ]
    assert cited == []


def test_no_issue_numbers_in_code() -> None:
    """Code, tests, benchmarks and build files say why, not which tracker entry asked
    (an issue's number means nothing to a reader of the project)."""
    sources = [ROOT / "Makefile", ROOT / "pyproject.toml", ROOT / ".ci" / "run"]
    for top in ("treegen", "bench", "tests", "firmware_examples"):
        for path in sorted((ROOT / top).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix in (".py", ".c", ".h", ".j2", ".txt", ".ini") and not rel.startswith(
                "tests/data/"
            ):
                sources.append(path)
    # (a number on the next line of a comment or docstring too)
    pattern = re.compile(r"(?i)\bissues?[ \t-]*(?:\n[ \t#*/]*)?#?\d+")
    cited = [
        f"{path.relative_to(ROOT).as_posix()}: {m.group(0)!r}"
        for path in sources
        if path.is_file()
        for m in pattern.finditer(path.read_text("utf-8", errors="replace"))
    ]
    assert cited == []


def test_the_python_page_names_every_keyword_of_train_and_export() -> None:
    """docs/python.md lists train's keywords and export_c's options by name: one added to
    the code (export_c's `scores` and `name`, train's `boost` and `bag`) is added there."""
    from dataclasses import fields

    from treegen.api import DataKeywords, TrainKeywords
    from treegen.codegen.options import ExportOptions

    text = (ROOT / "docs" / "python.md").read_text("utf-8")
    names = [f.name for f in fields(ExportOptions)]
    names += [*DataKeywords.__annotations__, *TrainKeywords.__annotations__]
    names += ["boost", "bag", "bag_seed", "engine", "validation"]
    assert [n for n in names if f"`{n}`" not in text and f"{n}=" not in text] == []


# Generated names that come from a model's data, not from the generator: a class's
# macro (`PREFIX_C_*`) and a category's (ensembles.md's feature colour, value blue).
DATA_NAMES = {"C_", "COLOUR_BLUE"}


def test_every_generated_name_the_docs_give_is_the_generators() -> None:
    """A `PREFIX_NAME` macro or function that a page tells the reader to define or call
    is one the templates or the code generator still write (`PREFIX_LAZYKEYS`, renamed
    `PREFIX_FLOATCMP`, stayed in a page after the rename)."""
    package = ROOT / "treegen"
    source = "\n".join(
        path.read_text("utf-8")
        for path in sorted(package.rglob("*"))
        if path.suffix in (".py", ".j2", ".c", ".h")
    )
    unknown = [
        f"{_name(page)}: PREFIX_{name}"
        for page in ALL_DOCS
        for name in sorted(set(re.findall(r"\bPREFIX_(\w+)", page.read_text("utf-8"))))
        if name not in DATA_NAMES and not re.search(rf"_{re.escape(name)}\b", source)
    ]
    assert unknown == []


def test_the_python_page_names_every_model_kind() -> None:
    """docs/python.md says what `model.kind.name` can be and each kind's default name
    (an unsaved model's C prefix): every registered kind, so a new one is added there
    (the committee and the ensemble were missing)."""
    from treegen.kinds import KINDS

    text = " ".join((ROOT / "docs" / "python.md").read_text("utf-8").split())  # unwrapped
    listed = text.split("`model.kind.name` says which", 1)[1].split(")", 1)[0]
    defaults = text.split("else the kind's default", 1)[1].split(")", 1)[0]
    missing = [
        name
        for name, kind in KINDS.items()
        if f'`"{name}"`' not in listed or f"`{kind.default_name}`" not in defaults
    ]
    assert missing == []
