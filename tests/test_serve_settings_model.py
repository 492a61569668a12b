"""``serve``'s settings model (services/settings.py): docs/cli.md's table is the one it
generates, and a setting comes from its flag, else its environment variable, else its
default."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from services.settings import add_arguments, from_arguments, markdown_table

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- serve settings: begin -->\n", "<!-- serve settings: end -->"


def test_the_flag_table_in_the_docs_is_the_generated_one():
    page = (ROOT / "docs" / "cli.md").read_text()
    table = page.partition(BEGIN)[2].partition(END)[0]
    assert table == markdown_table(), "run: python -m services.settings --markdown"


def _settings(argv: list[str]):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return from_arguments(parser.parse_args(argv))


def test_a_flag_beats_its_environment_variable_which_beats_the_default(monkeypatch):
    assert _settings([]).http_port is None
    monkeypatch.setenv("GAMEHOST_HTTP_PORT", "8081")
    monkeypatch.setenv("GAMEHOST_LADDER", '["cite:2"]')
    assert _settings([]).http_port == 8081
    assert _settings([]).ladder == ["cite:2"]
    given = _settings(["--http-port", "9090", "--ladder", "cite:3", "--ladder", "cite:4"])
    assert given.http_port == 9090
    assert given.ladder == ["cite:3", "cite:4"]


def test_a_bad_environment_variable_is_named(monkeypatch):
    monkeypatch.setenv("GAMEHOST_PORT", "many")
    with pytest.raises(ValueError, match="GAMEHOST_PORT: Input should be a valid integer"):
        _settings([])
