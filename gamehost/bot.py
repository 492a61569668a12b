"""Write a ladder bot in Python: the bot protocol (docs/bot-protocol.md) read and
written for you. Subclass ``Bot`` and override ``act`` (and ``start`` and ``end`` if
the bot keeps state per game), or hand ``run`` a function of the act message::

    from gamehost.bot import run

    def act(message):
        return message["legal"][0]["id"]

    run(act)

Run it with ``GAMEHOST_BOT_KEY=KEY gamehost bot run --target HOST:PORT --cmd "python
mybot.py"``. Print logs to stderr: every line on stdout is read as an answer. Needs
nothing but the standard library (and none of gamehost's server). ``python -m
gamehost.bot`` is a bot of its own: it plays random moves."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from typing import IO, Any

Message = dict[str, Any]


class Bot:
    """One copy of a bot: it may play several games at once (``game_id`` tells them
    apart), one act at a time."""

    def start(self, message: Message) -> None:
        """A game starts: game_id, game_type, players, seat, options."""

    def act(self, message: Message) -> int:
        """The id of one of ``message["legal"]`` ({id, notation} each); ``state`` is
        the seat's view, ``ms_left`` the time left in milliseconds."""
        raise NotImplementedError

    def end(self, message: Message) -> None:
        """A game is over: game_id, returns (1 a win, 0 a loss, shared wins split)."""

    def run(self, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
        run(self, stdin, stdout)


class _FunctionBot(Bot):
    def __init__(self, act: Callable[[Message], int]) -> None:
        self._act = act

    def act(self, message: Message) -> int:
        return self._act(message)


def run(
    bot: Bot | Callable[[Message], int],
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> None:
    """Read the runner's lines until it closes stdin, answering each act."""
    player = bot if isinstance(bot, Bot) else _FunctionBot(bot)
    reader = stdin if stdin is not None else sys.stdin
    writer = stdout if stdout is not None else sys.stdout
    for line in reader:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "act":
            writer.write(json.dumps({"id": int(player.act(message))}) + "\n")
            writer.flush()
        elif kind == "start":
            player.start(message)
        elif kind == "end":
            player.end(message)


if __name__ == "__main__":  # the random player `gamehost bot register` suggests first
    run(lambda message: random.choice(message["legal"])["id"])
