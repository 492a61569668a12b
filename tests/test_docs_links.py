"""Every relative link and image in README.md and docs/ leads somewhere: the file
exists (resolved from the linking file's own folder, as GitHub resolves it), and a
``#fragment`` into a Markdown file names one of its headings (GitHub's slug)."""

from __future__ import annotations

import functools
import os
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parent.parent
# benchmarks/: its two indexes (not .peer/, where npm puts packages with pages of their own).
BENCHMARK_PAGES = [ROOT / "benchmarks" / "README.md", ROOT / "benchmarks" / "studies" / "README.md"]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *BENCHMARK_PAGES])
_PARSER = MarkdownIt("commonmark").enable("table")


def _tokens(page: Path) -> list[Token]:
    return _PARSER.parse(page.read_text(encoding="utf-8"))


def _targets(page: Path) -> Iterator[str]:
    """The target of each link and image of ``page``, as written."""
    for block in _tokens(page):
        for token in block.children or ():
            if token.type == "link_open":
                yield str(token.attrGet("href"))
            elif token.type == "image":
                yield str(token.attrGet("src"))


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, only letters, digits, '_', '-' and
    spaces kept, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@functools.cache
def _anchors(page: Path) -> frozenset[str]:
    """The anchors of ``page``'s headings (a repeated one gets -1, -2, ... as on GitHub)."""
    slugs: list[str] = []
    anchors: set[str] = set()
    blocks = _tokens(page)
    for opened, inline in zip(blocks, blocks[1:], strict=False):
        if opened.type != "heading_open":
            continue
        text = "".join(
            t.content for t in inline.children or () if t.type in ("text", "code_inline")
        )
        slug = _slug(text)
        repeats = slugs.count(slug)
        slugs.append(slug)
        anchors.add(f"{slug}-{repeats}" if repeats else slug)
    return frozenset(anchors)


def _broken(page: Path, target: str) -> str | None:
    """Why ``target``, linked from ``page``, leads nowhere; None when it leads somewhere."""
    parts = urllib.parse.urlsplit(target)
    if parts.scheme or parts.netloc:
        return None  # a web address: not checked here
    path = urllib.parse.unquote(parts.path)
    file = (page.parent / path).resolve() if path else page
    if not file.exists():
        return f"{target}: no file {os.path.relpath(file, ROOT)}"
    if parts.fragment and file.suffix == ".md" and parts.fragment not in _anchors(file):
        return f"{target}: no heading #{parts.fragment} in {file.relative_to(ROOT)}"
    return None


def test_every_relative_link_in_the_readme_and_docs_resolves() -> None:
    # The check itself can fail: a missing file, and a missing heading.
    assert _broken(ROOT / "docs" / "cli.md", "docs/ladder.md") is not None
    assert _broken(ROOT / "docs" / "archive.md", "#no-such-heading") is not None
    broken = [
        f"{page.relative_to(ROOT)}: {why}"
        for page in PAGES
        for target in _targets(page)
        if (why := _broken(page, target))
    ]
    assert broken == []
