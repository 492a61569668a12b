"""The example bot (examples/bots/random_bot.py) with a think time: it waits
``THINK_MS`` milliseconds before each answer, as a bot that searches would.
``benchmarks/ladder_load.py --think-ms N`` runs it; the wait is the bot's own time,
which the round trip leaves out.

    python benchmarks/thinking_bot.py THINK_MS
"""

import json
import random
import sys
import time

think = float(sys.argv[1]) / 1000
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "act":
        time.sleep(think)
        move = random.choice(message["legal"])
        print(json.dumps({"id": move["id"]}), flush=True)
