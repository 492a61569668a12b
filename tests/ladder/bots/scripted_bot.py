"""A test bot for `gamehost bot run` (tests/ladder/test_bot_run.py), its behaviour the
first argument: ``ok`` answers each act with its first legal id and its process id;
``chatty`` first prints a line nobody asked for; ``slow`` takes a second over its first
act; ``silent`` never answers; ``long`` answers with a line of 10,000 characters."""

import json
import os
import sys
import time

mode = sys.argv[1]
if mode == "chatty":
    print("hello, nobody asked", flush=True)
first = True
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] != "act" or mode == "silent":
        continue
    if mode == "slow" and first:
        time.sleep(1.0)
    first = False
    answer = {"id": message["legal"][0]["id"], "pid": os.getpid()}
    if mode == "long":
        answer["pad"] = "x" * 10_000
    print(json.dumps(answer), flush=True)
