"""Drive ``gamehost play`` in a pseudo-terminal, as a person would (pexpect)."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator

import pexpect
import pytest

PROMPT = "your move (notation, or help): "
TIMEOUT = 30  # seconds for any one screen to come


class Player:
    """A ``gamehost play`` session: ``move`` types a line and returns the next screen
    (everything printed from that line up to the next prompt)."""

    def __init__(self, args: list[str]) -> None:
        self.log = io.StringIO()
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "gamehost.cli", *args],
            encoding="utf-8",
            timeout=TIMEOUT,
            dimensions=(60, 160),
        )
        self.child.logfile_read = self.log
        self.menu = ""
        self.finished = False
        self.screen = self._next_screen()

    def _next_screen(self) -> str:
        if self.child.expect_exact([PROMPT, pexpect.EOF]) == 1:
            self.finished = True  # the game is over: the last screen and the outcome
        return self.saw(self.child.before)

    def saw(self, text: str) -> str:
        """Note a screen read by hand (its menu is the one ``first_move`` reads)."""
        screen = text.replace("\r\n", "\n")
        if "moves: " in screen:
            self.menu = screen[screen.rindex("moves: ") + len("moves: ") :]
        return screen

    def move(self, line: str) -> str:
        self.child.sendline(line)
        self.screen = self._next_screen()
        # The echo of what was typed comes first: drop it.
        return self.screen.split("\n", 1)[1] if "\n" in self.screen else ""

    def first_move(self, avoid: tuple[str, ...] = ()) -> str:
        """The first move the menu lists (the first alternative of a ``a|b`` family),
        skipping those that start with ``avoid`` while there are others."""
        entries = [e.strip() for e in re.split(r"  ·  |\n", self.menu) if e.strip()]
        entries = [e for e in entries if "…" not in e]  # a fold is not a move
        entry = next((e for e in entries if not e.startswith(avoid)), entries[0])
        return " ".join(word.split("|")[0] for word in entry.split())

    def quit(self) -> None:
        if not self.finished:
            self.child.sendline("quit")
            self.child.expect(pexpect.EOF)
        self.child.close()


@pytest.fixture
def play() -> Iterator:
    players: list[Player] = []

    def start(*args: str) -> Player:
        player = Player(["play", *args])
        players.append(player)
        return player

    yield start
    for player in players:
        if player.child.isalive():
            player.child.terminate(force=True)


RAW_PROTOBUF = re.compile(r"[{}]|\b(CITE|CATAN|ENDEAVOR)_[A-Z_]+\b|^\s*\w+ \{$", re.M)


def assert_no_raw_protobuf(text: str) -> None:
    found = RAW_PROTOBUF.search(text)
    assert found is None, f"raw protobuf on screen: {found.group(0)!r}"
