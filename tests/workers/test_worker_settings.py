"""``gamehost worker``'s settings model (workers/settings.py): docs/cli.md's table is the
one it generates, a setting comes from its flag, else its environment variable, else its
default, and the server parses the flags of its commands (the client only dispatches)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from gamehost.cli import main as cli_main
from services.settings import add_arguments, from_arguments, markdown_table
from workers.settings import WorkerSettings

ROOT = Path(__file__).resolve().parent.parent.parent
BEGIN, END = "<!-- worker settings: begin -->\n", "<!-- worker settings: end -->"


def test_the_worker_flag_table_in_the_docs_is_the_generated_one():
    page = (ROOT / "docs" / "cli.md").read_text()
    table = page.partition(BEGIN)[2].partition(END)[0]
    assert table == markdown_table(WorkerSettings), "run: python -m workers.settings --markdown"


def _settings(argv: list[str]) -> WorkerSettings:
    parser = argparse.ArgumentParser()
    add_arguments(parser, WorkerSettings)
    return from_arguments(parser.parse_args(argv), WorkerSettings)


def test_a_worker_flag_beats_its_environment_variable_which_beats_the_default(monkeypatch):
    assert _settings([]).concurrency is None and _settings([]).loglevel == "INFO"
    monkeypatch.setenv("GAMEHOST_WORKER_CONCURRENCY", "3")
    monkeypatch.setenv("GAMEHOST_WORKER_LOGLEVEL", "WARNING")
    assert (_settings([]).concurrency, _settings([]).loglevel) == (3, "WARNING")
    given = _settings(["--concurrency", "5", "--metrics-host", "127.0.0.1"])
    assert (given.concurrency, given.loglevel, given.metrics_host) == (5, "WARNING", "127.0.0.1")


def test_worker_says_which_setting_is_wrong_and_starts_nothing(monkeypatch, capsys):
    monkeypatch.setenv("GAMEHOST_WORKER_CONCURRENCY", "many")
    assert cli_main(["worker"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("gamehost: GAMEHOST_WORKER_CONCURRENCY: Input should be")


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["worker", "--concurrency", "x"], "gamehost worker: error: argument --concurrency"),
        (["worker", "--bogus"], "gamehost worker: error: unrecognized arguments: --bogus"),
        (["db"], "gamehost db: error: the following arguments are required: db_command"),
        (["db", "upgrade", "--bogus"], "gamehost db: error: unrecognized arguments: --bogus"),
        (["store", "upgrade"], "gamehost store upgrade: error: the following arguments"),
        (["export", "--bogus"], "gamehost export: error: unrecognized arguments: --bogus"),
    ],
)
def test_the_server_parses_its_commands_and_exits_2_on_a_bad_flag(capsys, argv, usage):
    with pytest.raises(SystemExit) as exited:
        cli_main(argv)
    assert exited.value.code == 2
    assert usage in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "flags"),
    [
        (["worker", "--help"], ["--broker URL", "--redis-sentinel", "--concurrency", "--loglevel"]),
        (["db", "upgrade", "--help"], ["--archive URL"]),
        (["store", "upgrade", "--help"], ["--redis URL", "--redis-prefix"]),
        # The client's filters and --target, the server's --archive, then the client's TLS.
        (["export", "--help"], ["--game TYPE", "--target HOST:PORT", "--archive URL", "--tls"]),
    ],
)
def test_each_server_command_lists_its_flags(capsys, argv, flags):
    with pytest.raises(SystemExit) as exited:
        cli_main(argv)
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: gamehost {argv[0]}")
    positions = [out.index(flag) for flag in flags]
    assert positions == sorted(positions)
