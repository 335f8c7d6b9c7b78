"""mkdocs hooks (``hooks:`` in mkdocs.yml): the site is docs/ plus the repository's other
user documentation, README.md as the home page and the firmware examples' READMEs.

Every page keeps the links it has in the repository, relative to its own place there, so
they work in a checkout and on a code host. Pages that live outside docs/ are added here
at build time, and a link that leaves docs/ (``../firmware_examples/README.md``) or starts
outside it (README's ``docs/commands.md``) is rewritten to the target's place in the site.
A link to any other repository file is left as written, and ``mkdocs build --strict``
fails on it: name such files in code spans instead of linking them.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

# Repository path of each page outside docs/ -> its path in the site (docs/X is X).
OUTSIDE = {
    "README.md": "index.md",
    "firmware_examples/README.md": "firmware_examples/README.md",
    "firmware_examples/avr-atmega328p/README.md": "firmware_examples/avr-atmega328p/README.md",
    "firmware_examples/cortex-m/README.md": "firmware_examples/cortex-m/README.md",
}
REPO_OF = {site: repo for repo, site in OUTSIDE.items()}

# An inline Markdown link's target: [text](target) or [text](target#anchor).
LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")


def _root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent


def _site_path(repo_path: str) -> str | None:
    """Where a repository file is in the site, or None when it is not a page."""
    if repo_path.startswith("docs/"):
        return repo_path.removeprefix("docs/")
    return OUTSIDE.get(repo_path)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    root = _root(config)
    for repo, site in OUTSIDE.items():
        files.append(File.generated(config, site, abs_src_path=str(root / repo)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    here_site = page.file.src_uri
    here_repo = REPO_OF.get(here_site, "docs/" + here_site)

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
