"""Follow one SubmitAction from the gRPC servicer down to the store and print its path.

A stop is a call into the service's own code (a function under ``services/``; a
coroutine resumed after an await is not a new stop, and comprehensions are not stops);
a return is a stop that hands a value back to its caller (not None). Both are counted
as calls (a function called in a loop counts each time) and as functions (each once). The action is a
seat's legal move with ``expected_version`` and ``request_id`` set, on the in-memory
store, sent to a replica that did not write the game's last version (so it reads the
game: the common path, not the fast path of a replica's own last write).

    .venv/bin/python scripts/submit_path.py          # the path, indented by depth
    .venv/bin/python scripts/submit_path.py --count  # the two counts only
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import types
from pathlib import Path

from gamehost.v1 import gamehost_pb2 as pb
from services.api.grpc_api import GameHostServicer
from services.kinds import SeatKind
from services.play.host import GameHost, SeatSpec
from services.stores.memory import MemoryStore

SERVICES = str(Path(__file__).resolve().parent.parent / "services")


class _NoRunner:
    """A bot runner that is never needed: both seats are people."""

    def kick(self, game_id: str) -> None:
        return None


class _Trace:
    """Every first entry into a ``services/`` function while active, with its depth and
    the value it handed back at its last exit."""

    def __init__(self) -> None:
        self.stops: list[tuple[int, str, types.FrameType]] = []
        self.returned: dict[int, object] = {}  # id(frame) -> value at its last exit
        self._seen: set[int] = set()
        self._frames: list[types.FrameType] = []  # kept alive: ids stay unique

    @staticmethod
    def ours(frame: types.FrameType) -> bool:
        code = frame.f_code
        return code.co_filename.startswith(SERVICES) and not code.co_name.startswith("<")

    def __call__(self, frame: types.FrameType, event: str, arg: object) -> None:
        if not self.ours(frame):
            return
        if event == "call" and id(frame) not in self._seen:
            self._seen.add(id(frame))
            self._frames.append(frame)
            depth, outer = 0, frame.f_back
            while outer is not None:
                depth += self.ours(outer)
                outer = outer.f_back
            where = Path(frame.f_code.co_filename).relative_to(SERVICES).with_suffix("")
            name = f"{str(where).replace('/', '.')}.{frame.f_code.co_qualname}"
            self.stops.append((depth, name, frame))
        elif event == "return":
            self.returned[id(frame)] = arg


async def _follow() -> _Trace:
    store = MemoryStore()
    people = [SeatSpec(SeatKind.HUMAN), SeatSpec(SeatKind.HUMAN)]
    setup = GameHost(store, _NoRunner())  # type: ignore[arg-type]
    view = await setup.create_game("cite", people, {}, seed=7)
    game_id = view.snapshot.game_id
    tokens = dict([await setup.join_game(game_id, seat, f"p{seat}") for seat in (0, 1)])
    state = (await setup.get_state(game_id, tokens[0])).state
    seat = state.current_player()
    servicer = GameHostServicer(GameHost(store, _NoRunner()))  # type: ignore[arg-type]
    request = pb.SubmitActionRequest(
        game_id=game_id,
        token=tokens[seat],
        expected_version=view.snapshot.version,
        action_id=state.legal_actions()[0],
        request_id="one",
    )
    trace = _Trace()
    sys.setprofile(trace)
    try:
        answer = await servicer.SubmitAction(request, None)
    finally:
        sys.setprofile(None)
    assert answer.version > view.snapshot.version and not answer.duplicate
    return trace


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", action="store_true", help="print the two counts only")
    args = parser.parse_args()
    trace = asyncio.run(_follow())
    handed_back: set[str] = set()
    calls_back = 0
    for depth, name, frame in trace.stops:
        value = trace.returned.get(id(frame))
        if value is not None:
            calls_back += 1
            handed_back.add(name)
        if not args.count:
            print(f"{'  ' * depth}{name}{'' if value is None else '  ->'}")
    functions = {name for _, name, _ in trace.stops}
    print(f"calls: {len(trace.stops)} stops, {calls_back} returns")
    print(f"functions: {len(functions)} stops, {len(handed_back)} returns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
