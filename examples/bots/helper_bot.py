"""A ladder bot on the gamehost.bot helper: it keeps a count per game and plays the
legal move whose notation sorts first (docs/bot-protocol.md).

    GAMEHOST_BOT_KEY=KEY gamehost bot run --target HOST:PORT --cmd "python examples/bots/helper_bot.py"
"""

import sys

from gamehost.bot import Bot


class FirstByName(Bot):
    def __init__(self) -> None:
        self.moves: dict[str, int] = {}

    def start(self, message):
        self.moves[message["game_id"]] = 0

    def act(self, message):
        self.moves[message["game_id"]] = self.moves.get(message["game_id"], 0) + 1
        return min(message["legal"], key=lambda move: move["notation"])["id"]

    def end(self, message):
        played = self.moves.pop(message["game_id"], 0)
        print(
            f"{message['game_id']}: {played} moves, returns {message['returns']}", file=sys.stderr
        )


if __name__ == "__main__":
    FirstByName().run()
