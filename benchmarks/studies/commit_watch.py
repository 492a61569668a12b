"""A move's commit on Redis with and without watches of its game on the same replica
(docs/ladder.md, "Under load"). One event loop, nothing else on it: a ``GameHost`` on
a Redis store plays 2-player Cité games by SubmitAction, one move at a time, and
times each move's ``store.write`` (the commit script's round trip) and its whole
SubmitAction, in four ways, alternated ``--rounds`` times. The first three await the
commit (the default; always so on Sentinel, Cluster or with ``min_replicas``):

- ``unwatched``: no stream watches the game;
- ``watched``: both seats' streams watch it (the ladder's two feeds), each taking
  its events as they come, as a client's WatchGame does;
- ``watched, not held``: the same, with the watch hub handing a game's events to its
  watches at once, not after this replica's commit there has its reply
  (``services.watch.hub.CommitsInFlight``; changed here only, never in gamehost);
- ``watched, inline``: watched, the commit run on its blocking connection inside
  the loop's turn (``inline_commits=1`` on a single Redis:
  services/stores/inline_commit.py).

    .venv/bin/python benchmarks/studies/commit_watch.py [--redis URL] [--games 20] [--rounds 3]

Prints, per way, the commit's and the SubmitAction's p50/p99 in ms, and the store's
reads of the game per move besides the driver's own (a watch reads the seat's legal
actions from the store when it had the event before the commit's reply kept the
position). Its keys are removed after.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from collections.abc import Iterable

import uvloop
from peer_server import quantile

from services.kinds import SeatKind
from services.play.host import GameHost, SeatSpec
from services.stores.redis_connect import with_inline_commits
from services.stores.redis_store import RedisStore
from services.turns import clock
from services.watch.hub import CommitsInFlight

WAYS = ("unwatched", "watched", "watched, not held", "watched, inline")


class _NoRunner:
    def kick(self, game_id: str) -> None:
        return None


class _Timed:
    """The store's commits and game reads, timed and counted."""

    def __init__(self, store: RedisStore) -> None:
        self.commits: list[float] = []
        self.loads = 0  # besides the driver's
        self.driving = False  # the driver reads: not counted
        write, load = store.write, store.load

        async def timed_write(commit):
            started = time.perf_counter()
            try:
                return await write(commit)
            finally:
                self.commits.append(time.perf_counter() - started)

        async def counted_load(game_id, request_key=None):
            self.loads += not self.driving
            return await load(game_id, request_key)

        store.write, store.load = timed_write, counted_load


async def _not_held(self, sources: Iterable) -> None:
    return None


async def _play(host: GameHost, timed: _Timed, seed: int, watched: bool) -> list[float]:
    """One game played out by SubmitAction; each move's time."""
    timer = clock.Timer(600.0, 60.0, "random", 3)  # timed, as every ladder game is
    people = [SeatSpec(SeatKind.HUMAN), SeatSpec(SeatKind.HUMAN)]
    created = await host.create_game("cite", people, {}, seed=seed, timer=timer)
    game_id = created.snapshot.game_id
    tokens = dict([await host.join_game(game_id, seat, "") for seat in (0, 1)])
    watches: list[asyncio.Task] = []

    async def follow(token: str) -> None:
        async for _ in host.reading.watch(game_id, token, 0):
            pass

    if watched:
        watches = [asyncio.create_task(follow(tokens[seat])) for seat in (0, 1)]
    moves = []

    async def read(seat: int):
        timed.driving = True
        try:
            return await host.get_state(game_id, tokens[seat])
        finally:
            timed.driving = False

    try:
        view = await read(0)
        while not view.over:
            view = await read(view.to_move)
            action = view.legal_actions[0][0]
            started = time.perf_counter()
            await host.submitting.submit_action(
                game_id, tokens[view.to_move], expected_version=view.snapshot.version, action=action
            )
            moves.append(time.perf_counter() - started)
            view = await read(0)
    finally:
        for task in watches:
            task.cancel()
        await asyncio.gather(*watches, return_exceptions=True)
    return moves


def _ms(values: list[float], share: float) -> float:
    return 1000 * quantile(sorted(values), share)


async def main(args: argparse.Namespace) -> None:
    prefix = f"commit-watch-{uuid.uuid4().hex[:8]}"
    stores = {
        inline: RedisStore.from_url(with_inline_commits(args.redis, inline), prefix=prefix)
        for inline in (False, True)
    }
    await stores[True].settle_layout()
    timers = {inline: _Timed(store) for inline, store in stores.items()}
    hosts = {inline: GameHost(store, _NoRunner()) for inline, store in stores.items()}
    held = CommitsInFlight.replied
    commits: dict[str, list[float]] = {way: [] for way in WAYS}
    moves: dict[str, list[float]] = {way: [] for way in WAYS}
    loads = dict.fromkeys(WAYS, 0)
    try:
        seed = 0
        for _ in range(args.rounds):
            for way in WAYS:
                CommitsInFlight.replied = _not_held if way == "watched, not held" else held
                host, timed = hosts[way.endswith("inline")], timers[way.endswith("inline")]
                timed.commits.clear()
                loads_before = timed.loads
                for _ in range(args.games):
                    seed += 1
                    moves[way] += await _play(host, timed, seed, way != "unwatched")
                commits[way] += timed.commits
                loads[way] += timed.loads - loads_before
    finally:
        CommitsInFlight.replied = held
        for host in hosts.values():
            await host.hub.close()
        redis = stores[False]._redis
        keys = [key async for key in redis.scan_iter(match=f"{prefix}*")]
        for start in range(0, len(keys), 500):
            await redis.delete(*keys[start : start + 500])
        for store in stores.values():
            await store.close()
    print(f"{args.games} games a way, {args.rounds} rounds, alternated; ms p50 / p99")
    print(f"{'way':20} {'commit':>16} {'SubmitAction':>16} {'moves':>7}")
    for way in WAYS:
        print(
            f"{way:20} {_ms(commits[way], 0.5):7.2f} / {_ms(commits[way], 0.99):5.2f}"
            f" {_ms(moves[way], 0.5):7.2f} / {_ms(moves[way], 0.99):5.2f} {len(moves[way]):7d}"
        )
    print("store reads of the game per move, besides the driver's:")
    for way in WAYS:
        print(f"  {way}: {loads[way] / max(1, len(moves[way])):.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--games", type=int, default=20, help="games per way per round")
    parser.add_argument("--rounds", type=int, default=3)
    uvloop.run(main(parser.parse_args()))
