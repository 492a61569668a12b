"""Docs that stay true: measured figures live in docs/benchmarks.md, each with its
command, and numbers about the code (test counts, call counts) are not copied into
prose, where they go stale with the next commit."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A figure as the README's front-page rule counts them (the before-stop hook's regex).
FIGURE = re.compile(r"[0-9][0-9,.]* ?(×|x |ms|games/s|moves/s|games/h|%)")
# A count of the suite, e.g. "1,268 of 1,388 tests" or "1,388 tests".
TEST_COUNT = re.compile(r"\b[0-9][0-9,]* (of [0-9][0-9,]* )?tests\b")


def test_the_readme_is_a_front_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(FIGURE.findall(readme)) <= 3, FIGURE.findall(readme)
    assert len(readme.encode("utf-8")) <= 10_000


def test_no_page_counts_the_tests() -> None:
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    counts = {
        str(page.relative_to(ROOT)): TEST_COUNT.findall(page.read_text(encoding="utf-8"))
        for page in pages
    }
    assert not {page: found for page, found in counts.items() if found}


def test_architecture_leaves_the_submit_paths_counts_to_the_script() -> None:
    """scripts/submit_path.py --count prints them; a copy in the doc would go stale."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## One SubmitAction, followed", 1)[1]
    assert "--count" in section
    assert not re.search(r"\| *[0-9]+ *\|", section)
    assert not re.search(r"\bof the [0-9]+ functions\b", section)
