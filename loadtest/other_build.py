"""Bot decisions made by the other build (compiled or pure) in a helper process, so one
match can seat a pure-Python bot against compiled ones (``bots_strength.py --a-build``).

The helper is this module run (``python -m loadtest.other_build``) with ``GAMEHOST_PURE_PYTHON`` set for the build
asked. It reads one JSON line per decision (the game, the seat's determinized view as
``State.to_dict``, the seat, the level and the bot's seed), calls ``bots.decide.decide``
and writes back the action and its search iterations. A view's ``to_dict`` rebuilds the
exact state in either build, so an iteration-bound level decides alike in both
(tests/bots/test_other_build.py); a level bound by seconds searches what the helper's
build manages in that time, which is what a match at a time budget compares.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from collections.abc import Callable

from games import State, engine_build, get_game
from games.build import PURE_ENV

ROOT = pathlib.Path(__file__).resolve().parent.parent

BUILDS = ("compiled", "pure")


class OtherBuild:
    """One helper process of ``build``; ``decide`` has ``bots.decide.decide``'s signature."""

    def __init__(self, build: str) -> None:
        if build not in BUILDS:
            raise ValueError(f"build must be one of {', '.join(BUILDS)}, not {build!r}")
        env = {k: v for k, v in os.environ.items() if k != PURE_ENV}
        if build == "pure":
            env[PURE_ENV] = "1"
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        self._process = subprocess.Popen(
            [sys.executable, "-m", "loadtest.other_build"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=env,
        )
        running = self._read()["build"]
        if running != build:  # e.g. compiled asked where nothing was compiled
            self.close()
            raise RuntimeError(f"the helper runs the {running} build, not {build}")
        self.build = build

    def decide(self, view: State, seat: int, level: str, seed: int) -> tuple[int, int]:
        assert self._process.stdin is not None
        request = {"game": view.info.name, "state": view.to_dict(), "seat": seat}
        request.update(level=level, seed=seed)
        self._process.stdin.write(json.dumps(request, separators=(",", ":")) + "\n")
        self._process.stdin.flush()
        answer = self._read()
        return answer["action"], answer["iterations"]

    def _read(self) -> dict:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the helper process ended (status {self._process.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"the helper failed: {answer['error']}")
        return answer

    def close(self) -> None:
        if self._process.poll() is None:
            assert self._process.stdin is not None
            self._process.stdin.close()
            self._process.wait(timeout=30)


def routed(helper: OtherBuild, level: str) -> Callable[[State, int, str, int], tuple[int, int]]:
    """A decider for ``bots.arena.play_game``: ``level``'s decisions go to the helper,
    every other level decides in this process."""
    from bots.decide import decide

    def decider(view: State, seat: int, wanted: str, seed: int) -> tuple[int, int]:
        if wanted == level:
            return helper.decide(view, seat, wanted, seed)
        return decide(view, seat, wanted, seed)

    return decider


def serve() -> None:
    """The helper's loop: one decision per line until stdin closes."""
    from bots.decide import decide

    print(json.dumps({"build": engine_build()}), flush=True)
    for line in sys.stdin:
        try:
            request = json.loads(line)
            view = get_game(request["game"]).state_class.from_dict(request["state"])
            action, iterations = decide(view, request["seat"], request["level"], request["seed"])
            answer: dict = {"action": action, "iterations": iterations}
        except Exception as exc:  # said to the parent, which stops the match
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    serve()
