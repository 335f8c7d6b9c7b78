"""mkdocs hooks (``hooks:`` in mkdocs.yml): the site is docs/ plus the repository's other
user documentation, README.md as the home page and the firmware examples' READMEs.

Every page keeps the links it has in the repository, relative to its own place there, so
they work in a checkout and on a code host. Pages that live outside docs/ are added here
at build time, and a link that leaves docs/ (``../firmware_examples/README.md``) or starts
outside it (README's ``docs/commands.md``) is rewritten to the target's place in the site.
A link to any other repository file is left as written, and ``mkdocs build --strict``
fails on it: name such files in code spans instead of linking them.

Python-Markdown, which mkdocs renders with, nests a list or a paragraph in a list item
only when it is indented by 4 spaces, where GitHub takes 2 or 3: a page indented the
GitHub way would lose its nesting and its numbering in the site; and it reads a list
that follows a paragraph without a blank line as more of the paragraph. Such lines are
warnings here (errors under --strict), and an ordered list keeps its first number as on
GitHub (Python-Markdown's ``lazy_ol`` would restart it at 1).
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path

from markdown import Markdown
from markdown.blockprocessors import OListProcessor
from markdown.extensions import Extension
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

log = logging.getLogger("mkdocs.hooks.treegen")

# Repository path of each page outside docs/ -> its path in the site (docs/X is X).
OUTSIDE = {
    "README.md": "index.md",
    "firmware_examples/README.md": "firmware_examples/README.md",
    "firmware_examples/avr-atmega328p/README.md": "firmware_examples/avr-atmega328p/README.md",
    "firmware_examples/cortex-m/README.md": "firmware_examples/cortex-m/README.md",
    "firmware_examples/riscv/README.md": "firmware_examples/riscv/README.md",
}
REPO_OF = {site: repo for repo, site in OUTSIDE.items()}

# An inline Markdown link's target: [text](target) or [text](target#anchor).
LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")
# A list item; one indented by 1-3 spaces; any line indented so.
ITEM = re.compile(r"^ *(?:[*+-]|\d+\.) ")
SHALLOW_ITEM = re.compile(r"^ {1,3}(?:[*+-]|\d+\.) ")
SHALLOW_LINE = re.compile(r"^ {1,3}\S")


class _NumberedLists(Extension):
    """Ordered lists start at their first item's number, as GitHub renders them."""

    def extendMarkdown(self, md: Markdown) -> None:
        olist = md.parser.blockprocessors["olist"]
        assert isinstance(olist, OListProcessor)
        olist.LAZY_OL = False


def unportable_lines(markdown: str) -> list[tuple[int, str]]:
    """(line number from 1, what to do) for each line outside fenced code that GitHub
    renders as a list, or nests in a list item, and Python-Markdown does not."""
    found: list[tuple[int, str]] = []
    fenced, block = False, ""  # block: how the lines since the last blank line began
    for number, line in enumerate(markdown.splitlines(), 1):
        if line.startswith("```"):
            fenced, block = not fenced, ""
            continue
        if fenced or line.startswith("#") or not line.strip():
            block = ""  # a blank line or a heading ends a block
            continue
        if SHALLOW_ITEM.match(line) or (not block and SHALLOW_LINE.match(line)):
            found.append((number, "indent nested lists and paragraphs by 4 spaces, not 1-3"))
        if not block:
            block = "list" if ITEM.match(line) else "text"
        elif block == "text" and ITEM.match(line):
            found.append((number, "a list item after a paragraph needs a blank line before it"))
            block = "list"
    return found


def _root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent


def _site_path(repo_path: str) -> str | None:
    """Where a repository file is in the site, or None when it is not a page."""
    if repo_path.startswith("docs/"):
        return repo_path.removeprefix("docs/")
    return OUTSIDE.get(repo_path)


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    config.markdown_extensions.append(_NumberedLists())
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    root = _root(config)
    for repo, site in OUTSIDE.items():
        files.append(File.generated(config, site, abs_src_path=str(root / repo)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    here_site = page.file.src_uri
    here_repo = REPO_OF.get(here_site, "docs/" + here_site)
    for number, advice in unportable_lines(markdown):
        log.warning(f"{here_repo}:{number}: Python-Markdown reads this otherwise: {advice}")

    def rewrite(m: re.Match[str]) -> str:
        target = m.group(2)
        if "://" in target or target.startswith(("/", "mailto:")):
            return m.group(0)
        repo_target = posixpath.normpath(posixpath.join(posixpath.dirname(here_repo), target))
        site_target = _site_path(repo_target)
        if site_target is None:
            return m.group(0)  # not a page: mkdocs --strict reports it
        new = posixpath.relpath(site_target, posixpath.dirname(here_site) or ".")
        return f"{m.group(1)}{new}{m.group(3) or ''}{m.group(4)}"

    return LINK.sub(rewrite, markdown)
