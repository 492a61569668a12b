"""``gamehost play GAME --quick`` (docs/cli.md): quick play on --target with the account's
key from $GAMEHOST_ACCOUNT_KEY, then the seat is played in the terminal."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

from gamehost import Client
from services.server import ServerThread
from tests.matchmaking.conftest import config
from tests.matchmaking.test_quick_play import QUICK


def _play(*args: str, key: str = "", stdin: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "GAMEHOST_ACCOUNT_KEY": key}
    return subprocess.run(
        [sys.executable, "-m", "gamehost.cli", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_play_quick_matches_and_plays_the_seat(backing):
    quick = dataclasses.replace(QUICK, wait=0.2)
    with ServerThread(config(backing, quick_play=quick)) as server, Client(server.target) as c:
        key = c.create_account("hana").key
        done = _play("cite", "--quick", "--target", server.target, key=key, stdin="quit\n")
        assert done.returncode == 0, done.stderr
        assert "looking for a cite game of 2" in done.stdout
        assert ", rated, 1 seats filled by house levels" in done.stdout
        (game,) = c.list_games(account="hana")
        assert {s.account for s in game.seats} == {"hana", ""}
        refused = _play("cite", "--quick", "--target", server.target)  # no key
        assert refused.returncode == 2 and "account key" in refused.stderr
