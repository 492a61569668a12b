"""The metric names a PromQL expression reads, and the metric names a scrape exposes."""

from __future__ import annotations

import re

# PromQL words that look like identifiers but are not metric names.
_KEYWORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "bool",
    "and", "or", "unless", "offset", "inf", "nan",
}  # fmt: skip
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_MATCHERS = re.compile(r"\{[^}]*\}")
_RANGE = re.compile(r"\[[^\]]*\]")
_GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
_IDENT = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")


def metric_names(expr: str) -> set[str]:
    """Series names an expression selects (functions, keywords and labels left out)."""
    text = _STRING.sub('""', expr)
    text = _MATCHERS.sub("", text)
    text = _RANGE.sub("", text)
    text = _GROUPING.sub("", text)
    names = set()
    for match in _IDENT.finditer(text):
        rest = text[match.end() :].lstrip()
        if rest.startswith("("):  # a function call
            continue
        before = text[: match.start()]
        if before and (before[-1].isdigit() or before[-1] == "."):  # 1e-9, 0.05
            continue
        if match.group().lower() in _KEYWORDS:
            continue
        names.add(match.group())
    return names


def exposed_names(scrape: str) -> set[str]:
    """Sample names in a Prometheus text exposition (``_bucket``, ``_count`` ... included)."""
    names = set()
    for line in scrape.splitlines():
        if line and not line.startswith("#"):
            names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names
