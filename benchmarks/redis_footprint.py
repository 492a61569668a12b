"""Redis bytes per game (docs/capacity.md): live games by type and stage, finished
games before and after archiving, request ids per game, live games per GiB and the
Redis primaries that 100,000 and 1,000,000 live games need.

    .venv/bin/python benchmarks/redis_footprint.py [--redis URL] [--games 2]
        [--types catan,endeavor,cite] [--bots random,greedy] [--primary-gib 8]
        [--overhead 1.2]

Real games on real servers against a real Redis, under a key prefix of their own
(deleted afterwards; the archive is a scratch SQLite file). Bytes are Redis's own
``MEMORY USAGE`` of every key a game has (``SAMPLES 0``: exact), so allocator slack
inside a key counts and the allocator's own fragmentation does not (``--overhead``).

- Live: 4 players, seat 0 played by this script (a random legal move, under a
  request id, as a client does), seats 1-3 bots; measured at each of seat 0's turns.
  Start: its first turn; middle: the turn nearest half the game's events; end: its
  last turn.
- Finished: 4 bots, the same seeds twice: with ``--archive none`` (what Redis keeps
  for ``--finished-retention``, 7 days) and with an archive (what it keeps once the
  game is archived). The log's bytes as plain JSON events (the former format) are
  measured by writing the same events to a scratch stream.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import pathlib
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator

import redis
import zstandard

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.archive.archive import Archive
from services.server import ServerConfig, ServerThread
from services.stores import compact
from services.stores.redis_store import LOG_BLOCK

ROOT = pathlib.Path(__file__).resolve().parent.parent

PLAYERS = 4
GIB = 2**30


@dataclasses.dataclass
class Sample:
    events: int  # the game's events so far
    keys: dict[str, int]  # key part (game, tokens, events, requests, ...) -> bytes

    @property
    def total(self) -> int:
        return sum(self.keys.values())


@dataclasses.dataclass
class Live:
    game_type: str
    bots: str
    samples: list[Sample]
    final_events: int

    def stage(self, name: str) -> Sample:
        if name == "start":
            return self.samples[0]
        if name == "end":
            return self.samples[-1]
        half = self.final_events / 2
        return min(self.samples, key=lambda s: abs(s.events - half))


@dataclasses.dataclass
class Finished:
    game_type: str
    bots: str
    events: int
    before: dict[str, int]  # key part -> bytes, finished, not archived
    plain_log: int  # the same log as plain JSON events
    after: dict[str, int]  # once archived


@dataclasses.dataclass
class EventBytes:
    """What the events of one kind take: packed as stored, and as plain JSON."""

    count: int = 0
    packed: int = 0
    plain: int = 0


def event_kind(event: dict) -> str:
    if event["kind"] == "action":
        return "action, hidden" if event.get("audience") is not None else "action"
    return event["kind"]


class Footprint:
    """Bytes of a game's keys under one prefix."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.redis = client
        self.prefix = prefix

    def key(self, game_id: str, part: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:{part}"

    def parts(self, game_id: str) -> dict[str, int]:
        """Every key of the game (SCAN), by part ("request:..." keys summed as "request")."""
        found: dict[str, int] = {}
        for raw in self.redis.scan_iter(match=self.key(game_id, "*"), count=1000):
            part = raw.decode().split("}:", 1)[1]
            name = "request" if part.startswith("request:") else part
            found[name] = found.get(name, 0) + (self.redis.memory_usage(raw, samples=0) or 0)
        return found

    def live_parts(self, game_id: str) -> dict[str, int]:
        """The keys a live game always has (no SCAN: cheap at every turn)."""
        return {
            part: self.redis.memory_usage(self.key(game_id, part), samples=0) or 0
            for part in ("game", "tokens", "events", "log", "requests")
        }

    def logged(self, game_id: str) -> Iterator[tuple[int, bytes]]:
        """(event id, packed event) of the whole log: sealed blocks, then the stream."""
        blocks = self.redis.hgetall(self.key(game_id, "log"))
        for block in sorted(blocks, key=int):
            lines = zstandard.decompress(blocks[block]).split(b"\n")
            yield from enumerate(lines, start=int(block) * LOG_BLOCK + 1)
        cursor = "-"
        while entries := self.redis.xrange(self.key(game_id, "events"), cursor, "+", 1000):
            for entry_id, fields in entries:
                yield int(entry_id.partition(b"-")[0]), fields[b"e"]
            cursor = "(" + entries[-1][0].decode()

    def plain_log(self, game_id: str) -> int:
        """The game's log written as plain JSON events to one stream (the former
        format), in bytes."""
        scratch = self.key(uuid.uuid4().hex, "events")
        try:
            for event_id, packed in self.logged(game_id):
                plain = json.dumps(compact.unpack(packed), separators=(",", ":"))
                self.redis.xadd(scratch, {"e": plain}, id=f"{event_id}-0")
            return self.redis.memory_usage(scratch, samples=0) or 0
        finally:
            self.redis.delete(scratch)

    def cleanup(self) -> None:
        keys = list(self.redis.scan_iter(match=f"{self.prefix}:*", count=1000))
        for start in range(0, len(keys), 500):
            self.redis.delete(*keys[start : start + 500])


@contextlib.contextmanager
def served(redis_url: str, prefix: str, archive_url: str | None) -> Iterator[Client]:
    config = ServerConfig(  # no rate limit: seat 0 reads the state after every event
        port=0,
        redis_url=redis_url,
        redis_prefix=prefix,
        bot_workers=1,
        archive_url=archive_url,
        rate_limit=0,
    )
    with ServerThread(config) as server, Client(server.target) as client:
        yield client


def play_live(client: Client, footprint: Footprint, game_type: str, bots: str, seed: int) -> Live:
    created = client.create_game(game_type, ["human", *[f"bot:{bots}"] * (PLAYERS - 1)], seed=seed)
    game_id = created.game_id
    me = client.join(game_id, 0)
    rng = random.Random(seed)
    samples: list[Sample] = []
    while True:  # GetState says whose turn it is; WatchGame wakes us when it changes
        state = client.state(game_id, me.token)
        if state.status == pb.FINISHED:
            return Live(game_type, bots, samples, state.last_event_id)
        if state.legal_actions:
            samples.append(Sample(state.last_event_id, footprint.live_parts(game_id)))
            move = rng.choice(state.legal_actions)
            client.submit(game_id, me.token, move.id, expected_version=state.version)
            continue
        with contextlib.closing(client.watch(game_id, me.token, state.last_event_id)) as feed:
            next(feed, None)


def play_bots(client: Client, game_type: str, bots: str, seed: int) -> str:
    game = client.create_game(game_type, [f"bot:{bots}"] * PLAYERS, seed=seed)
    for _ in client.watch(game.game_id):  # ends after the game's end
        pass
    return game.game_id


def wait_archived(footprint: Footprint, game_id: str, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while footprint.redis.exists(footprint.key(game_id, "game")):
        if time.monotonic() > deadline:
            raise SystemExit(f"game {game_id} was not archived within {timeout:.0f} s")
        time.sleep(0.2)


def kb(n: float) -> str:
    return f"{n / 1000:,.1f} KB" if n >= 1000 else f"{n:,.0f} B"


def mean(values: list[float]) -> float:
    return statistics.mean(values) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--games", type=int, default=2, help="games per type and bot kind")
    parser.add_argument("--types", default="catan,endeavor,cite")
    parser.add_argument("--bots", default="random,greedy")
    parser.add_argument(
        "--primary-gib", type=float, default=8.0, help="game data one Redis primary holds"
    )
    parser.add_argument(
        "--overhead", type=float, default=1.2, help="allocator fragmentation over MEMORY USAGE"
    )
    args = parser.parse_args()
    types, kinds = args.types.split(","), args.bots.split(",")
    seeds = range(1, args.games + 1)
    prefix = f"footprint-{uuid.uuid4().hex[:10]}"
    plain = Footprint(redis.Redis.from_url(args.redis), prefix + "-plain")
    archived = Footprint(redis.Redis.from_url(args.redis), prefix + "-archived")
    lives: list[Live] = []
    finished: list[Finished] = []
    per_event: dict[tuple[str, str], EventBytes] = {}  # (game type, kind) -> bytes
    sealed: dict[str, EventBytes] = {}  # game type -> events in sealed blocks, their bytes
    index_share = 0.0
    with tempfile.TemporaryDirectory() as scratch:
        archive_url = f"sqlite:///{pathlib.Path(scratch) / 'archive.sqlite3'}"
        try:
            Archive.open(archive_url, create=True).close()
            print(f"live games: seat 0 random (this script), 3 bots; {args.games} per row ...")
            with served(args.redis, archived.prefix, archive_url) as client:
                for game_type in types:
                    for bots in kinds:
                        for seed in seeds:
                            lives.append(play_live(client, archived, game_type, bots, seed))
                            print(f"  {game_type} {bots} #{seed}: {lives[-1].final_events} events")
            print("finished games: 4 bots, kept as finished (--archive none) ...")
            before: dict[tuple[str, str, int], tuple[str, dict[str, int], int, int]] = {}
            with served(args.redis, plain.prefix, None) as client:
                for game_type in types:
                    for bots in kinds:
                        for seed in seeds:
                            game_id = play_bots(client, game_type, bots, seed)
                            events = 0
                            for _, packed in plain.logged(game_id):
                                event = compact.unpack(packed)
                                kind = per_event.setdefault(
                                    (game_type, event_kind(event)), EventBytes()
                                )
                                kind.count += 1
                                kind.packed += len(packed)
                                kind.plain += len(json.dumps(event, separators=(",", ":")))
                                events += 1
                            parts = plain.parts(game_id)
                            blocks = plain.redis.hlen(plain.key(game_id, "log"))
                            sealed.setdefault(game_type, EventBytes()).count += blocks * LOG_BLOCK
                            sealed[game_type].packed += parts.get("log", 0)
                            before[game_type, bots, seed] = (
                                game_id,
                                parts,
                                plain.plain_log(game_id),
                                events,
                            )
                            print(f"  {game_type} {bots} #{seed}: {events} events")
                index = plain.redis.memory_usage(f"{plain.prefix}:games", samples=0) or 0
                index_share = index / max(1, plain.redis.zcard(f"{plain.prefix}:games"))
            print("the same games with an archive, once archived ...")
            with served(args.redis, archived.prefix, archive_url) as client:
                for (game_type, bots, seed), (_, parts, plain_log, events) in before.items():
                    game_id = play_bots(client, game_type, bots, seed)
                    wait_archived(archived, game_id)
                    after = archived.parts(game_id)
                    finished.append(Finished(game_type, bots, events, parts, plain_log, after))
        finally:
            plain.cleanup()
            archived.cleanup()
    report(lives, finished, index_share, args)
    report_events(per_event, sealed)


def report(lives: list[Live], finished: list[Finished], index_share: float, args) -> None:
    rows = sorted({(x.game_type, x.bots) for x in [*lives, *finished]})

    print("\n## Live games: bytes per game (seat 0 to move; 3 bots), mean")
    print("| game | bots | events: start / middle / end | start | middle | end |")
    print("|---|---|---|---:|---:|---:|")
    for game_type, bots in rows:
        games = [x for x in lives if (x.game_type, x.bots) == (game_type, bots)]
        if not games:
            continue
        ev = " / ".join(f"{mean([g.stage(s).events for g in games]):,.0f}" for s in STAGES)
        sizes = [kb(mean([g.stage(s).total for g in games])) for s in STAGES]
        print(f"| {game_type} | {bots} | {ev} | {' | '.join(sizes)} |")
    print("\nwhere the bytes of a live game go, at the middle stage (mean):")
    print("| game | bots | game hash | tokens | log: stream | log: sealed | seat 0's request ids |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for game_type, bots in rows:
        games = [x for x in lives if (x.game_type, x.bots) == (game_type, bots)]
        if games:
            parts = [
                kb(mean([g.stage("middle").keys.get(p, 0) for g in games]))
                for p in ("game", "tokens", "events", "log", "requests")
            ]
            print(f"| {game_type} | {bots} | {' | '.join(parts)} |")

    print("\n## Finished games (4 bots): bytes per game, mean")
    print(
        "| game | bots | events | finished, not archived | of which the log"
        " | the log as plain JSON | once archived |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for game_type, bots in rows:
        games = [x for x in finished if (x.game_type, x.bots) == (game_type, bots)]
        if not games:
            continue
        cells = [
            f"{mean([g.events for g in games]):,.0f}",
            kb(mean([sum(g.before.values()) for g in games])),
            kb(mean([g.before.get("events", 0) + g.before.get("log", 0) for g in games])),
            kb(mean([g.plain_log for g in games])),
            kb(mean([sum(g.after.values()) for g in games])),
        ]
        print(f"| {game_type} | {bots} | {' | '.join(cells)} |")
    left = sorted({p for g in finished for p in g.after})
    print(f"keys left once archived: {', '.join(left) or 'none'}")
    turn_keys = sum(g.before.get("request", 0) + g.before.get("requests", 0) for g in finished)
    print(f"request-id keys of bot turns in finished games: {turn_keys} B in all")

    print("\n## Request ids per live game: seat 0's (one a move), at its last turn")
    print("| game | bots | request ids | bytes | per id |")
    print("|---|---|---:|---:|---:|")
    for game_type, bots in rows:
        games = [x for x in lives if (x.game_type, x.bots) == (game_type, bots)]
        if games:
            count = mean([len(g.samples) - 1 for g in games])  # sent before its last turn
            total = mean([g.stage("end").keys["requests"] for g in games])
            per = total / count if count else 0
            print(f"| {game_type} | {bots} | {count:,.0f} | {kb(total)} | {per:,.0f} B |")
    print(
        "kept --request-ttl (1 day) after the newest, then archived with the game; bot "
        "turns: no key of their own (one `turn` field of the game hash, the newest turn's)"
    )

    print(
        f"\n## Capacity: live games per GiB and Redis primaries (each holding "
        f"{args.primary_gib:g} GiB of game data; x{args.overhead:g} for fragmentation; "
        f"index {index_share:,.0f} B a game)"
    )
    print(
        "| game | bots | stage | bytes a game | live games per GiB | primaries for 100,000 | for 1,000,000 |"
    )
    print("|---|---|---|---:|---:|---:|---:|")
    for game_type, bots in rows:
        games = [x for x in lives if (x.game_type, x.bots) == (game_type, bots)]
        for stage in STAGES if games else ():
            size = (mean([g.stage(stage).total for g in games]) + index_share) * args.overhead
            per_gib = GIB / size
            primaries = [math.ceil(n * size / (args.primary_gib * GIB)) for n in (1e5, 1e6)]
            print(
                f"| {game_type} | {bots} | {stage} | {kb(size)} | {per_gib:,.0f} | "
                f"{primaries[0]} | {primaries[1]} |"
            )


def report_events(per_event: dict[tuple[str, str], EventBytes], sealed: dict) -> None:
    print("\n## Bytes an event (the finished games' logs), mean")
    print("| game | event | events | packed | as plain JSON |")
    print("|---|---|---:|---:|---:|")
    for (game_type, kind), seen in sorted(per_event.items()):
        packed, plain = seen.packed / seen.count, seen.plain / seen.count
        print(f"| {game_type} | {kind} | {seen.count:,} | {packed:,.0f} B | {plain:,.0f} B |")
    print("sealed blocks (zstd, in the log hash), bytes an event:")
    for game_type, seen in sorted(sealed.items()):
        if seen.count:
            print(f"  {game_type}: {seen.packed / seen.count:,.1f} B ({seen.count:,} events)")


STAGES = ("start", "middle", "end")

if __name__ == "__main__":
    main()
