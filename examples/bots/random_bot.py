"""A ladder bot in 20 lines of plain Python (docs/bot-protocol.md): it reads one JSON
object a line on stdin and answers every "act" with a random legal move on stdout.

    GAMEHOST_BOT_KEY=KEY gamehost bot run --target HOST:PORT --cmd "python examples/bots/random_bot.py"
"""

import json
import random
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "act":
        move = random.choice(message["legal"])
        print(json.dumps({"id": move["id"]}), flush=True)
    elif message["type"] == "end":
        print(f"game {message['game_id']} over: {message['returns']}", file=sys.stderr)
